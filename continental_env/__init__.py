"""Continental: the contract rummy card game as a PettingZoo AEC environment.

``continental_env.env(...)`` / ``raw_env(...)`` are plain functions that import the environment
(``continental_env.aec``) when called, so that the engine (``cards``, ``rules``, ``melds``,
``game``) imports without gymnasium or PettingZoo, and so that they pickle (``functools.partial``
into a spawned process). The fifteen-card game is the subpackage ``continental_env.fifteen``
(``fifteen.Game``, ``fifteen.env``) and the knock game ``continental_env.knock`` (``knock.Game``,
``knock.env``), on the same card codec and meld validator. ``continental_env.registry`` holds the
registry ids (PettingZoo's, and gymnasium's ``continental/Contract-v1``, ``continental/Fifteen-v0``,
``continental/Knock-v0``, registered on import without importing gymnasium) and the old module
path ``continental_env.env``.
"""

from __future__ import annotations

from typing import Any

from continental_env.registry import (
    alias_module,
    register_gym_envs_on_import,
    register_if_pettingzoo_loaded,
)
from continental_env.rules import PRESETS, RuleConfig

__version__ = "0.2.0"
__all__ = ["PRESETS", "RuleConfig", "__version__", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The wrapped AEC environment (``continental_env.aec``'s module docstring)."""
    from continental_env.aec import env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The unwrapped AEC environment (``ContinentalEnv``), same keyword arguments as ``env``."""
    from continental_env.aec import ContinentalEnv

    return ContinentalEnv(**kwargs)


alias_module("continental_env.env", "continental_env.aec")
register_if_pettingzoo_loaded()
register_gym_envs_on_import()
