"""``scripts/paired_from_checkpoint.py --vs``: two candidates on the deals their checkpoints share."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.evaluate import evaluate
from tests.helpers import load_script


def _script():  # type: ignore[no-untyped-def]
    return load_script("paired_from_checkpoint")


def test_vs_compares_two_candidates_on_their_shared_deals(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    script = _script()
    a, b, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    ra = evaluate(["greedy", "random"], players=2, games=4, seed=3, rounds=[1], checkpoint=str(a))
    rb = evaluate(["random", "greedy"], players=2, games=3, seed=3, rounds=[1], checkpoint=str(b))
    evaluate(["greedy", "random"], players=2, games=2, seed=4, rounds=[1], checkpoint=str(other))
    _, ma = script._margins(str(a))
    _, mb = script._margins(str(b))
    assert sorted(ma) == [0, 1, 2, 3] and sorted(mb) == [0, 1, 2]
    assert sum(ma.values()) / 4 == pytest.approx(ra["paired"]["random"]["mean_diff"])
    assert sum(mb.values()) / 3 == pytest.approx(rb["paired"]["greedy"]["mean_diff"])
    assert script.main([str(a), "--vs", str(b)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("greedy - random:") and lines[0].endswith("3 deals")
    expected = sum(ma[d] - mb[d] for d in range(3)) / 3
    assert f"{expected:+.2f}" in lines[2] and "paired by deal" in lines[2]
    with pytest.raises(SystemExit, match="not the same deals"):
        script.main([str(a), "--vs", str(other)])
