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


def _same(a: dict, b: dict) -> bool:  # type: ignore[type-arg]
    """Two reports equal but for timing, worker count and how many deals were resumed."""
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
    for r in (a, b):
        r.pop("timing")
        for key in ("jobs", "resumed_deals"):
            r["config"].pop(key)
    return a == b


def test_a_resumed_round_robin_is_the_uninterrupted_one(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    agents, kwargs = ["random", "greedy", "strong", "strong@v2"], {"players": 3, "seed": 8}
    full_path = tmp_path / "full.jsonl"
    full = leaderboard(agents, 4, checkpoint=str(full_path), **kwargs)
    lines = full_path.read_text().splitlines(keepends=True)
    assert (
        len(lines) == 5 and json.loads(lines[0])["schema"] == "continental-leaderboard-checkpoint/1"
    )
    assert [json.loads(line)["deal"] for line in lines[1:]] == [0, 1, 2, 3]
    assert all(len(json.loads(line)["games"]) == 4 * 3 for line in lines[1:])  # tables x rotations

    # Interrupted in the middle of deal 2's line: deals 0 and 1 are kept, 2 and 3 played.
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:3]) + lines[3][:40])
    resumed = leaderboard(agents, 4, checkpoint=str(cut), resume=True, jobs=2, **kwargs)
    assert resumed["config"]["resumed_deals"] == 2
    assert _same(resumed, full)
    assert cut.read_text() == full_path.read_text()

    # A damaged line in the middle: said, and only its deal played again.
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(lines[0] + lines[1] + "#garbage\n" + "".join(lines[3:]))
    again = leaderboard(agents, 4, checkpoint=str(damaged), resume=True, **kwargs)
    assert "line 3: damaged, skipped" in capsys.readouterr().err
    assert again["config"]["resumed_deals"] == 3 and _same(again, full)

    # Positive control: a resumed deal's recorded scores are what the report counts.
    forged = tmp_path / "forged.jsonl"
    entry = json.loads(lines[1])
    entry["games"][0]["scores"] = [s + 500 for s in entry["games"][0]["scores"]]
    forged.write_text(lines[0] + json.dumps(entry) + "\n")
    other = leaderboard(agents, 4, checkpoint=str(forged), resume=True, **kwargs)
    assert other["config"]["resumed_deals"] == 1 and not _same(other, full)


def test_a_checkpoint_is_never_overwritten_or_mixed_up(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "lb.jsonl"
    leaderboard(["random", "greedy"], 2, players=2, seed=1, checkpoint=str(path))
    before = path.read_bytes()
    with pytest.raises(ValueError, match="already exists and holds an earlier run's deals"):
        leaderboard(["random", "greedy"], 2, players=2, seed=1, checkpoint=str(path))
    with pytest.raises(ValueError, match=r"another evaluation \(differs in seed\)"):
        leaderboard(["random", "greedy"], 2, players=2, seed=2, checkpoint=str(path), resume=True)
    assert path.read_bytes() == before
    with pytest.raises(SystemExit) as exc:
        main(["--agents", "random,greedy", "--players", "2", "--resume", "--no-progress"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--resume needs --checkpoint PATH" in err and len(err.strip().splitlines()) == 1
    argv = ["--agents", "random,greedy", "--players", "2", "--deals", "3", "--seed", "1"]
    assert main([*argv, "--checkpoint", str(path), "--resume", "--no-progress"]) == 0
    assert len(path.read_text().splitlines()) == 4  # the header, the two deals and the third


def test_a_resume_keeps_every_line_it_does_not_use_and_a_bare_header_holds_no_work(
    tmp_path, capsys
) -> None:  # type: ignore[no-untyped-def]
    kwargs = {"players": 2, "seed": 3}
    path = tmp_path / "lb.jsonl"
    leaderboard(["random", "greedy"], 4, checkpoint=str(path), **kwargs)
    lines = path.read_text().splitlines(keepends=True)
    # Deals 0 and 1 damaged, resumed with --deals 2: they are played again and appended; the
    # damaged lines and deals 2 and 3 stay in the file.
    path.write_text(lines[0] + "#bad\n#bad\n" + "".join(lines[3:]))
    report = leaderboard(["random", "greedy"], 2, checkpoint=str(path), resume=True, **kwargs)
    assert report["config"]["resumed_deals"] == 0
    kept = path.read_text().splitlines(keepends=True)
    assert kept[:5] == [lines[0], "#bad\n", "#bad\n", lines[3], lines[4]]
    assert sorted(json.loads(x)["deal"] for x in kept[5:]) == [0, 1]
    assert "damaged, skipped" in capsys.readouterr().err
    # A run that failed before its first deal left a header only: a new run may replace it.
    bare = tmp_path / "bare.jsonl"
    bare.write_text(lines[0])
    leaderboard(["random", "greedy"], 2, checkpoint=str(bare), **kwargs)
    assert len(bare.read_text().splitlines()) == 3
    # A header cut short, resumed: no deal to keep, the file starts again.
    cut = tmp_path / "cut.jsonl"
    cut.write_text(lines[0][:20])
    again = leaderboard(["random", "greedy"], 2, checkpoint=str(cut), resume=True, **kwargs)
    assert (
        again["config"]["resumed_deals"] == 0
        and cut.read_text().splitlines(keepends=True)[0] == lines[0]
    )


def test_reports_mode_refuses_the_checkpoint_flags(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        main(["--reports", str(tmp_path / "r.json"), "--checkpoint", str(tmp_path / "c.jsonl")])
    assert "--checkpoint plays games; --reports ranks reports" in capsys.readouterr().err
