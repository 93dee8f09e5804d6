"""The single-learner environment with the bots wired in: ``make_env(opponents=["greedy", "self"])``.

``continental_env.single_agent.SingleAgentContinental`` takes opponents as callables
``(game, seat) -> action id`` and knows no bot by name (the environment package never imports
``agents``). This module supplies them: ``SeatAgent`` turns any agent of the ``act(view)``
protocol into such a callable (through ``PlayerView``, so it sees only its seat's information),
``opponent(name, seed)`` builds one from a ``make_agent`` name, and ``snapshot(path)`` one from a
frozen learner snapshot (``.npz``) for ``"self"``. Everything here pickles, so ``make_env`` works
as a ``SubprocVecEnv`` factory.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

from agents import make_agent
from agents.contract.view import PlayerView
from continental_env.contract.aec import ObservationEncoder
from continental_env.contract.game import Game
from continental_env.single_agent import SELF, SingleAgentContinental


class SeatAgent:
    """An agent as an opponent callable: ``seat_agent(game, seat) -> action id``.

    Agents with ``act_from_observation`` (trained policies) get the seat's observation vector of
    their own version (``version``: 0 for ``continental_v0``, 1 for ``continental_v1``) directly,
    which skips building a ``PlayerView``; the others act on a ``PlayerView``.
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name: str = getattr(agent, "name", type(agent).__name__)
        self.version: int = getattr(agent, "version", 0)
        self._encoders: dict[int, ObservationEncoder] = {}

    def __call__(self, game: Game, seat: int) -> int:
        if hasattr(self.agent, "act_from_observation"):
            p = game.num_players
            encoder = self._encoders.get(p)
            if encoder is None:
                encoder = self._encoders[p] = ObservationEncoder(p, self.version)
            obs = encoder.encode(game, seat)
            return self.agent.act_from_observation(obs, game.legal_actions())
        return self.agent.act(PlayerView(game, seat))

    def __repr__(self) -> str:
        return f"SeatAgent({self.name})"


def opponent(name: str, seed: int | None = None) -> SeatAgent:
    """An opponent callable for a ``make_agent`` name (``random``, ``greedy``, ``ppo:PATH``...)."""
    return SeatAgent(make_agent(name, seed))


def snapshot(path: str) -> SeatAgent:
    """An opponent callable for a frozen learner snapshot (``.npz`` written by training), on the
    observation version it records."""
    from agents.bots.ppo_agent import NumpyPolicy

    return SeatAgent(NumpyPolicy.load_npz(path, name=f"self:{path}"))


def opponent_pool(
    opponents: Any, check_name: Callable[[str], Any], wrap: Callable[[Any], Any]
) -> list[Any]:
    """A learner environment's pool from names, bot objects and opponent callables, for every
    game: names are checked now (``check_name`` builds one; a bad name or a missing model fails
    before any game) and built per seat later, ``"self"`` stays a name, a bot object (it has
    ``act``) becomes ``wrap(bot)``, an opponent callable stays as it is."""
    if isinstance(opponents, str):
        raise ValueError(f"opponents={opponents!r}: pass a list of names")
    pool: list[Any] = []
    for entry in opponents:
        if isinstance(entry, str):
            if entry != SELF:
                check_name(entry)
            pool.append(entry)
        elif hasattr(entry, "act"):
            pool.append(wrap(entry))
        else:
            pool.append(entry)  # already an opponent callable
    return pool


def make_env(
    opponents: Any = ("random",), features: bool = False, **kwargs: Any
) -> SingleAgentContinental:
    """A ``SingleAgentContinental`` whose pool may hold bot names, bot objects and ``"self"``.

    Keyword arguments as ``SingleAgentContinental`` (``version`` picks the observation);
    ``features=True`` is ``version=1`` (``continental_v1``). Names are checked here, before any
    game; the pool may also hold ``bc:PATH`` models (``agents.contract.feature_agent``).
    """
    if features:
        kwargs.setdefault("version", 1)
    if isinstance(opponents, str):
        raise ValueError(f"opponents={opponents!r}: pass a list of names")
    entries: list[Any] = []
    for entry in opponents:
        if isinstance(entry, str) and entry.startswith("bc:"):
            from agents.contract.feature_agent import load_feature_agent

            entry = SeatAgent(load_feature_agent(entry[3:], kwargs.get("num_players", 4)))
        entries.append(entry)
    pool = opponent_pool(entries, lambda name: make_agent(name, 0), SeatAgent)
    return SingleAgentContinental(
        opponents=pool, make_opponent=opponent, load_snapshot=snapshot, **kwargs
    )


__all__ = [
    "SeatAgent",
    "ignore_sigint",
    "ignore_stop_signals",
    "make_env",
    "make_worker_env",
    "opponent",
    "opponent_pool",
    "snapshot",
]


def ignore_stop_signals() -> None:
    """In a worker process: SIGINT and SIGTERM are the parent's to handle.

    A terminal sends SIGINT to the whole process group, and ``timeout``, batch schedulers and
    ``kill -- -PGID`` send SIGTERM to it; the training process catches either, writes its final
    checkpoint and closes the workers, which must not die first (the parent would read a closed
    pipe and end in an EOFError with no checkpoint).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


ignore_sigint = ignore_stop_signals  # the name before SIGTERM was ignored too


def make_worker_env(**kwargs: Any) -> SingleAgentContinental:
    """``make_env`` for a worker process (``ignore_stop_signals``)."""
    ignore_stop_signals()
    return make_env(**kwargs)
