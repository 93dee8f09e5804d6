"""The shape every game engine of the package shares: declared state fields, loading, applying.

Each game (the contract game in ``game.py``, ``knock/game.py``, ``fifteen/game.py``) is three
parts, as in OpenSpiel (``gin_rummy.h``: a game object holds the parameters, a state holds one
position):

* a ``Setup``: what never changes during a game (table size, options, the action count), a
  frozen dataclass of the game's own with ``num_players``, ``num_actions``, ``to_dict`` and
  ``from_dict``;
* a ``State``: the position and nothing else, a dataclass deriving from ``StateBase`` whose
  every field is declared once, ``field(metadata=declare(...))`` (a ``Codec`` saying how it is copied, written
  to JSON and read back with its shape checked; whether it restarts at each deal; what a seat
  may not see of it). ``clone``, ``to_dict``, ``from_dict``, the per-deal reset and a seat's
  redacted copy are generated from the declarations;
* a ``Game`` deriving from ``GameBase``: the rules. ``GameBase`` holds the setup and the state,
  caches the legal action ids and applies an action in one skeleton (the id checked, a refusal
  naming why, the cache dropped, ``moves`` counted, then the game's ``_perform``).

Loading (``load_state``) reads every field through its codec, then runs the game's ``CHECKS``:
one small function per rule that relates fields to each other, each refusing a bad state with
one line naming the field (``fail``). Every phase is a ``GamePhase``: a string enum whose
members compare equal to their JSON strings.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from functools import cache
from typing import Any, ClassVar, NoReturn, Protocol

from continental_env.cards import NUM_TYPES, card_from_str, card_to_str


class GamePhase(StrEnum):
    """Base of each game's ``Phase`` enum: each value is its JSON string (and equals it)."""

    def __repr__(self) -> str:
        # Messages quote a phase as its JSON string ('draw'), as they did when phases were str.
        return repr(self.value)


class StateError(ValueError):
    """A state refused by a loader: ``detail`` names the field and the problem."""

    def __init__(self, detail: str, label: str = "game") -> None:
        super().__init__(f"malformed {label} state: {detail}")
        self.detail = detail


def fail(message: str) -> NoReturn:
    """Refuse a state being loaded: one ``StateError`` naming the field and the problem."""
    raise StateError(message)


class SetupLike(Protocol):
    """What the codecs read of a game's ``Setup``."""

    @property
    def num_players(self) -> int: ...

    @property
    def num_actions(self) -> int: ...


def is_int(value: Any) -> bool:
    """An int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def as_seed(seed: Any) -> int | None:
    """A game's seed: None or any integer kind (numpy's too); 1.5 or "7" are refused."""
    if seed is None:
        return None
    try:
        return operator.index(seed)
    except TypeError:
        raise ValueError(f"seed {seed!r} must be an integer or None") from None


def counts_text(counts: Sequence[int]) -> list[str]:
    """Card strings of a multiset given as counts per card type, sorted by card type."""
    return [card_to_str(c) for c in range(NUM_TYPES) for _ in range(counts[c])]


def card_list(raw: Any, where: str) -> list[int]:
    """Card ids of a JSON list of card strings; refused naming ``where``."""
    if not isinstance(raw, list):
        fail(f"{where} must be a list of card strings")
    try:
        return [card_from_str(c) for c in raw]
    except (ValueError, AttributeError, TypeError) as exc:
        fail(f"{where}: {exc}")


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
            fail(f"{name!r} must be a non-negative int, got {raw!r}")
        if self.limit is not None and raw >= self.limit(setup):
            fail(f"{name!r} must be an int in 0..{self.limit(setup) - 1}, got {raw!r}")
        return raw


class Flag(Codec):
    """True or false."""

    def load(self, raw: Any, name: str, setup: Any) -> bool:
        if not isinstance(raw, bool):
            fail(f"{name!r} must be a bool, got {raw!r}")
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
            fail(f"{name!r} must be a seat 0..{setup.num_players - 1}{null}, got {raw!r}")
        return raw


class PhaseCodec(Codec):
    """A member of the game's ``Phase`` enum, written as its string."""

    def __init__(self, phases: type[GamePhase]) -> None:
        self.phases = phases

    def dump(self, value: GamePhase) -> str:
        return value.value

    def load(self, raw: Any, name: str, setup: Any) -> GamePhase:
        if raw not in tuple(self.phases):
            fail(f"unknown phase {raw!r}")
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
            fail(f"{name!r} must be a list of seats, got {raw!r}")
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
            fail(f"{name!r} entries must be {kind}, got {raw!r}")
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
            rng = random.Random()
            rng.setstate((version, tuple(state), gauss))
        except (TypeError, ValueError, OverflowError) as exc:
            # A negative or oversized word is an OverflowError from the generator's C code.
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
                fail(f"{name}[{i}] must be a record (a dict), got {record!r}")
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


def own_hand_only(hands: list[list[int]], seat: int, state: Any) -> list[list[int]]:
    """Redaction: another seat's hand shows only the cards it is publicly known to hold."""
    return [list(h if s == seat else state.known[s]) for s, h in enumerate(hands)]


def stock_size_only(stock: list[int], seat: int, state: Any) -> list[int]:
    """Redaction: the stock's size, every card hidden."""
    return [0] * len(stock)


@dataclass(frozen=True)
class FieldPlan:
    """What the generated operations walk, computed once per ``State`` class."""

    specs: tuple[tuple[str, FieldSpec], ...]
    stored: tuple[tuple[str, FieldSpec], ...]  # written to JSON (not ``Derived``)
    per_round: tuple[tuple[str, FieldSpec], ...]
    # (name, copy or None, redact or None): the cheapest copy of each field (None: immutable;
    # ``list.copy`` in C for a flat list) and its redaction.
    copies: tuple[tuple[str, Callable[[Any], Any] | None, Redact | None], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.specs)

    @property
    def required(self) -> list[str]:
        return [name for name, spec in self.stored if spec.default is None]


def _copier(codec: Codec) -> Callable[[Any], Any] | None:
    kind = type(codec).copy
    if kind is Codec.copy:
        return None
    if kind is FlatList.copy:
        return list.copy
    return codec.copy


@cache
def plan_of(cls: type) -> FieldPlan:
    """The ``FieldPlan`` of a ``StateBase`` dataclass, from its declared fields."""
    specs = tuple((f.name, FieldSpec(**f.metadata)) for f in fields(cls))
    return FieldPlan(
        specs=specs,
        stored=tuple((n, s) for n, s in specs if not isinstance(s.codec, Derived)),
        per_round=tuple((n, s) for n, s in specs if s.per_round),
        copies=tuple((n, _copier(s.codec), s.redact) for n, s in specs),
    )


class StateBase:
    """Base of each game's ``State`` dataclass: operations generated from its declarations."""

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Every field, in declaration order (also the order of the JSON keys)."""
        return plan_of(cls).names

    @classmethod
    def required_keys(cls) -> list[str]:
        """JSON keys ``from_dict`` cannot do without."""
        return plan_of(cls).required

    @classmethod
    def fresh(cls, setup: Any) -> Any:
        """The position of a game not yet dealt."""
        return cls(**{name: spec.fresh(setup) for name, spec in plan_of(cls).specs})

    def reset_round(self, setup: Any) -> None:
        """Every per-deal field back to its fresh value (the deal then fills them)."""
        for name, spec in plan_of(type(self)).per_round:
            setattr(self, name, spec.fresh(setup))

    def clone(self) -> Any:
        """An independent copy (the generator too)."""
        cls = type(self)
        mine = self.__dict__
        out = cls.__new__(cls)
        values = out.__dict__
        for name, spec in plan_of(cls).specs:
            values[name] = spec.codec.copy(mine[name])
        return out

    def redacted(self, seat: int) -> Any:
        """A copy holding only what ``seat`` may see: hidden fields emptied (sizes kept).

        A hidden field is never copied: its redacted value is built from the original (a
        seat's view is taken at every decision, and copying the generator only to replace it
        would be most of its cost).
        """
        cls = type(self)
        mine = self.__dict__
        out = cls.__new__(cls)
        values = out.__dict__
        for name, copy, redact in plan_of(cls).copies:
            value = mine[name]
            if redact is not None:
                values[name] = redact(value, seat, self)
            elif copy is None:
                values[name] = value
            else:
                values[name] = copy(value)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: one key per stored field."""
        mine = self.__dict__
        return {name: spec.codec.dump(mine[name]) for name, spec in plan_of(type(self)).stored}

    @classmethod
    def from_dict(cls, data: dict[str, Any], setup: Any) -> Any:
        """Read every field (shape checks only; the game's ``CHECKS`` relate them)."""
        plan = plan_of(cls)
        missing = [name for name in plan.required if name not in data]
        if missing:
            fail(f"missing fields {missing}")
        loaded: dict[str, Any] = {}
        for name, spec in plan.specs:
            codec = spec.codec
            if isinstance(codec, Derived):
                loaded[name] = codec.compute(loaded)
                continue
            raw = data[name] if name in data else spec.default(loaded, setup)  # type: ignore[misc]
            loaded[name] = codec.load_field(raw, name, setup, loaded)
        return cls(**loaded)


# ============================================================================ loading

Check = Callable[[Any, Any, set[str]], None]  # (state, setup, JSON keys given) -> None or fail


def load_state(
    data: Any,
    setup_from: Callable[[dict[str, Any]], Any],
    state_cls: type[StateBase],
    checks: Iterable[Check],
    label: str = "game",
) -> tuple[Any, Any]:
    """The setup and position of a ``to_dict`` dict: every field read, then every check run.

    Every refusal is one ``ValueError`` of one line, ``malformed <label> state: ...``.
    """
    try:
        if not isinstance(data, dict):
            fail("expected a dict")
        missing = [k for k in ("num_players", *state_cls.required_keys()) if k not in data]
        if missing:
            fail(f"missing fields {missing}")
        setup = setup_from(data)
        state = state_cls.from_dict(data, setup)
        given = {name for name in state_cls.field_names() if name in data}
        for check in checks:
            check(state, setup, given)
    except StateError as exc:
        raise StateError(exc.detail, label) from None
    except (TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # A field of the wrong shape that the checks did not foresee.
        raise StateError(f"{type(exc).__name__}: {exc}", label) from None
    return setup, state


def check_history_recorded(history: str) -> Check:
    """A state that gives ``moves`` is a saved game, which carries its ``history`` field too
    (a hand-built position may leave both out)."""

    def check(state: Any, setup: Any, given: set[str]) -> None:
        if "moves" in given and history not in given:
            fail(f"{history!r} is missing: a state that counts its 'moves' carries its history")

    return check


# ============================================================================ the engine


class GameBase:
    """Base of each game's engine: its ``setup``, its ``state``, the legal-action cache and the
    apply skeleton. A game defines ``_compute_legal``, ``_illegal_reason``, ``_perform`` and its
    ``STATE``/``CHECKS``/``LABEL``/``setup_from_dict``."""

    STATE: ClassVar[type[StateBase]]
    CHECKS: ClassVar[tuple[Check, ...]]
    LABEL: ClassVar[str] = "game"

    setup: Any
    state: Any
    _legal: list[int] | None
    _legal_set: frozenset[int] | None

    def _attach(self, setup: Any, state: Any) -> None:
        """Take a setup and a position (used as is, not copied); the cache starts empty."""
        self.setup = setup
        self.state = state
        self._legal = None
        self._legal_set = None

    @classmethod
    def from_state(cls, setup: Any, state: Any) -> Any:
        """A game over this setup and position (the position is used as is, not copied)."""
        game = cls.__new__(cls)
        game._attach(setup, state)
        return game

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat to act, in increasing order (empty when over).

        A new list each call: the caller may change it without touching the game's cache.
        """
        return self._legal_ids().copy()

    def _legal_ids(self) -> list[int]:
        """The cached legal ids (shared: never hand this list out)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def is_legal(self, action: int) -> bool:
        """Whether an action id is legal now."""
        if self._legal_set is None:
            self._legal_set = frozenset(self._legal_ids())
        return action in self._legal_set

    def _invalidate(self) -> None:
        self._legal = None
        self._legal_set = None

    def _compute_legal(self) -> list[int]:
        raise NotImplementedError

    # ------------------------------------------------------------------ applying

    def apply(self, action: int) -> None:
        """Apply a legal action; ValueError naming the action and why if it is illegal."""
        try:
            action = operator.index(action)  # ints and numpy integers; 2.5 or "2" are refused
        except TypeError:
            raise ValueError(f"action {action!r} is not an integer id") from None
        if not self.is_legal(action):
            raise ValueError(self._illegal_reason(action))
        self._legal = None
        self._legal_set = None
        self.state.moves += 1
        self._perform(action)

    def _illegal_reason(self, action: int) -> str:
        raise NotImplementedError

    def _perform(self, action: int) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ copies and JSON

    def clone(self) -> Any:
        """An independent copy (the generator too)."""
        game = type(self).from_state(self.setup, self.state.clone())
        game._legal = None if self._legal is None else list(self._legal)
        return game

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict that ``from_dict`` restores exactly."""
        return {**self.setup.to_dict(), **self.state.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        """Restore a game from ``to_dict``; one ValueError with the reason if it is malformed."""
        setup, state = load_state(data, cls.setup_from_dict, cls.STATE, cls.CHECKS, cls.LABEL)
        game = cls.from_state(setup, state)
        if not game.is_over and not game.legal_actions():
            raise StateError(
                f"seat {game.actor} has no legal action in phase {state.phase!r}", cls.LABEL
            )
        return game

    @staticmethod
    def setup_from_dict(data: dict[str, Any]) -> Any:
        raise NotImplementedError

    @property
    def is_over(self) -> bool:
        raise NotImplementedError

    @property
    def actor(self) -> int | None:
        raise NotImplementedError


def state_field(name: str, doc: str, writable: bool = False) -> property:
    """A ``Game`` property reading ``game.state.<name>`` (and writing it, if ``writable``).

    Read in C (``operator.attrgetter``): engines' fields are read on every step.
    """
    get = operator.attrgetter(f"state.{name}")
    if not writable:
        return property(get, doc=f"``state.{name}``: {doc} (read-only; see ``State``)")

    def put(game: Any, value: Any) -> None:
        setattr(game.state, name, value)

    return property(get, put, doc=f"``state.{name}``: {doc}")


__all__ = [
    "CardCounts",
    "CardCountsPerSeat",
    "Cards",
    "Check",
    "Codec",
    "Count",
    "Derived",
    "FieldSpec",
    "Flag",
    "FlatList",
    "GameBase",
    "GamePhase",
    "PerSeat",
    "PhaseCodec",
    "Records",
    "Rng",
    "Seat",
    "SeatList",
    "Seeds",
    "StateBase",
    "StateError",
    "declare",
    "fail",
    "load_state",
    "plan_of",
    "state_field",
]
