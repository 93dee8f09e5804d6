"""Checkpoints of ``continental train``: save one atomically, find the newest readable one of a
run, and restore the RNG states saved with it."""

from __future__ import annotations

import json
import os
import pickle
import random
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.bots.ppo_agent import write_zip_metadata
from agents.train.config import run_metadata

# ---------------------------------------------------------------------------------------------
# Checkpoints: a model zip plus a JSON of the counters, the config and the RNG states, each
# written to a temporary file in the same directory and moved into place with os.replace, so a
# run killed mid-write keeps its previous checkpoint. Before ``last`` is replaced, the one it
# replaces becomes ``prev``: a latest checkpoint that cannot be read (a disk error, a partial
# copy) costs one checkpoint interval, not the run.
# ---------------------------------------------------------------------------------------------
CHECKPOINT_FILES = (".json", ".zip", ".rng.pkl")  # the JSON first: it marks a whole checkpoint
RESUME_ORDER = ("last", "prev")
SB3_MEMBERS = {"data", "policy.pth"}  # what MaskablePPO.load needs in a checkpoint's zip


def save_checkpoint(
    model: MaskablePPO,
    directory: Path,
    tag: str,
    extra: dict[str, Any],
    keep_previous: bool = False,
) -> Path:
    """Write ``tag.zip``, ``tag.json`` and ``tag.rng.pkl`` atomically; returns the zip's path.

    With ``keep_previous`` the files being replaced are kept as ``prev.*`` first.
    """
    directory.mkdir(parents=True, exist_ok=True)
    cfg = extra["config"]
    pid = os.getpid()
    tmp_zip = directory / f".{tag}.{pid}.tmp.zip"
    tmp_rng = directory / f".{tag}.rng.{pid}.tmp"
    tmp_json = directory / f".{tag}.{pid}.tmp.json"
    try:
        model.save(tmp_zip)
        write_zip_metadata(tmp_zip, run_metadata(cfg))
        rng = {
            "python": random.getstate(),
            "numpy": np.random.get_state(),
            "torch": torch.get_rng_state(),
        }
        tmp_rng.write_bytes(pickle.dumps(rng))
        meta = {"num_timesteps": int(model.num_timesteps), "saved_at": time.time(), **extra}
        tmp_json.write_text(json.dumps(meta, indent=2))
    except BaseException:
        # A failed write (a full disk, a signal) leaves the previous checkpoint as it was and no
        # partial temporary file beside it.
        for tmp in (tmp_zip, tmp_rng, tmp_json):
            tmp.unlink(missing_ok=True)
        raise
    if keep_previous and (directory / f"{tag}.json").exists():
        for suffix in CHECKPOINT_FILES:
            if (directory / f"{tag}{suffix}").exists():
                os.replace(directory / f"{tag}{suffix}", directory / f"prev{suffix}")
    os.replace(tmp_zip, directory / f"{tag}.zip")
    os.replace(tmp_rng, directory / f"{tag}.rng.pkl")
    os.replace(tmp_json, directory / f"{tag}.json")
    return directory / f"{tag}.zip"


def find_checkpoint(run_dir: Path) -> dict[str, Any]:
    """The newest readable checkpoint of a run: ``{"tag", "meta", "skipped"}``.

    ValueError (one line) if the directory or every checkpoint is missing or unreadable.
    """
    if not run_dir.is_dir():
        raise ValueError(f"--resume {run_dir}: no such run directory")
    ckpt_dir = run_dir / "checkpoints"
    problems = []
    for tag in RESUME_ORDER:
        try:
            meta = json.loads((ckpt_dir / f"{tag}.json").read_text())
            if not isinstance(meta.get("config"), dict) or "num_timesteps" not in meta:
                raise ValueError("incomplete")
            with zipfile.ZipFile(ckpt_dir / f"{tag}.zip") as archive:
                bad = archive.testzip()
                if bad is not None:
                    raise ValueError(f"damaged member {bad}")
                missing = sorted(SB3_MEMBERS - set(archive.namelist()))
                if missing:
                    raise ValueError(f"not an SB3 model, no {', '.join(missing)}")
                json.loads(archive.read("data"))
            read_rng(ckpt_dir, tag)
        except FileNotFoundError:
            problems.append(f"no {tag} checkpoint")
            continue
        except (ValueError, OSError, zipfile.BadZipFile, pickle.UnpicklingError, EOFError) as exc:
            problems.append(f"{tag} checkpoint unreadable ({str(exc).splitlines()[0]})")
            continue
        return {"tag": tag, "meta": meta, "skipped": problems}
    raise ValueError(f"--resume {run_dir}: nothing to resume from: {'; '.join(problems)}")


def read_rng(directory: Path, tag: str) -> dict[str, Any] | None:
    """The RNG states saved with a checkpoint (None for a run from before they were saved);
    ValueError when the file is there but is not what ``save_checkpoint`` writes."""
    path = directory / f"{tag}.rng.pkl"
    if not path.exists():
        return None
    try:
        rng = pickle.loads(path.read_bytes())  # our own file, written by save_checkpoint
    except Exception as exc:  # a truncated or overwritten file: unpickling fails many ways
        raise ValueError(f"{path.name} unreadable ({type(exc).__name__})") from None
    if not isinstance(rng, dict) or not {"python", "numpy", "torch"} <= set(rng):
        raise ValueError(f"{path.name} holds no RNG states")
    return rng


def restore_rng(directory: Path, tag: str) -> None:
    """Restore the python, numpy and torch RNG states saved with a checkpoint."""
    rng = read_rng(directory, tag)
    if rng is not None:
        random.setstate(rng["python"])
        np.random.set_state(rng["numpy"])
        torch.set_rng_state(rng["torch"])
