"""Random-play invariants of the knock engine over 2-6 players, and its JSON state.

Every live state has a legal action (ids sorted, unique, each with a text form that parses back),
cards and chips are conserved (``sum(chips) + pot == 0``, the pot empty at the end), games end
within ``max_game_length``, ``to_dict`` / ``from_dict`` round-trip exactly mid-game, and the same
seed and actions replay the same game.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from knock_helpers import act, knock_state

from continental_env.cards import NUM_TYPES
from continental_env.knock.game import NUM_ACTIONS, Game, jokers_for

ANNOUNCE_WORDS = ("knock", "rummy", "color", "continental")


def check_invariants(g: Game) -> None:
    legal = g.legal_actions()
    assert sum(g.chips) + g.pot == 0
    if g.is_over:
        assert legal == [] and g.pot == 0 and g.winners()
        return
    assert legal, "a live state has a legal action"
    assert legal == sorted(set(legal)) and all(0 <= a < NUM_ACTIONS for a in legal)
    for a in legal:
        assert g.action_from_str(g.action_to_str(a)) == a
    assert sum(g.in_game) >= 2 and all(g.scores[s] <= 100 for s in g.players_in)
    if g.phase == "buy":
        assert legal == [6, 7] and g.current == g.buyers[0]
        return
    total = [0] * NUM_TYPES
    for h in g.hands:
        for c in range(NUM_TYPES):
            total[c] += h[c]
    for c in g.stock + g.discard:
        total[c] += 1
    assert total == [2] * 52 + [jokers_for(g.num_players)]
    for s in range(g.num_players):
        want = 0 if not g.in_game[s] else 11 if g.phase == "play" and s == g.current else 10
        assert g.hand_size(s) == want


def play_random(g: Game, rng: random.Random, check_every: int = 1, eager: bool = True) -> int:
    """Random legal play to the end (``eager``: announce whenever offered); returns the actions."""
    n = 0
    while not g.is_over:
        if n % check_every == 0:
            check_invariants(g)
        legal = g.legal_actions()
        calls = [a for a in legal if g.action_to_str(a).split()[0] in ANNOUNCE_WORDS]
        g.apply(calls[0] if eager and calls else rng.choice(legal))
        n += 1
        assert n <= g.max_game_length
    check_invariants(g)
    return n


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


@pytest.mark.parametrize("players", [2, 4, 6])
def test_json_round_trip_mid_game_replays_identically(players: int) -> None:
    g = Game.new(num_players=players, seed=11, max_turns_per_hand=25, max_hands=6)
    rng = random.Random(3)
    step = 0
    while not g.is_over and step < 400:
        data = g.to_dict()
        back = Game.from_dict(json.loads(json.dumps(data)))
        assert back.to_dict() == data
        assert back.legal_actions() == g.legal_actions()
        if step % 40 == 0:  # the restored game continues exactly like the original
            a, b = g.clone(), back
            r1, r2 = random.Random(step), random.Random(step)
            for _ in range(80):
                if a.is_over:
                    break
                la, lb = a.legal_actions(), b.legal_actions()
                assert la == lb
                x = r1.choice(la)
                assert x == r2.choice(lb)
                a.apply(x)
                b.apply(x)
            assert a.to_dict() == b.to_dict()
        legal = g.legal_actions()
        calls = [x for x in legal if g.action_to_str(x).split()[0] in ANNOUNCE_WORDS]
        g.apply(calls[0] if calls else rng.choice(legal))
        step += 1
    assert Game.from_dict(json.loads(json.dumps(g.to_dict()))).to_dict() == g.to_dict()


def test_same_seed_same_game_and_clone_is_independent() -> None:
    def run(seed: int) -> list:
        g = Game.new(num_players=3, seed=seed, max_turns_per_hand=30, max_hands=4)
        play_random(g, random.Random(0), check_every=50)
        return [g.to_dict(), g.hand_history]

    assert run(5) == run(5)
    assert run(5) != run(6)
    g = Game.new(num_players=3, seed=1)
    c = g.clone()
    act(c, "draw")
    assert g.phase == "draw" and c.phase == "play" and g.to_dict() != c.to_dict()


def test_each_hand_is_dealt_from_its_own_seed_and_each_seat_keeps_its_cards() -> None:
    # Duplicate deals: a seat's cards in hand 2 do not depend on how hand 1 went.
    a = Game.new(num_players=3, seed=9, max_turns_per_hand=30)
    b = Game.new(num_players=3, seed=9, max_turns_per_hand=30)
    ra, rb = random.Random(1), random.Random(2)
    while a.hand_index == 0:
        a.apply(ra.choice(a.legal_actions()))
    while b.hand_index == 0:
        b.apply(rb.choice(b.legal_actions()))
    assert a.hand_history[0]["shown"] != b.hand_history[0]["shown"]  # played differently
    for s in range(3):
        if a.in_game[s] and b.in_game[s]:
            assert a.hands[s] == b.hands[s]


def test_apply_refuses_bad_ids_with_a_reason_and_changes_nothing() -> None:
    g = Game.new(num_players=2, seed=2)
    before = g.to_dict()
    cases = [
        (2.5, "not an integer"),
        ("0", "not an integer"),
        (NUM_ACTIONS, "out of range"),
        (-1, "out of range"),
        (g.action_from_str("discard 2C"), "draw or take a card first"),
        (g.action_from_str("take"), "the discard pile is empty"),
        (g.action_from_str("buy"), "only offered between hands"),
        (g.action_from_str("rummy"), "not all 10 cards are in lays"),
        (g.action_from_str("color"), "not all of one suit"),
        (g.action_from_str("continental"), "not one lay"),
    ]
    for action, match in cases:
        with pytest.raises(ValueError, match=match):
            g.apply(action)  # type: ignore[arg-type]
        assert g.to_dict() == before
    act(g, "draw")
    missing = next(c for c in range(NUM_TYPES) if not g.hands[g.current][c])
    with pytest.raises(ValueError, match="is not in seat 1's hand"):
        g.apply(8 + missing)
    held = next(c for c in range(NUM_TYPES) if g.hands[g.current][c])
    with pytest.raises(ValueError, match="not all 10 cards are in lays once"):
        g.apply(61 + held)
    with pytest.raises(ValueError, match="only legal at the start of a turn"):
        act(g, "take")


TEXTS = ["draw", "take", "knock", "rummy", "color", "continental", "buy", "pass",
         "discard 7H", "rummy JK", "color TS", "continental AC"]  # fmt: skip


@pytest.mark.parametrize("text", TEXTS)
def test_action_text_round_trip(text: str) -> None:
    g = Game.new(num_players=2, seed=0)
    assert g.action_to_str(g.action_from_str(text)) == text


@pytest.mark.parametrize("text", ["", "discard", "discard ZZ", "knock 7H 8H", "out", "buy 7H"])
def test_bad_action_texts_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Game.new(num_players=2, seed=0).action_from_str(text)


MINE = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"
OPP = "KC QD JS 9H 7C 5D 3S TC 8D 6H"


def _state() -> dict:
    return knock_state(hands=[MINE, OPP], discard="KD")


BROKEN = [
    (lambda d: d.pop("hands"), "missing fields"),
    (lambda d: d.update(game="fifteen"), "not 'knock'"),
    (lambda d: d.update(num_players=7), "seats 2..6"),
    (lambda d: d.update(phase="claim"), "unknown phase"),
    (lambda d: d.update(current=2), "'current' must be a seat"),
    (lambda d: d["hands"][0].pop(), "holds 9 cards, expected 10"),
    (lambda d: d["hands"][0].__setitem__(0, "ZZ"), "unknown card"),
    (lambda d: d["stock"].append("AH"), "not conserved"),
    (lambda d: d.update(pot=5), "must sum to 0"),
    (lambda d: d.update(pot=-5, chips=[0, 5]), "non-negative"),
    (lambda d: d.update(scores=[1]), "one entry per seat"),
    (lambda d: d.update(scores=[101, 0]), "over 100"),
    (lambda d: d.update(in_game=[True, 1]), "bools"),
    (lambda d: d.update(in_game=[True, False]), "at least two players"),
    (lambda d: d.update(turn=-1), "'turn'"),
    (lambda d: d.update(buyers=[0]), "empty outside phase 'buy'"),
    (lambda d: d.update(known=[["KS"], []]), "not in that hand"),
    (lambda d: d.update(deal_seeds=[1, 2]), "deal_seeds"),
    (lambda d: d.update(rng="x"), "rng"),
    (lambda d: d.update(options={"target": 5}), "unknown options"),
    (lambda d: d.update(options={"stake": 7}), "multiple of 5"),
    (lambda d: d.update(hand_index=100), "hand_index"),
    (lambda d: d.update(phase="play"), "holds 10 cards, expected 11"),
    (lambda d: d.update(phase="buy"), "'buyers' lists the seats"),
    (lambda d: d.update(phase="game_over"), "pot of a finished game"),
    (lambda d: d.update(result={"winners": [0]}), "'result' must be null"),
    (lambda d: d.update(hand_history=[{"chips": []}]), "hand_history"),
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
    assert data["phase"] == "draw" and data["current"] == 1 and data["discard"] == []


def test_legal_actions_hand_out_a_copy_and_seeds_may_be_any_integer_kind() -> None:
    import numpy as np

    g = Game.new(num_players=2, seed=np.int64(3))
    assert g.to_dict() == Game.new(num_players=2, seed=3).to_dict()
    legal = g.legal_actions()
    legal.clear()  # the caller's list, not the cache
    assert g.legal_actions()[0] == 0
    with pytest.raises(ValueError, match=r"seed 1\.5 must be an integer"):
        Game.new(num_players=2, seed=1.5)  # type: ignore[arg-type]
