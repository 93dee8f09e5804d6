"""Continental: the contract rummy card game as a PettingZoo AEC environment.

``continental_env.env(...)`` / ``raw_env(...)`` are plain functions that import the contract
game's environment (``continental_env.contract.aec``) when called, so that the engines import
without gymnasium or PettingZoo, and so that they pickle (``functools.partial`` into a spawned
process). Each game is a subpackage of the same shape: ``continental_env.contract`` (the
seven-round contract game), ``continental_env.fifteen`` and ``continental_env.knock``, each with
``Game``, ``env`` and ``raw_env``. This package's root holds only what every game shares:

| module | holds |
|---|---|
| ``contract``, ``fifteen``, ``knock`` | each game: its engine and its AEC environment |
| ``cards`` | the card codec: ids, counts, text notation |
| ``rules`` | ``RuleConfig`` and ``PRESETS`` (the contract game's rule variants) |
| ``melds`` | the one meld validator of the three games (a package, one module per family) |
| ``state_fields`` | the field codecs (copy, JSON, redaction) the engines declare their state with |
| ``engine`` | ``GameBase``/``StateBase``: the shape every engine shares (declared fields, loading, applying) |
| ``side`` | what the fifteen-card and knock engines share (``SideGame``) |
| ``card_game_env`` | ``CardGameEnv``: what the three AEC environments share, and the wrapper stack |
| ``side_env`` | what the fifteen-card and knock environments share (``SideGameEnv``) |
| ``layout`` | named slices of an observation vector |
| ``rewards`` | the reward formulas the environments share |
| ``single_agent`` | the gymnasium learner-seat wrappers of every game |
| ``registry`` | registry ids (PettingZoo's, and gymnasium's ``continental/Contract-v1``, ``Fifteen-v0``, ``Knock-v0``, registered on import without importing gymnasium) and old module paths (``alias_module``) |
| ``kernels`` | which implementation of the hot pure functions runs: compiled (``_kernels.c``) or reference |
| ``batch`` | ``BatchGame``: many contract games stepped per call (``continental_env.contract.batch``) |
| ``bench`` | ``continental bench``: throughput of engines and environments |
| ``openspiel`` | the contract game registered with OpenSpiel (``continental_contract``; the ``[openspiel]`` extra) |
| ``play`` | points to the terminal game (``python -m agents.play``) |

The contract game's modules moved from this root into ``continental_env.contract`` in 0.2.0; the
old paths (``continental_env.game``, ``continental_env.aec``, ...) import for one more release with
a ``DeprecationWarning``, as do ``continental_env.kernel`` (now ``continental_env.engine``) and
``continental_env.side_single_agent`` (its class is ``single_agent.SingleAgentSideGame``).
"""

from __future__ import annotations

from typing import Any

from continental_env.registry import (
    alias_module,
    alias_modules,
    register_gym_envs_on_import,
    register_if_pettingzoo_loaded,
)
from continental_env.rules import PRESETS, RuleConfig

__version__ = "0.2.0"
__all__ = ["PRESETS", "RuleConfig", "__version__", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The wrapped AEC environment (``continental_env.contract.aec``'s module docstring)."""
    from continental_env.contract.aec import env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The unwrapped AEC environment (``ContinentalEnv``), same keyword arguments as ``env``."""
    from continental_env.contract.aec import ContinentalEnv

    return ContinentalEnv(**kwargs)


alias_module("continental_env.env", "continental_env.contract.aec")
# The contract game's modules before they moved into ``continental_env.contract`` (0.2.0).
alias_modules(
    {
        f"continental_env.{name}": f"continental_env.contract.{name}"
        for name in (
            "game",
            "state",
            "state_check",
            "legal",
            "action_checks",
            "actions",
            "public_log",
            "features",
            "render",
            "aec",
        )
    }
    | {"continental_env.kernel": "continental_env.engine"},
    deprecated="0.3.0",
)
# Its one class now lives beside the contract game's learner seat; ``make_env`` was the class.
alias_module(
    "continental_env.side_single_agent",
    "continental_env.single_agent",
    deprecated="0.3.0",
    renamed={"make_env": "SingleAgentSideGame"},
)
register_if_pettingzoo_loaded()
register_gym_envs_on_import()
