"""Many contract games stepped in one call: ``BatchGame`` (``continental_env.contract.batch``).

The public name of the batched API (``from continental_env.batch import BatchGame``); the
implementation lives with the contract game's engine, whose rules it steps.
"""

from __future__ import annotations

from continental_env.contract.batch import BACKENDS, BOT_NAMES, BatchGame, lane_game_seed

__all__ = ["BACKENDS", "BOT_NAMES", "BatchGame", "lane_game_seed"]
