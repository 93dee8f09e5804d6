"""The feature observations of the side games: ``fifteen_v1`` and ``knock_v1``.

A ``*_v1`` observation is the game's ``*_v0`` vector (the AEC environment's encoder, unchanged)
followed by features derived from the seat's public view only (``SideView``: its own hand, the
discard pile, the cards known taken from it, counts, scores, chips, the pot): for each card type
the value of the hand after discarding one copy of it, as the game's ``strong`` bot values hands
(``agents.fifteen.features``, ``agents.knock.features``), the value of taking the up-card, the live
copies of each card type and, in the knock game, the buy-back inputs. The features carry the
``strong`` bots' hand valuation; a network observing them still chooses its action itself.

The features are computed in ``agents/`` (where the bots' valuations live); the environment
package never imports them. ``observation(view, env)`` builds the vector a model of ``env``
observes; ``feature_size(game)`` and ``feature_planes(game)`` describe the appended part (its
card-indexed planes first, ``NUM_TYPES`` wide each, then its scalars) so that
``suit_permutation`` can relabel the suits of a v1 decision.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numpy as np

from continental_env.cards import NUM_TYPES

V0_ENVS = {"fifteen": "fifteen_v0", "knock": "knock_v0"}
V1_ENVS = {"fifteen": "fifteen_v1", "knock": "knock_v1"}
FLOOR = -4.0  # a card with no value in a gap plane (not held, not offered)


def _module(game: str) -> Any:
    if game not in V1_ENVS:
        raise ValueError(f"game={game!r}: choose fifteen or knock")
    return importlib.import_module(f"agents.{game}.features")


def env_name(game: str, features: bool) -> str:
    """``fifteen_v0`` / ``fifteen_v1`` / ``knock_v0`` / ``knock_v1``."""
    return (V1_ENVS if features else V0_ENVS)[game]


def is_feature_env(env: str | None) -> bool:
    """Whether ``env`` names a side game's feature observation."""
    return env in V1_ENVS.values()


def feature_planes(game: str) -> tuple[str, ...]:
    """Names of the card-indexed planes at the start of the appended features."""
    return tuple(_module(game).PLANES)


def feature_size(game: str) -> int:
    """How many floats the features append to the v0 observation."""
    module = _module(game)
    return len(module.PLANES) * NUM_TYPES + len(module.SCALARS)


def features(view: Any, game: str) -> np.ndarray:
    """The derived features of ``view`` (a ``FifteenView`` / ``KnockView``)."""
    out = _module(game).features(view)
    if out.shape != (feature_size(game),):
        raise AssertionError(f"{game} features of shape {out.shape}, not ({feature_size(game)},)")
    return out


def observation(view: Any, game: str) -> np.ndarray:
    """The ``*_v1`` observation: ``view.observation`` (v0) followed by ``features``."""
    return np.concatenate([view.observation, features(view, game)]).astype(np.float32)


def gap(delta: float) -> float:
    """A non-negative gap to the best option as a feature: 0 for the best, then a signed log
    scale that keeps small differences (0.01 points) apart from none: ``-log1p(100 d) / 3``."""
    return -math.log1p(100.0 * max(0.0, delta)) / 3.0


def gap_plane(options: list[tuple[int, float]], higher_is_better: bool) -> np.ndarray:
    """A card-indexed plane of each option's ``gap`` to the best of ``options`` (card, value);
    ``FLOOR`` for cards with no option."""
    plane = np.full(NUM_TYPES, FLOOR, dtype=np.float32)
    if options:
        sign = 1.0 if higher_is_better else -1.0
        best = max(sign * v for _c, v in options)
        for c, v in options:
            plane[c] = gap(best - sign * v)
    return plane


def signed(delta: float) -> float:
    """A signed difference on the same log scale as ``gap`` (positive: better)."""
    return math.copysign(math.log1p(100.0 * abs(delta)) / 3.0, delta)
