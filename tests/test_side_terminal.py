"""The two side games' terminal tables (``fifteen``, ``knock``), driven by scripted input lines:
the same checks for both, with each game's words."""

from __future__ import annotations

import importlib
import io
import itertools
from typing import Any

import pytest

GAMES = ["fifteen", "knock"]
HUMAN = {"fifteen": "FifteenHumanGame", "knock": "KnockHumanGame"}
# A whole game by menu numbers (item 0 is always legal: draw, the lowest discard, or buy): its
# options, what the text must hold, and one of which it must hold.
WHOLE_GAME: dict[str, tuple[dict[str, int], list[str], list[str]]] = {
    "fifteen": (
        {"hands": 1},
        ["Game over. Final chips (highest wins):", "Winner:"],
        ["goes out with", "no winner"],
    ),
    "knock": (
        {"max_hands": 3},
        [
            "Game over. Final net chips (highest wins):",
            "announces knock",
            "Chips this hand",
            "Pot won by:",
        ],
        [],
    ),
}
# Each game's bad moves after the shared ones, and what its help text and refusals say.
BAD_MOVES: dict[str, tuple[list[str], list[str]]] = {
    "fifteen": ([], ["out C             discard card C and go out"]),
    # The knock refused with the hand's deadwood; the help names the buy-back.
    "knock": (["knock"], ["over 5", "buy | pass"]),
}
TITLES = {
    "fifteen": "Fifteen-card Continental, 2 players",
    "knock": "Knock Continental, 2 players, stake 50",
}
# Options of ``continental play`` refused for each game, and the message.
BAD_PLAY = {
    "fifteen": [
        (["--game", "poker"], "unknown game 'poker'"),
        (["--game", "fifteen", "--opponents", "search"], "unknown agent 'search'"),
        (["--game", "fifteen", "--preset", "continental_us"], "unrecognized arguments"),
    ],
    "knock": [(["--game", "knock", "--opponents", "search"], "unknown agent 'search'")],
}


def play_module(game: str) -> Any:
    return importlib.import_module(f"agents.play.{game}")


def run(game: str, lines: Any, **kwargs: Any) -> tuple[int, str]:
    out: list[str] = []
    feed = iter(lines)

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    human = getattr(play_module(game), HUMAN[game])
    session = human(input_fn=read, output=out.append, **kwargs)
    return session.run(), "\n".join(out)


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_by_menu_numbers_ends_with_the_final_table(game: str) -> None:
    options, all_of, any_of = WHOLE_GAME[game]
    code, text = run(
        game, itertools.repeat("0"), opponents=["greedy", "greedy"], seed=4, options=options
    )
    assert code == 0
    for words in all_of:
        assert words in text
    assert not any_of or any(words in text for words in any_of)


@pytest.mark.parametrize("game", GAMES)
def test_bad_moves_get_a_message_and_the_game_is_unchanged(game: str) -> None:
    own_moves, own_words = BAD_MOVES[game]
    code, text = run(
        game,
        ["zz", "99", "discard ZZ", "discard 2C", *own_moves, "help", "quit"],
        opponents=["random"],
        seed=1,
    )
    assert code == 0
    assert "Could not read that move: unknown action 'zz'" in text
    assert "No move number 99" in text
    assert "unknown card 'ZZ'" in text
    assert "Not legal now: illegal action" in text and "draw or take a card first" in text
    for words in own_words:
        assert words in text
    assert text.rstrip().endswith("Bye (game left unfinished).")


@pytest.mark.parametrize("game", GAMES)
def test_end_of_input_leaves_cleanly_and_bad_tables_are_refused(game: str) -> None:
    module = play_module(game)
    human = getattr(module, HUMAN[game])
    code, text = run(game, [], opponents=["greedy"], seed=2)
    assert code == 0 and "Bye" in text
    with pytest.raises(ValueError, match="at least one opponent"):
        human([], seed=1)
    with pytest.raises(ValueError, match="--seat 5"):
        human(["greedy"], seat=5)
    with pytest.raises(SystemExit):
        module.main(["--opponents", "search"])
    if game == "knock":  # a seventh player, and a stake bonuses cannot divide
        with pytest.raises(ValueError, match=r"seats 2\.\.6"):
            human(["greedy"] * 6, seed=1)
        with pytest.raises(SystemExit):
            module.main(["--stake", "7"])


@pytest.mark.parametrize("game", GAMES)
def test_continental_play_game_hands_over_to_the_games_terminal_table(
    game: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agents import cli
    from agents.play import contract as contract_play

    monkeypatch.setattr("sys.stdin", io.StringIO("0\nquit\n"))
    code = cli.main(["play", "--game", game, "--opponents", "greedy", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0 and TITLES[game] in out and "Bye" in out
    for argv, message in BAD_PLAY[game]:
        with pytest.raises(SystemExit) as exc:
            contract_play.main(argv)
        assert exc.value.code == 2 and message in capsys.readouterr().err
