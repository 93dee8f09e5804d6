"""``train.py`` / ``continental train``: a tiny run, ``--resume``, the fallback to the previous
checkpoint, Ctrl-C, and every flag checked before anything is created."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]


ENV = dict(
    os.environ,
    PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    OMP_NUM_THREADS="1",
)
TINY = [
    "--players", "3", "--rounds", "1", "--num-envs", "2", "--n-steps", "64", "--batch-size", "64",
    "--n-epochs", "1", "--net-arch", "32", "--no-progress",
]  # fmt: skip


def run_train(*args: str) -> subprocess.CompletedProcess:
    env = ENV
    result = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_train_smoke_and_resume(tmp_path: Path) -> None:
    common = [
        "--runs-dir", str(tmp_path), "--run-name", "smoke",
        "--players", "3", "--rounds", "1", "--opponents", "random,self",
        "--num-envs", "2", "--vec-env", "dummy", "--n-steps", "64", "--batch-size", "64",
        "--n-epochs", "1", "--net-arch", "32", "--no-progress",
        "--checkpoint-every", "128", "--snapshot-every", "128",
        "--eval-every", "256", "--eval-opponent", "random", "--eval-deals", "1",
    ]  # fmt: skip
    finished = run_train(*common, "--total-timesteps", "256")
    run_dir = tmp_path / "smoke"
    ckpt = run_dir / "checkpoints"
    # The run ends by saying where its model is and how to evaluate it.
    assert f"the model is {ckpt / 'last.zip'}" in finished.stdout
    assert f"continental evaluate --agents ppo:{ckpt / 'last.zip'},strong" in finished.stdout
    first = json.loads((ckpt / "last.json").read_text())
    assert first["num_timesteps"] == 256
    assert (ckpt / "last.zip").exists() and (ckpt / "best.zip").exists()
    snapshots = list((run_dir / "snapshots").glob("*.npz"))
    assert snapshots
    from agents.bots.ppo_agent import load_agent

    assert load_agent(str(snapshots[0])).meta["num_players"] == 3
    assert list(run_dir.glob("tb_*/events.out.tfevents.*"))
    assert not list(ckpt.glob(".*tmp*"))  # temporary files were moved into place
    # The checkpoint before the latest is kept; every model records what it was trained for.
    assert json.loads((ckpt / "prev.json").read_text())["num_timesteps"] == 128
    with zipfile.ZipFile(ckpt / "last.zip") as archive:
        meta = json.loads(archive.read("continental.json"))
    assert meta["env"] == "continental_v1" and meta["num_players"] == 3 and meta["rounds"] == [1]
    assert meta["obs_size"] == 1573  # the v1 observation at 3 seats (the default)

    result = run_train("--resume", str(run_dir), "--total-timesteps", "512", "--no-progress")
    assert "resuming" in result.stdout and "at step 256" in result.stdout
    second = json.loads((ckpt / "last.json").read_text())
    assert second["num_timesteps"] == 512  # continued, not restarted
    assert second["config"]["opponents"] == "random,self"  # the saved config, not the defaults
    assert second["config"]["total_timesteps"] == 512  # flags given on resume win

    from agents import make_agent
    from agents.contract.view import PlayerView
    from continental_env.contract.game import Game

    agent = make_agent(f"ppo:{ckpt / 'last.zip'}", seed=0)
    game = Game.new("continental", 3, seed=1)
    view = PlayerView(game, game.actor)
    assert agent.act(view) in view.legal_actions
    assert agent.trained_players == 3 and agent.meta["env_version"]

    # A damaged latest checkpoint falls back to the previous one instead of ending the run.
    (ckpt / "last.zip").write_bytes(b"PK\x03\x04 not really a zip")
    result = run_train("--resume", str(run_dir), "--total-timesteps", "640", "--no-progress")
    assert "last checkpoint unreadable" in result.stdout
    assert "resuming from the prev checkpoint" in result.stdout and "at step 384" in result.stdout
    assert json.loads((ckpt / "last.json").read_text())["num_timesteps"] == 640


def test_numpy_policy_matches_the_torch_policy() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from agents.bots.ppo_agent import NumpyPolicy
    from agents.train.single_agent import make_env

    env = make_env(num_players=3, rounds=[1], opponents=["random"], seed=0)
    for activation in (torch.nn.ReLU, torch.nn.Tanh):
        model = MaskablePPO(
            "MlpPolicy",
            env,
            policy_kwargs={"net_arch": [32, 32], "activation_fn": activation},
            device="cpu",
            seed=0,
        )
        agent = NumpyPolicy.from_sb3(model.policy)
        obs, _ = env.reset(seed=1)
        for _ in range(20):
            mask = env.action_masks()
            expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
            legal = np.flatnonzero(mask).tolist()
            assert agent.act_from_observation(obs, legal) == int(expected)
            obs, _, terminated, _, _ = env.step(int(expected))
            if terminated:
                obs, _ = env.reset()


def train_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from agents.train import sb3 as train

    with pytest.raises(SystemExit) as exit_info:
        train.main(args)
    return exit_info.value.code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--eval-opponent", "foo"), ("--gamma", "2"), ("--gamma", "nan"), ("--clip-range", "-1"),
        ("--num-envs", "0"), ("--batch-size", "1"), ("--net-arch", "64,x"), ("--rounds", "8"),
        ("--rounds", "one"), ("--players", "9"), ("--opponents", "greedy,nobody"),
        ("--opponents", "ppo:missing.zip"), ("--bc-teacher", "teacher"), ("--vec-env", "threads"),
        ("--activation", "gelu"), ("--seed", "-1"), ("--eval-deals", "0"), ("--learning-rate", "0"),
        ("--resume", "no/such/run"), ("--gamma", "abc"),
    ],
)  # fmt: skip
def test_every_flag_is_checked_before_anything_is_created(
    flag: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    code, err = train_main(["--runs-dir", str(runs), flag, value], capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and flag in err, err
    assert not runs.exists()  # no run directory left by a failed start


def test_a_model_for_another_table_size_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = ROOT / "agents" / "models" / "ppo_continental_4p.zip"
    code, err = train_main(["--runs-dir", str(tmp_path / "r"), "--players", "3",
                            "--opponents", f"ppo:{model}"], capsys)  # fmt: skip
    assert code == 2 and "trained for 4 players" in err and "this table has 3" in err


def test_ctrl_c_writes_the_final_checkpoint_and_exits_0(tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal sends it: workers included."""
    ckpt = tmp_path / "ctrl_c" / "checkpoints"
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--runs-dir", str(tmp_path),
         "--run-name", "ctrl_c", *TINY, "--opponents", "random", "--vec-env", "subproc",
         "--no-features",  # continental_v0 still trains
         "--checkpoint-every", "128", "--eval-every", "0", "--total-timesteps", "10000000"],
        cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.time() + 240
        while not (ckpt / "last.json").exists():  # training is under way
            assert proc.poll() is None, proc.communicate()
            assert time.time() < deadline, "no checkpoint within 240 s"
            time.sleep(0.5)
        first = json.loads((ckpt / "last.json").read_text())["num_timesteps"]
        time.sleep(1.0)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, out[-2000:] + err[-3000:]
    assert "SIGINT" in out and "stopped at step" in out
    assert "Traceback" not in err and "ConnectionResetError" not in err
    final = json.loads((ckpt / "last.json").read_text())["num_timesteps"]
    assert final >= first
    assert f"stopped at step {final}" in out


def test_a_start_that_fails_later_leaves_no_run_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.train import sb3 as train

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no environments today")

    monkeypatch.setattr(train, "make_vec_env", broken)
    # The handlers as they were before (whatever an earlier test in this worker left them).
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    with pytest.raises(RuntimeError, match="no environments today"):
        train.main(["--runs-dir", str(tmp_path), "--run-name", "doomed", *TINY])
    assert not (tmp_path / "doomed").exists()
    after = {sig: signal.getsignal(sig) for sig in before}
    assert after == before  # the stop handlers were put back


def test_a_run_from_before_v1_resumes_on_v0_and_flags_pick_the_observation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.train import sb3 as train

    saved = {"meta": {"config": {"players": 3, "opponents": "random"}}, "tag": "last",
             "skipped": []}  # fmt: skip
    monkeypatch.setattr(train, "find_checkpoint", lambda run_dir: saved)
    cfg, _, _ = train.parse_args(["--resume", str(tmp_path)])
    assert cfg.features is False  # saved without the flag: trained on continental_v0
    cfg, _, _ = train.parse_args(["--runs-dir", str(tmp_path / "r")])
    assert cfg.features is True  # a new run observes continental_v1
    assert train.run_metadata(dataclasses.asdict(cfg))["env"] == "continental_v1"
    cfg, _, _ = train.parse_args(["--runs-dir", str(tmp_path / "r"), "--no-features"])
    assert train.run_metadata(dataclasses.asdict(cfg))["env"] == "continental_v0"


def test_sigterm_to_the_process_group_writes_a_checkpoint_that_resumes(tmp_path: Path) -> None:
    """SIGTERM to the whole process group, as ``timeout``, batch schedulers and ``kill -- -PGID``
    send it: the environment workers must outlive it so the parent can save and close them."""
    run_dir = tmp_path / "term"
    ckpt = run_dir / "checkpoints"
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--runs-dir", str(tmp_path),
         "--run-name", "term", *TINY, "--opponents", "random", "--vec-env", "subproc",
         "--checkpoint-every", "128", "--eval-every", "0", "--total-timesteps", "10000000"],
        cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        while not (ckpt / "last.json").exists():  # training is under way (a hang guard below)
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, out[-2000:] + err[-3000:]
    assert "SIGTERM" in out and "EOFError" not in err and "Traceback" not in err, err[-3000:]
    final = json.loads((ckpt / "last.json").read_text())["num_timesteps"]
    assert f"stopped at step {final}" in out
    # --resume takes the checkpoint and continues the counter (in process, one environment).
    result = run_train("--resume", str(run_dir), "--vec-env", "dummy", "--progress",
                       "--total-timesteps", str(final + 256))  # fmt: skip
    assert f"at step {final}" in result.stdout
    assert json.loads((ckpt / "last.json").read_text())["num_timesteps"] == final + 256
    # The progress shows the time left (the bar on stderr, a line on stdout for logs).
    assert re.search(
        r"\[progress\] [\d,]+ / [\d,]+ steps .* about \d+:\d\d:\d\d left", result.stdout
    )


def test_the_periodic_evaluation_plays_the_training_tasks_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``best.zip`` is chosen on the task being trained: ``--rounds 1`` evaluates round 1."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from agents.evaluate import harness
    from agents.train import sb3 as train
    from agents.train.single_agent import make_env

    cfg, _given, _saved = train.parse_args(
        ["--runs-dir", str(tmp_path), "--players", "3", "--rounds", "1", "--preset",
         "continental_es", "--eval-opponent", "random", "--eval-deals", "1", "--no-progress"]
    )  # fmt: skip
    env = make_env(
        num_players=3, preset="continental_es", rounds=[1], opponents=["random"], version=1
    )
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, device="cpu", seed=0)
    model.set_logger(Logger(folder=None, output_formats=[]))
    reports = []
    real = harness.evaluate

    def recording(*args: object, **kwargs: object) -> dict:
        reports.append(real(*args, **kwargs))
        return reports[-1]

    monkeypatch.setattr(harness, "evaluate", recording)
    callback = train.TrainingCallback(cfg, tmp_path, best=None, stop=train.StopRequest())
    callback.init_callback(model)
    callback.evaluate()
    assert (
        reports[0]["config"]["rounds"] == [1] and reports[0]["config"]["preset"] == "continental_es"
    )
    assert (tmp_path / "checkpoints" / "best.zip").exists()


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--game", "knock", "--preset", "continental_us"], "--preset 'continental_us'"),
        (["--game", "fifteen", "--rounds", "1"], "--rounds '1'"),
        (["--game", "knock", "--no-features"], "--features False"),
        (["--game", "knock", "--no-round-episodes"], "--round-episodes False"),
        (["--game-options", "hands=1"], "--game-options 'hands=1'"),
        (["--side-features"], "--side-features 'v1'"),
        (["--bc-augment-suits"], "--bc-augment-suits True"),
    ],
)
def test_flags_of_another_game_are_refused_in_one_line(
    argv: list[str], flag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a tiny budget: a flag wrongly accepted trains for a moment, not 2,000,000 steps)
    tiny = ["--total-timesteps", "64", "--num-envs", "1", "--vec-env", "dummy", "--n-steps",
            "64", "--batch-size", "64", "--eval-every", "0", "--no-progress"]  # fmt: skip
    code, err = train_main(["--runs-dir", str(tmp_path / "runs"), *tiny, *argv], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert flag in err and "does not apply to --game" in err, err
    assert not (tmp_path / "runs").exists()


def test_shared_training_code_names_no_game() -> None:
    """What differs between the games comes from their ``GameSpec`` or their own modules."""
    pattern = re.compile(r"""[=!]= *["'](contract|continental|knock|fifteen)["']""")
    files = [*sorted((ROOT / "agents" / "train").glob("*.py")),
             ROOT / "continental_env" / "single_agent.py"]  # fmt: skip
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []


def test_sigterm_to_the_process_group_during_the_warm_start_stops_cleanly(tmp_path: Path) -> None:
    """The warm start's pool: a SIGTERM to the group must not end its workers mid-task (the pool
    then waited forever for their tasks); the training process stops the pool itself."""
    psutil = pytest.importorskip("psutil")
    ckpt = tmp_path / "bc" / "checkpoints"
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "train.py"), "--runs-dir", str(tmp_path), "--run-name", "bc",
         *TINY, "--opponents", "random", "--vec-env", "dummy", "--bc-teacher", "greedy",
         "--bc-samples", "100000000", "--eval-every", "0", "--total-timesteps", "10000000"],
        cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    trainer = psutil.Process(proc.pid)
    command = trainer.cmdline()
    workers: list = []
    try:
        while not workers:  # the collection is under way: forked workers, the same command line
            assert proc.poll() is None, proc.communicate()
            workers = [c for c in trainer.children() if c.cmdline() == command]
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=120)  # a hang guard: it hung for good before
    finally:
        for process in [trainer, *workers]:
            if process.is_running():
                process.kill()
    assert proc.returncode == 0, out[-2000:] + err[-3000:]
    assert "SIGTERM" in out and "Traceback" not in err, err[-3000:]
    assert "stopped at step 0" in out and (ckpt / "last.json").exists()


def _batch_core_bots() -> bool:
    from continental_env.contract.batch import _compiled_module

    module = _compiled_module()
    return module is not None and hasattr(module.Core, "bot_actions")


@pytest.mark.skipif(not _batch_core_bots(), reason="compiled batch core with bots not built")
def test_train_on_the_batch_core_with_compiled_opponents_and_resume(tmp_path: Path) -> None:
    common = [
        "--runs-dir", str(tmp_path), "--run-name", "batch", "--players", "3", "--rounds", "1",
        "--opponents", "strong,greedy,self", "--num-envs", "8", "--vec-env", "batch",
        "--n-steps", "32", "--batch-size", "64", "--n-epochs", "1", "--net-arch", "32",
        "--no-progress", "--checkpoint-every", "256", "--snapshot-every", "256", "--eval-every", "0",
    ]  # fmt: skip
    run_train(*common, "--total-timesteps", "512")
    run_dir = tmp_path / "batch"
    assert len(list((run_dir / "snapshots").glob("*.npz"))) == 2
    result = run_train("--resume", str(run_dir), "--total-timesteps", "768", "--no-progress")
    assert "at step 512" in result.stdout
    last = json.loads((run_dir / "checkpoints" / "last.json").read_text())
    assert last["num_timesteps"] == 768 and last["config"]["vec_env"] == "batch"


@pytest.mark.parametrize("opponents", ["search", "greedy,search@v5", "strong@v9"])
def test_the_batch_core_refuses_opponents_it_cannot_play(
    opponents: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    code, err = train_main(["--runs-dir", str(runs), "--vec-env", "batch", "--opponents",
                            opponents], capsys)  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--opponents" in err and not runs.exists()
