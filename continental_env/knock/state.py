"""A knock game's ``Setup`` (the table and its options), its ``State`` (each field declared
once), its action ids and its phases (the shape of ``continental_env.side``)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from continental_env import side
from continental_env.cards import NUM_TYPES
from continental_env.engine import GamePhase, StateBase
from continental_env.state_fields import (
    Codec,
    Count,
    PhaseCodec,
    Seat,
    SeatList,
    bools_per_seat,
    counts_per_seat,
    declare,
    default_per_seat,
    default_to,
    fail,
    fresh_per_seat,
    ints_per_seat,
    is_int,
    json_copy,
    shown,
)

__all__ = [
    "BUY",
    "COLOR",
    "COLOR_BASE",
    "CONTINENTAL",
    "CONTINENTAL_BASE",
    "DECKS",
    "DISCARD_BASE",
    "DRAW",
    "HAND_SIZE",
    "KNOCK",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_ACTIONS",
    "PASS",
    "RUMMY",
    "RUMMY_BASE",
    "TAKE",
    "Phase",
    "Setup",
    "State",
    "jokers_for",
]

DRAW, TAKE, KNOCK, RUMMY, COLOR, CONTINENTAL, BUY, PASS = range(8)
DISCARD_BASE = 8
RUMMY_BASE = DISCARD_BASE + NUM_TYPES  # 61
COLOR_BASE = RUMMY_BASE + NUM_TYPES  # 114
CONTINENTAL_BASE = COLOR_BASE + NUM_TYPES  # 167
NUM_ACTIONS = CONTINENTAL_BASE + NUM_TYPES  # 220
HAND_SIZE = 10
DECKS = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 6


class Phase(GamePhase):
    """What the position awaits; each value is its JSON string (and equals it)."""

    DRAW = "draw"  # the player in turn announces, draws or takes the top discard
    PLAY = "play"  # the player in turn discards (and may announce with it)
    BUY = "buy"  # between hands: the seat in turn answers buy or pass (buy-back)
    GAME_OVER = "game_over"  # the pot is won


def jokers_for(num_players: int) -> int:
    """Jokers in the two decks: 4, or one per player at 5 and 6 players."""
    return max(4, num_players)


def check_options(num_players: Any, stake: Any, max_turns_per_hand: Any, max_hands: Any) -> None:
    """ValueError naming the first option a knock table refuses."""
    if not is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players={shown(num_players)}: the knock game seats 2..6")
    if not is_int(stake) or stake < 5 or stake % 5:
        raise ValueError(
            f"stake={shown(stake)}: must be a positive multiple of 5 (bonuses are 0.2, 0.4 and 0.8 of it)"
        )
    side.check_safety_nets(max_turns_per_hand, max_hands)


@dataclass(frozen=True)
class Setup(side.SideSetup):
    """What a knock game holds fixed: the table size and the options."""

    GAME: ClassVar[str] = "knock"
    OPTIONS: ClassVar[dict[str, str]] = {
        name: name for name in ("stake", "max_turns_per_hand", "max_hands")
    }

    num_players: int = 4
    stake: int = 50
    max_turns_per_hand: int = 200
    max_hands: int = 100

    def __post_init__(self) -> None:
        check_options(self.num_players, self.stake, self.max_turns_per_hand, self.max_hands)

    num_actions = NUM_ACTIONS

    @property
    def jokers(self) -> int:
        return jokers_for(self.num_players)


_RECORD_LISTS = ("players", "shown", "deadwood", "points", "chips", "eliminated", "buys")


def _check_record(record: dict[str, Any], where: str, setup: Setup) -> None:
    if any(not isinstance(record.get(k), list) for k in _RECORD_LISTS):
        fail(f"{where} needs the lists {list(_RECORD_LISTS)}")
    p = setup.num_players
    for key in ("points", "chips"):  # what the loader adds up against the scores and chips
        values = record[key]
        if len(values) != p or not all(map(is_int, values)):
            fail(f"{where}[{key!r}] must be {p} ints, one per seat, got {shown(values)}")
    for j, buy in enumerate(record["buys"]):
        if not (
            isinstance(buy, dict)
            and is_int(buy.get("seat"))
            and 0 <= buy["seat"] < p
            and is_int(buy.get("to"))
        ):
            fail(f"{where}['buys'][{j}] must name its 'seat' and the total it set ('to')")


class Result(Codec):
    """How the game ended, once over: ``{"end", "winners" (seats), "pot"}``; null before."""

    def copy(self, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return json_copy(value)

    dump = copy

    def load(self, raw: Any, name: str, setup: Setup) -> dict[str, Any] | None:
        if raw is None:
            return None
        if not isinstance(raw, dict) or not isinstance(raw.get("winners"), list):
            fail(f"{name!r} must be null or a dict with its 'winners' (a list of seats)")
        return json_copy(raw)


@dataclass(eq=False)
class State(StateBase):
    """One position of a knock game; JSON keys are the field names."""

    # 0-based index of the hand dealt last.
    hand_index: int = field(metadata=declare(Count(lambda s: s.max_hands), lambda s: 0))
    # The seat that dealt the hand (the next seat still in deals the next one).
    dealer: int = field(metadata=declare(Seat(), lambda s: 0))
    # The seat in turn (in phase ``buy``, the seat that answers).
    current: int = field(metadata=declare(Seat(), lambda s: 0))
    # What the position awaits.
    phase: Phase = field(metadata=declare(PhaseCodec(Phase), lambda s: Phase.DRAW))
    # Each seat's hand as counts per card type (empty outside a hand).
    hands: list[list[int]] = field(metadata=side.hands_spec())
    # The face-down stock, top card last (hidden: a seat sees only its size).
    stock: list[int] = field(metadata=side.stock_spec())
    # The face-up discard pile, top card last.
    discard: list[int] = field(metadata=side.discard_spec())
    # Each seat's running total of points, lower is better.
    scores: list[int] = field(metadata=declare(ints_per_seat(), fresh_per_seat(0)))
    # Whether each seat is still in the game (not over 100).
    in_game: list[bool] = field(metadata=declare(bools_per_seat(), fresh_per_seat(True)))
    # Each seat's net chips (everyone antes: ``-stake`` at the start).
    chips: list[int] = field(
        metadata=declare(ints_per_seat(), lambda s: [-s.stake] * s.num_players)
    )
    # Chips in the pot (``sum(chips) + pot == 0``).
    pot: int = field(metadata=declare(Count(), lambda s: s.stake * s.num_players))
    # Buy-backs each seat has made.
    buys: list[int] = field(
        metadata=declare(counts_per_seat(), fresh_per_seat(0), default=default_per_seat(0))
    )
    # In phase ``buy``, the seats still to answer, the one in turn first; else empty.
    buyers: list[int] = field(metadata=declare(SeatList(), lambda s: [], default=default_to([])))
    # Discards in this hand.
    turn: int = field(metadata=side.turn_spec())
    # Cards each seat is publicly known to hold (taken discards).
    known: list[list[int]] = field(metadata=side.known_spec())
    # Counts of every card discarded face up this hand.
    seen_discards: list[int] = field(metadata=side.seen_discards_spec())
    # One record per hand played (its cards shown, points, chips, buy-backs after it).
    hand_history: list[dict[str, Any]] = field(metadata=side.hand_history_spec(_check_record))
    # How the game ended (``end``, ``winners``, ``pot``), once over; else null.
    result: dict[str, Any] | None = field(
        metadata=declare(Result(), lambda s: None, default=default_to(None))
    )
    # Actions applied in the whole game.
    moves: int = field(metadata=side.moves_spec())
    # One seed per possible hand, drawn from the game's seed at creation (hidden).
    deal_seeds: list[int] = field(metadata=side.deal_seeds_spec())
    # This hand's generator: its deal and re-formed stocks (hidden).
    rng: random.Random = field(metadata=side.rng_spec())
