"""The two halves of a contract game: its static ``Setup`` and its position, one ``State``.

As in OpenSpiel (``gin_rummy.h``: a game object holds the parameters, the action count and the
maximum game length; a state holds one position), ``Setup`` holds what never changes during a
game (rules, table size, action layout, card points, the length bound) and is shared by every
game of that table; ``State`` is the position and nothing else.

Each ``State`` field is declared once, below, with a comment and a ``Codec`` saying how it is
copied, written to JSON and read back with its shape checked; whether it restarts at each deal
and what a seat may not see of it. ``clone``, ``to_dict``, ``from_dict``, the per-round reset and
the redacted copy of a seat's view are all generated from those declarations. The checks that
relate fields to each other (cards conserved, a claim window that makes sense) are in
``state_check.py``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from continental_env.cards import JOKER, NUM_TYPES, card_from_str, card_to_str, from_counts
from continental_env.contract.actions import ActionLayout, layout_for
from continental_env.contract.public_log import KINDS, NO_CARD, PublicLog
from continental_env.engine import GamePhase, StateBase
from continental_env.melds import RUN, TRIO, Meld
from continental_env.rules import CONTRACTS, PRESETS, RuleConfig, deck_counts, points_table
from continental_env.state_fields import (
    CardCounts,
    CardCountsPerSeat,
    Cards,
    Codec,
    Count,
    Derived,
    Flag,
    PerSeat,
    PhaseCodec,
    Rng,
    Seat,
    SeatList,
    Seeds,
    card_list,
    declare,
    default_per_seat,
    default_seen_of_pile,
    default_to,
    fail,
    fresh_counts_per_seat,
    fresh_per_seat,
    ints_per_seat,
    is_int,
    own_hand_only,
    shown,
    stock_size_only,
)


class Phase(GamePhase):
    """What the position awaits; each value is the JSON string (and compares equal to it)."""

    DRAW = "draw"  # the player in turn draws from the stock or takes the discard
    CLAIM = "claim"  # the asked seat answers whether it claims the declined discard
    PLAY = "play"  # the player in turn lays down, lays off, swaps, discards or closes
    GAME_OVER = "game_over"  # the last round is scored


# ============================================================================ the static half


@dataclass(frozen=True)
class Setup:
    """What a game holds fixed from its creation: rules and table size, and all they imply."""

    rules: RuleConfig
    num_players: int

    def __post_init__(self) -> None:
        self.rules.check_players(self.num_players)

    @staticmethod
    @lru_cache(maxsize=64)
    def of(rules: RuleConfig, num_players: int) -> Setup:
        """The shared ``Setup`` of these rules and table size."""
        return Setup(rules, num_players)

    @property
    def layout(self) -> ActionLayout:
        """The action ids of this table (``continental_env.contract.actions``)."""
        return layout_for(self.num_players)

    @property
    def num_actions(self) -> int:
        """Size of the action space of this table."""
        return self.layout.num_actions

    @property
    def num_deals(self) -> int:
        """Deals in one game: one per round of the rules."""
        return len(self.rules.rounds)

    @property
    def points(self) -> tuple[int, ...]:
        """Points of each card type left in a hand."""
        return points_table(self.rules)

    def deck(self, round_number: int) -> list[int]:
        """The cards of a round's decks, sorted by card type (the deal shuffles this list)."""
        return from_counts(deck_counts(self.rules, self.num_players, round_number))

    @cached_property
    def legal_kernel_facts(self) -> tuple[Any, ...]:
        """What ``_kernels.contract_legal`` reads of the setup, after the state: the rules it
        applies, the action layout's bases and the contracts."""
        rules = self.rules
        layout = self.layout
        return (
            rules.discard_restriction,
            rules.swapped_joker_laid_off,
            rules.joker_rule == "swap",
            rules.joker_rule == "shift",
            rules.swap_run_jokers_only,
            rules.min_run,
            rules.ace_wraparound,
            layout.swap_base,
            layout.move_base,
            layout.max_melds,
            CONTRACTS,
        )

    @cached_property
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in one game (OpenSpiel's ``MaxGameLength``).

        Why it holds, per round (``D`` cards in the round's decks, ``J`` of them jokers, ``P``
        players, ``T = max_turns_per_round``):

        * a round has at most ``T`` turns: every turn but the last ends with a discard, the round
          ends at the ``T``-th discard, and a close or an empty stock ends it at once;
        * a turn opens with one draw or take and at most ``P - 1`` claim answers;
        * its play step holds at most one lay-down; at most ``D`` lay-offs (each takes a card out
          of a hand that never holds more than ``D``); at most ``J + D`` swaps (each takes a joker
          off the table into the hand, and jokers reach the table only from the ``J`` there at the
          start of the turn or by this turn's lay-down and lay-offs, at most ``D`` cards); at most
          one joker move (``continental_us``: one per turn, which is what makes every turn end);
          and one discard or close.

        So a round takes at most ``T * (P + 2D + J + 3)`` actions, and a game the sum over its
        rounds. The bound is loose (real games are a few hundred actions) but proven.
        """
        rules = self.rules
        p = self.num_players
        total = 0
        for rnd in rules.rounds:
            deck = deck_counts(rules, p, rnd)
            cards, jokers = sum(deck), deck[JOKER]
            total += rules.max_turns_per_round * (p + 2 * cards + jokers + 3)
        return total

    def to_dict(self) -> dict[str, Any]:
        """The JSON keys naming the rules (a preset's name when they are one) and the table."""
        rules = self.rules
        preset = rules.name if PRESETS.get(rules.name) == rules else None
        return {"preset": preset, "rules": rules.to_dict(), "num_players": self.num_players}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Setup:
        """The setup named by a state's ``rules`` (or ``preset``) and ``num_players``."""
        if data.get("rules") is not None:
            try:
                rules = RuleConfig.from_dict(data["rules"])
            except (TypeError, ValueError) as exc:
                fail(f"rules: {exc}")
        elif data.get("preset") in PRESETS:
            rules = PRESETS[data["preset"]]
        else:
            fail("needs 'rules' or a known 'preset'")
        try:
            rules.check_players(data["num_players"])
        except ValueError as exc:
            fail(str(exc))
        return Setup.of(rules, data["num_players"])


# ============================================================================ field codecs
# The generic codecs (counts, seats, piles, card multisets, the generator) are the engine base's (``state_fields``);
# these are the contract game's own.


class RoundNumber(Codec):
    """One of the rules' rounds."""

    def load(self, raw: Any, name: str, setup: Setup) -> int:
        rounds = setup.rules.rounds
        if not is_int(raw) or raw not in rounds:
            fail(f"round {shown(raw)} is not one of the rules' rounds {shown(rounds)}")
        return raw


class Melds(Codec):
    """The table: melds in the order they were laid down, each checked by the meld validator."""

    def copy(self, value: list[Meld]) -> list[Meld]:
        return [m.copy() for m in value]

    def dump(self, value: list[Meld]) -> list[dict]:
        return [m.to_dict() for m in value]

    def load(self, raw: Any, name: str, setup: Setup) -> list[Meld]:
        limit = setup.layout.max_melds
        if not isinstance(raw, list) or len(raw) > limit:
            fail(f"{name!r} must be a list of at most {limit} melds")
        return [self._meld(m, f"{name}[{i}]", setup) for i, m in enumerate(raw)]

    @staticmethod
    def _meld(m: Any, where: str, setup: Setup) -> Meld:
        if not isinstance(m, dict) or not {"owner", "kind", "cards"} <= set(m):
            fail(f"{where} needs owner, kind and cards")
        owner = m["owner"]
        if m["kind"] not in (TRIO, RUN) or not is_int(owner) or not 0 <= owner < setup.num_players:
            fail(f"{where} has a bad kind or owner")
        cards = card_list(m["cards"], where)
        try:
            return Meld.build(owner, m["kind"], cards, setup.rules)
        except ValueError as exc:
            fail(f"{where}: {exc}")


class RoundHistory(Codec):
    """The scored rounds: ``{"round", "points" (per seat), "closer" (seat or null), "turns"}``."""

    def copy(self, value: list[dict]) -> list[dict]:
        return [dict(r, points=list(r["points"])) for r in value]

    dump = copy

    def load(self, raw: Any, name: str, setup: Setup) -> list[dict]:
        if not isinstance(raw, list):
            fail(f"{name!r} must be a list of round results, got {type(raw).__name__}")
        return [self._entry(entry, i, setup) for i, entry in enumerate(raw)]

    @staticmethod
    def _entry(entry: Any, i: int, setup: Setup) -> dict:
        p, rounds = setup.num_players, setup.rules.rounds
        where = f"round_history[{i}]"
        if not isinstance(entry, dict) or not {"round", "points", "closer", "turns"} <= set(entry):
            fail(f"{where} needs round, points, closer and turns")
        if i >= len(rounds) or entry["round"] != rounds[i]:
            expected = rounds[i] if i < len(rounds) else "none"
            fail(f"{where} is round {shown(entry['round'])}, expected {expected}")
        pts, closer, turns = entry["points"], entry["closer"], entry["turns"]
        if not isinstance(pts, list) or len(pts) != p or not all(map(is_int, pts)):
            fail(f"{where}['points'] must be {p} integers")
        if closer is not None and (not is_int(closer) or not 0 <= closer < p):
            fail(f"{where}['closer'] must be a seat or null, got {shown(closer)}")
        if not is_int(turns) or turns < 0:
            fail(f"{where}['turns'] must be a non-negative int")
        return dict(entry, points=list(pts))


class HiddenRandom(random.Random):
    """The generator of a redacted position: hidden, so it draws nothing.

    One shared instance (``HIDDEN_RNG``) stands in every seat's view, so a view costs no
    generator copy; drawing from it raises. A clone of a redacted position gets an ordinary
    generator in the same (seed 0) state, as before.
    """

    def random(self) -> float:
        raise RuntimeError("a redacted position's generator is hidden: it draws nothing")

    def getrandbits(self, k: int) -> int:
        raise RuntimeError("a redacted position's generator is hidden: it draws nothing")

    def seed(self, a: Any = None, version: int = 2) -> None:
        if getattr(self, "_sealed", False):
            raise RuntimeError("a redacted position's generator is hidden: it cannot be reseeded")
        super().seed(a, version)

    def setstate(self, state: Any) -> None:
        # A copy (pickle, deepcopy) restores its state once; the shared instance never does.
        if getattr(self, "_sealed", False):
            raise RuntimeError("a redacted position's generator is hidden: its state is fixed")
        super().setstate(state)


HIDDEN_RNG = HiddenRandom(0)
HIDDEN_RNG._sealed = True


# Kinds whose entry shows a card, may show one (a draw over an empty pile shows none), or never do.
_SHOWS_CARD = frozenset(("take", "claim", "pass", "discard", "layoff", "swap"))
_NO_CARD_KINDS = frozenset(("laydown", "close", "movejoker"))


class PublicLogCodec(Codec):
    """The round's public actions (``public_log.PublicLog``), written as ``[seat, kind, card]``
    entries, oldest first: ``kind`` one of ``KINDS``, ``card`` the card shown or null.

    Read back as the log of the round the state is in (``round_index`` and ``deal_seeds`` are
    read before it), its per-seat totals rebuilt.
    """

    def copy(self, value: PublicLog) -> PublicLog:
        return value.copy()

    def dump(self, value: PublicLog) -> list[list[Any]]:
        return [
            [seat, KINDS[kind], None if card == NO_CARD else card_to_str(card)]
            for seat, kind, card in value.items
        ]

    def load_field(self, raw: Any, name: str, setup: Setup, loaded: dict[str, Any]) -> PublicLog:
        if not isinstance(raw, list):
            fail(f"{name!r} must be a list of [seat, kind, card] entries, got {shown(raw)}")
        p = setup.num_players
        items = []
        for i, entry in enumerate(raw):
            where = f"{name}[{i}]"
            if not isinstance(entry, list) or len(entry) != 3:
                fail(f"{where} must be [seat, kind, card or null], got {shown(entry)}")
            seat, kind, card = entry
            if not is_int(seat) or not 0 <= seat < p:
                fail(f"{where}: seat {shown(seat)} is not a seat 0..{p - 1}")
            if kind not in KINDS:
                fail(f"{where}: kind {shown(kind)} is not one of {', '.join(KINDS)}")
            if card is None:
                if kind in _SHOWS_CARD:
                    fail(f"{where}: a {kind!r} entry shows a card, got null")
                items.append((seat, KINDS.index(kind), NO_CARD))
                continue
            if kind in _NO_CARD_KINDS:
                fail(f"{where}: a {kind!r} entry shows no card, got {shown(card)}")
            try:
                items.append((seat, KINDS.index(kind), card_from_str(card)))
            except (ValueError, AttributeError) as exc:
                fail(f"{where}: {exc}")
        key = PublicLog.key_for(loaded["round_index"], loaded["deal_seeds"])
        return PublicLog.restore(key, items, p)


# ============================================================================ the position


def _seeds_from_rng(loaded: dict[str, Any], setup: Setup) -> list[int]:
    # A hand-built state may leave the later rounds' seeds out: derive them from `rng`.
    derive = random.Random()
    derive.setstate(loaded["rng"].getstate())
    return [derive.getrandbits(64) for _ in setup.rules.rounds]


def _round_index_of_round(loaded: dict[str, Any], setup: Setup) -> int:
    return setup.rules.rounds.index(loaded["round"])


def _queue_of_asked(loaded: dict[str, Any], setup: Setup) -> list[int]:
    return [] if loaded["asked"] is None else [loaded["asked"]]


def _hidden_rng(rng: random.Random, seat: int, state: Any) -> random.Random:
    return HIDDEN_RNG


def _hidden_seeds(seeds: list[int], seat: int, state: Any) -> list[int]:
    return [0] * len(seeds)


def _is_action(value: Any, setup: Setup) -> bool:
    return value is None or (is_int(value) and 0 <= value < setup.num_actions)


@dataclass(eq=False)
class State(StateBase):
    """One position of a contract game; JSON keys are the field names (DESIGN.md)."""

    # The round being played (1..7: its contract and deal size); the last one once over.
    round: int = field(metadata=declare(RoundNumber(), lambda s: s.rules.rounds[0]))
    # Position of ``round`` in ``rules.rounds``; ``len(rules.rounds)`` once the game is over.
    round_index: int = field(metadata=declare(Count(), lambda s: 0, default=_round_index_of_round))
    # The seat that dealt this round (seat i % players deals the i-th round).
    dealer: int = field(metadata=declare(Seat(), lambda s: 0, per_round=True))
    # The seat in turn (it draws, plays, discards).
    current: int = field(metadata=declare(Seat(), lambda s: 0, per_round=True))
    # What the position awaits (``Phase``).
    phase: Phase = field(metadata=declare(PhaseCodec(Phase), lambda s: Phase.DRAW, per_round=True))
    # In a claim window, the seat whose answer is awaited; else null.
    asked: int | None = field(metadata=declare(Seat(nullable=True), lambda s: None, per_round=True))
    # In a claim window, the seats still to be asked, the asked seat first; else empty.
    claim_queue: list[int] = field(
        metadata=declare(SeatList(), lambda s: [], per_round=True, default=_queue_of_asked)
    )
    # Each seat's hand as counts per card type.
    hands: list[list[int]] = field(
        metadata=declare(
            CardCountsPerSeat(), fresh_counts_per_seat, per_round=True, redact=own_hand_only
        )
    )
    # Cards in each hand (the sums of ``hands``; public).
    hand_sizes: list[int] = field(
        metadata=declare(
            Derived(lambda loaded: [sum(h) for h in loaded["hands"]]),
            fresh_per_seat(0),
            per_round=True,
        )
    )
    # The face-down stock, top card last (hidden: a seat sees only its size).
    stock: list[int] = field(
        metadata=declare(Cards(), lambda s: [], per_round=True, redact=stock_size_only)
    )
    # The face-up discard pile, top card last (a closing card goes on it face down).
    discard: list[int] = field(metadata=declare(Cards(), lambda s: [], per_round=True))
    # The melds laid down this round, in order (action ids name them by this index).
    table: list[Meld] = field(metadata=declare(Melds(), lambda s: [], per_round=True))
    # Whether each seat has laid its contract down this round.
    laid_down: list[bool] = field(
        metadata=declare(
            PerSeat("bool", lambda v, s: isinstance(v, bool)), fresh_per_seat(False), per_round=True
        )
    )
    # The turn (``turn`` then) at which each seat laid down, -1 if not yet (one-turn bonus).
    laid_down_turn: list[int] = field(
        metadata=declare(
            ints_per_seat(), fresh_per_seat(-1), per_round=True, default=default_per_seat(-1)
        )
    )
    # Cumulative points per seat (the sums of ``round_history``'s points).
    scores: list[int] = field(metadata=declare(ints_per_seat(), fresh_per_seat(0)))
    # Turns completed (discards) this round.
    turn: int = field(metadata=declare(Count(), lambda s: 0, per_round=True, default=default_to(0)))
    # Claims each seat has made this round (capped by ``max_claims_per_round``).
    claims: list[int] = field(
        metadata=declare(
            ints_per_seat(), fresh_per_seat(0), per_round=True, default=default_per_seat(0)
        )
    )
    # Cards each seat is publicly known to hold (taken or claimed discards, swapped jokers).
    known: list[list[int]] = field(
        metadata=declare(
            CardCountsPerSeat(), fresh_counts_per_seat, per_round=True, default=default_per_seat([])
        )
    )
    # Counts of every card discarded face up this round (the up-card included).
    seen_discards: list[int] = field(
        metadata=declare(
            CardCounts(), lambda s: [0] * NUM_TYPES, per_round=True, default=default_seen_of_pile
        )
    )
    # One entry per scored round, in order.
    round_history: list[dict[str, Any]] = field(
        metadata=declare(RoundHistory(), lambda s: [], default=default_to([]))
    )
    # Each seat's latest action id this round, or null.
    last_action: list[int | None] = field(
        metadata=declare(
            PerSeat("null or action ids 0..{last}", _is_action),
            fresh_per_seat(None),
            per_round=True,
            default=default_per_seat(None),
        )
    )
    # Actions applied in the whole game.
    moves: int = field(metadata=declare(Count(), lambda s: 0, default=default_to(0)))
    # 003: the player in turn has made this turn's one joker move.
    joker_moved: bool = field(
        metadata=declare(Flag(), lambda s: False, per_round=True, default=default_to(False))
    )
    # 004: jokers taken by swaps this turn that must still be laid off before discarding.
    jokers_owed: int = field(
        metadata=declare(Count(), lambda s: 0, per_round=True, default=default_to(0))
    )
    # This round's generator: its deal and any re-formed stock (hidden).
    rng: random.Random = field(
        metadata=declare(Rng(), lambda s: random.Random(), redact=_hidden_rng)
    )
    # One seed per round, drawn from the game's seed at creation (hidden: they fix the deals).
    deal_seeds: list[int] = field(
        metadata=declare(
            Seeds(lambda s: s.num_deals, "one per round"),
            lambda s: [],
            default=_seeds_from_rng,
            redact=_hidden_seeds,
        )
    )
    # The round's public actions with the card each showed (``public_log.PublicLog``; public).
    # Emptied at each deal, fed by ``Game.apply``; a state written before it existed starts empty.
    public_log: PublicLog = field(
        metadata=declare(
            PublicLogCodec(), lambda s: PublicLog(), per_round=True, default=default_to([])
        )
    )


FIELD_NAMES = State.field_names()

__all__ = ["FIELD_NAMES", "Phase", "Setup", "State", "fail"]
