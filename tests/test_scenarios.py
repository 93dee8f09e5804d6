"""Scripted positions over several actions: claims and penalty cards, stock exhaustion, round
ends and scoring, deck schedules, dealers, table sizes and round subsets (RULES.md 1.2, 1.5-1.8).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from helpers import act, all_cards, deck_multiset, hand, legal_texts, make_game

from continental_env.cards import card_to_str, parse_cards
from continental_env.contract.game import Game
from continental_env.rules import PRESETS, cards_dealt, points_table

FOUR = [
    "2C 5D 9H KS 3C 4S 8D",
    "2D 5H 9S KC 3D 4C 8H",
    "2H 5S 9C KD 3H 4D 8S",
    "6C 6D 6H 6S TC TD TH",
]


def claim_game(**kw) -> Game:
    # Four seats, seat 1 in turn (seat 0 discarded the QH on top of the pile).
    kw.setdefault("hands", FOUR)
    return make_game(current=1, discard="7C QH", stock_top="AS KH", phase="draw", **kw)


def asked_order(g: Game) -> list[int]:
    """Seats asked, in order, when everyone passes."""
    order = []
    while g.phase == "claim":
        order.append(g.asked)
        act(g, "pass")
    return order


# ----------------------------------------------------------------------------- claims


def test_claim_order_starts_after_the_player_in_turn_discarder_last() -> None:
    g = claim_game()
    act(g, "draw")
    assert g.phase == "claim" and g.actor == 2
    assert legal_texts(g) == ["claim", "pass"]
    assert asked_order(g) == [2, 3, 0]
    # Everybody passed: seat 1 draws the stock's top card, the QH stays on the pile.
    assert g.phase == "play" and g.current == 1
    assert "AS" in hand(g, 1)
    assert g.discard[-1] == parse_cards("QH")[0]


def test_first_claimer_takes_the_discard_and_a_penalty_card_nobody_after_is_asked() -> None:
    g = claim_game()
    act(g, "draw", "pass")  # seat 2 passes
    assert g.asked == 3
    act(g, "claim")  # seat 3 claims; seat 0 is never asked
    assert len(hand(g, 3)) == 9  # hand grows by two: QH and the penalty AS
    assert {"QH", "AS"} <= set(hand(g, 3))
    assert g.claims == [0, 0, 0, 1]
    # then the player in turn draws from the stock (the next card, KH)
    assert (g.phase, g.current) == ("play", 1)
    assert "KH" in hand(g, 1) and len(hand(g, 1)) == 8
    assert g.discard[-1] == parse_cards("7C")[0]
    # the claimed card is public, the penalty card is not
    assert g.known[3][parse_cards("QH")[0]] == 1 and g.known[3][parse_cards("AS")[0]] == 0


def test_claim_by_the_discarder_is_allowed_last() -> None:
    g = claim_game()
    act(g, "draw", "pass", "pass")
    assert g.asked == 0
    act(g, "claim")
    assert {"QH", "AS"} <= set(hand(g, 0))


def test_only_players_not_laid_down_are_asked() -> None:
    hands = ["2C 5D 9H", *FOUR[1:3], "TC TD"]
    table = [(0, "trio", "6C 6D 6H"), (0, "trio", "JC JD JH"), (3, "trio", "7D 7H 7S")]
    table.append((3, "trio", "QC QD QS"))
    g = claim_game(hands=hands, table=table)
    act(g, "draw")
    assert asked_order(g) == [2]


def test_claims_after_laydown_asks_everyone() -> None:
    rules = replace(PRESETS["continental"], claims_after_laydown=True)
    hands = ["2C 5D 9H", *FOUR[1:3], "TC TD"]
    table = [(0, "trio", "6C 6D 6H"), (0, "trio", "JC JD JH"), (3, "trio", "7D 7H 7S")]
    table.append((3, "trio", "QC QD QS"))
    g = make_game(
        rules, hands=hands, table=table, current=1, discard="7C QH", stock_top="AS", phase="draw"
    )
    act(g, "draw")
    assert asked_order(g) == [2, 3, 0]


def test_max_claims_per_round_skips_a_seat_at_the_cap() -> None:
    rules = replace(PRESETS["continental"], max_claims_per_round=1)
    g = make_game(
        rules,
        hands=FOUR,
        current=1,
        discard="7C QH",
        stock_top="AS",
        phase="draw",
        claims=[0, 0, 1, 0],
    )
    act(g, "draw")
    assert asked_order(g) == [3, 0]


def test_nobody_asked_draw_goes_straight_to_the_stock() -> None:
    hands = ["2C 5D 9H", "2D 5H 9S KC 3D 4C 8H"]
    g = make_game(
        hands=hands,
        table=[(0, "trio", "6C 6D 6H"), (0, "trio", "JC JD JH")],
        current=1,
        discard="QH",
        stock_top="AS",
        phase="draw",
    )
    act(g, "draw")
    assert g.phase == "play" and "AS" in hand(g, 1)


def test_opening_up_card_can_be_claimed() -> None:
    g = Game.new("continental", 3, seed=11)
    up = g.discard[-1]
    first = g.current
    assert len(g.discard) == 1
    act(g, "draw")
    assert g.phase == "claim" and g.asked == (first + 1) % 3
    act(g, "claim")
    claimant = (first + 1) % 3
    assert g.hands[claimant][up] >= 1 and g.hand_sizes[claimant] == cards_dealt(1) + 2
    assert g.hand_sizes[first] == cards_dealt(1) + 1
    assert g.discard == []


def test_take_does_not_open_a_claim_window() -> None:
    g = claim_game()
    act(g, "take")
    assert g.phase == "play" and g.asked is None


# ----------------------------------------------------------------------------- stock exhaustion


def test_empty_stock_is_reformed_from_the_discard_pile_minus_its_top() -> None:
    # Two seats, seat 1 laid down (nobody to ask); the stock is empty, the pile holds the rest.
    g = make_game(
        hands=["2C 5D 9H KS 3C 4S 8D", "2D"],
        table=[(1, "trio", "6C 6D 6H"), (1, "trio", "JC JD JH")],
        discard="QH",
        rest_to="discard",
        phase="draw",
    )
    pile = len(g.discard)
    assert g.stock == []
    act(g, "draw")
    assert g.discard == parse_cards("QH")
    assert len(g.stock) == pile - 2  # pile minus the top, minus the card just drawn
    assert len(hand(g, 0)) == 8
    assert all_cards(g) == deck_multiset(g.rules, 2, 1)


def test_round_ends_with_no_closer_when_no_card_is_left_to_draw() -> None:
    # Stock empty and only the top card on the pile: a draw ends the round, everyone scores.
    rest = deck_multiset(PRESETS["continental"], 2, 1)
    hand0 = "2C 5D 9H KS 3C 4S 8D"
    rest.subtract(parse_cards(hand0 + " QH"))
    hand1 = " ".join(card_to_str(c) for c in sorted(rest.elements()))
    g = make_game(hands=[hand0, hand1], discard="QH", phase="draw")
    assert g.stock == []
    act(g, "draw")
    assert g.phase == "claim"  # seat 1 may still claim the QH
    act(g, "pass")
    last = g.round_history[-1]
    assert last["closer"] is None
    pts = points_table(PRESETS["continental"])
    assert last["points"][0] == sum(pts[c] for c in parse_cards(hand0))
    assert last["points"][1] == sum(pts[c] for c in parse_cards(hand1))
    assert g.round == 2


def test_penalty_card_is_not_given_when_the_stock_cannot_be_reformed() -> None:
    rest = deck_multiset(PRESETS["continental"], 2, 1)
    hand0 = "2C 5D 9H KS 3C 4S 8D"
    rest.subtract(parse_cards(hand0 + " QH"))
    hand1 = " ".join(card_to_str(c) for c in sorted(rest.elements()))
    g = make_game(hands=[hand0, hand1], discard="QH", phase="draw")
    act(g, "draw", "claim")
    last = g.round_history[-1]
    assert last["closer"] is None  # seat 0 could not draw: the round ended
    pts = points_table(PRESETS["continental"])
    # seat 1 got the QH but no penalty card (there was none)
    assert last["points"][1] == sum(pts[c] for c in parse_cards(hand1 + " QH"))


def test_max_turns_per_round_ends_the_round_with_no_closer() -> None:
    rules = replace(PRESETS["continental"], max_turns_per_round=3)
    g = Game.new(rules, 2, seed=5)
    rng = random.Random(5)
    while len(g.round_history) == 0:
        legal = g.legal_actions()
        # never lay down or close, so only the turn limit can end the round
        legal = [a for a in legal if g.action_to_str(a) not in ("laydown", "close")] or legal
        g.apply(rng.choice(legal))
    assert g.round_history[0]["closer"] is None
    assert g.round_history[0]["turns"] == 3


# ----------------------------------------------------------------------------- deal and schedule


@pytest.mark.parametrize(
    ("preset", "players", "decks"),
    [
        ("continental", 2, [2] * 7),
        ("continental", 4, [2] * 7),
        ("continental", 5, [3] * 7),
        ("continental", 8, [3] * 7),
        ("continental_us", 2, [2] * 7),
        ("continental_us", 6, [2] * 7),
        ("continental_es", 2, [2] * 7),
        ("continental_es", 3, [2] * 7),
        ("continental_es", 4, [2, 2, 2, 2, 3, 3, 3]),
        ("continental_es", 5, [2, 2, 3, 3, 4, 4, 4]),
        ("continental_es", 8, [2, 2, 3, 3, 4, 4, 4]),
    ],
)
def test_deck_schedule_per_preset_and_table_size(
    preset: str, players: int, decks: list[int]
) -> None:
    rules = PRESETS[preset]
    jokers = 1 if preset == "continental_us" else 2  # continental_us: 2 jokers in all (106)
    for round_number in range(1, 8):
        g = Game.new(rules.with_rounds(round_number), players, seed=round_number)
        total = all_cards(g)
        n = decks[round_number - 1]
        assert sum(total.values()) == 52 * n + jokers * n, (round_number, n)
        assert total[parse_cards("JK")[0]] == jokers * n
        assert all(total[c] == n for c in range(52))


@pytest.mark.parametrize("round_number", range(1, 8))
def test_deal_gives_six_plus_round_cards_and_turns_one_up_card(round_number: int) -> None:
    g = Game.new(PRESETS["continental"].with_rounds(round_number), 3, seed=2)
    assert g.hand_sizes == [6 + round_number] * 3
    assert len(g.discard) == 1
    assert g.phase == "draw" and g.current == (g.dealer + 1) % 3


def test_dealer_rotates_left_and_the_player_left_of_the_dealer_starts() -> None:
    rules = replace(PRESETS["continental"], max_turns_per_round=2)
    g = Game.new(rules, 3, seed=4)
    rng = random.Random(4)
    seen = []
    while not g.is_over:
        if g.phase == "draw" and g.turn == 0 and len(seen) == len(g.round_history):
            seen.append((g.round, g.dealer, g.current))
        g.apply(rng.choice(g.legal_actions()))
    assert [r for r, _d, _c in seen] == [1, 2, 3, 4, 5, 6, 7]
    assert [d for _r, d, _c in seen] == [0, 1, 2, 0, 1, 2, 0]
    assert [c for _r, _d, c in seen] == [1, 2, 0, 1, 2, 0, 1]


def test_same_seed_deals_the_same_cards_another_seed_does_not() -> None:
    a, b, c = (Game.new("continental", 4, seed=s) for s in (9, 9, 10))
    assert a.to_dict() == b.to_dict()
    assert a.to_dict()["hands"] != c.to_dict()["hands"]


@pytest.mark.parametrize(
    ("preset", "allowed"),
    [
        ("continental", range(2, 9)),
        ("continental_us", range(2, 7)),
        ("continental_es", range(2, 9)),
    ],
)
def test_table_sizes_each_preset_allows_and_refuses(preset: str, allowed: range) -> None:
    for players in allowed:
        assert Game.new(preset, players, seed=0).num_players == players
    for players in (0, 1, allowed.stop, 9):
        with pytest.raises(ValueError, match="allows"):
            Game.new(preset, players, seed=0)


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown preset"):
        Game.new("rummy", 2, seed=0)


def test_rounds_subset_plays_only_those_rounds_in_order() -> None:
    rules = replace(PRESETS["continental"].with_rounds((3, 5)), max_turns_per_round=4)
    g = Game.new(rules, 2, seed=3)
    assert g.round == 3 and g.hand_sizes == [9, 9]
    rng = random.Random(3)
    while not g.is_over:
        g.apply(rng.choice(g.legal_actions()))
    assert [r["round"] for r in g.round_history] == [3, 5]
    assert g.scores == [sum(r["points"][s] for r in g.round_history) for s in range(2)]


def test_fits_are_recomputed_for_a_new_round_with_an_empty_table() -> None:
    # Seat 0 closes round 1 with melds on the table; round 2 starts with nothing to lay off on.
    g = make_game(
        hands=["2C", "2D 5S 9D"], table=[(0, "trio", "5C 5D 5H"), (0, "trio", "6C 6D 6H")]
    )
    assert any(g.fitting_counts())
    act(g, "close")
    assert g.table == [] and not any(g.fitting_counts())


def test_winners_are_the_lowest_totals_ties_share() -> None:
    g = make_game(hands=["2C 3C", "2D 5S", "4H 4D"], scores=[30, 10, 10])
    assert g.winners() == [1, 2]


def test_a_rounds_deal_does_not_depend_on_how_earlier_rounds_were_played() -> None:
    # Same seed, different play in round 1 (one game re-forms its stock, the other closes
    # quickly): round 2 is dealt the identical cards, which duplicate evaluation relies on.
    rules = replace(PRESETS["continental"].with_rounds((1, 2)), max_turns_per_round=60)
    deals = []
    for policy_seed in (1, 2):
        g = Game.new(rules, 3, seed=11)
        rng = random.Random(policy_seed)
        while g.round == 1:
            g.apply(rng.choice(g.legal_actions()))
        state = g.to_dict()
        deals.append((state["hands"], state["stock"], state["discard"]))
    assert deals[0] == deals[1]


def test_a_float_action_is_refused_not_truncated() -> None:
    g = Game.new("continental", 2, seed=0)
    before = g.to_dict()
    with pytest.raises(ValueError, match="not an integer id"):
        g.apply(0.5)
    assert g.to_dict() == before
