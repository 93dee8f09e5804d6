"""The fifteen-card and knock single-learner environments with the bots wired in.

``make_env(game="knock", opponents=["greedy", "self"])`` is
``continental_env.side_single_agent.SingleAgentSideGame`` whose pool may hold bot names
(``make_agent(name, seed, game=...)``: ``random``, ``greedy``, ``strong``, ``ppo:PATH``), bot
objects and ``"self"`` (frozen learner snapshots, ``.npz``). Everything here pickles, so
``make_env`` works as a ``SubprocVecEnv`` factory.

Trained side-game policies play as bots through ``agents.bots.side_policy`` (``SidePolicyAgent``,
``load_policy``, ``side_metadata``; importable from here too).
"""

from __future__ import annotations

import functools
import importlib
import signal
from typing import Any

import numpy as np

from agents.bots.side_policy import SIDE_ENVS, SidePolicyAgent, load_policy, side_metadata
from continental_env.side_single_agent import SELF, SingleAgentSideGame

__all__ = [
    "SIDE_ENVS",
    "SidePolicyAgent",
    "SideSeatAgent",
    "load_policy",
    "make_env",
    "make_worker_env",
    "opponent",
    "side_metadata",
    "snapshot",
    "teacher_decisions",
]


class SideSeatAgent:
    """A side-game bot as an opponent callable ``(game, seat) -> action id``, on its seat's view."""

    def __init__(self, agent: Any, game: str) -> None:
        self.agent = agent
        self.game = game
        self.name: str = getattr(agent, "name", type(agent).__name__)

    def __call__(self, state: Any, seat: int) -> int:
        from agents.games import game_spec

        return self.agent.act(game_spec(self.game).view(state, seat))

    def __repr__(self) -> str:
        return f"SideSeatAgent({self.game}, {self.name})"


def opponent(game: str, name: str, seed: int | None = None) -> SideSeatAgent:
    """An opponent callable for a ``make_agent`` name of a side game."""
    from agents import make_agent

    return SideSeatAgent(make_agent(name, seed, game=game), game)


def snapshot(game: str, path: str) -> SideSeatAgent:
    """An opponent callable for a frozen learner snapshot (``.npz``)."""
    return SideSeatAgent(load_policy(game, path), game)


def make_env(game: str, opponents: Any = ("greedy",), **kwargs: Any) -> SingleAgentSideGame:
    """A ``SingleAgentSideGame`` whose pool may hold bot names, bot objects and ``"self"``.

    Names are checked here, before any game (a bad name fails now, with its reason).
    """
    from agents import make_agent

    if isinstance(opponents, str):
        raise ValueError(f"opponents={opponents!r}: pass a list of names")
    pool: list[Any] = []
    for entry in opponents:
        if isinstance(entry, str):
            if entry != SELF:
                make_agent(entry, 0, game=game)
            pool.append(entry)
        elif hasattr(entry, "act"):
            pool.append(SideSeatAgent(entry, game))
        else:
            pool.append(entry)  # already an opponent callable
    return SingleAgentSideGame(
        game=game,
        opponents=pool,
        make_opponent=functools.partial(opponent, game),
        load_snapshot=functools.partial(snapshot, game),
        **kwargs,
    )


def make_worker_env(**kwargs: Any) -> SingleAgentSideGame:
    """``make_env`` for a worker process: Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return make_env(**kwargs)


def teacher_decisions(
    game: str, options: dict[str, Any], task: tuple[str, int, Any, int, int, int]
) -> dict[str, Any]:
    """A teacher bot's decisions in one side game, for ``train.py --bc-teacher`` (the contract
    game's ``teacher_decisions`` shape): observations, legal actions, actions and each decision's
    return (the seat's chips from that decision to the game's end, in the AEC rewards' scale)."""
    from agents import make_agent
    from agents.games import game_spec

    teacher, players, _preset, game_seed, agent_seed, _version = task
    spec = game_spec(game)
    module = importlib.import_module(f"continental_env.{game}.env")
    layout = module.observation_layout(players)
    state = spec.new_game(players, game_seed, dict(options))
    bots = [make_agent(teacher, agent_seed + s, game=game) for s in range(players)]
    obs, legal, actions, seats, before = [], [], [], [], []
    while not state.is_over:
        seat = state.actor
        choices = state.legal_actions()
        action = bots[seat].act(spec.view(state, seat))
        if len(choices) > 1:  # forced moves teach nothing
            obs.append(module.encode_observation(state, seat, layout))
            legal.append(np.array(choices, dtype=np.int16))
            actions.append(action)
            seats.append(seat)
            before.append(spec.final_scores(state)[seat])
        state.apply(action)
    final = spec.final_scores(state)
    scale = 10.0 if game == "fifteen" else float(state.stake)
    returns = [(final[s] - b) / scale for s, b in zip(seats, before, strict=True)]
    return {
        "obs": np.array(obs, dtype=np.float32),
        "legal": legal,
        "actions": np.array(actions, dtype=np.int64),
        "returns": np.array(returns, dtype=np.float32),
    }
