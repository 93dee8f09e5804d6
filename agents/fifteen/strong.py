"""The fifteen-card ``strong`` bot: race to a legal shape on the cards still live, cash the bonuses.

A hand is won by the first player to lay down all fifteen cards in one of the three shapes, and
the winner collects from each opponent: 1, plus 2 a joker, plus 7 (first turn after drawing) or
10 (first turn without drawing), plus 10 with no joker, plus 10 when every natural is of one suit.
The game goes to ``target`` chips (50), so the chips come almost entirely from winning hands, and
a hand is won by speed. The bot therefore plays for speed, measured on the cards it can still get.

Strategy, phase by phase:

* **Card counting.** Every natural exists ``decks`` times (2 at 2-5 players). A copy is *dead* to
  this seat when it lies in its own hand, in the discard pile (the top card excepted: it can be
  taken) or among the cards an opponent is known to hold because it took them from the pile. The
  rest are *live*, spread over the stock and the hidden hands; a live copy is the chance of
  drawing it.
* **Hand value.** ``10 x covered`` (the most cards that disjoint sequences of 3-5 hold, as the
  greedy bot counts them) plus the *outs*: for every card type whose arrival would let sequences
  hold more cards, its live copies times the cards gained, weighted by ``OUTS_WEIGHT`` and
  divided by the unseen cards (so it reads as the expected gain of the next draw, over several
  draws). A partial sequence whose missing cards are all dead is worth nothing beyond what it
  covers; two of them, equal for the greedy bot, are told apart by how live their missing cards
  are. Near cards (a same-suit natural one or two ranks away) break the remaining ties.
* **Start of the turn.** Go out at once (``out``) when the dealt cards allow it: 10 extra from
  each opponent. Otherwise take the up-card when it lets the hand go out, or when the best hand
  after taking it and discarding scores above the hand held now (whose value already counts the
  chance of the stock card). Else draw.
* **After drawing.** Go out whenever the engine offers it, discarding the card that makes the
  payment largest (the engine's payment table: a joker thrown away can turn 2 a joker into the 10
  for no joker). Otherwise discard the card whose loss leaves the best hand value: the greedy
  value screens all discards, the outs decide among the best ``SHORTLIST``. Jokers are kept while
  a natural can go. Ties go to the lowest card id, so the bot is deterministic.

It reads only its ``FifteenView`` (own hand, discard pile, cards known taken, hand sizes,
scores); a test checks that its decisions do not change when hidden cards change.
"""

from __future__ import annotations

from agents.fifteen.greedy import connected, covered, suit_cover
from agents.fifteen.view import FifteenView
from agents.side_common import SideBot, after_each_discard
from continental_env.cards import JOKER, NUM_NATURALS, NUM_RANKS, NUM_TYPES
from continental_env.fifteen.game import (
    DISCARD_BASE,
    DRAW,
    OUT,
    OUT_BASE,
    TAKE,
    decks_for,
    payment,
)
from continental_env.melds import going_out_discards

OUTS_WEIGHT = 30.0  # points of hand value per expected card gained on the next draw
SHORTLIST = 5  # discards (best by the greedy value) whose outs are counted


def live_counts(view: FifteenView) -> tuple[list[int], int]:
    """(live copies of each card type, unseen cards): what this seat may still draw."""
    decks = decks_for(view.num_players)
    total = [decks] * NUM_NATURALS + [decks]  # as many jokers as decks
    live = list(total)
    pile = list(view.discard[:-1])  # the top card is takeable, so not dead
    for c in range(NUM_TYPES):
        live[c] -= view.hand[c]
    for c in pile:
        live[c] -= 1
    for seat, known in enumerate(view.known):
        if seat == view.seat:
            continue
        for c in range(NUM_TYPES):
            live[c] -= known[c]
    live = [max(0, n) for n in live]
    return live, max(1, sum(live))


def _suit_gains(hand: list[int] | tuple[int, ...], suit: int, jokers: int) -> list[int]:
    row = tuple(hand[suit * 13 : suit * 13 + 13])
    if not any(row):
        return [0] * (jokers + 1)
    return [suit_cover(row, j) for j in range(jokers + 1)]


def _combine(gains: list[list[int]], jokers: int) -> int:
    if not jokers:  # the common case: the suits add up
        return sum(g[0] for g in gains)
    best = [0] * (jokers + 1)
    for g in gains:
        best = [max(best[j - k] + g[k] for k in range(j + 1)) for j in range(jokers + 1)]
    return max(best)


def _near_ranks(row: list[int]) -> set[int]:
    """Ranks within two of a held rank in one suit (the ace also next to the queen and king)."""
    near = set()
    for r in range(NUM_RANKS):
        if row[r]:
            for d in (-2, -1, 1, 2):
                x = r + d
                if 0 <= x < NUM_RANKS:
                    near.add(x)
            if r == 0:
                near |= {11, 12}
            if r in (11, 12):
                near.add(0)
    return near


def _add_suit_outs(
    total: float, hand: list[int], live: list[int], suit: int, gains: list[list[int]], base: int
) -> float:
    """``total`` plus the outs of the natural cards of ``suit``, added card by card."""
    jokers = hand[JOKER]
    row = hand[suit * 13 : suit * 13 + 13]
    for r in _near_ranks(row):
        card = suit * 13 + r
        if not live[card]:
            continue
        work = list(row)
        work[r] += 1
        trial = list(gains)
        trial[suit] = [suit_cover(tuple(work), j) for j in range(jokers + 1)]
        gain = _combine(trial, jokers) - base
        if gain > 0:
            total += live[card] * gain
    return total


def outs(hand: list[int], live: list[int]) -> float:
    """Live copies of every card type times the cards sequences would gain with it."""
    jokers = hand[JOKER]
    gains = [_suit_gains(hand, s, jokers) for s in range(4)]
    base = _combine(gains, jokers)
    total = 0.0
    for suit in range(4):
        total = _add_suit_outs(total, hand, live, suit, gains, base)
    if live[JOKER]:
        more = [_suit_gains(hand, s, jokers + 1) for s in range(4)]
        gain = _combine(more, jokers + 1) - base
        if gain > 0:
            total += live[JOKER] * gain
    return total


class FifteenStrongAgent(SideBot):
    """Plays for speed on live cards and cashes the largest payment; see the module docstring."""

    name = "strong"

    def decide(self, view: FifteenView, legal: list[int]) -> int:
        """One of ``legal`` (``SideBot.act`` checked there is one)."""
        live, unseen = live_counts(view)
        if view.phase == "draw":
            return self._start(view, legal, live, unseen)
        return self._after_draw(view, legal, live, unseen)

    @staticmethod
    def value(hand: list[int], live: list[int], unseen: int) -> float:
        """The bot's value of a 15-card hand (higher is better)."""
        return 10 * covered(hand) + OUTS_WEIGHT * outs(hand, live) / unseen + 0.1 * connected(hand)

    def best_discard(self, hand: list[int], live: list[int], unseen: int) -> tuple[int, float]:
        """(card, value after discarding it) over the shortlist of greedy-best discards."""
        best_card, best_value = -1, float("-inf")
        for c, v in self.discard_values(hand, live, unseen):
            if v > best_value:
                best_card, best_value = c, v
        return best_card, best_value

    def discard_values(
        self, hand: list[int], live: list[int], unseen: int
    ) -> list[tuple[int, float]]:
        """(card, value after discarding it) of the shortlist of greedy-best discards, in order."""
        # A joker is never discarded while a natural is held.
        held = [c for c in range(NUM_TYPES) if hand[c] and not (c == JOKER and any(hand[:JOKER]))]
        screened = after_each_discard(
            hand, held, lambda rest: -(10 * covered(rest) + connected(rest))
        )
        shortlist = [c for _key, c in sorted((key, c) for c, key in screened)[:SHORTLIST]]
        return after_each_discard(hand, shortlist, lambda rest: self.value(rest, live, unseen))

    def _start(self, view: FifteenView, legal: list[int], live: list[int], unseen: int) -> int:
        if OUT in legal:
            return OUT
        top = view.discard_top
        if TAKE not in legal or top is None:
            return DRAW
        with_top = list(view.hand)
        with_top[top] += 1
        if going_out_discards(with_top):
            return TAKE
        _card, after = self.best_discard(with_top, live, unseen)
        return TAKE if after > self.value(list(view.hand), live, unseen) + 1e-9 else DRAW

    def _after_draw(self, view: FifteenView, legal: list[int], live: list[int], unseen: int) -> int:
        outs_ = [a for a in legal if a >= OUT_BASE]
        if outs_:
            first = view.first_turn

            def pay(action: int) -> int:
                rest = list(view.hand)
                rest[action - OUT_BASE] -= 1
                cards = [c for c in range(NUM_TYPES) for _ in range(rest[c])]
                return payment(cards, first_turn=first, drew=True)["total"]

            return max(outs_, key=lambda a: (pay(a), -a))
        card, _value = self.best_discard(view.hand, live, unseen)
        return DISCARD_BASE + card
