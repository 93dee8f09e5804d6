"""The shape every game engine of the package shares: declared state fields, loading, applying.

Each game (``contract/game.py``, ``knock/game.py``, ``fifteen/game.py``) is three
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from enum import StrEnum
from functools import cache
from typing import Any, ClassVar, Protocol

from continental_env.state_fields import (
    Codec,
    Derived,
    FieldSpec,
    FlatList,
    Redact,
    StateError,
    fail,
)


class GamePhase(StrEnum):
    """Base of each game's ``Phase`` enum: each value is its JSON string (and equals it)."""

    def __repr__(self) -> str:
        # Messages quote a phase as its JSON string ('draw'), as they did when phases were str.
        return repr(self.value)


class SetupLike(Protocol):
    """What the codecs read of a game's ``Setup``."""

    @property
    def num_players(self) -> int: ...

    @property
    def num_actions(self) -> int: ...


def as_seed(seed: Any) -> int | None:
    """A game's seed: None or any integer kind (numpy's too); 1.5 or "7" are refused."""
    if seed is None:
        return None
    try:
        return operator.index(seed)
    except TypeError:
        raise ValueError(f"seed {seed!r} must be an integer or None") from None


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
        for name, copy, _redact in plan_of(cls).copies:
            value = mine[name]
            values[name] = value if copy is None else copy(value)
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
    except (TypeError, KeyError, IndexError, AttributeError, OverflowError, ValueError) as exc:
        # A field of the wrong shape that the checks did not foresee (a ValueError: an int too
        # long to write in a message, say).
        raise StateError(f"{type(exc).__name__}: {exc}", label) from None
    return setup, state


def check_history_recorded(history: str) -> Check:
    """A saved game that has counted actions (``moves`` > 0) carries its ``history`` field too;
    a position built by hand (or sampled) may leave it out, and its scores are then its own."""

    def check(state: Any, setup: Any, given: set[str]) -> None:
        if state.moves and history not in given:
            fail(f"{history!r} is missing from a game that has played {state.moves} moves")

    return check


# ============================================================================ the engine


class GameBase:
    """Base of each game's engine: its ``setup``, its ``state``, the legal-action cache and the
    apply skeleton. A game defines ``_compute_legal``, ``_illegal_reason``, ``_perform`` and its
    ``STATE``/``STATE_CHECKS``/``LABEL``/``setup_from_dict``."""

    STATE: ClassVar[type[StateBase]]
    STATE_CHECKS: ClassVar[tuple[Check, ...]]
    LABEL: ClassVar[str] = "game"

    setup: Any
    state: Any
    _legal: list[int] | None

    def _attach(self, setup: Any, state: Any) -> None:
        """Take a setup and a position (used as is, not copied); the cache starts empty."""
        self.setup = setup
        self.state = state
        self._legal = None

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
        # A scan of the cached list: a position is usually asked once (by ``apply``), and
        # scanning its few dozen ids is cheaper than building a set of them.
        return action in self._legal_ids()

    def _invalidate(self) -> None:
        self._legal = None

    def _compute_legal(self) -> list[int]:
        raise NotImplementedError

    # ------------------------------------------------------------------ applying

    def apply(self, action: int) -> None:
        """Apply a legal action; ValueError naming the action and why if it is illegal."""
        try:
            action = operator.index(action)  # ints and numpy integers; 2.5 or "2" are refused
        except TypeError:
            raise ValueError(self.refusal(action)) from None
        legal = self._legal  # is_legal(action), without its two calls
        if legal is None:
            legal = self._legal_ids()
        if action not in legal:
            raise ValueError(self._illegal_reason(action))
        self._legal = None
        self.state.moves += 1
        self._perform(action)

    def refusal(self, action: Any) -> str | None:
        """Why ``action`` is not legal now, in the words ``apply`` raises (a value that is no
        integer, an id out of range, or the rule it breaks); None when it is legal."""
        try:
            index = operator.index(action)
        except TypeError:
            return f"action {action!r} is not an integer id"
        return None if self.is_legal(index) else self._illegal_reason(index)

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
        setup, state = load_state(data, cls.setup_from_dict, cls.STATE, cls.STATE_CHECKS, cls.LABEL)
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
    "Check",
    "FieldPlan",
    "GameBase",
    "GamePhase",
    "SetupLike",
    "StateBase",
    "as_seed",
    "check_history_recorded",
    "load_state",
    "plan_of",
    "state_field",
]
