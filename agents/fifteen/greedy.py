"""The fifteen-card ``greedy`` bot: build toward a legal shape, no look-ahead, no memory.

Strategy, phase by phase. A hand is valued by how much of it already lies in sequences and how
much is close: ``value = 10 x covered + connected``, where ``covered`` is the most cards that
disjoint sequences of 3-5 cards (jokers filling gaps, spans from ``melds.sequence_spans``) can
hold, and ``connected`` counts the naturals not covered that have a same-suit natural one or two
ranks away (ace low or high), i.e. half a sequence.

* **Start of the turn.** Go out at once (``out``) when the dealt cards allow it. Otherwise take
  the up-card when it helps: when with it the bot could go out, or when keeping it and
  discarding the least useful card scores higher than the hand it holds now. Else draw.
* **After drawing.** Go out when the engine offers ``out C``, discarding the card C that makes
  the payment largest (the payment table of the engine). Otherwise discard the card whose loss
  leaves the highest value; jokers are kept (they cover any gap). Ties go to the lowest card id,
  so the bot is deterministic.

Going out itself is the engine's check (``melds.can_go_out`` behind the legal actions).
"""

from __future__ import annotations

from functools import lru_cache

from agents.fifteen.view import FifteenView
from agents.side_common import SideBot
from continental_env.cards import JOKER, NUM_RANKS, NUM_TYPES
from continental_env.fifteen.game import DISCARD_BASE, DRAW, OUT, OUT_BASE, TAKE, payment
from continental_env.melds import SEQUENCE_LENGTHS, going_out_discards, sequence_spans


@lru_cache(maxsize=200_000)
def suit_cover(row: tuple[int, ...], jokers: int) -> int:
    """Most cards (naturals of one suit plus at most ``jokers`` jokers) held by sequences."""
    rank = next((r for r in range(NUM_RANKS) if row[r]), -1)
    if rank < 0:
        return 0
    rest = list(row)
    rest[rank] -= 1
    best = suit_cover(tuple(rest), jokers)  # this card stays out of every sequence
    for length in SEQUENCE_LENGTHS:
        for span in sequence_spans(length):
            if rank not in span:
                continue
            work = list(rest)
            used = 0
            for r in span:
                if r == rank:
                    continue
                if work[r]:
                    work[r] -= 1
                else:
                    used += 1
            if used <= jokers:
                best = max(best, length + suit_cover(tuple(work), jokers - used))
    return best


def covered(hand: list[int] | tuple[int, ...]) -> int:
    """Most cards of a hand that disjoint sequences hold (jokers shared out between suits)."""
    jokers = hand[JOKER]
    if not jokers:  # the common case: the suits add up
        return sum(suit_cover(tuple(hand[s * 13 : s * 13 + 13]), 0) for s in range(4))
    # best[j]: the most cards covered in the suits so far with j jokers spent
    best = [0] * (jokers + 1)
    for suit in range(4):
        row = tuple(hand[suit * 13 : suit * 13 + 13])
        if not any(row):
            continue
        gains = [suit_cover(row, j) for j in range(jokers + 1)]
        best = [max(best[j - k] + gains[k] for k in range(j + 1)) for j in range(jokers + 1)]
    return max(best)


@lru_cache(maxsize=100_000)
def _row_connected(row: tuple[int, ...]) -> int:
    total = 0
    for r in range(NUM_RANKS):
        if not row[r]:
            continue
        near = {r - 2, r - 1, r + 1, r + 2}
        if r == 0:
            near |= {11, 12}
        if r in (11, 12):
            near.add(0)
        if any(0 <= x < NUM_RANKS and row[x] for x in near):
            total += row[r]
    return total


def connected(hand: list[int] | tuple[int, ...]) -> int:
    """Naturals with a same-suit natural one or two ranks away (the ace counts at both ends)."""
    return sum(_row_connected(tuple(hand[s * 13 : s * 13 + 13])) for s in range(4))


def hand_value(hand: list[int] | tuple[int, ...]) -> int:
    """The greedy bot's value of a hand (module docstring)."""
    return 10 * covered(hand) + connected(hand)


def best_discard(hand: list[int]) -> tuple[int, int]:
    """(card, value after discarding it): the natural whose loss costs least; jokers kept."""
    best_card, best_value = -1, -1
    work = list(hand)
    for c in range(NUM_TYPES):
        if not work[c] or (c == JOKER and any(work[:JOKER])):
            continue
        work[c] -= 1
        v = hand_value(work)
        work[c] += 1
        if v > best_value:
            best_card, best_value = c, v
    return best_card, best_value


class FifteenGreedyAgent(SideBot):
    """Keeps the cards that build toward a legal shape; takes the up-card when it helps."""

    name = "greedy"

    def decide(self, view: FifteenView, legal: list[int]) -> int:
        """One of ``legal`` (``SideBot.act`` checked there is one)."""
        if view.phase == "draw":
            return self._start(view, legal)
        return self._after_draw(view, legal)

    def _start(self, view: FifteenView, legal: list[int]) -> int:
        if OUT in legal:
            return OUT
        top = view.discard_top
        if TAKE not in legal or top is None:
            return DRAW
        with_top = list(view.hand)
        with_top[top] += 1
        if going_out_discards(with_top):
            return TAKE
        _card, after = best_discard(with_top)
        return TAKE if after > hand_value(view.hand) else DRAW

    def _after_draw(self, view: FifteenView, legal: list[int]) -> int:
        outs = [a for a in legal if a >= OUT_BASE]
        if outs:
            first = view.first_turn

            def pay(action: int) -> int:
                rest = list(view.hand)
                rest[action - OUT_BASE] -= 1
                cards = [c for c in range(NUM_TYPES) for _ in range(rest[c])]
                return payment(cards, first_turn=first, drew=True)["total"]

            return max(outs, key=lambda a: (pay(a), -a))
        card, _value = best_discard(view.hand)
        return DISCARD_BASE + card
