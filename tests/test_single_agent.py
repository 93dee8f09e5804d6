"""The single-learner gymnasium wrapper: masks, the learner's rewards, opponents, seeding."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.contract.view import PlayerView
from agents.train.single_agent import SeatAgent, make_env
from continental_env.contract.aec import encode_observation
from continental_env.contract.game import Game
from continental_env.single_agent import SingleAgentContinental


class CountingRandom:
    """A stand-in opponent: uniform over legal actions, counting its decisions and seats."""

    name = "counting_random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.calls = 0
        self.seats: set[int] = set()

    def act(self, view: PlayerView) -> int:
        self.calls += 1
        self.seats.add(view.seat)
        return self.rng.choice(view.legal_actions)


def greedy_ish(mask: np.ndarray, rng: random.Random) -> int:
    """A learner policy that finishes games quickly: close, lay down, lay off, else random."""
    legal = np.flatnonzero(mask).tolist()
    for action in (5, 4):  # close, laydown
        if action in legal:
            return action
    layoffs = [a for a in legal if a >= 59]
    return layoffs[0] if layoffs else rng.choice(legal)


def play_episode(env: SingleAgentContinental, rng: random.Random) -> tuple[list, float, dict]:
    """Steps until the episode ends; returns the observations, the return and the last info."""
    observations = []
    total = 0.0
    info: dict = {}
    terminated = False
    while not terminated:
        mask = env.action_masks()
        action = greedy_ish(mask, rng)
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        observations.append(obs)
        total += reward
    return observations, total, info


def test_masks_are_the_learners_legal_actions_and_never_empty() -> None:
    env = make_env(num_players=4, rounds=[1, 2], opponents=["random"], seed=3)
    rng = random.Random(0)
    obs, info = env.reset(seed=3)
    for _ in range(600):
        mask = env.action_masks()
        game = env.game
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert mask.any()
        assert game.actor == env.learner == info.get("seat", env.learner)
        assert np.flatnonzero(mask).tolist() == game.legal_actions()
        assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
        np.testing.assert_array_equal(obs, encode_observation(game, env.learner, env.layout))
        obs, _, terminated, _, _ = env.step(greedy_ish(mask, rng))
        if terminated:
            assert env.action_masks().any()  # still never all-zero
            obs, info = env.reset()


def test_mask_in_info_matches_action_masks() -> None:
    env = make_env(rounds=[1], opponents=["random"], seed=1, mask_in_info=True)
    _, info = env.reset(seed=1)
    rng = random.Random(1)
    for _ in range(100):
        np.testing.assert_array_equal(info["action_mask"], env.action_masks())
        _, _, terminated, _, info = env.step(greedy_ish(env.action_masks(), rng))
        if terminated:
            _, info = env.reset()


def test_illegal_action_raises() -> None:
    env = make_env(rounds=[1], opponents=["random"], seed=2)
    env.reset(seed=2)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError):
        env.step(illegal)


def test_game_return_is_the_learners_relative_score() -> None:
    """Whole-game episodes: the return is (mean of the others' totals - own total) / 100."""
    env = make_env(num_players=3, rounds=[1, 2, 3], opponents=["random"], seed=5)
    rng = random.Random(5)
    for _ in range(3):
        env.reset()
        _, total, info = play_episode(env, rng)
        scores = env.game.scores
        me = env.learner
        others = (sum(scores) - scores[me]) / (len(scores) - 1)
        assert total == pytest.approx((others - scores[me]) / 100.0)
        assert info["score"] == scores[me]


def test_round_episodes_end_each_round_with_its_own_reward() -> None:
    env = make_env(
        num_players=4, opponents=["random"], round_episodes=True, seed=11, rounds=[1, 2, 3]
    )
    rng = random.Random(11)
    env.reset(seed=11)
    seen_rounds = []
    for _ in range(3):
        rounds_before = len(env.game.round_history)
        _, total, _ = play_episode(env, rng)
        result = env.game.round_history[-1]
        assert len(env.game.round_history) == rounds_before + 1
        points = result["points"]
        me = env.learner
        expected = ((sum(points) - points[me]) / 3 - points[me]) / 100.0
        assert total == pytest.approx(expected)
        seen_rounds.append(result["round"])
        if env.game.is_over:
            break
        env.reset()
    assert seen_rounds[0] == 1


def test_opponents_act_in_every_other_seat() -> None:
    bot = CountingRandom(0)
    env = make_env(num_players=4, rounds=[1], opponents=[bot], seed=7)
    rng = random.Random(7)
    learner_seats = set()
    for _ in range(8):
        env.reset()
        learner_seats.add(env.learner)
        assert env.seat_agents[env.learner] is None
        assert all(env.seat_agents[s].agent is bot for s in range(4) if s != env.learner)
        play_episode(env, rng)
    assert bot.calls > 0 and env.opponent_decisions >= bot.calls
    assert len(learner_seats) > 1  # the learner's seat is drawn at random
    assert bot.seats  # it played seats other than the learner's


def test_named_opponents_come_from_the_registry() -> None:
    env = make_env(rounds=[1], opponents=["greedy", "random"], seed=9)
    env.reset(seed=9)
    names = {a.name for a in env.seat_agents if a is not None}
    assert names <= {"greedy", "random"}


def test_same_seed_same_trajectory_and_different_seed_differs() -> None:
    def run(seed: int) -> list[tuple]:
        env = make_env(
            rounds=[1, 2], opponents=["random", "greedy"], round_episodes=True, seed=seed
        )
        rng = random.Random(0)
        obs, _ = env.reset(seed=seed)
        out = [(obs.tobytes(), env.learner)]
        for _ in range(150):
            obs, reward, terminated, _, _ = env.step(greedy_ish(env.action_masks(), rng))
            out.append((obs.tobytes(), reward))
            if terminated:
                obs, _ = env.reset()
                out.append((obs.tobytes(), env.learner))
        return out

    assert run(21) == run(21)
    assert run(21) != run(22)


def test_self_snapshots_play_as_opponents(tmp_path) -> None:
    from agents.bots.ppo_agent import NumpyPolicy

    env = make_env(rounds=[1], opponents=["self"], seed=4)
    obs_size, n = env.observation_space.shape[0], env.action_space.n
    rng = np.random.default_rng(0)
    weights = [
        (rng.normal(size=(16, obs_size)), np.zeros(16)),
        (rng.normal(size=(n, 16)), np.zeros(n)),
    ]
    path = tmp_path / "snap.npz"
    NumpyPolicy(weights, activation="relu").save_npz(str(path))
    env.reset(seed=4)  # no snapshot yet: falls back to a bot
    assert all(a is None or a.name == "random" for a in env.seat_agents)
    assert env.add_snapshot(str(path)) == 1
    env.reset()
    assert all(a is None or isinstance(a.agent, NumpyPolicy) for a in env.seat_agents)
    before = env.opponent_decisions
    play_episode(env, random.Random(0))
    assert env.opponent_decisions > before


def test_training_observation_equals_the_agents_view() -> None:
    """What the learner trains on is what ``ppo:`` agents see through ``PlayerView``."""
    env = make_env(rounds=[1, 2], opponents=["greedy"], seed=13)
    rng = random.Random(13)
    obs, _ = env.reset(seed=13)
    for _ in range(60):
        view = PlayerView(env.game, env.learner)
        np.testing.assert_array_equal(obs, view.observation())
        obs, _, terminated, _, _ = env.step(greedy_ish(env.action_masks(), rng))
        if terminated:
            obs, _ = env.reset()


def uniform(game: Game, seat: int) -> int:
    """An opponent callable without any bot: the first legal action."""
    return game.legal_actions()[0]


def test_the_environment_takes_opponent_callables_and_needs_no_bots() -> None:
    env = SingleAgentContinental(num_players=3, rounds=[1], opponents=[uniform], seed=2)
    env.reset(seed=2)
    _, _, info = play_episode(env, random.Random(2))
    assert env.game.is_over and "score" in info
    assert all(a is None or a is uniform for a in env.seat_agents)
    with pytest.raises(ValueError, match="make_opponent"):
        SingleAgentContinental(opponents=["greedy"])
    with pytest.raises(ValueError, match="at least one"):
        SingleAgentContinental(opponents=[])
    with pytest.raises(ValueError, match="load_snapshot"):
        env.add_snapshot("snap.npz")


def test_make_env_checks_names_before_any_game_and_wraps_bot_objects() -> None:
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        make_env(opponents=["greedy", "nobody"])
    bot = CountingRandom(1)
    env = make_env(rounds=[1], opponents=[bot], seed=1)
    assert isinstance(env.pool[0], SeatAgent) and env.pool[0].agent is bot


def test_numpy_integer_seeds_give_the_same_episode() -> None:
    a = make_env(rounds=[1], opponents=["random"])
    b = make_env(rounds=[1], opponents=["random"])
    obs_a, _ = a.reset(seed=np.int64(8))
    obs_b, _ = b.reset(seed=8)
    assert np.array_equal(obs_a, obs_b) and a.learner == b.learner
    with pytest.raises(ValueError, match="not an integer"):
        a.reset(seed=0.5)
