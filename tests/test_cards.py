"""The card codec: ids, text notation, multiset counts (RULES.md 1.1)."""

from __future__ import annotations

import pytest

from continental_env.cards import (
    JOKER,
    NUM_TYPES,
    card_from_str,
    card_to_str,
    format_cards,
    from_counts,
    make_card,
    parse_cards,
    rank_of,
    suit_of,
    to_counts,
)


def test_every_card_id_round_trips_through_its_text() -> None:
    for card in range(NUM_TYPES):
        assert card_from_str(card_to_str(card)) == card


def test_text_notation_is_rank_then_suit_and_jk_for_the_joker() -> None:
    assert format_cards(parse_cards("7H TS AC JK KD 2C")) == "7H TS AC JK KD 2C"
    assert card_to_str(JOKER) == "JK"
    assert card_to_str(make_card(suit=2, rank=6)) == "7H"


def test_ranks_are_ordered_ace_low_to_king_and_suits_c_d_h_s() -> None:
    ranks = [rank_of(c) for c in parse_cards("AS 2S 9S TS JS QS KS")]
    assert ranks == [0, 1, 8, 9, 10, 11, 12]
    assert [suit_of(c) for c in parse_cards("5C 5D 5H 5S")] == [0, 1, 2, 3]


def test_lenient_spellings_are_accepted_at_the_edges() -> None:
    assert parse_cards("10h 7s, jk") == parse_cards("TH 7S JK")
    assert parse_cards(["QH", "kh"]) == parse_cards("QH KH")


@pytest.mark.parametrize("bad", ["1H", "7X", "", "JKR", "H7", "11S"])
def test_unknown_card_text_raises_a_value_error_naming_it(bad: str) -> None:
    with pytest.raises(ValueError, match="unknown card"):
        card_from_str(bad)


@pytest.mark.parametrize("bad", [-1, 53, 100])
def test_card_id_out_of_range_raises(bad: int) -> None:
    with pytest.raises(ValueError, match="out of range"):
        card_to_str(bad)


def test_counts_are_a_multiset_with_repeats_from_several_decks() -> None:
    hand = parse_cards("3C 3C JK 3H JK KS")
    counts = to_counts(hand)
    assert len(counts) == NUM_TYPES
    assert counts[card_from_str("3C")] == 2
    assert counts[JOKER] == 2
    assert sum(counts) == 6
    assert from_counts(counts) == sorted(hand)


def test_rank_cards_are_the_four_naturals_of_each_rank() -> None:
    from continental_env.cards import NUM_RANKS, RANK_CARDS, make_card, rank_of, suit_of

    assert len(RANK_CARDS) == NUM_RANKS
    for rank, cards in enumerate(RANK_CARDS):
        assert [rank_of(c) for c in cards] == [rank] * 4
        assert [suit_of(c) for c in cards] == [0, 1, 2, 3]
        assert cards == tuple(make_card(s, rank) for s in range(4))
    assert format_cards(RANK_CARDS[0]) == "AC AD AH AS"
