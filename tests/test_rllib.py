"""Ray RLlib training (``pytest -m rllib``, in the ``[rllib]`` virtualenv; skipped without ray).

One short masked self-play run (two iterations, one round, a small network) is shared by the
tests: it is resumed, exported, checked against the torch module, loaded through
``make_agent("rllib:PATH")`` and evaluated through the harness.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is the [rllib] extra (constraints-rllib.txt)")

from agents import make_agent
from agents.bots.rllib_agent import RUN_POLICY
from agents.evaluate.harness import evaluate
from agents.rllib.train import (
    SELF,
    ContinentalMultiAgentEnv,
    actor_weights,
    build_config,
    main,
    make_aec_env,
    module_logits,
)

pytestmark = pytest.mark.rllib

RUN_ARGS = [
    "--players", "4", "--rounds", "1", "--opponents", "self,snapshots,greedy",
    "--num-env-runners", "0", "--num-envs-per-runner", "2", "--train-batch-size", "256",
    "--minibatch-size", "128", "--num-epochs", "1", "--hidden", "32,32", "--seed", "3",
    "--cpus", "1",
]  # fmt: skip


@pytest.fixture(scope="module")
def ray_session():
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory, ray_session) -> Path:
    """Two iterations of masked self-play against snapshots and greedy."""
    runs = tmp_path_factory.mktemp("runs")
    assert main([*RUN_ARGS, "--iterations", "2", "--runs-dir", str(runs), "--run-name", "r"]) == 0
    return runs / "r"


def test_two_iterations_write_a_checkpoint_a_pool_and_an_export(run_dir: Path) -> None:
    lines = [json.loads(x) for x in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1, 2]
    assert lines[-1]["env_steps"] >= 2 * 256
    assert lines[-1]["pool_size"] >= 1  # the first snapshot is frozen after the first iteration
    assert "greedy" in lines[-1]["margins"]  # games against greedy seats were played and logged
    assert (run_dir / "checkpoints" / "latest" / "rllib_checkpoint.json").is_file()
    assert (run_dir / RUN_POLICY).is_file()
    assert sorted(os.listdir(run_dir / "snapshots"))[0] == "000001.npz"


def test_the_trained_policy_plays_through_the_harness(run_dir: Path) -> None:
    report = evaluate([f"rllib:{run_dir}", "random"], players=4, games=2, seed=5, rounds=[1])
    me = report["agents"][f"rllib:{run_dir}"]
    assert me["games"] == 2 * 4  # every duplicate deal in every seating, with legal moves only
    assert report["paired"]["random"]["ci95"][0] <= report["paired"]["random"]["mean_diff"]


def test_make_agent_loads_it_and_refuses_another_table(run_dir: Path) -> None:
    agent = make_agent(f"rllib:{run_dir}", seed=0)
    assert agent.meta["trainer"] == "rllib" and agent.meta["num_players"] == 4
    with pytest.raises(ValueError, match="trained for 4 players"):
        evaluate([f"rllib:{run_dir}", "random"], players=3, games=1)
    ckpt = make_agent(f"rllib:{run_dir}/checkpoints/latest", seed=0)
    assert [w.shape for w, _ in ckpt.weights] == [w.shape for w, _ in agent.weights]


def test_bad_rllib_paths_are_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such run directory"):
        make_agent(f"rllib:{tmp_path}/missing")
    with pytest.raises(ValueError, match="no exported policy"):
        make_agent(f"rllib:{tmp_path}")


def test_the_export_computes_the_modules_logits(run_dir: Path, ray_session) -> None:
    cfg = json.loads((run_dir / "run.json").read_text())
    algo = build_config(cfg, str(run_dir)).build_algo()
    try:
        algo.restore_from_path(str((run_dir / "checkpoints" / "latest").resolve()))
        module = algo.get_module("learner")
        env = make_aec_env(cfg)
        env.reset(seed=11)
        obs, masks = [], []
        rng = np.random.default_rng(0)
        for _ in range(30):
            o = env.observe(env.agent_selection)
            obs.append(o["observations"])
            masks.append(o["action_mask"])
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
        torch_logits = module_logits(module, np.array(obs), np.array(masks))
        agent = make_agent(f"rllib:{run_dir}")
        legal = np.array(masks) > 0
        numpy_logits = np.array([agent.logits(x) for x in obs])
        np.testing.assert_allclose(numpy_logits[legal], torch_logits[legal], rtol=1e-4, atol=1e-4)
        assert np.all(torch_logits[~legal] < -1e30)  # the mask: illegal actions get no mass
        weights, _ = actor_weights(module)
        assert len(weights) == 3  # two hidden layers and the action head
    finally:
        algo.stop()


def test_resume_continues_the_counters(run_dir: Path) -> None:
    assert main(["--resume", str(run_dir), "--iterations", "3"]) == 0
    lines = [json.loads(x) for x in (run_dir / "progress.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1, 2, 3]
    assert lines[2]["env_steps"] > lines[1]["env_steps"]
    assert (run_dir / "checkpoints" / "prev").is_dir()


def test_rllib_sees_only_the_learner_seats_and_gets_their_whole_reward() -> None:
    """Against greedy seats, RLlib acts for one seat; its rewards add up to its relative score."""
    env = ContinentalMultiAgentEnv(
        {
            "players": 3,
            "preset": "continental",
            "rounds": [1, 2],
            "opponents": ["greedy"],
            "seed": 4,
        }
    )
    obs, _ = env.reset()
    (learner,) = env.learner_seats
    seat = env.env.unwrapped.agent_name_mapping[learner]
    assert env.seat_roles.count(SELF) == 1 and set(obs) == {learner}
    assert set(obs[learner]) == {"observations", "action_mask"}
    assert obs[learner]["action_mask"].dtype == np.float32
    total, steps = 0.0, 0
    rng = np.random.default_rng(1)
    while True:
        (agent,) = obs
        assert agent == learner
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, rew, term, trunc, infos = env.step({agent: action})
        assert set(rew) <= {learner}
        total += sum(rew.values())
        steps += 1
        if term["__all__"] or trunc["__all__"]:
            break
    scores = env.env.unwrapped.game.scores
    others = [s for i, s in enumerate(scores) if i != seat]
    assert total == pytest.approx((sum(others) / len(others) - scores[seat]) / 100)
    assert infos[learner]["game"]["margin_per_round"]["greedy"] == pytest.approx(
        (sum(others) / len(others) - scores[seat]) / 2
    )
    assert steps > 5


def test_an_unreachable_cluster_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--address", "127.0.0.1:1", "--runs-dir", str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("continental train-rllib: error: --address '127.0.0.1:1'"), err
    assert len(err.splitlines()) == 1 and list(tmp_path.iterdir()) == []
