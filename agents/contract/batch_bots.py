"""The rule-based contract bots on a ``BatchGame``'s lanes, on either backend.

``BatchGame.bot_actions`` and ``BatchGame.play_out`` run ``greedy``, ``strong@v1`` and
``strong@v2`` in C (``continental_env/_bots_c.h``) and exist on the compiled backend only:
``continental_env`` never imports ``agents``, where the Python bots live. This module is the one
place that chooses between the two, so a caller (a search's rollouts, a benchmark) writes its
code once:

* ``bot_actions(b, bots, active)`` and ``play_out(b, bots, active, until_round_end)`` take the
  compiled core's bots when ``b`` runs the compiled backend, else the Python bots (``python=True``
  forces them);
* ``python_bot_actions`` and ``python_play_out`` are the Python path itself: each decision is the
  Python bot's on the seat's ``PlayerView`` of ``b.game(i)``, each step ``b.step``. They are the
  reference the differential tests hold the C bots to (``tests/test_batch_bots.py``,
  ``scripts/batch_bots_lockstep.py``): the same actions, the same points, the same positions
  after.

``bots`` is one name of ``BOT_NAMES`` (every seat), one name per seat, or one row of names per
lane.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.bots.base import SeededAgent
from agents.contract.greedy import GreedyAgent
from agents.contract.strong import StrongAgent
from agents.contract.strong_tuned import StrongV2Agent
from agents.contract.view import PlayerView
from continental_env.batch import BOT_NAMES, BatchGame

__all__ = [
    "BOT_NAMES",
    "bot_actions",
    "play_out",
    "python_bot_actions",
    "python_bots",
    "python_play_out",
]

Bots = str | Sequence[str] | Sequence[Sequence[str]]


def python_bots() -> dict[str, SeededAgent]:
    """The Python bot of each name of ``BOT_NAMES`` (deterministic: the seed draws nothing)."""
    return {"greedy": GreedyAgent(0), "strong@v1": StrongAgent(0), "strong@v2": StrongV2Agent(0)}


def _seat_names(b: BatchGame, bots: Bots) -> list[list[str]]:
    """Per lane, the bot name of each seat (checked by ``BatchGame.bot_kinds``)."""
    kinds = b.bot_kinds(bots)
    rows = np.broadcast_to(kinds, (b.num_games, b.num_players))
    return [[BOT_NAMES[k] for k in row] for row in rows.tolist()]


def _lanes(b: BatchGame, active: Any) -> np.ndarray:
    if active is None:
        return np.ones(b.num_games, dtype=bool)
    lanes = np.asarray(active)
    if lanes.shape != (b.num_games,) or lanes.dtype != np.bool_:
        raise ValueError(
            f"active of shape {lanes.shape} and dtype {lanes.dtype}: expected a bool array of "
            f"shape ({b.num_games},), one per lane"
        )
    return lanes.copy()


def python_bot_actions(b: BatchGame, bots: Bots, active: Any = None) -> np.ndarray:
    """``BatchGame.bot_actions`` by the Python bots: each lane's seat to act decides on its
    ``PlayerView`` of ``b.game(i)`` (-1 for a lane not in ``active`` or a finished game)."""
    names = _seat_names(b, bots)
    agents = python_bots()
    out = np.full(b.num_games, -1, dtype=np.int64)
    for i in np.flatnonzero(_lanes(b, active)).tolist():
        game = b.game(i)
        if game.is_over:
            continue
        seat = game.actor
        out[i] = agents[names[i][seat]].act(PlayerView(game, seat))
    return out


def python_play_out(
    b: BatchGame, bots: Bots, active: Any = None, until_round_end: bool = True
) -> np.ndarray:
    """``BatchGame.play_out`` by the Python bots, stepping the lanes with ``b.step``."""
    names = _seat_names(b, bots)
    agents = python_bots()
    points = np.zeros((b.num_games, b.num_players), dtype=np.int64)
    playing = _lanes(b, active)
    for i in np.flatnonzero(playing).tolist():
        playing[i] = not b.game(i).is_over
    while playing.any():
        actions = np.zeros(b.num_games, dtype=np.int64)
        for i in np.flatnonzero(playing).tolist():
            game = b.game(i)
            seat = game.actor
            actions[i] = agents[names[i][seat]].act(PlayerView(game, seat))
        _obs, _mask, _actor, _rewards, done = b.step(actions, active=playing)
        ended = b.round_end & playing
        points[ended] += b.round_points[ended]
        playing &= ~done
        if until_round_end:
            playing &= ~ended
    return points


def bot_actions(
    b: BatchGame, bots: Bots, active: Any = None, *, python: bool = False
) -> np.ndarray:
    """Each lane's action by the bot of its seat to act: the compiled core's bots when ``b``
    runs them (and not ``python``), else the Python bots; the same actions either way."""
    if b.backend == "compiled" and not python:
        return b.bot_actions(bots, active)
    return python_bot_actions(b, bots, active)


def play_out(
    b: BatchGame,
    bots: Bots,
    active: Any = None,
    until_round_end: bool = True,
    *,
    python: bool = False,
) -> np.ndarray:
    """Play the lanes out with the bots (``BatchGame.play_out``): the compiled core's bots when
    ``b`` runs them (and not ``python``), else the Python bots; the same points either way."""
    if b.backend == "compiled" and not python:
        return b.play_out(bots, active, until_round_end)
    return python_play_out(b, bots, active, until_round_end)
