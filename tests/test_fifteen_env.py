"""The fifteen-card AEC environment's own rewards (``chips`` at each hand's end, ``win``); the
checks both side games share (API, seeding, pickling, spaces, masks, rendering, the registry,
hidden information) are in ``test_side_env.py``."""

from __future__ import annotations

from fifteen_helpers import fifteen_state

from continental_env import fifteen
from continental_env.fifteen.env import CHIP_SCALE
from continental_env.fifteen.game import Game

MINE = "AH 2H 3H 4C 5C 6C 7D 8D 9D 4S 5S 6S 9C TC JC"
OPP = "2D 4D 6D TD QD 2S 8S TS QS KS 3C 7C KC 5H 9H"


def test_chips_rewards_are_zero_sum_and_scaled_with_infos() -> None:
    env = fifteen.env(num_players=2)
    env.reset(seed=0)
    env.unwrapped.game = Game.from_dict(
        fifteen_state(hands=[MINE, OPP], discard="KD")
    )  # a hand-built position
    env.step(env.unwrapped.game.action_from_str("take"))
    env.step(env.unwrapped.game.action_from_str("out KD"))
    raw = env.unwrapped
    assert raw.rewards == {"player_0": 11 / CHIP_SCALE, "player_1": -11 / CHIP_SCALE}
    assert raw.infos["player_0"] == {"hand": 1, "chips": 11, "winner": 0}
    assert raw.infos["player_1"] == {"hand": 1, "chips": -11, "winner": 1}
    assert not any(raw.terminations.values())  # 11 < 50: the next hand is dealt


def test_win_reward_at_the_end_only() -> None:
    env = fifteen.env(num_players=3, reward="win", hands=1)
    env.reset(seed=0)
    state = fifteen_state(
        hands=[MINE, OPP, "3D 5D 7D 9D JD KD 3S 5S 7S 9S JS AS 4H 6H 8H"],
        discard="KD",
        options={"hands": 1},
    )
    env.unwrapped.game = Game.from_dict(state)  # a hand-built position
    env.step(env.unwrapped.game.action_from_str("take"))
    assert env.unwrapped.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    env.step(env.unwrapped.game.action_from_str("out KD"))
    assert env.unwrapped.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(env.unwrapped.terminations.values())
