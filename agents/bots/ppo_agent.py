"""Trained MaskablePPO policies as agents: ``ppo:PATH`` in ``agents.make_agent`` and the CLI.

Strategy: whatever the network learned (``train.py``). At each decision the agent builds its
seat's observation vector, runs the policy network's actor (the MLP and the action head), and
plays the legal action with the highest logit (deterministic by default; ``deterministic=False``
samples from the masked softmax with the agent's own seeded generator).

The forward pass runs in numpy: one observation at a time through a small MLP is several times
faster in numpy than in torch, it needs no torch threads in evaluation workers, and frozen
snapshots of the learner (``.npz``, written by ``agents.train.sb3``) play as training opponents
inside environment workers that never import torch. torch is imported only to read an SB3 ``.zip``.

**What a model was trained for.** A policy only fits tables of the size it was trained at (the
observation and the action space grow with the players) and the observation version it was
trained on (``continental_v0`` or ``continental_v1``). Training writes the environment (its name
carries the observation version), the package version and the table into the model: a
``continental.json`` member of the ``.zip`` (SB3 ignores it) or a ``meta`` entry of the ``.npz``.
A model without it (such as the shipped ``ppo_continental_4p.zip``) is matched by its input and
output sizes. Models of the preview environment ``continental_v0+features`` (``agents.train.imitation``
before v1 existed) are ``continental_v1`` models: the vector is the same, entry for entry.

As an agent (``ppo:PATH``) a model builds the observation of its own version, so v0 and v1 models
play at any table of their size. ``check_table(agent, P)`` refuses a model at a table of another
size; ``check_env(meta, P, env)`` refuses a model loaded into an environment of another version or
size (``train.py --init-policy``); each is one line naming both, before any game. A model trained
with feature groups zeroed (an ablation, ``dropped`` in its metadata) gets them zeroed in play.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import zipfile
from typing import Any

import numpy as np

from agents.bots.view import ObservingView

ACTIVATIONS = ("tanh", "relu")
ENV_NAME = "continental_v0"  # the environment of a model that records none
ENV_ALIASES = {"continental_v0+features": "continental_v1"}  # the preview of continental_v1
ENVS = ("continental_v0", "continental_v1")
META_MEMBER = "continental.json"  # the metadata's name inside a model .zip


@functools.cache
def single_thread_blas() -> None:
    """Limit this process's BLAS to one thread (once; threadpoolctl, if installed).

    One observation at a time through the MLP is a matrix-vector product of a few hundred
    thousand multiply-adds: BLAS threads only wait on each other. On a busy 2-core machine
    OpenBLAS's default threads made each forward pass 80x dearer in CPU time (8 ms instead of
    0.1 ms). Process-wide, as ``OMP_NUM_THREADS=1`` would be; a process that plays numpy
    policies does no large linear algebra of its own.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(limits=1, user_api="blas")


class NumpyPolicy:
    """The actor of an SB3 MLP policy as numpy arrays; an agent of the ``act(view)`` protocol."""

    def __init__(
        self,
        weights: list[tuple[np.ndarray, np.ndarray]],
        activation: str = "tanh",
        name: str = "ppo",
        deterministic: bool = True,
        seed: int | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation={activation!r}: choose one of {ACTIVATIONS}")
        single_thread_blas()
        # Stored transposed (in x out) and contiguous, for obs @ W.
        self.weights = [
            (np.ascontiguousarray(w.T, dtype=np.float32), b.astype(np.float32)) for w, b in weights
        ]
        self.activation = activation
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.meta = meta  # what the model was trained for (``model_metadata``), if recorded
        self.obs_size = int(self.weights[0][0].shape[0])
        self.num_actions = int(self.weights[-1][0].shape[1])
        self.env = env_of(meta, self.obs_size, self.num_actions)
        self.version = ENVS.index(self.env) if self.env in ENVS else 0
        players = self.trained_players or 4
        self.dropped = dropped_columns(players, (meta or {}).get("dropped") or ())

    @property
    def trained_players(self) -> int | None:
        """The table size the model was trained for: recorded, else matched by its sizes."""
        if self.meta and "num_players" in self.meta:
            return int(self.meta["num_players"])
        return players_for_sizes(self.obs_size, self.num_actions)

    # ------------------------------------------------------------------ building

    @classmethod
    def from_sb3(cls, policy: Any, **kwargs: Any) -> NumpyPolicy:
        """From an sb3-contrib ``MaskableActorCriticPolicy`` with an MLP extractor."""
        import torch

        layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
        acts = {
            type(m).__name__.lower()
            for m in policy.mlp_extractor.policy_net
            if not isinstance(m, torch.nn.Linear)
        }
        if len(acts) > 1 or not acts <= set(ACTIVATIONS):
            raise ValueError(f"unsupported activation(s) {acts}")
        weights = [
            (m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
            for m in [*layers, policy.action_net]
        ]
        return cls(weights, activation=acts.pop() if acts else "tanh", **kwargs)

    def save_npz(self, path: str) -> None:
        """Write the weights to ``path`` (.npz) atomically."""
        arrays = {}
        for i, (w, b) in enumerate(self.weights):
            arrays[f"w{i}"] = w.T
            arrays[f"b{i}"] = b
        if self.meta is not None:
            arrays["meta"] = np.array(json.dumps(self.meta))
        tmp = f"{path}.{os.getpid()}.tmp.npz"
        try:
            np.savez(tmp, activation=np.array(self.activation), **arrays)
            os.replace(tmp, path)
        except BaseException:  # a full disk: no partial file left beside the snapshots
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    @classmethod
    def load_npz(cls, path: str, **kwargs: Any) -> NumpyPolicy:
        """Read weights written by ``save_npz``."""
        with np.load(path) as data:
            n = sum(1 for k in data.files if k.startswith("w"))
            weights = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
            activation = str(data["activation"])
            meta = json.loads(str(data["meta"])) if "meta" in data.files else None
        kwargs.setdefault("meta", meta)
        return cls(weights, activation=activation, **kwargs)

    @classmethod
    def read(cls, path: str, name: str) -> NumpyPolicy:
        """``load_npz(path)``, or ValueError (one line, starting with ``name``, the flag and the
        path as the caller shows them) where the file is not a readable policy."""
        try:
            return cls.load_npz(path)
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"{name}: not a readable policy file ({exc})") from None

    # ------------------------------------------------------------------ acting

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits for one observation vector."""
        x = np.asarray(obs, dtype=np.float32)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(self.weights):
            x = x @ w + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def act_from_observation(self, obs: np.ndarray, legal: list[int]) -> int:
        """The action for an observation vector and its legal action ids."""
        if len(obs) != self.obs_size:
            raise ValueError(
                f"{self.name}: observation of size {len(obs)}, but the model takes "
                f"{self.obs_size} ({describe_table(self.trained_players)})"
            )
        if len(legal) == 1:
            return legal[0]
        if self.dropped is not None:
            obs = np.array(obs, dtype=np.float32)
            obs[self.dropped] = 0.0  # an ablation model never saw these features
        scores = self.logits(obs)[legal]
        if self.deterministic:
            return legal[int(np.argmax(scores))]
        p = np.exp(scores - scores.max())
        p /= p.sum()
        return legal[int(self.rng.choice(len(legal), p=p))]

    def batch_actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One action per row of ``obs`` (K, obs_size) among the legal ones of ``mask``
        (K, num_actions) bool: what ``act_from_observation`` picks for each row, in one forward
        pass (a batched opponent, ``continental_env.contract.batch_vec``)."""
        x = np.asarray(obs, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != self.obs_size or mask.shape != (len(x), self.num_actions):
            raise ValueError(
                f"{self.name}: observations of shape {x.shape} and masks of shape {mask.shape}, "
                f"but the model takes ({len(x)}, {self.obs_size}) and "
                f"({len(x)}, {self.num_actions})"
            )
        if self.dropped is not None:
            x = x.copy()
            x[:, self.dropped] = 0.0
        scores = np.where(mask, self.logits(x), -np.inf)
        if self.deterministic:
            return scores.argmax(axis=1)  # the first of equal scores: the lowest legal id
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        u = self.rng.random(len(x))[:, None]
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), self.num_actions - 1)

    def act(self, view: ObservingView) -> int:
        """A legal action id for ``view.seat`` (the agent protocol)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        return self.act_from_observation(view.observation(self.version), legal)


# ----------------------------------------------------------------------------- what a model fits


@functools.cache
def table_sizes(num_players: int, version: int = 0) -> tuple[int, int]:
    """(observation size, number of actions) of the environment of this observation version
    (0: ``continental_v0``, 1: ``continental_v1``) at ``num_players`` seats."""
    from continental_env.contract.actions import num_actions
    from continental_env.contract.aec import observation_layout, observation_size

    return observation_size(observation_layout(num_players, version)), num_actions(num_players)


def players_for_sizes(obs_size: int, num_actions: int) -> int | None:
    """The table size whose observation (of either version) and action space have these sizes
    (None: no table)."""
    for version in range(len(ENVS)):
        for players in range(2, 9):
            if table_sizes(players, version) == (obs_size, num_actions):
                return players
    return None


def env_of(meta: dict[str, Any] | None, obs_size: int, num_actions: int) -> str:
    """The environment a model was trained for: recorded (the preview name read as
    ``continental_v1``), else the version whose sizes it has (``continental_v0`` if none)."""
    if meta and "env" in meta:
        return ENV_ALIASES.get(meta["env"], meta["env"])
    for version, name in enumerate(ENVS):
        if any(table_sizes(p, version) == (obs_size, num_actions) for p in range(2, 9)):
            return name
    return ENV_NAME


def dropped_columns(num_players: int, groups: Any) -> np.ndarray | None:
    """Columns of the v1 observation holding the named feature groups (None for none);
    ValueError naming an unknown group."""
    if not groups:
        return None
    from continental_env.contract.aec import observation_layout
    from continental_env.contract.features import feature_layout

    names = feature_layout(num_players)
    layout = observation_layout(num_players, 1)
    columns: list[int] = []
    for name in groups:
        if name not in names:
            raise ValueError(f"feature group {name!r}: choose among {', '.join(names)}")
        columns.extend(range(layout[name].start, layout[name].stop))
    return np.array(columns, dtype=np.int64)


def describe_table(players: int | None) -> str:
    return "trained for no table size" if players is None else f"trained for {players} players"


def model_metadata(
    num_players: int, preset: str, rounds: list[int] | None = None, version: int = 0
) -> dict:
    """What a model is trained for: the environment (``continental_v{version}``), the package
    version and the table."""
    from continental_env import __version__

    obs_size, num_actions = table_sizes(num_players, version)
    return {
        "env": ENVS[version],
        "env_version": __version__,
        "num_players": num_players,
        "preset": preset,
        "rounds": rounds,
        "obs_size": obs_size,
        "num_actions": num_actions,
    }


def write_zip_metadata(path: str | os.PathLike, meta: dict[str, Any]) -> None:
    """Add the metadata to an SB3 model ``.zip`` (call it on the temporary file, before moving)."""
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(META_MEMBER, json.dumps(meta, indent=2))


def read_zip_metadata(path: str | os.PathLike) -> dict[str, Any] | None:
    """The metadata of a model ``.zip``, or None if it has none."""
    with zipfile.ZipFile(path) as archive:
        if META_MEMBER not in archive.namelist():
            return None
        return json.loads(archive.read(META_MEMBER))


def check_table(agent: Any, num_players: int) -> None:
    """ValueError if ``agent`` is a model trained for another table size or for an environment
    it cannot observe (other agents pass). A model of either observation version plays. An
    agent with its own ``check_table(num_players)`` (a side game's policy) is asked instead."""
    own_check = getattr(agent, "check_table", None)
    if callable(own_check):
        own_check(num_players)
        return
    if not isinstance(agent, NumpyPolicy):
        return
    if agent.env not in ENVS:
        raise ValueError(f"{agent.name} was trained for the environment {agent.env!r}")
    trained = agent.trained_players
    sizes = table_sizes(num_players, agent.version)
    if trained != num_players or sizes != (agent.obs_size, agent.num_actions):
        raise ValueError(
            f"{agent.name} was {describe_table(trained)} (observation {agent.obs_size}, "
            f"{agent.num_actions} actions); this table has {num_players}"
        )


def check_env(meta: dict[str, Any] | None, name: str, num_players: int, env: str) -> None:
    """ValueError (one line naming both) unless the model ``name`` with metadata ``meta`` was
    trained for the environment ``env`` (``continental_v0`` / ``_v1``) at ``num_players`` seats.
    A model without metadata passes here (its sizes are checked when it is loaded)."""
    if not meta:
        return
    trained_env = ENV_ALIASES.get(meta.get("env", ENV_NAME), meta.get("env", ENV_NAME))
    players = meta.get("num_players", num_players)
    if trained_env != env or players != num_players:
        raise ValueError(
            f"{name}: trained for {trained_env} at {players} players, "
            f"not {env} at {num_players} players"
        )


# ----------------------------------------------------------------------------- loading

_LOADED: dict[tuple[str, float], tuple[list[tuple[np.ndarray, np.ndarray]], str, Any]] = {}


def numpy_export_path(path: str | os.PathLike) -> str:
    """Where the numpy export of a model ``.zip`` lives: beside it, ``NAME.npz``."""
    root, _ext = os.path.splitext(os.fspath(path))
    return root + ".npz"


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export_numpy(src: str, dst: str | None = None) -> str:
    """Write the actor of the SB3 model ``src`` (.zip) as a numpy ``.npz`` beside it (or to
    ``dst``): its weights, activation and metadata, with the zip's SHA-256 (``source_sha256``)
    so that a stale export of a changed zip is never used. Needs torch; returns the path."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(src, device="cpu")
    meta = dict(read_zip_metadata(src) or {})
    meta["source"] = os.path.basename(src)
    meta["source_sha256"] = file_sha256(src)
    out = dst or numpy_export_path(src)
    NumpyPolicy.from_sb3(model.policy, meta=meta).save_npz(out)
    return out


def _zip_through_export(path: str) -> NumpyPolicy | None:
    """The numpy export beside the model ``path`` (.zip) if it was written from these exact
    bytes, else None (no export, an export of another version of the file, or another file that
    happens to share the name, e.g. a dataset ``NAME.npz`` beside a model ``NAME.zip``)."""
    export = numpy_export_path(path)
    if not os.path.isfile(export):
        return None
    try:
        data = np.load(export)  # an .npz archive (NpzFile), an .npy array, or an error
    except (OSError, ValueError):  # not a numpy file at all
        return None
    if not isinstance(data, np.lib.npyio.NpzFile):
        return None
    with data:
        if not {"activation", "meta", "w0"} <= set(data.files):
            return None
    policy = NumpyPolicy.load_npz(export)
    if (policy.meta or {}).get("source_sha256") != file_sha256(path):
        return None
    meta = {k: v for k, v in policy.meta.items() if k not in ("source", "source_sha256")}
    policy.meta = meta or None
    return policy


def _zip_through_torch(path: str) -> NumpyPolicy:
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise ValueError(
            f"ppo:{path}: no numpy export of this model beside it (or one of another version), "
            "and torch is not installed to read the zip: run "
            f"'python -m agents.bots.ppo_agent export-numpy {path}' where torch is, or install "
            "continental-rl[train]"
        ) from None
    model = MaskablePPO.load(path, device="cpu")
    return NumpyPolicy.from_sb3(model.policy, meta=read_zip_metadata(path))


def shipped_model(path: str) -> str:
    """``path`` when it is a file; else, when it names a model shipped in the package
    (``ppo_continental_4p``, ``ppo_fifteen_4p``, ``ppo_knock_4p``, with or without ``.zip``; a
    network trained outside SB3, such as ``selfplay_continental_4p``, ships as ``.npz`` alone),
    that model's file in the installed ``agents/models/``, so ``ppo:ppo_continental_4p`` plays
    from an installed wheel as well as from a checkout; else ``path`` unchanged."""
    if os.path.isfile(path) or os.sep in path or "/" in path:
        return path
    from importlib.resources import files

    stem = path.removesuffix(".zip").removesuffix(".npz")
    for suffix in (".npz", ".zip") if path.endswith(".npz") else (".zip", ".npz"):
        candidate = files("agents") / "models" / f"{stem}{suffix}"
        if candidate.is_file():
            return str(candidate)
    return path


def load_agent(path: str, seed: int | None = None, deterministic: bool = True) -> NumpyPolicy:
    """A trained agent from an SB3 MaskablePPO ``.zip`` or a ``.npz`` snapshot (``ppo:PATH``);
    ``PATH`` may also name a shipped model (``ppo:ppo_continental_4p``, ``shipped_model``).

    A ``.zip`` is read through its numpy export (``NAME.npz`` beside it, written by
    ``python -m agents.bots.ppo_agent export-numpy NAME.zip``) when that export was written from the
    same bytes, so playing a shipped model never imports torch; otherwise through SB3 (torch).
    The weights are read once per file (and modification time) and shared: the evaluation
    harness builds a fresh agent for every game. A missing or unreadable file is a ValueError.
    """
    given, path = path, shipped_model(path)
    if not os.path.isfile(path):
        raise ValueError(f"ppo:{path}: no such model file (nor a shipped model's name)")
    key = (os.path.abspath(path), os.path.getmtime(path))
    if key not in _LOADED:
        try:
            if str(path).endswith(".npz"):
                policy = NumpyPolicy.load_npz(path)
            else:
                policy = _zip_through_export(path) or _zip_through_torch(path)
        except ValueError as exc:
            if str(exc).startswith(f"ppo:{path}:"):
                raise
            raise ValueError(f"ppo:{path}: cannot read the model ({exc})") from exc
        except Exception as exc:  # a truncated zip, a foreign file: one line, not a traceback
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ValueError(f"ppo:{path}: cannot read the model ({first})") from exc
        _LOADED[key] = ([(w.T, b) for w, b in policy.weights], policy.activation, policy.meta)
    weights, activation, meta = _LOADED[key]
    return NumpyPolicy(
        weights,
        activation=activation,
        name=f"ppo:{given}",
        deterministic=deterministic,
        seed=seed,
        meta=meta,
    )


def export_model(src: str, dst: str) -> None:
    """Copy a training checkpoint without its optimizer state (a smaller file to ship).

    The result loads with ``MaskablePPO.load`` as before; training it further starts a fresh Adam.
    """
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(src, device="cpu")
    policy = model.policy
    policy.optimizer = policy.optimizer_class(
        policy.parameters(), lr=model.lr_schedule(1), **policy.optimizer_kwargs
    )
    tmp = f"{dst}.{os.getpid()}.tmp.zip"
    model.save(tmp)
    meta = read_zip_metadata(src)
    if meta is not None:
        # A preview model is shipped under the environment it plays in (the same vector).
        meta = {**meta, "env": ENV_ALIASES.get(meta.get("env", ""), meta.get("env"))}
        write_zip_metadata(tmp, meta)
    os.replace(tmp, dst)


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.bots.ppo_agent export CHECKPOINT.zip OUT.zip`` (a checkpoint without its
    optimizer state) or ``export-numpy MODEL.zip [OUT.npz]`` (the actor for play without torch,
    by default beside the zip, where ``ppo:MODEL.zip`` finds it)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m agents.bots.ppo_agent")
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export", help="a checkpoint without its optimizer state")
    export.add_argument("checkpoint")
    export.add_argument("out")
    numpy_export = sub.add_parser("export-numpy", help="the actor as numpy arrays (.npz)")
    numpy_export.add_argument("models", nargs="+", help="model .zip files")
    numpy_export.add_argument("--out", default=None, help="output path (one model only)")
    args = parser.parse_args(argv)
    if args.command == "export":
        export_model(args.checkpoint, args.out)
        return 0
    if args.out is not None and len(args.models) != 1:
        parser.error("--out names the output of one model; give one model or leave it out")
    for model in args.models:
        if not os.path.isfile(model) or not model.endswith(".zip"):
            parser.error(f"{model}: not a model .zip file")
    for model in args.models:
        print(f"{model} -> {export_numpy(model, args.out)}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
