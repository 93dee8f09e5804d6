"""``bc:PATH``: a policy trained on the ``continental_v1`` observation, at play time.

The ``continental_v1`` vector is the v0 vector (``continental_env.env.encode_observation``)
followed by the derived features of ``continental_env.contract.features``, which read the engine's own
public log. ``feature_observation(game, seat)`` builds it from those two parts; the environment's
v1 observation equals it entry for entry (tests/test_observation.py). ``load_feature_agent`` is
``ppo:PATH`` refusing, with one line, a model of another observation or table size. Behaviour
cloning, which trains such models, is ``agents.train.imitation``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from continental_env.contract.aec import encode_observation, observation_layout
from continental_env.contract.features import encode_features, feature_layout
from continental_env.contract.game import Game

FEATURE_ENV = "continental_v1"


def observation_size(num_players: int) -> int:
    """Length of the v1 observation (the v0 vector plus the features)."""
    return (
        observation_layout(num_players)["turn"].stop + feature_layout(num_players)["history"].stop
    )


def feature_observation(game: Game, seat: int) -> np.ndarray:
    """The v0 observation of ``seat`` followed by its features (public information only): the
    ``continental_v1`` observation, built from its two parts."""
    p = game.num_players
    return np.concatenate(
        [
            encode_observation(game, seat, observation_layout(p)),
            encode_features(game, seat, feature_layout(p)),
        ]
    )


def dropped_columns(num_players: int, groups: Sequence[str]) -> np.ndarray | None:
    """Columns of the observation holding the named feature groups (None for none); ValueError
    naming an unknown group."""
    from agents.bots.ppo_agent import dropped_columns as columns

    return columns(num_players, groups)


def feature_metadata(num_players: int, preset: str) -> dict[str, Any]:
    """What a ``continental_v1`` model was trained for."""
    from agents.bots.ppo_agent import model_metadata

    return model_metadata(num_players, preset, version=1)


def load_feature_agent(path: str, num_players: int | None = None, seed: int | None = None) -> Any:
    """The ``ppo:PATH`` agent of a ``continental_v1`` model (``.zip`` or ``.npz`` snapshot),
    named ``bc:PATH``.

    ValueError (one line) for a missing file, a model of another observation, or another table.
    """
    from agents.bots.ppo_agent import NumpyPolicy, load_agent

    policy: NumpyPolicy = load_agent(path, seed=seed)
    policy.name = f"bc:{path}"
    if policy.env != FEATURE_ENV:
        raise ValueError(
            f"bc:{path}: trained for {policy.env!r}, not {FEATURE_ENV!r} (play it as ppo:PATH)"
        )
    players = policy.trained_players
    if num_players is not None and players != num_players:
        raise ValueError(f"bc:{path}: trained for {players} players; this table has {num_players}")
    if policy.meta and policy.obs_size != policy.meta.get("obs_size"):
        raise ValueError(
            f"bc:{path}: observation size {policy.obs_size} != {policy.meta['obs_size']}"
        )
    return policy


def make_bc_agent(name: str, seed: int | None = None) -> Any:
    """``bc:PATH`` by registry name (``agents.registry``)."""
    return load_feature_agent(name.removeprefix("bc:"), seed=seed)
