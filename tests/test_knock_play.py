"""Random-play invariants of the knock engine over 2-6 players, and its JSON state.

Every live state has a legal action (ids sorted, unique, each with a text form that parses back),
cards and chips are conserved (``sum(chips) + pot == 0``, the pot empty at the end), games end
within ``max_game_length``, every ending is reached and each seat keeps its cards of a hand
whatever earlier hands did. What both side games check alike (JSON round trips, replays,
refusals) is in ``test_side_play.py``.
"""

from __future__ import annotations

import random

import pytest
from knock_helpers import act
from side_helpers import card_totals, check_legal_ids, first_hand_played_two_ways, play_checked

from continental_env.cards import NUM_TYPES
from continental_env.knock.game import NUM_ACTIONS, Game, jokers_for

ANNOUNCE_WORDS = ("knock", "rummy", "color", "continental")


def check_invariants(g: Game) -> None:
    assert sum(g.chips) + g.pot == 0
    if g.is_over:
        assert g.legal_actions() == [] and g.pot == 0 and g.winners()
        return
    legal = check_legal_ids(g, NUM_ACTIONS)
    assert sum(g.in_game) >= 2 and all(g.scores[s] <= 100 for s in g.players_in)
    if g.phase == "buy":
        assert legal == [6, 7] and g.current == g.buyers[0]
        return
    assert card_totals(g) == [2] * 52 + [jokers_for(g.num_players)]
    for s in range(g.num_players):
        want = 0 if not g.in_game[s] else 11 if g.phase == "play" and s == g.current else 10
        assert g.hand_size(s) == want


def play_random(g: Game, rng: random.Random, check_every: int = 1, eager: bool = True) -> int:
    """Random legal play to the end (``eager``: announce whenever offered); returns the actions."""
    return play_checked(
        g, rng, check_invariants, check_every, lambda t: eager and t.split()[0] in ANNOUNCE_WORDS
    )


@pytest.mark.parametrize("players", range(2, 7))
def test_random_play_invariants_and_termination(players: int) -> None:
    for seed in range(3):
        g = Game.new(num_players=players, seed=seed, max_turns_per_hand=40, max_hands=8)
        n = play_random(g, random.Random(seed), eager=seed != 0)
        assert g.is_over and n <= g.max_game_length
        ante = g.stake * players
        assert g.result["pot"] >= ante  # the antes stay in the pot until the end
        for seat in range(players):  # a seat's net chips: the ante and its hands' chips
            assert g.chips[seat] == -g.stake + sum(h["chips"][seat] for h in g.hand_history)


def test_every_ending_is_reached_by_random_play() -> None:
    ends: set[str] = set()
    hand_ends: set[str] = set()
    buys = 0
    for seed in range(30):
        cap = 2 if seed % 3 == 0 else 12
        g = Game.new(num_players=2 + seed % 5, seed=seed, max_turns_per_hand=40, max_hands=cap)
        play_random(g, random.Random(seed), check_every=7)
        ends.add(g.result["end"])
        hand_ends |= {h["end"] for h in g.hand_history}
        buys += sum(len(h["buys"]) for h in g.hand_history)
    assert {"last_player", "split", "max_hands"} <= ends
    assert {"knock", "turn_limit"} <= hand_ends and buys > 0


def test_max_game_length_bounds_a_game_of_turn_limited_hands() -> None:
    g = Game.new(num_players=3, seed=1, max_turns_per_hand=6, max_hands=5)
    n = play_random(g, random.Random(1), eager=False)
    assert n <= g.max_game_length == (2 * 6 + 3) * 5


def test_each_hand_is_dealt_from_its_own_seed_and_each_seat_keeps_its_cards() -> None:
    # Duplicate deals: a seat's cards in hand 2 do not depend on how hand 1 went.
    a, b = first_hand_played_two_ways(Game, 3, turns=30)
    assert a.hand_history[0]["shown"] != b.hand_history[0]["shown"]  # played differently
    for s in range(3):
        if a.in_game[s] and b.in_game[s]:
            assert a.hands[s] == b.hands[s]


def test_refusals_name_the_rule_an_announcement_breaks() -> None:
    # The refusals every side game words alike are in test_side_play.py; these are knock's own.
    g = Game.new(num_players=2, seed=2)
    before = g.to_dict()
    cases = [
        (g.action_from_str("take"), "the discard pile is empty"),
        (g.action_from_str("buy"), "only offered between hands"),
        (g.action_from_str("rummy"), "not all 10 cards are in lays"),
        (g.action_from_str("color"), "not all of one suit"),
        (g.action_from_str("continental"), "not one lay"),
    ]
    for action, match in cases:
        with pytest.raises(ValueError, match=match):
            g.apply(action)
        assert g.to_dict() == before
    act(g, "draw")
    held = next(c for c in range(NUM_TYPES) if g.hands[g.current][c])
    with pytest.raises(ValueError, match="not all 10 cards are in lays once"):
        g.apply(61 + held)
