"""The two halves of a fifteen-card game, its ``Setup`` (table and options) and its ``State``
(each field declared once), with its action ids and phases; ``continental_env.side`` explains
the shape both side games share."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from continental_env import side
from continental_env.cards import NUM_TYPES
from continental_env.engine import GamePhase, StateBase
from continental_env.state_fields import (
    Count,
    PhaseCodec,
    Seat,
    bools_per_seat,
    declare,
    default_per_seat,
    fail,
    fresh_per_seat,
    ints_per_seat,
    is_int,
    shown,
)

__all__ = [
    "DISCARD_BASE",
    "DRAW",
    "HAND_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_ACTIONS",
    "OUT",
    "OUT_BASE",
    "TAKE",
    "Phase",
    "Setup",
    "State",
    "decks_for",
]

DRAW, TAKE, OUT = 0, 1, 2
DISCARD_BASE = 3
OUT_BASE = DISCARD_BASE + NUM_TYPES  # 56
NUM_ACTIONS = OUT_BASE + NUM_TYPES  # 109
HAND_SIZE = 15
MIN_PLAYERS, MAX_PLAYERS = 2, 12


class Phase(GamePhase):
    """What the position awaits; each value is its JSON string (and equals it)."""

    DRAW = "draw"  # the player in turn draws, takes the up-card or goes out as dealt
    PLAY = "play"  # the player in turn discards, or discards and goes out
    GAME_OVER = "game_over"  # the last hand is paid


def decks_for(num_players: int) -> int:
    """Decks (each with one joker) for a table: 2 up to 5 players, 3 up to 8, 4 up to 12."""
    if num_players <= 5:
        return 2
    return 3 if num_players <= 8 else 4


def check_options(
    num_players: Any, target: Any, hands: Any, max_turns_per_hand: Any, max_hands: Any
) -> None:
    """ValueError naming the first option a fifteen-card table refuses."""
    if not is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players={shown(num_players)}: the fifteen-card game seats 2..12")
    if target is not None and (not is_int(target) or target < 1):
        raise ValueError(f"target={shown(target)}: must be a positive int or None")
    if hands is not None and (not is_int(hands) or hands < 1):
        raise ValueError(f"hands={shown(hands)}: must be a positive int or None")
    side.check_safety_nets(max_turns_per_hand, max_hands)


@dataclass(frozen=True)
class Setup(side.SideSetup):
    """What a fifteen-card game holds fixed: the table size and the options."""

    GAME: ClassVar[str] = "fifteen"
    OPTIONS: ClassVar[dict[str, str]] = {
        "target": "target",
        "hands": "hand_limit",
        "max_turns_per_hand": "max_turns_per_hand",
        "max_hands": "max_hands",
    }

    num_players: int = 4
    target: int | None = 50
    hand_limit: int | None = None  # the ``hands`` option
    max_turns_per_hand: int = 200
    max_hands: int = 100

    def __post_init__(self) -> None:
        check_options(
            self.num_players, self.target, self.hand_limit, self.max_turns_per_hand, self.max_hands
        )

    num_actions = NUM_ACTIONS

    @property
    def decks(self) -> int:
        return decks_for(self.num_players)

    @property
    def hands_cap(self) -> int:
        """The most hands this game can last."""
        if self.hand_limit is None:
            return self.max_hands
        return min(self.hand_limit, self.max_hands)


def _check_record(record: dict[str, Any], where: str, setup: Setup) -> None:
    chips = record.get("chips")
    if (
        not isinstance(chips, list)
        or len(chips) != setup.num_players
        or not all(map(is_int, chips))
    ):
        fail(f"{where} needs 'chips', one int per seat")


@dataclass(eq=False)
class State(StateBase):
    """One position of a fifteen-card game; JSON keys are the field names."""

    # 0-based index of the hand being played (hands played, once over).
    hand_index: int = field(metadata=declare(Count(), lambda s: 0))
    # The seat that dealt this hand (seat ``hand_index % players``).
    dealer: int = field(metadata=declare(Seat(), lambda s: 0, per_round=True))
    # The seat in turn.
    current: int = field(metadata=declare(Seat(), lambda s: 0, per_round=True))
    # What the position awaits.
    phase: Phase = field(metadata=declare(PhaseCodec(Phase), lambda s: Phase.DRAW, per_round=True))
    # Each seat's hand as counts per card type.
    hands: list[list[int]] = field(metadata=side.hands_spec())
    # The face-down stock, top card last (hidden: a seat sees only its size).
    stock: list[int] = field(metadata=side.stock_spec())
    # The face-up discard pile, top card last (the up-card first).
    discard: list[int] = field(metadata=side.discard_spec())
    # Each seat's running total of chips won and lost (zero-sum).
    scores: list[int] = field(metadata=declare(ints_per_seat(), fresh_per_seat(0)))
    # Discards in this hand.
    turn: int = field(metadata=side.turn_spec())
    # Whether each seat has completed a turn in this hand.
    has_played: list[bool] = field(
        metadata=declare(
            bools_per_seat(), fresh_per_seat(False), per_round=True, default=default_per_seat(False)
        )
    )
    # Cards each seat is publicly known to hold (taken up-cards).
    known: list[list[int]] = field(metadata=side.known_spec())
    # Counts of every card discarded face up this hand (the up-card included).
    seen_discards: list[int] = field(metadata=side.seen_discards_spec())
    # One record per hand played: hand, dealer, winner, end, chips, payment, melds, turns.
    hand_history: list[dict[str, Any]] = field(metadata=side.hand_history_spec(_check_record))
    # Actions applied in the whole game.
    moves: int = field(metadata=side.moves_spec())
    # One seed per possible hand, drawn from the game's seed at creation (hidden).
    deal_seeds: list[int] = field(metadata=side.deal_seeds_spec())
    # This hand's generator: its deal and re-formed stocks (hidden).
    rng: random.Random = field(metadata=side.rng_spec())
