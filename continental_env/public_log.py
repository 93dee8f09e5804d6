"""The round's public actions, as the features of ``continental_env.features`` read them.

Pure Python (the engine may keep one). Every action of the contract game is public; an entry
records who acted, the kind of action and the card it showed: the discard, the card taken or
claimed, the card on offer that was declined (``draw`` over it, or ``pass`` on a claim), the card
laid off or swapped in. A ``draw`` never records the card drawn, a claim never the penalty card,
a ``close`` never its face-down card. Besides the entries, per-seat totals (cards discarded,
cards declined, takes, discards) are kept as they come.

Entry kinds (``KINDS`` index): draw, take, claim, pass, laydown, close, discard, layoff, swap,
movejoker; the card is a card id (0..52) or ``NO_CARD`` (-1).
"""

from __future__ import annotations

from typing import Any

from continental_env.cards import JOKER, NUM_TYPES

KINDS = ("draw", "take", "claim", "pass", "laydown", "close", "discard", "layoff", "swap",
         "movejoker")  # fmt: skip
_KIND_INDEX = {k: i for i, k in enumerate(KINDS)}
_DRAW, _TAKE, _PASS, _DISCARD = (_KIND_INDEX[k] for k in ("draw", "take", "pass", "discard"))
NO_CARD = -1


class PublicLog:
    """The round's public actions: ``(seat, kind index, card shown or -1)`` entries.

    ``record(game, action)`` must be called *before* the engine applies ``action``; entries of
    an earlier round (or game) are dropped when the next round's first action is recorded, and
    ``entries(game)`` returns nothing for a round the log has not seen. Per-seat totals (cards
    discarded, cards declined, takes, discards) are kept as the entries come, so the features
    never re-read a long round.
    """

    def __init__(self) -> None:
        self.key: tuple[int, int] | None = None
        self.items: list[tuple[int, int, int]] = []
        self.discarded: list[list[int]] = []  # per absolute seat, per card type
        self.declined: list[list[int]] = []
        self.takes: list[int] = []
        self.discards: list[int] = []

    def copy(self) -> PublicLog:
        out = PublicLog()
        out.key = self.key
        out.items = list(self.items)
        out.discarded = [list(row) for row in self.discarded]
        out.declined = [list(row) for row in self.declined]
        out.takes = list(self.takes)
        out.discards = list(self.discards)
        return out

    @classmethod
    def restore(
        cls, key: tuple[int, int], items: list[tuple[int, int, int]], num_players: int
    ) -> PublicLog:
        """A log holding ``items`` of the round ``key`` (e.g. from a saved state), totals rebuilt."""
        out = cls()
        out._start(key, num_players)
        for seat, kind, card in items:
            out._add(seat, kind, card)
        return out

    def _start(self, key: tuple[int, int], p: int) -> None:
        self.key = key
        self.items = []
        self.discarded = [[0] * NUM_TYPES for _ in range(p)]
        self.declined = [[0] * NUM_TYPES for _ in range(p)]
        self.takes = [0] * p
        self.discards = [0] * p

    def _add(self, seat: int, kind: int, card: int) -> None:
        self.items.append((seat, kind, card))
        if kind == _DISCARD:
            self.discarded[seat][card] += 1
            self.discards[seat] += 1
        elif kind in (_DRAW, _PASS) and card != NO_CARD:
            self.declined[seat][card] += 1
        elif kind == _TAKE:
            self.takes[seat] += 1

    @staticmethod
    def round_key(game: Any) -> tuple[int, int]:
        seeds = game.deal_seeds
        i = game.round_index
        return (i, seeds[i] if i < len(seeds) else -1)

    def record(self, game: Any, action: int) -> None:
        key = self.round_key(game)
        if key != self.key:
            self._start(key, game.num_players)
        seat = game.actor
        kind, *args = game.layout.decode(action)
        top = game.discard[-1] if game.discard else NO_CARD
        if kind in ("draw", "take", "claim", "pass"):
            card = top
        elif kind in ("discard", "swap"):
            card = args[0]
        elif kind == "layoff":
            card = min(args[0], JOKER)  # joker slots (52, 53, 54) show a joker
        else:  # laydown, close (face down), movejoker
            card = NO_CARD
        self._add(seat, _KIND_INDEX[kind], card)

    def entries(self, game: Any) -> list[tuple[int, int, int]]:
        """This round's entries, oldest first (empty if the log belongs to another round)."""
        if game.phase == "game_over" or self.key != self.round_key(game):
            return []
        return self.items
