"""The ``greedy`` bot: the simplest sound play, with no look-ahead and no memory.

Strategy, phase by phase (the contract's meld kinds decide what a "partial meld" is: in a
trios-only round a pair of the same rank, in a runs-only round two cards of one suit close enough
to share a run, and either in a mixed round; a joker partners any card):

* **Draw.** Before laying down, take the top discard only if it starts a meld with a card in hand
  (it joins a partial meld or makes a two-card start). After laying down, take it only if it can
  be laid off on a table meld. Otherwise draw from the stock.
* **Claim.** Claim the declined discard only if the hand with that card holds the contract and
  the hand without it does not. The penalty card is never worth a card that merely helps.
* **Play.** Close when it can. Lay down as soon as the contract is in hand (the engine picks the
  arrangement that leaves the fewest points). Once down, swap a joker off the table when it holds
  the natural it stands for and the joker can then be laid off somewhere, and lay off every card
  it can.
* **Discard.** The highest-point card that belongs to no partial meld (jokers always belong);
  if every card belongs to one, the card with the fewest partners, highest points first. Once
  down, simply the highest-point card. Ties go to the lowest card id, so the bot is
  deterministic.

Meld validity comes from ``melds.py`` (the engine's legal actions and ``handtools.partner_table``,
built from ``is_valid_meld``); nothing here re-derives melds.
"""

from __future__ import annotations

from agents.bots.base import SeededAgent
from agents.contract.handtools import contract_bits, fits_table, partner_table, partners
from agents.contract.view import PlayerView
from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract.game import CLAIM, CLOSE, DISCARD_BASE, DRAW, LAYDOWN, PASS, TAKE
from continental_env.melds import can_fit, has_contract


class GreedyAgent(SeededAgent):
    """Lays down at once, lays off everything, discards its highest unmatched card."""

    name = "greedy"

    # Deterministic; SeededAgent accepts a seed so every bot is built the same way.

    # ------------------------------------------------------------------ phases

    def _draw(self, view: PlayerView, legal: list[int]) -> int:
        top = view.discard_top
        if TAKE not in legal or top is None:
            return DRAW
        if view.laid_down[view.seat]:
            return TAKE if fits_table(view, top) else DRAW
        table = partner_table(view.rules)
        if partners(view.hand, top, table, contract_bits(view.contract)) > 0:
            return TAKE
        return DRAW

    def _claim(self, view: PlayerView) -> int:
        top = view.discard_top
        if top is None or view.laid_down[view.seat]:
            return PASS
        trios, runs = view.contract
        if has_contract(view.hand, trios, runs, view.rules):
            return PASS
        hand = list(view.hand)
        hand[top] += 1
        return CLAIM if has_contract(hand, trios, runs, view.rules) else PASS

    def _play(self, view: PlayerView, legal: list[int]) -> int:
        if CLOSE in legal:
            return CLOSE
        if LAYDOWN in legal:
            return LAYDOWN
        layout = view.layout
        swap = _useful_swap(view, legal)
        if swap is not None:
            return swap
        layoffs = [a for a in legal if layout.layoff_base <= a < layout.swap_base]
        if layoffs:
            return layoffs[0]
        return self._discard(view, legal)

    def _discard(self, view: PlayerView, legal: list[int]) -> int:
        pts = view.points
        cards = [a - DISCARD_BASE for a in legal if DISCARD_BASE <= a < DISCARD_BASE + NUM_TYPES]
        if view.laid_down[view.seat]:
            best = max(cards, key=lambda c: (pts[c], -c))
            return DISCARD_BASE + best
        table = partner_table(view.rules)
        bits = contract_bits(view.contract)
        hand = view.hand

        def key(c: int) -> tuple:
            n = NUM_TYPES if c == JOKER else partners(hand, c, table, bits)
            return (n, -pts[c], c)

        return DISCARD_BASE + min(cards, key=key)


def _useful_swap(view: PlayerView, legal: list[int]) -> int | None:
    """A legal joker swap after which the joker can be laid off (hand keeps a card), or None."""
    layout = view.layout
    if view.hand_size < 2:
        return None
    # A swap leaves every meld's shape unchanged, so where a joker fits now it fits after.
    if not any(can_fit(meld, JOKER, view.rules) for meld in view.table):
        return None
    for a in legal:
        if layout.swap_base <= a < layout.move_base:
            return a
    return None
