"""The lay-down choice (RULES 1.4): fewest cards, then fewest points, left after the best
lay-offs this turn, then fewest points right after the lay-down (``melds.best_laydown``).

Named positions first (the rule's own example among them), then Hypothesis against
``reference.ref_best_laydown``, a brute force over every legal lay-down and every way of laying
the rest off, written without the engine's meld code.
"""

from __future__ import annotations

from collections import Counter

from helpers import act, hand, make_game, meld_text
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import examples, ref_best_laydown, ref_layoff_outcome, ref_meld

from continental_env.cards import JOKER, format_cards, make_card, parse_cards, to_counts
from continental_env.melds import Meld, best_laydown, has_contract, laydown_outcome
from continental_env.rules import CONTRACTS, PRESETS, RuleConfig, points_table

ALL = ("continental", "continental_us", "continental_es")


def table_melds(texts: list[tuple[str, str]], rules: RuleConfig) -> list[Meld]:
    return [Meld.build(1, kind, parse_cards(text), rules) for kind, text in texts]


def laid(hand_text: str, round_number: int, preset: str = "continental", table=()) -> list[str]:
    rules = PRESETS[preset]
    trios, runs = CONTRACTS[round_number - 1]
    found = best_laydown(
        to_counts(parse_cards(hand_text)), trios, runs, rules, table_melds(list(table), rules)
    )
    assert found is not None
    return [format_cards(m.cards) for m in found]


def test_the_rules_example_keeps_the_king_to_close_with() -> None:
    # RULES 1.4: not 555 + KC JK JK (keeps 4C 4D, cannot close) but 555 + 4C 4D JK JK.
    assert laid("5C 5D 5H 4C 4D KC JK JK", 1) == ["5C 5D 5H", "4C 4D JK JK"]
    counts = to_counts(parse_cards("5C 5D 5H 4C 4D KC JK JK"))
    assert laydown_outcome(counts, 2, 0, PRESETS["continental"]) == (1, 10, 10)


def test_the_engine_lays_it_down_that_way_and_can_close() -> None:
    game = make_game(hands=["5C 5D 5H 4C 4D KC JK JK", "2S 3S 4S 6D 7D 8D 9S"])
    act(game, "laydown")
    assert [meld_text(game, m) for m in range(len(game.table))] == ["5C 5D 5H", "4C 4D JK JK"]
    assert hand(game, 0) == ["KC"]
    act(game, "close")


def test_fewest_cards_beat_fewest_points_after_lay_offs() -> None:
    # Round 1 with 9C 9D 9H on the table: laying 8C 8D 8H + QC QD JK leaves 9S for the 9s'
    # trio and 2C to close with (1 card), whereas fewest points right away would keep QC QD.
    table = [("trio", "9C 9D 9H")]
    rules = PRESETS["continental"]
    counts = to_counts(parse_cards("8C 8D 8H QC QD 9S 2C JK"))
    assert laydown_outcome(counts, 2, 0, rules, table_melds(table, rules)) == (1, 2, 11)


def test_a_table_run_end_decides_which_card_goes_down() -> None:
    # Round 2 (one trio, one run), 6H..9H on the table: 7C 7D 7S + 2S 3S 4S 5S goes down, 5H and
    # TH extend the table run, and KD, which nothing takes, is the one card left.
    table = [("run", "6H 7H 8H 9H")]
    rules = PRESETS["continental"]
    counts = to_counts(parse_cards("7C 7D 7S 2S 3S 4S 5S 5H TH KD"))
    assert laydown_outcome(counts, 1, 1, rules, table_melds(table, rules)) == (1, 10, 25)


def test_without_a_table_the_choice_is_the_fewest_points() -> None:
    # Nothing to lay off on: the choice falls back to the fewest points left (best_contract).
    assert laid("KC KD KH QC QD QH 2C 2D 2H", 1) in (
        ["KC KD KH", "QC QD QH"],
        ["QC QD QH", "KC KD KH"],
    )


def test_spare_jokers_go_down_with_the_contract() -> None:
    found = laid("9C 9D 9H 5C 5D 5S JK JK 2C", 1)
    assert sum(text.count("JK") for text in found) == 2


def test_big_random_play_hands_stay_fast() -> None:
    # The budget bounds the work on the 40-card hands random claiming builds: this finishes
    # (the exhaustive search did not), and the result is a legal contract.
    rules = PRESETS["continental"]
    cards = [make_card(s, r) for s in range(4) for r in range(0, 13, 2)] * 2 + [JOKER] * 3
    counts = to_counts(cards)
    for trios, runs in CONTRACTS:
        found = best_laydown(counts, trios, runs, rules)
        assert (found is not None) == has_contract(counts, trios, runs, rules)


# ----------------------------------------------------------------------------- Hypothesis


@st.composite
def laydown_cases(draw):
    preset = draw(st.sampled_from(ALL))
    rules = PRESETS[preset]
    round_number = draw(st.sampled_from([1, 2, 3]))
    trios, runs = CONTRACTS[round_number - 1]
    low = draw(st.integers(0, 8))
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=2, unique=True))
    pool = [make_card(s, (low + i) % 13) for s in suits for i in range(5)] * 2
    hand: list[int] = []
    if draw(st.booleans()):  # most random hands hold no contract: build one in half the cases
        for _ in range(trios):
            rank = (low + draw(st.integers(0, 4))) % 13
            hand += [
                make_card(suit, rank)
                for suit in draw(st.lists(st.integers(0, 3), min_size=2, max_size=3, unique=True))
            ]
        for _ in range(runs):
            suit = draw(st.sampled_from(suits))
            start = low + draw(st.integers(0, 1))
            hand += [make_card(suit, (start + i) % 13) for i in range(rules.min_run)]
        hand = [JOKER if draw(st.integers(0, 5)) == 0 else c for c in hand]
    size = 3 * trios + rules.min_run * runs + draw(st.integers(1, 2))
    hand += draw(
        st.lists(
            st.sampled_from([*pool, JOKER]),
            min_size=max(0, size - len(hand)),
            max_size=max(0, size - len(hand)),
        )
    )
    # two decks: at most two of a natural, at most three jokers
    hand = [c for c, n in Counter(hand).items() for _ in range(min(n, 3 if c == JOKER else 2))]
    table: list[tuple[str, str]] = []
    if draw(st.booleans()):
        r = (low + draw(st.integers(0, 5))) % 13
        table.append(("trio", format_cards([make_card(s, r) for s in (0, 1, 2)])))
    if draw(st.booleans()):
        s = draw(st.integers(0, 3))
        start = (low + draw(st.integers(-2, 3))) % 13
        if rules.ace_wraparound or start + 4 <= 13:
            table.append(("run", format_cards([make_card(s, (start + i) % 13) for i in range(4)])))
    return preset, round_number, hand, table


@settings(max_examples=examples(200), deadline=None)
@given(laydown_cases())
def test_the_choice_matches_a_brute_force_over_every_laydown_and_layoff(case) -> None:
    preset, round_number, hand_cards, table = case
    rules = PRESETS[preset]
    trios, runs = CONTRACTS[round_number - 1]
    counts = to_counts(hand_cards)
    melds = table_melds(table, rules)
    ordered_table = [(m.kind, list(m.cards)) for m in melds]
    expected = ref_best_laydown(hand_cards, trios, runs, rules, ordered_table)
    assert laydown_outcome(counts, trios, runs, rules, melds) == expected
    found = best_laydown(counts, trios, runs, rules, melds)
    assert (found is None) == (expected is None)
    if found is None:
        return
    # The arrangement itself: the exact contract, valid melds, cards from the hand, one left,
    # and the rest laid off as well as the key says.
    kinds = [m.kind for m in found]
    assert kinds == ["trio"] * trios + ["run"] * runs
    left = Counter(hand_cards)
    for m in found:
        assert ref_meld(m.kind, m.cards, rules, ordered=True), (m.kind, format_cards(m.cards))
        left -= Counter(m.cards)
    assert sum(left.values()) == len(hand_cards) - sum(len(m.cards) for m in found)
    rest = list(left.elements())
    assert rest
    own = [(m.kind, list(m.cards)) for m in found]
    pts = points_table(rules)
    assert (
        *ref_layoff_outcome(rest, ordered_table + own, rules),
        sum(pts[c] for c in rest),
    ) == expected
