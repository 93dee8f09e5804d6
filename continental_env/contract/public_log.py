"""The round's public actions, as the features of ``continental_env.contract.features`` read them.

Pure Python. The engine keeps one as ``state.public_log`` (``game.public_log``): emptied at each
deal, fed in ``Game.apply`` after the legality check and before the action's effect, copied by
``clone``, written to the state JSON as ``"public_log"`` and kept by a seat's redacted view (it is
public). Every action of the contract game is public; an entry
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
        # Per absolute seat and card type, flat (``seat * NUM_TYPES + card``): one list each, so
        # that a copy (every clone and every seat's view of a position) is a few slices.
        self.discarded: list[int] = []
        self.declined: list[int] = []
        self.takes: list[int] = []
        self.discards: list[int] = []

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PublicLog) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def copy(self) -> PublicLog:
        out = PublicLog()
        out.key = self.key
        out.items = list(self.items)
        out.discarded = self.discarded[:]
        out.declined = self.declined[:]
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

    def start(self, key: tuple[int, int], p: int) -> None:
        """Empty the log for the round ``key`` at a table of ``p`` seats (the engine calls it at
        each deal)."""
        self._start(key, p)

    def _start(self, key: tuple[int, int], p: int) -> None:
        self.key = key
        self.items = []
        self.discarded = [0] * (NUM_TYPES * p)
        self.declined = [0] * (NUM_TYPES * p)
        self.takes = [0] * p
        self.discards = [0] * p

    def _add(self, seat: int, kind: int, card: int) -> None:
        self.items.append((seat, kind, card))
        if kind == _DISCARD:
            self.discarded[seat * NUM_TYPES + card] += 1
            self.discards[seat] += 1
        elif kind in (_DRAW, _PASS) and card != NO_CARD:
            self.declined[seat * NUM_TYPES + card] += 1
        elif kind == _TAKE:
            self.takes[seat] += 1

    @staticmethod
    def key_for(round_index: int, deal_seeds: list[int]) -> tuple[int, int]:
        """The key of the round at ``round_index`` of a game dealt from ``deal_seeds``."""
        i = round_index
        return (i, deal_seeds[i] if i < len(deal_seeds) else -1)

    @staticmethod
    def round_key(game: Any) -> tuple[int, int]:
        return PublicLog.key_for(game.round_index, game.deal_seeds)

    def record(self, game: Any, action: int) -> None:
        """Log ``action`` of the seat to act, before ``game`` applies it (a new round's first
        action starts a new log)."""
        key = self.round_key(game)
        if key != self.key:
            self._start(key, game.num_players)
        kind, *args = game.layout.decode(action)
        self.note(game.actor, kind, args, game.discard[-1] if game.discard else NO_CARD)

    def note(self, seat: int, kind: str, args: Any, top: int) -> None:
        """Log an action already decoded (``kind``, ``args``) of ``seat``, ``top`` being the
        discard pile's top card (or ``NO_CARD``) before it: the engine's path."""
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
