"""The knock game (RULES.md Part 3): a pure engine and a PettingZoo AEC environment.

``knock.Game`` is the engine (``continental_env.knock.game``); ``knock.env(...)`` and
``knock.raw_env(...)`` (``continental_env.knock.env``, its docstring is the documentation page)
are imported lazily so that the engine imports without gymnasium or PettingZoo.
"""

from __future__ import annotations

from typing import Any

from continental_env.knock.game import Game

__all__ = ["Game", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The wrapped AEC environment (see ``continental_env.knock.env``'s module docstring)."""
    from continental_env.knock.env import env as make

    return make(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The unwrapped AEC environment, same keyword arguments as ``env``."""
    from continental_env.knock.env import raw_env as raw

    return raw(**kwargs)
