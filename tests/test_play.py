"""The terminal game for people, driven through scripted input."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable

import pytest

from continental_env import play
from continental_env.play import HumanGame


def scripted(lines: Iterable[str]) -> Callable[[str], str]:
    """An input function answering from a list, then end of input."""
    it = iter(lines)

    def answer(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return answer


def session(inputs: Callable[[str], str], **kwargs) -> tuple[HumanGame, list[str]]:
    out: list[str] = []
    kwargs.setdefault("opponents", ["greedy", "strong"])
    kwargs.setdefault("seed", 1)
    game = HumanGame(input_fn=inputs, output=out.append, **kwargs)
    return game, out


def test_bad_input_gets_a_message_and_changes_nothing() -> None:
    game, out = session(scripted(["hello", "99", "discard ZZ", "layoff 9S 2", "", "help"]))
    before = None

    original = game._handle

    def spy(line: str) -> str:
        nonlocal before
        state = game.game.to_dict()
        result = original(line)
        if result != "moved":
            assert game.game.to_dict() == state  # nothing lost, nothing changed
        before = state
        return result

    game._handle = spy  # type: ignore[method-assign]
    assert game.run() == 0
    text = "\n".join(out)
    assert "Could not read that move" in text and "unknown action 'hello'" in text
    assert "No move number 99" in text
    assert "unknown card 'ZZ'" in text
    assert "Not legal now" in text
    assert "Type a move" in text
    assert "Commands:" in text
    assert "Bye" in text
    assert before is not None


def test_table_and_menu_are_shown_from_the_human_seat() -> None:
    game, out = session(scripted([]))
    game.run()
    text = "\n".join(out)
    assert "Your moves:" in text and "0) draw" in text
    # Opponents' hands are hidden: only their sizes (and known pick-ups) are printed.
    assert "[7 cards]" in text
    assert "Since your last move:" in text and "greedy_1:" in text


def test_quit_exits_cleanly() -> None:
    game, _out = session(scripted(["quit"]))
    assert game.run() == 0
    assert not game.game.is_over


def answer_by_phase(prompt: str) -> str:
    """A scripted player: text moves for draw and claim, menu numbers when playing."""
    if prompt.startswith("[claim"):
        return "pass"
    if prompt.startswith("[draw]"):
        return "draw"
    return "0"  # laydown or close when legal (lowest ids), else the first discard


def test_a_whole_game_can_be_played_to_the_end() -> None:
    game, out = session(answer_by_phase, rounds=[1, 2], opponents=["greedy", "strong", "random"])
    assert game.run() == 0
    assert game.game.is_over
    text = "\n".join(out)
    assert "Round 1 over" in text and "Round 2 over" in text
    assert "Game over. Final scores" in text and "Winner:" in text


def test_main_reads_stdin_and_stops_at_end_of_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("draw\n0\n"))
    assert play.main(["--opponents", "strong", "--seed", "3", "--preset", "continental_es"]) == 0
    captured = capsys.readouterr().out
    assert "continental_es" in captured and "Bye" in captured


def test_bad_options_are_refused() -> None:
    with pytest.raises(SystemExit):
        play.main(["--opponents", "nobody"])
    with pytest.raises(SystemExit):
        play.main(["--opponents", "greedy", "--seat", "5"])
