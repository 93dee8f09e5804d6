"""The reward formulas (DESIGN.md "Rewards"): one definition for the environment and training."""

from __future__ import annotations

import random

import pytest

from continental_env.rewards import relative_reward


def test_relative_reward_is_the_others_mean_minus_own_points_in_hundreds() -> None:
    points = [0, 40, 80, 120]
    assert relative_reward(points, 0) == pytest.approx((80 - 0) / 100)
    assert relative_reward(points, 3) == pytest.approx((40 - 120) / 100)


def test_relative_rewards_of_a_round_sum_to_zero() -> None:
    rng = random.Random(3)
    for players in range(2, 9):
        points = [rng.randrange(0, 200) for _ in range(players)]
        total = sum(relative_reward(points, seat) for seat in range(players))
        assert total == pytest.approx(0.0, abs=1e-12)


def test_the_environment_pays_the_relative_reward_at_a_round_end() -> None:
    import continental_env

    env = continental_env.raw_env(num_players=3, rounds=1)
    env.reset(seed=4)
    rng = random.Random(4)
    while env.agents:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(rng.choice([a for a in range(len(mask)) if mask[a]]))
        if any(env.rewards.values()):
            points = env.unwrapped.game.round_history[-1]["points"]
            for seat, agent in enumerate(env.possible_agents):
                assert env.rewards[agent] == pytest.approx(relative_reward(points, seat))
            return
    pytest.fail("the round never paid a reward")
