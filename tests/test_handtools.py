"""The bots' hand helpers agree with their plain definitions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agents.contract.handtools import RUN_BIT, TRIO_BIT, partner_table, partners
from continental_env import PRESETS
from continental_env.cards import NUM_TYPES


def partners_by_definition(hand: list[int], card: int, table, bits: int) -> int:
    """Every other copy in the hand whose pair with ``card`` starts a meld of a kind in ``bits``."""
    n = 0
    for c in range(NUM_TYPES):
        k = hand[c] - (1 if c == card else 0)
        if k > 0 and table[card][c] & bits:
            n += k
    return n


hands = st.lists(st.integers(0, 3), min_size=NUM_TYPES, max_size=NUM_TYPES)


@settings(max_examples=300, deadline=None)
@given(
    hand=hands,
    card=st.integers(0, NUM_TYPES - 1),
    bits=st.sampled_from([TRIO_BIT, RUN_BIT, TRIO_BIT | RUN_BIT]),
    preset=st.sampled_from(sorted(PRESETS)),
)
def test_partners_counts_as_defined(hand: list[int], card: int, bits: int, preset: str) -> None:
    table = partner_table(PRESETS[preset])
    assert partners(hand, card, table, bits) == partners_by_definition(hand, card, table, bits)


def test_partners_does_not_count_the_card_itself() -> None:
    table = partner_table(PRESETS["continental"])
    hand = [0] * NUM_TYPES
    hand[5] = 1  # a lone 6C: nothing to pair with
    assert partners(hand, 5, table, TRIO_BIT | RUN_BIT) == 0
    hand[5] = 2  # a second 6C starts a trio
    assert partners(hand, 5, table, TRIO_BIT) == 1
