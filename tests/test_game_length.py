"""Every game ends within ``Game.max_game_length``, whatever the agents do (RULES.md 1.4, 1.7).

The adversary prefers the table moves that keep its hand size (a joker move, a swap), then a joker
lay-off (which can feed the next swap), and only then anything else: the moves that could make a
turn last forever if the rules allowed it (``continental_us`` once let a joker go back and forth
between two runs). A soak of random play covers every preset and table size.
"""

from __future__ import annotations

import random

import pytest

from continental_env.contract.game import Game
from continental_env.rules import PRESETS

PLAYERS = {"continental": range(2, 9), "continental_us": range(2, 7), "continental_es": range(2, 9)}


def adversarial_choice(g: Game, rng: random.Random) -> int:
    """Prefer hand-size-preserving table moves, then joker lay-offs, then anything."""
    legal = g.legal_actions()
    texts = {a: g.action_to_str(a) for a in legal}
    for prefix in ("movejoker", "swap"):
        picks = [a for a in legal if texts[a].startswith(prefix)]
        if picks:
            return rng.choice(picks)
    picks = [a for a in legal if texts[a].startswith("layoff JK")]
    if picks:
        return rng.choice(picks)
    # Claim everything to build the big hands that make long turns possible.
    for word in ("claim", "laydown"):
        if word in texts.values():
            return next(a for a in legal if texts[a] == word)
    return rng.choice(legal)


def play_out(g: Game, choose, rng: random.Random) -> int:
    """Apply chosen actions until the game ends or the bound is passed; the number applied."""
    bound = g.max_game_length
    steps = 0
    turn_actions = 0
    longest_turn = 0
    current = (g.round, g.current)
    while not g.is_over and steps <= bound:
        g.apply(choose(g, rng))
        steps += 1
        key = (g.round, g.current)
        turn_actions = turn_actions + 1 if key == current else 0
        longest_turn = max(longest_turn, turn_actions)
        current = key
    assert g.is_over, f"game still running after {steps} actions (bound {bound})"
    assert steps <= bound
    return steps


@pytest.mark.parametrize("preset", sorted(PLAYERS))
@pytest.mark.parametrize("seed", range(3))
def test_adversary_that_keeps_its_hand_size_still_ends_the_game(preset: str, seed: int) -> None:
    g = Game.new(PRESETS[preset], num_players=3, seed=seed)
    play_out(g, adversarial_choice, random.Random(seed))


def test_a_joker_moves_at_most_once_per_turn() -> None:
    """continental_us: after one joker move, no movejoker is legal until the turn passes."""
    moved_turns = 0
    for seed in range(60):
        g = Game.new(PRESETS["continental_us"], num_players=2, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            a = adversarial_choice(g, rng)
            was_move = g.action_to_str(a).startswith("movejoker")
            turn, seat = (g.round, g.turn), g.current
            g.apply(a)
            if was_move and not g.is_over and (g.round, g.turn) == turn and g.current == seat:
                moved_turns += 1
                assert not any(
                    g.action_to_str(b).startswith("movejoker") for b in g.legal_actions()
                )
        if moved_turns >= 3:
            break
    assert moved_turns >= 3, "the adversary never reached a joker move; the test shows nothing"


def test_max_game_length_counts_the_table_size_and_rounds() -> None:
    small = Game.new(PRESETS["continental"].with_rounds(1), num_players=2, seed=0)
    full = Game.new(PRESETS["continental"], num_players=2, seed=0)
    wide = Game.new(PRESETS["continental"], num_players=8, seed=0)
    assert 0 < small.max_game_length < full.max_game_length < wide.max_game_length
    # Round 1, 2 players: 200 turns x (2 + 2 * 108 + 4 + 3) actions.
    assert small.max_game_length == 200 * (2 + 2 * 108 + 4 + 3)


@pytest.mark.parametrize("preset", sorted(PLAYERS))
def test_random_play_soak_over_every_table_size_ends_within_the_bound(preset: str) -> None:
    for players in PLAYERS[preset]:
        for seed in range(2):
            g = Game.new(PRESETS[preset], num_players=players, seed=1000 * players + seed)
            rng = random.Random(seed)
            play_out(g, lambda g, r: r.choice(g.legal_actions()), rng)
