"""The action codec of the contract game: integer ids, their text forms, and back.

One ``Discrete(N)`` space per table size: ``N`` depends only on the number of players, so
``num_actions(num_players)`` answers without building a game. Text forms follow DESIGN.md's
grammar; ``ActionLayout.decode`` gives the engine ``(kind, *args)`` of an id.

Action ids (``P`` players, ``M = 3P`` meld slots; the layout is ``ActionLayout``):

| ids | text | meaning |
|---|---|---|
| 0 | ``draw`` | decline the discard, draw from the stock (opens the claim window) |
| 1 | ``take`` | take the top discard |
| 2 | ``claim`` | claim the declined discard (with a penalty card) |
| 3 | ``pass`` | do not claim |
| 4 | ``laydown`` | lay down the contract |
| 5 | ``close`` | place the last card face down, end the round |
| 6 .. 58 | ``discard C`` | discard card type C (0..52) |
| 59 + 55m + c | ``layoff C m`` | lay off natural C (0..51) on meld m |
| 59 + 55m + 52 | ``layoff JK m`` | a joker on trio m |
| 59 + 55m + 53/54 | ``layoff JK m low/high`` | a joker at the low/high end of run m |
| S + 52m + c | ``swap C m`` | natural C replaces a joker of meld m (S = 59 + 55M) |
| V + 2(mM + n) + e | ``movejoker m n low/high`` | 003: move a joker from own run m to run n (V = S + 52M) |
"""

from __future__ import annotations

import operator
from functools import cached_property, lru_cache

from continental_env.cards import JOKER, NUM_NATURALS, NUM_TYPES, card_from_str, card_to_str
from continental_env.melds import HIGH, LOW

DRAW, TAKE, CLAIM, PASS, LAYDOWN, CLOSE = range(6)
DISCARD_BASE = 6
LAYOFF_BASE = DISCARD_BASE + NUM_TYPES  # 59
LAYOFF_SLOTS = 55  # 52 naturals, joker on a trio, joker low, joker high
SLOT_JOKER = 52
SLOT_JOKER_LOW = 53
SLOT_JOKER_HIGH = 54
SWAP_SLOTS = NUM_NATURALS

SIMPLE_ACTIONS = ("draw", "take", "claim", "pass", "laydown", "close")


class ActionLayout:
    """The fixed integer action layout for a table of ``num_players``."""

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self.max_melds = 3 * num_players
        self.layoff_base = LAYOFF_BASE
        self.swap_base = LAYOFF_BASE + LAYOFF_SLOTS * self.max_melds
        self.move_base = self.swap_base + SWAP_SLOTS * self.max_melds
        self.num_actions = self.move_base + 2 * self.max_melds * self.max_melds

    def layoff(self, meld: int, slot: int) -> int:
        """Id of a lay-off on meld ``meld`` (slot: natural card, or a SLOT_JOKER* value)."""
        return self.layoff_base + LAYOFF_SLOTS * meld + slot

    def swap(self, meld: int, card: int) -> int:
        """Id of swapping natural ``card`` for a joker of meld ``meld``."""
        return self.swap_base + SWAP_SLOTS * meld + card

    def move(self, src: int, dst: int, end: str) -> int:
        """Id of moving the joker at an end of run ``src`` to the ``end`` of run ``dst``."""
        return self.move_base + 2 * (src * self.max_melds + dst) + (1 if end == HIGH else 0)

    @cached_property
    def parts(self) -> list[tuple[str, tuple]]:
        """``(kind, args)`` of every id, ``decode``'s answer split once for the engine's apply
        (an index instead of a decode per action)."""
        return [(kind, tuple(args)) for kind, *args in map(self.decode, range(self.num_actions))]

    def decode(self, action: int) -> tuple:
        """(kind, *args) of an action id; ValueError if out of range."""
        if not isinstance(action, int) or isinstance(action, bool):
            try:
                action = operator.index(action)  # numpy integers
            except TypeError:
                raise ValueError(f"action {action!r} is not an integer id") from None
        if action < 0 or action >= self.num_actions:
            raise ValueError(f"action {action} is out of range 0..{self.num_actions - 1}")
        if action < DISCARD_BASE:
            return (SIMPLE_ACTIONS[action],)
        if action < LAYOFF_BASE:
            return ("discard", action - DISCARD_BASE)
        if action < self.swap_base:
            meld, slot = divmod(action - LAYOFF_BASE, LAYOFF_SLOTS)
            return ("layoff", slot, meld)
        if action < self.move_base:
            meld, card = divmod(action - self.swap_base, SWAP_SLOTS)
            return ("swap", card, meld)
        pair, end = divmod(action - self.move_base, 2)
        src, dst = divmod(pair, self.max_melds)
        return ("movejoker", src, dst, HIGH if end else LOW)

    def to_str(self, action: int) -> str:
        """Text form of an action id (DESIGN.md grammar)."""
        kind, *args = self.decode(action)
        if kind in SIMPLE_ACTIONS:
            return kind
        if kind == "discard":
            return f"discard {card_to_str(args[0])}"
        if kind == "layoff":
            slot, meld = args
            if slot < SLOT_JOKER:
                return f"layoff {card_to_str(slot)} {meld}"
            if slot == SLOT_JOKER:
                return f"layoff JK {meld}"
            return f"layoff JK {meld} {'low' if slot == SLOT_JOKER_LOW else 'high'}"
        if kind == "swap":
            return f"swap {card_to_str(args[0])} {args[1]}"
        src, dst, end = args
        return f"movejoker {src} {dst} {end}"

    def from_str(self, text: str) -> int:
        """Action id of a text form; ValueError naming the problem if malformed."""
        tokens = text.strip().split()
        if not tokens:
            raise ValueError("empty action text")
        word = tokens[0].lower()
        if word in SIMPLE_ACTIONS:
            if len(tokens) != 1:
                raise ValueError(f"{text!r}: '{word}' takes no arguments")
            return SIMPLE_ACTIONS.index(word)
        parse = {
            "discard": self._parse_discard,
            "layoff": self._parse_layoff,
            "swap": self._parse_swap,
            "movejoker": self._parse_movejoker,
        }.get(word)
        if parse is None:
            raise ValueError(
                f"{text!r}: unknown action '{word}' (draw, take, claim, pass, laydown, close, "
                "discard, layoff, swap, movejoker)"
            )
        return parse(tokens, text)

    def _parse_discard(self, tokens: list[str], text: str) -> int:
        if len(tokens) != 2:
            raise ValueError(f"{text!r}: expected 'discard C'")
        return DISCARD_BASE + card_from_str(tokens[1])

    def _parse_layoff(self, tokens: list[str], text: str) -> int:
        if len(tokens) not in (3, 4):
            raise ValueError(f"{text!r}: expected 'layoff C M' or 'layoff JK M low|high'")
        card = card_from_str(tokens[1])
        meld = self._meld_index(tokens[2], text)
        if card != JOKER:
            if len(tokens) != 3:
                raise ValueError(f"{text!r}: only a joker takes an end")
            return self.layoff(meld, card)
        if len(tokens) == 3:
            return self.layoff(meld, SLOT_JOKER)
        end = tokens[3].lower()
        if end not in (LOW, HIGH):
            raise ValueError(f"{text!r}: the end must be 'low' or 'high'")
        return self.layoff(meld, SLOT_JOKER_LOW if end == LOW else SLOT_JOKER_HIGH)

    def _parse_swap(self, tokens: list[str], text: str) -> int:
        if len(tokens) != 3:
            raise ValueError(f"{text!r}: expected 'swap C M'")
        card = card_from_str(tokens[1])
        if card == JOKER:
            raise ValueError(f"{text!r}: a joker cannot replace a joker")
        return self.swap(self._meld_index(tokens[2], text), card)

    def _parse_movejoker(self, tokens: list[str], text: str) -> int:
        if len(tokens) != 4 or tokens[3].lower() not in (LOW, HIGH):
            raise ValueError(f"{text!r}: expected 'movejoker M N low|high'")
        src = self._meld_index(tokens[1], text)
        dst = self._meld_index(tokens[2], text)
        return self.move(src, dst, tokens[3].lower())

    def _meld_index(self, token: str, text: str) -> int:
        try:
            meld = int(token)
        except ValueError:
            raise ValueError(f"{text!r}: meld index {token!r} is not a number") from None
        if not 0 <= meld < self.max_melds:
            raise ValueError(f"{text!r}: meld index {meld} is out of range 0..{self.max_melds - 1}")
        return meld


@lru_cache(maxsize=16)
def layout_for(num_players: int) -> ActionLayout:
    """The (shared, immutable) action layout of a table of ``num_players``."""
    return ActionLayout(num_players)


def num_actions(num_players: int) -> int:
    """Size of the action space of a table of ``num_players`` (no game needed)."""
    return layout_for(num_players).num_actions


__all__ = [
    "CLAIM",
    "CLOSE",
    "DISCARD_BASE",
    "DRAW",
    "LAYDOWN",
    "LAYOFF_BASE",
    "LAYOFF_SLOTS",
    "PASS",
    "SIMPLE_ACTIONS",
    "SLOT_JOKER",
    "SLOT_JOKER_HIGH",
    "SLOT_JOKER_LOW",
    "SWAP_SLOTS",
    "TAKE",
    "ActionLayout",
    "layout_for",
    "num_actions",
]
