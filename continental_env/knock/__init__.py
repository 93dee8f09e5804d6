"""The knock game (RULES.md Part 3): a pure engine and a PettingZoo AEC environment.

``knock.Game`` is the engine (``continental_env.knock.game``); ``knock.env(...)`` and
``knock.raw_env(...)`` are plain functions that import the environment (``continental_env.knock.aec``,
its docstring is the documentation page) when called, so that the engine imports without
gymnasium or PettingZoo and the factories pickle. ``continental_env.knock.env`` stays importable as
a module path (``continental_env.registry``) without rebinding ``knock.env``.


| module | holds |
|---|---|
| ``state`` | its action ids, ``Phase``, ``Setup`` and ``State``, each field declared once |
| ``state_check`` | the loader's checks that relate fields to each other (``CHECKS``) |
| ``game`` | ``Game``: the deal, the legal actions of each phase, their effects, the refusals |
| ``render`` | the table as text |
| ``aec`` | the PettingZoo AEC environment |
"""

from __future__ import annotations

from typing import Any

from continental_env.knock.game import Game
from continental_env.registry import alias_module

__all__ = ["Game", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The wrapped AEC environment (``continental_env.knock.aec``'s module docstring)."""
    from continental_env.knock.aec import env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The unwrapped AEC environment (``KnockEnv``), same keyword arguments as ``env``."""
    from continental_env.knock.aec import KnockEnv

    return KnockEnv(**kwargs)


alias_module("continental_env.knock.env", "continental_env.knock.aec")
