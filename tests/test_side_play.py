"""The two side games' engines (``fifteen``, ``knock``), the same checks for both: their JSON
state round-trips mid-game and replays identically, seeds replay games, clones are independent,
bad ids and texts are refused with a reason, and malformed states with one clear error. Each
game's random-play invariants and its own refusals are in its own ``test_<game>_play.py``."""

from __future__ import annotations

import copy
import importlib
import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from fifteen_helpers import fifteen_state
from knock_helpers import knock_state
from side_helpers import act
from test_knock_play import play_random as knock_play_random

from continental_env.cards import NUM_TYPES

GAMES = ["fifteen", "knock"]
ANNOUNCE_WORDS = ("knock", "rummy", "color", "continental")


def engine(game: str) -> Any:
    return importlib.import_module(f"continental_env.{game}.game")


def _random_to_the_end(g: Any, rng: random.Random) -> None:
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))


# How each game's same-seed test plays a game out (knock: eager, checking its invariants).
PLAY_OUT: dict[str, Callable[[Any, random.Random], Any]] = {
    "fifteen": _random_to_the_end,
    "knock": lambda g, rng: knock_play_random(g, rng, check_every=50),
}

# (game, players, options, steps, check every, replayed moves, announce when offered)
ROUND_TRIPS = [
    *(("fifteen", p, (30, 3), 150, 25, 60, False) for p in (2, 5, 9)),
    *(("knock", p, (25, 6), 400, 40, 80, True) for p in (2, 4, 6)),
]


@pytest.mark.parametrize(
    ("game", "players", "options", "steps", "every", "replay", "eager"), ROUND_TRIPS
)
def test_json_round_trip_mid_game_replays_identically(
    game: str,
    players: int,
    options: tuple[int, int],
    steps: int,
    every: int,
    replay: int,
    eager: bool,
) -> None:
    Game = engine(game).Game
    turns, hands = options
    g = Game.new(num_players=players, seed=11, max_turns_per_hand=turns, max_hands=hands)
    rng = random.Random(3)
    step = 0
    while not g.is_over and step < steps:
        data = g.to_dict()
        back = Game.from_dict(json.loads(json.dumps(data)))
        assert back.to_dict() == data
        assert back.legal_actions() == g.legal_actions()
        if step % every == 0:  # the restored game continues exactly like the original
            a, b = g.clone(), back
            r1, r2 = random.Random(step), random.Random(step)
            for _ in range(replay):
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
        calls = [x for x in legal if eager and g.action_to_str(x).split()[0] in ANNOUNCE_WORDS]
        g.apply(calls[0] if calls else rng.choice(legal))
        step += 1
    assert Game.from_dict(json.loads(json.dumps(g.to_dict()))).to_dict() == g.to_dict()


@pytest.mark.parametrize(("game", "max_hands"), [("fifteen", 3), ("knock", 4)])
def test_same_seed_same_game_and_clone_is_independent(game: str, max_hands: int) -> None:
    Game = engine(game).Game

    def run(seed: int) -> list:
        g = Game.new(num_players=3, seed=seed, max_turns_per_hand=30, max_hands=max_hands)
        PLAY_OUT[game](g, random.Random(0))
        return [g.to_dict(), g.hand_history]

    assert run(5) == run(5)
    assert run(5) != run(6)
    g = Game.new(num_players=3, seed=1)
    c = g.clone()
    act(c, "draw")
    assert g.phase == "draw" and c.phase == "play" and g.to_dict() != c.to_dict()


@pytest.mark.parametrize("game", GAMES)
def test_apply_refuses_bad_ids_with_a_reason_and_changes_nothing(game: str) -> None:
    module = engine(game)
    g = module.Game.new(num_players=2, seed=2)
    before = g.to_dict()
    cases = [
        (2.5, "not an integer"),
        ("0", "not an integer"),
        (module.NUM_ACTIONS, "out of range"),
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
        g.apply(module.DISCARD_BASE + missing)
    with pytest.raises(ValueError, match="only legal at the start of a turn"):
        act(g, "take")


TEXTS = {
    "fifteen": ["draw", "take", "out", "discard 7H", "out JK", "discard TS", "out AC"],
    "knock": ["draw", "take", "knock", "rummy", "color", "continental", "buy", "pass",
              "discard 7H", "rummy JK", "color TS", "continental AC"],
}  # fmt: skip
BAD_TEXTS = {
    "fifteen": ["", "discard", "discard ZZ", "out 7H 8H", "pass", "knock"],
    "knock": ["", "discard", "discard ZZ", "knock 7H 8H", "out", "buy 7H"],
}


@pytest.mark.parametrize(("game", "text"), [(g, t) for g in GAMES for t in TEXTS[g]])
def test_action_text_round_trip(game: str, text: str) -> None:
    g = engine(game).Game.new(num_players=2, seed=0)
    assert g.action_to_str(g.action_from_str(text)) == text


@pytest.mark.parametrize(("game", "text"), [(g, t) for g in GAMES for t in BAD_TEXTS[g]])
def test_bad_action_texts_are_refused(game: str, text: str) -> None:
    with pytest.raises(ValueError):
        engine(game).Game.new(num_players=2, seed=0).action_from_str(text)


# A 2-player position of each game with the first player to draw and a card on the pile.
STATES = {
    "fifteen": lambda: fifteen_state(
        hands=[
            "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC",
            "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H",
        ],
        discard="KD",
    ),
    "knock": lambda: knock_state(
        hands=["2H 3H 4H 5H 6C 6D 6S AS 3C AD", "KC QD JS 9H 7C 5D 3S TC 8D 6H"], discard="KD"
    ),
}
BROKEN = {
    "fifteen": [
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
    ],
    "knock": [
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
    ],
}


@pytest.mark.parametrize(
    ("game", "edit", "match"), [(g, e, m) for g in GAMES for e, m in BROKEN[g]]
)
def test_from_dict_refuses_malformed_states_with_one_clear_error(
    game: str, edit: Callable[[dict[str, Any]], Any], match: str
) -> None:
    Game = engine(game).Game
    data = copy.deepcopy(STATES[game]())
    Game.from_dict(copy.deepcopy(data))  # the unbroken state loads
    edit(data)
    with pytest.raises(ValueError, match=match):
        Game.from_dict(data)


BAD_OPTIONS = {
    "fifteen": [
        ({"target": 0}, "target"),
        ({"hands": 0}, "hands"),
        ({"max_turns_per_hand": 0}, "max_turns_per_hand"),
        ({"max_hands": -1}, "max_hands"),
    ],
    "knock": [
        ({"num_players": 7}, "seats 2..6"),
        ({"stake": 0}, "stake"),
        ({"stake": 52}, "multiple of 5"),
        ({"max_turns_per_hand": 0}, "max_turns_per_hand"),
        ({"max_hands": -1}, "max_hands"),
    ],
}


@pytest.mark.parametrize(
    ("game", "kwargs", "match"), [(g, k, m) for g in GAMES for k, m in BAD_OPTIONS[g]]
)
def test_bad_options_are_refused(game: str, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        engine(game).Game.new(**{"num_players": 2, **kwargs})


@pytest.mark.parametrize("game", GAMES)
def test_from_dict_refuses_a_non_dict(game: str) -> None:
    with pytest.raises(ValueError, match="expected a dict"):
        engine(game).Game.from_dict([])  # type: ignore[arg-type]


@pytest.mark.parametrize(("game", "up_cards"), [("fifteen", 1), ("knock", 0)])
def test_state_uses_the_contract_games_key_names(game: str, up_cards: int) -> None:
    data = engine(game).Game.new(num_players=3, seed=1).to_dict()
    for key in ("num_players", "current", "phase", "hands", "stock", "discard", "scores"):
        assert key in data
    assert data["phase"] == "draw" and data["current"] == 1 and len(data["discard"]) == up_cards


# The legal actions of the first turn of a 2-player game dealt from seed 3 (knock: draw first,
# then whatever that hand may announce).
OPENING = {"fifteen": lambda legal: legal == [0, 1], "knock": lambda legal: legal[0] == 0}


@pytest.mark.parametrize("game", GAMES)
def test_legal_actions_hand_out_a_copy_and_seeds_may_be_any_integer_kind(game: str) -> None:
    Game = engine(game).Game
    g = Game.new(num_players=2, seed=np.int64(3))
    assert g.to_dict() == Game.new(num_players=2, seed=3).to_dict()
    legal = g.legal_actions()
    legal.clear()  # the caller's list, not the cache
    assert OPENING[game](g.legal_actions())
    with pytest.raises(ValueError, match=r"seed 1\.5 must be an integer"):
        Game.new(num_players=2, seed=1.5)  # type: ignore[arg-type]
