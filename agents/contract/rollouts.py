"""The search's rollouts on the compiled contract core: many sampled worlds played per call.

A search rollout plays a sampled world (``agents.contract.sampler``) to the end of its round
with one bot at every seat, then scores it as the seat's round points minus the mean of the other
seats' (``agents.contract.search._rollout_value``, the readable reference). ``CompiledRollouts``
puts each world on a lane of a ``continental_env.batch.BatchGame`` and plays every lane in one
``BatchGame.play_out`` call, the bots decided in C (``continental_env/_bots_c.h``) and the rules
stepped in C. The compiled bots make the same decision as the Python bots in every position and
the core's rules and generator are the engine's, so every world ends with the same points: the
search's values, hence its moves, are identical either way (``tests/test_rollouts.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from continental_env.batch import BatchGame
from continental_env.contract.batch import raw_from_state
from continental_env.contract.game import Game
from continental_env.contract.state import Setup

# The rollout policies the core plays (the search's names), and the bot each one is.
COMPILED_POLICIES = {"strong": "strong@v1", "greedy": "greedy"}


def compiled_available() -> bool:
    """Whether the compiled batch core with its bots is built here."""
    try:
        from continental_env import _batch  # noqa: F401
    except ImportError:
        return False
    return hasattr(BatchGame, "play_out")


def seat_value(points: Sequence[int], seat: int) -> float:
    """The seat's round points minus the mean of the other seats' (``_rollout_value``'s score,
    computed in the same order, so the floats are the same)."""
    p = len(points)
    return points[seat] - (sum(points) - points[seat]) / (p - 1)


class CompiledRollouts:
    """Plays worlds to the end of their round on the compiled core, one bot at every seat."""

    def __init__(self, policy: str) -> None:
        if policy not in COMPILED_POLICIES:
            raise ValueError(
                f"rollout policy {policy!r} has no compiled bot; compiled: "
                f"{', '.join(COMPILED_POLICIES)}"
            )
        self.bot = COMPILED_POLICIES[policy]
        self._batch: BatchGame | None = None
        self._setup: Setup | None = None

    def _batch_for(self, setup: Setup, lanes: int) -> BatchGame:
        if self._batch is None or self._setup != setup or self._batch.num_games < lanes:
            size = max(lanes, 8 if self._batch is None else 2 * self._batch.num_games)
            batch = BatchGame(size, setup.num_players, setup.rules, backend="compiled")
            batch.reset()
            self._batch, self._setup = batch, setup
        return self._batch

    def values(self, worlds: Sequence[Game], seat: int) -> list[float]:
        """Each world's outcome for ``seat`` once its round is played out (``worlds`` are read,
        not changed). A world whose game is already over scores its last round, as the
        reference does."""
        out: list[float | None] = [None] * len(worlds)
        live = [i for i, w in enumerate(worlds) if not w.is_over]
        for i, w in enumerate(worlds):
            if w.is_over:
                out[i] = seat_value(w.state.round_history[-1]["points"], seat)
        if live:
            batch = self._batch_for(worlds[live[0]].setup, len(live))
            active = np.zeros(batch.num_games, dtype=bool)
            for lane, i in enumerate(live):
                raw = raw_from_state(worlds[i].state)
                # A sampled world's history starts where the search began (the core checks that
                # a lane's history holds every round played); the rollout scores only the round
                # it plays out, so the lane is given none.
                raw["round_history"] = []
                raw["game_index"] = 0
                batch.load(lane, raw)
                active[lane] = True
            points = batch.play_out(self.bot, active=active)
            for lane, i in enumerate(live):
                out[i] = seat_value([int(x) for x in points[lane]], seat)
        return [v for v in out if v is not None]


__all__ = ["COMPILED_POLICIES", "CompiledRollouts", "compiled_available", "seat_value"]
