"""Golden transcripts of the knock game, diffed against ``tests/golden/knock_*.txt``.

Two seeded games written out action by action: one with uniform random actions (short hands, so
the turn limit ends them, and buy-backs), one between the ``greedy`` and ``random`` bots, where
hands are knocked and bonuses paid. Per action: the move number, the seat and the action text;
at each deal the dealer and the hands; at each hand's end how it ended, the points, bonus and
chips, eliminations and buy-backs; at the end the pot's winners. A diff means the engine (or
the greedy bot, for the second) now plays differently; if intended, regenerate on purpose and
review the diff:

    REGEN_GOLDEN=1 python -m pytest tests/test_knock_golden.py
"""

from __future__ import annotations

import pytest
from side_helpers import GOLDEN, check_golden, golden_moves

from continental_env.cards import format_cards
from continental_env.knock.game import Game

# name: (players, seed, line-up or None for uniform random actions, Game.new options)
GAMES = {
    "knock_4p_seed2029_uniform": (4, 2029, None, {"max_turns_per_hand": 12, "max_hands": 6}),
    "knock_4p_seed14_greedy": (4, 14, ["greedy", "random", "greedy", "random"], {"max_hands": 8}),
}


def transcript(players: int, seed: int, lineup: list[str] | None, options: dict) -> str:
    game = Game.new(num_players=players, seed=seed, **options)
    who = "uniform" if lineup is None else ",".join(lineup)
    lines = [f"# knock, {players} players, seed {seed}, {who}, options {options}"]

    def deal() -> None:
        lines.append(f"hand {game.hand_index + 1} dealer {game.dealer}")
        for seat in game.players_in:
            lines.append(f"  hand {seat}: {format_cards(game.hand_cards(seat))}")

    deal()
    dealt = game.hand_index
    for seat, action, hands in golden_moves(game, seed, lineup):
        lines.append(f"{game.moves:5d} seat {seat} {game.action_to_str(action)}")
        if len(game.hand_history) > hands:
            h = game.hand_history[-1]
            lines.append(
                f"hand {h['hand']} ends ({h['end']}, announcer {h['announcer']}) after "
                f"{h['turns']} turns; lays {h['lays']}"
            )
            lines.append(
                f"  points {h['points']} bonus {h['bonus']} pot payer {h['pot_payer']} "
                f"eliminated {h['eliminated']}"
            )
        if game.hand_index != dealt and not game.is_over:
            h = game.hand_history[-1]
            for b in h["buys"]:
                lines.append(
                    f"  seat {b['seat']} buys back for {b['cost']}: {b['from']} -> {b['to']}"
                )
            lines.append(f"  chips {h['chips']} totals {game.scores} pot {game.pot}")
            dealt = game.hand_index
            deal()
    lines.append(f"game over: {game.result}; chips {game.chips}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_knock_golden_transcript_is_unchanged(name: str) -> None:
    check_golden(name, transcript(*GAMES[name]))


def test_the_golden_games_knock_pay_bonuses_and_end_with_a_winner() -> None:
    greedy = (GOLDEN / "knock_4p_seed14_greedy.txt").read_text()
    assert "seat 0 knock" in greedy and "buys back" in greedy
    assert "game over: {'end'" in greedy
    uniform = (GOLDEN / "knock_4p_seed2029_uniform.txt").read_text()
    assert "turn_limit" in uniform and "buys back" in uniform and "game over" in uniform
