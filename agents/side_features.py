"""The feature observations of the side games: ``fifteen_v1``, ``knock_v1`` and ``knock_v2``.

A ``*_v1`` observation is the game's ``*_v0`` vector (the AEC environment's encoder, unchanged)
followed by features derived from the seat's public view only (``SideView``: its own hand, the
discard pile, the cards known taken from it, counts, scores, chips, the pot): for each card type
the value of the hand after discarding one copy of it, as the game's ``strong`` bot values hands
(``agents.fifteen.features``, ``agents.knock.features``), the value of taking the up-card, the live
copies of each card type and, in the knock game, the buy-back inputs. The features carry the
``strong`` bots' hand valuation; a network observing them still chooses its action itself.

``knock_v2`` is ``knock_v1`` computed with the retuned ``strong``'s weights, followed by the
weight-free parts of its hand costs (``agents.knock.features``). A version, once defined, never
changes (``tests/test_side_features.py`` pins each one's values): a model records the one it
observes (``env`` in its metadata) and is fed that one.

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
V2_ENVS = {"knock": "knock_v2"}
# Every feature observation: env name -> (game, version).
FEATURE_ENVS = {
    **{env: (game, 1) for game, env in V1_ENVS.items()},
    **{env: (game, 2) for game, env in V2_ENVS.items()},
}
FLOOR = -4.0  # a card with no value in a gap plane (not held, not offered)


def _module(game: str) -> Any:
    if game not in V1_ENVS:
        raise ValueError(f"game={game!r}: choose fifteen or knock")
    return importlib.import_module(f"agents.{game}.features")


def feature_version(features: bool | int | str | None) -> int:
    """The observation version a ``features`` argument names: False / None / 0 / ``"v0"``: 0 (no
    features); True / 1 / ``"v1"``: 1; 2 / ``"v2"``: 2 (``train.py --side-features [v1|v2]``)."""
    if features is None or features is False or features == "":
        return 0
    if features is True:
        return 1
    if isinstance(features, str) and features.lower() in ("v0", "v1", "v2"):
        return int(features[1])
    if isinstance(features, int) and features in (0, 1, 2):
        return features
    raise ValueError(f"features={features!r}: choose v0, v1 or v2 (True means v1)")


def env_name(game: str, features: bool | int | str = False) -> str:
    """``fifteen_v0`` / ``fifteen_v1`` / ``knock_v0`` / ``knock_v1`` / ``knock_v2``."""
    version = feature_version(features)
    _module(game)
    names = (V0_ENVS, V1_ENVS, V2_ENVS)[version]
    if game not in names:
        raise ValueError(f"features=v{version}: {game} has no {game}_v{version} observation")
    return names[game]


def is_feature_env(env: str | None) -> bool:
    """Whether ``env`` names a side game's feature observation."""
    return env in FEATURE_ENVS


def env_version(env: str | None) -> int:
    """The feature version of a side game's observation name (0 for v0 or an unknown name)."""
    return FEATURE_ENVS[env][1] if env in FEATURE_ENVS else 0


def _checked(game: str, version: int) -> Any:
    env_name(game, version)  # ValueError for a game without this version
    return _module(game)


def _layout(game: str, version: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    module = _checked(game, version)
    versions = getattr(module, "VERSIONS", {1: (module.PLANES, module.SCALARS)})
    return versions[version]


def feature_planes(game: str, version: bool | int | str = 1) -> tuple[str, ...]:
    """Names of the card-indexed planes at the start of the appended features."""
    return tuple(_layout(game, feature_version(version) or 1)[0])


def feature_size(game: str, version: bool | int | str = 1) -> int:
    """How many floats the features append to the v0 observation."""
    planes, scalars = _layout(game, feature_version(version) or 1)
    return len(planes) * NUM_TYPES + len(scalars)


def features(view: Any, game: str, version: bool | int | str = 1) -> np.ndarray:
    """The derived features of ``view`` (a ``FifteenView`` / ``KnockView``), of ``*_v{version}``."""
    version = feature_version(version) or 1
    module = _checked(game, version)
    out = module.features(view) if version == 1 else module.features(view, version)
    if out.shape != (feature_size(game, version),):
        size = feature_size(game, version)
        raise AssertionError(f"{game} v{version} features of shape {out.shape}, not ({size},)")
    return out


def observation(view: Any, game: str, version: bool | int | str = 1) -> np.ndarray:
    """The ``*_v{version}`` observation: ``view.observation`` (v0) followed by ``features``."""
    return np.concatenate([view.observation, features(view, game, version)]).astype(np.float32)


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
