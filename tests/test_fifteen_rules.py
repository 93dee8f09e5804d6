"""Rule tables of the fifteen-card game (RULES.md Part 2), written with card strings.

Sequences and going-out shapes go through the one meld validator (``continental_env.melds``);
every payment item, the first-turn bonuses, stock exhaustion, the safety caps and the end of the
game go through the engine on hand-built positions (``fifteen_helpers``).
"""

from __future__ import annotations

import random

import pytest
from fifteen_helpers import act, fifteen_game, legal_texts

from continental_env.cards import JOKER, format_cards, parse_cards, to_counts
from continental_env.fifteen.game import Game, decks_for, payment
from continental_env.melds import (
    GOING_OUT_SHAPES,
    SEQUENCE_RULES,
    can_go_out,
    going_out,
    going_out_discards,
    is_sequence,
    run_layout,
    sequence_spans,
)

# ----------------------------------------------------------------------------- 2.2 sequences

SEQUENCES = [
    ("AH 2H 3H", True, "ace low"),
    ("QH KH AH", True, "ace high"),
    ("KH AH 2H", False, "no around-the-corner sequence"),
    ("JH QH KH AH 2H", False, "no around-the-corner sequence of five"),
    ("TS JS QS KS AS", True, "five cards ending with the ace high"),
    ("5C 6C 7C 8C", True, "four cards"),
    ("5C 6C 7C 8C 9C", True, "five cards"),
    ("4C 5C 6C 7C 8C 9C", False, "six cards is too long"),
    ("5C 6C", False, "two cards is too short"),
    ("5C 6C 7D", False, "one suit only"),
    ("5C 5C 6C", False, "no rank twice"),
    ("5C 7C JK", True, "a joker fills the gap"),
    ("JK 9D JK", True, "two jokers and one natural"),
    ("JK JK JK", False, "a sequence needs a natural card"),
    ("7H 5H 6H", True, "any order"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH", False, "12 cards is not one sequence"),
]


@pytest.mark.parametrize(("text", "valid", "why"), SEQUENCES, ids=[s[2] for s in SEQUENCES])
def test_sequence_table(text: str, valid: bool, why: str) -> None:
    assert is_sequence(parse_cards(text)) is valid, why


def test_sequences_are_the_contract_games_runs_without_wraparound() -> None:
    assert SEQUENCE_RULES.min_run == 3 and not SEQUENCE_RULES.ace_wraparound
    assert run_layout(parse_cards("QH KH AH"), SEQUENCE_RULES) is not None
    assert run_layout(parse_cards("KH AH 2H"), SEQUENCE_RULES) is None


# ----------------------------------------------------------------------------- 2.2 going out

GOING_OUT = [
    ("AH 2H 3H 4C 5C 6C 7D 8D 9D TS JS QS QH KH AH", True, "3+3+3+3+3"),
    ("AH 2H 3H 4H 5C 6C 7C 8C 7D 8D 9D TD 9S TS JS", True, "4+4+4+3"),
    ("AH 2H 3H 4H 5H 5C 6C 7C 8C 7D 8D 9D 9S TS JS", True, "5+4+3+3"),
    ("AH 2H 3H 4H 5H 6S 7S 8S 9S TS 9C TC JC QC KC", False, "5+5+5 is not a shape"),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH 5C 6C 7C", True, "12 in a row + 3 goes out as 4+4+4+3"),
    ("KH AH 2H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC", False, "K A 2 is no sequence"),
    ("QH KH AH 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC", True, "Q K A is"),
    ("AH 2H JK 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC", True, "a joker completes a sequence"),
    ("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC 2D", False, "a stray card"),
    ("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC", False, "14 cards"),
    ("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC KS", False, "16 cards"),
    ("AH AH 2H 2H 3H 3H 4C 5C 6C 7D 8D 9D 9C TC JC", True, "two sequences of one suit"),
]


@pytest.mark.parametrize(("text", "goes", "why"), GOING_OUT, ids=[g[2] for g in GOING_OUT])
def test_going_out_table(text: str, goes: bool, why: str) -> None:
    counts = to_counts(parse_cards(text))
    assert can_go_out(counts) is goes, why
    arrangement = going_out(counts)
    assert (arrangement is not None) is goes
    if arrangement is not None:
        assert sorted(len(s) for s in arrangement) in ([3] * 5, [3, 4, 4, 4], [3, 3, 4, 5])
        assert sorted(c for s in arrangement for c in s) == sorted(parse_cards(text))
        for seq in arrangement:  # each in sequence order, as the validator reads it
            assert run_layout(seq, SEQUENCE_RULES) is not None, format_cards(seq)


def test_going_out_discards_names_exactly_the_cards_whose_discard_goes_out() -> None:
    hand = to_counts(parse_cards("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC KD"))
    assert going_out_discards(hand) == parse_cards("KD")
    hand = to_counts(parse_cards("AH 2H 3H 4H 5C 6C 7C 8C 7D 8D 9D TD 9S TS JS QS"))
    # Four runs of four: shedding an end card of any one leaves 4+4+4+3; a middle card splits a
    # run into pieces too short.
    got = {format_cards([c]) for c in going_out_discards(hand)}
    assert got == {"AH", "4H", "5C", "8C", "7D", "TD", "9S", "QS"}


# ----------------------------------------------------------------------------- 2.4 payments

PAYMENTS = [
    # (15 cards, first turn, drew, expected items)
    ("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC", False, True,
     {"win": 1, "no_joker": 10, "total": 11}),
    ("AH 2H JK 4C 5C 6C 7D 8D 9D 4S JK 6S 9C TC JC", False, True,
     {"win": 1, "jokers": 4, "total": 5}),
    ("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC", True, True,
     {"win": 1, "first_turn": 7, "no_joker": 10, "total": 18}),
    ("AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC", True, False,
     {"win": 1, "dealt": 10, "no_joker": 10, "total": 21}),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH JK", False, True,
     {"win": 1, "jokers": 2, "one_suit": 10, "total": 13}),
    ("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH 2H", True, False,
     {"win": 1, "dealt": 10, "no_joker": 10, "one_suit": 10, "total": 31}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "first", "drew", "want"), PAYMENTS)
def test_payment_table(text: str, first: bool, drew: bool, want: dict[str, int]) -> None:
    got = payment(parse_cards(text), first_turn=first, drew=drew)
    assert {k: v for k, v in got.items() if v} == want
    assert not (got["first_turn"] and got["dealt"])  # 7 or 10, never both


# ----------------------------------------------------------------------------- engine positions

OUT_HAND = "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC"  # 3+3+3+3+3, no joker
OTHER = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"  # goes nowhere


def test_out_without_drawing_on_the_first_turn_pays_10_not_7() -> None:
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", has_played=[False, True])
    assert legal_texts(g) == ["draw", "take", "out"]
    act(g, "out")
    record = g.hand_history[-1]
    assert record["winner"] == 0 and record["end"] == "out"
    assert record["payment"]["dealt"] == 10 and record["payment"]["first_turn"] == 0
    assert record["chips"] == [21, -21]  # 1 + 10 dealt + 10 no joker
    assert g.scores == [21, -21]


def test_out_is_not_offered_after_the_first_turn() -> None:
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", has_played=[True, True])
    assert legal_texts(g) == ["draw", "take"]
    with pytest.raises(ValueError, match="only allowed on a first turn"):
        act(g, "out")


@pytest.mark.parametrize("draw", ["draw", "take"])
def test_going_out_on_the_first_turn_after_drawing_pays_7(draw: str) -> None:
    # Drawing from the stock or taking the up-card: either is "after drawing".
    g = fifteen_game(
        hands=["AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC QH", OTHER],
        stock_top="JC",
        discard="JC",
        has_played=[False, True],
    )
    act(g, draw)
    assert "out QH" in legal_texts(g)
    act(g, "out QH")
    pay = g.hand_history[-1]["payment"]
    assert pay["first_turn"] == 7 and pay["dealt"] == 0 and pay["total"] == 18
    assert g.hand_history[-1]["discarded"] == "QH"
    assert sorted(g.hand_history[-1]["melds"]) == sorted(
        ["AH 2H 3H", "4C 5C 6C", "9C TC JC", "7D 8D 9D", "4S 5S 6S"]
    )


def test_going_out_later_pays_win_jokers_and_no_first_turn_bonus() -> None:
    g = fifteen_game(
        hands=[
            "AH 2H JK 4C 5C 6C 7D 8D 9D 4S JK 6S 9C TC 2D",
            OTHER,
            "3D 5D 7D 9D JD KD 3S 5S 7S 9S JS AS 4H 6H 8H",
        ],
        discard="JC",
        has_played=[True, True, True],
    )
    act(g, "take")
    assert [t for t in legal_texts(g) if t.startswith("out")] == ["out 2D"]
    act(g, "out 2D")
    record = g.hand_history[-1]
    assert record["payment"]["total"] == 5  # 1 + 2 per joker
    assert record["chips"] == [10, -5, -5]  # from each opponent: zero-sum


def test_out_c_is_refused_when_the_rest_does_not_go_out() -> None:
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", phase="draw")
    act(g, "take")
    before = g.to_dict()
    with pytest.raises(ValueError, match=r"'out AH'.*do not go out"):
        act(g, "out AH")
    assert g.to_dict() == before  # state unchanged
    act(g, "out KD")
    assert g.scores == [11, -11]


def test_one_suit_bonus() -> None:
    hearts = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK 2H"
    g = fifteen_game(hands=[hearts, OTHER], discard="5S")
    act(g, "take")
    act(g, "out 5S")
    pay = g.hand_history[-1]["payment"]
    assert pay["one_suit"] == 10 and pay["jokers"] == 2 and pay["no_joker"] == 0


@pytest.mark.parametrize(("players", "decks"), [(2, 2), (5, 2), (6, 3), (8, 3), (9, 4), (12, 4)])
def test_deck_counts_by_table_size(players: int, decks: int) -> None:
    g = Game.new(num_players=players, seed=1)
    assert decks_for(players) == decks
    total = sum(g.hand_size(s) for s in range(players)) + len(g.stock) + len(g.discard)
    assert total == 53 * decks  # 106, 159, 212 cards
    assert all(g.hand_size(s) == 15 for s in range(players))
    assert len(g.discard) == 1 and g.current == 1 and g.dealer == 0


@pytest.mark.parametrize("players", [1, 13, 2.0, True])
def test_table_sizes_outside_2_to_12_are_refused(players: object) -> None:
    with pytest.raises(ValueError, match="num_players"):
        Game.new(num_players=players)  # type: ignore[arg-type]


def test_the_deal_passes_left_each_hand() -> None:
    g = Game.new(num_players=3, seed=5, max_turns_per_hand=1)
    act(g, "draw")
    act(g, g.action_to_str(g.legal_actions()[0]))  # one discard: the turn limit ends the hand
    assert g.hand_index == 1 and g.dealer == 1 and g.current == 2 and g.phase == "draw"
    assert g.hand_history[0]["end"] == "turn_limit" and g.hand_history[0]["chips"] == [0, 0, 0]


# ----------------------------------------------------------------------------- 2.3 stock


def test_empty_stock_is_reformed_from_the_discard_pile_under_its_top_card() -> None:
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="2C 3C 4C 5D 6D", rest_to="discard")
    data = g.to_dict()
    assert data["stock"] == []
    pile = len(g.discard)
    act(g, "draw")
    assert [format_cards([c]) for c in g.discard] == ["6D"]  # the up-card stays
    assert len(g.stock) == pile - 2  # the rest became the stock, one card drawn
    assert g.phase == "play"


@pytest.mark.parametrize("players", range(2, 13))
def test_a_reformed_stock_is_never_empty_with_fifteen_card_hands(players: int) -> None:
    # When a card must be drawn every hand holds 15 cards, so the pile holds the rest of the
    # decks: at least 30 cards under the up-card at every table size.
    assert 53 * decks_for(players) - 15 * players - 1 >= 30


def test_a_stock_that_cannot_be_reformed_ends_the_hand_with_no_winner() -> None:
    # Unreachable from a legal deal (above), so the position is edited in place: the rule is
    # implemented as RULES 2.3 states it, and this is the branch's test.
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", scores=[3, -3])
    g.stock = []
    g.discard = g.discard[-1:]
    act(g, "draw")
    record = g.hand_history[-1]
    assert record["winner"] is None and record["end"] == "stock" and record["chips"] == [0, 0]
    assert g.scores == [3, -3] and g.hand_index == 1 and g.phase == "draw"


# ----------------------------------------------------------------------------- caps and the end


def test_max_turns_per_hand_ends_a_hand_with_no_winner() -> None:
    g = Game.new(num_players=2, seed=4, max_turns_per_hand=3)
    for _ in range(3):
        act(g, "draw")
        act(g, g.action_to_str(next(a for a in g.legal_actions() if a < 56)))
    assert g.hand_history[0]["end"] == "turn_limit" and g.hand_history[0]["turns"] == 3
    assert g.scores == [0, 0] and g.hand_index == 1


def test_max_hands_ends_the_game_and_everyone_ties() -> None:
    g = Game.new(num_players=2, seed=4, max_turns_per_hand=1, max_hands=2)
    for _ in range(2):
        act(g, "draw")
        act(g, g.action_to_str(g.legal_actions()[0]))
    assert g.is_over and g.legal_actions() == [] and g.winners() == [0, 1]
    with pytest.raises(ValueError, match="the game is over"):
        act(g, "draw")


def test_hands_option_ends_the_game_after_that_many_hands() -> None:
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", options={"hands": 1})
    act(g, "take")
    act(g, "out KD")
    assert g.is_over and g.winners() == [0] and g.max_game_length == 400


def test_target_ends_the_game_after_the_hand_that_reaches_it() -> None:
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", scores=[40, -40])
    act(g, "take")
    act(g, "out KD")  # 40 + 11 >= 50
    assert g.is_over and g.scores == [51, -51] and g.winners() == [0]
    g = fifteen_game(hands=[OUT_HAND, OTHER], discard="KD", scores=[30, -30])
    act(g, "take")
    act(g, "out KD")  # 41 < 50: the next hand is dealt
    assert not g.is_over and g.hand_index == 1 and g.dealer == 1


def test_equal_totals_share_the_win() -> None:
    g = fifteen_game(
        hands=[OUT_HAND, OTHER, "3D 5D 7D 9D JD KD 3S 5S 7S 9S JS AS 4H 6H 8H"],
        discard="KD",
        scores=[44, 22, -66],
    )
    act(g, "take")
    act(g, "out KD")  # seat 0: 44 + 22 = 66 ... seat 1: 22 - 11 = 11
    assert g.is_over and g.scores == [66, 11, -77] and g.winners() == [0]
    g = Game.new(num_players=3, seed=1, hands=1, max_turns_per_hand=1)
    act(g, "draw")
    act(g, g.action_to_str(g.legal_actions()[0]))
    assert g.is_over and g.winners() == [0, 1, 2]


# ----------------------------------------------------------------------------- the search


def _built_hand(rng: random.Random) -> list[int]:
    """15 cards laid out as a random legal shape, some naturals replaced by jokers."""
    shape = rng.choice(GOING_OUT_SHAPES)
    cards: list[int] = []
    for length in shape:
        suit = rng.randrange(4)
        span = rng.choice(sequence_spans(length))
        seq = [suit * 13 + r for r in span]
        for k in rng.sample(range(length), rng.choice([0, 0, 1, 2])):
            if sum(c != JOKER for c in seq) > 1:
                seq[k] = JOKER
        cards += seq
    return cards


def test_every_built_shape_goes_out_and_both_searches_agree_on_perturbed_hands() -> None:
    # can_go_out combines per-suit options; going_out is a direct exact cover. Two different
    # algorithms: built hands must go out (up to 4 jokers, as the largest table holds), and on
    # hands with one card changed the two must agree.
    rng = random.Random(2026)
    agree = positive = 0
    for _ in range(800):
        hand = _built_hand(rng)
        if hand.count(JOKER) > 4 or max(hand.count(c) for c in hand) > 4:
            continue
        counts = to_counts(hand)
        assert can_go_out(counts) and going_out(counts) is not None, format_cards(hand)
        positive += 1
        counts[rng.choice(hand)] -= 1
        counts[rng.randrange(53)] += 1
        assert can_go_out(counts) == (going_out(counts) is not None), format_cards(hand)
        agree += 1
    assert positive > 500 and agree > 500


def test_going_out_discards_agrees_with_the_exact_cover_on_each_candidate() -> None:
    # The 16-card shortcut (one suit changed, joker-count refusals) against the plain exact
    # cover of every hand minus one card, on built hands plus one card and on random hands.
    rng = random.Random(7)
    deck = [c for c in range(52) for _ in range(2)] + [JOKER] * 2
    hits = 0
    for k in range(200):
        if k % 2:
            hand = [*_built_hand(rng), rng.choice(deck)]
        else:
            hand = rng.sample(deck, 16)
        counts = to_counts(hand)
        if max(counts) > 4:
            continue
        want = []
        for c in range(53):
            if counts[c]:
                counts[c] -= 1
                if going_out(counts) is not None:
                    want.append(c)
                counts[c] += 1
        assert going_out_discards(counts) == want, format_cards(sorted(hand))
        hits += bool(want)
    assert hits > 50
