"""The contract game (RULES.md Part 1): a pure engine and a PettingZoo AEC environment.

``contract.Game`` is the engine (``continental_env.contract.game``); ``contract.env(...)`` and
``contract.raw_env(...)`` are plain functions that import the environment
(``continental_env.contract.aec``, its docstring is the documentation page) when called, so that
the engine imports without gymnasium or PettingZoo and the factories pickle. The package's
``continental_env.env`` / ``raw_env`` are the same factories.

| module | holds |
|---|---|
| ``actions`` | the action ids and their text forms (``ActionLayout``) |
| ``public_log`` | the round's public actions (``PublicLog``), read by the v1 features |
| ``state`` | ``Phase``, ``Setup`` (rules, table size, action layout) and ``State`` (the position), each field declared once |
| ``state_check`` | the loader's checks that relate fields to each other (``CHECKS``) |
| ``action_checks`` | the conditions of each action kind and the words of a refusal (``CHECKS``) |
| ``legal`` | the candidates of each action kind, filtered by those conditions (``compute_legal``) |
| ``game`` | ``Game``: the deal, the effects of each action, scoring |
| ``features`` | the derived public features of the ``continental_v1`` observation |
| ``render`` | the table as text |
| ``aec`` | the PettingZoo AEC environment (``ContinentalEnv``) |
| ``batch`` | ``BatchGame``: many games stepped per call, on the compiled core or the engine |
| ``batch_vec`` | the learner's seat of N tables on ``BatchGame``: a gymnasium ``VectorEnv`` and an SB3 ``VecEnv`` |
"""

from __future__ import annotations

from typing import Any

from continental_env.contract.game import Game

__all__ = ["Game", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The wrapped AEC environment (``continental_env.contract.aec``'s module docstring)."""
    from continental_env.contract.aec import env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The unwrapped AEC environment (``ContinentalEnv``), same keyword arguments as ``env``."""
    from continental_env.contract.aec import ContinentalEnv

    return ContinentalEnv(**kwargs)
