"""The knock AEC environment's own parts: the antes, chips and pot in the observation, and its
rewards (``chips``: every chip moved, the ante with the first step; ``win``); the checks both
side games share (API, seeding, pickling, spaces, masks, rendering, the registry, hidden
information) are in ``test_side_env.py``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from knock_helpers import knock_state

from continental_env import knock
from continental_env.knock.game import Game

SMALL = {"max_turns_per_hand": 30, "max_hands": 4}
KNOCK5 = "2H 3H 4H 5H 6C 6D 6S AS 3C AD"
LOOSE1 = "KC QD JS 9H 7C 5D 3S TC 8D 6H"
LOOSE2 = "2C 4D 6S 8H TD QC AH 3S 5C 9D"
LOOSE3 = "KS KH 7S 7H 4C 4H 2S 8C JC 9C"


def test_the_observation_shows_the_antes_in_the_pot() -> None:
    env = knock.env(num_players=4)
    env.reset(seed=1)
    layout = env.unwrapped.observation_layout
    obs, *_ = env.last()
    assert obs["observation"][layout["pot"]][0] == 4.0  # 4 antes of one stake
    assert list(obs["observation"][layout["chips"]]) == [-1.0] * 4


def test_chips_rewards_count_the_ante_then_every_chip_moved() -> None:
    env = knock.env(num_players=4)
    env.reset(seed=0)
    env.unwrapped.game = Game.from_dict(
        knock_state(hands=[KNOCK5, LOOSE1, LOOSE2, LOOSE3], current=0)
    )  # a hand-built position
    env.step(env.unwrapped.game.action_from_str("knock"))
    raw = env.unwrapped
    # The position was loaded with the antes paid: only the knock's chips are rewarded.
    assert raw.rewards == {"player_0": 0.4, "player_1": -0.2, "player_2": -0.2, "player_3": -0.2}
    assert raw.infos["player_0"] == {"hand": 1, "points": 5, "chips": 20, "announcer": 0}
    assert raw.infos["player_1"]["announcer"] == 3  # relative seat
    env = knock.env(num_players=3)
    env.reset(seed=2)
    env.step(0)  # the first step brings the ante
    assert env.unwrapped.rewards == {"player_0": -1.0, "player_1": -1.0, "player_2": -1.0}


def test_chips_rewards_sum_to_the_net_chips_over_a_game() -> None:
    env = knock.env(num_players=3, **SMALL)
    env.reset(seed=5)
    total = {a: 0.0 for a in env.possible_agents}
    rng = random.Random(5)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        total[agent] += reward
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    game = env.unwrapped.game
    assert game.is_over
    for seat, agent in enumerate(env.possible_agents):
        assert total[agent] == pytest.approx(game.chips[seat] / game.stake)
    assert sum(total.values()) == pytest.approx(0.0)


def test_win_reward_at_the_end_only() -> None:
    env = knock.env(num_players=3, reward="win")
    env.reset(seed=0)
    state = knock_state(hands=["AH 2H 3H 4H 5H 6H 7H 8H 9H TH", LOOSE1, LOOSE2], current=0)
    env.unwrapped.game = Game.from_dict(state)  # a hand-built position
    env.step(env.unwrapped.game.action_from_str("continental"))
    assert env.unwrapped.rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(env.unwrapped.terminations.values())
