"""Golden transcripts of the fifteen-card game, diffed against ``tests/golden/fifteen_*.txt``.

Two seeded games written out action by action: one with uniform random actions (short hands, so
the turn limit ends them), one between the ``greedy`` and ``random`` bots, where hands are won
and paid. Per action: the move number, the seat and the action text; at each deal the dealer,
the up-card and the hands; at each hand's end how it ended, the arrangement, the payment and the
totals. A diff means the engine (or the greedy bot, for the second) now plays differently; if
intended, regenerate on purpose and review the diff:

    REGEN_GOLDEN=1 python -m pytest tests/test_fifteen_golden.py
"""

from __future__ import annotations

import pytest
from side_helpers import GOLDEN, check_golden, golden_moves

from continental_env.cards import format_cards
from continental_env.fifteen.game import Game

# name: (players, seed, line-up or None for uniform random actions, Game.new options)
GAMES = {
    "fifteen_3p_seed2024_uniform": (3, 2024, None, {"max_turns_per_hand": 12, "max_hands": 2}),
    "fifteen_4p_seed7_greedy": (4, 7, ["greedy", "random", "greedy", "random"], {"hands": 3}),
}


def transcript(players: int, seed: int, lineup: list[str] | None, options: dict) -> str:
    game = Game.new(num_players=players, seed=seed, **options)
    who = "uniform" if lineup is None else ",".join(lineup)
    lines = [f"# fifteen, {players} players, seed {seed}, {who}, options {options}"]

    def deal() -> None:
        lines.append(
            f"hand {game.hand_index + 1} dealer {game.dealer} up-card {format_cards(game.discard)}"
        )
        for seat in range(players):
            lines.append(f"  hand {seat}: {format_cards(game.hand_cards(seat))}")

    deal()
    for seat, action, hands in golden_moves(game, seed, lineup):
        lines.append(f"{game.moves:5d} seat {seat} {game.action_to_str(action)}")
        if len(game.hand_history) > hands:
            h = game.hand_history[-1]
            if h["winner"] is None:
                lines.append(f"hand {h['hand']} ends ({h['end']}) after {h['turns']} turns")
            else:
                lines.append(
                    f"hand {h['hand']} won by seat {h['winner']} after {h['turns']} turns: "
                    f"{' | '.join(h['melds'])}; payment {h['payment']}"
                )
            lines.append(f"  chips {h['chips']} totals {game.scores}")
            if not game.is_over:
                deal()
    lines.append(f"game over: winners {game.winners()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_fifteen_golden_transcript_is_unchanged(name: str) -> None:
    check_golden(name, transcript(*GAMES[name]))


def test_the_greedy_golden_game_is_won_out_and_paid() -> None:
    text = (GOLDEN / "fifteen_4p_seed7_greedy.txt").read_text()
    assert " out " in text and "won by seat" in text and "game over" in text
