"""``scripts/belief_calibration.py``: the history build writes a table the sampler reads (its
distance part is the plain build's), and the check reports what the resampled hands buy."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agents.contract.beliefs import EXCESS_BINS, MAX_DISTANCE, STAGES, BeliefSampler
from tests.helpers import load_script


def _script():  # type: ignore[no-untyped-def]
    return load_script("belief_calibration")


def test_history_build_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = _script()
    plain, history = tmp_path / "plain.json", tmp_path / "history.json"
    assert script.main(["build", "--games", "1", "--seed", "3", "--out", str(plain)]) == 0
    argv = ["build", "--history", "--games", "1", "--seed", "3", "--out", str(history)]
    assert script.main(argv) == 0
    a, b = json.loads(plain.read_text()), json.loads(history.read_text())
    assert "joint" not in a and a["ratios"] == b["ratios"]  # the same games, the same distances
    grid = b["joint"]["1"]["0"]
    assert len(b["joint"]) == 7 and len(b["joint"]["7"]) == STAGES
    assert len(grid) == MAX_DISTANCE + 1 and all(len(row) == EXCESS_BINS for row in grid)
    real = b["joint_counts"]["real"]  # [round][stage][distance][excess bins + "no history"]
    assert sum(map(sum, real[0][0])) > 0 and all(x > 0 for row in grid for x in row)
    capsys.readouterr()

    table = script.load_table  # the check reads packaged tables by name: use the packaged one
    assert BeliefSampler(4, table("belief_history_v1.json"), history=True).history
    argv = ["check", "--games", "1", "--seed", "4", "--candidates", "4", "--history",
            "--table", "belief_history_v1.json"]  # fmt: skip
    assert script.main(argv) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip().startswith("all")}
    assert "mean excess partners" in out and "shared with the real hand" in out
    shared = [float(x) for x in out.strip().splitlines()[-1].split()[-3::2]]
    assert len(shared) == 2 and all(x >= 0 and not math.isnan(x) for x in shared)
    assert lines  # every table ends with its "all" row
