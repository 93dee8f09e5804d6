"""The fifteen-card game (RULES.md Part 2): a pure engine and a PettingZoo AEC environment.

``fifteen.Game`` is the engine (``continental_env.fifteen.game``); ``fifteen.env(...)`` and
``fifteen.raw_env(...)`` (``continental_env.fifteen.env``, its docstring is the documentation
page) are imported lazily so that the engine imports without gymnasium or PettingZoo.
"""

from __future__ import annotations

from typing import Any

from continental_env.fifteen.game import Game

__all__ = ["Game", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The wrapped AEC environment (see ``continental_env.fifteen.env``'s module docstring)."""
    from continental_env.fifteen.env import env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The unwrapped AEC environment, same keyword arguments as ``env``."""
    from continental_env.fifteen.env import raw_env as raw

    return raw(**kwargs)
