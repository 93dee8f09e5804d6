"""``continental speed``: options checked before any work, the baseline unpacked from git, the
table's ratios oriented so that above 1 is faster."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agents import speed

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "argv",
    [["--rows", "nope"], ["--rows", ","], ["--deals", "0"], ["--aec-passes", "0"]],
)
def test_bad_options_are_refused_before_any_work(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        speed.main(argv)
    assert exc.value.code == 2
    assert "continental speed: error" in capsys.readouterr().err


def test_an_unknown_revision_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        speed.main(["--against", "no-such-revision-xyz", "--rows", "evaluate"])
    err = capsys.readouterr().err
    assert "no-such-revision-xyz" in err and f"not a revision of {ROOT}" in err


def test_the_tree_measured_is_this_checkout() -> None:
    assert speed.REPO == ROOT and (speed.REPO / "pyproject.toml").is_file()


def test_unpack_gives_the_revisions_files(tmp_path: Path) -> None:
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse"], capture_output=True).returncode:
        pytest.skip("not a git checkout")
    short = speed.unpack("HEAD", ROOT, tmp_path)
    assert (tmp_path / "agents" / "speed.py").is_file()
    assert list((tmp_path / "continental_env").glob("_kernels*.so"))  # built, as installs do
    assert short and all(c in "0123456789abcdef" for c in short)


def test_the_table_orients_every_ratio_as_a_speed_up() -> None:
    results = {
        "search": {
            "base": {"value": 2.0, "unit": "CPU s per game", "higher_is_better": False},
            "head": {"value": 0.5, "unit": "CPU s per game", "higher_is_better": False},
        },
        "evaluate": {
            "base": {"value": 10.0, "unit": "games per CPU-s"},
            "head": {"value": 25.0, "unit": "games per CPU-s"},
        },
        "aec": {
            "base": {"value": 9.0, "unit": "decisions", "openspiel": 10.0, "vs_openspiel": 0.9},
            "head": {"value": 11.0, "unit": "decisions", "openspiel": 10.0, "vs_openspiel": 1.1},
        },
        "ppo": {"base": {"error": "exit 1: boom"}, "head": {"value": 1.0, "unit": "g"}},
    }
    lines, rows = speed.table(results, "aaa", "bbb")
    by_row = {r["row"]: r for r in rows}
    assert by_row["search"]["speedup"] == pytest.approx(4.0)  # 4x less CPU per game
    assert by_row["evaluate"]["speedup"] == pytest.approx(2.5)
    assert "speedup" not in by_row["ppo"]
    assert by_row["aec"]["speedup"] == pytest.approx(1.1 / 0.9)  # against the yardstick
    text = "\n".join(lines)
    assert "CPU per game 0.25x" in text and "0.90x -> **1.10x**" in text and "boom" in text


def test_each_side_takes_the_median_of_its_runs() -> None:
    runs = [
        {"value": 3.0, "unit": "u", "vs_openspiel": 0.7},
        {"value": 1.0, "unit": "u", "vs_openspiel": 0.9},
    ]
    merged = speed._median_run(runs)
    assert merged["value"] == 2.0 and merged["vs_openspiel"] == pytest.approx(0.8)
    assert merged["runs"] == [3.0, 1.0]
    assert "error" in speed._median_run([*runs, {"error": "exit 1"}])


def test_the_selfplay_row_sets_the_trainer_against_the_baseline_flagship_recipe(
    monkeypatch,
) -> None:
    calls = []

    def fake_measure(tree: Path, row: str, args, recipe: str, ablate: str = "") -> dict:
        calls.append((tree.name, row, recipe))
        return {"value": 10.0 if tree.name == "head" else 1.0, "unit": "learner steps per CPU-s"}

    monkeypatch.setattr(speed, "measure", fake_measure)
    args = speed.build_parser().parse_args(["--rows", "selfplay,train", "--baseline-recipe", "B"])
    results = speed._measure_rows(["selfplay", "train"], args, Path("head"), Path("base"))
    assert ("base", "train", "B") in calls and ("head", "selfplay", args.recipe) in calls
    assert ("base", "selfplay", "B") not in calls  # the baseline may predate the trainer
    assert calls.count(("base", "train", "B")) == 2  # once for each row
    lines, rows = speed.table(results, "base", "head")
    assert rows[0]["speedup"] == 10.0 and "self-play trainer" in lines[2]
    # The row itself runs the trainer's own command line, which refuses a bad flag first.
    with pytest.raises(SystemExit):
        speed.row_selfplay("--num-games 0")
