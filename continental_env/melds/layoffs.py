"""Lay-offs and joker swaps on table melds (RULES 1.4): which cards fit a meld, and laying them.

Pure functions over a ``Meld`` (``melds.core``) that mutate it in place only where the name says
so (``extend_run``, ``take_end_joker``, ``swap_joker``, ``lay_off``). The engine's lay-off, swap
and joker-move actions, the action masks, the observation's "fits the table" plane and the
lay-down search's lay-off closure (``melds.laydown``) all use them.
"""

from __future__ import annotations

from collections.abc import Sequence

from continental_env.cards import (
    JOKER,
    NUM_RANKS,
    RANK_CARDS,
    format_cards,
    make_card,
    rank_of,
    suit_of,
)
from continental_env.melds.core import HIGH, LOW, RUN, TRIO, Meld
from continental_env.rules import RuleConfig

__all__ = [
    "can_fit",
    "end_card",
    "end_joker",
    "extend_run",
    "fitting_cards",
    "joker_for",
    "joker_positions",
    "lay_off",
    "layoff_options",
    "natural_layoff_end",
    "run_can_extend",
    "swap_joker",
    "swap_targets",
    "take_end_joker",
]


def run_can_extend(meld: Meld, end: str, rules: RuleConfig) -> bool:
    """Whether a run has room for one more card at the given end."""
    n = len(meld.cards)
    if n >= NUM_RANKS:
        return False
    if rules.ace_wraparound:
        return True
    if end == LOW:
        return meld.start > 0
    return meld.start + n - 1 < NUM_RANKS


def natural_layoff_end(meld: Meld, card: int, rules: RuleConfig) -> str | None:
    """The end of a run where a natural card extends it (high preferred), else None."""
    if suit_of(card) != meld.suit:
        return None
    r = rank_of(card)
    n = len(meld.cards)
    if run_can_extend(meld, HIGH, rules) and (meld.start + n) % NUM_RANKS == r:
        return HIGH
    if run_can_extend(meld, LOW, rules) and (meld.start - 1) % NUM_RANKS == r:
        return LOW
    return None


def end_card(meld: Meld, end: str, rules: RuleConfig) -> int | None:
    """The natural card that would extend a run at ``end``, or None if that end is closed."""
    if meld.kind != RUN or not run_can_extend(meld, end, rules):
        return None
    pos = -1 if end == LOW else len(meld.cards)
    return make_card(meld.suit, (meld.start + pos) % NUM_RANKS)


def extend_run(meld: Meld, card: int, end: str, rules: RuleConfig) -> None:
    """Add ``card`` (the natural ``end_card`` names, or a joker) at ``end`` of a run, in place."""
    if end == HIGH:
        meld.cards.append(card)
        return
    meld.cards.insert(0, card)
    meld.start = (meld.start - 1) % NUM_RANKS if rules.ace_wraparound else meld.start - 1


def take_end_joker(meld: Meld, end: str, rules: RuleConfig) -> None:
    """Take the joker at ``end`` of a run off it, in place (003's joker move)."""
    if meld.cards[-1 if end == HIGH else 0] != JOKER:
        raise ValueError(f"the {end} end of {meld!r} holds no joker")
    if end == HIGH:
        meld.cards.pop()
        return
    meld.cards.pop(0)
    meld.start = (meld.start + 1) % NUM_RANKS if rules.ace_wraparound else meld.start + 1


def joker_positions(meld: Meld) -> list[int]:
    """Indices of the jokers in a meld."""
    return [i for i, c in enumerate(meld.cards) if c == JOKER]


def joker_for(meld: Meld, card: int) -> int | None:
    """Where the joker that natural ``card`` may replace sits: a trio's first joker, the run's
    joker standing for exactly that card; None if there is none."""
    for i in joker_positions(meld):
        if meld.kind == TRIO or meld.represented(i) == card:
            return i
    return None


def end_joker(meld: Meld) -> str | None:
    """The end of a run that holds a joker (the high end first), or None."""
    if meld.kind != RUN:
        return None
    if meld.cards[-1] == JOKER:
        return HIGH
    if meld.cards[0] == JOKER:
        return LOW
    return None


def swap_joker(meld: Meld, card: int) -> None:
    """Natural ``card`` takes the place of the joker standing for it, in place (RULES 1.4)."""
    i = joker_for(meld, card)
    if i is None:
        raise ValueError(f"no joker of {meld!r} stands for {format_cards([card])}")
    meld.cards[i] = card


def fitting_cards(meld: Meld, rules: RuleConfig) -> list[int]:
    """Card types that could be laid off on this meld now (the joker included when it fits)."""
    if meld.kind == TRIO:
        return [*RANK_CARDS[meld.rank], JOKER]
    out = [c for c in (end_card(meld, LOW, rules), end_card(meld, HIGH, rules)) if c is not None]
    if out:
        out.append(JOKER)
    return sorted(set(out))


def swap_targets(meld: Meld) -> list[int]:
    """Natural card types that could replace a joker of this meld (RULES 1.4, swap)."""
    if JOKER not in meld.cards:
        return []
    if meld.kind == TRIO:
        return list(RANK_CARDS[meld.rank])
    return sorted({meld.represented(i) for i in joker_positions(meld)})


def can_fit(meld: Meld, card: int, rules: RuleConfig) -> bool:
    """Whether a card can be laid off on a meld (RULES 1.4; 004's discard restriction uses it)."""
    if card == JOKER:
        return (
            meld.kind == TRIO
            or run_can_extend(meld, LOW, rules)
            or run_can_extend(meld, HIGH, rules)
        )
    if meld.kind == TRIO:
        return rank_of(card) == meld.rank
    return natural_layoff_end(meld, card, rules) is not None


def layoff_options(
    meld: Meld, hand: Sequence[int], rules: RuleConfig, own: bool
) -> list[tuple[int, str | None]]:
    """Every lay-off from ``hand`` (counts) onto ``meld`` (RULES 1.4), as ``(card, end)`` pairs.

    ``end`` is LOW or HIGH for a joker on a run (it goes where the player says) and None
    otherwise: a natural's place is fixed (the trio, the run end its rank extends, or, under
    003's shift and on the player's ``own`` run, the place of the joker standing for it).
    """
    if meld.kind == TRIO:
        return _trio_layoffs(meld, hand)
    low = end_card(meld, LOW, rules)
    high = end_card(meld, HIGH, rules)
    naturals = {c for c in (low, high) if c is not None and hand[c]}
    if own and rules.joker_rule == "shift" and (low is not None or high is not None):
        naturals.update(_shift_naturals(meld, hand))
    out = [(c, None) for c in sorted(naturals)]
    if hand[JOKER]:
        out.extend((JOKER, end) for end, c in ((LOW, low), (HIGH, high)) if c is not None)
    return out


def _trio_layoffs(meld: Meld, hand: Sequence[int]) -> list[tuple[int, str | None]]:
    """``layoff_options`` on a trio: each natural of its rank in hand, then a joker."""
    out: list[tuple[int, str | None]] = [(c, None) for c in RANK_CARDS[meld.rank] if hand[c]]
    if hand[JOKER]:
        out.append((JOKER, None))
    return out


def _shift_naturals(meld: Meld, hand: Sequence[int]) -> list[int]:
    """Naturals in ``hand`` that a joker of the run stands for (003's shift onto one's own run)."""
    return [meld.represented(i) for i in joker_positions(meld) if hand[meld.represented(i)]]


def lay_off(meld: Meld, card: int, end: str | None, rules: RuleConfig) -> None:
    """Lay ``card`` off on ``meld`` in place, as ``layoff_options`` offered it."""
    if meld.kind == TRIO:
        meld.cards.append(card)
        return
    if card == JOKER:
        extend_run(meld, JOKER, end or HIGH, rules)
        return
    natural_end = natural_layoff_end(meld, card, rules)
    if natural_end is None:  # 003's shift: the natural takes the joker's place, the joker moves out
        swap_joker(meld, card)
        extend_run(meld, JOKER, HIGH if run_can_extend(meld, HIGH, rules) else LOW, rules)
        return
    extend_run(meld, card, natural_end, rules)
