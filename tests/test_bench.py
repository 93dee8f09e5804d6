"""``continental bench --compare-openspiel``: its output, its message without OpenSpiel, its
argument checks. (Throughput figures come from running the benchmark, not from tests.)"""

from __future__ import annotations

import re
import sys

import pytest

from continental_env import bench


def test_compare_without_openspiel_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` raises ImportError
    assert bench.main(["--compare-openspiel", "--seconds", "0.01", "--repeats", "1"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [
        "OpenSpiel is not installed (pip install 'continental-rl[compare]'): no comparison made"
    ]


def test_compare_prints_both_rates_and_their_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    argv = ["--compare-openspiel", "--players", "3", "--seconds", "0.05", "--repeats", "2"]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    match = re.search(
        r"continental 3p ([\d,]+) decisions/s, openspiel gin_rummy ([\d,]+) decisions/s; "
        r"ratio \(median of the passes' ratios\) ([\d.]+)x",
        last,
    )
    assert match, out
    ours, theirs = (int(g.replace(",", "")) for g in match.groups()[:2])
    assert ours > 0 and theirs > 0
    assert out.count("pass ") == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["--compare-openspiel", "--game", "fifteen"],
        ["--compare-openspiel", "--seconds", "0"],
        ["--compare-openspiel", "--players", "9"],
    ],
)
def test_compare_refuses_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(argv)
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err
