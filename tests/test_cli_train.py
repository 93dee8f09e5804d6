"""``continental train``'s checkpoints and start-up checks: an unwritable ``--runs-dir`` is one
line before any training; ``--resume`` falls back to the previous checkpoint when the latest one's
RNG file or model zip is damaged in ways a zip check alone misses; a failed checkpoint write (a
full disk) leaves the previous checkpoint as it was and no temporary file."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

from agents.train import sb3 as train


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_info:
        train.main(args)
    return exit_info.value.code, capsys.readouterr().err


@pytest.mark.parametrize("where", ["under_a_file", "proc"])
def test_an_unwritable_runs_dir_is_one_line_before_training(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if where == "under_a_file":
        (tmp_path / "notes.txt").write_text("x")
        runs = str(tmp_path / "notes.txt" / "runs")
        reason = "is a file"
    else:
        runs = "/proc/continental-runs"  # no process, not even root's, may create files there
        reason = "cannot write in /proc"
    code, err = run_main(["--runs-dir", runs, "--total-timesteps", "64", "--no-progress"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"--runs-dir {runs!r}" in err and reason in err, err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through directory permissions")
def test_a_read_only_runs_dir_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    code, err = run_main(["--runs-dir", str(locked / "runs"), "--no-progress"], capsys)
    assert code == 2 and "cannot write in" in err and str(locked) in err


class TinyModel:
    """What save_checkpoint needs of a model: ``save`` and ``num_timesteps``. ``fail_after``
    bytes into a save it raises ENOSPC, as a full disk does, leaving a partial file."""

    def __init__(self, num_timesteps: int, fail_after: int | None = None) -> None:
        self.num_timesteps = num_timesteps
        self.fail_after = fail_after

    def save(self, path: Path) -> None:
        if self.fail_after is not None:
            Path(path).write_bytes(b"\0" * self.fail_after)
            raise OSError(errno.ENOSPC, "No space left on device")
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("data", json.dumps({"num_timesteps": self.num_timesteps}))
            archive.writestr("policy.pth", b"weights")


def make_run(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A run directory with checkpoints ``prev`` (step 64) and ``last`` (step 128)."""
    cfg = train.Config(runs_dir=str(tmp_path), run_name="r", players=3, rounds="1", progress=False)
    extra = {"config": dataclasses.asdict(cfg), "best_eval_diff": None}
    ckpt = tmp_path / "r" / "checkpoints"
    for steps in (64, 128):
        train.save_checkpoint(TinyModel(steps), ckpt, "last", extra, keep_previous=True)
    return tmp_path / "r", extra


def test_the_fixture_run_resumes_from_its_latest_checkpoint(tmp_path: Path) -> None:
    run_dir, _extra = make_run(tmp_path)
    found = train.find_checkpoint(run_dir)
    assert found["tag"] == "last" and found["meta"]["num_timesteps"] == 128 and not found["skipped"]


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        ("rng_truncated", "last.rng.json unreadable"),
        ("rng_foreign", "last.rng.json holds no RNG states"),
        ("zip_foreign", "not an SB3 model, no data, policy.pth"),
        ("zip_bad_data", "last checkpoint unreadable"),
    ],
)
def test_resume_falls_back_to_prev_when_the_latest_is_damaged(
    damage: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _extra = make_run(tmp_path)
    ckpt = run_dir / "checkpoints"
    if damage == "rng_truncated":
        data = (ckpt / "last.rng.json").read_bytes()
        (ckpt / "last.rng.json").write_bytes(data[: len(data) // 2])
    elif damage == "rng_foreign":
        (ckpt / "last.rng.json").write_text("[1, 2, 3]")
    else:  # a valid zip with the wrong content
        with zipfile.ZipFile(ckpt / "last.zip", "w") as archive:
            if damage == "zip_foreign":
                archive.writestr("notes.txt", "holiday photos")
            else:
                archive.writestr("data", "{not json")
                archive.writestr("policy.pth", b"weights")
    found = train.find_checkpoint(run_dir)
    assert found["tag"] == "prev" and found["meta"]["num_timesteps"] == 64
    assert any(problem in p for p in found["skipped"]), found["skipped"]
    # the command line takes the same path: no traceback, the prev checkpoint's config
    cfg, _given, saved = train.parse_args(["--resume", str(run_dir)])
    assert saved["tag"] == "prev" and cfg.players == 3


def test_resume_with_both_checkpoints_damaged_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _extra = make_run(tmp_path)
    for tag in ("last", "prev"):
        (run_dir / "checkpoints" / f"{tag}.rng.json").write_bytes(b"\x80garbage")
    code, err = run_main(["--resume", str(run_dir)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "nothing to resume from" in err and "prev.rng.json unreadable" in err


def test_a_failed_checkpoint_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    run_dir, extra = make_run(tmp_path)
    ckpt = run_dir / "checkpoints"
    before = {p.name: p.read_bytes() for p in ckpt.iterdir()}
    with pytest.raises(OSError, match="No space left"):
        train.save_checkpoint(
            TinyModel(192, fail_after=1_700_000), ckpt, "last", extra, keep_previous=True
        )
    after = {p.name: p.read_bytes() for p in ckpt.iterdir()}
    assert after == before  # no partial file, last and prev untouched
    assert train.find_checkpoint(run_dir)["meta"]["num_timesteps"] == 128


def test_a_failed_rng_write_removes_the_model_written_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir, extra = make_run(tmp_path)
    ckpt = run_dir / "checkpoints"
    before = sorted(p.name for p in ckpt.iterdir())

    def full_disk(self: Path, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full_disk)
    with pytest.raises(OSError, match="No space left"):
        train.save_checkpoint(TinyModel(192), ckpt, "last", extra, keep_previous=True)
    monkeypatch.undo()
    assert sorted(p.name for p in ckpt.iterdir()) == before


def test_a_failed_snapshot_write_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from agents.bots.ppo_agent import NumpyPolicy

    policy = NumpyPolicy([(np.ones((4, 3), np.float32), np.zeros(3, np.float32))])
    real_savez = np.savez

    def full_disk(file: str, *args: Any, **kwargs: Any) -> None:
        real_savez(file, *args, **kwargs)  # the partial file is there, then the disk fills
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", full_disk)
    with pytest.raises(OSError, match="No space left"):
        policy.save_npz(str(tmp_path / "step_0000000064.npz"))
    assert list(tmp_path.iterdir()) == []


class Touch:
    """Unpickling this creates ``path``: what a crafted pickle could do instead."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Path.touch, (str(self.path),))


def test_the_rng_states_are_json_and_a_pickle_is_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, _extra = make_run(tmp_path)
    ckpt = run_dir / "checkpoints"
    assert json.loads((ckpt / "last.rng.json").read_text())["format"] == 1  # data, not a pickle
    # An older version's checkpoint (RNG states as a pickle), here a crafted one.
    marker = tmp_path / "unpickled"
    for tag in ("last", "prev"):
        (ckpt / f"{tag}.rng.json").unlink()
        (ckpt / f"{tag}.rng.pkl").write_bytes(pickle.dumps(Touch(marker)))
    code, err = run_main(["--resume", str(run_dir)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "last.rng.pkl holds RNG states as a pickle" in err and "delete it" in err, err
    assert not marker.exists()
    (ckpt / "last.rng.pkl").unlink()  # as the message says: resumes without the RNG states
    assert train.find_checkpoint(run_dir)["tag"] == "last"


def test_the_rng_states_round_trip(tmp_path: Path) -> None:
    """``restore_rng`` puts back the python, numpy and torch generators as they were saved."""
    import random

    import numpy as np
    import torch

    run_dir, extra = make_run(tmp_path)
    ckpt = run_dir / "checkpoints"
    random.seed(5), np.random.seed(5), torch.manual_seed(5)
    train.save_checkpoint(TinyModel(192), ckpt, "last", extra, keep_previous=True)
    expected = (random.random(), np.random.random(), torch.rand(1).item())
    random.seed(6), np.random.seed(6), torch.manual_seed(6)
    train.restore_rng(ckpt, "last")
    assert (random.random(), np.random.random(), torch.rand(1).item()) == expected


def crafted_model_zip(tmp_path: Path, field: str, marker: Path) -> Path:
    """The shipped model with SB3's pickled field ``field`` replaced by a crafted pickle."""
    import base64

    src = Path(__file__).resolve().parents[1] / "agents" / "models" / "ppo_continental_4p.zip"
    path = tmp_path / f"crafted_{field}.zip"
    with zipfile.ZipFile(src) as archive, zipfile.ZipFile(path, "w") as out:
        for item in archive.infolist():
            content = archive.read(item.filename)
            if item.filename == "data":
                data = json.loads(content)
                payload = base64.b64encode(pickle.dumps(Touch(marker))).decode()
                data[field] = {":type:": "<class 'object'>", ":serialized:": payload}
                content = json.dumps(data).encode()
            out.writestr(item, content)
    return path


def test_a_model_zip_is_loaded_without_unpickling_its_fields(tmp_path: Path) -> None:
    """SB3 stores the policy class, the spaces and the schedules as pickles; ``load_model``
    supplies them all, and refuses a pickled field it does not know without reading it."""
    from agents.train.checkpoints import load_model
    from agents.train.single_agent import make_env

    env = make_env(num_players=4, rounds=[1], opponents=["random"], version=1)
    net = train.Config(net_arch="256,256")
    marker = tmp_path / "unpickled"
    for field in ("policy_class", "observation_space", "lr_schedule"):
        model = load_model(crafted_model_zip(tmp_path, field, marker), net,
                           env.observation_space, env.action_space)  # fmt: skip
        assert model.policy.action_net.out_features == env.action_space.n
    with pytest.raises(ValueError, match="pickled fields surprise are not read"):
        load_model(crafted_model_zip(tmp_path, "surprise", marker), net,
                   env.observation_space, env.action_space)  # fmt: skip
    assert not marker.exists()
