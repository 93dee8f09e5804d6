"""The knock ``greedy`` bot: minimise deadwood, knock as soon as allowed, no look-ahead, no memory.

Strategy, phase by phase. A hand is valued by its deadwood as the other players would count it
(``melds.deadwood``, aces 15), ties broken by its deadwood as a knocker counts it (aces 1):
lower is better.

* **Start of the turn.** Announce whenever the engine offers it: ``continental`` first (it wins
  the pot), else the announcement with the largest bonus (color 0.8 stakes, rummy 0.4 plus 0.2
  per joker from the third, knock 0.2), equal bonuses going to the lower points. So it knocks as
  soon as its deadwood (aces 1) is 5 or less. Otherwise it takes the top discard when that card
  lets it announce after discarding, or when keeping it and discarding the worst card lowers the
  hand's deadwood; else it draws from the stock.
* **After drawing.** Announce with a discard when the engine offers it (the same order, then
  the discard that leaves the best announcement). Otherwise discard the card whose loss leaves
  the lowest deadwood (ties: the highest-valued card, then the lowest card id), so it is
  deterministic.
* **Buy-back.** Buy when it pays: when the cost (1, 2, 4 ... stakes) is at most the seat's equal
  share of the pot among the players still in, the pot it stays in the game to win. Else pass.

Lays, deadwood and every announcement check are the meld validator's (``continental_env.melds``).
"""

from __future__ import annotations

from agents.knock.view import KnockView
from agents.side_common import SideBot
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.knock.game import (
    BUY,
    COLOR,
    COLOR_BASE,
    CONTINENTAL,
    CONTINENTAL_BASE,
    DISCARD_BASE,
    DRAW,
    KNOCK,
    PASS,
    RUMMY,
    RUMMY_BASE,
    TAKE,
    bonus,
)
from continental_env.melds import (
    KNOCKER_RULES,
    LAY_RULES,
    color_discards,
    continental_discards,
    deadwood,
    rummy_discards,
)
from continental_env.rules import points_table

VALUES = points_table(KNOCKER_RULES)  # only used for ties: a card's face value, aces low
DEAD_VALUES = points_table(LAY_RULES)  # a card's deadwood as the others count it (aces 15)


def _has_ace(hand: list[int]) -> bool:
    return bool(hand[0] or hand[13] or hand[26] or hand[39])


def hand_value(hand: list[int]) -> tuple[int, int]:
    """The greedy bot's value of a hand (lower is better): deadwood with aces 15, then 1."""
    dead = deadwood(hand)
    # Aces are the only cards whose value differs: without one, both counts agree.
    return dead, deadwood(hand, 1) if _has_ace(hand) else dead


def announcement_score(kind: str, cards: list[int], stake: int) -> tuple[int, int, int]:
    """How much the bot likes an announcement with these 10 cards (higher is better)."""
    if kind == "continental":
        return (1, 0, 0)
    jokers = cards[JOKER]
    points = {"knock": deadwood(cards, 1), "rummy": -10, "color": -25}[kind]
    return (0, bonus(kind, stake, jokers), -points)


class KnockGreedyAgent(SideBot):
    """Minimises deadwood, knocks as soon as allowed, buys back when it pays."""

    name = "greedy"

    def decide(self, view: KnockView, legal: list[int]) -> int:
        """One of ``legal`` (``SideBot.act`` checked there is one)."""
        if view.phase == "buy":
            return BUY if self.buy_pays(view) else PASS
        if view.phase == "draw":
            return self._start(view, legal)
        return self._after_draw(view, legal)

    @staticmethod
    def buy_pays(view: KnockView) -> bool:
        """Whether the buy-back costs at most the seat's equal share of the pot."""
        return view.buy_cost * view.players_in <= view.pot

    def _start(self, view: KnockView, legal: list[int]) -> int:
        words = {KNOCK: "knock", RUMMY: "rummy", COLOR: "color", CONTINENTAL: "continental"}
        offered = [a for a in legal if a in words]
        if offered:
            return max(
                offered, key=lambda a: (announcement_score(words[a], view.hand, view.stake), -a)
            )
        top = view.discard_top
        if TAKE not in legal or top is None:
            return DRAW
        with_top = list(view.hand)
        with_top[top] += 1
        if rummy_discards(with_top) or color_discards(with_top) or continental_discards(with_top):
            return TAKE
        _card, after = self.best_discard(with_top)
        dead = deadwood(view.hand)  # the second count only decides a tie of the first
        if after[0] != dead:
            return TAKE if after[0] < dead else DRAW
        return TAKE if after < hand_value(view.hand) else DRAW

    @staticmethod
    def best_discard(hand: list[int]) -> tuple[int, tuple[int, int]]:
        """(card, value after discarding it): the discard leaving the lowest deadwood."""
        work = list(hand)
        # Deadwood with aces 15 after each discard, solved only where it may be the lowest:
        # losing card c leaves at least the whole hand's deadwood minus c's value, so cards are
        # tried highest first and a low card is skipped once that bound exceeds the best found.
        # The aces-1 count breaks ties of the lowest.
        whole = deadwood(work)
        first = {}
        low = None
        for c in sorted((c for c in range(NUM_TYPES) if work[c]), key=lambda c: -DEAD_VALUES[c]):
            if low is not None and whole - DEAD_VALUES[c] > low:
                continue
            work[c] -= 1
            first[c] = deadwood(work)
            work[c] += 1
            low = first[c] if low is None else min(low, first[c])
        best_key = None
        best_card, best_value = -1, (0, 0)
        for c, dead in first.items():
            if dead != low:
                continue
            work[c] -= 1
            value = (dead, deadwood(work, 1) if _has_ace(work) else dead)
            work[c] += 1
            key = (value, -VALUES[c] if c != JOKER else 0, c)
            if best_key is None or key < best_key:
                best_key, best_card, best_value = key, c, value
        return best_card, best_value

    def _after_draw(self, view: KnockView, legal: list[int]) -> int:
        kinds = ((CONTINENTAL_BASE, "continental"), (COLOR_BASE, "color"), (RUMMY_BASE, "rummy"))
        options = []
        for base, kind in kinds:
            for a in legal:
                if base <= a < base + NUM_TYPES:
                    rest = list(view.hand)
                    rest[a - base] -= 1
                    options.append((announcement_score(kind, rest, view.stake), -a))
        if options:
            return -max(options)[1]
        card, _value = self.best_discard(view.hand)
        return DISCARD_BASE + card
