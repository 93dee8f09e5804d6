"""Golden transcripts: seeded games written out action by action, diffed against tests/golden/.

Each transcript is one game: ``Game.new(preset, players, seed)`` with every action chosen by
``random.Random(seed)`` from ``legal_actions()`` (the second one prefers to lay down and close,
so that lay-downs, lay-offs and 003's joker shifts appear). Per action: the move number, the
seat and the action text; at each deal the dealer and the hands; at each round end the points,
the closer and the totals.

A diff means the engine now plays differently. If that change is intended (a rule fix, a new
lay-down choice), regenerate the files on purpose and review the diff in version control:

    REGEN_GOLDEN=1 python -m pytest tests/test_golden.py
    PYTHONPATH=. python tests/test_golden.py                 # the same, as a script
"""

from __future__ import annotations

import difflib
import os
import random
from pathlib import Path

import pytest

from continental_env.cards import format_cards
from continental_env.game import Game

GOLDEN = Path(__file__).resolve().parent / "golden"

# name: (preset, players, seed, eager)
GAMES = {
    "continental_3p_seed2024": ("continental", 3, 2024, False),
    "continental_us_2p_seed7_eager": ("continental_us", 2, 7, True),
}


def choose(game: Game, rng: random.Random, eager: bool) -> int:
    legal = game.legal_actions()
    if eager:
        for word in ("close", "laydown"):
            if game.action_from_str(word) in legal:
                return game.action_from_str(word)
        plays = [a for a in legal if game.action_to_str(a).split()[0] != "discard"]
        plays = [a for a in plays if game.action_to_str(a) not in ("draw", "take", "pass")]
        if plays and rng.random() < 0.8:
            return rng.choice(plays)
    return rng.choice(legal)


def transcript(preset: str, players: int, seed: int, eager: bool) -> str:
    game = Game.new(preset, players, seed=seed)
    rng = random.Random(seed)
    lines = [f"# {preset}, {players} players, seed {seed}, {'eager' if eager else 'uniform'}"]

    def deal() -> None:
        lines.append(
            f"round {game.round} dealer {game.dealer} up-card {format_cards(game.discard)}"
        )
        for seat in range(players):
            lines.append(f"  hand {seat}: {format_cards(game.hand_cards(seat))}")

    deal()
    while not game.is_over:
        seat = game.actor
        action = choose(game, rng, eager)
        text = game.action_to_str(action)
        rounds = len(game.round_history)
        game.apply(action)
        lines.append(f"{game.moves:5d} seat {seat} {text}")
        if len(game.round_history) > rounds:
            last = game.round_history[-1]
            lines.append(
                f"round {last['round']} ends after {last['turns']} turns: closer {last['closer']}"
                f" points {last['points']} totals {game.scores}"
            )
            if not game.is_over:
                deal()
    lines.append(f"game over: winners {game.winners()}")
    return "\n".join(lines) + "\n"


def regenerate() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, args in GAMES.items():
        (GOLDEN / f"{name}.txt").write_text(transcript(*args))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_transcript_is_unchanged(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    got = transcript(*GAMES[name])
    if os.environ.get("REGEN_GOLDEN"):
        path.write_text(got)
    want = path.read_text()
    if got != want:
        diff = difflib.unified_diff(
            want.splitlines(), got.splitlines(), "golden", "now", n=2, lineterm=""
        )
        pytest.fail(
            f"{path.name} differs (REGEN_GOLDEN=1 to accept on purpose):\n"
            + "\n".join(list(diff)[:60])
        )


def test_golden_transcript_game_closes_rounds_and_ends() -> None:
    text = (GOLDEN / "continental_us_2p_seed7_eager.txt").read_text()
    assert " laydown" in text and " close" in text and "game over" in text


if __name__ == "__main__":
    regenerate()
    print(f"wrote {', '.join(sorted(GAMES))} to {GOLDEN}")
