"""``search`` plays exactly as it did before the compiled kernels: recorded action hashes.

The hashes were recorded at commit 5894364 (pure Python, before any kernel) by playing these
seeded games with ``search`` (4 worlds) at every seat; ``strong`` plays inside every rollout, so
the games exercise ``make_plan``, the contract checks and the lay-down search thousands of times.
"""

from __future__ import annotations

import hashlib

import pytest

from agents.contract.search import SearchAgent
from agents.contract.strong import make_plan
from agents.contract.view import PlayerView
from continental_env import kernels
from continental_env.contract.game import Game
from continental_env.rules import PRESETS

# (seed, rounds) -> (sha256 of the actions as 2-byte little-endian ids, number of actions)
RECORDED = {
    (1, (1, 2)): ("84834d2ec418e8b339fbaf54adf611a5e9e2ee742a87bffc3de9deddb3bf3ee6", 254),
    (3, (4, 6)): ("056acf12aeb095ca7296c40ccee98369de6e6b1baf0d11cae164f50b3324884f", 167),
}


def play(seed: int, rounds: tuple[int, ...]) -> tuple[str, int]:
    game = Game.new(PRESETS["continental"].with_rounds(rounds), 4, seed=seed)
    bots = [SearchAgent(seed * 10 + s, 4) for s in range(4)]
    digest = hashlib.sha256()
    actions = 0
    while not game.is_over:
        action = bots[game.actor].act(PlayerView(game, game.actor))
        digest.update(action.to_bytes(2, "little"))
        actions += 1
        game.apply(action)
    return digest.hexdigest(), actions


@pytest.mark.skipif(not kernels.active(), reason="compiled kernels not in use")
@pytest.mark.parametrize(("seed", "rounds"), list(RECORDED))
def test_search_decisions_identical_to_the_recorded_games(
    seed: int, rounds: tuple[int, ...]
) -> None:
    assert play(seed, rounds) == RECORDED[(seed, rounds)]


class OffByOne:
    """The compiled kernels, except a plan that keeps one copy too few of its first card."""

    def __init__(self, native: object) -> None:
        self.native = native

    def __getattr__(self, name: str) -> object:
        return getattr(self.native, name)

    def make_plan(self, *args: object) -> tuple:
        cost, missing, core = self.native.make_plan(*args)  # type: ignore[attr-defined]
        first = next(c for c in range(52) if core[c]) if any(core[:52]) else None
        if first is not None:
            core = (*core[:first], core[first] - 1, *core[first + 1 :])
        return cost, missing, core


@pytest.mark.skipif(not kernels.active(), reason="compiled kernels not in use")
def test_positive_control_a_wrong_kernel_changes_the_decisions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_plan.cache_clear()
    monkeypatch.setattr(kernels, "native", OffByOne(kernels.native))
    try:
        assert play(1, (1, 2)) != RECORDED[(1, (1, 2))]
    finally:
        make_plan.cache_clear()
