"""Bots of your own in the evaluation harness and the leaderboard: ``package.module:Name`` on the
command line, installed entry points, objects in the Python API; the same seat views and the same
hidden-information guards as the built-in bots; one-line refusals (docs/own-bot.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents import registry
from agents.evaluate import evaluate, format_report
from agents.evaluate.leaderboard import leaderboard, markdown
from agents.games import game_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "first_legal.py"
ONE_HAND = {"contract": {"rounds": [1]}, "fifteen": {"hands": 1}, "knock": {"max_hands": 1}}
USER_MODULES = ("first_legal", "peekbot", "userbots", "installed_bots")


@pytest.fixture(autouse=True)
def _forget_user_modules() -> Iterator[None]:
    """Each test imports its own copy of the bot files it writes."""
    yield
    for name in USER_MODULES:
        sys.modules.pop(name, None)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


# ----------------------------------------------------------------------------- the documented example


def test_the_example_bot_runs_from_a_directory_outside_the_project(tmp_path: Path) -> None:
    # The documented file, copied where a user keeps it, run from there as a user runs it.
    shutil.copy(EXAMPLE, tmp_path / "first_legal.py")
    assert not str(tmp_path).startswith(str(ROOT))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "agents.evaluate", "--agents", "first_legal:FirstLegal,greedy",
         "--games", "2", "--players", "2", "--rounds", "1", "--seed", "3", "--no-progress",
         "--json", "report.json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "first_legal:FirstLegal" in run.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["candidate"] == "first_legal:FirstLegal"
    assert report["config"]["versions"]["first_legal:FirstLegal"] == "first_legal:FirstLegal"
    board = subprocess.run(
        [sys.executable, "-m", "agents.evaluate.leaderboard", "--agents",
         "first_legal:FirstLegal,first_legal:RandomLegal,greedy", "--deals", "2", "--players",
         "2", "--seed", "3", "--no-progress"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert board.returncode == 0, board.stderr
    rows = [line for line in board.stdout.splitlines() if line.startswith("| ") and "`" in line]
    assert {re.search(r"`([^`]+)`", row).group(1) for row in rows} == {  # type: ignore[union-attr]
        "first_legal:FirstLegal",
        "first_legal:RandomLegal",
        "greedy",
    }


def test_the_example_bot_through_the_python_api_and_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(EXAMPLE, tmp_path / "first_legal.py")
    monkeypatch.chdir(tmp_path)
    assert str(tmp_path) not in sys.path  # found through the current directory alone
    by_name = evaluate(["first_legal:FirstLegal", "greedy"], players=2, games=2, seed=3,
                       rounds=[1])  # fmt: skip
    assert str(tmp_path) not in sys.path  # put there for the import only
    from first_legal import FirstLegal, RandomLegal

    by_object = evaluate([FirstLegal(0), "greedy"], players=2, games=2, seed=3, rounds=[1])
    assert by_object["candidate"] == "FirstLegal"
    assert "FirstLegal " in format_report(by_object)
    for report in (by_name, by_object):
        report.pop("timing")
    # The same bot by name or as an object plays the same games.
    row = by_name["agents"]["first_legal:FirstLegal"]
    assert by_object["agents"]["FirstLegal"] == {**row, "version": "FirstLegal"}
    board = leaderboard([RandomLegal, "greedy", "random"], deals=2, players=2, seed=1, jobs=2)
    assert "RandomLegal" in board["ranking"] and "| `RandomLegal` |" in markdown(board)
    # A class gets each seat's seed: the games depend on the seed only, never on --jobs.
    again = leaderboard([RandomLegal, "greedy", "random"], deals=2, players=2, seed=1, jobs=1)
    assert again["agents"] == board["agents"]


def test_the_continental_command_finds_a_bot_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents import cli

    shutil.copy(EXAMPLE, tmp_path / "first_legal.py")
    monkeypatch.chdir(tmp_path)
    common = ["--players", "2", "--seed", "2", "--no-progress"]
    args = ["evaluate", "--agents", "first_legal:FirstLegal,greedy", "--games", "1", *common]
    assert cli.main([*args, "--mixed", "first_legal:RandomLegal,random"]) == 0
    out = capsys.readouterr().out
    assert "paired first_legal:FirstLegal - greedy" in out
    assert "mixed paired first_legal:FirstLegal - first_legal:RandomLegal" in out
    args = ["leaderboard", "--agents", "first_legal:FirstLegal,greedy", "--deals", "2", *common]
    assert cli.main(args) == 0
    assert "| `first_legal:FirstLegal` |" in capsys.readouterr().out


@pytest.mark.parametrize("game", sorted(ONE_HAND))
def test_a_bot_of_your_own_plays_every_game(game: str, tmp_path: Path) -> None:
    shutil.copy(EXAMPLE, tmp_path / "first_legal.py")
    sys.path.insert(0, str(tmp_path))
    try:
        from first_legal import RandomLegal

        report = evaluate([RandomLegal, "greedy"], players=3, games=2, seed=4, game=game,
                          options=ONE_HAND[game])  # fmt: skip
    finally:
        sys.path.remove(str(tmp_path))
    assert report["config"]["game"] == game and report["agents"]["RandomLegal"]["games"] == 6


def test_the_docs_page_shows_the_example_file_as_it_is() -> None:
    page = (ROOT / "docs" / "own-bot.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    assert EXAMPLE.read_text() in blocks
    assert "own-bot.md" in (ROOT / "mkdocs.yml").read_text()


# ----------------------------------------------------------------------------- the same guards

PEEKER = """
    SEEN = []


    def _reachable(root, depth=4):
        seen, frontier = {}, [root]
        for _ in range(depth):
            nxt = []
            for obj in frontier:
                if id(obj) in seen:
                    continue
                seen[id(obj)] = obj
                if isinstance(obj, dict):
                    nxt += list(obj.values())
                elif isinstance(obj, (list, tuple)):
                    nxt += list(obj)
                elif hasattr(obj, "__dict__"):
                    nxt += list(vars(obj).values())
                if hasattr(type(obj), "__slots__"):
                    nxt += [getattr(obj, s) for s in type(obj).__slots__ if hasattr(obj, s)]
            frontier = nxt
        return list(seen.values())


    class Peeker:
        '''Looks for the other hands and the stock behind its view, and plays by what it finds.'''

        def __init__(self, seed):
            self.seed = seed

        def act(self, view):
            state = getattr(view, "_state", None)
            found = {"view": type(view), "seat": view.seat, "own": sum(view.hand)}
            found["types"] = {type(o).__name__ for o in _reachable(view)}
            if state is not None:  # the contract view keeps a (redacted) position
                others = [s for s in range(view.num_players) if s != view.seat]
                found["others"] = [list(state.hands[s]) for s in others]
                found["known"] = [list(view.known[s]) for s in others]
                found["stock"] = list(state.stock)
            SEEN.append(found)
            peeked = sum(sum(h) for h in found.get("others", []))
            return view.legal_actions[peeked % len(view.legal_actions)]


    class DrawsFromTheGenerator(Peeker):
        def act(self, view):
            view._state.rng.random()  # the game's own generator would tell the next deal
            return view.legal_actions[0]


    class ReadsTheLiveGame(Peeker):
        reads_hidden_state = True

        def attach(self, game):
            self.game = game
"""


@pytest.mark.parametrize("game", sorted(ONE_HAND))
def test_a_peeking_bot_gets_only_its_seats_view(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, "peekbot.py", PEEKER)
    monkeypatch.chdir(tmp_path)
    evaluate(["peekbot:Peeker", "greedy"], players=3, games=2, seed=6, game=game,
             options=ONE_HAND[game])  # fmt: skip
    seen = sys.modules["peekbot"].SEEN
    spec = game_spec(game)
    builtin_view = type(spec.view(spec.new_game(3, 0, dict(ONE_HAND[game])), 0))
    assert len(seen) > 20
    engine = type(spec.new_game(3, 0, dict(ONE_HAND[game]))).__name__
    for found in seen:
        assert found["view"] is builtin_view  # the view the built-in bots get
        assert engine not in found["types"] and "Random" not in found["types"]
        assert found["own"] > 0  # positive control: it does see its own hand
        for hand, known in zip(found.get("others", []), found.get("known", []), strict=True):
            assert all(h <= k for h, k in zip(hand, known, strict=True))  # public cards only
        assert len(set(found.get("stock", []))) <= 1  # the stock's order is not there


def test_a_bot_that_reads_hidden_state_is_stopped_as_built_in_bots_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, "peekbot.py", PEEKER)
    monkeypatch.chdir(tmp_path)
    # The redacted position's generator draws nothing, for any bot.
    with pytest.raises(RuntimeError, match="generator is hidden"):
        evaluate(["peekbot:DrawsFromTheGenerator", "greedy"], players=2, games=1, rounds=[1])
    # Declaring itself an oracle gets a bot of its own refused, before any game, even where
    # the registry's oracles are allowed: it is never shown the live game.
    for allow in (False, True):
        with pytest.raises(ValueError, match="declares reads_hidden_state"):
            evaluate(["peekbot:ReadsTheLiveGame", "greedy"], players=2, games=1, rounds=[1],
                     allow_oracle=allow)  # fmt: skip
    peek = sys.modules["peekbot"]
    with pytest.raises(ValueError, match="declares reads_hidden_state"):
        evaluate([peek.ReadsTheLiveGame(0), "greedy"], players=2, games=1, rounds=[1])
    with pytest.raises(ValueError, match="declares reads_hidden_state"):
        leaderboard(["peekbot:ReadsTheLiveGame", "greedy"], deals=2, players=2)


# ----------------------------------------------------------------------------- installed bots


def test_installed_entry_points_become_agent_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(EXAMPLE, site / "installed_bots.py")
    info = site / "installed_bots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: installed-bots\nVersion: 1.0\n")
    _write(info, "entry_points.txt", f"""
        [{registry.ENTRY_POINT_GROUP}]
        first-legal = installed_bots:FirstLegal
        random-legal = installed_bots:RandomLegal
        broken = no_such_package.bots:Bot
        oracle-legal = installed_bots:FirstLegal
        greedy = installed_bots:FirstLegal
    """)  # fmt: skip
    monkeypatch.syspath_prepend(str(site))
    assert {"first-legal", "random-legal"} <= set(registry.entry_points())
    report = evaluate(["first-legal", "random-legal"], players=2, games=2, seed=1, rounds=[1])
    assert report["candidate"] == "first-legal" and set(report["agents"]) == {
        "first-legal",
        "random-legal",
    }
    board = leaderboard(["random-legal", "greedy"], deals=2, players=2, game="knock",
                        options={"max_hands": 1})  # fmt: skip
    assert set(board["ranking"]) == {"random-legal", "greedy"}
    # The registry's names come first: an entry point cannot replace a built-in bot.
    assert type(registry.make_harness_agent("greedy", 0)).__name__ == "GreedyAgent"
    with pytest.raises(ValueError, match=r"agent 'broken': entry point broken = no_such_package"):
        evaluate(["broken", "greedy"], players=2, games=1, rounds=[1])
    with pytest.raises(ValueError, match="names containing 'oracle' mark the registry's"):
        evaluate(["oracle-legal", "greedy"], players=2, games=1, rounds=[1], allow_oracle=True)


# ----------------------------------------------------------------------------- refusals

BOTS = """
    class FirstLegal:
        def __init__(self, seed):
            self.seed = seed

        def act(self, view):
            return view.legal_actions[0]


    class KeywordSeed(FirstLegal):
        def __init__(self, *, seed):
            self.seed = seed


    def factory(seed):
        return FirstLegal(seed)


    class NoAct:
        def __init__(self, seed):
            pass


    class Boom:
        def __init__(self, seed):
            raise RuntimeError("no model file")


    class NoSeed:
        def __init__(self):
            pass

        def act(self, view):
            return view.legal_actions[0]


    class Illegal(FirstLegal):
        def act(self, view):
            return 10**6


    INSTANCE = FirstLegal(0)
    NOT_A_BOT = 42
    OracleBot = FirstLegal
"""


@pytest.mark.parametrize("name", ["userbots:KeywordSeed", "userbots:factory",
                                  "userbots:INSTANCE"])  # fmt: skip
def test_classes_factories_and_objects_by_name(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, "userbots.py", BOTS)
    monkeypatch.chdir(tmp_path)
    report = evaluate([name, "random"], players=2, games=1, rounds=[1])
    assert report["candidate"] == name and report["agents"][name]["games"] == 2


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("no_such_module:Bot", "agent 'no_such_module:Bot': no module 'no_such_module' in the "
         "current directory"),
        ("userbots:Missing", "agent 'userbots:Missing': module userbots ("),
        ("userbots:NoAct", "agent 'userbots:NoAct': userbots:NoAct gave a NoAct without an "
         "act(view) method"),
        ("userbots:NOT_A_BOT", "agent 'userbots:NOT_A_BOT': userbots:NOT_A_BOT is a int without "
         "an act(view) method"),
        ("userbots:Boom", "agent 'userbots:Boom': Boom(0) raised RuntimeError: no model file"),
        ("userbots:NoSeed", "cannot be called as Name(seed) or Name(seed=seed)"),
        ("userbots:OracleBot", "agent 'userbots:OracleBot': names containing 'oracle' mark"),
        ("nobody", "unknown agent 'nobody' for the contract game; choose one of"),
    ],
)  # fmt: skip
def test_what_does_not_fit_is_a_one_line_refusal_before_any_game(
    name: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agents.evaluate import harness
    from agents.evaluate import leaderboard as board_module

    _write(tmp_path, "userbots.py", BOTS)
    monkeypatch.chdir(tmp_path)

    def no_games(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a game was played before the problem was reported")

    monkeypatch.setattr(harness, "_run_deals", no_games)
    monkeypatch.setattr(board_module, "_run", no_games)
    for main in (harness.main, board_module.main):
        extra = ["--games", "1"] if main is harness.main else ["--deals", "2"]
        with pytest.raises(SystemExit) as exit_info:
            main(["--agents", f"{name},greedy", "--players", "2", "--no-progress", *extra])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err, err
    for allow in (False, True):  # the oracle refusal does not depend on --allow-oracle
        with pytest.raises(ValueError, match=re.escape(message)):
            evaluate([name, "greedy"], players=2, games=1, rounds=[1], allow_oracle=allow)


def test_objects_in_the_python_api_are_checked_and_labelled(tmp_path: Path) -> None:
    _write(tmp_path, "userbots.py", BOTS)
    sys.path.insert(0, str(tmp_path))
    try:
        import userbots
    finally:
        sys.path.remove(str(tmp_path))
    named = userbots.FirstLegal(0)
    named.name = "mine"
    report = evaluate([named, userbots.factory, "greedy"], players=3, games=1, rounds=[1])
    assert report["config"]["lineup"] == ["mine", "factory", "greedy"]
    with pytest.raises(ValueError, match="'NoAct': the agent object 'NoAct' gave a NoAct without"):
        evaluate([userbots.NoAct, "greedy"], players=2, games=1, rounds=[1])
    with pytest.raises(ValueError, match=r"'Boom': Boom\(0\) raised RuntimeError"):
        evaluate([userbots.Boom, "greedy"], players=2, games=1, rounds=[1])
    with pytest.raises(ValueError, match=r"without an act\(view\) method"):
        evaluate([object(), "greedy"], players=2, games=1, rounds=[1])
    clash = userbots.FirstLegal(1)
    clash.name = "greedy"
    with pytest.raises(ValueError, match="labelled 'greedy', which names another agent"):
        evaluate([clash, "random"], players=2, games=1, rounds=[1])
    twin = userbots.FirstLegal(2)
    twin.name = "mine"
    with pytest.raises(ValueError, match="two different agent objects are labelled 'mine'"):
        evaluate([named, twin], players=2, games=1, rounds=[1])
    spy = userbots.FirstLegal(3)
    spy.name = "my-oracle"
    with pytest.raises(ValueError, match="names containing 'oracle' mark"):
        leaderboard([spy, "greedy"], deals=2, players=2, allow_oracle=True)


def test_an_illegal_action_names_the_agent_and_its_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, "userbots.py", BOTS)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"agent 'userbots:Illegal' in seat 0 played 1000000: "):
        evaluate(["userbots:Illegal", "greedy"], players=2, games=1, rounds=[1])
