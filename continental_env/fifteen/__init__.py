"""The fifteen-card game (RULES.md Part 2): a pure engine and a PettingZoo AEC environment.

``fifteen.Game`` is the engine; ``fifteen.env(...)`` and ``fifteen.raw_env(...)`` build its
environment (``continental_env.registry.game_factories``: plain functions that pickle, the
engine imports without PettingZoo).

| module | holds |
|---|---|
| ``state`` | the 109 action ids, ``Phase``, ``Setup`` (``target``, ``hands``) and ``State`` (who has played this hand), each field declared once |
| ``state_check`` | the loader's checks of the hand number, the dealer, the zero-sum scores and the end of the game (``CHECKS``) |
| ``game`` | ``Game``: the deal of fifteen cards and the up-card, going out in one of three shapes, the payments |
| ``render`` | the table as text, with the target |
| ``aec`` | the PettingZoo AEC environment ``fifteen_v0`` (``FifteenEnv``) |
"""

from __future__ import annotations

from continental_env.fifteen.game import Game
from continental_env.registry import game_factories

__all__ = ["Game", "env", "raw_env"]

env, raw_env = game_factories(__name__, "FifteenEnv")
