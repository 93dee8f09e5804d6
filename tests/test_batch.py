"""``continental_env.batch.BatchGame``: the batched API on both backends, and the compiled core
in lockstep with the reference engine (``scripts/batch_lockstep.py`` runs the long version)."""

from __future__ import annotations

import numpy as np
import pytest

from continental_env import kernels
from continental_env.batch import BatchGame, lane_game_seed
from continental_env.contract.aec import encode_observation, observation_layout
from continental_env.contract.batch import _compiled_module
from continental_env.contract.game import Game
from continental_env.rewards import relative_reward
from tests.helpers import load_script

lockstep_script = load_script("batch_lockstep")

# The compiled core is built wherever the kernels are (pip compiles both); where they are not
# (no compiler, CONTINENTAL_KERNELS=0) only the reference runs.
COMPILED = _compiled_module() is not None
needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled batch core is not built here")


def test_core_is_built_with_the_kernels() -> None:
    """pip builds ``_batch`` beside ``_kernels``: one without the other is a broken install."""
    assert (kernels.compiled is not None) == COMPILED


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


def _states(b: BatchGame) -> list[dict]:
    return [b.game(i).to_dict() for i in range(b.num_games)]


BACKENDS = ["reference", pytest.param("compiled", marks=needs_core)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_shapes_and_what_each_row_is(backend: str) -> None:
    b = BatchGame(5, 4, seed=3, backend=backend)
    obs, mask, actor = b.reset()
    assert obs.shape == (5, b.obs_dim) and obs.dtype == np.float32 and b.obs_dim == 745
    assert mask.shape == (5, b.num_actions) and mask.dtype == bool
    assert actor.shape == (5,) and actor.dtype == np.int64
    rng = np.random.default_rng(0)
    layout = observation_layout(4, 0)
    for _ in range(60):
        for i in range(5):
            game = b.game(i)
            assert actor[i] == game.actor
            assert np.flatnonzero(mask[i]).tolist() == game.legal_actions()
            # the acting seat's own observation, from scratch: public information only
            np.testing.assert_array_equal(obs[i], encode_observation(game, game.actor, layout))
        obs, mask, actor, rewards, done = b.step(_random_actions(mask, rng))
        assert rewards.shape == (5, 4) and rewards.dtype == np.float32 and done.shape == (5,)


def test_v1_observation_is_the_aec_v1_vector() -> None:
    b = BatchGame(3, 3, seed=4, observation="v1", backend="reference")
    obs, mask, actor = b.reset()
    layout = observation_layout(3, 1)
    rng = np.random.default_rng(1)
    for _ in range(30):
        obs, mask, actor, _r, _d = b.step(_random_actions(mask, rng))
    for i in range(3):
        game = b.game(i)
        np.testing.assert_array_equal(obs[i], encode_observation(game, game.actor, layout))
    # the control: another seat's vector is not this one
    other = (int(actor[0]) + 1) % 3
    assert not np.array_equal(obs[0], encode_observation(b.game(0), other, layout))


@pytest.mark.parametrize("backend", BACKENDS)
def test_lanes_are_independent_of_the_batch_size(backend: str) -> None:
    small = BatchGame(2, 4, seed=11, backend=backend)
    large = BatchGame(6, 4, seed=11, backend=backend)
    small.reset()
    large.reset()
    for i in range(2):
        expected = Game.new("continental", 4, seed=lane_game_seed(11, i, 0)).to_dict()
        assert small.game(i).to_dict() == large.game(i).to_dict() == expected
    assert small.game(0).to_dict() != small.game(1).to_dict()  # lanes differ from each other


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_finished_lane_starts_its_next_game(backend: str) -> None:
    b = BatchGame(2, 2, seed=5, rounds=1, backend=backend)
    _obs, mask, _actor = b.reset()
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(3000):
        before = _states(b)
        acts = _random_actions(mask, rng)
        _obs, mask, _actor, rewards, done = b.step(acts)
        for i in np.flatnonzero(done):
            last = Game.from_dict(before[i])
            last.apply(int(acts[i]))
            assert last.is_over
            assert b.final_scores[i].tolist() == last.scores
            points = last.round_history[-1]["points"]
            assert rewards[i].tolist() == pytest.approx(
                [relative_reward(points, s) for s in range(2)]
            )
            g = b.game_index(i)
            assert g >= 1
            assert (
                b.game(i).to_dict()
                == Game.new(b.setup.rules, 2, seed=lane_game_seed(5, i, g)).to_dict()
            )
            finished += 1
        assert np.allclose(rewards.sum(axis=1), 0.0, atol=1e-6)  # relative: zero-sum
        if finished >= 3:
            break
    assert finished >= 3


@pytest.mark.parametrize("reward", ["points", "win"])
def test_reward_modes(reward: str) -> None:
    b = BatchGame(2, 3, seed=8, rounds=1, reward=reward, backend="reference")
    _obs, mask, _actor = b.reset()
    rng = np.random.default_rng(3)
    seen = False
    for _ in range(3000):
        _obs, mask, _actor, rewards, done = b.step(_random_actions(mask, rng))
        for i in np.flatnonzero(b.round_end):
            if reward == "points":
                assert rewards[i].tolist() == pytest.approx([-p / 100.0 for p in b.round_points[i]])
            seen = True
        if reward == "win" and done.any():
            i = int(np.flatnonzero(done)[0])
            scores = b.final_scores[i]
            winners = scores == scores.min()
            assert rewards[i][winners].sum() == pytest.approx(1.0)
        if seen and done.any():
            break
    assert seen


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_illegal_action_is_refused_and_no_lane_changes(backend: str) -> None:
    b = BatchGame(3, 4, seed=9, backend=backend)
    _obs, mask, _actor = b.reset()
    before = _states(b)
    acts = _random_actions(mask, np.random.default_rng(4))
    acts[2] = 5  # close, in the draw phase
    with pytest.raises(ValueError, match=r"^lane 2: illegal action 5 \('close'\) in phase 'draw'"):
        b.step(acts)
    acts[2] = 10**6
    with pytest.raises(ValueError, match=r"lane 2: .*out of range"):
        b.step(acts)
    assert _states(b) == before
    b.step(_random_actions(mask, np.random.default_rng(4)))  # still steps
    assert _states(b) != before


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="num_games=0 must be at least 1"):
        BatchGame(0)
    with pytest.raises(ValueError, match="observation='v2'"):
        BatchGame(2, observation="v2")
    with pytest.raises(ValueError, match="reward='score'"):
        BatchGame(2, reward="score")
    with pytest.raises(ValueError, match="backend='gpu'"):
        BatchGame(2, backend="gpu")
    with pytest.raises(ValueError, match="num_players=9"):
        BatchGame(2, 9)
    b = BatchGame(2, backend="reference")
    with pytest.raises(RuntimeError, match="reset"):
        b.step([0, 0])
    b.reset()
    with pytest.raises(ValueError, match=r"actions of shape \(3,\)"):
        b.step([0, 0, 0])
    with pytest.raises(ValueError, match="dtype float64"):
        b.step([0.0, 0.0])
    with pytest.raises(ValueError, match=r"lane 2 is out of range 0\.\.1"):
        b.game(2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_set_game_puts_a_position_on_a_lane(backend: str) -> None:
    game = Game.new("continental", 4, seed=77)
    for a in (0, 3, 3, 3):  # draw, then three passes if a claim window opened
        if a in game.legal_actions():
            game.apply(a)
    b = BatchGame(2, 4, seed=1, backend=backend)
    b.reset()
    b.set_game(1, game)
    assert b.game(1).to_dict() == game.to_dict()
    with pytest.raises(ValueError, match="rules or table size differ"):
        b.set_game(0, Game.new("continental", 3, seed=1))


# ----------------------------------------------------------------------------- lockstep


@needs_core
@pytest.mark.parametrize(
    "preset,players,observation",
    [("continental", 4, "v0"), ("continental", 8, "v1"), ("continental_us", 2, "v1"),
     ("continental_us", 6, "v0"), ("continental_es", 3, "v0"), ("continental_es", 5, "v1"),
     ("continental", 4, "v1")],
)  # fmt: skip
def test_compiled_core_in_lockstep_with_the_engine(
    preset: str, players: int, observation: str
) -> None:
    n, diff = lockstep_script.lockstep(
        preset, players, lanes=6, steps=400, seed=players, observation=observation
    )
    assert diff is None
    assert n == 2400


@needs_core
def test_compiled_core_steps_only_the_active_lanes_in_lockstep() -> None:
    n, diff = lockstep_script.lockstep("continental", 4, 6, 300, seed=3, partial=True)
    assert diff is None
    assert 0 < n < 6 * 300  # some lanes sat out some steps


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("players", [2, 4, 7])
def test_hidden_hands_are_the_other_seats_hands_after_the_actor(backend: str, players: int) -> None:
    b = BatchGame(5, players, seed=4, backend=backend)
    _, mask, actor = b.reset()
    rng = np.random.default_rng(players)
    for _ in range(80):
        hidden = b.hidden_hands()
        assert hidden.shape == (5, players - 1, 53) and hidden.dtype == np.float32
        for i in range(5):
            state = b.game(i).state
            others = [state.hands[(actor[i] + j) % players] for j in range(1, players)]
            np.testing.assert_array_equal(hidden[i], np.array(others, dtype=np.float32))
        _, mask, actor, _, _ = b.step(_random_actions(mask, rng))
    # the positive control: a card moved from the next seat's hand to the actor's shows there
    game = b.game(2)
    seat, after = game.actor, (game.actor + 1) % players
    card = int(np.flatnonzero(game.state.hands[after])[0])
    before = b.hidden_hands()[2, 0, card]
    game.state.hands[after][card] -= 1
    game.state.hands[seat][card] += 1
    game.state.hand_sizes[after] -= 1
    game.state.hand_sizes[seat] += 1
    b.set_game(2, game)
    assert b.hidden_hands()[2, 0, card] == before - 1


@needs_core
def test_random_legal_refuses_a_uniform_outside_0_1() -> None:
    b = BatchGame(3, 4, seed=2, backend="compiled")
    b.reset()
    with pytest.raises(ValueError, match=r"uniform\[1\] is not in \[0, 1\)"):
        b._core_sample(np.array([0.5, 1.0, 0.2]))


@needs_core
def test_lockstep_catches_a_changed_lane() -> None:
    """The positive control: one lane's position altered in the compiled batch only."""

    def corrupt(batch: BatchGame) -> None:
        game = batch.game(3)
        game.state.scores[0] += 1
        batch.set_game(3, game)

    _n, diff = lockstep_script.lockstep("continental", 4, 6, 50, seed=1, corrupt=corrupt)
    assert diff is not None and "lane 3" in diff and "scores" in diff
