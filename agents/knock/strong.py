"""The knock ``strong`` bot: race to a knock on live cards, announce at once, buy back when it pays.

What wins chips in the knock game: the pot (every ante, every buy-back and the bonuses of the
hands' worst players) goes to the last player with 100 points or less, and each announcement
earns a bonus from every other player (0.2 / 0.4 / 0.8 stakes for knock / rummy / color). Points
come from the deadwood a player holds when *someone else* ends the hand; the announcer scores at
most 5 (knock, aces counting 1), -10 (rummy) or -25 (color). So a hand is won by being first to
announce, and lost in proportion to the deadwood held when another player does. The bot plays
for both, on the cards it can still get.

Strategy, phase by phase:

* **Card counting.** Two decks and the jokers: a copy of a card is *dead* to this seat when it is
  in its own hand, in the discard pile under the top card, or among the cards an opponent is
  known to hold because it took them from the pile; the rest are *live* (the stock and hidden
  hands), each as likely to be the next stock card.
* **Hand value** (a cost, lower is better) of the 10 cards kept: the deadwood as the others
  count it (aces 15, the meld validator's ``best_lays``), minus ``READY_BONUS`` when the hand
  may knock at the start of the next turn (deadwood with aces 1 at most 5: an ace kept for the
  knock costs 1, not 15), minus ``DRAW_WEIGHT`` times the expected deadwood the next stock card
  saves: for each live card, the best of completing a two-card draw among the loose cards
  (a pair of one rank, or two of a suit one or two ranks apart: both stop counting), extending a
  lay, or simply replacing the highest loose card, each followed by discarding the highest loose
  card left. Of two hands with equal deadwood the bot keeps the one with live draws.
* **Start of the turn.** Announce whenever the engine offers it: ``continental`` first (the whole
  pot), else the announcement with the largest bonus (color, rummy, knock), so it knocks as soon
  as it may: waiting only gives the others a turn to end the hand on its deadwood. Otherwise take
  the top discard when it lets the bot announce after discarding, or when the best hand after
  taking it and discarding costs less than the hand held now (whose value already counts the
  stock card's expected help). Else draw.
* **After drawing.** Announce rummy, color or continental with a discard when offered (the same
  order). Otherwise discard the card whose loss leaves the cheapest hand; ties go to the
  highest-valued card, then the lowest card id, so the bot is deterministic.
* **Buy-back.** Staying in keeps a chance at the pot. Bought back, the seat starts again from the
  second-lowest total of the others: behind the leader and with the hands that sent it over 80
  still in its recent past, so it is credited with ``BUY_SHARE`` (half) of an equal share of the
  pot; without buying, over 80 points, it keeps about ``NO_BUY_CHANCE`` of winning it. It buys
  when the gain in the chance of winning, times the pot the cost swells, exceeds the cost (1, 2,
  4 ... stakes).
* **Why the next draw weighs half.** Points decide who is left to take the pot, and a hand's
  points are the deadwood held when another player ends it. Valuing the next stock card at its
  full expected saving or more made the bot race: it announced more often than ``greedy`` but
  held more deadwood when it did not, and lost full games to it. At ``DRAW_WEIGHT`` 0.5 the live
  draws break near-ties without buying speed with deadwood (the full-game screens in
  docs/side-games.md).

It reads only its ``KnockView`` (own hand, discard pile, cards known taken, points, chips, pot);
a test checks that its decisions do not change when hidden cards change.
"""

from __future__ import annotations

from agents.knock.greedy import announcement_score
from agents.knock.view import KnockView
from agents.side_common import after_each_discard
from continental_env.cards import JOKER, NUM_NATURALS, NUM_TYPES
from continental_env.knock.game import (
    BUY,
    COLOR,
    COLOR_BASE,
    CONTINENTAL,
    CONTINENTAL_BASE,
    DECKS,
    DISCARD_BASE,
    DRAW,
    KNOCK,
    KNOCK_LIMIT,
    PASS,
    RUMMY,
    RUMMY_BASE,
    TAKE,
    jokers_for,
)
from continental_env.melds import (
    best_lays,
    color_discards,
    continental_discards,
    deadwood_within,
    rummy_discards,
)

READY_BONUS = 20.0  # deadwood points a hand that may knock next turn is worth
DRAW_WEIGHT = 0.5  # expected deadwood saved by the next stock card, in deadwood points
BUY_SHARE = 0.5  # a bought-back seat's chance of the pot, as a fraction of an equal share
NO_BUY_CHANCE = 0.0  # the chance of the pot of a seat over 80 that does not buy back


def card_value(card: int) -> int:
    """Deadwood of one card as the others count it (aces 15, jokers 20)."""
    if card == JOKER:
        return 20
    rank = card % 13
    return 15 if rank == 0 else min(rank + 1, 10)


def live_counts(view: KnockView) -> tuple[list[int], int]:
    """(live copies of each card type, unseen cards): what this seat may still draw."""
    live = [DECKS] * NUM_NATURALS + [jokers_for(view.num_players)]
    for c in range(NUM_TYPES):
        live[c] -= view.hand[c]
    for c in view.discard[:-1]:  # the top card is takeable
        live[c] -= 1
    for seat, known in enumerate(view.known):
        if seat != view.seat:
            for c in range(NUM_TYPES):
                live[c] -= known[c]
    live = [max(0, n) for n in live]
    return live, max(1, sum(live))


def _positions(rank: int) -> tuple[int, ...]:
    """Sequence positions of a rank: 0 = ace low .. 12 = king, 13 = ace high."""
    return (0, 13) if rank == 0 else (rank,)


def _card_at(suit: int, position: int) -> int | None:
    if position < 0 or position > 13:
        return None
    return suit * 13 + (0 if position == 13 else position)


def _extensions(lays: list[list[int]]) -> set[int]:
    """Natural cards that would join one of the lays."""
    out: set[int] = set()
    for lay in lays:
        naturals = [(i, c) for i, c in enumerate(lay) if c != JOKER]
        if not naturals:
            continue
        ranks = {c % 13 for _i, c in naturals}
        suits = {c // 13 for _i, c in naturals}
        if len(ranks) == 1:  # a set (or a run of one natural): any card of the rank
            r = next(iter(ranks))
            out.update(s * 13 + r for s in range(4))
        if len(suits) == 1:  # a run: the cards beyond either end
            suit = next(iter(suits))
            i, c = naturals[0]
            first = c % 13
            if first == 0 and i > 0:
                first = 13  # an ace after other cards is high
            start = first - i
            for pos in (start - 1, start + len(lay)):
                card = _card_at(suit, pos)
                if card is not None:
                    out.add(card)
    return out


def _loose_cards(hand: list[int], lays: list[list[int]]) -> list[int]:
    """The cards outside ``lays``, lowest value first."""
    loose = list(hand)
    for lay in lays:
        for c in lay:
            loose[c] -= 1
    return sorted((c for c in range(NUM_TYPES) for _ in range(loose[c])), key=card_value)


def _pair_completers(x: int, y: int) -> set[int]:
    """The cards that make a lay of the two naturals ``x`` and ``y`` (a trio or a run of three)."""
    completers: set[int] = set()
    if x % 13 == y % 13:
        completers.update(s * 13 + x % 13 for s in range(4))
    if x // 13 == y // 13 and x != y:
        suit = x // 13
        for px in _positions(x % 13):
            for py in _positions(y % 13):
                lo, hi = min(px, py), max(px, py)
                if hi - lo == 1:
                    completers.update(
                        c for c in (_card_at(suit, lo - 1), _card_at(suit, hi + 1)) if c is not None
                    )
                elif hi - lo == 2:
                    mid = _card_at(suit, lo + 1)
                    if mid is not None:
                        completers.add(mid)
    return completers


def _pair_gains(cards: list[int], live: list[int], gain: list[float]) -> float:
    """Raise ``gain`` of each live card that completes a pair of loose naturals to the deadwood
    that lay saves; returns the largest such saving (what a joker would save)."""
    naturals = [c for c in cards if c != JOKER]
    best_pair = 0.0
    for i, x in enumerate(naturals):
        for y in naturals[i + 1 :]:
            rest = list(cards)
            rest.remove(x)
            rest.remove(y)
            after = card_value(rest[-1]) if rest else 0
            saved = card_value(x) + card_value(y) + after
            completers = _pair_completers(x, y)
            if not completers:
                continue
            best_pair = max(best_pair, saved)
            for c in completers:
                if live[c]:
                    gain[c] = max(gain[c], saved)
    return best_pair


def expected_saving(hand: list[int], lays: list[list[int]], live: list[int], unseen: int) -> float:
    """Expected deadwood the next stock card saves (module docstring), aces counting 15."""
    cards = _loose_cards(hand, lays)
    if not cards:
        return 0.0
    top = card_value(cards[-1])
    gain = [0.0] * NUM_TYPES
    for c in range(NUM_TYPES):
        if live[c]:
            gain[c] = max(0, top - card_value(c))  # replaces the highest loose card
    for c in _extensions(lays):
        if live[c]:
            gain[c] = max(gain[c], top)  # joins a lay; the highest loose card goes
    best_pair = _pair_gains(cards, live, gain)
    if live[JOKER]:
        gain[JOKER] = max(best_pair, top if lays else 0.0)
    return sum(live[c] * gain[c] for c in range(NUM_TYPES)) / unseen


def cost_parts(hand: list[int], live: list[int], unseen: int) -> tuple[int, bool, float]:
    """The weight-free parts of a 10-card hand's cost: its deadwood (aces 15), whether it may
    knock next turn, and the expected deadwood the next stock card saves."""
    dead, lays = best_lays(hand)
    has_ace = any(hand[suit * 13] for suit in range(4))
    ready = dead <= KNOCK_LIMIT or (has_ace and deadwood_within(hand, KNOCK_LIMIT, 1))
    return dead, bool(ready), expected_saving(hand, lays, live, unseen)


class KnockStrongAgent:
    """Races to a knock on live cards, announces at once, buys back when it pays."""

    name = "strong"

    def __init__(
        self,
        seed: object = None,
        *,
        ready_bonus: float = READY_BONUS,
        draw_weight: float = DRAW_WEIGHT,
        buy_share: float = BUY_SHARE,
        no_buy_chance: float = NO_BUY_CHANCE,
    ) -> None:
        """The bot; the keyword weights default to the module's constants (screens vary them)."""
        del seed  # deterministic; the seed is accepted so every bot is built the same way
        self.ready_bonus = ready_bonus
        self.draw_weight = draw_weight
        self.buy_share = buy_share
        self.no_buy_chance = no_buy_chance

    def act(self, view: KnockView) -> int:
        """A legal action id for the seat to act."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (phase {view.phase!r})")
        if view.phase == "buy":
            return BUY if BUY in legal and self.buy_pays(view) else PASS
        live, unseen = live_counts(view)
        if view.phase == "draw":
            return self._start(view, legal, live, unseen)
        return self._after_draw(view, legal, live, unseen)

    def buy_pays(self, view: KnockView) -> bool:
        """Whether the gain in the chance of the pot outweighs the cost (module docstring)."""
        cost = view.buy_cost
        chance = self.buy_share / view.players_in - self.no_buy_chance
        return chance * (view.pot + cost) > cost

    def cost(self, hand: list[int], live: list[int], unseen: int) -> float:
        """The bot's cost of a 10-card hand (lower is better)."""
        return self.weigh(*cost_parts(hand, live, unseen))

    def weigh(self, dead: float, ready: bool, saving: float) -> float:
        """The cost of a hand from its weight-free parts (``cost_parts``)."""
        return dead - self.ready_bonus * ready - self.draw_weight * saving

    def best_discard(self, hand: list[int], live: list[int], unseen: int) -> tuple[int, float]:
        """(card, cost after discarding it)."""
        costs = self.discard_costs(hand, live, unseen)
        if not costs:
            return -1, 0.0
        return min(costs, key=lambda cv: (cv[1], -card_value(cv[0]), cv[0]))

    def discard_costs(
        self, hand: list[int], live: list[int], unseen: int
    ) -> list[tuple[int, float]]:
        """(card, cost after discarding it) of every card type held."""
        held = [c for c in range(NUM_TYPES) if hand[c]]
        return after_each_discard(hand, held, lambda rest: self.cost(rest, live, unseen))

    def _start(self, view: KnockView, legal: list[int], live: list[int], unseen: int) -> int:
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
        _card, after = self.best_discard(with_top, live, unseen)
        return TAKE if after < self.cost(list(view.hand), live, unseen) - 1e-9 else DRAW

    def _after_draw(self, view: KnockView, legal: list[int], live: list[int], unseen: int) -> int:
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
        card, _value = self.best_discard(view.hand, live, unseen)
        return DISCARD_BASE + card
