"""Random legal play over every preset and 2-6 players, checking invariants after every action.

Invariants: cards are conserved (hands + stock + discard pile + table = the round's decks),
every live state has a legal action, legal ids are sorted and unique and their texts round-trip,
hand sizes match the hands, scores are the sum of the rounds' points, and the game ends.
``clone`` and the JSON round trip are checked along the way on a sample of states.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers import all_cards, deck_multiset

from continental_env.game import Game
from continental_env.rules import PRESETS

PRESET_NAMES = ("continental", "continental_us", "continental_es")
CASES = [(preset, players) for preset in PRESET_NAMES for players in range(2, 7)]
# Safety bound: 7 rounds of at most 200 turns, each turn a handful of actions per seat.
MAX_ACTIONS = 7 * 200 * 40


def check_state(g: Game) -> None:
    """Invariants of one state."""
    if g.is_over:
        assert g.legal_actions() == [] and g.actor is None
        return
    assert all_cards(g) == deck_multiset(g.rules, g.num_players, g.round)
    assert g.hand_sizes == [sum(h) for h in g.hands]
    legal = g.legal_actions()
    assert legal, f"no legal action in a live state: {g!r}"
    assert legal == sorted(set(legal))
    assert all(0 <= a < g.num_actions for a in legal)
    for a in legal:
        assert g.action_from_str(g.action_to_str(a)) == a
    if g.phase == "claim":
        assert g.actor == g.asked and g.asked != g.current
        assert not g.laid_down[g.asked] or g.rules.claims_after_laydown
    else:
        assert g.asked is None and g.actor == g.current
    assert g.scores == [sum(r["points"][s] for r in g.round_history) for s in range(g.num_players)]


def check_round_points(g: Game) -> None:
    for result in g.round_history:
        for seat, pts in enumerate(result["points"]):
            if seat == result["closer"]:
                assert pts in (0, g.rules.one_turn_bonus)
            else:
                assert pts >= 0


def check_round_trip(g: Game, rng: random.Random) -> None:
    """JSON round trip restores the state and continues identically; clone is independent."""
    data = g.to_dict()
    text = json.dumps(data)
    back = Game.from_dict(json.loads(text))
    assert back.to_dict() == data
    assert back.legal_actions() == g.legal_actions()
    copy = g.clone()
    # Play the same few actions on the original's clone and on the restored game.
    seed = rng.getrandbits(32)
    for other in (copy, back):
        r = random.Random(seed)
        for _ in range(8):
            if other.is_over:
                break
            other.apply(r.choice(other.legal_actions()))
    assert copy.to_dict() == back.to_dict()
    assert json.dumps(g.to_dict()) == text, "playing on a clone changed the original"


def eager_choice(g: Game, rng: random.Random) -> int:
    """A random action that lays down, closes and lays off whenever it can (for coverage)."""
    legal = g.legal_actions()
    texts = {a: g.action_to_str(a) for a in legal}
    for word in ("close", "laydown"):
        for a in legal:
            if texts[a] == word:
                return a
    plays = [a for a in legal if texts[a].split()[0] in ("layoff", "swap", "movejoker")]
    if plays and rng.random() < 0.8:
        return rng.choice(plays)
    return rng.choice(legal)


def play(
    preset: str, players: int, seed: int, round_trip_every: int = 0, eager: bool = False
) -> Game:
    g = Game.new(preset, players, seed=seed)
    rng = random.Random(seed)
    check_state(g)
    for step in range(MAX_ACTIONS):
        if g.is_over:
            break
        if round_trip_every and step % round_trip_every == 0:
            check_round_trip(g, rng)
        g.apply(eager_choice(g, rng) if eager else rng.choice(g.legal_actions()))
        check_state(g)
    assert g.is_over, "the game did not end"
    check_round_points(g)
    assert len(g.round_history) == len(g.rules.rounds)
    return g


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_random_games_keep_every_invariant(preset: str, players: int) -> None:
    for seed in (players, 100 + players):
        play(preset, players, seed, round_trip_every=97)
    for seed in (200 + players, 300 + players):
        play(preset, players, seed, round_trip_every=31, eager=True)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_games_with_more_players_than_four(preset: str) -> None:
    players = PRESETS[preset].max_players
    play(preset, players, seed=7, round_trip_every=0)


def test_same_seed_and_same_actions_give_the_same_game() -> None:
    a = play("continental", 3, seed=21)
    b = play("continental", 3, seed=21)
    assert a.to_dict() == b.to_dict()


def test_clone_is_independent_of_the_original() -> None:
    g = Game.new("continental_us", 3, seed=8)
    rng = random.Random(8)
    for _ in range(40):
        g.apply(rng.choice(g.legal_actions()))
    before = g.to_dict()
    copy = g.clone()
    for _ in range(60):
        if copy.is_over:
            break
        copy.apply(rng.choice(copy.legal_actions()))
    assert g.to_dict() == before
    assert copy.to_dict() != before
    # and the clone's generator is a copy: the same actions give the same shuffles
    twin = g.clone()
    assert twin.rng.getstate() == g.rng.getstate() and twin.rng is not g.rng
