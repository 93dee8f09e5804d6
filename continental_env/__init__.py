"""Continental: the contract rummy card game as a PettingZoo AEC environment.

``continental_env.env(...)`` / ``raw_env(...)`` are imported lazily, so that the engine
(``cards``, ``rules``, ``melds``, ``game``) imports without gymnasium or PettingZoo. The
fifteen-card game is the subpackage ``continental_env.fifteen`` (``fifteen.Game``,
``fifteen.env``) and the knock game ``continental_env.knock`` (``knock.Game``, ``knock.env``),
on the same card codec and meld validator.
"""

from __future__ import annotations

from typing import Any

from continental_env.rules import PRESETS, RuleConfig

__version__ = "0.2.0"
__all__ = ["PRESETS", "RuleConfig", "__version__", "env", "raw_env"]


def env(**kwargs: Any) -> Any:
    """The wrapped AEC environment (see ``continental_env.env``'s module docstring)."""
    import importlib

    return importlib.import_module("continental_env.env").env(**kwargs)


def raw_env(**kwargs: Any) -> Any:
    """The unwrapped AEC environment, same keyword arguments as ``env``."""
    from continental_env.env import raw_env as raw

    return raw(**kwargs)
