"""The three engines' loaders: saved states that must reload, mutated ones that must be refused.

Each refusal is one ``ValueError`` of one line that names the field at fault. The mutations are
those found by mutating saved states of random play: each passed (or crashed) an earlier loader.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from helpers import act, make_game

from continental_env import fifteen, kernels, knock
from continental_env.cards import card_to_str
from continental_env.contract.game import Game
from continental_env.rules import (
    MAX_CARD_POINTS,
    MAX_DECKS,
    MAX_JOKERS_PER_DECK,
    MAX_MIN_RUN,
    PRESETS,
    RuleConfig,
    deck_counts,
    points_table,
)
from continental_env.state_fields import DETAIL_CHARS, SHOWN_CHARS, shown

GameClass = Any


def play(game: Any, seed: int, actions: int | None = None) -> Any:
    """Play uniformly random legal actions: to the end, or ``actions`` of them."""
    rng = random.Random(seed)
    n = 0
    while not game.is_over and (actions is None or n < actions):
        game.apply(rng.choice(game.legal_actions()))
        n += 1
    return game


def saved(game: Any) -> dict[str, Any]:
    """The game's saved state, through JSON text."""
    return json.loads(json.dumps(game.to_dict()))


def refused(cls: GameClass, data: dict[str, Any], field: str) -> str:
    """Assert that ``cls.from_dict`` refuses ``data`` with one line naming ``field``."""
    with pytest.raises(ValueError) as err:
        cls.from_dict(data)
    message = str(err.value)
    assert "\n" not in message, message
    assert message.startswith("malformed "), message
    assert field in message, message
    return message


def contract_mid_game() -> Game:
    return play(Game.new("continental", 3, seed=5), seed=5, actions=400)


def fifteen_mid_game() -> fifteen.Game:
    return play(fifteen.Game.new(num_players=3, seed=2, hands=3), seed=2, actions=450)


def knock_mid_game() -> knock.Game:
    return play(knock.Game.new(num_players=3, seed=3, max_turns_per_hand=30), seed=3, actions=70)


# ----------------------------------------------------------------------------- must reload


@pytest.mark.parametrize("seed", range(3))
def test_a_fifteen_card_game_ended_by_the_turn_limit_reloads_from_its_own_state(seed: int) -> None:
    # Uniformly random play never goes out: the hand runs to the turn limit, which ends the game.
    g = play(fifteen.Game.new(num_players=2, seed=seed, hands=1, max_turns_per_hand=30), seed)
    assert g.is_over and g.hand_history[-1]["end"] == "turn_limit"
    assert g.turn == g.max_turns_per_hand
    back = fifteen.Game.from_dict(saved(g))
    assert back.to_dict() == g.to_dict() and back.winners() == g.winners()


def test_a_continental_us_game_closed_after_a_joker_move_reloads_from_its_own_state() -> None:
    rules = PRESETS["continental_us"].with_rounds((2,))
    table = [(0, "trio", "7C 7D 7S"), (0, "run", "4H 5H 6H 7H JK"), (1, "run", "9S TS JS QS")]
    g = make_game(rules, hands=["2C", "2D 5C 9D"], table=table, round_number=2)
    act(g, "movejoker 1 2 low", "close")
    assert g.is_over and g.joker_moved
    back = Game.from_dict(saved(g))
    assert back.to_dict() == g.to_dict()


@pytest.mark.parametrize(
    "new", [contract_mid_game, fifteen_mid_game, knock_mid_game], ids=["contract", "15", "knock"]
)
def test_a_saved_state_mid_game_reloads_unchanged(new: Callable[[], Any]) -> None:
    g = new()
    data = saved(g)
    assert type(g).from_dict(data).to_dict() == data


# ----------------------------------------------------------------------------- must be refused


def test_a_live_round_labelled_game_over_is_refused_in_every_game() -> None:
    for g in (contract_mid_game(), fifteen_mid_game(), knock_mid_game()):
        data = saved(g)
        assert not g.is_over
        data["phase"] = "game_over"
        refused(type(g), data, "phase" if type(g) is not knock.Game else "'pot'")


def test_a_live_contract_round_labelled_game_over_no_longer_makes_every_seat_a_winner() -> None:
    data = saved(Game.new("continental", 4, seed=0))
    data["phase"] = "game_over"
    message = refused(Game, data, "'phase'")
    assert "round_index" in message


@pytest.mark.parametrize(
    "new", [contract_mid_game, fifteen_mid_game, knock_mid_game], ids=["contract", "15", "knock"]
)
@pytest.mark.parametrize("word", [-1, 2**32])
def test_a_generator_word_out_of_range_is_refused_by_name(
    new: Callable[[], Any], word: int
) -> None:
    g = new()
    data = saved(g)
    data["rng"][1][0] = word  # was an OverflowError from the generator's C code
    refused(type(g), data, "rng")


def test_contract_scores_are_checked_against_a_history_that_is_left_out() -> None:
    g = play(Game.new("continental", 2, seed=1), seed=1, actions=500)
    assert g.round_index >= 1
    data = saved(g)
    del data["round_history"]
    data["scores"][0] += 7
    refused(Game, data, "round_history")


def test_contract_scores_off_the_history_are_refused() -> None:
    g = play(Game.new("continental", 2, seed=1), seed=1, actions=500)
    data = saved(g)
    data["scores"][0] += 7
    refused(Game, data, "scores")


def test_fifteen_scores_off_the_history_are_refused() -> None:
    g = fifteen_mid_game()
    assert g.hand_index >= 1
    data = saved(g)
    data["scores"][0] += 3
    data["scores"][1] -= 3  # still zero-sum: only the history shows them wrong
    refused(fifteen.Game, data, "'scores'")
    del data["hand_history"]
    refused(fifteen.Game, data, "hand_history")


@pytest.mark.parametrize(
    "new", [contract_mid_game, fifteen_mid_game, knock_mid_game], ids=["contract", "15", "knock"]
)
def test_seen_discards_missing_a_card_of_the_pile_are_refused(new: Callable[[], Any]) -> None:
    g = new()
    assert g.discard and not g.is_over
    data = saved(g)
    data["seen_discards"].remove(card_to_str(g.discard[-1]))
    refused(type(g), data, "seen_discards")


def test_a_public_log_entry_off_the_seen_discards_is_refused() -> None:
    g = contract_mid_game()
    data = saved(g)
    card = card_to_str(g.discard[-1])
    data["public_log"] += [[0, "discard", card]] * (g.seen_discards[g.discard[-1]] + 1)
    refused(Game, data, "public_log")


def test_a_contract_dealer_that_does_not_fit_the_seat_in_turn_is_refused() -> None:
    g = contract_mid_game()
    data = saved(g)
    data["dealer"] = (data["dealer"] + 1) % g.num_players
    refused(Game, data, "'dealer'")


# ----------------------------------------------------------------------------- finished games


def contract_finished() -> Game:
    return play(Game.new(PRESETS["continental"].with_rounds((1,)), 2, seed=1), seed=1)


def fifteen_finished() -> fifteen.Game:
    return play(fifteen.Game.new(num_players=2, seed=1, hands=1, max_turns_per_hand=30), seed=1)


def knock_finished() -> knock.Game:
    return play(knock.Game.new(num_players=2, seed=1, max_turns_per_hand=30), seed=1)


@pytest.mark.parametrize(
    "new", [contract_finished, fifteen_finished, knock_finished], ids=["contract", "15", "knock"]
)
def test_a_finished_game_reloads_unchanged(new: Callable[[], Any]) -> None:
    g = new()
    assert g.is_over
    data = saved(g)
    assert type(g).from_dict(data).to_dict() == data


@pytest.mark.parametrize(
    "new", [contract_finished, fifteen_finished, knock_finished], ids=["contract", "15", "knock"]
)
def test_a_finished_game_with_a_card_added_is_refused(new: Callable[[], Any]) -> None:
    # Cards were checked in live rounds only: a finished game took any cards at all.
    g = new()
    data = saved(g)
    data["hands"][0].append("AS")
    refused(type(g), data, "cards are not conserved" if type(g) is not knock.Game else "hands")


@pytest.mark.parametrize("new", [contract_finished, fifteen_finished], ids=["contract", "15"])
def test_a_finished_game_with_a_card_missing_is_refused(new: Callable[[], Any]) -> None:
    g = new()
    data = saved(g)
    assert data["stock"]
    data["stock"].pop()
    refused(type(g), data, "cards are not conserved")


# ----------------------------------------------------------------------------- seen discards


@pytest.mark.parametrize(
    "new", [contract_mid_game, fifteen_mid_game, knock_mid_game], ids=["contract", "15", "knock"]
)
def test_a_saved_game_without_its_seen_discards_is_refused(new: Callable[[], Any]) -> None:
    # They include discards taken since, which the position no longer shows: no default can
    # stand in for them.
    g = new()
    assert g.moves > 0
    data = saved(g)
    del data["seen_discards"]
    refused(type(g), data, "'seen_discards' is missing")


@pytest.mark.parametrize(
    "new", [contract_mid_game, fifteen_mid_game, knock_mid_game], ids=["contract", "15", "knock"]
)
def test_a_position_built_without_seen_discards_takes_its_pile_and_saves_again(
    new: Callable[[], Any],
) -> None:
    # It loaded with none seen; its first saves after a discard were refused ('seen_discards'
    # lacks a card of the pile).
    g = new()
    data = saved(g)
    del data["seen_discards"]
    data.pop("public_log", None)  # a position built by hand: no moves, no log
    data["moves"] = 0
    cls = type(g)
    back = cls.from_dict(data)
    pile = [0] * len(back.seen_discards)
    for c in back.discard:
        pile[c] += 1
    assert back.seen_discards == pile and any(pile)
    rng = random.Random(7)
    for _ in range(60):
        if back.is_over:
            break
        back.apply(rng.choice(back.legal_actions()))
        data = saved(back)
        assert cls.from_dict(data).to_dict() == data


# ----------------------------------------------------------------------------- knock history


def knock_with_history() -> dict[str, Any]:
    g = knock_mid_game()
    assert g.hand_history and g.phase in ("draw", "play")
    return saved(g)


def test_knock_points_off_the_scores_are_refused() -> None:
    # A hand history that disagreed with the totals loaded, and the game went on from totals
    # no hand ever scored.
    data = knock_with_history()
    data["hand_history"][0]["points"][0] += 5
    message = refused(knock.Game, data, "'scores'")
    assert "points and buy-backs" in message


def test_knock_scores_off_the_history_are_refused() -> None:
    data = knock_with_history()
    data["scores"][1] -= 4
    refused(knock.Game, data, "'scores'")


def test_knock_chips_off_the_history_are_refused() -> None:
    data = knock_with_history()
    data["hand_history"][0]["chips"][0] += 10
    data["hand_history"][0]["chips"][1] -= 10
    refused(knock.Game, data, "'chips'")


def test_a_knock_history_holding_a_hand_too_many_is_refused() -> None:
    data = knock_with_history()
    data["hand_history"].append(json.loads(json.dumps(data["hand_history"][-1])))
    refused(knock.Game, data, "'hand_history' holds")


def test_knock_buy_backs_off_the_scores_are_refused() -> None:
    # Find a game that buys back: RULES 3.5 sets the buyer's total to the record's 'to'.
    for seed in range(60):
        g = knock.Game.new(num_players=4, seed=seed, max_turns_per_hand=30)
        rng = random.Random(seed)
        while not g.is_over and not any(h["buys"] for h in g.hand_history):
            legal = g.legal_actions()
            buy = g.action_from_str("buy")
            g.apply(buy if buy in legal else rng.choice(legal))
        if any(h["buys"] for h in g.hand_history):
            break
    else:
        pytest.fail("no game bought back")
    data = saved(g)
    assert knock.Game.from_dict(data).to_dict() == data
    record = next(h for h in data["hand_history"] if h["buys"])
    record["buys"][0]["to"] += 1
    refused(knock.Game, data, "'scores'")
    record["buys"][0]["to"] -= 1
    data["buys"][record["buys"][0]["seat"]] += 1
    refused(knock.Game, data, "'buys'")


def test_knock_history_records_of_the_wrong_shape_are_refused_by_name() -> None:
    data = knock_with_history()
    data["hand_history"][0]["points"] = ["x"] * len(data["scores"])
    refused(knock.Game, data, "hand_history[0]['points']")
    data = knock_with_history()
    data["hand_history"][0]["buys"] = [{"seat": 9}]
    refused(knock.Game, data, "hand_history[0]['buys'][0]")


# ----------------------------------------------------------------------------- rule bounds


BEYOND_THE_KERNELS = [
    ({"card_points": (50, 10**6 + 1, *range(2, 10), 10, 10, 10, 10)}, "card_points[1]", "10000"),
    ({"jokers_per_deck": 7}, "jokers_per_deck", "6"),
    ({"deck_schedule": ((4, (2,) * 7), (8, (3, 3, 3, 3, 3, 3, 17)))}, "deck_schedule", "1..16"),
    ({"min_run": 13}, "min_run", "3..12"),
    ({"one_turn_bonus": 10**9}, "one_turn_bonus", "10000"),
    ({"one_turn_bonus": -(10**9)}, "one_turn_bonus", "-10000"),
]


@pytest.mark.parametrize(("change", "field", "bound"), BEYOND_THE_KERNELS)
def test_rules_beyond_the_kernels_bounds_are_refused(
    change: dict[str, Any], field: str, bound: str
) -> None:
    # card_points above 10**6 were accepted, then the compiled kernel refused them mid-game.
    with pytest.raises(ValueError) as err:
        RuleConfig(**change)
    message = str(err.value)
    assert field in message and bound in message and "\n" not in message, message
    data = saved(Game.new("continental", 2, seed=0))
    data["preset"] = None
    data["rules"].update(json.loads(json.dumps(change)))
    refused(Game, data, field)
    with pytest.raises(ValueError, match=re.escape(field)):
        RuleConfig.from_dict(data["rules"])


def test_the_kernels_handle_rules_at_the_bounds() -> None:
    """A hand holding every card of a round at the largest decks, jokers and points: the
    compiled kernels answer (no count or point refused, no meld too long for them)."""
    native = kernels.compiled
    if native is None:
        pytest.skip("compiled kernels not built")
    rules = RuleConfig(
        deck_schedule=((8, (MAX_DECKS,) * 7),),
        jokers_per_deck=MAX_JOKERS_PER_DECK,
        card_points=(MAX_CARD_POINTS,) * 14,
        min_run=MAX_MIN_RUN,
        ace_wraparound=False,
    )
    counts = deck_counts(rules, 2, 1)
    pts = points_table(rules)
    assert native.contract_search(counts, 2, 0, 4, True, pts, True) is not None
    assert native.contract_search(counts, 1, 1, rules.min_run, False, pts, True) is not None
    assert native.laydown_cores(counts, 0, 1, rules.min_run, False, pts, 0, 0, 4)
    native.make_plan(counts, counts, 1, 1, rules.min_run, False)


# ----------------------------------------------------------------------------- short refusals

HUGE = 400_000


def huge_inputs() -> list[tuple[Any, dict[str, Any], str]]:
    contract = saved(Game.new("continental", 2, seed=1))
    rules = contract["rules"]
    knock_data = saved(knock.Game.new(num_players=2, seed=1))
    fifteen_data = saved(fifteen.Game.new(num_players=2, seed=1))
    return [
        (Game, dict(contract, rules=dict(rules, deck_schedule=[[8, [2] * HUGE]])), "deck_schedule"),
        (Game, dict(contract, rules=dict(rules, rounds=[9] * HUGE)), "rounds"),
        (Game, dict(contract, rules=dict(rules, card_points=[10**7] * HUGE)), "card_points"),
        (Game, dict(contract, rules={f"k{i}": 0 for i in range(HUGE // 10)}), "unknown rule"),
        (Game, dict(contract, claim_queue=[1] * HUGE), "claim_queue"),
        (Game, dict(contract, phase="x" * HUGE), "phase"),
        (Game, dict(contract, public_log={"x": [1] * HUGE}), "public_log"),
        (Game, dict(contract, num_players=[2] * HUGE), "num_players"),
        (Game, dict(contract, hands=[["x" * HUGE], contract["hands"][1]]), "hands[0][0]"),
        (Game, dict(contract, turn=-(10**5000)), "'turn'"),
        (knock.Game, dict(knock_data, options={"stake": [5] * HUGE}), "stake"),
        (fifteen.Game, dict(fifteen_data, options={"target": "x" * HUGE}), "target"),
    ]


def test_every_refusal_of_a_huge_value_stays_one_short_line() -> None:
    # A deck schedule row of 400,000 entries was refused with a 1.2 MB message quoting it all.
    for cls, data, field in huge_inputs():
        message = refused(cls, data, field)
        assert len(message) <= 40 + DETAIL_CHARS, (field, len(message))
    with pytest.raises(ValueError) as err:
        RuleConfig(card_points=(1,) * HUGE)
    assert len(str(err.value)) < 300


def test_a_shown_value_is_cut_to_its_cap() -> None:
    assert shown([1, 2, 3]) == "[1, 2, 3]" and shown("scores") == "'scores'"
    assert len(shown(list(range(HUGE)))) <= SHOWN_CHARS
    assert len(shown("x" * HUGE)) <= SHOWN_CHARS
    assert shown(10**5000).startswith("<an int of ")
