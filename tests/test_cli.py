"""The ``continental`` command line: dispatch, the registry, shared one-line errors."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT

from agents import cli


def test_the_console_script_is_declared_in_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["continental"] == "agents.cli:main"


def test_help_lists_every_registered_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("play", "evaluate", "train", "bench"):
        assert f"  {name}" in out and cli.COMMANDS[name].help in out
    assert cli.main([]) == 2  # no command: the same list, as a usage error


def test_an_unknown_command_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["plya"]) == 2
    err = capsys.readouterr().err.strip()
    assert (
        err
        == "continental: unknown command 'plya'; choose one of play, evaluate, leaderboard, train, train-rllib, bench, speed, web"
    )


def test_a_registered_command_gets_the_remaining_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "extra_command.py"
    module.write_text("SEEN = []\ndef main(argv):\n    SEEN.append(list(argv))\n    return 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "COMMANDS", dict(cli.COMMANDS))
    cli.register("extra", "extra_command", "a command added by one entry")
    with pytest.raises(ValueError, match="already registered"):
        cli.register("extra", "elsewhere", "twice")
    assert cli.main(["extra", "--seed", "3", "x"]) == 7
    assert sys.modules["extra_command"].SEEN == [["--seed", "3", "x"]]


def test_a_missing_extra_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = tmp_path / "needs_scipy_command.py"
    module.write_text(
        "def main(argv):\n    raise ModuleNotFoundError(\"No module named 'scipy'\", name='scipy')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "COMMANDS", dict(cli.COMMANDS))
    cli.register("needs-scipy", "needs_scipy_command", "a command whose extra is missing")
    assert cli.main(["needs-scipy"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "'scipy'" in err and "[agents]" in err and "pip install" in err
    # a module that no extra provides is a real bug: it is not dressed up as a missing extra
    module.write_text(
        "def main(argv):\n    raise ModuleNotFoundError(\"No module named 'nope'\", name='nope')\n"
    )
    sys.modules.pop("needs_scipy_command", None)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["needs-scipy"])


def test_help_shows_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["evaluate", "--help"])
    assert "(default:" in capsys.readouterr().out


def test_evaluate_through_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "r.json"
    args = ["evaluate", "--agents", "greedy,random", "--players", "2", "--games", "1",
            "--rounds", "1", "--no-progress", "--json", str(out)]  # fmt: skip
    assert cli.main(args) == 0
    assert json.loads(out.read_text())["config"]["lineup"] == ["greedy", "random"]


def test_play_through_the_command_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "--opponents", "greedy", "--seed", "2", "--rounds", "1"]) == 0
    assert "Bye" in capsys.readouterr().out


def test_bench_through_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--games", "1", "--players", "2", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "engine" in out and "aec" in out
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--players", "9"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["play", "--rounds", "x"], "--rounds"),
        (["play", "--opponents", ","], "--opponents"),
        (["evaluate", "--agents", "greedy", "--rounds", "first"], "--rounds"),
        (["evaluate", "--agents", "nobody"], "nobody"),
    ],
)
def test_bad_options_are_one_line_errors_naming_the_flag(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err, err


def test_train_through_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", "--gamma", "2"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("continental train: error: --gamma 2.0")


def test_bench_covers_the_fifteen_card_game(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "--game", "fifteen", "--games", "1", "--players", "2", "12", "--repeats", "1"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "game fifteen" in out and out.count(" engine ") == 2 and out.count(" aec ") == 2
    assert "400" in out  # one hand of random play runs to the 200-turn limit: 400 actions
    for bad in (["--players", "13"], ["--preset", "continental_us"], ["--game", "poker"]):
        with pytest.raises(SystemExit) as exit_info:
            cli.main(["bench", "--game", "fifteen", *bad])
        assert exit_info.value.code == 2


def test_a_plot_path_matplotlib_cannot_write_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (
        ["evaluate", "--agents", "greedy,random", "--games", "50"],
        ["leaderboard", "--agents", "greedy,random", "--deals", "50"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            cli.main([*command, "--no-progress", "--plot", str(tmp_path / "x.txt")])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip()
        assert "--plot" in err and "'txt'" in err and ".png" in err and err.count("\n") == 0


def test_leaderboard_refuses_a_table_size_the_preset_cannot_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for players in ("0", "1", "9"):
        with pytest.raises(SystemExit) as exit_info:
            cli.main(["leaderboard", "--agents", "greedy,random", "--players", players])
        assert exit_info.value.code == 2
        assert f"--players {players}" in capsys.readouterr().err


def test_reports_are_written_whole(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    args = ["evaluate", "--agents", "greedy,random", "--players", "2", "--games", "1",
            "--rounds", "1", "--no-progress", "--json", str(out)]  # fmt: skip
    assert cli.main(args) == 0
    assert json.loads(out.read_text())["config"]["deals"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def test_an_interrupted_json_write_leaves_the_old_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "r.json"
    out.write_text('{"old": true}\n')

    def broken_dump(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(json, "dump", broken_dump)
    with pytest.raises(KeyboardInterrupt):
        cli.write_json_atomic(str(out), {"new": True})
    assert json.loads(out.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_a_json_report_gets_the_mode_of_a_plain_open(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        cli.write_json_atomic(str(tmp_path / "r.json"), {"a": 1})
        (tmp_path / "plain.json").write_text("{}")
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "r.json").stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "plain.json").stat().st_mode) == 0o644
