"""``Game.to_dict`` / ``Game.from_dict``: the JSON state of DESIGN.md and its validation."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from helpers import act, make_state

from continental_env.contract.game import Game
from continental_env.rules import PRESETS


def played(preset: str = "continental", players: int = 3, steps: int = 60, seed: int = 3) -> Game:
    g = Game.new(preset, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        g.apply(rng.choice(g.legal_actions()))
    return g


def test_to_dict_has_the_design_fields_and_is_plain_json() -> None:
    data = played().to_dict()
    for key in (
        "num_players", "round", "dealer", "current", "phase", "asked", "hands", "stock",
        "discard", "table", "laid_down", "scores", "rng",
    ):  # fmt: skip
        assert key in data
    assert data["preset"] == "continental"
    assert json.loads(json.dumps(data)) == data


def test_table_melds_are_owner_kind_and_cards_in_sequence_order() -> None:
    g = Game.from_dict(
        make_state(
            hands=["2C 3C", "2D 5S 9D"],
            table=[(0, "run", "JK 4H 5H 6H"), (1, "trio", "9C 9D JK")],
            round_number=2,
        )
    )
    assert g.to_dict()["table"] == [
        {"owner": 0, "kind": "run", "cards": ["JK", "4H", "5H", "6H"]},
        {"owner": 1, "kind": "trio", "cards": ["9C", "9D", "JK"]},
    ]


@pytest.mark.parametrize("phase", ["draw", "claim", "play"])
def test_round_trip_in_every_phase_continues_identically(phase: str) -> None:
    g = Game.new("continental_es", 4, seed=17)
    rng = random.Random(17)
    while g.phase != phase:
        g.apply(rng.choice(g.legal_actions()))
    back = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back.to_dict() == g.to_dict()
    for _ in range(300):
        if g.is_over:
            break
        a = rng.choice(g.legal_actions())
        g.apply(a)
        back.apply(a)
    assert back.to_dict() == g.to_dict()


def test_round_trip_of_a_finished_game() -> None:
    g = Game.new(PRESETS["continental"].with_rounds(1), 2, seed=1)
    rng = random.Random(1)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    back = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back.is_over and back.to_dict() == g.to_dict() and back.scores == g.scores


def test_round_trip_with_custom_rules() -> None:
    rules = PRESETS["continental_us"].with_rounds((2, 4))
    g = Game.new(rules, 2, seed=5)
    data = json.loads(json.dumps(g.to_dict()))
    assert data["preset"] is None  # not a preset: the rules travel in full
    assert Game.from_dict(data).rules == rules


# ----------------------------------------------------------------------------- malformed


def base_state() -> dict[str, Any]:
    # Four seats, seat 1 in turn, seat 2 asked whether to claim the QH.
    return make_state(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H", "2H 5S 9C KD 3H 4D 8S", "TC"],
        table=[(3, "trio", "6C 6D 6H"), (3, "trio", "JC JD JH")],
        current=1,
        discard="7C QH",
        phase="claim",
        asked=2,
        claim_queue=[2, 0],
    )


def edit(fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = copy.deepcopy(base_state())
    fn(data)
    return data


def test_base_state_of_the_malformed_cases_is_itself_valid() -> None:
    g = Game.from_dict(base_state())
    assert g.actor == 2
    act(g, "pass")
    assert g.actor == 0


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        pytest.param(lambda d: d.pop("hands"), "missing fields ['hands']", id="missing_field"),
        pytest.param(lambda d: d.pop("rng"), "missing fields ['rng']", id="missing_rng"),
        pytest.param(lambda d: d["hands"][0].__setitem__(0, "1X"), "unknown card", id="bad_card"),
        pytest.param(lambda d: d["stock"].append(7), "stock", id="card_not_a_string"),
        pytest.param(lambda d: d["stock"].pop(), "not conserved", id="card_missing"),
        pytest.param(lambda d: d["hands"][1].append("AS"), "not conserved", id="card_extra"),
        pytest.param(lambda d: d.__setitem__("phase", "bid"), "unknown phase", id="bad_phase"),
        pytest.param(lambda d: d.__setitem__("asked", 1), "asked", id="asked_is_in_turn"),
        pytest.param(lambda d: d.__setitem__("asked", 7), "asked", id="asked_no_seat"),
        pytest.param(lambda d: d.__setitem__("asked", None), "asked", id="claim_nobody_asked"),
        pytest.param(
            lambda d: d.__setitem__("claim_queue", [0, 2]), "claim_queue", id="queue_mismatch"
        ),
        pytest.param(
            lambda d: d.__setitem__("phase", "draw"), "'asked' must be null", id="asked_in_draw"
        ),
        pytest.param(
            lambda d: d.__setitem__("claim_queue", [2, 1]), "turn order", id="queue_has_current"
        ),
        pytest.param(
            lambda d: d.__setitem__("claim_queue", [2, 2]), "turn order", id="queue_repeats"
        ),
        pytest.param(
            lambda d: d.__setitem__("claim_queue", [2, 9]), "turn order", id="queue_no_seat"
        ),
        pytest.param(
            lambda d: (d.__setitem__("asked", 3), d.__setitem__("claim_queue", [3])),
            "may not claim",
            id="asked_has_laid_down",
        ),
        pytest.param(
            lambda d: (d["stock"].extend(d["discard"]), d["discard"].clear()),
            "declined card",
            id="claim_without_a_discard",
        ),
        pytest.param(lambda d: d.__setitem__("current", 4), "'current'", id="current_no_seat"),
        pytest.param(lambda d: d.__setitem__("round", 9), "round", id="round_out_of_range"),
        pytest.param(lambda d: d.__setitem__("round_index", 3), "round_index", id="round_index"),
        pytest.param(lambda d: d.__setitem__("num_players", 9), "allows", id="too_many_players"),
        pytest.param(lambda d: d["scores"].pop(), "'scores'", id="scores_per_seat"),
        pytest.param(lambda d: d["laid_down"].__setitem__(0, "yes"), "laid_down", id="bad_flag"),
        pytest.param(
            lambda d: d["table"][0].__setitem__("cards", ["6C", "7D", "6H"]),
            "table[0]",
            id="invalid_meld",
        ),
        pytest.param(lambda d: d["table"][0].__setitem__("kind", "set"), "kind", id="meld_kind"),
        pytest.param(
            lambda d: (d.pop("rules"), d.__setitem__("preset", "rummy")), "preset", id="preset"
        ),
        pytest.param(
            lambda d: d["rules"].__setitem__("colour", 1), "unknown rule fields", id="rule_field"
        ),
        pytest.param(lambda d: d.__setitem__("rng", [1, 2]), "rng", id="bad_rng"),
        pytest.param(lambda d: d.__setitem__("public_log", {}), "public_log", id="log_not_list"),
        pytest.param(
            lambda d: d.__setitem__("public_log", [[0, "draw"]]), "public_log[0]", id="log_entry"
        ),
        pytest.param(
            lambda d: d.__setitem__("public_log", [[4, "draw", None]]), "seat 4", id="log_seat"
        ),
        pytest.param(
            lambda d: d.__setitem__("public_log", [[0, "bid", None]]), "kind 'bid'", id="log_kind"
        ),
        pytest.param(
            lambda d: d.__setitem__("public_log", [[0, "discard", None]]),
            "shows a card",
            id="log_discard_without_card",
        ),
        pytest.param(
            lambda d: d.__setitem__("public_log", [[0, "laydown", "7C"]]),
            "shows no card",
            id="log_laydown_with_card",
        ),
        pytest.param(
            lambda d: d.__setitem__("public_log", [[0, "discard", "1X"]]),
            "unknown card",
            id="log_bad_card",
        ),
    ],
)
def test_from_dict_rejects_malformed_states_with_a_clear_value_error(
    mutate: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(ValueError, match="malformed game state") as err:
        Game.from_dict(edit(mutate))
    assert message in str(err.value)


def test_from_dict_rejects_a_non_dict() -> None:
    with pytest.raises(ValueError, match="expected a dict"):
        Game.from_dict([])  # type: ignore[arg-type]


def test_the_public_log_is_saved_restored_and_continued() -> None:
    g = played(steps=40)
    data = g.to_dict()
    entries = data["public_log"]
    assert entries and all(isinstance(e[1], str) for e in entries)
    assert len(entries) == len(g.public_log.entries(g))
    back = Game.from_dict(json.loads(json.dumps(data)))
    assert back.public_log == g.public_log  # entries, round and per-seat totals
    rng = random.Random(5)
    for _ in range(30):  # both logs go on recording the same actions
        action = rng.choice(g.legal_actions())
        g.apply(action)
        back.apply(action)
    assert back.public_log == g.public_log
    assert back.to_dict() == g.to_dict()


def test_a_state_saved_before_the_public_log_loads_with_an_empty_log() -> None:
    g = played(steps=40)
    data = g.to_dict()
    del data["public_log"]
    old = Game.from_dict(data)
    assert old.public_log.entries(old) == []
    action = old.legal_actions()[0]
    old.apply(action)  # the log starts from here, in this round
    assert len(old.public_log.entries(old)) == 1


def test_clone_copies_the_log_and_a_seat_view_keeps_it() -> None:
    g = played(steps=40)
    twin = g.clone()
    assert twin.public_log == g.public_log and twin.public_log is not g.public_log
    twin.apply(twin.legal_actions()[0])
    assert len(twin.public_log.items) == len(g.public_log.items) + 1  # independent copies
    for seat in range(g.num_players):
        assert g.state.redacted(seat).public_log == g.public_log  # public: kept as it is


def test_illegal_actions_are_not_logged_and_a_new_round_starts_empty() -> None:
    g = played(steps=40)
    before = g.public_log.copy()
    illegal = next(a for a in range(g.num_actions) if not g.is_legal(a))
    with pytest.raises(ValueError):
        g.apply(illegal)
    assert g.public_log == before
    rounds = len(g.round_history)
    rng = random.Random(2)
    while len(g.round_history) == rounds:
        g.apply(rng.choice(g.legal_actions()))
    assert g.public_log.entries(g) == [] and g.public_log.key == (
        g.round_index,
        g.deal_seeds[g.round_index],
    )
