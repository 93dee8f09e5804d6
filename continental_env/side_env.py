"""What the fifteen-card and knock AEC environments share (``fifteen/env.py``, ``knock/env.py``).

``SideGameEnv`` holds the parts of their ``raw_env`` that do not depend on the game: the ``win``
rewards, the observation cache (one observation and mask per agent and move), ``action_mask``
and rendering. ``wrap`` composes PettingZoo's standard wrappers, ``register`` adds a registry id,
and ``make_callable`` keeps ``continental_env.<game>.env(...)`` callable once the submodule is
imported (Python then rebinds the package attribute to the module).
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from continental_env.env import ExplainedOutOfBoundsWrapper
from continental_env.rewards import win_rewards


class SideGameEnv:
    """Mixin of a side game's ``raw_env``: it sets ``NUM_ACTIONS``, ``RENDER_MODULE`` (a module
    with ``render_table(game)``) and ``encode(game, seat)`` (one seat's observation vector)."""

    NUM_ACTIONS: int
    RENDER_MODULE: str

    def encode(self, game: Any, seat: int) -> np.ndarray:
        raise NotImplementedError

    def _win_rewards(self) -> None:
        shares = win_rewards(self.num_players, self.game.winners())
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] += shares[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._game
        if self._obs_moves != game.moves or self._obs_game is not game:
            self._obs_cache = {}
            self._obs_game = game
            self._obs_moves = game.moves
        cached = self._obs_cache.get(agent)
        if cached is None:
            seat = self.agent_name_mapping[agent]
            mask = np.zeros(self.NUM_ACTIONS, dtype=np.int8)
            if game.actor == seat:
                mask[game.legal_actions()] = 1
            cached = {
                "observation": self.encode(game, seat),
                "action_mask": mask,
            }
            self._obs_cache[agent] = cached
        return cached

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The action mask of an agent (default: the one to act), from the observation cache."""
        return self.observe(agent or self.agent_selection)["action_mask"]

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render without specifying any render mode.")
            return None
        text = importlib.import_module(self.RENDER_MODULE).render_table(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def wrap(environment: AECEnv, illegal: str) -> AECEnv:
    """PettingZoo's standard wrappers around a raw side-game environment."""
    if illegal == "terminate":
        environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    elif illegal != "raise":
        raise ValueError(f"illegal={illegal!r}: choose 'raise' or 'terminate'")
    environment = ExplainedOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


def register(env_id: str, entry_point: str) -> None:
    """Add ``env_id`` to PettingZoo's registry (skipped on a PettingZoo without one)."""
    try:
        from pettingzoo import aec_registry
        from pettingzoo import register as pz_register
    except ImportError:  # an older PettingZoo without a registry
        return
    if env_id not in aec_registry:
        pz_register("aec", env_id, entry_point=entry_point)


def make_callable(module_name: str, factory: Callable[..., AECEnv]) -> None:
    """Let the env module itself be called like ``factory`` (see the module docstring)."""

    class _CallableModule(types.ModuleType):
        def __call__(self, **kwargs: Any) -> AECEnv:
            return factory(**kwargs)

    sys.modules[module_name].__class__ = _CallableModule
