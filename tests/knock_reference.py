"""An independent brute-force deadwood for the knock game (RULES.md Part 3.2).

Written from the rules alone, without the engine's solver: the first card left (natural or
joker) is either deadwood or in one lay, and that lay is tried as every sub-multiset of the cards
left that holds it and is a lay (``reference.ref_trio`` / ``reference.ref_run`` with runs of 3+
and no wraparound). Exponential on purpose; the Hypothesis tests keep hands small.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache

from reference import _sub_multisets, ref_run, ref_trio

from continental_env.cards import JOKER, rank_of
from continental_env.rules import RuleConfig

REF_RULES = RuleConfig(name="reference", min_run=3, ace_wraparound=False)


def ref_value(card: int, ace: int) -> int:
    """A card's deadwood: J Q K T 10, 2-9 their index, an ace ``ace``, a joker 20."""
    if card == JOKER:
        return 20
    rank = rank_of(card) + 1
    return ace if rank == 1 else min(rank, 10)


def ref_is_lay(cards: Sequence[int]) -> bool:
    """3+ of one rank, or 3+ of one suit in a row (no wraparound); a natural in each."""
    return ref_trio(cards) or ref_run(cards, REF_RULES)


def ref_deadwood(hand: Sequence[int], ace: int = 15) -> int:
    """The smallest total of the cards left out of every arrangement of disjoint lays."""

    @cache
    def best(left: tuple[int, ...]) -> int:
        if not left:
            return 0
        first = left[0]
        rest = Counter(left)
        rest[first] -= 1
        out = ref_value(first, ace) + best(tuple(sorted(rest.elements())))
        for sub in _sub_multisets(rest):
            lay = (first, *sub)
            if len(lay) >= 3 and ref_is_lay(lay):
                after = rest - Counter(sub)
                out = min(out, best(tuple(sorted(after.elements()))))
        if len(left) >= 3 and ref_is_lay(left):
            out = 0
        return out

    return best(tuple(sorted(hand)))
