"""``train.py --game fifteen|knock``: a tiny run with a warm start, atomic checkpoints, ``--resume``
continuing the counter, models that record their game and play through ``ppo:PATH``."""

from __future__ import annotations

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
        (["--game", "knock", "--init-policy", "x.zip"], "the contract game's only"),
    ],
)
def test_side_game_flags_are_checked_first(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        parse_args(argv)
    assert message in capsys.readouterr().err
