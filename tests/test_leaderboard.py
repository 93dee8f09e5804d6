"""The leaderboard: round-robin tables, per-agent statistics, independence from --jobs."""

from __future__ import annotations

import json

import pytest

from agents.evaluate.leaderboard import leaderboard, main, markdown, tables


def test_tables_are_every_subset_or_the_cyclic_lineup() -> None:
    assert tables(["a", "b", "c", "d", "e"], 4) == [
        ["a", "b", "c", "d"],
        ["a", "b", "c", "e"],
        ["a", "b", "d", "e"],
        ["a", "c", "d", "e"],
        ["b", "c", "d", "e"],
    ]
    assert tables(["a", "b"], 4) == [["a", "b", "a", "b"]]
    with pytest.raises(ValueError, match="twice"):
        tables(["a", "a"], 4)


def test_report_is_independent_of_jobs_and_statistics_are_sound() -> None:
    args = (["random", "greedy", "strong"], 3)
    one = leaderboard(*args, players=3, seed=5, jobs=1)
    two = leaderboard(*args, players=3, seed=5, jobs=2)
    one.pop("timing"), two.pop("timing")
    one["config"].pop("jobs"), two["config"].pop("jobs")
    assert one == two
    rows = one["agents"]
    assert sum(r["games"] for r in rows.values()) == one["config"]["games"] * 3
    for r in rows.values():
        lo, hi = r["win_rate_ci95"]
        assert 0.0 <= lo <= r["win_rate"] <= hi <= 1.0
        plo, phi = r["mean_points_ci95"]
        assert plo <= r["mean_points"] <= phi
    # Win shares of a game sum to one: the rates, weighted by games, add up to the game count.
    total = sum(r["win_rate"] * r["games"] for r in rows.values())
    assert total == pytest.approx(one["config"]["games"])
    assert one["ranking"][-1] == "random"
    assert one["agents"]["random"]["openskill"]["ordinal"] < rows["strong"]["openskill"]["ordinal"]
    other = leaderboard(*args, players=3, seed=6, jobs=1)
    assert other["agents"] != one["agents"]  # the seed matters


def test_command_writes_json_markdown_and_plot(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "lb.json"
    md = tmp_path / "lb.md"
    png = tmp_path / "lb.png"
    argv = ["--agents", "random,greedy", "--players", "2", "--deals", "2", "--no-progress"]
    argv += ["--json", str(out), "--markdown", str(md), "--plot", str(png)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["schema"] == "continental-leaderboard/1"
    assert md.read_text() == markdown(report) and "| 1 |" in md.read_text()
    assert png.stat().st_size > 1000
    assert "greedy" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "nope"], "unknown agent"),
        (["--agents", "random,random"], "twice"),
        (["--agents", "random", "--deals", "1"], "at least 2 deals"),
        (["--agents", "random", "--jobs", "0"], "--jobs"),
        (["--agents", "random"], "--agents random: a leaderboard ranks agents against each other"),
    ],
)
def test_bad_input_is_one_line(argv: list[str], message: str, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_continental_command_runs_the_leaderboard(capsys) -> None:  # type: ignore[no-untyped-def]
    from agents import cli

    argv = ["leaderboard", "--agents", "greedy,random", "--players", "2", "--deals", "2"]
    assert cli.main([*argv, "--no-progress"]) == 0
    assert "| `greedy` |" in capsys.readouterr().out


def test_rows_name_versions_and_say_whether_neighbours_separate() -> None:
    report = leaderboard(["random", "greedy", "strong"], 3, players=3, seed=5)
    rows = report["agents"]
    assert rows["strong"]["version"] == "strong@v1" and rows["random"]["version"] == "random"
    first, second, last = report["ranking"]
    nxt = rows[first]["vs_next"]
    assert nxt["agent"] == second and "vs_next" not in rows[last]
    lo, hi = nxt["ci95"]
    assert lo <= nxt["mean_diff"] <= hi
    assert nxt["separated"] == (hi < 0 or lo > 0)
    text = markdown(report)
    assert "`strong@v1`" in text
    assert ("yes" in text) or ("not separated" in text)


def test_oracle_agents_are_refused_unless_allowed(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="oracle"):
        leaderboard(["search-oracle:2", "random"], 2, players=2)
    with pytest.raises(SystemExit):
        main(["--agents", "search-oracle,random", "--no-progress"])
    assert "--allow-oracle" in capsys.readouterr().err


def test_head_to_head_is_the_paired_gap_at_shared_tables_on_hand_made_games() -> None:
    from openskill.models import PlackettLuce

    from agents.evaluate.leaderboard import _Tally

    tally = _Tally(["a", "b", "c"], PlackettLuce())
    # Two-player tables: (a, b), (a, c), (b, c); a beats b by 10 and 30 on the two deals, c
    # ties a, and c's table with b is the only one where b and c meet.
    deals = [
        [(["a", "b"], [100, 110]), (["a", "c"], [50, 50]), (["b", "c"], [70, 60])],
        [(["a", "b"], [90, 120]), (["a", "c"], [40, 40]), (["b", "c"], [80, 60])],
    ]
    for games in deals:
        tally.add_deal([{"names": n, "scores": s} for n, s in games])
    h = tally.head_to_head()
    assert h["a"]["b"]["mean_diff"] == pytest.approx(-20.0)
    assert h["b"]["a"]["mean_diff"] == pytest.approx(20.0)
    assert h["a"]["c"]["mean_diff"] == pytest.approx(0.0)
    assert h["b"]["c"]["mean_diff"] == pytest.approx(15.0)
    lo, hi = h["b"]["a"]["ci95"]
    assert lo <= 20.0 <= hi and [-hi, -lo] == pytest.approx(h["a"]["b"]["ci95"])
    # Lower is better: b is behind c only if the whole interval is above 0 (here 10 and 20).
    assert h["b"]["c"]["behind"] == (h["b"]["c"]["ci95"][0] > 0)
    assert not h["c"]["b"]["behind"] and not h["a"]["c"]["behind"]
    # Where higher is better, the same numbers put the other side behind (positive control).
    side = _Tally(["a", "b", "c"], PlackettLuce(), sign=1)
    for games in deals:
        side.add_deal([{"names": n, "scores": s} for n, s in games])
    hs = side.head_to_head()
    assert hs["c"]["b"]["behind"] == (hs["b"]["c"]["ci95"][0] > 0)
    assert not hs["b"]["c"]["behind"]


def test_the_markdown_shows_the_head_to_head_table() -> None:
    report = leaderboard(["random", "greedy", "strong"], 2, players=2, seed=3, jobs=1)
    h = report["head_to_head"]
    assert h["random"]["greedy"]["behind"] and not h["greedy"]["random"]["behind"]
    behind = sum(cell["behind"] for row in h.values() for cell in row.values())
    text = markdown(report)
    assert "Head to head" in text and text.count("| **+") == behind >= 1  # bold = behind
