"""Golden transcripts: seeded games written out action by action, diffed against tests/golden/.

Each transcript is one game: ``Game.new(preset, players, seed)`` with every action chosen by
``random.Random(seed)`` from ``legal_actions()`` (the second one prefers to lay down and close,
so that lay-downs, lay-offs and 003's joker shifts appear). Per action: the move number, the
seat and the action text, then what the seat saw before choosing it, as OpenSpiel's
playthroughs record it: the legal action ids (checked to be exactly where the environment's
``action_mask`` is 1) and a digest of the environment's observation vector. At each deal: the
dealer, the hands and seat 0's observation in full (its non-zero entries, part by part). At each
round end: the points, the closer and the totals.

A diff means the engine now plays differently or the observation changed. If that change is
intended (a rule fix, a new lay-down choice, a new observation part), regenerate the files on
purpose and review the diff in version control:

    REGEN_GOLDEN=1 python -m pytest tests/test_golden.py
    PYTHONPATH=. python tests/test_golden.py                 # the same, as a script
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import numpy as np
import pytest
from side_helpers import check_golden

import continental_env
from continental_env.cards import NUM_TYPES, format_cards
from continental_env.contract.aec import PLANE
from continental_env.contract.game import Game

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


def id_ranges(ids: list[int]) -> str:
    """``[0, 1, 6, 7, 8, 20]`` -> ``"0-1 6-8 20"``."""
    out: list[str] = []
    start = prev = None
    for i in [*ids, None]:
        if start is not None and i == prev + 1:
            prev = i
            continue
        if start is not None:
            out.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = i
    return " ".join(out)


def digest(vector: np.ndarray) -> str:
    return hashlib.sha256(vector.astype("<f4").tobytes()).hexdigest()[:12]


def readable(env: object, vector: np.ndarray) -> list[str]:
    """The observation's non-zero entries: planes as cards, scalars as numbers."""
    raw = env.unwrapped
    out = []
    for name, part in raw.observation_layout.items():
        values = vector[part]
        if name in raw.plane_slices:
            planes = values.reshape(-1, PLANE)[:, :NUM_TYPES]
            texts = [
                format_cards(c for c in range(NUM_TYPES) for _ in range(int(row[c])))
                for row in planes
            ]
            if any(texts):
                out.append(f"{name}: " + " | ".join(t or "-" for t in texts))
        elif values.any():
            out.append(f"{name}: " + " ".join(f"{v:.4g}" for v in values))
    return out


def transcript(preset: str, players: int, seed: int, eager: bool) -> str:
    game = Game.new(preset, players, seed=seed)
    env = continental_env.raw_env(num_players=players, preset=preset)
    env.reset(seed=0)
    env.game = game  # the environment serves this game's observations and masks
    rng = random.Random(seed)
    lines = [f"# {preset}, {players} players, seed {seed}, {'eager' if eager else 'uniform'}"]

    def deal() -> None:
        lines.append(
            f"round {game.round} dealer {game.dealer} up-card {format_cards(game.discard)}"
        )
        for seat in range(players):
            lines.append(f"  hand {seat}: {format_cards(game.hand_cards(seat))}")
        observation = env.observe("player_0")["observation"]
        lines.extend(f"  obs 0 {line}" for line in readable(env, observation))

    deal()
    while not game.is_over:
        seat = game.actor
        seen = env.observe(f"player_{seat}")
        legal = game.legal_actions()
        assert np.flatnonzero(seen["action_mask"]).tolist() == legal
        action = choose(game, rng, eager)
        text = game.action_to_str(action)
        rounds = len(game.round_history)
        game.apply(action)
        lines.append(
            f"{game.moves:5d} seat {seat} {text:<22} legal {id_ranges(legal)}"
            f" obs {digest(seen['observation'])}"
        )
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
    check_golden(name, transcript(*GAMES[name]))


def test_golden_transcript_game_closes_rounds_and_ends() -> None:
    text = (GOLDEN / "continental_us_2p_seed7_eager.txt").read_text()
    assert " laydown" in text and " close" in text and "game over" in text


if __name__ == "__main__":
    regenerate()
    print(f"wrote {', '.join(sorted(GAMES))} to {GOLDEN}")
