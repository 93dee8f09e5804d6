"""Regressions for engine defects found by trying the engine as a demanding user would."""

from __future__ import annotations

import json
import random
import sys

import pytest

from continental_env import melds
from continental_env.contract.game import Game
from continental_env.rules import PRESETS, RuleConfig


def fresh_state() -> dict:
    return Game.new(PRESETS["continental"], num_players=3, seed=5).to_dict()


def played_state(actions: int = 400) -> dict:
    g = Game.new(PRESETS["continental"], num_players=3, seed=5)
    rng = random.Random(5)
    while g.round_index < 1:
        g.apply(rng.choice(g.legal_actions()))
    return g.to_dict()


def test_legal_actions_cannot_be_corrupted_by_the_caller() -> None:
    g = Game.new(PRESETS["continental"], num_players=3, seed=1)
    first = g.legal_actions()
    first.clear()
    assert g.legal_actions() == [0, 1]
    assert g.is_legal(1)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.__setitem__("last_action", []), "'last_action'"),
        (lambda d: d.__setitem__("last_action", [None, "draw", None]), "'last_action'"),
        (lambda d: d.__setitem__("round_history", "abc"), "'round_history'"),
        (lambda d: d.__setitem__("round_history", [1]), "round"),
        (lambda d: d.__setitem__("moves", "ten"), "'moves'"),
        (lambda d: d.__setitem__("hands", [["7H"], 5, []]), "hands[1]"),
        (lambda d: d.__setitem__("table", [{"owner": 0, "kind": "run", "cards": 3}]), "table[0]"),
    ],
)
def test_from_dict_refuses_bad_optional_fields_with_one_clear_error(change, words) -> None:
    data = fresh_state()
    change(data)
    with pytest.raises(ValueError) as err:
        Game.from_dict(data)
    message = str(err.value)
    assert words in message
    assert message.count("malformed game state") == 1, message


def test_from_dict_refuses_a_live_state_whose_seat_in_turn_has_no_card() -> None:
    data = fresh_state()
    seat = data["current"]
    data["stock"] += data["hands"][seat]
    data["hands"][seat] = []
    with pytest.raises(ValueError, match="hold no cards"):
        Game.from_dict(data)


def test_from_dict_refuses_scores_that_disagree_with_the_round_history() -> None:
    data = played_state()
    assert data["round_history"], "the state must have a scored round"
    Game.from_dict(data)  # positive control: the real state loads
    data["scores"][0] += 1
    with pytest.raises(ValueError, match="round history"):
        Game.from_dict(data)


def test_from_dict_never_lets_a_type_error_escape() -> None:
    base = fresh_state()
    junk = [None, 3, "x", [], {}, [[]], 2.5, True]
    refused = 0
    for key in list(base):
        for value in junk:
            data = json.loads(json.dumps(base))
            data[key] = value
            try:
                Game.from_dict(data)
            except ValueError:
                refused += 1  # anything else (TypeError, KeyError...) fails the test
    assert refused > len(base) * len(junk) // 2


def test_numpy_integer_seeds_are_accepted_and_deal_as_the_plain_int() -> None:
    np = pytest.importorskip("numpy")
    a = Game.new(PRESETS["continental"], num_players=3, seed=np.int64(11))
    b = Game.new(PRESETS["continental"], num_players=3, seed=11)
    assert a.to_dict() == b.to_dict()
    with pytest.raises(ValueError, match="seed"):
        Game.new(PRESETS["continental"], num_players=3, seed=1.5)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"card_points": (50, -20, *range(2, 10), 10, 10, 10, 10)}, "card_points"),
        ({"deck_schedule": ((4, (2, 2)), (8, (3,) * 7))}, "deck_schedule"),
        ({"deck_schedule": ((4, (2,) * 7),)}, "deck_schedule"),
        ({"jokers_per_deck": -1}, "jokers_per_deck"),
        ({"max_claims_per_round": -2}, "max_claims_per_round"),
        ({"min_players": 1}, "min_players"),
    ],
)
def test_rule_config_refuses_values_that_would_crash_a_game_later(kwargs, field) -> None:
    with pytest.raises(ValueError, match=field):
        RuleConfig(**kwargs)


def test_presets_are_still_valid() -> None:
    for rules in PRESETS.values():
        RuleConfig.from_dict(rules.to_dict())


def test_contract_caches_are_bounded() -> None:
    for cached in (melds.contract_exists, melds.best_arrangement):
        size = cached.cache_info().maxsize
        assert size is not None and size <= 20_000
    # A full cache of 53-tuple keys stays near 11 MiB.
    key = tuple(range(53))
    assert sys.getsizeof(key) * melds.contract_exists.cache_info().maxsize < 16 * 2**20
