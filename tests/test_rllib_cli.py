"""``continental train-rllib`` checks every flag before it needs ray (runs in every virtualenv)."""

from __future__ import annotations

import importlib.util

import pytest

from agents import cli

pytestmark = pytest.mark.rllib  # runs in both virtualenvs: it needs no ray


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--num-env-runners", "-1"], "--num-env-runners"),
        (["--num-envs-per-runner", "0"], "--num-envs-per-runner"),
        (["--address", "not an address"], "--address"),
        (["--opponents", "self,nobody"], "--opponents"),
        (["--players", "9"], "9"),
        (["--rounds", "first"], "--rounds"),
        (["--minibatch-size", "9000"], "--minibatch-size"),
        (["--hidden", "256,x"], "--hidden"),
        (["--resume", "/nonexistent/run"], "--resume"),
    ],
)
def test_bad_flags_are_one_line_errors_before_any_work(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train-rllib", *argv, "--runs-dir", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err, err
    assert err.startswith("continental train-rllib: error:")
    assert list(tmp_path.iterdir()) == []  # no run directory was created


def test_without_ray_the_command_names_the_install(
    capsys: pytest.CaptureFixture[str], tmp_path
) -> None:
    if importlib.util.find_spec("ray") is not None:
        pytest.skip("ray is installed here")
    assert cli.main(["train-rllib", "--runs-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "constraints-rllib.txt" in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_the_command_is_registered() -> None:
    assert cli.COMMANDS["train-rllib"].module == "agents.rllib.train"


def test_the_shipped_rllib_policy_plays_without_ray_and_only_at_its_table(tmp_path) -> None:
    """``results/rllib_selfplay_4p.npz`` (the README's run) through make_agent and the harness."""
    from pathlib import Path

    from agents import make_agent
    from agents.evaluate.harness import evaluate

    path = Path(__file__).resolve().parent.parent / "results" / "rllib_selfplay_4p.npz"
    agent = make_agent(f"rllib:{path}", seed=0)
    assert agent.meta["trainer"] == "rllib" and agent.trained_players == 4
    report = evaluate([f"rllib:{path}", "random"], players=4, games=1, seed=2, rounds=[1])
    assert report["agents"][f"rllib:{path}"]["games"] == 4
    with pytest.raises(ValueError, match="trained for 4 players"):
        evaluate([f"rllib:{path}", "random"], players=2, games=1)
    other = agent.__class__([(w.T, b) for w, b in agent.weights], activation=agent.activation)
    other.save_npz(str(tmp_path / "ppo_snapshot.npz"))  # the same arrays, no rllib metadata
    with pytest.raises(ValueError, match="not exported by continental train-rllib"):
        make_agent(f"rllib:{tmp_path / 'ppo_snapshot.npz'}")
