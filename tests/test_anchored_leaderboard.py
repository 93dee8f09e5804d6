"""The anchored leaderboard: candidates of evaluation reports ranked against one reference."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy import stats

from agents.evaluate import anchored
from agents.evaluate.leaderboard import main as leaderboard_main


def _report(
    path: Path,
    cand: str,
    diff: float,
    sd: float,
    deals: int,
    seed: int,
    *,
    ref: str = "strong@v1",
    players: int = 4,
    game: str = "contract",
    versions: bool = True,
    higher: bool = False,
    lineup: list[str] | None = None,
    with_sd: bool = True,
    extra: dict | None = None,
) -> str:
    half = stats.t.ppf(0.975, deals - 1) * sd / math.sqrt(deals)
    cfg = {
        "agents": [cand, ref],
        "lineup": lineup or [cand] + [ref] * (players - 1),
        "players": players,
        "deals": deals,
        "seed": seed,
        "game": game,
        "unit": "chips" if higher else "points",
        "higher_is_better": higher,
        "options": {},
        "preset": "continental" if game == "contract" else None,
        "rounds": [1, 2, 3, 4, 5, 6, 7] if game == "contract" else None,
    }
    if versions:
        cfg["versions"] = {cand: cand, ref: ref}
    paired = {"mean_diff": diff, "ci95": [diff - half, diff + half]}
    if with_sd:
        paired["sd_per_deal"] = sd
    report = {"schema": "continental-eval/1", "config": cfg, "paired": {ref: paired}}
    report.update(extra or {})
    report["timing"] = {"cpu_s_per_game": 1.5}
    path.write_text(json.dumps(report))
    return str(path)


def test_rows_ranked_with_the_reference_and_welch_intervals(tmp_path: Path) -> None:
    a = _report(tmp_path / "a.json", "search@v3", -18.8, 43.6, 600, 1)
    b = _report(tmp_path / "b.json", "search@v2", -12.5, 43.1, 600, 2)
    c = _report(tmp_path / "c.json", "worse", +4.0, 60.0, 300, 3)
    board = anchored.anchored_leaderboard([c, a, b])
    rows = board["rows"]
    assert [r["version"] for r in rows] == ["search@v3", "search@v2", "strong@v1", "worse"]
    # Two candidates on independent deals: Welch's test, computed here by scipy from the stats.
    nxt = rows[0]["vs_next"]
    assert nxt["mean_diff"] == pytest.approx(-6.3)
    _, p = stats.ttest_ind_from_stats(-18.8, 43.6, 600, -12.5, 43.1, 600, equal_var=False)
    assert nxt["separated"] == (p < 0.05) and nxt["separated"]
    lo, hi = nxt["ci95"]
    se = math.sqrt(43.6**2 / 600 + 43.1**2 / 600)
    assert (hi - lo) / 2 == pytest.approx(stats.t.ppf(0.975, 1197) * se, rel=1e-3)
    assert nxt["paired"] is False
    # Next to the reference: the candidate's own paired interval, signed as "row minus next".
    to_ref = rows[1]["vs_next"]
    assert to_ref["paired"] and to_ref["ci95"] == pytest.approx(rows[1]["ci95"])
    below = rows[2]["vs_next"]  # the reference minus "worse"
    assert below["mean_diff"] == pytest.approx(-4.0)
    assert below["ci95"] == pytest.approx([-rows[3]["ci95"][1], -rows[3]["ci95"][0]])
    assert not below["separated"]  # +4 at SD 60 over 300 deals: the interval holds 0
    assert "vs_next" not in rows[3]
    table = anchored.markdown(board)
    assert "`strong@v1` (reference)" in table and "**not separated**" in table


def test_close_candidates_are_not_separated(tmp_path: Path) -> None:
    a = _report(tmp_path / "a.json", "x", -3.3, 53.7, 600, 1)
    b = _report(tmp_path / "b.json", "y", -3.0, 34.3, 640, 2)
    nxt = anchored.anchored_leaderboard([a, b])["rows"][0]["vs_next"]
    _, p = stats.ttest_ind_from_stats(-3.3, 53.7, 600, -3.0, 34.3, 640, equal_var=False)
    assert p > 0.05 and not nxt["separated"]


def test_chips_rank_highest_first(tmp_path: Path) -> None:
    kw = {"ref": "greedy", "game": "knock", "higher": True}
    a = _report(tmp_path / "a.json", "strong", 6.1, 91, 1000, 1, **kw)
    b = _report(tmp_path / "b.json", "ppo:m.zip", 1.6, 89, 1000, 2, **kw)
    c = _report(tmp_path / "c.json", "worse", -20.0, 90, 1000, 3, **kw)
    rows = anchored.anchored_leaderboard([b, c, a])["rows"]
    assert [r["version"] for r in rows] == ["strong", "ppo:m.zip", "greedy", "worse"]
    # "row minus the next": positive where the row is ahead in chips
    assert rows[0]["vs_next"]["mean_diff"] == pytest.approx(4.5)
    assert rows[1]["vs_next"]["mean_diff"] == pytest.approx(1.6)
    assert rows[1]["vs_next"]["ci95"] == pytest.approx(rows[1]["ci95"])
    assert rows[2]["vs_next"]["mean_diff"] == pytest.approx(20.0)
    assert rows[2]["vs_next"]["ci95"] == pytest.approx([-rows[3]["ci95"][1], -rows[3]["ci95"][0]])
    assert rows[2]["vs_next"]["separated"]


def test_sd_recovered_from_an_older_reports_interval(tmp_path: Path) -> None:
    old = _report(tmp_path / "old.json", "x", -3.3, 34.3, 640, 1, with_sd=False)
    row = anchored.read_report(old)
    assert "sd_per_deal" not in json.loads(Path(old).read_text())["paired"]["strong@v1"]
    assert row["sd_per_deal"] == pytest.approx(34.3)


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda r: r["config"].pop("seed"), "lacks or mangles a field"),
        (lambda r: r["paired"].clear(), "lacks or mangles a field"),
        (lambda r: r["config"].update(deals=1), "1 deal"),
        (lambda r: r.update(sequential={"decision": "H1"}), "sequential test"),
        (lambda r: r["config"].update(lineup=["strong@v1", "x", "x", "x"]), "not one candidate"),
    ],
)
def test_broken_reports_are_refused_by_name(tmp_path: Path, mangle, message: str) -> None:
    path = tmp_path / "r.json"
    _report(path, "x", -3.0, 40.0, 100, 1)
    report = json.loads(path.read_text())
    mangle(report)
    path.write_text(json.dumps(report))
    with pytest.raises(ValueError, match=message) as err:
        anchored.anchored_leaderboard([str(path)])
    assert "r.json" in str(err.value)
    with pytest.raises(ValueError, match="cannot be read"):
        anchored.anchored_leaderboard([str(tmp_path / "missing.json")])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ref": "greedy"}, "a ranking needs one reference"),
        ({"players": 3}, "its players is 3"),
        ({"lineup": ["z", "strong@v1", "greedy", "strong@v1"]}, "not one candidate against one"),
        ({"cand": "search@v3"}, "already ranked"),
        ({"cand": "strong@v1"}, "the reference 'strong@v1' itself"),
    ],
)
def test_reports_that_do_not_fit_are_refused(tmp_path: Path, kwargs: dict, message: str) -> None:
    a = _report(tmp_path / "a.json", "search@v3", -18.8, 43.6, 600, 1)
    cand = kwargs.pop("cand", "z")
    b = _report(tmp_path / "b.json", cand, -1.0, 40.0, 200, 2, **kwargs)
    with pytest.raises(ValueError, match=message) as err:
        anchored.anchored_leaderboard([a, b])
    assert "b.json" in str(err.value)


def test_a_report_without_versions_needs_them_assumed(tmp_path: Path) -> None:
    old = _report(
        tmp_path / "old.json", "search", -3.3, 34.3, 640, 2027, ref="strong", versions=False
    )
    new = _report(tmp_path / "new.json", "search@v3", -18.8, 43.6, 600, 1)
    with pytest.raises(ValueError, match=r"'search', 'strong'.*--assume-version"):
        anchored.anchored_leaderboard([new, old])
    board = anchored.anchored_leaderboard(
        [new, old], {"strong": "strong@v1", "search": "search@v1"}
    )
    row = next(r for r in board["rows"] if r.get("version") == "search@v1")
    table = anchored.markdown(board)
    assert row["assumed_version"] and "`search@v1` (version assumed)" in table
    assert board["config"]["reference_assumed_in"] == [old]
    assert "version assumed in some reports" in table
    # a model's row from such a report names its file and says the report predates versions
    ppo = _report(tmp_path / "p.json", "ppo:m.zip", -0.4, 58, 2000, 7, ref="strong", versions=False)
    table = anchored.markdown(anchored.anchored_leaderboard([new, ppo], {"strong": "strong@v1"}))
    assert "`ppo:m.zip` (the report predates versions)" in table
    # an assumption no report uses is refused
    with pytest.raises(ValueError, match="'serach'"):
        anchored.anchored_leaderboard(
            [new, old], {"strong": "strong@v1", "search": "search@v1", "serach": "x"}
        )
    # assuming the reference wrongly does not pass: it no longer matches the others'
    with pytest.raises(ValueError, match="one reference"):
        anchored.anchored_leaderboard([new, old], {"strong": "strong@v2", "search": "search@v1"})


def test_not_a_report(tmp_path: Path) -> None:
    p = tmp_path / "lb.json"
    p.write_text(json.dumps({"schema": "continental-leaderboard/1"}))
    with pytest.raises(ValueError, match="not a `continental evaluate` report"):
        anchored.anchored_leaderboard([str(p)])


def test_command_line_writes_table_json_and_plot(tmp_path: Path, capsys) -> None:
    a = _report(tmp_path / "a.json", "search@v3", -18.8, 43.6, 600, 1)
    b = _report(tmp_path / "b.json", "strong@v2", -3.3, 53.7, 600, 2)
    out = tmp_path / "board"
    rc = leaderboard_main(
        [
            "--reports",
            a,
            b,
            "--json",
            f"{out}.json",
            "--markdown",
            f"{out}.md",
            "--plot",
            f"{out}.png",
        ]
    )
    assert rc == 0
    saved = json.loads(Path(f"{out}.json").read_text())
    assert saved["schema"] == anchored.SCHEMA
    assert [r["version"] for r in saved["rows"]] == ["search@v3", "strong@v2", "strong@v1"]
    assert Path(f"{out}.md").read_text() == capsys.readouterr().out
    assert Path(f"{out}.png").stat().st_size > 1000
    capsys.readouterr()
    for argv, message in (
        (["--reports", a, "--agents", "greedy,strong"], "either --agents"),
        (["--reports", a, "--assume-version", "strong"], "expected NAME=VERSION"),
        (["--reports", a, "--assume-version", "a=b=c"], "expected NAME=VERSION"),
        (["--reports", a, "--players", "3"], "--players plays games"),
    ):
        with pytest.raises(SystemExit):
            leaderboard_main(argv)
        assert message in capsys.readouterr().err


def test_the_projects_decisive_reports_rank() -> None:
    """The shipped reports of decisive runs against three strong@v1 fit together."""
    root = Path(__file__).resolve().parents[1] / "results"
    board = anchored.anchored_leaderboard(
        [str(root / "search_v3_vs_strong_v1.json"), str(root / "strength_v2_vs_v1.json")]
    )
    assert [r["version"] for r in board["rows"]] == ["search@v3", "strong@v2", "strong@v1"]
    assert board["rows"][0]["vs_next"]["separated"]
