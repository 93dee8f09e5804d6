"""Rule configurations: every rule that differs between the source texts is a field here.

Pure data. See ``RULES.md`` (Part 1) for the game; each preset is one seed's game.

| field | meaning | default |
|---|---|---|
| ``name`` | preset name, or ``"custom"`` | ``"continental"`` |
| ``min_players`` / ``max_players`` | players the preset allows | 2 / 8 |
| ``deck_schedule`` | ``((max_players, decks per round 1..7), ...)``: first row whose bound fits (1..16 decks) | 2 decks up to 4 players, 3 above |
| ``jokers_per_deck`` | jokers added with every deck (0..6) | 2 |
| ``min_run`` | shortest run (3..12) | 4 |
| ``ace_wraparound`` | runs are cyclic (``Q K A 2`` valid) | True |
| ``joker_rule`` | ``"swap"`` (000, 004) or ``"shift"`` (003) | ``"swap"`` |
| ``swap_run_jokers_only`` | 004: only a run's jokers may be swapped (a trio's joker stands for no single card) | False |
| ``swapped_joker_laid_off`` | 004: a joker taken by a swap must be laid off the same turn, before a discard or close | False |
| ``discard_restriction`` | 004: a player not yet down may not discard a card that fits a table meld | False |
| ``one_turn_bonus`` | closer's score when laying down and closing in one turn (-10000..10000) | 0 |
| ``card_points`` | points of joker, A, 2, ..., K (14 values, each 0..10000) | 50, 20, 2..9 face, 10 T J Q K |
| ``claims_after_laydown`` | players already down may claim too | False |
| ``max_claims_per_round`` | claims per player and round, ``None`` = unlimited | None |
| ``max_turns_per_round`` | safety net: a round ends with no closer after this many turns | 200 |
| ``rounds`` | which rounds (1..7) a game plays, in order | 1..7 |
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

from continental_env.cards import JOKER, NUM_NATURALS, NUM_TYPES, rank_of
from continental_env.state_fields import shown

# (trios, runs) the contract of round r asks for, r = 1..7 (RULES.md 1.2).
CONTRACTS: tuple[tuple[int, int], ...] = (
    (2, 0),
    (1, 1),
    (0, 2),
    (3, 0),
    (2, 1),
    (1, 2),
    (0, 3),
)


def contract_for_round(round_number: int) -> tuple[int, int]:
    """(trios, runs) of the contract of a 1-based round."""
    if not 1 <= round_number <= 7:
        raise ValueError(f"round {shown(round_number)} is out of range 1..7")
    return CONTRACTS[round_number - 1]


def cards_dealt(round_number: int) -> int:
    """Cards each player is dealt in a 1-based round: 6 + round."""
    contract_for_round(round_number)
    return 6 + round_number


# Bounds that keep every rule inside what the compiled kernels (``continental_env/_kernels.c``)
# handle with their fixed-size C ints; a rule past one is refused here, not by a kernel mid-game.
# The kernels read card points and counts of at most 10**6 each, add a hand's points in 32-bit
# ints (a hand holds at most a round's 16 * (52 + 6) = 928 cards: 928 * 10**4 points, far below
# 2**31), hold at most 160 cards in one trio (every natural of its rank, 4 * 16, and every
# joker, 16 * 6) and a run's first ``min_run`` cards and its start in 13 ints.
MAX_CARD_POINTS = 10_000  # what one card scores (and the most a one-turn close may score)
MAX_DECKS = 16  # decks shuffled together in one round
MAX_JOKERS_PER_DECK = 6
MAX_MIN_RUN = 12

_FACE = (50, 20, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
_SPANISH = (50, 20, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)


def _whole(name: str, value: Any, low: int | None = None, high: int | None = None) -> None:
    """Raise unless ``value`` is an integer (not a bool), at least ``low`` and at most ``high``
    when given."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name}={shown(value)} must be an integer")
    if low is not None and value < low:
        raise ValueError(f"{name}={shown(value)} must be at least {low}")
    if high is not None and value > high:
        raise ValueError(f"{name}={shown(value)} must be at most {high}")


def _check_schedule_row(i: int, row: Any, last: int) -> int:
    """Check deck schedule row ``i`` against the previous bound ``last``; its player bound."""
    if not isinstance(row, tuple) or len(row) != 2:
        raise ValueError(f"deck_schedule row {i} must be (max_players, decks per round)")
    bound, per_round = row
    if not isinstance(bound, int) or isinstance(bound, bool) or bound <= last:
        raise ValueError(
            f"deck_schedule row {i}: player bound {shown(bound)} must be an integer above {last}"
        )
    if (
        not isinstance(per_round, tuple)
        or len(per_round) != 7
        or any(
            not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= MAX_DECKS
            for d in per_round
        )
    ):
        raise ValueError(
            f"deck_schedule row {i}: decks per round {shown(per_round)} must be 7 integers in "
            f"1..{MAX_DECKS} (the compiled kernels' bound)"
        )
    return bound


@dataclass(frozen=True)
class RuleConfig:
    """One variant of the contract game; every field is documented in the module table."""

    name: str = "continental"
    min_players: int = 2
    max_players: int = 8
    deck_schedule: tuple[tuple[int, tuple[int, ...]], ...] = ((4, (2,) * 7), (8, (3,) * 7))
    jokers_per_deck: int = 2
    min_run: int = 4
    ace_wraparound: bool = True
    joker_rule: str = "swap"
    swap_run_jokers_only: bool = False
    swapped_joker_laid_off: bool = False
    discard_restriction: bool = False
    one_turn_bonus: int = 0
    card_points: tuple[int, ...] = _FACE
    claims_after_laydown: bool = False
    max_claims_per_round: int | None = None
    max_turns_per_round: int = 200
    rounds: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7)

    def __post_init__(self) -> None:
        self._check_numbers()
        self._check_deck_schedule()
        self._check_flags_and_ranges()

    def _check_numbers(self) -> None:
        _whole("min_players", self.min_players, 2)
        _whole("max_players", self.max_players, 2)
        _whole("jokers_per_deck", self.jokers_per_deck, 0, MAX_JOKERS_PER_DECK)
        _whole("min_run", self.min_run)
        _whole("one_turn_bonus", self.one_turn_bonus, -MAX_CARD_POINTS, MAX_CARD_POINTS)
        _whole("max_turns_per_round", self.max_turns_per_round)
        if self.max_claims_per_round is not None:
            _whole("max_claims_per_round", self.max_claims_per_round, 0)
        if not isinstance(self.card_points, tuple) or any(
            not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in self.card_points
        ):
            raise ValueError(
                f"card_points={shown(self.card_points)} must be a tuple of non-negative integers"
            )
        for i, points in enumerate(self.card_points):
            _whole(f"card_points[{i}]", points, 0, MAX_CARD_POINTS)

    def _check_flags_and_ranges(self) -> None:
        for flag in (
            "ace_wraparound",
            "discard_restriction",
            "claims_after_laydown",
            "swap_run_jokers_only",
            "swapped_joker_laid_off",
        ):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag}={shown(getattr(self, flag))} must be true or false")
        if self.joker_rule not in ("swap", "shift"):
            raise ValueError(f"joker_rule {shown(self.joker_rule)} must be 'swap' or 'shift'")
        if len(self.card_points) != 14:
            raise ValueError("card_points needs 14 values: joker, A, 2, ..., K")
        if not self.rounds or any(not 1 <= r <= 7 for r in self.rounds):
            raise ValueError(f"rounds {shown(self.rounds)} must be a non-empty sequence of 1..7")
        if not 3 <= self.min_run <= MAX_MIN_RUN:
            raise ValueError(
                f"min_run {shown(self.min_run)} must be in 3..{MAX_MIN_RUN} (the compiled "
                "kernels' bound)"
            )
        if self.max_turns_per_round < 1:
            raise ValueError("max_turns_per_round must be at least 1")
        if not 2 <= self.min_players <= self.max_players:
            raise ValueError("need 2 <= min_players <= max_players")

    def _check_deck_schedule(self) -> None:
        rows = self.deck_schedule
        if not isinstance(rows, tuple) or not rows:
            raise ValueError("deck_schedule must be a non-empty tuple of (max_players, decks) rows")
        last = 1
        for i, row in enumerate(rows):
            last = _check_schedule_row(i, row, last)
        if last < self.max_players:
            raise ValueError(
                f"deck_schedule covers up to {last} players but max_players is {self.max_players}"
            )

    def decks(self, num_players: int, round_number: int) -> int:
        """Number of 52-card decks shuffled together for this table size and round."""
        for bound, per_round in self.deck_schedule:
            if num_players <= bound:
                return per_round[round_number - 1]
        raise ValueError(f"no deck schedule for {num_players} players in preset {shown(self.name)}")

    def check_players(self, num_players: int) -> None:
        """Raise ValueError unless the preset allows this many players."""
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"num_players={shown(num_players)}: preset {shown(self.name)} allows "
                f"{self.min_players}..{self.max_players} players"
            )

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (tuples become lists)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "deck_schedule":
                value = [[bound, list(per)] for bound, per in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleConfig:
        """Inverse of ``to_dict``; unknown keys are refused."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown rule fields: {shown(sorted(unknown))}")
        kwargs = dict(data)
        if "deck_schedule" in kwargs:
            kwargs["deck_schedule"] = tuple(
                (int(bound), tuple(int(x) for x in per)) for bound, per in kwargs["deck_schedule"]
            )
        for key in ("card_points", "rounds"):
            if key in kwargs:
                kwargs[key] = tuple(int(x) for x in kwargs[key])
        return cls(**kwargs)

    def with_rounds(self, rounds: tuple[int, ...] | list[int] | int) -> RuleConfig:
        """The same rules playing only the given rounds (an int means that one round)."""
        if isinstance(rounds, int):
            rounds = (rounds,)
        return replace(self, rounds=tuple(rounds))


PRESETS: dict[str, RuleConfig] = {
    "continental": RuleConfig(),
    "continental_us": RuleConfig(
        name="continental_us",
        max_players=6,
        deck_schedule=((6, (2,) * 7),),
        jokers_per_deck=1,  # two jokers in all with two decks
        ace_wraparound=False,
        joker_rule="shift",
        one_turn_bonus=-10,
    ),
    "continental_es": RuleConfig(
        name="continental_es",
        deck_schedule=(
            (3, (2,) * 7),
            (4, (2, 2, 2, 2, 3, 3, 3)),
            (8, (2, 2, 3, 3, 4, 4, 4)),
        ),
        discard_restriction=True,
        swap_run_jokers_only=True,
        swapped_joker_laid_off=True,
        card_points=_SPANISH,
    ),
}


@lru_cache(maxsize=64)
def points_table(rules: RuleConfig) -> tuple[int, ...]:
    """Points of each of the 53 card types under these rules."""
    pts = rules.card_points
    return tuple(pts[0] if c == JOKER else pts[rank_of(c) + 1] for c in range(NUM_TYPES))


@lru_cache(maxsize=256)
def deck_counts(rules: RuleConfig, num_players: int, round_number: int) -> tuple[int, ...]:
    """Copies of each of the 53 card types in one round's shuffled decks (jokers included).

    The one place a round's deck is defined: the deal, the conservation check of a loaded
    state, the bots' unseen-card counts and the game-length bound all read it.
    """
    decks = rules.decks(num_players, round_number)
    return (decks,) * NUM_NATURALS + (decks * rules.jokers_per_deck,)


def resolve_rules(preset: str | RuleConfig) -> RuleConfig:
    """A RuleConfig from a preset name or a RuleConfig."""
    if isinstance(preset, RuleConfig):
        return preset
    try:
        return PRESETS[preset]
    except KeyError:
        raise ValueError(
            f"unknown preset {shown(preset)}; choose one of {sorted(PRESETS)}"
        ) from None


__all__ = [
    "CONTRACTS",
    "MAX_CARD_POINTS",
    "MAX_DECKS",
    "MAX_JOKERS_PER_DECK",
    "MAX_MIN_RUN",
    "PRESETS",
    "RuleConfig",
    "cards_dealt",
    "contract_for_round",
    "deck_counts",
    "points_table",
    "resolve_rules",
]
