"""Rule tables of the knock game (RULES.md Part 3), written with card strings.

Lays, deadwood and the announcement checks go through the one meld validator
(``continental_env.melds``), the deadwood solver also against a brute-force reference under
Hypothesis; the knock threshold, every bonus and who pays it into the pot, elimination,
buy-backs, the heads-up split, the re-formed stock, the safety caps and the dealer's rotation
go through the engine on hand-built positions (``knock_helpers``).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from knock_helpers import act, earlier_hand, knock_game, knock_state, legal_texts
from knock_reference import ref_deadwood, ref_is_lay
from reference import examples

from continental_env.cards import JOKER, format_cards, parse_cards, to_counts
from continental_env.knock.game import Game, bonus, buy_cost, jokers_for
from continental_env.melds import (
    best_lays,
    deadwood,
    deadwood_within,
    is_color,
    is_continental,
    is_lay,
    is_rummy,
)

# ----------------------------------------------------------------------------- 3.2 lays

LAYS = [
    ("7C 7D 7H", True, "three of a rank"),
    ("7C 7C 7D", True, "repeats allowed (two decks)"),
    ("7C 7D 7H 7S 7S JK", True, "a long set with a joker"),
    ("AH 2H 3H", True, "ace low"),
    ("QH KH AH", True, "ace high"),
    ("KH AH 2H", False, "never around the corner"),
    ("5C 7C JK", True, "a joker fills the gap"),
    ("5C JK JK", True, "one natural is enough"),
    ("JK JK JK", False, "a lay needs a natural"),
    ("5C 6C", False, "two cards are too few"),
    ("5C 6C 7D", False, "a run is one suit"),
    ("5C 5C 6C", False, "no rank twice in a run"),
    ("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD", True, "thirteen in a row"),
]


@pytest.mark.parametrize(("text", "valid", "why"), LAYS, ids=[t[2] for t in LAYS])
def test_lay_table(text: str, valid: bool, why: str) -> None:
    assert is_lay(parse_cards(text)) is valid, why
    assert ref_is_lay(parse_cards(text)) is valid  # the reference agrees


# ----------------------------------------------------------------------------- 3.2 deadwood

DEADWOOD = [
    # (hand, deadwood with aces 15, with aces 1)
    ("AH 2H 3H 5C 5D 5S 9C 9D 9H KS", 10, 10, "a king left over"),
    ("AH 2H 3H 5C 5D 5S 9C 9D 9H AS", 15, 1, "a stray ace: 15, or 1 for the knocker"),
    ("KH AH 2H", 27, 13, "no wraparound: all three are deadwood"),
    ("QH KH AH", 0, 0, "ace high"),
    ("JK JK JK", 60, 60, "jokers alone are 20 each"),
    ("5H 6H 7H JK", 0, 0, "a spare joker joins a lay"),
    ("5H JK", 25, 25, "5 + a joker: no lay"),
    ("2C 3C 4C 4D 4H", 5, 5, "the 4C goes to the set: 2C 3C left"),
    ("2C 3C 4C 4C 4D 4H", 0, 0, "two 4C: a run and a set"),
    ("7C 7C 8C 9C", 7, 7, "one 7C in the run, the other left"),
    ("TS JS QS KS AS 2S", 2, 2, "T-A high; the 2S cannot follow the ace"),
    ("JD QD KD KC KH AS AC", 50, 22, "the KD in the run or the set: 20 and two aces left"),
    ("AD 2D 3D 4D 5D 6D 7D 8D 9D TD", 0, 0, "ten in a row"),
    ("KC QD", 20, 20, "face cards count 10"),
]


@pytest.mark.parametrize(("text", "high", "low", "why"), DEADWOOD, ids=[t[3] for t in DEADWOOD])
def test_deadwood_table(text: str, high: int, low: int, why: str) -> None:
    counts = to_counts(parse_cards(text))
    assert deadwood(counts) == high, why
    assert deadwood(counts, 1) == low, why
    cost, lays = best_lays(counts)
    assert cost == high and all(is_lay(lay) for lay in lays)
    used = sorted(c for lay in lays for c in lay)
    assert all(used.count(c) <= counts[c] for c in set(used))


def test_aces_count_15_except_in_the_knockers_hand() -> None:
    counts = to_counts(parse_cards("AS AC AD 2H"))  # three aces make a set either way
    assert deadwood(counts) == 2 and deadwood(counts, 1) == 2
    counts = to_counts(parse_cards("AS AC 2H 9D"))
    assert deadwood(counts) == 15 + 15 + 2 + 9 and deadwood(counts, 1) == 1 + 1 + 2 + 9
    with pytest.raises(ValueError, match="ace=7"):
        deadwood(counts, 7)


@st.composite
def small_hands(draw: st.DrawFn) -> list[int]:
    """Up to 8 cards from few suits and ranks (so lays are common), up to 3 jokers."""
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True))
    ranks = draw(st.lists(st.integers(0, 12), min_size=1, max_size=5, unique=True))
    pool = [s * 13 + r for s in suits for r in ranks] * 2 + [JOKER] * 3
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=8, unique=True))
    return [pool[i] for i in picks]


@settings(max_examples=examples(400), deadline=None)
@given(hand=small_hands(), ace=st.sampled_from([15, 1]))
def test_deadwood_solver_matches_the_brute_force_reference(hand: list[int], ace: int) -> None:
    counts = to_counts(hand)
    want = ref_deadwood(hand, ace)
    assert deadwood(counts, ace) == want, format_cards(sorted(hand))
    cost, lays = best_lays(counts, ace)
    assert cost == want and all(is_lay(lay) for lay in lays)
    for budget in (0, 5, want):
        assert deadwood_within(counts, budget, ace) is (want <= budget)
    assert is_rummy(counts) is (want == 0 and bool(hand))


# ----------------------------------------------------------------------------- 3.3 announcements

KNOCK5 = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"  # deadwood 5 with aces 1 (33 with aces 15)
KNOCK6 = "2H 3H 4H 5H 6C 6D 6S AS 3C 2D"  # 6 with aces 1
RUMMY = "AH 2H 3H 5C 5D 5S 9C 9D 9H 9S"
RUMMY_3J = "AH 2H JK 5C 5D JK 9C 9D JK 9S"
RUMMY_2J = "AH 2H JK 5C 5D JK 9C 9D 9H 9S"
COLOR = "AH 3H 5H 7H 9H JH KH 2H 4H 6H"
STRAIGHT = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH"
# Hands without a lay: deadwood 78, 72, 71 (aces 15).
LOOSE1 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"
LOOSE2 = "2C 4D 6S 8H TD QC AH 3S 5C 9D"
LOOSE3 = "KS KH 7S 7H 4C 4H 2S 8C JC 9C"

ANNOUNCE = [
    (RUMMY, "rummy", True, "every card in a lay"),
    ("AH 2H 3H 5C 5D 5S 9C 9D 9H KS", "rummy", False, "a card left over"),
    (RUMMY_3J, "rummy", True, "jokers in the lays"),
    ("KH AH 2H 5C 5D 5S 9C 9D 9H 9S", "rummy", False, "K A 2 is no lay"),
    (COLOR, "color", True, "all hearts"),
    ("AH 3H 5H 7H 9H JH KH 2H 4H JK", "color", True, "a joker counts as the suit"),
    ("AH 3H 5H 7H 9H JH KH 2H 4H 6S", "color", False, "one spade"),
    (STRAIGHT, "continental", True, "a 10-card straight flush"),
    ("5H 6H 7H 8H 9H TH JH QH KH AH", "continental", True, "ending with the ace high"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H JK", "continental", True, "a joker in the straight"),
    ("JH QH KH AH 2H 3H 4H 5H 6H 7H", "continental", False, "no wraparound"),
    ("7C 7C 7D 7D 7H 7H 7S 7S JK JK", "continental", True, "10 of a rank with 2 jokers"),
    ("7C 7C 7D 7D 7H 7S 7S JK JK JK", "continental", True, "10 of a rank with 3 jokers"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H KS", "continental", False, "a card of another suit"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H", "continental", False, "nine cards"),
]
CHECKS = {"rummy": is_rummy, "color": is_color, "continental": is_continental}


@pytest.mark.parametrize(("text", "kind", "ok", "why"), ANNOUNCE, ids=[t[3] for t in ANNOUNCE])
def test_announcement_table(text: str, kind: str, ok: bool, why: str) -> None:
    assert CHECKS[kind](to_counts(parse_cards(text))) is ok, why


def test_knock_threshold_is_deadwood_5_with_aces_counting_1() -> None:
    assert deadwood(to_counts(parse_cards(KNOCK5)), 1) == 5
    assert deadwood(to_counts(parse_cards(KNOCK6)), 1) == 6
    g = knock_game(hands=[KNOCK5, LOOSE1], current=0)
    assert legal_texts(g) == ["draw", "knock"]  # announcing on the first turn is allowed
    g = knock_game(hands=[KNOCK6, LOOSE1], current=0)
    assert legal_texts(g) == ["draw"]
    with pytest.raises(ValueError, match=r"'knock'.*deadwood \(aces 1\) is 6, over 5"):
        act(g, "knock")


def test_knocking_is_only_at_the_start_of_a_turn() -> None:
    g = knock_game(hands=[KNOCK5, LOOSE1], stock_top="KD", current=0)
    act(g, "draw")
    assert "knock" not in legal_texts(g)
    with pytest.raises(ValueError, match="only legal at the start of a turn"):
        act(g, "knock")


def test_announcing_after_drawing_with_a_discard() -> None:
    g = knock_game(hands=["AH 2H 3H 5C 5D 5S 9C 9D 9H KS", LOOSE1], stock_top="9S")
    act(g, "draw")
    texts = legal_texts(g)
    assert "rummy KS" in texts and "rummy 9S" not in texts
    act(g, "rummy KS")
    record = g.hand_history[-1]
    assert record["end"] == "rummy" and record["discarded"] == "KS"
    assert record["points"] == [-10, 78] and g.scores == [-10, 78]


# ----------------------------------------------------------------------------- 3.4 scoring

FOUR = [KNOCK5, LOOSE1, LOOSE2, LOOSE3]


def test_knock_scores_and_the_bonus_paid_into_the_pot_by_the_most_points() -> None:
    g = knock_game(hands=FOUR, current=0)
    act(g, "knock")
    record = g.hand_history[-1]
    assert record["deadwood"] == [5, 78, 72, 71] and record["points"] == [5, 78, 72, 71]
    assert record["bonus"] == 10 and record["pot_payer"] == 1  # 78 is the most points
    assert record["chips"] == [20, -10, -10, -10]
    assert g.chips == [-30, -60, -60, -60] and g.pot == 210  # 4 antes + seat 1's bonus
    assert sum(g.chips) + g.pot == 0
    assert g.scores == [5, 78, 72, 71] and g.hand_index == 1 and g.dealer == 1


LOOSE78 = "KS KH 7S 7H 4C 4H 9S 8C JC 9C"  # no lay, 78 like LOOSE1


@pytest.mark.parametrize(
    ("hands", "announcer", "payer"),
    [
        ([KNOCK5, LOOSE1, LOOSE2, LOOSE78], 0, 3),  # 78, 72, 78 in turn order 1, 2, 3
        ([LOOSE78, LOOSE1, KNOCK5, LOOSE2], 2, 1),  # 72, 78, 78 in turn order 3, 0, 1
    ],
)
def test_equal_most_points_the_latest_in_turn_order_after_the_announcer_pays_the_pot(
    hands: list[str], announcer: int, payer: int
) -> None:
    g = knock_game(hands=hands, current=announcer, dealer=(announcer - 1) % 4)
    act(g, "knock")
    record = g.hand_history[-1]
    assert sorted(record["points"]) == [5, 72, 78, 78]
    assert record["pot_payer"] == payer
    assert record["chips"][payer] == -10 and record["chips"][announcer] == 20


@pytest.mark.parametrize(
    ("hand", "word", "points", "each"),
    [
        (RUMMY, "rummy", -10, 20),
        (RUMMY_2J, "rummy", -10, 20),
        (RUMMY_3J, "rummy", -10, 20 + 3 * 10),  # 3 jokers: a knock bonus per joker
        (COLOR, "color", -25, 40),
    ],
)
def test_rummy_and_color_points_and_bonuses(hand: str, word: str, points: int, each: int) -> None:
    g = knock_game(hands=[hand, LOOSE1, LOOSE2, LOOSE3], current=0)
    act(g, word)
    record = g.hand_history[-1]
    assert record["points"] == [points, 78, 72, 71] and record["bonus"] == each
    assert record["chips"] == [2 * each, -each, -each, -each]
    assert g.pot == 200 + each


def test_bonus_amounts_scale_with_the_stake() -> None:
    assert [bonus(k, 50) for k in ("knock", "rummy", "color")] == [10, 20, 40]
    assert [bonus(k, 100) for k in ("knock", "rummy", "color")] == [20, 40, 80]
    assert bonus("rummy", 50, jokers=4) == 20 + 40 and bonus("rummy", 50, jokers=2) == 20
    with pytest.raises(ValueError, match="multiple of 5"):
        Game.new(num_players=2, stake=12)


def test_continental_ends_the_game_and_wins_the_whole_pot_without_bonuses() -> None:
    g = knock_game(hands=[STRAIGHT, LOOSE1, LOOSE2, LOOSE3], current=0)
    assert "continental" in legal_texts(g)
    act(g, "continental")
    assert g.is_over and g.winners() == [0] and g.result["end"] == "continental"
    assert g.chips == [150, -50, -50, -50] and g.pot == 0
    assert g.hand_history[-1]["bonus"] == 0 and legal_texts(g) == []


def test_continental_after_drawing() -> None:
    g = knock_game(hands=["AH 2H 3H 4H 5H 6H 7H 8H 9H KS", LOOSE1], stock_top="TH")
    act(g, "draw")
    assert "continental KS" in legal_texts(g)
    act(g, "continental KS")
    assert g.is_over and g.chips == [50, -50]


# ----------------------------------------------------------------------------- 3.5 the end


def test_a_total_over_100_is_eliminated_and_the_deal_passes_among_players_still_in() -> None:
    g = knock_game(hands=FOUR, current=0, scores=[0, 30, 0, 0])
    act(g, "knock")  # seat 1: 30 + 78 = 108
    assert g.in_game == [True, False, True, True] and g.hand_history[-1]["eliminated"] == [1]
    assert g.dealer == 2 and g.current == 3  # seat 1 would have dealt: it is out
    assert g.hands[1] == [0] * 53 and sum(g.hands[3]) == 10
    # Eliminated players pay no more bonuses: seat 3 knocks next.
    state = g.to_dict()
    assert state["phase"] == "draw"


def test_eliminated_seats_pay_no_bonus() -> None:
    g = knock_game(hands=[KNOCK5, None, LOOSE2, LOOSE3], current=0, scores=[0, 120, 0, 0])
    act(g, "knock")
    record = g.hand_history[-1]
    assert record["players"] == [0, 2, 3] and record["chips"][1] == 0
    assert record["pot_payer"] == 2 and record["chips"] == [10, 0, -10, -10]


def test_buy_back_to_the_second_lowest_total_in_seat_order_with_doubling_costs() -> None:
    g = knock_game(hands=FOUR, current=0, scores=[0, 0, 20, 10], buys=[0, 0, 0, 1])
    act(g, "knock")  # totals 5, 78, 92, 81
    assert g.phase == "buy" and g.buyers == [2, 3] and g.current == 2
    assert legal_texts(g) == ["buy", "pass"] and g.buy_back_total(2) == 78
    pot = g.pot
    act(g, "buy")  # seat 2: the others are at 5, 78, 81 -> 78, for S
    assert g.scores[2] == 78 and g.buys[2] == 1 and g.pot == pot + 50
    assert g.current == 3 and g.buy_back_total(3) == 78
    act(g, "buy")  # seat 3's second buy-back costs 2S
    assert g.scores[3] == 78 and g.pot == pot + 50 + 100 and g.buys[3] == 2
    assert [b["cost"] for b in g.hand_history[-1]["buys"]] == [50, 100]
    assert g.phase == "draw" and g.hand_index == 1  # the next hand is dealt
    assert sum(g.chips) + g.pot == 0
    assert [buy_cost(50, k) for k in range(4)] == [50, 100, 200, 400]


def test_pass_keeps_the_total() -> None:
    g = knock_game(hands=FOUR, current=0, scores=[0, 0, 20, 10])
    act(g, "knock")
    act(g, "pass")
    act(g, "pass")
    assert g.scores == [5, 78, 92, 81] and g.pot == 210 and g.phase == "draw"


def test_no_buy_back_heads_up_at_80_or_less_or_when_it_would_not_lower_the_total() -> None:
    # Three players, one eliminated: the two left are heads-up, so no buy-back.
    g = knock_game(hands=[KNOCK5, LOOSE1, LOOSE2], current=0, scores=[0, 30, 15])
    act(g, "knock")  # 5, 108 (out), 87
    assert g.in_game == [True, False, True] and g.phase == "draw"
    # 81 with the others at 5 and 78: offered. 80: not offered.
    g = knock_game(hands=FOUR, current=0, scores=[0, 0, 8, 9])
    act(g, "knock")  # 5, 78, 80, 80
    assert g.phase == "draw" and g.scores == [5, 78, 80, 80]
    # Over 80 but the second-lowest of the others is higher: no buy-back offered.
    g = knock_game(hands=FOUR, current=0, scores=[0, 20, 12, 10])
    act(g, "knock")  # 5, 98, 84, 81: seat 3's others 5, 84, 98 -> 84 is higher
    assert g.buyers == [1, 2]


def test_heads_up_within_10_points_split_the_pot() -> None:
    g = knock_game(hands=[KNOCK5, LOOSE2], current=0, scores=[60, 0])
    act(g, "knock")  # 65 and 72; heads-up the bonus goes to the pot
    record = g.hand_history[-1]
    assert record["pot_payer"] == 1
    assert g.is_over and g.result["end"] == "split" and g.winners() == [0, 1]
    assert g.chips == [-50 + 55, -50 - 10 + 55] and g.pot == 0
    assert record["chips"] == [55, -10 + 55]  # a hand's chips include the pot it ends with


def test_odd_chips_of_a_split_go_in_seat_order() -> None:
    g = knock_game(hands=[KNOCK5, LOOSE2], current=0, scores=[60, 0], options={"stake": 5})
    act(g, "knock")  # pot 10 + 1 = 11
    assert g.result["pot"] == 11 and g.chips == [-5 + 6, -5 - 1 + 5]


def test_heads_up_not_within_10_plays_on_and_the_last_player_wins_the_pot() -> None:
    g = knock_game(hands=[KNOCK5, LOOSE2], current=0)
    act(g, "knock")
    assert not g.is_over and g.scores == [5, 72]
    g = knock_game(hands=[KNOCK5, LOOSE2], current=0, scores=[0, 40])
    act(g, "knock")  # 112: out
    assert g.is_over and g.result["end"] == "last_player" and g.winners() == [0]
    assert g.chips == [-50 + 110, -60]


def test_a_hand_that_puts_everyone_left_over_100_goes_to_the_lowest_total() -> None:
    g = knock_game(
        hands=[LOOSE1, LOOSE2], current=0, scores=[90, 95], options={"max_turns_per_hand": 1}
    )
    act(g, "draw")
    act(g, "discard KC")  # the turn limit: no announcer
    assert g.hand_history[-1]["end"] == "turn_limit"
    assert all(s > 100 for s in g.scores) and g.is_over and g.result["end"] == "last_player"
    assert g.winners() == [min(range(2), key=lambda s: g.scores[s])]


def test_turn_limit_ends_the_hand_with_deadwood_and_no_bonus() -> None:
    g = knock_game(hands=FOUR, current=0, stock_top="KD QH", options={"max_turns_per_hand": 2})
    act(g, "draw")
    act(g, "discard KD")
    act(g, "draw")
    act(g, "discard QH")
    record = g.hand_history[-1]
    assert record["end"] == "turn_limit" and record["announcer"] is None
    assert record["points"] == record["deadwood"] == [33, 78, 72, 71]  # aces 15 for all
    assert record["chips"] == [0, 0, 0, 0]
    assert g.pot == 200 and g.hand_index == 1


def test_an_empty_stock_is_re_formed_from_the_discards_under_the_top_card() -> None:
    g = knock_game(hands=FOUR, current=0, discard="9S 8S", rest_to="discard")
    assert g.stock == [] and len(g.discard) == 108 - 40
    act(g, "draw")
    assert len(g.stock) == 108 - 40 - 2 and g.discard == parse_cards("8S")
    # The stock can always be re-formed: at most 60 of the 108 cards are ever in hands.
    assert 108 - 6 * 10 - 1 > 0


def test_the_hands_cap_ends_the_game_with_the_lowest_total_winning_the_pot() -> None:
    g = knock_game(hands=FOUR, current=0, options={"max_hands": 1})
    act(g, "knock")
    assert g.is_over and g.result == {"end": "max_hands", "winners": [0], "pot": 210}


def test_jokers_by_table_size_and_the_first_deal() -> None:
    assert [jokers_for(p) for p in range(2, 7)] == [4, 4, 4, 5, 6]
    g = Game.new(num_players=5, seed=3)
    assert g.dealer == 0 and g.current == 1 and g.discard == []  # no up-card
    assert [g.hand_size(s) for s in range(5)] == [10] * 5
    assert len(g.stock) == 104 + 5 - 50 and g.pot == 250 and g.chips == [-50] * 5


def test_state_helper_conserves_cards() -> None:
    data = knock_state(hands=FOUR)
    assert len(data["stock"]) == 108 - 40


def test_the_buy_phase_reloads_from_json_and_renders_the_offer() -> None:
    import json

    from continental_env.knock.render import render_table

    # The totals come from an earlier hand: a saved game's totals add up to its hand history.
    data = knock_state(hands=FOUR, current=0, dealer=0, hand_index=1, scores=[0, 0, 20, 10])
    data["hand_history"] = [earlier_hand([0, 0, 20, 10])]
    g = Game.from_dict(data)
    act(g, "knock")
    back = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back.to_dict() == g.to_dict() and back.legal_actions() == g.legal_actions()
    text = render_table(g, seat=2)
    assert (
        "player_2 in turn (buy or pass)" in text and "Buy back to 78 points for 50 chips?" in text
    )
    assert "player_0 announces knock" in text and "pays it to the pot" in text
    data = g.to_dict()
    data["buyers"] = [1]
    with pytest.raises(ValueError, match="'buyers'"):
        Game.from_dict(data)
