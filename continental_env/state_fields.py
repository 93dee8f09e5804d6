"""State fields, declared once: the codecs that copy, write and read each field, and ``declare``.

A game's ``State`` (a dataclass deriving from ``engine.StateBase``) declares every field as
``field(metadata=declare(codec, fresh, per_round=..., default=..., redact=...))``: the ``Codec``
says how the value is copied, written to JSON and read back with its shape checked (refusing a
bad value with ``fail``, one line naming the field); ``fresh`` gives its value in a new game;
``per_round`` makes it restart at each deal; ``default`` is the JSON value of a left-out key
(None: the key is required); ``redact`` says what a seat may see of it (None: public). The
codecs here are the ones every card game needs; a game adds its own (the contract game's table
of melds, ``state.Melds``) by deriving from ``Codec``.
"""

from __future__ import annotations

import random
import reprlib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NoReturn

from continental_env.cards import NUM_TYPES, card_from_str, card_to_str

# The longest value a refusal quotes, and the longest refusal: a hostile state may hold a list of
# a million entries, and its refusal must still be one short line.
SHOWN_CHARS = 200
DETAIL_CHARS = 400


class _Shown(reprlib.Repr):
    """``reprlib`` with room for a table's seats and a rule's 14 card points."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = 16
        self.maxdict = 8
        self.maxstring = self.maxother = 80

    def repr_int(self, x: int, level: int) -> str:
        # An int past the interpreter's digit limit cannot be written at all (ValueError).
        try:
            return super().repr_int(x, level)
        except ValueError:
            return f"<an int of {x.bit_length()} bits>"


_SHOWN = _Shown()


def shown(value: Any) -> str:
    """``repr(value)`` cut to at most ``SHOWN_CHARS`` characters, for a one-line message."""
    text = _SHOWN.repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


class StateError(ValueError):
    """A state refused by a loader: ``detail`` names the field and the problem (one line, at
    most ``DETAIL_CHARS`` characters whatever the messages it quotes)."""

    def __init__(self, detail: str, label: str = "game") -> None:
        detail = " ".join(detail.split("\n"))
        if len(detail) > DETAIL_CHARS:
            detail = detail[: DETAIL_CHARS - 3] + "..."
        super().__init__(f"malformed {label} state: {detail}")
        self.detail = detail


def fail(message: str) -> NoReturn:
    """Refuse a state being loaded: one ``StateError`` naming the field and the problem."""
    raise StateError(message)


def is_int(value: Any) -> bool:
    """An int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def counts_text(counts: Sequence[int]) -> list[str]:
    """Card strings of a multiset given as counts per card type, sorted by card type."""
    return [card_to_str(c) for c in range(NUM_TYPES) for _ in range(counts[c])]


def card_list(raw: Any, where: str) -> list[int]:
    """Card ids of a JSON list of card strings; refused naming ``where``."""
    if not isinstance(raw, list):
        fail(f"{where} must be a list of card strings")
    try:
        return [card_from_str(c) for c in raw]
    except (ValueError, AttributeError, TypeError):
        pass
    for i, c in enumerate(raw):  # name the first bad entry, its text cut short
        try:
            card_from_str(c)
        except (ValueError, AttributeError, TypeError):
            fail(
                f"{where}[{i}]: unknown card {shown(c)}: expected rank A23456789TJQK then suit "
                "CDHS, or JK"
            )
    raise AssertionError("unreachable: some entry failed to parse")


def card_counts(raw: Any, where: str) -> list[int]:
    """Counts per card type of a JSON list of card strings."""
    counts = [0] * NUM_TYPES
    for c in card_list(raw, where):
        counts[c] += 1
    return counts


def json_copy(value: Any) -> Any:
    """An independent copy of a JSON value (dicts and lists copied at every depth)."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


# ============================================================================ field codecs


class Codec:
    """How one state field is copied, written to JSON and read back (shape checked).

    The default is an immutable scalar written as itself; ``load`` refuses a bad value through
    ``fail`` naming the field.
    """

    def copy(self, value: Any) -> Any:
        return value

    def dump(self, value: Any) -> Any:
        return value

    def load(self, raw: Any, name: str, setup: Any) -> Any:
        return raw

    def load_field(self, raw: Any, name: str, setup: Any, loaded: dict[str, Any]) -> Any:
        """``load``, for a codec that also needs the fields read before it (``loaded``)."""
        return self.load(raw, name, setup)


class Count(Codec):
    """A non-negative int (below ``limit(setup)`` when one is given)."""

    def __init__(self, limit: Callable[[Any], int] | None = None) -> None:
        self.limit = limit

    def load(self, raw: Any, name: str, setup: Any) -> int:
        if not is_int(raw) or raw < 0:
            fail(f"{name!r} must be a non-negative int, got {shown(raw)}")
        if self.limit is not None and raw >= self.limit(setup):
            fail(f"{name!r} must be an int in 0..{self.limit(setup) - 1}, got {shown(raw)}")
        return raw


class Flag(Codec):
    """True or false."""

    def load(self, raw: Any, name: str, setup: Any) -> bool:
        if not isinstance(raw, bool):
            fail(f"{name!r} must be a bool, got {shown(raw)}")
        return raw


class Seat(Codec):
    """A seat ``0 .. P-1`` (or null when ``nullable``)."""

    def __init__(self, nullable: bool = False) -> None:
        self.nullable = nullable

    def load(self, raw: Any, name: str, setup: Any) -> int | None:
        if raw is None and self.nullable:
            return None
        if not is_int(raw) or not 0 <= raw < setup.num_players:
            null = " or null" if self.nullable else ""
            fail(f"{name!r} must be a seat 0..{setup.num_players - 1}{null}, got {shown(raw)}")
        return raw


class PhaseCodec(Codec):
    """A member of the game's ``Phase`` enum, written as its string."""

    def __init__(self, phases: type[StrEnum]) -> None:
        self.phases = phases

    def dump(self, value: StrEnum) -> str:
        return value.value

    def load(self, raw: Any, name: str, setup: Any) -> StrEnum:
        if raw not in tuple(self.phases):
            fail(f"unknown phase {shown(raw)}")
        return self.phases(raw)


class FlatList(Codec):
    """A list of immutable entries: copied and written as a new list."""

    def copy(self, value: list) -> list:
        return list(value)

    def dump(self, value: list) -> list:
        return list(value)


class SeatList(FlatList):
    """A list of seats (each game's checks relate them to the rest of the state)."""

    def load(self, raw: Any, name: str, setup: Any) -> list[int]:
        if not isinstance(raw, list):
            fail(f"{name!r} must be a list of seats, got {shown(raw)}")
        return list(raw)


class PerSeat(FlatList):
    """One scalar per seat; ``kind`` names what each entry must be, ``ok`` tests it."""

    def __init__(self, kind: str, ok: Callable[[Any, Any], bool]) -> None:
        self.kind = kind
        self.ok = ok

    def load(self, raw: Any, name: str, setup: Any) -> list:
        p = setup.num_players
        if not isinstance(raw, list) or len(raw) != p:
            fail(f"{name!r} must be a list with one entry per seat ({p})")
        if not all(self.ok(v, setup) for v in raw):
            kind = self.kind.format(last=setup.num_actions - 1)
            fail(f"{name!r} entries must be {kind}, got {shown(raw)}")
        return list(raw)


def ints_per_seat() -> PerSeat:
    """One int per seat."""
    return PerSeat("int", lambda v, setup: is_int(v))


def bools_per_seat() -> PerSeat:
    """One bool per seat."""
    return PerSeat("bools", lambda v, setup: isinstance(v, bool))


def counts_per_seat() -> PerSeat:
    """One non-negative int per seat."""
    return PerSeat("counts", lambda v, setup: is_int(v) and v >= 0)


class Cards(FlatList):
    """A pile of cards in order (top last), written as card strings."""

    def dump(self, value: list[int]) -> list[str]:
        return [card_to_str(c) for c in value]

    def load(self, raw: Any, name: str, setup: Any) -> list[int]:
        return card_list(raw, name)


class CardCounts(FlatList):
    """A multiset of cards as counts per card type, written as sorted card strings."""

    def dump(self, value: list[int]) -> list[str]:
        return counts_text(value)

    def load(self, raw: Any, name: str, setup: Any) -> list[int]:
        return card_counts(raw, name)


class CardCountsPerSeat(Codec):
    """One multiset of cards per seat."""

    def copy(self, value: list[list[int]]) -> list[list[int]]:
        return [list(v) for v in value]

    def dump(self, value: list[list[int]]) -> list[list[str]]:
        return [counts_text(v) for v in value]

    def load(self, raw: Any, name: str, setup: Any) -> list[list[int]]:
        p = setup.num_players
        if not isinstance(raw, list) or len(raw) != p:
            fail(f"{name!r} must hold one list per seat ({p})")
        return [card_counts(cards, f"{name}[{seat}]") for seat, cards in enumerate(raw)]


class Rng(Codec):
    """A ``random.Random``, written as its state ``[version, [ints], gauss]``."""

    def copy(self, value: random.Random) -> random.Random:
        rng = random.Random()
        rng.setstate(value.getstate())
        return rng

    def dump(self, value: random.Random) -> list:
        version, state, gauss = value.getstate()
        return [version, list(state), gauss]

    def load(self, raw: Any, name: str, setup: Any) -> random.Random:
        try:
            version, state, gauss = raw
            # The generator's C code raises OverflowError on a negative word and keeps the low
            # 32 bits of a larger one (a different state than the one written): refuse both.
            # An array of unsigned 32-bit ints checks every word in C (OverflowError, TypeError).
            array("I", state)
            rng = random.Random()
            rng.setstate((version, tuple(state), gauss))
        except (TypeError, ValueError, OverflowError) as exc:
            fail(f"{name}: {type(exc).__name__}: {exc}")
        return rng


class Seeds(FlatList):
    """One deal seed per possible deal (``count(setup)`` of them)."""

    def __init__(self, count: Callable[[Any], int], what: str) -> None:
        self.count = count
        self.what = what

    def load(self, raw: Any, name: str, setup: Any) -> list[int]:
        n = self.count(setup)
        if not isinstance(raw, list) or len(raw) != n or not all(map(is_int, raw)):
            fail(f"{name!r} must be a list of {n} ints, {self.what}")
        return list(raw)


class Records(Codec):
    """A list of JSON records (dicts), copied at every depth; ``check`` refuses a bad one."""

    def __init__(self, check: Callable[[Any, str, Any], None]) -> None:
        self.check = check

    def copy(self, value: list[dict]) -> list[dict]:
        return [json_copy(r) for r in value]

    dump = copy

    def load(self, raw: Any, name: str, setup: Any) -> list[dict]:
        if not isinstance(raw, list):
            fail(f"{name!r} must be a list of records, got {type(raw).__name__}")
        for i, record in enumerate(raw):
            if not isinstance(record, dict):
                fail(f"{name}[{i}] must be a record (a dict), got {shown(record)}")
            self.check(record, f"{name}[{i}]", setup)
        return self.copy(raw)


class Derived(FlatList):
    """A list not written to JSON: recomputed from the fields read before it."""

    def __init__(self, compute: Callable[[dict[str, Any]], Any]) -> None:
        self.compute = compute


# ============================================================================ declarations

Fresh = Callable[[Any], Any]  # a field's value in a new game (and, if per deal, at each deal)
Default = Callable[[dict[str, Any], Any], Any]  # value of an optional JSON key left out
Redact = Callable[[Any, int, Any], Any]  # what a seat may see of a field


@dataclass(frozen=True)
class FieldSpec:
    """A state field's declaration (built from its dataclass ``metadata``, whose keys are these).

    ``codec``: copy, JSON and shape checks; ``fresh``: its value before the first deal;
    ``per_round``: it restarts at every deal; ``default``: the JSON value of a left-out key
    (None: required); ``redact``: what a seat may see of it (None: public).
    """

    codec: Codec
    fresh: Fresh
    per_round: bool = False
    default: Default | None = None
    redact: Redact | None = None


def declare(
    codec: Codec,
    fresh: Fresh,
    *,
    per_round: bool = False,
    default: Default | None = None,
    redact: Redact | None = None,
) -> dict[str, FieldSpec]:
    """A ``StateBase`` field's declaration, as its dataclass ``field(metadata=...)``."""
    return {
        "codec": codec,
        "fresh": fresh,
        "per_round": per_round,
        "default": default,
        "redact": redact,
    }


def fresh_per_seat(value: Any) -> Fresh:
    """Fresh value: ``value`` for every seat."""
    return lambda setup: [value] * setup.num_players


def fresh_counts_per_seat(setup: Any) -> list[list[int]]:
    """Fresh value: an empty multiset for every seat."""
    return [[0] * NUM_TYPES for _ in range(setup.num_players)]


def default_per_seat(value: Any) -> Default:
    """JSON default: ``value`` for every seat."""
    return lambda loaded, setup: [value] * setup.num_players


def default_to(value: Any) -> Default:
    """JSON default: ``value`` (copied if it is a list)."""
    return lambda loaded, setup: json_copy(value)


def default_seen_of_pile(loaded: dict[str, Any], setup: Any) -> list[str]:
    """JSON default of ``seen_discards`` left out of a position built by hand: the cards of its
    discard pile, each of which was discarded face up (as at a deal: the up-card). A saved game
    always writes the field, and one that has played moves is refused without it (its seen
    discards include cards taken since, which the position no longer shows)."""
    return [card_to_str(c) for c in loaded["discard"]]


def own_hand_only(hands: list[list[int]], seat: int, state: Any) -> list[list[int]]:
    """Redaction: another seat's hand shows only the cards it is publicly known to hold."""
    return [list(h if s == seat else state.known[s]) for s, h in enumerate(hands)]


def stock_size_only(stock: list[int], seat: int, state: Any) -> list[int]:
    """Redaction: the stock's size, every card hidden."""
    return [0] * len(stock)


__all__ = [
    "DETAIL_CHARS",
    "SHOWN_CHARS",
    "CardCounts",
    "CardCountsPerSeat",
    "Cards",
    "Codec",
    "Count",
    "Derived",
    "FieldSpec",
    "Flag",
    "FlatList",
    "PerSeat",
    "PhaseCodec",
    "Records",
    "Rng",
    "Seat",
    "SeatList",
    "Seeds",
    "StateError",
    "bools_per_seat",
    "card_counts",
    "card_list",
    "counts_per_seat",
    "counts_text",
    "declare",
    "default_per_seat",
    "default_seen_of_pile",
    "default_to",
    "fail",
    "fresh_counts_per_seat",
    "fresh_per_seat",
    "ints_per_seat",
    "is_int",
    "json_copy",
    "own_hand_only",
    "shown",
    "stock_size_only",
]
