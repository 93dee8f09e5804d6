"""``train.py --game fifteen|knock``: a tiny run with a warm start, atomic checkpoints, ``--resume``
continuing the counter, models that record their game and play through ``ppo:PATH``."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import pytest
from test_train import run_train

from agents import make_agent
from agents.games import game_spec
from agents.train.sb3 import parse_args


@pytest.mark.parametrize(("game", "options"), [("fifteen", "hands=1"), ("knock", "max_hands=2")])
def test_side_game_smoke_and_resume(tmp_path: Path, game: str, options: str) -> None:
    common = [
        "--game", game, "--game-options", options, "--runs-dir", str(tmp_path),
        "--run-name", game, "--players", "3", "--opponents", "greedy,self",
        "--num-envs", "2", "--vec-env", "dummy", "--n-steps", "64", "--batch-size", "64",
        "--n-epochs", "1", "--net-arch", "32", "--no-progress",
        "--checkpoint-every", "128", "--snapshot-every", "128",
        "--eval-every", "256", "--eval-opponent", "random", "--eval-deals", "1",
        "--bc-teacher", "strong", "--bc-samples", "200", "--bc-epochs", "1",
    ]  # fmt: skip
    result = run_train(*common, "--total-timesteps", "256")
    assert "warm start: " in result.stdout and "[eval @ 256] vs random" in result.stdout
    ckpt = tmp_path / game / "checkpoints"
    assert json.loads((ckpt / "last.json").read_text())["num_timesteps"] == 256
    assert json.loads((ckpt / "prev.json").read_text())["num_timesteps"] == 128
    assert not list(ckpt.glob(".*tmp*"))
    with zipfile.ZipFile(ckpt / "last.zip") as archive:
        meta = json.loads(archive.read("continental.json"))
    assert meta["env"] == f"{game}_v0" and meta["game"] == game and meta["num_players"] == 3
    assert list((tmp_path / game / "snapshots").glob("*.npz"))

    result = run_train(
        "--resume", str(tmp_path / game), "--total-timesteps", "384", "--no-progress"
    )
    assert "at step 256" in result.stdout
    second = json.loads((ckpt / "last.json").read_text())
    assert second["num_timesteps"] == 384 and second["config"]["game"] == game

    spec = game_spec(game)
    agent = make_agent(f"ppo:{ckpt / 'last.zip'}", 0, game=game)
    state = spec.new_game(3, 1, spec.parse_options([options]))
    view = spec.view(state, state.actor)
    assert agent.act(view) in view.legal_actions
    agent.check_table(3)
    with pytest.raises(ValueError, match="at 3 players, not"):
        agent.check_table(4)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "poker"], "--game 'poker'"),
        (["--game", "knock", "--players", "7"], "--game knock --players 7"),
        (["--game", "fifteen", "--game-options", "colour=1"], "bad option 'colour=1'"),
        (["--game", "knock", "--opponents", "search"], "unknown agent 'search' for the knock"),
        (["--game", "knock", "--init-policy", "x.zip"], "'x.zip': no such file"),
        (
            ["--game", "knock", "--init-policy", "agents/models/ppo_fifteen_4p.zip"],
            "trained for fifteen_v1 at 4 players, not knock_v0 at 4 players (--side-features",
        ),
        (
            [
                "--game",
                "knock",
                "--side-features",
                "v2",
                "--players",
                "3",
                "--init-policy",
                "agents/models/ppo_knock_4p.zip",
            ],
            "trained for knock_v2 at 4 players, not knock_v2 at 3 players",
        ),
        (["--game", "knock", "--side-features", "v3"], "'v3': choose v0, v1 or v2"),
        (["--game", "fifteen", "--side-features", "v2"], "fifteen has no fifteen_v2"),
    ],
)
def test_side_game_flags_are_checked_first(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert message in capsys.readouterr().err


def test_side_features_name_the_observation_version(tmp_path: Path) -> None:
    from agents.train.config import Config, run_metadata

    base = ["--game", "knock", "--runs-dir", str(tmp_path)]
    for extra, want in (([], ""), (["--side-features"], "v1"), (["--side-features", "v2"], "v2"),
                        (["--side-features", "v2", "--no-side-features"], "")):  # fmt: skip
        cfg, _given, _saved = parse_args(base + extra)
        assert cfg.side_features == want
        env = run_metadata(dataclasses.asdict(cfg))["env"]
        assert env == f"knock_{want or 'v0'}"
    # a run saved before knock_v2 recorded a bool: True is v1, False v0
    assert Config(game="knock", side_features=True).side_features == "v1"
    assert Config(game="knock", side_features=False).side_features == ""


@pytest.mark.parametrize("game", ["fifteen", "knock"])
def test_suit_relabelling_moves_cards_observations_and_actions_together(game: str) -> None:
    import importlib

    import numpy as np

    from agents.train.side_single_agent import suit_permutation

    env = importlib.import_module(f"continental_env.{game}.env")
    layout = env.observation_layout(4)
    spec = game_spec(game)
    state = spec.new_game(4, 3, {})
    obs = env.encode_observation(state, state.actor, layout)
    perm = (2, 0, 3, 1)
    obs_src, action_src, action_dst = suit_permutation(game, 4, perm)
    moved = obs[obs_src]
    hand, new_hand = obs[layout["hand"]], moved[layout["hand"]]
    for card in range(52):  # (suit s, rank r) -> (suit perm[s], rank r)
        assert new_hand[perm[card // 13] * 13 + card % 13] == hand[card]
    assert new_hand[52] == hand[52]  # jokers stay
    assert np.array_equal(moved[layout["scores"]], obs[layout["scores"]])
    legal = state.legal_actions()
    mask = np.zeros(env.NUM_ACTIONS, dtype=bool)
    mask[legal] = True
    assert sorted(np.flatnonzero(mask[action_src])) == sorted(action_dst[legal])
    identity = suit_permutation(game, 4, (0, 1, 2, 3))
    assert all(np.array_equal(a, np.arange(len(a))) for a in identity)
    with pytest.raises(ValueError, match="a permutation of the suits"):
        suit_permutation(game, 4, (0, 0, 1, 2))


def test_saved_teacher_decisions_are_reused_with_suit_relabelling(tmp_path: Path) -> None:
    data = tmp_path / "bc.npz"
    common = [
        "--game", "fifteen", "--game-options", "hands=1", "--runs-dir", str(tmp_path),
        "--players", "4", "--opponents", "greedy", "--num-envs", "1", "--vec-env", "dummy",
        "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "16",
        "--no-progress", "--checkpoint-every", "64", "--snapshot-every", "1000",
        "--eval-every", "0", "--total-timesteps", "64", "--bc-teacher", "greedy",
        "--bc-samples", "300", "--bc-epochs", "2", "--bc-data", str(data), "--bc-augment-suits",
    ]  # fmt: skip
    first = run_train(*common, "--run-name", "a")
    assert "decisions of greedy in" in first.stdout and data.exists()
    second = run_train(*common, "--run-name", "b")
    assert f"read from {data}" in second.stdout

    def epochs(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.startswith("warm start epoch")]

    assert "held-out top-action accuracy" in epochs(first.stdout)[0]
    assert epochs(first.stdout) == epochs(second.stdout)  # same data, same seed: same fit


def test_a_side_run_starts_from_a_clone_with_a_kl_penalty(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    clone = Path("agents/models/ppo_knock_4p.zip").resolve()
    result = run_train(
        "--game", "knock", "--game-options", "max_hands=1", "--side-features", "v2",
        "--players", "4", "--opponents", "greedy", "--init-policy", str(clone),
        "--kl-coef", "0.5", "--kl-anneal-steps", "1000", "--net-arch", "256,256",
        "--runs-dir", str(tmp_path), "--run-name", "ft", "--num-envs", "1", "--vec-env", "dummy",
        "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--learning-rate", "1e-4",
        "--total-timesteps", "128", "--checkpoint-every", "128", "--snapshot-every", "100000",
        "--eval-every", "0", "--no-progress",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    tuned = MaskablePPO.load(tmp_path / "ft" / "checkpoints" / "last.zip", device="cpu")
    start = MaskablePPO.load(clone, device="cpu")
    # The run began at the clone's weights and took a step away from them.
    a, b = tuned.policy.state_dict(), start.policy.state_dict()
    shared = [k for k in b if k in a and a[k].shape == b[k].shape]
    assert shared and all(k in a for k in b if k.startswith("mlp_extractor.policy_net"))
    moved = max(float((a[k] - b[k]).abs().max()) for k in shared)
    assert 0 < moved < 0.1


_POOL_SCRIPT = """
import multiprocessing, signal, sys, time
from agents.train.warm_start import fork_pool

def slow_start():
    time.sleep(0.5)  # the worker is still starting when the pool is closed
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

stops = []
signal.signal(signal.SIGTERM, lambda *_: stops.append(1))  # training's handler: asks, never exits
for _ in range(3):
    if sys.argv[1] == "fork_pool":
        pool = fork_pool(1, initializer=slow_start)
    else:
        pool = multiprocessing.get_context("fork").Pool(1, initializer=slow_start)
    with pool:
        pass
assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # the handler is back
print("closed")
"""


@pytest.mark.parametrize("kind", ["fork_pool", "plain"])
def test_a_warm_start_pool_closed_at_once_does_not_hang(kind: str) -> None:
    """A pool opened and closed at once under training's SIGTERM handler (the ``--bc-data``
    path hung this way now and then); a plain fork pool is the positive control."""
    import subprocess
    import sys

    from test_train import ENV, ROOT

    cmd = [sys.executable, "-c", _POOL_SCRIPT, kind]
    if kind == "fork_pool":
        done = subprocess.run(cmd, cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "closed" in done.stdout, done.stderr
    else:
        import os
        import signal

        proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
        try:
            with pytest.raises(subprocess.TimeoutExpired):  # its worker caught SIGTERM, waits
                proc.communicate(timeout=8)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)  # the hung pool's worker too
            proc.communicate()
