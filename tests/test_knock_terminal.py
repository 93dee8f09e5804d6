"""The knock terminal game, driven by scripted input lines."""

from __future__ import annotations

import itertools

import pytest

from agents.knock.play import KnockHumanGame, main


def run(lines, **kwargs) -> tuple[int, str]:
    out: list[str] = []
    feed = iter(lines)

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    session = KnockHumanGame(input_fn=read, output=out.append, **kwargs)
    return session.run(), "\n".join(out)


def test_a_whole_game_by_menu_numbers_ends_with_the_final_table() -> None:
    # Menu item 0 is always legal: draw, the lowest discard, or buy.
    code, text = run(
        itertools.repeat("0"), opponents=["greedy", "greedy"], seed=4, options={"max_hands": 3}
    )
    assert code == 0 and "Game over. Final net chips (highest wins):" in text
    assert "announces knock" in text and "Chips this hand" in text
    assert "Pot won by:" in text


def test_bad_moves_get_a_message_and_the_game_is_unchanged() -> None:
    code, text = run(
        ["zz", "99", "discard ZZ", "discard 2C", "knock", "help", "quit"],
        opponents=["random"],
        seed=1,
    )
    assert code == 0
    assert "Could not read that move: unknown action 'zz'" in text
    assert "No move number 99" in text
    assert "unknown card 'ZZ'" in text
    assert "Not legal now: illegal action" in text and "draw or take a card first" in text
    assert "over 5" in text  # the knock refused with the hand's deadwood
    assert "buy | pass" in text
    assert text.rstrip().endswith("Bye (game left unfinished).")


def test_end_of_input_leaves_cleanly_and_bad_tables_are_refused() -> None:
    code, text = run([], opponents=["greedy"], seed=2)
    assert code == 0 and "Bye" in text
    with pytest.raises(ValueError, match="at least one opponent"):
        KnockHumanGame([], seed=1)
    with pytest.raises(ValueError, match="--seat 5"):
        KnockHumanGame(["greedy"], seat=5)
    with pytest.raises(ValueError, match=r"seats 2\.\.6"):
        KnockHumanGame(["greedy"] * 6, seed=1)
    with pytest.raises(SystemExit):
        main(["--opponents", "search"])
    with pytest.raises(SystemExit):
        main(["--stake", "7"])


def test_continental_play_game_knock_hands_over_to_the_knock_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from agents import cli
    from agents.play import terminal as contract_play

    monkeypatch.setattr("sys.stdin", io.StringIO("0\nquit\n"))
    code = cli.main(["play", "--game", "knock", "--opponents", "greedy", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "Knock Continental, 2 players, stake 50" in out and "Bye" in out
    with pytest.raises(SystemExit) as exc:
        contract_play.main(["--game", "knock", "--opponents", "search"])
    assert exc.value.code == 2 and "unknown agent 'search'" in capsys.readouterr().err
