"""Run arithmetic lives in ``melds.py``: where a joker sits, swapping it, the arrangement found.

The engine's swaps and joker moves and the bots' plans call these operations; the tests pin
them against melds built by the validator (``Meld.build``), wraparound and the ace included.
"""

from __future__ import annotations

import pytest

from continental_env.cards import JOKER, parse_cards
from continental_env.melds import (
    HIGH,
    LOW,
    RUN,
    TRIO,
    Meld,
    best_contract,
    end_joker,
    joker_for,
    run_spans,
    swap_joker,
)
from continental_env.rules import PRESETS

WRAP = PRESETS["continental"]
LINEAR = PRESETS["continental_us"]


def meld(kind: str, text: str, rules=WRAP) -> Meld:
    return Meld.build(0, kind, parse_cards(text), rules)


@pytest.mark.parametrize(
    ("kind", "text", "card", "index"),
    [
        (RUN, "5H JK 7H 8H", "6H", 1),
        (RUN, "JK JK 7H 8H", "6H", 1),  # each joker stands for one card
        (RUN, "JK JK 7H 8H", "5H", 0),
        (RUN, "QS KS JK 2S", "AS", 2),  # wraparound: the joker after the king is the ace
        (RUN, "5H JK 7H 8H", "6D", None),  # wrong suit
        (RUN, "5H 6H 7H 8H", "6H", None),  # no joker
        (TRIO, "9C JK 9D", "9S", 1),  # a trio's joker stands for its rank
        (TRIO, "9C 9H 9D", "9S", None),
    ],
)
def test_joker_for_finds_the_joker_a_card_stands_in_for(kind, text, card, index) -> None:
    assert joker_for(meld(kind, text), parse_cards(card)[0]) == index


def test_swap_joker_puts_the_natural_in_its_place_and_refuses_when_none_stands_for_it() -> None:
    run = meld(RUN, "QS KS JK 2S")
    swap_joker(run, parse_cards("AS")[0])
    assert run.cards == parse_cards("QS KS AS 2S")
    assert Meld.build(0, RUN, run.cards, WRAP).start == run.start  # still the same run
    with pytest.raises(ValueError, match="no joker"):
        swap_joker(run, parse_cards("3S")[0])


@pytest.mark.parametrize(
    ("text", "end"),
    [("JK 5H 6H 7H", LOW), ("5H 6H 7H JK", HIGH), ("JK 5H 6H JK", HIGH), ("5H JK 7H 8H", None)],
)
def test_end_joker_names_the_end_holding_a_joker_high_first(text, end) -> None:
    assert end_joker(meld(RUN, text)) == end
    assert end_joker(meld(TRIO, "9C JK 9D")) is None


def test_best_contract_returns_melds_owned_by_the_seat_that_agree_with_the_validator() -> None:
    hand = parse_cards("JS QS KS AS 9C 9D JK 4H")
    counts = [hand.count(c) for c in range(53)]
    for rules in (WRAP, LINEAR):
        found = best_contract(counts, 1, 1, rules, owner=2)
        assert found is not None
        assert [m.kind for m in found] == [TRIO, RUN]
        for m in found:
            assert m.owner == 2
            built = Meld.build(2, m.kind, m.cards, rules)
            assert (built.start, built.rank, built.suit) == (m.start, m.rank, m.suit)
    # Fresh objects each call: laying one down cannot change the next answer.
    first = best_contract(counts, 1, 1, WRAP)
    first[0].cards.append(JOKER)
    assert best_contract(counts, 1, 1, WRAP)[0].cards != first[0].cards


def test_run_spans_follow_the_rules_on_the_ace() -> None:
    wrap = {tuple(s) for s in run_spans(WRAP)}
    linear = {tuple(s) for s in run_spans(LINEAR)}
    assert (11, 12, 0, 1) in wrap and (11, 12, 0, 1) not in linear  # Q K A 2
    assert (10, 11, 12, 0) in linear  # J Q K A: the ace high
    assert len(wrap) == 13 and len(linear) == 11
