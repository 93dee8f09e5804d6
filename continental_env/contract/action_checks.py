"""The contract game's rules of each action kind: ``CHECKS[kind]``, the conditions it must meet.

Each ``Check`` is one condition of RULES.md Part 1 on an action and the words that explain a
refusal. ``game.py`` lists legal actions through them (``ONCE`` checks before a kind's
candidates, ``EACH`` check on every candidate) and explains an illegal action with the first one
it fails, so legality and its explanation cannot drift apart. The checks read the game through
its public methods (``hand_in_turn``, ``laid_down_in_turn``, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from continental_env.cards import JOKER, card_to_str
from continental_env.contract.actions import SLOT_JOKER, ActionLayout
from continental_env.melds import RUN, swap_targets
from continental_env.rules import RuleConfig


class Position(Protocol):
    """What the checks and the candidate helpers (``legal.py``) read of a position: the
    ``Position``'s state and setup, and its questions about the player in turn. ``Position`` satisfies
    it; naming the protocol rather than the class keeps the rules below the engine."""

    state: Any  # continental_env.contract.state.State
    rules: RuleConfig
    layout: ActionLayout

    @property
    def contract(self) -> tuple[int, int]: ...
    def hand_in_turn(self) -> list[int]: ...
    def hand_size_in_turn(self) -> int: ...
    def laid_down_in_turn(self) -> bool: ...
    def has_contract_in_hand(self) -> bool: ...
    def discard_allowed(self, card: int) -> bool: ...
    def owed_jokers_stay_placeable(self, kind: str, args: tuple) -> bool: ...
    def melds_exist(self, *melds: int) -> bool: ...
    def missing_meld(self, *melds: int) -> str: ...
    def meld_text(self, m: int) -> str: ...
    def layoff_ids_on(self, m: int) -> list[int]: ...
    def movejoker_ids(self) -> list[int]: ...


# ``CHECKS[kind]`` lists, in order, the conditions an action of that kind must meet, each with the
# words that explain a refusal. ``ONCE`` checks depend on the position only and are tested once
# before the kind's candidates are listed; ``EACH`` checks are tested on every candidate; ``ARGS``
# checks hold for every candidate by construction (the card is held, the meld exists, the card
# fits: the candidate helpers list only those) and so are tested only to explain a refusal. A test
# walks positions and checks that every legal action passes every check and every other one fails
# one, so the explanations cannot drift from the rules.

ONCE, EACH, ARGS = "once", "each", "args"


@dataclass(frozen=True)
class Check:
    """One condition of RULES.md on an action, and the refusal that names it."""

    holds: Callable[[Position, tuple], bool]  # (game, the action's arguments) -> met?
    why: Callable[[Position, tuple], str]  # the refusal, after "illegal action N ('text') ...: "
    scope: str  # ONCE, EACH or ARGS (above)
    # EACH checks only: whether the rule applies at all here (else every candidate passes).
    active: Callable[[Position], bool] = lambda g: True


def _seat(g: Position) -> int:
    return g.state.current


def _card_of(kind: str, args: tuple) -> int:
    """The card an action takes out of the hand (a lay-off's joker slots are the joker)."""
    card = args[0]
    return JOKER if kind == "layoff" and card >= SLOT_JOKER else card


def _held(kind: str) -> Check:
    return Check(
        lambda g, a: g.hand_in_turn()[_card_of(kind, a)] > 0,
        lambda g, a: f"{card_to_str(_card_of(kind, a))} is not in seat {_seat(g)}'s hand",
        ARGS,
    )


def _down_before(kind: str) -> Check:
    return Check(
        lambda g, a: g.laid_down_in_turn(),
        lambda g, a: f"seat {_seat(g)} must lay down before {kind}",
        ONCE,
    )


_NO_JOKERS_OWED = Check(
    lambda g, a: not g.state.jokers_owed,
    lambda g, a: (
        f"seat {_seat(g)} must first lay off the joker(s) taken by a swap this turn "
        f"({g.state.jokers_owed} left; {g.rules.name} rules)"
    ),
    ONCE,
)
_MELD_EXISTS = Check(lambda g, a: g.melds_exist(a[1]), lambda g, a: g.missing_meld(a[1]), ARGS)

CHECKS: dict[str, tuple[Check, ...]] = {
    "draw": (),
    "take": (
        Check(lambda g, a: bool(g.state.discard), lambda g, a: "the discard pile is empty", ONCE),
    ),
    "claim": (),
    "pass": (),
    "laydown": (
        Check(
            lambda g, a: not g.laid_down_in_turn(),
            lambda g, a: f"seat {_seat(g)} has already laid down this round",
            ONCE,
        ),
        Check(
            lambda g, a: g.has_contract_in_hand(),
            lambda g, a: "the hand holds no {} trio(s) + {} run(s) leaving a card in hand".format(
                *g.contract
            ),
            ONCE,
        ),
    ),
    "close": (
        _NO_JOKERS_OWED,
        Check(
            lambda g, a: g.laid_down_in_turn(),
            lambda g, a: f"seat {_seat(g)} has not laid down",
            ONCE,
        ),
        Check(
            lambda g, a: g.hand_size_in_turn() == 1,
            lambda g, a: (
                f"closing needs exactly one card in hand, seat {_seat(g)} holds {g.hand_size_in_turn()}"
            ),
            ONCE,
        ),
    ),
    "discard": (
        _NO_JOKERS_OWED,
        _held("discard"),
        Check(
            lambda g, a: g.hand_size_in_turn() >= 2,
            lambda g, a: "the last card cannot be discarded, it must be closed",
            ONCE,
        ),
        Check(
            lambda g, a: g.discard_allowed(a[0]),
            lambda g, a: (
                f"{card_to_str(a[0])} fits a meld on the table and the {g.rules.name} rules "
                "forbid discarding it before laying down"
            ),
            EACH,
            lambda g: g.rules.discard_restriction,
        ),
    ),
    "layoff": (
        _held("layoff"),
        _down_before("layoff"),
        _MELD_EXISTS,
        Check(
            lambda g, a: g.hand_size_in_turn() >= 2,
            lambda g, a: "a lay-off must leave one card in hand",
            ONCE,
        ),
        Check(
            lambda g, a: g.layout.layoff(a[1], a[0]) in g.layoff_ids_on(a[1]),
            lambda g, a: f"that card does not fit meld {a[1]} ({g.meld_text(a[1])})",
            ARGS,
        ),
        Check(
            lambda g, a: g.owed_jokers_stay_placeable("layoff", a),
            lambda g, a: (
                "after it the joker(s) taken by a swap could no longer be laid off this turn "
                f"({g.rules.name} rules)"
            ),
            EACH,
            lambda g: g.rules.swapped_joker_laid_off,
        ),
    ),
    "swap": (
        _held("swap"),
        _down_before("swap"),
        _MELD_EXISTS,
        Check(
            lambda g, a: g.rules.joker_rule == "swap",
            lambda g, a: f"the {g.rules.name} rules shift jokers, they do not swap them",
            ONCE,
        ),
        Check(
            lambda g, a: g.state.table[a[1]].kind == RUN or not g.rules.swap_run_jokers_only,
            lambda g, a: f"the {g.rules.name} rules let only a run's jokers be swapped",
            EACH,
            lambda g: g.rules.swap_run_jokers_only,
        ),
        Check(
            lambda g, a: a[0] in swap_targets(g.state.table[a[1]]),
            lambda g, a: f"no joker of meld {a[1]} stands for {card_to_str(a[0])}",
            ARGS,
        ),
        Check(
            lambda g, a: g.owed_jokers_stay_placeable("swap", a),
            lambda g, a: (
                f"the joker taken could not be laid off this turn, as the {g.rules.name} rules "
                "require (it needs a free place on the table and a card left in hand)"
            ),
            EACH,
            lambda g: g.rules.swapped_joker_laid_off,
        ),
    ),
    "movejoker": (
        _down_before("movejoker"),
        Check(
            lambda g, a: g.melds_exist(a[0], a[1]), lambda g, a: g.missing_meld(a[0], a[1]), ARGS
        ),
        Check(
            lambda g, a: g.rules.joker_rule == "shift",
            lambda g, a: "only the continental_us rules move jokers between runs",
            ONCE,
        ),
        Check(
            lambda g, a: not g.state.joker_moved,  # one joker move per turn, so every turn ends
            lambda g, a: f"seat {_seat(g)} has already moved a joker this turn (one per turn)",
            ONCE,
        ),
        Check(
            lambda g, a: g.layout.move(*a) in g.movejoker_ids(),
            lambda g, a: (
                f"meld {a[0]} must be seat {_seat(g)}'s own run of 5+ cards with a joker at an "
                f"end, and meld {a[1]} another run with room at its {a[2]} end"
            ),
            ARGS,
        ),
    ),
}

__all__ = ["ARGS", "CHECKS", "EACH", "ONCE", "Check", "Position"]
