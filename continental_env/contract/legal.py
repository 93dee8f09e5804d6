"""The contract game's legal actions: one candidate helper per action kind, filtered by ``CHECKS``.

Each helper takes the position (a ``Game``, typed as ``action_checks.Position``) and returns the ids of its kind worth checking (the ``ARGS`` checks
of ``action_checks.CHECKS`` hold for all of them); ``compute_legal`` keeps, per kind of the
phase, the candidates that pass that kind's ``ONCE`` and ``EACH`` checks. Helpers in the style of
OpenSpiel's ``DrawLegalActions``. This is the definition: ``Game._compute_legal`` runs its compiled
port (``_kernels.contract_legal``, the same ids, compared in ``tests/test_legal_kernel.py``) when
the kernels are built, and ``compute_legal`` otherwise or where the port defers to it.
"""

from __future__ import annotations

from collections.abc import Callable

from continental_env.cards import JOKER, NUM_TYPES
from continental_env.contract.action_checks import CHECKS, EACH, ONCE, Check, Position
from continental_env.contract.actions import (
    CLAIM,
    CLOSE,
    DISCARD_BASE,
    DRAW,
    LAYDOWN,
    PASS,
    SLOT_JOKER,
    SLOT_JOKER_HIGH,
    SLOT_JOKER_LOW,
    TAKE,
)
from continental_env.contract.state import Phase
from continental_env.melds import (
    HIGH,
    LOW,
    RUN,
    TRIO,
    end_joker,
    layoff_options,
    run_can_extend,
    swap_targets,
)

DRAW_PHASE, CLAIM_PHASE, PLAY_PHASE, GAME_OVER = Phase

# The phase each action kind belongs to.
PHASE_OF_KIND = {
    "draw": DRAW_PHASE,
    "take": DRAW_PHASE,
    "claim": CLAIM_PHASE,
    "pass": CLAIM_PHASE,
    "laydown": PLAY_PHASE,
    "close": PLAY_PHASE,
    "discard": PLAY_PHASE,
    "layoff": PLAY_PHASE,
    "swap": PLAY_PHASE,
    "movejoker": PLAY_PHASE,
}


def compute_legal(game: Position) -> list[int]:
    """Per kind of the phase: its candidates (one helper each) that pass its ``CHECKS``."""
    legal: list[int] = []
    for once, candidates, each in _PLANS[game.state.phase]:
        if all(check.holds(game, ()) for check in once):
            legal += _filter(game, candidates(game), each) if each else candidates(game)
    legal.sort()
    return legal


def _filter(game: Position, ids: list[int], checks: tuple[Check, ...]) -> list[int]:
    """The ids that pass the ``EACH`` checks that apply here."""
    active = [c for c in checks if c.active(game)]
    if not active or not ids:
        return ids
    decode = game.layout.decode
    return [a for a in ids if all(c.holds(game, tuple(decode(a)[1:])) for c in active)]


# One helper per kind: the ids of that kind worth checking (``ARGS`` checks hold for all).


def draw_ids(game: Position) -> list[int]:
    return [DRAW]


def take_ids(game: Position) -> list[int]:
    return [TAKE]


def claim_ids(game: Position) -> list[int]:
    return [CLAIM]


def pass_ids(game: Position) -> list[int]:
    return [PASS]


def laydown_ids(game: Position) -> list[int]:
    return [LAYDOWN]


def close_ids(game: Position) -> list[int]:
    return [CLOSE]


def discard_ids(game: Position) -> list[int]:
    """A discard of every card type held."""
    hand = game.hand_in_turn()
    return [DISCARD_BASE + c for c in range(NUM_TYPES) if hand[c]]


def layoff_ids(game: Position) -> list[int]:
    """Every lay-off the hand allows onto every table meld (``melds.layoff_options``)."""
    return [a for m in range(len(game.state.table)) for a in layoff_ids_on(game, m)]


def layoff_ids_on(game: Position, m: int) -> list[int]:
    """Every lay-off the hand allows onto table meld m."""
    meld = game.state.table[m]
    own = meld.owner == game.state.current
    ids = []
    for card, end in layoff_options(meld, game.hand_in_turn(), game.rules, own):
        if card != JOKER:
            slot = card
        elif meld.kind == TRIO:
            slot = SLOT_JOKER
        else:
            slot = SLOT_JOKER_LOW if end == LOW else SLOT_JOKER_HIGH
        ids.append(game.layout.layoff(m, slot))
    return ids


def swap_ids(game: Position) -> list[int]:
    """A swap for every joker on the table whose natural is in hand (``melds.swap_targets``)."""
    hand = game.hand_in_turn()
    swap = game.layout.swap
    return [
        swap(m, c) for m, meld in enumerate(game.state.table) for c in swap_targets(meld) if hand[c]
    ]


def movejoker_ids(game: Position) -> list[int]:
    """003: the end joker of each own run of 5+ cards to a free end of every other run."""
    table = game.state.table
    move = game.layout.move
    ids = []
    for m in range(len(table)):
        if movable_joker_end(game, m) is None:
            continue
        for n, other in enumerate(table):
            if n != m and other.kind == RUN:
                ids.extend(
                    move(m, n, end) for end in (LOW, HIGH) if run_can_extend(other, end, game.rules)
                )
    return ids


def movable_joker_end(game: Position, m: int) -> str | None:
    """End of the player in turn's own run m whose joker may move (003): 5+ cards, a joker
    at an end (the high end first)."""
    meld = game.state.table[m]
    if meld.owner != game.state.current or len(meld.cards) < 5:
        return None
    return end_joker(meld)


# Each kind's candidate ids; the kinds each phase offers.
CANDIDATES: dict[str, Callable[[Position], list[int]]] = {
    "draw": draw_ids,
    "take": take_ids,
    "claim": claim_ids,
    "pass": pass_ids,
    "laydown": laydown_ids,
    "close": close_ids,
    "discard": discard_ids,
    "layoff": layoff_ids,
    "swap": swap_ids,
    "movejoker": movejoker_ids,
}
KINDS_OF_PHASE: dict[Phase, tuple[str, ...]] = {
    phase: tuple(kind for kind, of in PHASE_OF_KIND.items() if of == phase) for phase in Phase
}
# What ``compute_legal`` walks per phase: each kind's ONCE checks, candidates and EACH checks.
_PLANS: dict[
    Phase, tuple[tuple[tuple[Check, ...], Callable[[Position], list[int]], tuple[Check, ...]], ...]
] = {
    phase: tuple(
        (
            tuple(c for c in CHECKS[kind] if c.scope == ONCE),
            CANDIDATES[kind],
            tuple(c for c in CHECKS[kind] if c.scope == EACH),
        )
        for kind in kinds
    )
    for phase, kinds in KINDS_OF_PHASE.items()
}

__all__ = ["CANDIDATES", "KINDS_OF_PHASE", "PHASE_OF_KIND", "compute_legal"]
