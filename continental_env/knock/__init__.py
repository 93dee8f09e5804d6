"""The knock game (RULES.md Part 3): a pure engine and a PettingZoo AEC environment.

``knock.Game`` is the engine; ``knock.env(...)`` and ``knock.raw_env(...)`` build its environment
(``continental_env.registry.game_factories``: plain functions that pickle, the engine imports
without PettingZoo).

| module | holds |
|---|---|
| ``state`` | the 220 action ids, ``Phase`` (with ``buy``, between hands), ``Setup`` (``stake``) and ``State`` (chips, pot, buy-backs, who is still in), each field declared once |
| ``state_check`` | the loader's checks of the chips and the pot, who is still in, the buyers and the result (``CHECKS``) |
| ``game`` | ``Game``: the deal of ten cards, knocks and announcements, bonuses, eliminations, buy-backs and the pot |
| ``render`` | the table as text, with the chips and the pot |
| ``aec`` | the PettingZoo AEC environment ``knock_v0`` (``KnockEnv``) |
"""

from __future__ import annotations

from continental_env.knock.game import Game
from continental_env.registry import game_factories

__all__ = ["Game", "env", "raw_env"]

env, raw_env = game_factories(__name__, "KnockEnv")
