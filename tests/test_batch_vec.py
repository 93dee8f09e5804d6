"""The learner's seat of N tables on ``BatchGame`` (continental_env.contract.batch_vec): the
``active`` lanes of ``BatchGame.step``, the gymnasium ``VectorEnv`` (spaces, same-step autoreset,
seeding), the learner's rewards and observations against the AEC environment replaying the same
deal and actions, and the SB3 ``VecEnv`` under sb3-contrib's MaskablePPO."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import warnings
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from continental_env.contract.aec import encode_observation, raw_env
from continental_env.contract.batch import BatchGame, lane_game_seed, raw_from_state
from continental_env.contract.batch_vec import BatchLearnerVecEnv
from continental_env.contract.game import Game
from continental_env.rewards import relative_reward
from continental_env.rules import RuleConfig, resolve_rules

ROOT = Path(__file__).resolve().parent.parent
P = 3
ROUNDS = [1]  # one-round games: a few hundred steps finish several of them

pytestmark = pytest.mark.filterwarnings("ignore:continental_env. the compiled batch core")


def make(num_envs: int = 3, **kwargs: Any) -> BatchLearnerVecEnv:
    kwargs = {"num_players": P, "rounds": ROUNDS, "backend": "reference", **kwargs}
    return BatchLearnerVecEnv(num_envs, **kwargs)


def pick(obs: np.ndarray, mask: np.ndarray) -> int:
    """A legal action that depends only on the observation and the mask: the same position
    gets the same action here and in a replay."""
    legal = np.flatnonzero(mask)
    return int(legal[zlib.crc32(obs.tobytes()) % len(legal)])


def pick_rows(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.array([pick(o, m) for o, m in zip(obs, mask, strict=True)], dtype=np.int64)


def raws(b: BatchGame) -> list[dict[str, Any]]:
    return [raw_from_state(b.game(i).state) for i in range(b.num_games)]


# ----------------------------------------------------------------------------- BatchGame.step(active=)


def test_batch_step_with_active_lanes_moves_only_those() -> None:
    b = BatchGame(3, num_players=P, rounds=ROUNDS, seed=1, backend="reference")
    obs, mask, actor = b.reset()
    before = raws(b)
    acts = pick_rows(obs, mask)
    acts[1] = -1  # lane 1 is not active: its action is never read
    active = np.array([True, False, True])
    obs2, mask2, actor2, rewards, done = b.step(acts, active=active)
    after = raws(b)
    assert after[1] == before[1]
    assert after[0] != before[0] and after[2] != before[2]
    assert np.array_equal(obs2[1], obs[1]) and np.array_equal(mask2[1], mask[1])
    assert actor2[1] == actor[1]
    assert not rewards[1].any() and not done[1] and not b.round_end[1]
    # Every lane stepped (no ``active``): lane 1's -1 is refused and nothing changes.
    acts = pick_rows(obs2, mask2)
    acts[1] = -1
    with pytest.raises(ValueError, match=r"^lane 1: "):
        b.step(acts)
    assert raws(b) == after


def test_batch_step_refuses_a_bad_active_array_and_an_illegal_active_action() -> None:
    b = BatchGame(2, num_players=P, rounds=ROUNDS, seed=2, backend="reference")
    obs, mask, _ = b.reset()
    before = raws(b)
    acts = pick_rows(obs, mask)
    for bad in ([1, 0], np.ones(3, dtype=bool)):
        with pytest.raises(ValueError, match=r"^active of shape .*expected a bool array") as err:
            b.step(acts, active=bad)
        assert "\n" not in str(err.value)
    acts[0] = int(np.flatnonzero(~mask[0])[0])  # illegal in lane 0, which is active
    with pytest.raises(ValueError, match=r"^lane 0: "):
        b.step(acts, active=np.array([True, False]))
    assert raws(b) == before


# ----------------------------------------------------------------------------- the VectorEnv


def test_vector_env_spaces_shapes_and_same_step_autoreset() -> None:
    env = make(3)
    assert isinstance(env, VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, infos = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs in env.observation_space
    assert obs.shape == (3, *env.single_observation_space.shape)
    assert list(infos["seat"]) == [0, 1, 2] and infos["_seat"].all()  # lane % P
    ended_seen = 0
    for _ in range(400):
        masks = env.action_masks()
        assert masks.shape == (3, env.single_action_space.n) and masks.any(axis=1).all()
        actions = pick_rows(obs, masks)
        assert actions in env.action_space
        new, rewards, terminated, truncated, infos = env.step(actions)
        assert new is not obs and new in env.observation_space  # no buffer handed out twice
        assert rewards.shape == (3,) and rewards.dtype == np.float32
        assert not truncated.any()
        if terminated.any():
            ended_seen += int(terminated.sum())
            assert np.array_equal(infos["_final_obs"], terminated)
            assert np.array_equal(infos["_final_info"], terminated)
            for i in np.flatnonzero(terminated):
                assert np.array_equal(infos["final_obs"][i], obs[i])  # its last decision's
                assert infos["final_info"]["_final_scores"][i]  # an episode is a game
            assert np.array_equal(infos["_seat"], terminated)  # the new episodes' reset infos
        else:
            assert "final_obs" not in infos
        obs = new
    assert ended_seen >= 3


def test_gymnasiums_episode_statistics_wrapper_reads_the_episodes() -> None:
    """gymnasium's ``RecordEpisodeStatistics`` follows ``metadata["autoreset_mode"]``: its
    returns and lengths are the learner's own sums over each game."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(make(3))
    obs, _ = envs.reset(seed=2)
    returns, lengths, checked = np.zeros(3), np.zeros(3, dtype=int), 0
    for _ in range(400):
        obs, rewards, terminated, _, infos = envs.step(
            pick_rows(obs, envs.unwrapped.action_masks())
        )
        returns += rewards
        lengths += 1
        for i in np.flatnonzero(terminated):
            assert infos["episode"]["r"][i] == pytest.approx(returns[i], abs=1e-4)
            assert infos["episode"]["l"][i] == lengths[i]
            checked += 1
        returns[terminated], lengths[terminated] = 0.0, 0
    assert checked >= 3


def test_same_seed_same_run_another_seed_another() -> None:
    def run(seed: int) -> list[np.ndarray]:
        env = make(2)
        obs, _ = env.reset(seed=seed)
        out = [obs]
        for _ in range(60):
            obs, rewards, terminated, _, _ = env.step(pick_rows(obs, env.action_masks()))
            out += [obs, rewards, terminated]
        return out

    first, again, other = run(7), run(7), run(8)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))  # control


def test_reset_without_a_seed_continues_the_seeded_generator() -> None:
    a, b = make(2), make(2)
    a.reset(seed=3)
    b.reset(seed=3)
    obs_a, _ = a.reset()
    obs_b, _ = b.reset()
    assert np.array_equal(obs_a, obs_b)
    assert a.batch.seed != 3  # a new deal, drawn from the generator


def run_lanes(
    env: BatchLearnerVecEnv, seed: int, games: int, limit: int, skips: np.ndarray | None = None
) -> list[list[dict]]:
    """Play ``pick`` for every learner until each lane finished ``games`` episodes; per lane,
    the learner's decisions: obs, reward, whether the episode ended and its final info.
    ``skips`` adds up the lanes' ``skipped_episodes``."""
    obs, infos = env.reset(seed=seed)
    if skips is not None:
        skips += infos["skipped_episodes"]
    steps: list[list[dict]] = [[] for _ in range(env.num_envs)]
    done_games = np.zeros(env.num_envs, dtype=int)
    for _ in range(limit):
        masks = env.action_masks()
        acts = pick_rows(obs, masks)
        new, rewards, terminated, _, infos = env.step(acts)
        for i in range(env.num_envs):
            step = {"obs": obs[i], "reward": float(rewards[i]), "end": bool(terminated[i])}
            if terminated[i]:
                step["final_info"] = {
                    k: v[i] for k, v in infos["final_info"].items() if not k.startswith("_")
                }
            steps[i].append(step)
        done_games += terminated
        if skips is not None:
            skips += np.where(infos["_skipped_episodes"], infos["skipped_episodes"], 0)
        obs = new
        if (done_games >= games).all():
            return steps
    raise AssertionError(f"only {done_games} games finished in {limit} steps")


def episodes(steps: list[dict]) -> list[list[dict]]:
    """A lane's decisions split into its finished episodes."""
    out, current = [], []
    for step in steps:
        current.append(step)
        if step["end"]:
            out.append(current)
            current = []
    return out


def replay(env: BatchLearnerVecEnv, seed: int, lane: int, game: int, seat: int) -> list[dict]:
    """The same deal on the AEC environment, every seat playing ``pick``: ``seat``'s
    observation at each of its decisions and its AEC rewards up to its next one (rewards
    before its first decision count with the first, and are also its ``early``)."""
    rules = env.batch.setup.rules
    aec = raw_env(num_players=P, preset=rules, reward=env.reward)
    aec.reset(seed=0)
    aec.game = Game.new(rules, P, seed=lane_game_seed(seed, lane, game))
    agent = aec.possible_agents[seat]
    decisions: list[dict] = []
    early = 0.0
    while not aec.game.is_over:
        actor = aec.agent_selection
        seen = aec.observe(actor)
        if actor == agent:
            decisions.append({"obs": seen["observation"], "reward": early, "early": early})
            early = 0.0
        aec.step(pick(seen["observation"], seen["action_mask"].astype(bool)))
        if decisions:
            decisions[-1]["reward"] += aec.rewards[agent]
        else:
            early += aec.rewards[agent]
    return decisions


def test_learner_rewards_and_observations_equal_the_aec_envs_on_the_same_deal() -> None:
    env, seed = make(3, opponent=pick_rows), 11
    lanes = run_lanes(env, seed, games=1, limit=1500)
    mismatched_other_seat = 0
    for lane, steps in enumerate(lanes):
        seat = lane % P
        game = episodes(steps)[0]
        expected = replay(env, seed, lane, 0, seat)
        assert len(game) == len(expected)
        for got, want in zip(game, expected, strict=True):
            assert np.array_equal(got["obs"], want["obs"])
            assert got["reward"] == pytest.approx(want["reward"], abs=1e-6)
        total = sum(s["reward"] for s in game)
        scores = [int(x) for x in game[-1]["final_info"]["final_scores"]]
        assert total == pytest.approx(relative_reward(scores, seat), abs=1e-5)
        # Positive control: another seat's rewards of the same game are told apart.
        other = sum(d["reward"] for d in replay(env, seed, lane, 0, (seat + 1) % P))
        mismatched_other_seat += other != pytest.approx(total, abs=1e-5)
    assert mismatched_other_seat >= 1


def short_rounds() -> RuleConfig:
    """Rounds of at most one turn: a round often ends before a seat's first decision in it."""
    return dataclasses.replace(resolve_rules("continental"), max_turns_per_round=1)


def test_rewards_before_the_learners_first_decision_count_with_it() -> None:
    env, seed = make(3, preset=short_rounds(), rounds=[1, 2, 3], opponent=pick_rows), 3
    lanes = run_lanes(env, seed, games=2, limit=500)
    early = 0
    for lane, steps in enumerate(lanes):
        for g, game in enumerate(episodes(steps)[:2]):
            expected = replay(env, seed, lane, g, lane % P)
            assert [s["reward"] for s in game] == pytest.approx(
                [d["reward"] for d in expected], abs=1e-6
            )
            early += expected[0]["early"] != 0
    assert early >= 1  # the case under test happened


def test_round_episodes_skip_a_round_the_learner_never_acted_in() -> None:
    env = make(3, preset=short_rounds(), rounds=[1, 2, 3], round_episodes=True)
    skips = np.zeros(3, dtype=np.int64)
    lanes = run_lanes(env, 8, games=4, limit=500, skips=skips)
    assert skips.sum() >= 1
    for lane, steps in enumerate(lanes):
        ended = episodes(steps)
        for episode in ended:
            points = [int(x) for x in episode[-1]["final_info"]["round_points"]]
            assert sum(s["reward"] for s in episode) == pytest.approx(
                relative_reward(points, lane % P), abs=1e-5
            )
        # Every round the lane finished was an episode or a skipped one.
        rounds_done = 3 * env.batch.game_index(lane) + len(env.batch.game(lane).round_history)
        assert len(ended) + skips[lane] == rounds_done


def test_round_episodes_end_at_each_round() -> None:
    env, seed = make(2, rounds=[1, 2], round_episodes=True, opponent=pick_rows), 5
    lanes = run_lanes(env, seed, games=2, limit=1500)
    for lane, steps in enumerate(lanes):
        seat = lane % P
        first, second = episodes(steps)[:2]
        info = first[-1]["final_info"]
        points = [int(x) for x in info["round_points"]]
        assert sum(s["reward"] for s in first) == pytest.approx(
            relative_reward(points, seat), abs=1e-5
        )
        assert "final_scores" not in info or not info["final_scores"].any()  # game goes on
        assert second[-1]["final_info"]["final_scores"].any()  # round 2 ends the game


def test_the_learners_observation_is_its_own_seats_encoding() -> None:
    env = make(3)
    obs, _ = env.reset(seed=4)
    layout = env.batch.observation_layout
    told_apart = 0
    for _ in range(40):
        for i in range(env.num_envs):
            game, seat = env.batch.game(i), i % P
            assert game.actor == seat
            assert np.array_equal(obs[i], encode_observation(game, seat, layout))
            other = encode_observation(game, (seat + 1) % P, layout)
            told_apart += not np.array_equal(obs[i], other)  # positive control
        obs, *_ = env.step(pick_rows(obs, env.action_masks()))
    assert told_apart == 40 * env.num_envs


def test_a_fixed_learner_seat_and_a_batched_opponent_policy() -> None:
    calls: list[int] = []

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        assert obs.dtype == np.float32 and mask.dtype == np.bool_ and len(obs) == len(mask)
        calls.append(len(obs))
        return pick_rows(obs, mask)

    env = make(4, opponent=policy, learner_seat=2)
    obs, infos = env.reset(seed=0)
    assert list(infos["seat"]) == [2, 2, 2, 2]
    for _ in range(20):
        obs, *_ = env.step(pick_rows(obs, env.action_masks()))
    assert all(1 <= k <= 4 for k in calls) and max(calls) == 4  # one call for many lanes
    assert all(env.batch.game(i).actor == 2 for i in range(4))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_envs": 0}, r"^num_envs=0 must be at least 1$"),
        ({"num_envs": "3"}, r"^num_envs='3' must be an integer$"),
        ({"opponent": "greedy"}, r"^opponent='greedy': the compiled bots need the compiled core"),
        ({"opponent": "strong@v9"}, r"^opponent='strong@v9': choose 'random', a compiled bot"),
        ({"opponent": "self"}, r"^opponent='self': choose 'random', a compiled bot"),
        ({"opponent": ["random", "nobody"]}, r"^opponent='nobody': choose 'random'"),
        ({"opponent": []}, r"^opponent=\[\]: a pool needs at least one entry$"),
        ({"opponent": 3}, r"^opponent=3: choose 'random', a compiled bot"),
        ({"learner_seat": 3}, r"^learner_seat=3 is not a seat of a 3-player table"),
        ({"learner_seat": -1}, r"^learner_seat=-1 must be at least 0$"),
        ({"learner_seat": True}, r"^learner_seat=True must be an integer, not a bool$"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(kwargs: dict, message: str) -> None:
    kwargs = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message) as err:
        make(**kwargs)
    assert "\n" not in str(err.value)


def test_bad_actions_are_refused_and_change_nothing() -> None:
    env = make(2)
    obs, _ = env.reset(seed=1)
    before = raws(env.batch)
    masks = env.action_masks()
    for bad in (np.zeros(3, dtype=np.int64), np.zeros((2, 1), dtype=np.int64), np.zeros(2)):
        with pytest.raises(ValueError, match=r"^actions of shape .* expected integer") as err:
            env.step(bad)
        assert "\n" not in str(err.value)
    illegal = pick_rows(obs, masks)
    illegal[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(ValueError, match=r"^lane 1: "):
        env.step(illegal)
    assert raws(env.batch) == before
    env.step(pick_rows(obs, masks))  # still steps


def test_an_opponent_returning_a_bad_shape_is_named() -> None:
    env = make(2, opponent=lambda obs, mask: np.zeros(len(obs) + 1, dtype=np.int64))
    with pytest.raises(ValueError, match=r"^opponent: opponent returned actions of shape"):
        env.reset(seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))


# ----------------------------------------------------------------------------- the SB3 VecEnv


def test_the_vector_env_imports_without_stable_baselines3_or_torch() -> None:
    code = (
        "import sys\n"
        "import continental_env.contract.batch_vec\n"
        "bad = [m for m in ('stable_baselines3', 'torch') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_sb3_vec_env_api_and_masks() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecEnv

    from continental_env.contract.batch_vec import BatchLearnerSB3VecEnv

    venv = BatchLearnerSB3VecEnv(3, num_players=P, rounds=ROUNDS, backend="reference")
    assert isinstance(venv, VecEnv)
    assert venv.seed(9) == [9, 9, 9]
    obs = venv.reset()
    assert is_masking_supported(venv)
    masks = get_action_masks(venv)
    assert masks.shape == (3, venv.action_space.n) and masks.any(axis=1).all()
    assert np.array_equal(masks, venv.env.action_masks())
    assert venv.get_attr("learner_seat") == [0, 1, 2]
    assert venv.get_attr("learner_seat", indices=[2]) == [2]
    assert venv.get_attr("round_episodes") == [False] * 3
    assert venv.env_is_wrapped(Monitor) == [False] * 3
    assert venv.reset_infos[1] == {"seat": 1, "skipped_episodes": 0}
    venv.set_attr("opponent", lambda o, m: pick_rows(o, m))
    with pytest.raises(ValueError, match=r"^opponent='nobody': choose 'random', a compiled bot"):
        venv.set_attr("opponent", "nobody")
    with pytest.raises(AttributeError):
        venv.set_attr("learner_seat", 1)  # fixed at construction
    assert venv.get_attr("learner_seat") == [0, 1, 2]
    with pytest.raises(ValueError, match=r"^set_attr\('opponent', indices=\[0\]\): the lanes"):
        venv.set_attr("opponent", "random", indices=[0])
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    ended = 0
    for _ in range(400):
        obs, _, dones, infos = venv.step(pick_rows(obs, get_action_masks(venv)))
        for i in np.flatnonzero(dones):
            ended += 1
            assert infos[i]["terminal_observation"].shape == obs[i].shape
            assert infos[i]["TimeLimit.truncated"] is False
            assert infos[i]["seat"] == i and "final_scores" in infos[i]
    assert ended >= 3
    # Same seed, same first observations (the seed is used by the next reset only).
    again = BatchLearnerSB3VecEnv(3, num_players=P, rounds=ROUNDS, backend="reference")
    again.seed(9)
    first = again.reset()
    again.seed(9)
    assert np.array_equal(again.reset(), first)


def test_maskable_ppo_learns_on_the_sb3_vec_env() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from continental_env.contract.batch_vec import BatchLearnerSB3VecEnv

    venv = VecMonitor(BatchLearnerSB3VecEnv(4, num_players=P, rounds=ROUNDS, backend="reference"))
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu",
        policy_kwargs={"net_arch": [16]},
    )  # fmt: skip
    before = [p.detach().clone() for p in model.policy.parameters()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        model.learn(256)
    assert model.num_timesteps == 256
    after = list(model.policy.parameters())
    assert any(not (a == b).all() for a, b in zip(after, before, strict=True))  # it updated


def test_the_docs_snippet_runs() -> None:
    page = (ROOT / "docs" / "use-with.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", page, flags=re.S) if "batch_vec" in b]
    assert len(blocks) == 1
    exec(compile(blocks[0], "use-with.md", "exec"), {})


# ----------------------------------------------------------------------------- opponent pools


def _tagged(tag: int, calls: list[int]) -> Any:
    """A policy that records its tag for every row it decides."""

    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        calls.extend([tag] * len(obs))
        return pick_rows(obs, mask)

    return policy


def test_a_pool_gives_every_other_seat_a_player_drawn_per_game() -> None:
    calls: list[int] = []
    a, b = _tagged(1, calls), _tagged(2, calls)
    env = make(6, opponent=[a, b, "random"])
    obs, _ = env.reset(seed=3)
    players = env._seat_player.copy()
    seats = env.learner_seat
    assert all(players[i, seats[i]] == 0 for i in range(6))  # the learner's seat: unused
    drawn = {env._players[k] for i in range(6) for s in range(P) if s != seats[i]
             for k in [players[i, s]]}  # fmt: skip
    assert len(drawn) >= 2  # 12 seats drawn from three players
    redrawn = 0
    for _ in range(300):
        obs, _r, term, _t, _i = env.step(pick_rows(obs, env.action_masks()))
        redrawn += int(term.sum())
    assert redrawn and {1, 2} <= set(calls)
    again = make(6, opponent=[a, b, "random"])
    again.reset(seed=3)
    assert np.array_equal(again._seat_player, players)  # seeded through reset


def test_self_in_a_pool_plays_the_registered_snapshots() -> None:
    calls: list[int] = []
    loaded: list[str] = []

    def load(path: str) -> Any:
        loaded.append(path)
        return _tagged(7, calls)

    env = make(4, opponent=["self"], load_snapshot=load)
    obs, _ = env.reset(seed=1)
    for _ in range(5):  # no snapshot yet: "self" alone falls back to random play
        obs, *_ = env.step(pick_rows(obs, env.action_masks()))
    assert calls == []
    assert env.add_snapshot("snap-1.npz") == 1 and loaded == ["snap-1.npz"]
    obs, _ = env.reset(seed=2)
    for _ in range(5):
        obs, *_ = env.step(pick_rows(obs, env.action_masks()))
    assert calls and set(calls) == {7}
    for k in range(2, 9):
        env.add_snapshot(f"snap-{k}.npz")
    assert len(env._snapshots) == 5  # the five newest


def test_add_snapshot_without_a_loader_is_refused() -> None:
    env = make(2, opponent=["self", "random"])
    with pytest.raises(ValueError, match=r"^add_snapshot needs load_snapshot"):
        env.add_snapshot("x.npz")
