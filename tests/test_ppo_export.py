"""Shipped PPO models play without torch, through their numpy export beside the ``.zip``.

The export (``python -m agents.bots.ppo_agent export-numpy``) holds the actor's weights and the
zip's SHA-256; ``ppo:PATH.zip`` reads it when it matches the zip's bytes, and its decisions are
the torch policy's on recorded observations.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.bots.ppo_agent import (
    _LOADED,
    NumpyPolicy,
    file_sha256,
    load_agent,
    numpy_export_path,
)
from agents.contract.view import PlayerView
from agents.games import game_spec
from agents.side_features import env_version, observation
from continental_env.contract.game import Game

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "agents" / "models"
SHIPPED = sorted(MODELS.glob("*.zip"))


def test_every_shipped_model_has_a_current_numpy_export_and_the_package_ships_it() -> None:
    assert SHIPPED
    for model in SHIPPED:
        export = Path(numpy_export_path(model))
        assert export.is_file(), f"{export} missing: python -m agents.bots.ppo_agent export-numpy"
        assert NumpyPolicy.load_npz(str(export)).meta["source_sha256"] == file_sha256(model)
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "models/*.npz" in data["tool"]["setuptools"]["package-data"]["agents"]


def _recorded(players: int = 4, steps: int = 300) -> list[tuple[np.ndarray, list[int]]]:
    """v1 observations and legal actions of real decisions with a choice (greedy/strong play)."""
    game = Game.new("continental", players, seed=21)
    bots = [make_agent(n, s) for s, n in enumerate(("strong", "greedy", "strong", "greedy"))]
    out = []
    for _ in range(steps):
        if game.is_over:
            break
        view = PlayerView(game, game.actor)
        if len(view.legal_actions) > 1:
            out.append((view.observation(1), list(view.legal_actions)))
        game.apply(bots[game.actor].act(view))
    return out


def test_the_export_chooses_what_the_torch_policy_chooses() -> None:
    sb3 = pytest.importorskip("sb3_contrib")
    model_path = SHIPPED[0]
    torch_model = sb3.MaskablePPO.load(model_path, device="cpu")
    agent = load_agent(str(model_path))
    assert "source_sha256" not in (agent.meta or {})  # the export's own keys stay inside it
    records = _recorded()
    assert len(records) > 100
    for obs, legal in records:
        mask = np.zeros(agent.num_actions, dtype=bool)
        mask[legal] = True
        expected, _ = torch_model.predict(obs, action_masks=mask, deterministic=True)
        assert agent.act_from_observation(obs, legal) == int(expected)


def _copy_model(tmp_path: Path) -> Path:
    model = tmp_path / "m.zip"
    shutil.copy(SHIPPED[0], model)
    shutil.copy(numpy_export_path(SHIPPED[0]), numpy_export_path(model))
    return model


def test_a_zip_loads_through_its_export_without_torch(tmp_path, monkeypatch) -> None:
    model = _copy_model(tmp_path)
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # importing it now fails
    _LOADED.clear()
    agent = load_agent(str(model))
    assert agent.obs_size == 1827 and agent.env == "continental_v1"


def test_a_stale_export_is_not_used(tmp_path, monkeypatch) -> None:
    model = _copy_model(tmp_path)
    with open(model, "ab") as f:  # the zip changed after its export was written
        f.write(b"\0")
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    _LOADED.clear()
    with pytest.raises(ValueError, match="export-numpy"):
        load_agent(str(model))
    # Positive control: the export of the same bytes is used.
    shutil.copy(SHIPPED[0], model)
    _LOADED.clear()
    assert load_agent(str(model)).num_actions == 1631


def test_a_foreign_npz_beside_the_zip_is_not_taken_for_its_export(tmp_path) -> None:
    model = _copy_model(tmp_path)
    _LOADED.clear()
    exported = load_agent(str(model))  # control: through the export, no torch
    # A training dataset saved as m.npz beside the model m.zip is not an export of it.
    np.savez(numpy_export_path(model), obs=np.zeros((3, 4), np.float32), actions=np.zeros(3))
    _LOADED.clear()
    agent = load_agent(str(model))  # read through torch instead of failing on the dataset
    assert agent.num_actions == exported.num_actions == 1631
    for (w1, b1), (w2, b2) in zip(agent.weights, exported.weights, strict=True):
        assert np.allclose(w1, w2) and np.allclose(b1, b2)
    # Neither is a file that is not an .npz archive at all, nor a bare .npy array under the name.
    Path(numpy_export_path(model)).write_text("not an archive")
    _LOADED.clear()
    assert load_agent(str(model)).num_actions == 1631
    with open(numpy_export_path(model), "wb") as fh:
        np.save(fh, np.arange(3))
    _LOADED.clear()
    assert load_agent(str(model)).num_actions == 1631


def test_evaluating_a_shipped_model_never_imports_torch() -> None:
    model = SHIPPED[0].relative_to(ROOT)
    code = (
        "import sys\n"
        "from agents.evaluate.harness import main\n"
        f"main(['--agents', 'ppo:{model},strong', '--games', '1', '--rounds', '1',"
        " '--seed', '3', '--jobs', '1'])\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "assert 'sb3_contrib' not in sys.modules\n"
        "print('no torch')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "no torch" in done.stdout


def test_export_numpy_command_writes_beside_the_zip(tmp_path) -> None:
    pytest.importorskip("sb3_contrib")
    from agents.bots.ppo_agent import main

    model = tmp_path / "x.zip"
    shutil.copy(SHIPPED[0], model)
    assert main(["export-numpy", str(model)]) == 0
    export = NumpyPolicy.load_npz(numpy_export_path(model))
    shipped = NumpyPolicy.load_npz(numpy_export_path(SHIPPED[0]))
    assert export.meta["source_sha256"] == file_sha256(model)
    for (w1, b1), (w2, b2) in zip(export.weights, shipped.weights, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


def test_a_numpy_policy_runs_blas_on_one_thread() -> None:
    pytest.importorskip("threadpoolctl")
    code = (
        "from threadpoolctl import threadpool_info\n"
        "from agents.bots.ppo_agent import load_agent\n"
        "def blas():\n"
        "    return sorted({p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'})\n"
        "print(blas())\n"
        f"load_agent('{SHIPPED[0]}')\n"
        "print(blas())\n"
    )
    env = dict(os.environ, OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="2")
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.split()
    if before == "[]":
        pytest.skip("no BLAS library that threadpoolctl knows")
    assert before == "[2]" and after == "[1]"  # the control: two threads before loading


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_the_side_game_exports_choose_what_their_torch_policies_choose(game: str) -> None:
    sb3 = pytest.importorskip("sb3_contrib")
    import importlib

    model_path = MODELS / f"ppo_{game}_4p.zip"
    torch_model = sb3.MaskablePPO.load(model_path, device="cpu")
    agent = load_agent(str(model_path))
    env = importlib.import_module(f"continental_env.{game}").env(num_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    compared = 0
    for _ in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        if len(legal) > 1:
            seen = obs["observation"]
            version = env_version((agent.meta or {}).get("env"))  # fifteen_v1, knock_v2 ...
            if version:
                raw = env.unwrapped
                seen = observation(game_spec(game).view(raw.game, raw.game.actor), game, version)
            expected, _ = torch_model.predict(
                seen, action_masks=obs["action_mask"].astype(bool), deterministic=True
            )
            assert agent.act_from_observation(seen, legal) == int(expected)
            compared += 1
        env.step(int(rng.choice(legal)))
        if compared >= 150:
            break
    assert compared >= 50


def test_batch_actions_choose_what_act_from_observation_chooses() -> None:
    """The batched call (an opponent of the batch core's learner tables) against the one-row
    path, on the shipped model and random observations and masks; a sampling policy too."""
    from agents.bots.ppo_agent import load_agent

    policy = load_agent("agents/models/ppo_continental_4p.zip")
    rng = np.random.default_rng(3)
    obs = rng.normal(size=(64, policy.obs_size)).astype(np.float32)
    mask = rng.random((64, policy.num_actions)) < 0.05
    mask[np.arange(64), rng.integers(policy.num_actions, size=64)] = True
    got = policy.batch_actions(obs, mask)
    want = [
        policy.act_from_observation(o, list(np.flatnonzero(m)))
        for o, m in zip(obs, mask, strict=True)
    ]
    assert list(got) == want
    assert len(set(want)) > 10  # the rows really differ: the comparison can fail
    policy.deterministic = False
    sampled = policy.batch_actions(obs, mask)
    assert mask[np.arange(64), sampled].all()
    with pytest.raises(ValueError, match=r"observations of shape \(2, 3\)"):
        policy.batch_actions(np.zeros((2, 3), np.float32), mask[:2])


def test_a_shipped_name_finds_a_zip_first_and_an_npz_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.resources

    from agents.bots.ppo_agent import shipped_model

    models = tmp_path / "models"
    models.mkdir()
    (models / "both_4p.zip").write_bytes(b"z")
    (models / "both_4p.npz").write_bytes(b"n")
    (models / "alone_4p.npz").write_bytes(b"n")
    monkeypatch.setattr(importlib.resources, "files", lambda _package: tmp_path)
    assert shipped_model("both_4p") == str(models / "both_4p.zip")
    assert shipped_model("both_4p.zip") == str(models / "both_4p.zip")
    assert shipped_model("both_4p.npz") == str(models / "both_4p.npz")
    assert shipped_model("alone_4p") == str(models / "alone_4p.npz")  # a network without a zip
    assert shipped_model("nothing_4p") == "nothing_4p"  # unknown names stay as given
