"""Trained policies of the fifteen-card and knock games as bots: ``ppo:PATH`` with
``make_agent(..., game="fifteen" | "knock")``.

``SidePolicyAgent`` is a trained MaskablePPO policy of a side game on the ``act(view)`` protocol:
it reads the observation vector its view copied out of the AEC environment's encoder and plays the
legal action with the highest logit. A model records the game, its observation and the table it
was trained for (``side_metadata``); another game, observation or table size is refused in one
line. A model of a feature observation (``fifteen_v1``, ``knock_v1``, ``knock_v2``:
``agents.side_features``) is given the view's v0 vector followed by the features of the version
its metadata names, computed from the view; a v0 model the v0 vector alone. The environments these policies train on are ``agents.train.side_single_agent``.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from agents.side_features import (
    FEATURE_ENVS,
    V0_ENVS,
    env_name,
    env_version,
    feature_size,
    feature_version,
)
from agents.side_features import observation as feature_observation

SIDE_ENVS = V0_ENVS  # the v0 observation of each side game (``FEATURE_ENVS``: the feature ones)


def side_metadata(
    game: str,
    num_players: int,
    options: dict[str, Any] | None = None,
    features: bool | int | str = False,
) -> dict:
    """What a side-game model is trained for: its environment (``*_v1`` with ``features`` True or
    ``"v1"``, ``knock_v2`` with ``"v2"``), the package version, the table."""
    from continental_env import __version__

    module = importlib.import_module(f"continental_env.{game}.env")
    layout = module.observation_layout(num_players)
    version = feature_version(features)
    extra = feature_size(game, version) if version else 0
    return {
        "env": env_name(game, version),
        "game": game,
        "env_version": __version__,
        "num_players": num_players,
        "options": dict(options or {}),
        "obs_size": max(s.stop for s in layout.values()) + extra,
        "num_actions": module.NUM_ACTIONS,
    }


class SidePolicyAgent:
    """A trained side-game policy as a bot (module docstring)."""

    def __init__(self, policy: Any, game: str) -> None:
        self.policy = policy
        self.game = game
        self.name = policy.name
        self.version = env_version((policy.meta or {}).get("env"))  # 0: the v0 observation
        self.features = bool(self.version)

    def act(self, view: Any) -> int:
        """The legal action with the highest logit (or a sample: the policy's setting)."""
        if self.version:
            obs = feature_observation(view, self.game, self.version)
        else:
            obs = view.observation
        return self.policy.act_from_observation(obs, view.legal_actions)

    def act_from_observation(self, obs: np.ndarray, legal: list[int]) -> int:
        return self.policy.act_from_observation(obs, legal)

    def check_table(self, num_players: int) -> None:
        """ValueError unless the model was trained for this game at this table size."""
        meta = self.policy.meta or {}
        expected = side_metadata(self.game, num_players, features=self.version)
        env = meta.get("env")
        if env is not None and (env != expected["env"] or meta.get("num_players") != num_players):
            raise ValueError(
                f"{self.name}: trained for {env} at {meta.get('num_players')} players, "
                f"not {expected['env']} at {num_players} players"
            )
        sizes = (self.policy.obs_size, self.policy.num_actions)
        if sizes != (expected["obs_size"], expected["num_actions"]):
            raise ValueError(
                f"{self.name}: observation {sizes[0]} and {sizes[1]} actions do not fit "
                f"{expected['env']} at {num_players} players"
            )


def load_policy(game: str, path: str, seed: int | None = None) -> SidePolicyAgent:
    """``ppo:PATH`` of a side game: an SB3 ``.zip`` or a ``.npz`` snapshot."""
    from agents.bots.ppo_agent import load_agent

    agent = SidePolicyAgent(load_agent(path, seed), game)
    meta = agent.policy.meta or {}
    env = meta.get("env")
    known = [V0_ENVS[game], *(e for e, (g, _v) in FEATURE_ENVS.items() if g == game)]
    if env is not None and env not in known:
        raise ValueError(f"ppo:{path}: trained for {env}, not {' or '.join(known)}")
    return agent
