"""Imitate ``strong``, then improve by PPO near the clone: the recipe's pieces, on ``continental_v1``.

The observation here is the ``continental_v1`` vector: the v0 vector
(``continental_env.env.encode_observation``) followed by the derived features of
``continental_env.contract.features``, which read the engine's own public log (``game.public_log``).
``feature_observation(game, seat)`` builds it from those two parts; the environment's v1
observation equals it entry for entry (tests/test_observation.py).

Steps, each a subcommand of ``python -m agents.train.imitation``:

1. ``collect``: play duplicate-seeded tables (every deal at an all-``strong`` table and at a
   ``strong``/``greedy`` table, same cards) and log every decision of ``strong`` that had a
   choice: the observation (v1, or v0 with ``--no-features``), the legal actions, the action
   taken and the seat's relative reward of that round (for the value head). Written to one
   ``.npz``.
2. ``clone``: behaviour cloning of a MaskablePPO policy (the same ``MlpPolicy`` network PPO then
   fine-tunes) on a split by deal: cross-entropy over the legal actions, an entropy bonus so the
   clone stays stochastic enough for PPO to explore (a clone collapsed to one action per state
   gives PPO nothing to improve; sb3-contrib #291 reports NaNs after cloning, so every batch's
   logits are checked and a non-finite loss stops the run with a clear error), the value head
   fitted to the round rewards. Reports the held-out accuracy (the clone's most likely legal
   action equals ``strong``'s). The model is a MaskablePPO ``.zip`` with its metadata; it loads
   into the v1 single-learner environment (``agents.train.single_agent.make_env(version=1)``).
3. ``evaluate``: duplicate deals of a clone against a bot through ``agents.evaluate.harness``.

PPO near the clone is ``agents.train.kl_ppo``, wired into ``agents.train.sb3`` with ``--init-policy`` and
``--kl-coef``/``--kl-anneal-steps`` (``train.py`` observes ``continental_v1`` by default).

What a model here was trained for is recorded in it (``feature_metadata``): the environment
(``FEATURE_ENV``, ``continental_v1``), the table size and the sizes. Models written before v1
existed record ``continental_v0+features``; their vector is the v1 vector, so they load and play
as ``continental_v1`` models. ``ppo:PATH`` plays any of them; ``bc:PATH``
(``load_feature_agent``) is the same agent, refusing a model of another observation or table size
with one line.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.contract.feature_agent import (
    dropped_columns,
    feature_metadata,
    feature_observation,
)
from agents.contract.view import PlayerView
from continental_env.contract.aec import encode_observation, observation_layout
from continental_env.contract.features import encode_features, feature_layout
from continental_env.contract.game import Game
from continental_env.rules import resolve_rules

TEACHER = "strong"


# ============================================================================ 1. collect


def _deal_seed(seed: int, deal: int) -> int:
    from agents.evaluate.harness import derive_seed

    return derive_seed(seed, "imitation", deal)


def collect_deal(task: tuple) -> dict[str, Any]:
    """The teacher's decisions in one deal, at an all-teacher table and a mixed one.

    ``task`` is (deal, seed, players, preset, features, rounds or None), optionally followed by
    the one table to play (0: all-teacher, 1: mixed; ``collect`` plays them as separate tasks, so
    its progress moves game by game).
    """
    from agents import make_agent

    deal, seed, players, preset, features, rounds = task[:6]
    only = task[6] if len(task) > 6 else None
    rules = resolve_rules(preset)
    if rounds:
        rules = rules.with_rounds(tuple(rounds))
    game_seed = _deal_seed(seed, deal)
    mixed = [TEACHER if (s + deal) % 2 == 0 else "greedy" for s in range(players)]
    tables = [[TEACHER] * players, mixed]
    obs, legal, actions, seats, rounds, values = [], [], [], [], [], []
    for t, names in enumerate(tables):
        if only is not None and t != only:
            continue
        game = Game.new(rules, players, seed=game_seed)
        bots = [make_agent(n, seed=game_seed % 2**31 + 7 * t + s) for s, n in enumerate(names)]
        start = len(actions)
        while not game.is_over:
            seat = game.actor
            choices = game.legal_actions()
            action = bots[seat].act(PlayerView(game, seat))
            if len(choices) > 1 and names[seat] == TEACHER:
                x = (
                    feature_observation(game, seat)
                    if features
                    else encode_observation(game, seat, observation_layout(players))
                )
                obs.append(x.astype(np.float16))
                legal.append(np.array(choices, dtype=np.int16))
                actions.append(action)
                seats.append(seat)
                rounds.append(len(game.round_history))
            game.apply(action)
        for i in range(start, len(actions)):
            points = game.round_history[rounds[i]]["points"]
            others = (sum(points) - points[seats[i]]) / (players - 1)
            values.append((others - points[seats[i]]) / 100.0)
    return {
        "deal": deal,
        "obs": obs,
        "legal": legal,
        "actions": actions,
        "values": values,
    }


def _dataset(parts: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, np.ndarray]:
    """The decisions of every deal as the dataset's arrays (legal actions flat, with offsets)."""
    legal = [row for p in parts for row in p["legal"]]
    return {
        "obs": np.stack([x for p in parts for x in p["obs"]]),
        "legal_flat": np.concatenate(legal).astype(np.int16),
        "legal_offsets": np.cumsum([0] + [len(r) for r in legal]).astype(np.int64),
        "actions": np.array([a for p in parts for a in p["actions"]], dtype=np.int64),
        "values": np.array([v for p in parts for v in p["values"]], dtype=np.float32),
        "deal": np.array([p["deal"] for p in parts for _ in p["actions"]], dtype=np.int32),
        "meta": np.array(json.dumps(meta)),
    }


def collect(
    out: str,
    deals: int,
    seed: int,
    players: int,
    preset: str,
    features: bool,
    jobs: int = 1,
    rounds: Sequence[int] | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Log the teacher's decisions of ``deals`` duplicate deals to ``out`` (``.npz``, atomic)."""
    import multiprocessing

    from tqdm import tqdm

    # one task per game (a deal's two tables), in deal order: the parts concatenate as before
    tasks = [(d, seed, players, preset, features, rounds, t) for d in range(deals) for t in (0, 1)]
    parts: list[dict[str, Any]] = []
    t0 = time.time()
    bar = tqdm(total=len(tasks), desc="games", unit="game", file=sys.stderr, mininterval=5,
               disable=not progress)  # fmt: skip
    if jobs <= 1:
        for task in tasks:
            parts.append(collect_deal(task))
            bar.update()
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for part in pool.imap(collect_deal, tasks):
                parts.append(part)
                bar.update()
    bar.close()
    meta = {"players": players, "preset": preset, "features": features, "seed": seed,
            "deals": deals, "teacher": TEACHER}  # fmt: skip
    data = _dataset(parts, meta)
    tmp = f"{out}.{os.getpid()}.tmp.npz"
    np.savez_compressed(tmp, **data)
    os.replace(tmp, out)
    summary = {"decisions": len(data["actions"]), "deals": deals, "seconds": time.time() - t0}
    print(json.dumps(summary), flush=True)
    return summary


# ============================================================================ 2. clone


def load_dataset(path: str) -> dict[str, Any]:
    with np.load(path) as data:
        out = {k: data[k] for k in data.files}
    out["meta"] = json.loads(str(out["meta"]))
    return out


def masks_for(data: dict[str, Any], idx: np.ndarray, num_actions: int) -> np.ndarray:
    """The legal-action masks of the dataset's decisions ``idx``."""
    from agents.train.cloning import legal_masks

    offsets, flat = data["legal_offsets"], data["legal_flat"]
    return legal_masks([flat[offsets[i] : offsets[i + 1]] for i in idx], num_actions)


def build_model(players: int, preset: str, features: bool, net_arch: Sequence[int], seed: int):
    """A MaskablePPO model with the network PPO fine-tunes (single-agent env, one worker)."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.train.single_agent import make_env

    env = make_env(opponents=["greedy"], num_players=players, preset=preset,
                   version=1 if features else 0, round_episodes=True, seed=seed)  # fmt: skip
    return MaskablePPO(
        "MlpPolicy",
        env,
        policy_kwargs={
            "net_arch": {"pi": list(net_arch), "vf": list(net_arch)},
            "activation_fn": torch.nn.ReLU,
        },
        seed=seed,
        device="cpu",
        verbose=0,
    )


def _check_clone_settings(epochs: int, batch_size: int, holdout: float, **rates: float) -> None:
    """ValueError naming the first setting ``clone`` cannot train with."""
    for name, value in (("epochs", epochs), ("batch_size", batch_size)):
        if value < 1:
            raise ValueError(f"{name}={value}: must be at least 1")
    if not (0 < holdout < 1):
        raise ValueError(f"holdout={holdout}: must be in (0, 1)")
    for name, value in rates.items():
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name}={value}: must be a finite number >= 0")


def _check_label_weights(
    searched_weight: float, soft_weight: float, temperature: float, deviated_weight: float = 1.0
) -> None:
    """ValueError naming the first weight of the expert labels ``clone`` cannot use."""
    for name, value in (("searched_weight", searched_weight), ("deviated_weight", deviated_weight)):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{name}={value}: must be a finite number > 0")
    if not (math.isfinite(soft_weight) and 0 <= soft_weight <= 1):
        raise ValueError(f"soft_weight={soft_weight}: must be in [0, 1]")
    if not (math.isfinite(temperature) and temperature > 0):
        raise ValueError(f"soft_temperature={temperature}: must be a finite number > 0")


def clone(
    data_path: str,
    out: str,
    epochs: int = 4,
    lr: float = 1e-3,
    ent_coef: float = 0.01,
    vf_coef: float = 0.5,
    batch_size: int = 512,
    holdout: float = 0.1,
    net_arch: Sequence[int] = (256, 256),
    seed: int = 1,
    v0_only: bool = False,
    drop: Sequence[str] = (),
    init: str | None = None,
    searched_weight: float = 1.0,
    soft_weight: float = 0.0,
    soft_temperature: float = 5.0,
    anchor_unsearched: bool = False,
    deviated_weight: float = 1.0,
    kl_weight: float = 0.0,
) -> dict[str, Any]:
    """Behaviour cloning of the teacher's decisions; the model saved atomically to ``out``.

    ``soft_weight`` moves that share of each searched decision's target from the teacher's
    action to the candidates it weighed, as softmax(-mean outcome / ``soft_temperature``) (the
    soft targets of ``agents.train.expert``'s labels; outcomes in points, lower is better).

    ``init`` starts from a model's weights (a ``continental_v1`` MaskablePPO zip for the data's
    table) instead of a fresh network; ``searched_weight`` weighs the decisions a search teacher
    searched (the ``searched`` array of ``agents.train.expert``'s datasets) that many times in
    the policy loss; ``deviated_weight`` multiplies the weight of the decisions where it left
    its prior's move (``deviated``), the few labels that carry what the search adds.
    ``kl_weight`` (with ``init``) adds that weight x KL(init's policy || the clone's) on every
    training decision: the clone moves where the labels pull and keeps the init's distribution
    elsewhere.

    ``anchor_unsearched`` (with ``init``, on a search teacher's labels): the decisions the
    teacher did not search take the ``init`` model's own move as their label, so the clone
    learns the search's choices and keeps its start's moves elsewhere (where a search teacher did
    not search, its move is only its own prior's).

    ``v0_only`` clones from the v0 part of a features dataset (the ablation without features);
    ``drop`` names feature groups set to 0 in training and play (an ablation; the model records
    them).
    """
    import torch

    from agents.train.cloning import frozen_copy

    _check_clone_settings(epochs, batch_size, holdout, lr=lr, ent_coef=ent_coef, vf_coef=vf_coef,
                          kl_weight=kl_weight)  # fmt: skip
    _check_label_weights(searched_weight, soft_weight, soft_temperature, deviated_weight)
    data, features = _clone_data(data_path, searched_weight, v0_only, drop, deviated_weight)
    _check_clone_needs(data, data_path, init, soft_weight, anchor_unsearched, kl_weight)
    players, preset = data["meta"]["players"], data["meta"]["preset"]
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    model = build_model(players, preset, features, net_arch, seed)
    if init:
        _load_init(model, init, players, preset, features, drop)
    policy = model.policy
    n_actions = model.action_space.n
    if data["obs"].shape[1] != model.observation_space.shape[0]:
        raise ValueError(
            f"{data_path}: observations of size {data['obs'].shape[1]}, the model takes "
            f"{model.observation_space.shape[0]}"
        )
    train_idx, test_idx = _split_by_deal(data, holdout, data_path)
    obs = Rows(data["obs"])
    anchored = _anchor_labels(policy, obs, data, n_actions) if anchor_unsearched else None
    actions = torch.as_tensor(data["actions"])
    values = torch.as_tensor(data["values"])
    weights = _label_weights(data, searched_weight, deviated_weight)
    before = None
    if init and "searched" in data:
        before = _by_kind(policy, obs, actions, data, test_idx, n_actions)
        print(json.dumps({"init": init, "heldout_by_kind": before}), flush=True)
    t0 = time.time()
    soft = (soft_weight, soft_temperature) if soft_weight else None
    anchor = (frozen_copy(policy), kl_weight) if kl_weight else None
    history = _fit(policy, data, (obs, actions, values, weights), (train_idx, test_idx),
                   epochs=epochs, batch_size=batch_size, lr=lr, seed=seed, vf_coef=vf_coef,
                   ent_coef=ent_coef, n_actions=n_actions, soft=soft, anchor=anchor)  # fmt: skip
    _save_clone(model, out, players, preset, features, drop)
    report = {
        "data": data_path,
        "decisions": {"train": len(train_idx), "heldout": len(test_idx)},
        "epochs": history,
        "seconds": time.time() - t0,
        "model": out,
        "init": init,
        "searched_weight": searched_weight,
        "deviated_weight": deviated_weight,
        "kl_weight": kl_weight,
        "soft_weight": soft_weight,
        "soft_temperature": soft_temperature,
        "anchored": anchored,
    }
    if "searched" in data:
        report["heldout_by_kind"] = _by_kind(policy, obs, actions, data, test_idx, n_actions)
        if before is not None:
            report["init_heldout_by_kind"] = before
    return report


def _clone_data(
    data_path: str,
    searched_weight: float,
    v0_only: bool,
    drop: Sequence[str],
    deviated_weight: float = 1.0,
) -> tuple[dict[str, Any], bool]:
    """The dataset ``clone`` trains on (the v0 part with ``v0_only``, the ``drop`` groups set to
    0) and whether its observations have features; ValueError for a ``searched_weight`` or
    ``deviated_weight`` the dataset cannot weigh by."""
    data = load_dataset(data_path)
    meta = data["meta"]
    players, features = meta["players"], meta["features"]
    for name, value, key in (("searched_weight", searched_weight, "searched"),
                             ("deviated_weight", deviated_weight, "deviated")):  # fmt: skip
        if value != 1.0 and key not in data:
            raise ValueError(f"{name}={value}: {data_path} has no {key} flags")
    if v0_only and features:
        data["obs"] = data["obs"][:, : observation_layout(players)["turn"].stop]
        features = False
    dropped = dropped_columns(players, drop) if features else None
    if dropped is not None:
        data["obs"][:, dropped] = 0
    return data, features


def _check_clone_needs(data: dict[str, Any], data_path: str, init: str | None,
                       soft_weight: float, anchor_unsearched: bool, kl_weight: float) -> None:  # fmt: skip
    """ValueError naming the first asked option the dataset or the missing ``init`` cannot serve."""
    if soft_weight and "cand_offsets" not in data:
        raise ValueError(f"soft_weight={soft_weight}: {data_path} has no soft targets")
    if anchor_unsearched and not (init and "searched" in data):
        raise ValueError("anchor_unsearched: needs init and a dataset with searched flags")
    if kl_weight and not init:
        raise ValueError(f"kl_weight={kl_weight}: needs init (the policy to stay near)")


class Rows:
    """A dataset's observations kept as stored (float16 in expert datasets: half the memory of
    float32) and handed out as float32 tensors, a batch of rows at a time."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __getitem__(self, idx: Any) -> Any:
        import torch

        return torch.from_numpy(np.asarray(self.array[idx], dtype=np.float32))


def _label_weights(data: dict[str, Any], searched: float, deviated: float) -> Any:
    """Each decision's weight in the policy loss (``searched`` for a searched decision, times
    ``deviated`` where the teacher left its prior's move), or None when all are 1."""
    import torch

    if searched == 1.0 and deviated == 1.0:
        return None
    weights = np.ones(len(data["actions"]), dtype=np.float32)
    if searched != 1.0:
        weights[data["searched"]] *= searched
    if deviated != 1.0:
        weights[data["deviated"]] *= deviated
    return torch.as_tensor(weights)


def _split_by_deal(
    data: dict[str, Any], holdout: float, data_path: str
) -> tuple[np.ndarray, np.ndarray]:
    """The decisions' indices for training and held out: the last ``holdout`` of the deals are
    held out whole; ValueError when either part would be empty."""
    deals = data["deal"]
    cut = np.quantile(np.unique(deals), 1 - holdout)
    train_idx = np.flatnonzero(deals < cut)
    test_idx = np.flatnonzero(deals >= cut)
    if not len(train_idx) or not len(test_idx):
        raise ValueError(
            f"{data_path}: {len(np.unique(deals))} deal(s) cannot be split into training and "
            f"held-out deals at holdout={holdout}; collect more deals"
        )
    return train_idx, test_idx


def _fit(
    policy: Any,
    data: dict[str, Any],
    tensors: tuple[Any, Any, Any, Any],
    split: tuple[np.ndarray, np.ndarray],
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
    vf_coef: float,
    ent_coef: float,
    n_actions: int,
    soft: tuple[float, float] | None = None,
    anchor: tuple[Any, float] | None = None,
) -> list[dict[str, Any]]:
    """``clone``'s epochs over the training decisions (``tensors``: observations, actions,
    values and the loss weights or None; ``split``: training and held-out indices; ``anchor``:
    a frozen policy and the weight of the KL to it), each printed as a JSON line and returned."""
    import torch

    from agents.train.cloning import clone_step, reference_log_probs, soft_targets

    obs, actions, values, weights = tensors
    train_idx, test_idx = split
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    history = []
    for epoch in range(epochs):
        policy.train()
        order = rng.permutation(train_idx)
        losses, kls = [], []
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            masks = masks_for(data, idx, n_actions)
            targets = None
            if soft is not None:
                offsets, flat, means = data["cand_offsets"], data["cand_flat"], data["cand_values"]
                spans = [slice(offsets[i], offsets[i + 1]) for i in idx]
                ids, probs = soft_targets(data["actions"][idx], [flat[s] for s in spans],
                                          [means[s] for s in spans], *soft)  # fmt: skip
                targets = (torch.as_tensor(ids), torch.as_tensor(probs))
            batch = obs[idx]
            kl = None
            if anchor is not None:
                kl = (reference_log_probs(anchor[0], batch, masks), anchor[1])
            try:
                fitted = clone_step(policy, optimizer, batch, actions[idx], values[idx], masks,
                                 vf_coef=vf_coef, max_grad_norm=0.5, ent_coef=ent_coef,
                                 weights=None if weights is None else weights[idx],
                                 targets=targets, anchor=kl)  # fmt: skip
            except FloatingPointError as exc:
                raise FloatingPointError(f"epoch {epoch + 1}: {exc}") from None
            losses.append(fitted["loss"].item())
            kls.append(fitted["anchor_kl"].item())
        scores = accuracy(policy, obs, actions, data, train_idx[:20_000], n_actions)
        held = accuracy(policy, obs, actions, data, test_idx, n_actions)
        row = {"epoch": epoch + 1, "loss": float(np.mean(losses)), "train": scores, "heldout": held}
        if anchor is not None:
            row["anchor_kl"] = float(np.mean(kls))
        history.append(row)
        print(json.dumps(row), flush=True)
    return history


def _save_clone(
    model: Any, out: str, players: int, preset: str, features: bool, drop: Sequence[str]
) -> None:
    """Save the cloned model to ``out`` atomically, with the metadata its observation needs."""
    from agents.bots.ppo_agent import model_metadata, write_zip_metadata

    model.num_timesteps = 0
    tmp = f"{out}.{os.getpid()}.tmp.zip"
    model.save(tmp)
    if features:
        write_zip_metadata(tmp, {**feature_metadata(players, preset), "dropped": list(drop)})
    else:
        write_zip_metadata(tmp, model_metadata(players, preset))
    os.replace(tmp, out)


def _anchor_labels(policy: Any, obs: Any, data: dict[str, Any], n: int) -> dict[str, int]:
    """Set the label of every decision the teacher did not search to ``policy``'s own move (its
    highest legal logit); how many such decisions there were and how many labels changed."""
    import torch

    idx = np.flatnonzero(~data["searched"])
    moves = np.empty(len(idx), dtype=np.int64)
    policy.eval()
    with torch.no_grad():
        for start in range(0, len(idx), 4096):
            part = idx[start : start + 4096]
            masks = masks_for(data, part, n)
            logits = policy.get_distribution(obs[part], action_masks=masks).distribution.logits
            moves[start : start + len(part)] = logits.argmax(dim=1).numpy()
    policy.train()
    changed = int((data["actions"][idx] != moves).sum())
    data["actions"][idx] = moves
    return {"unsearched": len(idx), "changed": changed}


def _by_kind(policy: Any, obs: Any, actions: Any, data: dict, idx: np.ndarray, n: int) -> dict:
    """Held-out agreement on all decisions, the searched ones and those where the search left
    ``strong``'s move."""
    out = {}
    for kind, chosen in (("all", idx), ("searched", idx[data["searched"][idx]]),
                         ("deviated", idx[data["deviated"][idx]])):  # fmt: skip
        if len(chosen):
            out[kind] = {**accuracy(policy, obs, actions, data, chosen, n), "n": len(chosen)}
    return out


def _load_init(model: Any, path: str, players: int, preset: str, features: bool,
               drop: Sequence[str]) -> None:  # fmt: skip
    """Copy the policy weights of the model at ``path`` into ``model`` (ValueError on a mismatch)."""
    from sb3_contrib import MaskablePPO

    from agents.bots.ppo_agent import ENV_NAME, check_env, read_zip_metadata
    from agents.contract.feature_agent import FEATURE_ENV

    if not os.path.isfile(path):
        raise ValueError(f"init={path}: no such file")
    if path.endswith(".npz"):
        _load_init_policy(model, path, players, preset, features, drop)
        return
    meta = read_zip_metadata(path) or {}
    check_env(meta, f"init={path}", players, FEATURE_ENV if features else ENV_NAME)
    if features:
        want = feature_metadata(players, preset)
        for key in ("preset", "obs_size", "num_actions"):
            if key in meta and meta[key] != want[key]:
                raise ValueError(f"init={path}: {key} {meta[key]!r}, the data's is {want[key]!r}")
    if list(meta.get("dropped", [])) != list(drop):
        raise ValueError(
            f"init={path}: trained with dropped groups {meta.get('dropped', [])}, asked {list(drop)}"
        )
    source = MaskablePPO.load(path, device="cpu")
    theirs, ours = source.policy, model.policy
    if theirs.activation_fn is not ours.activation_fn:
        raise ValueError(
            f"init={path}: activation {theirs.activation_fn.__name__}, the clone's is "
            f"{ours.activation_fn.__name__}"
        )
    if theirs.net_arch != ours.net_arch:
        raise ValueError(
            f"init={path}: network {theirs.net_arch}, --net-arch gives {ours.net_arch}"
        )
    try:
        ours.load_state_dict(theirs.state_dict())
    except RuntimeError as exc:
        raise ValueError(
            f"init={path}: its weights do not fit the clone's network ({exc})"
        ) from None


def _load_init_policy(model: Any, path: str, players: int, preset: str, features: bool,
                      drop: Sequence[str]) -> None:  # fmt: skip
    """Copy a numpy policy's layers (``ppo:PATH.npz``: a self-play run's ``policy.npz`` or a
    shipped network) into ``model``'s actor; its value network stays as initialised (the file has
    none). ValueError (one line) where the file does not fit the data's table or the network."""
    import torch

    from agents.bots.ppo_agent import ENV_NAME, NumpyPolicy, check_env
    from agents.contract.feature_agent import FEATURE_ENV
    from agents.train.cloning import copy_policy_layers

    source = NumpyPolicy.read(path, f"init={path}")
    meta = source.meta or {}
    check_env(meta, f"init={path}", players, FEATURE_ENV if features else ENV_NAME)
    if meta.get("preset", preset) != preset or drop:
        raise ValueError(f"init={path}: a policy for preset {meta.get('preset')!r} with no dropped "
                         f"groups; the clone has {preset!r}, dropped {list(drop)}")  # fmt: skip
    policy = model.policy
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(policy.action_net)
    mine = [tuple(m.weight.shape) for m in layers]
    theirs = [tuple(w.T.shape) for w, _b in source.weights]
    if mine != theirs or source.activation != "relu":
        raise ValueError(f"init={path}: layers {theirs} ({source.activation}), the clone's are "
                         f"{mine} (relu): give --net-arch as the policy's hidden sizes")  # fmt: skip
    copy_policy_layers(layers, source)


def accuracy(policy: Any, obs: Any, actions: Any, data: dict, idx: np.ndarray, n: int) -> dict:
    """Share of decisions where the clone's most likely legal action is the teacher's, and the
    mean entropy of its masked distribution; ValueError if any logit is not finite."""
    import torch

    policy.eval()
    hits = 0
    entropy = 0.0
    with torch.no_grad():
        for start in range(0, len(idx), 4096):
            part = idx[start : start + 4096]
            masks = torch.as_tensor(masks_for(data, part, n))
            dist = policy.get_distribution(obs[part], action_masks=masks.numpy())
            logits = dist.distribution.logits
            if not torch.isfinite(logits[masks]).all():
                raise FloatingPointError("the clone's logits hold NaN or inf")
            hits += int((logits.argmax(dim=1) == actions[part]).sum())
            entropy += float(dist.entropy().sum())
    policy.train()
    return {"accuracy": hits / max(1, len(idx)), "entropy": entropy / max(1, len(idx))}


# ============================================================================ 3. evaluate


def evaluate_clone(
    agents: Sequence[str],
    deals: int,
    seed: int,
    players: int,
    jobs: int = 1,
    progress: bool = True,
    preset: str = "continental",
) -> dict[str, Any]:
    """``agents.evaluate.harness.evaluate`` on the contract game (``bc:PATH`` and every
    ``agents.make_agent`` name can play)."""
    from agents.evaluate.harness import evaluate

    return evaluate(list(agents), players=players, games=deals, seed=seed, jobs=jobs,
                    progress=progress, preset=preset)  # fmt: skip


# ============================================================================ encode cost


def bench_encode(deals: int, seed: int, players: int, repeats: int = 3) -> dict[str, Any]:
    """Microseconds per call of the v0 observation and of the features on the states of
    ``strong``/``greedy`` games (each acting seat's state as it arises): features with an empty
    hand cache (every hand new, as in a fresh worker) and with a warm one."""
    from agents import make_agent
    from continental_env.contract.features import _hand_arrays, hand_analysis

    states = []
    for deal in range(deals):
        game = Game.new("continental", players, seed=_deal_seed(seed, deal))
        names = [TEACHER if s % 2 == 0 else "greedy" for s in range(players)]
        bots = [make_agent(n, seed=deal * 10 + s) for s, n in enumerate(names)]
        while not game.is_over:
            seat = game.actor
            action = bots[seat].act(PlayerView(game, seat))
            states.append((game.clone(), seat))  # the clone keeps the public log
            game.apply(action)
    layout, flayout = observation_layout(players), feature_layout(players)

    def per_call(fn) -> float:
        best = math.inf
        for _ in range(repeats):
            t = time.perf_counter()
            for g, s in states:
                fn(g, s)
            best = min(best, (time.perf_counter() - t) / len(states) * 1e6)
        return best

    v0 = per_call(lambda g, s: encode_observation(g, s, layout))
    cold = math.inf
    for _ in range(repeats):
        hand_analysis.cache_clear()
        _hand_arrays.cache_clear()
        t = time.perf_counter()
        for g, s in states:
            encode_features(g, s, flayout)
        cold = min(cold, (time.perf_counter() - t) / len(states) * 1e6)
    warm = per_call(lambda g, s: encode_features(g, s, flayout))
    report = {"states": len(states), "v0_us": v0, "features_cold_us": cold,
              "features_warm_us": warm}  # fmt: skip
    print(json.dumps(report), flush=True)
    return report


# ============================================================================ plot


PLOT_TITLE = "Clones of strong vs three strong bots (duplicate deals)"


def plot_reports(
    reports: Sequence[tuple[str, str]],
    out: str,
    title: str = PLOT_TITLE,
) -> None:
    """A bar per evaluation report: the candidate's paired difference against the table's bot,
    with its 95 % interval (lower is better)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, diffs, lows, highs = [], [], [], []
    for label, path in reports:
        report = json.loads(Path(path).read_text())
        (paired,) = report["paired"].values()
        labels.append(label)
        diffs.append(paired["mean_diff"])
        lows.append(paired["mean_diff"] - paired["ci95"][0])
        highs.append(paired["ci95"][1] - paired["mean_diff"])
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(labels) + 1.5))
    y = np.arange(len(labels))
    ax.barh(y, diffs, xerr=[lows, highs], color="tab:blue", capsize=4)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("points per game minus the table bot's (95% CI); lower is better")
    ax.set_title(title)
    fig.tight_layout()
    tmp = f"{out}.{os.getpid()}.tmp.png"
    fig.savefig(tmp, dpi=120)
    plt.close(fig)
    os.replace(tmp, out)


# ============================================================================ command line


def build_parser() -> Any:
    """The command line: one subcommand per step."""
    from agents.cli import ArgumentParser

    parser = ArgumentParser(
        prog="python -m agents.train.imitation", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="log strong's decisions on duplicate deals")
    c.add_argument("--out", required=True)
    c.add_argument("--deals", type=int, default=100)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--players", type=int, default=4)
    c.add_argument("--preset", default="continental")
    c.add_argument("--features", action=argparse.BooleanOptionalAction, default=True)
    c.add_argument("--jobs", type=int, default=1)
    b = sub.add_parser("clone", help="behaviour cloning on a collected dataset")
    b.add_argument("--data", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--epochs", type=int, default=4)
    b.add_argument("--lr", type=float, default=1e-3)
    b.add_argument("--ent-coef", type=float, default=0.01)
    b.add_argument("--batch-size", type=int, default=512)
    b.add_argument("--net-arch", default="256,256")
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--json", default="", help="write the report here")
    b.add_argument("--v0-only", action="store_true", help="use only the v0 part of the data")
    b.add_argument("--drop", default="", help="feature groups to zero (ablation), comma separated")
    b.add_argument("--init", default=None,
                   help="start from this model's weights (a v1 .zip, or a policy .npz: its "
                        "actor, with a fresh value network)")  # fmt: skip
    b.add_argument("--searched-weight", type=float, default=1.0,
                   help="weight of the decisions a search teacher searched (expert datasets)")  # fmt: skip
    b.add_argument("--deviated-weight", type=float, default=1.0,
                   help="times the weight of the decisions where a search teacher left its "
                        "prior's move (expert datasets)")  # fmt: skip
    b.add_argument("--kl-weight", type=float, default=0.0,
                   help="with --init: weight of KL(init || clone) on every training decision")  # fmt: skip
    b.add_argument("--soft-weight", type=float, default=0.0,
                   help="share of a searched decision's target spread over its candidates by "
                        "their mean outcomes (expert datasets with soft targets)")  # fmt: skip
    b.add_argument("--anchor-unsearched", action="store_true",
                   help="with --init: the decisions a search teacher did not search take the "
                        "init model's own move as their label")  # fmt: skip
    b.add_argument("--soft-temperature", type=float, default=5.0,
                   help="points: the candidates' target is softmax(-mean / temperature)")  # fmt: skip
    e = sub.add_parser("evaluate", help="duplicate deals of bc:PATH / ppo:PATH against bots")
    e.add_argument("--agents", required=True, help="comma separated, the candidate first")
    e.add_argument("--deals", type=int, default=50)
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--players", type=int, default=4)
    e.add_argument("--jobs", type=int, default=1)
    e.add_argument("--json", default="", help="write the report here")
    m = sub.add_parser("bench", help="microseconds per call: v0 observation vs features")
    m.add_argument("--deals", type=int, default=3)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--players", type=int, default=4)
    m.add_argument("--json", default="", help="write the report here")
    g = sub.add_parser("plot", help="bar chart of evaluation reports' paired differences")
    g.add_argument("--reports", required=True, help="label=report.json, comma separated")
    g.add_argument("--out", required=True, help="the PNG to write")
    g.add_argument("--title", default=PLOT_TITLE, help="the chart's title")
    return parser


def _write_json(path: str, report: dict[str, Any]) -> None:
    if path:
        Path(path).write_text(json.dumps(report, indent=2))


def _run_collect(args: argparse.Namespace) -> None:
    if args.deals < 1:
        raise ValueError(f"--deals {args.deals}: must be at least 1")
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs}: must be at least 1")
    resolve_rules(args.preset).check_players(args.players)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    collect(args.out, args.deals, args.seed, args.players, args.preset, args.features, args.jobs)


def _run_clone(args: argparse.Namespace) -> None:
    if not os.path.isfile(args.data):
        raise ValueError(f"--data {args.data}: no such file")
    try:
        arch = [int(x) for x in args.net_arch.split(",") if x]
    except ValueError:
        arch = []
    if not arch or min(arch) < 1:
        raise ValueError(f"--net-arch {args.net_arch!r}: positive sizes such as 256,256")
    report = clone(args.data, args.out, epochs=args.epochs, lr=args.lr,
                   ent_coef=args.ent_coef, batch_size=args.batch_size, net_arch=arch,
                   seed=args.seed, v0_only=args.v0_only,
                   drop=[g for g in args.drop.split(",") if g], init=args.init,
                   searched_weight=args.searched_weight, soft_weight=args.soft_weight,
                   soft_temperature=args.soft_temperature,
                   anchor_unsearched=args.anchor_unsearched,
                   deviated_weight=args.deviated_weight, kl_weight=args.kl_weight)  # fmt: skip
    _write_json(args.json, report)


def _run_plot(args: argparse.Namespace) -> None:
    pairs = [item.partition("=") for item in args.reports.split(",") if item]
    for label, sep, path in pairs:
        if not sep or not os.path.isfile(path):
            raise ValueError(f"--reports {label}{sep}{path}: expected label=existing.json")
    plot_reports([(label, path) for label, _, path in pairs], args.out, args.title)


def _run_bench(args: argparse.Namespace) -> None:
    _write_json(args.json, bench_encode(args.deals, args.seed, args.players))


def _run_evaluate(args: argparse.Namespace) -> None:
    from agents.evaluate.harness import format_report

    names = [n for n in args.agents.split(",") if n]
    report = evaluate_clone(names, args.deals, args.seed, args.players, args.jobs)
    print(format_report(report))
    _write_json(args.json, report)


COMMANDS = {
    "collect": _run_collect,
    "clone": _run_clone,
    "plot": _run_plot,
    "bench": _run_bench,
    "evaluate": _run_evaluate,
}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.train.imitation COMMAND``: a bad option is one line (exit status 2)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        COMMANDS[args.command](args)
    except (ValueError, FloatingPointError) as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
