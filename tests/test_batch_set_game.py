"""``BatchGame.set_game``'s ``game_index``: a lane restored with its game count deals the same
next game as the lane it was saved from."""

from __future__ import annotations

import numpy as np
import pytest

from continental_env.batch import BatchGame, lane_game_seed
from continental_env.contract.game import Game


def test_set_game_sets_the_lanes_game_count() -> None:
    batch = BatchGame(num_games=1, seed=5, rounds=[1], backend="reference")
    batch.reset()
    game = batch.game(0)
    batch.set_game(0, game, game_index=7)
    assert batch.game_index(0) == 7
    batch.set_game(0, game)  # left out: the count stays
    assert batch.game_index(0) == 7
    with pytest.raises(ValueError, match="game_index=-1 must be at least 0"):
        batch.set_game(0, game, game_index=-1)
    assert batch.game_index(0) == 7  # a refused call changes nothing


def test_the_lanes_next_game_is_dealt_from_its_game_count() -> None:
    batch = BatchGame(num_games=1, seed=5, rounds=[1], backend="reference")
    _, mask, _ = batch.reset()
    batch.set_game(0, batch.game(0), game_index=7)
    rng = np.random.default_rng(0)
    done = np.zeros(1, dtype=bool)
    while not done[0]:
        action = rng.choice(np.flatnonzero(mask[0]))
        _, mask, _, _, done = batch.step(np.array([action]))
    assert batch.game_index(0) == 8
    dealt = Game.new(batch.setup.rules, 4, seed=lane_game_seed(5, 0, 8))
    assert batch.game(0).to_dict() == dealt.to_dict()
