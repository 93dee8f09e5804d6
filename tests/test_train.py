"""Smoke test of ``train.py``: a tiny run, then ``--resume`` continuing its step counter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]


def run_train(*args: str) -> subprocess.CompletedProcess:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    result = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_train_smoke_and_resume(tmp_path: Path) -> None:
    common = [
        "--runs-dir", str(tmp_path), "--run-name", "smoke",
        "--players", "3", "--rounds", "1", "--opponents", "random,self",
        "--num-envs", "2", "--vec-env", "dummy", "--n-steps", "64", "--batch-size", "64",
        "--n-epochs", "1", "--net-arch", "32", "--no-progress",
        "--checkpoint-every", "128", "--snapshot-every", "128",
        "--eval-every", "256", "--eval-opponent", "random", "--eval-deals", "1",
    ]  # fmt: skip
    run_train(*common, "--total-timesteps", "256")
    run_dir = tmp_path / "smoke"
    ckpt = run_dir / "checkpoints"
    first = json.loads((ckpt / "last.json").read_text())
    assert first["num_timesteps"] == 256
    assert (ckpt / "last.zip").exists() and (ckpt / "best.zip").exists()
    assert list((run_dir / "snapshots").glob("*.npz"))
    assert list(run_dir.glob("tb_*/events.out.tfevents.*"))
    assert not list(ckpt.glob(".*tmp*"))  # temporary files were moved into place

    result = run_train("--resume", str(run_dir), "--total-timesteps", "512", "--no-progress")
    assert "resuming" in result.stdout and "at step 256" in result.stdout
    second = json.loads((ckpt / "last.json").read_text())
    assert second["num_timesteps"] == 512  # continued, not restarted
    assert second["config"]["opponents"] == "random,self"  # the saved config, not the defaults
    assert second["config"]["total_timesteps"] == 512  # flags given on resume win

    from agents import make_agent
    from agents.base import PlayerView
    from continental_env.game import Game

    agent = make_agent(f"ppo:{ckpt / 'last.zip'}", seed=0)
    game = Game.new("continental", 3, seed=1)
    view = PlayerView(game, game.actor)
    assert agent.act(view) in view.legal_actions


def test_numpy_policy_matches_the_torch_policy() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from agents.ppo_agent import NumpyPolicy
    from continental_env.single_agent import SingleAgentContinental

    env = SingleAgentContinental(num_players=3, rounds=[1], opponents=["random"], seed=0)
    for activation in (torch.nn.ReLU, torch.nn.Tanh):
        model = MaskablePPO(
            "MlpPolicy",
            env,
            policy_kwargs={"net_arch": [32, 32], "activation_fn": activation},
            device="cpu",
            seed=0,
        )
        agent = NumpyPolicy.from_sb3(model.policy)
        obs, _ = env.reset(seed=1)
        for _ in range(20):
            mask = env.action_masks()
            expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
            legal = np.flatnonzero(mask).tolist()
            assert agent.act_from_observation(obs, legal) == int(expected)
            obs, _, terminated, _, _ = env.step(int(expected))
            if terminated:
                obs, _ = env.reset()
