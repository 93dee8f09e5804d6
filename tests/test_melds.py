"""Meld validity (RULES.md 1.3) with card strings, one named edge case per test.

``is_valid_meld`` accepts a run's cards in any order (jokers fill the gaps); ``run_layout``
checks a run *in the order given*, which is how melds lie on the table. A Hypothesis test
compares both with the brute-force reference of ``reference.py``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import examples, ref_meld

from continental_env.cards import JOKER, make_card, parse_cards
from continental_env.melds import (
    HIGH,
    LOW,
    Meld,
    can_fit,
    fitting_cards,
    is_valid_meld,
    run_can_extend,
    run_layout,
    swap_targets,
)
from continental_env.rules import PRESETS

WRAP = ("continental", "continental_es")
ALL = ("continental", "continental_us", "continental_es")


def valid(kind: str, text: str, preset: str = "continental") -> bool:
    return is_valid_meld(kind, parse_cards(text), PRESETS[preset])


def ordered(text: str, preset: str = "continental") -> bool:
    return run_layout(parse_cards(text), PRESETS[preset]) is not None


# ----------------------------------------------------------------------------- trios


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("3C 3D 3H", id="three_suits"),
        pytest.param("3C 3C 3H", id="repeat_from_two_decks"),
        pytest.param("3C 3C 3C 3D", id="three_copies_from_three_decks"),
        pytest.param("AC AD AH AS AS", id="longer_than_three"),
        pytest.param("TC JK JK", id="two_jokers_one_natural_003"),
        pytest.param("JK 9S JK JK", id="three_jokers_one_natural"),
        pytest.param("KC JK KD JK", id="jokers_not_adjacent"),
    ],
)
def test_valid_trio(text: str, preset: str) -> None:
    assert valid("trio", text, preset)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("3C 3D", id="two_cards_too_short"),
        pytest.param("3C JK", id="one_natural_one_joker_too_short"),
        pytest.param("3C 3D 4H", id="mixed_ranks"),
        pytest.param("JK JK JK", id="jokers_only_need_a_natural"),
        pytest.param("3C JK 4C", id="joker_cannot_reconcile_two_ranks"),
        pytest.param("", id="empty"),
    ],
)
def test_invalid_trio(text: str) -> None:
    assert not valid("trio", text)


def test_unknown_meld_kind_raises() -> None:
    with pytest.raises(ValueError, match="trio"):
        is_valid_meld("set", parse_cards("3C 3D 3H"), PRESETS["continental"])


# ----------------------------------------------------------------------------- runs


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("4H 5H 6H 7H", id="minimum_four"),
        pytest.param("7H 4H 6H 5H", id="any_order_accepted"),
        pytest.param("4H JK 6H 7H", id="joker_fills_a_gap"),
        pytest.param("4H JK JK 7H", id="two_adjacent_jokers_fill_a_gap"),
        pytest.param("JK 5H JK 7H", id="jokers_not_adjacent"),
        pytest.param("4H 5H JK JK", id="jokers_extend_the_high_end"),
        pytest.param("JK JK 4H 5H", id="jokers_extend_the_low_end"),
        pytest.param("JK 4H 5H 6H JK", id="jokers_at_both_ends"),
        pytest.param("AS 2S 3S 4S", id="ace_low"),
        pytest.param("JS QS KS AS", id="ace_high"),
        pytest.param("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD", id="thirteen_ace_low"),
        pytest.param("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD", id="thirteen_ace_high"),
        pytest.param("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD JK", id="thirteen_with_joker_king"),
        pytest.param("KC JK JK JK", id="one_natural_three_jokers"),
    ],
)
def test_valid_run_in_every_preset(text: str, preset: str) -> None:
    assert valid("run", text, preset)


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("4H 5H 6H", id="three_cards_below_min_run"),
        pytest.param("4H 5H JK", id="three_with_joker_below_min_run"),
        pytest.param("4H 5H 6H 7S", id="two_suits"),
        pytest.param("4H 5H 5H 6H 7H", id="rank_twice_from_two_decks"),
        pytest.param("4H 5H 6H 8H", id="gap_without_joker"),
        pytest.param("4H 5H 6H 9H JK", id="gap_of_two_one_joker"),
        pytest.param("JK JK JK JK", id="jokers_only_need_a_natural"),
        pytest.param("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD JK", id="fourteen_over_max"),
        pytest.param("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD", id="ace_at_both_ends"),
    ],
)
def test_invalid_run_in_every_preset(text: str, preset: str) -> None:
    assert not valid("run", text, preset)


@pytest.mark.parametrize("preset", WRAP)
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("QH KH AH 2H", id="ace_between_king_and_two"),
        pytest.param("KH AH 2H 3H", id="king_ace_two_three"),
        pytest.param("JK KH AH 2H", id="joker_queen_before_wrap"),
        pytest.param("5S 6S 7S 8S 9S TS JS QS KS AS 2S 3S 4S", id="full_cycle_from_five"),
    ],
)
def test_ace_wraparound_on_accepts_cyclic_runs(text: str, preset: str) -> None:
    assert valid("run", text, preset)
    assert ordered(text, preset)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("QH KH AH 2H", id="q_k_a_2_invalid"),
        pytest.param("KH AH 2H 3H", id="k_a_2_3_invalid"),
        pytest.param("KH JK 2H 3H", id="joker_as_ace_between_k_and_2_invalid"),
        pytest.param("QH KH AH 2H JK", id="q_k_a_2_plus_joker_invalid"),
    ],
)
def test_ace_wraparound_off_refuses_cyclic_runs_continental_us(text: str) -> None:
    assert not valid("run", text, "continental_us")
    assert not ordered(text, "continental_us")


def test_ace_wraparound_off_thirteen_cards_only_in_ace_low_or_high_order() -> None:
    # The same thirteen cards are a run A..K, but not laid out as the cycle 5..K A 2..4.
    assert not ordered("5S 6S 7S 8S 9S TS JS QS KS AS 2S 3S 4S", "continental_us")
    assert ordered("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", "continental_us")
    assert ordered("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", "continental_us")


def test_ace_wraparound_off_joker_below_ace_low_is_invalid_in_that_order() -> None:
    # JK A 2 3: the joker would stand for the king below a low ace.
    assert not ordered("JK AH 2H 3H", "continental_us")
    assert ordered("JK AH 2H 3H", "continental")
    # In any order the cards still make A 2 3 4 with the joker as the four.
    assert valid("run", "JK AH 2H 3H", "continental_us")


def test_ace_wraparound_off_joker_above_ace_high_is_invalid_in_that_order() -> None:
    # Q K A JK: the joker would stand for a two above a high ace.
    assert not ordered("QH KH AH JK", "continental_us")
    assert ordered("QH KH AH JK", "continental")
    assert ordered("JK QH KH AH", "continental_us")  # the joker as the jack
    assert valid("run", "QH KH AH JK", "continental_us")


def test_ace_wraparound_off_ace_high_run_cannot_grow_past_the_ace() -> None:
    rules = PRESETS["continental_us"]
    meld = Meld.build(0, "run", parse_cards("JS QS KS AS"), rules)
    assert not run_can_extend(meld, HIGH, rules)
    assert run_can_extend(meld, LOW, rules)
    assert fitting_cards(meld, rules) == sorted(parse_cards("TS JK"))


def test_ace_wraparound_off_ace_low_run_cannot_grow_below_the_ace() -> None:
    rules = PRESETS["continental_us"]
    meld = Meld.build(0, "run", parse_cards("AS 2S 3S 4S"), rules)
    assert not run_can_extend(meld, LOW, rules)
    assert fitting_cards(meld, rules) == sorted(parse_cards("5S JK"))


def test_ace_wraparound_on_ace_low_run_grows_with_a_king_below() -> None:
    rules = PRESETS["continental"]
    meld = Meld.build(0, "run", parse_cards("AS 2S 3S 4S"), rules)
    assert fitting_cards(meld, rules) == sorted(parse_cards("KS 5S JK"))


def test_run_of_thirteen_takes_no_more_cards_even_with_wraparound() -> None:
    rules = PRESETS["continental"]
    meld = Meld.build(0, "run", parse_cards("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"), rules)
    assert fitting_cards(meld, rules) == []
    assert not can_fit(meld, JOKER, rules)


def test_run_in_table_order_must_be_consecutive_as_given() -> None:
    assert valid("run", "7H 4H 6H 5H")
    assert not ordered("7H 4H 6H 5H")
    assert ordered("4H 5H 6H 7H")


def test_meld_build_refuses_an_invalid_meld_with_its_cards_in_the_message() -> None:
    with pytest.raises(ValueError, match="4H 5H 6H 8H"):
        Meld.build(0, "run", parse_cards("4H 5H 6H 8H"), PRESETS["continental"])
    with pytest.raises(ValueError, match="3C 4C 5C"):
        Meld.build(0, "trio", parse_cards("3C 4C 5C"), PRESETS["continental"])


def test_swap_targets_trio_any_suit_of_the_rank_run_the_represented_card() -> None:
    rules = PRESETS["continental"]
    trio = Meld.build(0, "trio", parse_cards("9C 9D JK"), rules)
    assert swap_targets(trio) == parse_cards("9C 9D 9H 9S")
    run = Meld.build(0, "run", parse_cards("4H JK 6H 7H JK"), rules)
    assert swap_targets(run) == parse_cards("5H 8H")
    assert swap_targets(Meld.build(0, "run", parse_cards("4H 5H 6H 7H"), rules)) == []


def test_trio_accepts_any_suit_of_its_rank_and_a_joker() -> None:
    rules = PRESETS["continental"]
    trio = Meld.build(1, "trio", parse_cards("QC QC QD"), rules)
    assert fitting_cards(trio, rules) == parse_cards("QC QD QH QS JK")
    assert not can_fit(trio, parse_cards("KC")[0], rules)


# ----------------------------------------------------------------------------- reference


def _card_pool(draw: st.DrawFn) -> list[int]:
    """A short list of cards likely to be nearly a meld: few suits, a window of ranks."""
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True))
    low = draw(st.integers(0, 12))
    width = draw(st.integers(1, 7))
    naturals = [make_card(s, (low + i) % 13) for s in suits for i in range(width)]
    card = st.sampled_from(naturals) | st.just(JOKER)
    return draw(st.lists(card, min_size=0, max_size=14))


@st.composite
def meld_cards(draw: st.DrawFn) -> list[int]:
    return _card_pool(draw)


@settings(max_examples=examples(800), deadline=None)
@given(cards=meld_cards(), preset=st.sampled_from(ALL), kind=st.sampled_from(["trio", "run"]))
def test_is_valid_meld_agrees_with_brute_force_reference(
    cards: list[int], preset: str, kind: str
) -> None:
    rules = PRESETS[preset]
    assert is_valid_meld(kind, cards, rules) == ref_meld(kind, cards, rules)


@settings(max_examples=examples(800), deadline=None)
@given(cards=meld_cards(), preset=st.sampled_from(ALL))
def test_run_layout_in_given_order_agrees_with_brute_force_reference(
    cards: list[int], preset: str
) -> None:
    rules = PRESETS[preset]
    layout = run_layout(cards, rules)
    assert (layout is not None) == ref_meld("run", cards, rules, ordered=True)
    if layout is not None:
        meld = Meld.build(0, "run", cards, rules)
        # every natural sits where the layout says it stands
        for i, c in enumerate(cards):
            if c != JOKER:
                assert meld.represented(i) == c
