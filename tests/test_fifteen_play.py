"""Random-play invariants of the fifteen-card engine over 2-12 players, and its JSON state.

Every live state has a legal action (ids sorted, unique, each with a text form that parses back),
cards are conserved, scores stay zero-sum, games end within ``max_game_length`` and each hand is
dealt from its own seed. What both side games check alike (JSON round trips, replays, refusals)
is in ``test_side_play.py``.
"""

from __future__ import annotations

import random

import pytest
from side_helpers import card_totals, check_legal_ids, first_hand_played_two_ways, play_checked

from continental_env.cards import NUM_TYPES
from continental_env.fifteen.game import NUM_ACTIONS, Game, decks_for


def check_invariants(g: Game) -> None:
    if g.is_over:
        assert g.legal_actions() == []
        return
    check_legal_ids(g, NUM_ACTIONS)
    assert card_totals(g) == [decks_for(g.num_players)] * NUM_TYPES
    sizes = [g.hand_size(s) for s in range(g.num_players)]
    want = [16 if g.phase == "play" and s == g.current else 15 for s in range(g.num_players)]
    assert sizes == want
    assert sum(g.scores) == 0


def play_random(g: Game, rng: random.Random, check_every: int = 1) -> int:
    """Random legal play to the end, preferring to go out when offered; returns the actions."""
    return play_checked(g, rng, check_invariants, check_every, lambda t: t.startswith("out"))


@pytest.mark.parametrize("players", range(2, 13))
def test_random_play_invariants_and_termination(players: int) -> None:
    g = Game.new(num_players=players, seed=players, max_turns_per_hand=40, max_hands=3)
    n = play_random(g, random.Random(players))
    assert g.is_over and n <= g.max_game_length == 2 * 40 * 3
    assert len(g.hand_history) == 3  # random play never reaches the target in 3 hands


def test_max_game_length_is_reached_exactly_by_random_play_with_the_defaults_scaled() -> None:
    # Random play never goes out, so every hand runs to the turn limit: 2 actions per turn.
    g = Game.new(num_players=4, seed=1, max_turns_per_hand=25, max_hands=4)
    assert play_random(g, random.Random(1), check_every=10) == g.max_game_length == 200


def test_each_hand_is_dealt_from_its_own_seed() -> None:
    # Duplicate deals: the second hand's cards do not depend on how the first hand went.
    a, b = first_hand_played_two_ways(Game, 2, turns=60)
    assert a.hands == b.hands and a.stock == b.stock and a.discard == b.discard
