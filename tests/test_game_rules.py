"""One rule of a turn at a time (RULES.md 1.4, 1.6, 1.8), on hand-built positions.

Each position is built with ``helpers.make_game`` (``Game.from_dict`` underneath) and drawn in
a comment: seats, hands, the table (meld index: owner kind cards) and whose turn it is.
"""

from __future__ import annotations

import json

import pytest
from helpers import act, hand, legal_texts, make_game, meld_text

from continental_env.cards import parse_cards
from continental_env.contract.game import Game
from continental_env.rules import PRESETS

# ----------------------------------------------------------------------------- draw step


def test_draw_step_offers_draw_and_take_when_the_pile_has_a_card() -> None:
    g = make_game(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H"], discard="QH", phase="draw"
    )
    assert legal_texts(g) == ["draw", "take"]


def test_take_puts_the_top_discard_in_hand_and_opens_the_play_step() -> None:
    g = make_game(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H"], discard="6C QH", phase="draw"
    )
    act(g, "take")
    assert "QH" in hand(g, 0) and len(hand(g, 0)) == 8
    assert [c for c in g.discard] == parse_cards("6C")
    assert g.phase == "play" and g.current == 0
    assert g.known[0][parse_cards("QH")[0]] == 1  # a pickup is public


def test_draw_from_the_stock_when_nobody_may_claim() -> None:
    # Seat 1 has laid down, so nobody is asked; seat 0 draws the stock's top card (AS).
    g = make_game(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H"],
        table=[(1, "trio", "7C 7D 7H"), (1, "trio", "9C 9D JK")],
        discard="QH",
        stock_top="AS",
        phase="draw",
    )
    act(g, "draw")
    assert g.phase == "play"
    assert "AS" in hand(g, 0)
    assert g.discard[-1] == parse_cards("QH")[0]


def test_only_draw_when_the_discard_pile_is_empty() -> None:
    g = make_game(hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H"], phase="draw")
    assert g.discard == []
    assert legal_texts(g) == ["draw"]


# ----------------------------------------------------------------------------- lay down


def test_laydown_places_exactly_the_round_one_contract_and_keeps_the_rest() -> None:
    # Round 1 (two trios): 7H 7S 7D | 9C 9D JK | 2S 4H stay in hand.
    g = make_game(hands=["7H 7S 7D 9C 9D JK 2S 4H", "2D 5H 9S KC 3D 4C 8H"])
    assert "laydown" in legal_texts(g)
    act(g, "laydown")
    assert g.laid_down == [True, False]
    assert sorted(m.kind for m in g.table) == ["trio", "trio"]
    assert all(m.owner == 0 for m in g.table)
    assert hand(g, 0) == ["2S", "4H"]


def test_laydown_of_three_trios_in_round_one_places_only_two() -> None:
    # No more melds than the contract: the cheapest trio (the twos) stays in hand.
    g = make_game(hands=["KC KD KH QC QD QH 2C 2D 2H 5S", "2S 5H 9S KS 3D 4C 8H"])
    act(g, "laydown")
    assert len(g.table) == 2
    assert hand(g, 0) == ["2C", "2D", "2H", "5S"]


def test_laydown_melds_may_be_longer_than_the_minimum() -> None:
    g = make_game(hands=["7H 7S 7D 7C 9C 9D 9H 2S", "2D 5H 9S KC 3D 4C 8H"])
    act(g, "laydown")
    assert sorted(len(m.cards) for m in g.table) == [3, 4]
    assert hand(g, 0) == ["2S"]


def test_laydown_illegal_when_it_would_empty_the_hand() -> None:
    g = make_game(hands=["7H 7S 7D 9C 9D 9H", "2D 5H 9S KC 3D 4C 8H"])
    assert "laydown" not in legal_texts(g)


def test_laydown_illegal_without_the_round_contract() -> None:
    # Round 2 wants a trio and a run: two trios are not it.
    g = make_game(hands=["7H 7S 7D 9C 9D 9H 2C 3C", "2D 5H 9S KC 3D 4C 8H 8S"], round_number=2)
    assert "laydown" not in legal_texts(g)
    with pytest.raises(ValueError, match="laydown"):
        g.apply(g.action_from_str("laydown"))


def test_laydown_only_once_per_round() -> None:
    g = make_game(hands=["7H 7S 7D 9C 9D JK 9H 9S 2C 2D", "2S 5H 9S KC 3D 4C 8H"])
    act(g, "laydown")
    assert "laydown" not in legal_texts(g)


# ----------------------------------------------------------------------------- lay off

# Position used below (round 2): seat 0 laid down a trio of 7s (meld 0) and a run 4H-7H
# (meld 1); seat 1 laid down a run 9S-QS (meld 2) and a trio of kings (meld 3).
DOWN_TABLE = [
    (0, "trio", "7C 7D 7S"),
    (0, "run", "4H 5H 6H 7H"),
    (1, "run", "9S TS JS QS"),
    (1, "trio", "KC KD KH"),
]


def down_game(preset: str = "continental", hand0: str = "7H 3H 8S KS 2C", **kw) -> Game:
    return make_game(preset, hands=[hand0, "2D 5C 9D"], table=DOWN_TABLE, round_number=2, **kw)


def test_layoff_on_own_and_opponents_melds_at_run_ends() -> None:
    g = down_game()
    assert {
        "layoff 7H 0",  # own trio, any suit of the rank (a second deck's 7H)
        "layoff 3H 1",  # own run, low end
        "layoff 8S 2",  # opponent's run, low end
        "layoff KS 2",  # opponent's run, high end
        "layoff KS 3",  # opponent's trio
    } <= set(legal_texts(g))
    assert "layoff 2C 1" not in legal_texts(g)
    act(g, "layoff 3H 1", "layoff 8S 2")
    assert meld_text(g, 1) == "3H 4H 5H 6H 7H"
    assert meld_text(g, 2) == "8S 9S TS JS QS"


def test_layoff_never_splits_a_run_a_card_inside_is_not_a_layoff() -> None:
    g = make_game(
        hands=["5H 2C 3D", "2D 5C 9D"],
        table=[(0, "trio", "7C 7D 7S"), (1, "run", "4H JK 6H 7H")],
        round_number=2,
    )
    assert not [t for t in legal_texts(g) if t.startswith("layoff 5H")]


def test_layoff_joker_goes_to_the_named_end_of_a_run() -> None:
    g = down_game(hand0="JK JK 2C")
    assert {"layoff JK 1 low", "layoff JK 1 high", "layoff JK 0"} <= set(legal_texts(g))
    act(g, "layoff JK 1 low")
    assert meld_text(g, 1) == "JK 4H 5H 6H 7H"
    act(g, "layoff JK 1 high")
    assert meld_text(g, 1) == "JK 4H 5H 6H 7H JK"


def test_layoff_requires_having_laid_down() -> None:
    # Seat 1's run 9S-QS (meld 0) and trio of kings (meld 1); seat 0 is not down.
    g = make_game(hands=["8S KS 2C", "2D 5C 9D"], table=DOWN_TABLE[2:], round_number=2)
    assert not [t for t in legal_texts(g) if t.startswith("layoff")]
    with pytest.raises(ValueError, match="must lay down before layoff"):
        g.apply(g.action_from_str("layoff KS 1"))


def test_layoff_keeps_one_card_in_hand() -> None:
    # Two cards that both fit: after one lay-off only closing (or nothing more) is possible.
    g = down_game(hand0="3H 8H")
    act(g, "layoff 3H 1")
    assert hand(g, 0) == ["8H"]
    assert legal_texts(g) == ["close"]


def test_layoff_on_ace_high_run_blocked_without_wraparound() -> None:
    table = [(0, "trio", "7C 7D 7S"), (1, "run", "JS QS KS AS")]
    us = make_game("continental_us", hands=["2S TS JK 5C", "2D 5D 9D"], table=table, round_number=2)
    assert {"layoff TS 1", "layoff JK 1 low"} <= set(legal_texts(us))
    assert "layoff 2S 1" not in legal_texts(us) and "layoff JK 1 high" not in legal_texts(us)
    wrap = make_game("continental", hands=["2S TS JK 5C", "2D 5D 9D"], table=table, round_number=2)
    assert {"layoff 2S 1", "layoff TS 1", "layoff JK 1 high"} <= set(legal_texts(wrap))


# ----------------------------------------------------------------------------- joker swap


@pytest.mark.parametrize("preset", ["continental", "continental_es"])
def test_swap_natural_replaces_a_run_joker_and_the_joker_goes_to_hand(preset: str) -> None:
    # Seat 0 is down (trio of 7s); seat 1's run 4H JK 6H 7H: the joker stands for 5H.
    g = make_game(
        preset,
        hands=["5H 6H 2C", "2D 5C 9D"],
        table=[(0, "trio", "7C 7D 7S"), (1, "run", "4H JK 6H 7H")],
        round_number=2,
    )
    assert "swap 5H 1" in legal_texts(g)
    assert "swap 6H 1" not in legal_texts(g)
    act(g, "swap 5H 1")
    assert meld_text(g, 1) == "4H 5H 6H 7H"
    assert hand(g, 0) == ["2C", "6H", "JK"]
    assert g.known[0][parse_cards("JK")[0]] == 1  # everyone saw the joker taken


def test_swap_in_a_trio_any_card_of_the_rank_replaces_the_joker() -> None:
    g = make_game(
        hands=["9S 9C 2C", "2D 5C 9D"],
        table=[(0, "trio", "7C 7D 7S"), (1, "trio", "9C 9H JK")],
    )
    assert {"swap 9S 1", "swap 9C 1"} <= set(legal_texts(g))
    act(g, "swap 9S 1")
    assert sorted(meld_text(g, 1).split()) == ["9C", "9H", "9S"]
    assert "JK" in hand(g, 0)


def test_swap_requires_having_laid_down() -> None:
    g = make_game(
        hands=["5H 2C 3D", "2D 5C 9D"],
        table=[(1, "trio", "7C 7D 7S"), (1, "run", "4H JK 6H 7H")],
        round_number=2,
    )
    assert "swap 5H 1" not in legal_texts(g)
    with pytest.raises(ValueError, match="must lay down before swap"):
        g.apply(g.action_from_str("swap 5H 1"))


# ----------------------------------------------------------------------------- 003's shift


def us_game(hand0: str, table: list[tuple[int, str, str]]) -> Game:
    return make_game("continental_us", hands=[hand0, "2D 5C 9D"], table=table, round_number=2)


def test_shift_continental_us_has_no_swap() -> None:
    g = us_game("5H 2C 3D", [(0, "trio", "7C 7D 7S"), (0, "run", "4H JK 6H 7H")])
    assert not [t for t in legal_texts(g) if t.startswith("swap")]
    with pytest.raises(ValueError, match="shift jokers"):
        g.apply(g.action_from_str("swap 5H 1"))


def test_shift_natural_takes_the_joker_place_joker_moves_to_the_high_end() -> None:
    g = us_game("5H 2C 3D", [(0, "trio", "7C 7D 7S"), (0, "run", "4H JK 6H 7H")])
    act(g, "layoff 5H 1")
    assert meld_text(g, 1) == "4H 5H 6H 7H JK"
    assert hand(g, 0) == ["2C", "3D"]


def test_shift_joker_moves_to_the_low_end_when_the_high_end_is_the_ace() -> None:
    g = us_game("JS 2C 3D", [(0, "trio", "7C 7D 7S"), (0, "run", "JK QS KS AS")])
    act(g, "layoff JS 1")
    assert meld_text(g, 1) == "JK JS QS KS AS"


def test_shift_only_on_own_runs() -> None:
    g = us_game("5H 2C 3D", [(0, "trio", "7C 7D 7S"), (1, "run", "4H JK 6H 7H")])
    assert "layoff 5H 1" not in legal_texts(g)


def test_movejoker_from_own_run_of_five_to_an_end_of_another_run() -> None:
    table = [(0, "trio", "7C 7D 7S"), (0, "run", "4H 5H 6H 7H JK"), (1, "run", "9S TS JS QS")]
    g = us_game("2C 3D", table)
    assert {"movejoker 1 2 low", "movejoker 1 2 high"} <= set(legal_texts(g))
    act(g, "movejoker 1 2 low")
    assert meld_text(g, 1) == "4H 5H 6H 7H"
    assert meld_text(g, 2) == "JK 9S TS JS QS"
    assert hand(g, 0) == ["2C", "3D"]


def test_movejoker_needs_five_cards_own_run_and_a_joker_at_an_end() -> None:
    four = us_game("2C 3D", [(0, "run", "4H 5H 6H JK"), (1, "run", "9S TS JS QS")])
    other = us_game("2C 3D", [(0, "run", "4H 5H 6H 7H"), (1, "run", "9S TS JS QS JK")])
    inner = us_game("2C 3D", [(0, "run", "4H JK 6H 7H 8H"), (1, "run", "9S TS JS QS")])
    for g in (four, other, inner):
        assert not [t for t in legal_texts(g) if t.startswith("movejoker")]


def test_movejoker_is_refused_outside_continental_us() -> None:
    table = [(0, "trio", "7C 7D 7S"), (0, "run", "4H 5H 6H 7H JK"), (1, "run", "9S TS JS QS")]
    g = make_game(hands=["2C 3D", "2D 5C 9D"], table=table, round_number=2)
    with pytest.raises(ValueError, match="only the continental_us rules move jokers"):
        g.apply(g.action_from_str("movejoker 1 2 low"))


# ----------------------------------------------------------------------------- discard, close


def test_discard_each_held_card_type_then_the_turn_passes_left() -> None:
    g = make_game(hands=["2C 2C 5D 9H", "2D 5H 9S", "3C 3D 3H"])
    assert legal_texts(g) == ["discard 2C", "discard 5D", "discard 9H"]
    act(g, "discard 9H")
    assert (g.current, g.phase, g.turn) == (1, "draw", 1)
    assert g.discard[-1] == parse_cards("9H")[0]
    assert hand(g, 0) == ["2C", "2C", "5D"]


def test_last_card_cannot_be_discarded_only_closed() -> None:
    g = down_game(hand0="2C")
    assert legal_texts(g) == ["close"]
    with pytest.raises(ValueError, match="must be closed"):
        g.apply(g.action_from_str("discard 2C"))


def test_close_requires_having_laid_down() -> None:
    g = make_game(hands=["2C 3C", "2D 5H 9S"])
    assert "close" not in legal_texts(g)
    with pytest.raises(ValueError, match="has not laid down"):
        g.apply(g.action_from_str("close"))


def test_close_ends_the_round_closer_scores_zero_others_their_hands() -> None:
    # Seat 0 closes with 2C; seat 1 holds 2D 5C 9D = 16 points.
    g = down_game(hand0="2C", scores=[5, 7])
    act(g, "close")
    assert g.round_history[-1]["points"] == [0, 16]
    assert g.round_history[-1]["closer"] == 0
    assert g.scores == [5, 23]
    assert g.round == 3 and g.phase == "draw"  # the next round is dealt at once


@pytest.mark.parametrize(
    ("preset", "points"),
    [
        ("continental", 50 + 20 + 2 + 7 + 8 + 9 + 10 + 10 + 10 + 10),
        ("continental_us", 50 + 20 + 2 + 7 + 8 + 9 + 10 + 10 + 10 + 10),
        ("continental_es", 50 + 20 + 5 + 5 + 10 + 10 + 10 + 10 + 10 + 10),
    ],
)
def test_card_points_per_preset(preset: str, points: int) -> None:
    g = make_game(
        preset,
        hands=["2C", "JK AS 2D 7H 8S 9C TD JH QC KS"],
        table=[(0, "trio", "5C 5D 5H"), (0, "trio", "6C 6D 6H")],
    )
    assert g.hand_points(1) == points
    act(g, "close")
    assert g.round_history[-1]["points"] == [0, points]


def test_one_turn_bonus_continental_us_lay_down_and_close_in_one_turn() -> None:
    # Seat 0 holds two trios and one more card: lays down and closes in this same turn.
    g = make_game("continental_us", hands=["5C 5D 5H 6C 6D 6H 2C", "2D 5S 9D"], turn=4)
    act(g, "laydown", "close")
    assert g.round_history[-1]["points"] == [-10, 16]
    assert g.scores == [-10, 16]


def test_one_turn_bonus_not_given_when_laid_down_on_an_earlier_turn() -> None:
    g = make_game(
        "continental_us",
        hands=["2C", "2D 5S 9D"],
        table=[(0, "trio", "5C 5D 5H"), (0, "trio", "6C 6D 6H")],
        laid_down_turn=[2, -1],
        turn=4,
    )
    act(g, "close")
    assert g.round_history[-1]["points"] == [0, 16]


@pytest.mark.parametrize("preset", ["continental", "continental_es"])
def test_one_turn_close_scores_zero_outside_continental_us(preset: str) -> None:
    g = make_game(preset, hands=["5C 5D 5H 6C 6D 6H 2C", "2D 5S 9D"])
    act(g, "laydown", "close")
    assert g.round_history[-1]["points"][0] == 0


# ----------------------------------------------------------------------------- 004's restriction

ES_TABLE = [(1, "trio", "7C 7D 7S"), (1, "run", "4H 5H 6H 7H")]


def test_es_not_laid_down_may_not_discard_a_card_that_fits_the_table() -> None:
    g = make_game("continental_es", hands=["7H 3H 8H JK KS 2C", "2D 5C 9D"], table=ES_TABLE)
    assert legal_texts(g) == ["discard 2C", "discard KS"]
    with pytest.raises(ValueError, match="forbid discarding"):
        g.apply(g.action_from_str("discard 7H"))


def test_es_restriction_lifted_when_every_card_fits() -> None:
    g = make_game("continental_es", hands=["7H 3H 8H", "2D 5C 9D"], table=ES_TABLE)
    assert legal_texts(g) == ["discard 3H", "discard 7H", "discard 8H"]


def test_es_restriction_does_not_bind_a_player_who_has_laid_down() -> None:
    table = [*ES_TABLE, (0, "trio", "QC QD QH"), (0, "trio", "KC KD KH")]
    g = make_game("continental_es", hands=["7H 2C", "2D 5C 9D"], table=table, round_number=1)
    assert {"discard 7H", "discard 2C"} <= set(legal_texts(g))


@pytest.mark.parametrize("preset", ["continental", "continental_us"])
def test_no_discard_restriction_outside_es(preset: str) -> None:
    g = make_game(preset, hands=["7H 3H KS 2C", "2D 5C 9D"], table=ES_TABLE)
    assert {"discard 7H", "discard 3H", "discard KS", "discard 2C"} == set(legal_texts(g))


# ----------------------------------------------------------------------------- illegal actions


@pytest.mark.parametrize(
    ("phase", "text", "why"),
    [
        ("draw", "discard 2C", "only legal in the play phase"),
        ("draw", "claim", "only legal in the claim phase"),
        ("play", "take", "only legal in the draw phase"),
        ("play", "discard AS", "not in seat 0's hand"),
        ("play", "layoff 2C 0", "must lay down before layoff"),
        ("play", "laydown", "no 2 trio"),
        ("play", "close", "has not laid down"),
    ],
)
def test_illegal_action_raises_naming_the_action_and_why_state_unchanged(
    phase: str, text: str, why: str
) -> None:
    g = make_game(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H"],
        table=[(1, "trio", "7C 7D 7S"), (1, "trio", "QC QD QH")],
        laid_down=[False, True],
        discard="6C",
        phase=phase,
    )
    before = json.dumps(g.to_dict())
    action = g.action_from_str(text)
    with pytest.raises(ValueError) as err:
        g.apply(action)
    assert repr(text) in str(err.value) and why in str(err.value)
    assert json.dumps(g.to_dict()) == before


@pytest.mark.parametrize("action", [-1, 10**6, "draw", None, 2.5])
def test_action_that_is_no_id_raises_and_changes_nothing(action: object) -> None:
    g = Game.new("continental", 3, seed=1)
    before = json.dumps(g.to_dict())
    with pytest.raises(ValueError):
        g.apply(action)  # type: ignore[arg-type]
    assert json.dumps(g.to_dict()) == before


def test_no_action_after_the_game_is_over() -> None:
    g = make_game(
        PRESETS["continental"].with_rounds(1),
        hands=["2C", "2D 5S 9D"],
        table=[(0, "trio", "5C 5D 5H"), (0, "trio", "6C 6D 6H")],
    )
    act(g, "close")
    assert g.is_over and g.legal_actions() == [] and g.actor is None
    with pytest.raises(ValueError, match="the game is over"):
        g.apply(0)


# ----------------------------------------------------------------------------- action text


@pytest.mark.parametrize(
    "text",
    [
        "draw", "take", "claim", "pass", "laydown", "close", "discard JK", "discard TS",
        "layoff 9S 2", "layoff JK 0", "layoff JK 3 low", "layoff JK 3 high", "swap 5H 1",
        "movejoker 0 5 low", "movejoker 5 0 high",
    ],
)  # fmt: skip
def test_action_text_grammar_round_trips(text: str) -> None:
    g = Game.new("continental_us", 2, seed=0)
    assert g.action_to_str(g.action_from_str(text)) == text


@pytest.mark.parametrize(
    "text",
    ["", "fly", "draw now", "discard", "discard 1X", "layoff 9S", "layoff 9S 6",
     "layoff 9S 0 low", "layoff JK 0 middle", "swap JK 0", "movejoker 0 1", "layoff 9S x"],
)  # fmt: skip
def test_malformed_action_text_raises_value_error(text: str) -> None:
    g = Game.new("continental", 2, seed=0)
    with pytest.raises(ValueError):
        g.action_from_str(text)
