"""The terminal game for people, driven through scripted input."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable

import pytest

from agents.play import contract as play
from agents.play.contract import HumanGame


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


@pytest.mark.parametrize("line", ["²", "٣", "9" * 5000, "1" + "0" * 7])
def test_odd_numbers_are_refused_with_a_message(line: str) -> None:
    game, out = session(scripted([line]))
    assert game.run() == 0
    text = "\n".join(out)
    assert "No move number" in text or "Could not read that move" in text
    assert "Bye" in text and not game.game.is_over  # asked again, then left at end of input
    assert max(len(row) for row in text.splitlines()) < 200  # 5,000 digits are not echoed back


def test_ctrl_c_while_the_bots_move_says_bye_without_a_traceback() -> None:
    game, out = session(scripted([]), seat=2)

    class Interrupted:
        name = "interrupted"

        def act(self, view: object) -> int:
            raise KeyboardInterrupt

    game.bots[game.game.actor] = Interrupted()
    assert game.run() == 0
    assert "Bye (game left unfinished)." in out[-1]


def test_missing_or_misfit_models_are_one_line_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = "agents/models/ppo_continental_4p.zip"
    for opponents, expected in (
        ("ppo:no/such/model.zip", "no such model file"),
        (f"ppo:{model},greedy", "trained for 4 players"),  # a 3-seat table
    ):
        with pytest.raises(SystemExit) as exit_info:
            play.main(["--opponents", opponents])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert expected in err and len(err.strip().splitlines()) == 1


def test_the_environment_module_points_to_the_terminal_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from continental_env import play as pointer

    assert pointer.main([]) == 2
    assert "python -m agents.play" in capsys.readouterr().err
