"""Checkpoints of ``continental train``: save one atomically, find the newest readable one of a
run, restore the RNG states saved with it, and load a model zip without unpickling it."""

from __future__ import annotations

import base64
import json
import os
import random
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.bots.ppo_agent import write_zip_metadata
from agents.train.config import Config, parse_ints, run_metadata

# ---------------------------------------------------------------------------------------------
# Checkpoints: a model zip plus a JSON of the counters, the config and the RNG states, each
# written to a temporary file in the same directory and moved into place with os.replace, so a
# run killed mid-write keeps its previous checkpoint. Before ``last`` is replaced, the one it
# replaces becomes ``prev``: a latest checkpoint that cannot be read (a disk error, a partial
# copy) costs one checkpoint interval, not the run.
# ---------------------------------------------------------------------------------------------
CHECKPOINT_FILES = (".json", ".zip", ".rng.json")  # the JSON first: it marks a whole checkpoint
OLD_RNG = ".rng.pkl"  # the RNG states as a pickle, as older versions wrote them: never read
RNG_FORMAT = 1
RESUME_ORDER = ("last", "prev")
SB3_MEMBERS = {"data", "policy.pth"}  # what MaskablePPO.load needs in a checkpoint's zip


def save_checkpoint(
    model: MaskablePPO,
    directory: Path,
    tag: str,
    extra: dict[str, Any],
    keep_previous: bool = False,
) -> Path:
    """Write ``tag.zip``, ``tag.json`` and ``tag.rng.json`` atomically; returns the zip's path.

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
        tmp_rng.write_bytes(json.dumps(rng_state()).encode())
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
    os.replace(tmp_rng, directory / f"{tag}.rng.json")
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
        except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
            problems.append(f"{tag} checkpoint unreadable ({str(exc).splitlines()[0]})")
            continue
        return {"tag": tag, "meta": meta, "skipped": problems}
    raise ValueError(f"--resume {run_dir}: nothing to resume from: {'; '.join(problems)}")


def rng_state() -> dict[str, Any]:
    """The python, numpy and torch RNG states as JSON data (lists, numbers, base64 text)."""
    version, internal, gauss = random.getstate()
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    return {
        "format": RNG_FORMAT,
        "python": [version, list(internal), gauss],
        "numpy": [kind, [int(k) for k in keys], int(pos), int(has_gauss), float(cached)],
        "torch": base64.b64encode(torch.get_rng_state().numpy().tobytes()).decode("ascii"),
    }


def read_rng(directory: Path, tag: str) -> dict[str, Any] | None:
    """The RNG states saved with a checkpoint, ready for ``restore_rng`` (None for a run from
    before they were saved); ValueError when the file is not what ``save_checkpoint`` writes,
    or is the pickle of an older version (never unpickled: a crafted one runs code)."""
    path = directory / f"{tag}.rng.json"
    old = directory / f"{tag}{OLD_RNG}"
    if not path.exists():
        if old.exists():
            raise ValueError(
                f"{old.name} holds RNG states as a pickle (an older version's), which is not "
                f"read since a pickle can run code; delete it to resume without them"
            )
        return None
    try:
        data = json.loads(path.read_bytes())
    except ValueError as exc:  # a truncated or overwritten file
        raise ValueError(f"{path.name} unreadable ({type(exc).__name__})") from None
    try:
        version, internal, gauss = data["python"]
        kind, keys, pos, has_gauss, cached = data["numpy"]
        if data["format"] != RNG_FORMAT or len(internal) != 625 or len(keys) != 624:
            raise ValueError("another format")
        torch_state = bytearray(base64.b64decode(data["torch"]))
        rng = {
            "python": (int(version), tuple(int(x) for x in internal), gauss),
            "numpy": (str(kind), np.array(keys, np.uint32), int(pos), int(has_gauss), cached),
            "torch": torch.frombuffer(torch_state, dtype=torch.uint8),
        }
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"{path.name} holds no RNG states ({type(exc).__name__})") from None
    return rng


def restore_rng(directory: Path, tag: str) -> None:
    """Restore the python, numpy and torch RNG states saved with a checkpoint."""
    rng = read_rng(directory, tag)
    if rng is not None:
        random.setstate(rng["python"])
        np.random.set_state(rng["numpy"])
        torch.set_rng_state(rng["torch"])


# ---------------------------------------------------------------------------------------------
# Loading a model zip. SB3 stores some fields of a model's ``data`` as pickles (the policy class
# and its keyword arguments, the spaces, the schedules, the rollout buffer class), and
# ``MaskablePPO.load`` unpickles every one that ``custom_objects`` does not supply; the weights
# (``*.pth``) it reads with ``torch.load(weights_only=True)``. ``load_model`` supplies them all,
# rebuilt from the run's configuration (a checkpoint's rollout state is dropped), so nothing in
# the zip is unpickled.
# ---------------------------------------------------------------------------------------------
def policy_kwargs(cfg: Config) -> dict[str, Any]:
    """The policy's network: ``--net-arch`` for both heads, ``--activation``."""
    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[cfg.activation]
    hidden = parse_ints(cfg.net_arch)
    return {"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": activation}


def policy_class(cfg: Config) -> type:
    """MaskablePPO's policy with a lean rollout step, with the KL penalty under ``--kl-coef``."""
    from agents.train.kl_ppo import KLPolicy, LeanPolicy

    return KLPolicy if cfg.kl_coef > 0 else LeanPolicy


def load_model(
    path: Path | str,
    net: Config,
    observation_space: Any,
    action_space: Any,
    env: Any = None,
    **hyper: Any,
) -> MaskablePPO:
    """``MaskablePPO.load`` with every pickled field supplied: the policy of ``net``'s
    ``--net-arch``, ``--activation`` and ``--kl-coef``, the given spaces, PPO's ``hyper``
    parameters; the schedules and the rollout buffer are rebuilt. ValueError naming a pickled
    field this does not know (it is not read)."""
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    supplied: dict[str, Any] = {
        "policy_class": policy_class(net),
        "policy_kwargs": policy_kwargs(net),
        "observation_space": observation_space,
        "action_space": action_space,
        "lr_schedule": None,  # rebuilt from learning_rate
        "rollout_buffer_class": None,  # MaskablePPO's own
        "clip_range": net.clip_range,
        # A checkpoint taken during ``learn`` also holds the rollout's last observations and
        # the recent episodes' stats: ``learn`` resets the environments and starts them afresh.
        "_last_obs": None,
        "_last_episode_starts": None,
        "_last_original_obs": None,
        "ep_info_buffer": None,
        "ep_success_buffer": None,
        **hyper,
    }
    pickled = sorted(
        key
        for key, value in data.items()
        if isinstance(value, dict) and ":serialized:" in value and key not in supplied
    )
    if pickled:
        raise ValueError(f"{path}: pickled fields {', '.join(pickled)} are not read")
    return MaskablePPO.load(path, env=env, device="cpu", custom_objects=supplied)
