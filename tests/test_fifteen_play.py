"""Random-play invariants of the fifteen-card engine over 2-12 players, and its JSON state.

Every live state has a legal action (ids sorted, unique, each with a text form that parses back),
cards are conserved, scores stay zero-sum, games end within ``max_game_length``, ``to_dict`` /
``from_dict`` round-trip exactly mid-game, and the same seed and actions replay the same game.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from fifteen_helpers import act, fifteen_state

from continental_env.cards import NUM_TYPES
from continental_env.fifteen.game import NUM_ACTIONS, Game, decks_for


def check_invariants(g: Game) -> None:
    legal = g.legal_actions()
    if g.is_over:
        assert legal == []
        return
    assert legal, "a live state has a legal action"
    assert legal == sorted(set(legal)) and all(0 <= a < NUM_ACTIONS for a in legal)
    for a in legal:
        assert g.action_from_str(g.action_to_str(a)) == a
    total = [0] * NUM_TYPES
    for h in g.hands:
        for c in range(NUM_TYPES):
            total[c] += h[c]
    for c in g.stock + g.discard:
        total[c] += 1
    assert total == [decks_for(g.num_players)] * NUM_TYPES
    sizes = [g.hand_size(s) for s in range(g.num_players)]
    want = [16 if g.phase == "play" and s == g.current else 15 for s in range(g.num_players)]
    assert sizes == want
    assert sum(g.scores) == 0


def play_random(g: Game, rng: random.Random, check_every: int = 1) -> int:
    """Random legal play to the end, preferring to go out when offered; returns the actions."""
    n = 0
    while not g.is_over:
        if n % check_every == 0:
            check_invariants(g)
        legal = g.legal_actions()
        outs = [a for a in legal if g.action_to_str(a).startswith("out")]
        g.apply(outs[0] if outs else rng.choice(legal))
        n += 1
        assert n <= g.max_game_length
    check_invariants(g)
    return n


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


@pytest.mark.parametrize("players", [2, 5, 9])
def test_json_round_trip_mid_game_replays_identically(players: int) -> None:
    g = Game.new(num_players=players, seed=11, max_turns_per_hand=30, max_hands=3)
    rng = random.Random(3)
    for step in range(150):
        if g.is_over:
            break
        data = g.to_dict()
        text = json.dumps(data)
        back = Game.from_dict(json.loads(text))
        assert back.to_dict() == data
        assert back.legal_actions() == g.legal_actions()
        if step % 25 == 0:  # the restored game continues exactly like the original
            a, b = g.clone(), back
            r1, r2 = random.Random(step), random.Random(step)
            for _ in range(60):
                if a.is_over:
                    break
                la, lb = a.legal_actions(), b.legal_actions()
                assert la == lb
                x = r1.choice(la)
                assert x == r2.choice(lb)
                a.apply(x)
                b.apply(x)
            assert a.to_dict() == b.to_dict()
        g.apply(rng.choice(g.legal_actions()))


def test_same_seed_same_game_and_clone_is_independent() -> None:
    def run(seed: int) -> list:
        g = Game.new(num_players=3, seed=seed, max_turns_per_hand=30, max_hands=3)
        rng = random.Random(0)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
        return [g.to_dict(), g.hand_history]

    assert run(5) == run(5)
    assert run(5) != run(6)
    g = Game.new(num_players=3, seed=1)
    c = g.clone()
    act(c, "draw")
    assert g.phase == "draw" and c.phase == "play" and g.to_dict() != c.to_dict()


def test_each_hand_is_dealt_from_its_own_seed() -> None:
    # Duplicate deals: the second hand's cards do not depend on how the first hand went.
    a = Game.new(num_players=2, seed=9, max_turns_per_hand=60)
    b = Game.new(num_players=2, seed=9, max_turns_per_hand=60)
    ra, rb = random.Random(1), random.Random(2)
    while a.hand_index == 0:
        a.apply(ra.choice(a.legal_actions()))
    while b.hand_index == 0:
        b.apply(rb.choice(b.legal_actions()))
    assert a.hands == b.hands and a.stock == b.stock and a.discard == b.discard


def test_apply_refuses_bad_ids_with_a_reason_and_changes_nothing() -> None:
    g = Game.new(num_players=2, seed=2)
    before = g.to_dict()
    cases = [
        (2.5, "not an integer"),
        ("0", "not an integer"),
        (NUM_ACTIONS, "out of range"),
        (-1, "out of range"),
        (g.action_from_str("discard 2C"), "draw or take a card first"),
    ]
    for action, match in cases:
        with pytest.raises(ValueError, match=match):
            g.apply(action)  # type: ignore[arg-type]
        assert g.to_dict() == before
    act(g, "draw")
    missing = next(c for c in range(NUM_TYPES) if not g.hands[g.current][c])
    with pytest.raises(ValueError, match="is not in seat 1's hand"):
        g.apply(3 + missing)
    with pytest.raises(ValueError, match="only legal at the start of a turn"):
        act(g, "take")


@pytest.mark.parametrize(
    "text", ["draw", "take", "out", "discard 7H", "out JK", "discard TS", "out AC"]
)
def test_action_text_round_trip(text: str) -> None:
    g = Game.new(num_players=2, seed=0)
    assert g.action_to_str(g.action_from_str(text)) == text


@pytest.mark.parametrize("text", ["", "discard", "discard ZZ", "out 7H 8H", "pass", "knock"])
def test_bad_action_texts_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Game.new(num_players=2, seed=0).action_from_str(text)


OPP = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"
MINE = "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC"


def _state() -> dict:
    return fifteen_state(hands=[MINE, OPP], discard="KD")


BROKEN = [
    (lambda d: d.pop("hands"), "missing fields"),
    (lambda d: d.update(game="knock"), "not 'fifteen'"),
    (lambda d: d.update(num_players=13), "seats 2..12"),
    (lambda d: d.update(phase="claim"), "unknown phase"),
    (lambda d: d.update(current=2), "'current' must be a seat"),
    (lambda d: d.update(dealer=1), "is not the dealer of hand 1"),
    (lambda d: d["hands"][0].pop(), "holds 14 cards, expected 15"),
    (lambda d: d["hands"][0].__setitem__(0, "ZZ"), "unknown card"),
    (lambda d: d["stock"].append("AH"), "not conserved"),
    (lambda d: d.update(scores=[5, 0]), "sum to 0"),
    (lambda d: d.update(scores=[1]), "one entry per seat"),
    (lambda d: d.update(turn=-1), "'turn'"),
    (lambda d: d.update(has_played=[1, 0]), "bools"),
    (lambda d: d.update(known=[["KS"], []]), "not in that hand"),
    (lambda d: d.update(deal_seeds=[1, 2]), "deal_seeds"),
    (lambda d: d.update(rng="x"), "rng"),
    (lambda d: d.update(options={"stake": 5}), "unknown options"),
    (lambda d: d.update(options={"target": 0}), "target"),
    (lambda d: d.update(hand_index=100), "hand_index"),
    (lambda d: d.update(phase="play"), "holds 15 cards, expected 16"),
]


@pytest.mark.parametrize(("edit", "match"), BROKEN)
def test_from_dict_refuses_malformed_states_with_one_clear_error(edit, match: str) -> None:
    data = copy.deepcopy(_state())
    Game.from_dict(copy.deepcopy(data))  # the unbroken state loads
    edit(data)
    with pytest.raises(ValueError, match=match):
        Game.from_dict(data)


def test_from_dict_refuses_a_non_dict() -> None:
    with pytest.raises(ValueError, match="expected a dict"):
        Game.from_dict([])  # type: ignore[arg-type]


def test_state_uses_the_contract_games_key_names() -> None:
    data = Game.new(num_players=3, seed=1).to_dict()
    for key in ("num_players", "current", "phase", "hands", "stock", "discard", "scores"):
        assert key in data
    assert data["phase"] == "draw" and data["current"] == 1 and len(data["discard"]) == 1


def test_legal_actions_hand_out_a_copy_and_seeds_may_be_any_integer_kind() -> None:
    import numpy as np

    g = Game.new(num_players=2, seed=np.int64(3))
    assert g.to_dict() == Game.new(num_players=2, seed=3).to_dict()
    legal = g.legal_actions()
    legal.clear()  # the caller's list, not the cache
    assert g.legal_actions() == [0, 1]
    with pytest.raises(ValueError, match=r"seed 1\.5 must be an integer"):
        Game.new(num_players=2, seed=1.5)  # type: ignore[arg-type]
