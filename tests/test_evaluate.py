"""The evaluation harness: seating, duplicate deals, statistics, determinism and the JSON report."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from agents.evaluate import harness as ev
from agents.evaluate.stats import (
    diff_vs_table,
    mean_ci95,
    paired_diff_ci95,
    t_quantile_975,
    win_shares,
)

# ----------------------------------------------------------------------------- seating


def test_lineup_fills_the_other_seats_in_turn() -> None:
    assert ev.lineup(["strong", "greedy"], 4) == ["strong", "greedy", "greedy", "greedy"]
    assert ev.lineup(["strong", "greedy", "random"], 4) == ["strong", "greedy", "random", "greedy"]
    assert ev.lineup(["greedy"], 3) == ["greedy"] * 3


def test_the_candidate_sits_in_every_seat_once() -> None:
    base = ev.lineup(["A", "B", "C"], 4)
    seatings = ev.rotations(base)
    assert len(seatings) == 4
    assert sorted(s.index("A") for s in seatings) == [0, 1, 2, 3]
    for k, s in enumerate(seatings):
        assert s[k] == "A"
        # The opponents keep their order around the table relative to the candidate.
        assert [s[(k + i) % 4] for i in range(4)] == base


def test_every_rotation_plays_the_identical_deal_in_every_round() -> None:
    # Random players re-form the stock often, which would shift later rounds' shuffles.
    rules = ev.resolve_rules("continental").with_rounds((1, 2, 3))
    seatings = ev.rotations(ev.lineup(["greedy", "random"], 3))
    result = ev.play_deal((0, 42, seatings, "contract", {"rules": rules.to_dict()}))
    games = result["games"]
    assert len(games) == 3
    prints = {tuple(g["fingerprints"]) for g in games}
    assert len(prints) == 1 and len(next(iter(prints))) == 3  # same cards, every round
    # ... and the seats really changed hands: the candidate's seat scores differ in pattern.
    assert len({tuple(g["scores"]) for g in games}) > 1


def test_derived_seeds_are_stable_and_distinct() -> None:
    assert ev.derive_seed(1, "deal", 0) == ev.derive_seed(1, "deal", 0)
    assert ev.derive_seed(1, "deal", 0) != ev.derive_seed(1, "deal", 1)
    assert 0 <= ev.derive_seed(2, "x") < 2**63


# ----------------------------------------------------------------------------- statistics


def test_mean_ci95_on_a_hand_computed_example() -> None:
    # 1..5: mean 3, sd sqrt(2.5) = 1.58114, se = 0.70711, t(0.975, 4) = 2.776 -> half 1.96293.
    m, lo, hi = mean_ci95([1, 2, 3, 4, 5])
    assert m == 3
    assert lo == pytest.approx(3 - 1.96293, abs=1e-3)
    assert hi == pytest.approx(3 + 1.96293, abs=1e-3)


def test_paired_difference_on_a_hand_computed_example() -> None:
    # differences 1, 3, 5: mean 3, sd 2, se 2/sqrt(3) = 1.15470, t(0.975, 2) = 4.303 -> 4.96868.
    m, lo, hi = paired_diff_ci95([10, 12, 14], [9, 9, 9])
    assert m == 3
    assert (lo, hi) == (pytest.approx(3 - 4.96868, abs=1e-3), pytest.approx(3 + 4.96868, abs=1e-3))
    with pytest.raises(ValueError):
        paired_diff_ci95([1], [1, 2])


def test_t_quantiles_approach_the_normal() -> None:
    assert t_quantile_975(1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile_975(30) == pytest.approx(2.042, abs=1e-3)
    assert t_quantile_975(60) == pytest.approx(2.0003, abs=1e-3)
    assert t_quantile_975(10_000) == pytest.approx(1.95996, abs=1e-3)
    m, lo, hi = mean_ci95([4.0])  # one value: no interval, never a zero-width one
    assert m == 4.0 and math.isnan(lo) and math.isnan(hi)


def test_win_shares_and_differences() -> None:
    assert win_shares([10, 30, 10, 40]) == [0.5, 0.0, 0.5, 0.0]
    assert diff_vs_table([0, 30, 60]) == [-45.0, 0.0, 45.0]
    assert math.fsum(diff_vs_table([5, 17, 2, 9])) == pytest.approx(0.0)


# ----------------------------------------------------------------------------- the report


def _small(jobs: int) -> dict:
    return ev.evaluate(["greedy", "random"], players=3, games=4, seed=5, jobs=jobs, rounds=[1, 3])


def test_results_do_not_depend_on_jobs() -> None:
    one, two = _small(1), _small(2)
    for report in (one, two):
        report.pop("timing")
        report["config"].pop("jobs")
    assert one == two


def test_report_statistics_match_the_games() -> None:
    report = _small(1)
    greedy, rnd = report["agents"]["greedy"], report["agents"]["random"]
    assert report["candidate"] == "greedy"
    assert greedy["games"] == 4 * 3 and rnd["games"] == 2 * 4 * 3
    lo, hi = greedy["mean_points_ci95"]
    assert lo <= greedy["mean_points"] <= hi
    # Points per round are points per game over the rounds played.
    assert greedy["mean_points_per_round"] == pytest.approx(greedy["mean_points"] / 2)
    # Every game's win shares add up to one over the table.
    assert greedy["win_rate"] * 1 + rnd["win_rate"] * 2 == pytest.approx(1.0)
    paired = report["paired"]["random"]
    assert paired["mean_diff"] == pytest.approx(greedy["mean_points"] - rnd["mean_points"])
    assert report["duplicate"]["rotations"] == 3
    # Every round ended once per game: closed by a seat or run out. 4 deals x 3 rotations x 2.
    rounds = report["rounds"]
    assert rounds["rounds"] == 4 * 3 * 2
    closed = greedy["close_rate"] * 4 * 3 * 2 + rnd["close_rate"] * 2 * 4 * 3 * 2
    assert closed + rounds["without_closer"] == pytest.approx(rounds["rounds"])
    assert greedy["close_rate"] > rnd["close_rate"]


def test_rounds_that_run_out_are_counted_without_a_closer() -> None:
    from dataclasses import replace

    from continental_env.rules import PRESETS

    short = replace(PRESETS["continental"], max_turns_per_round=3)  # nobody can go out in time
    report = ev.evaluate(["strong", "greedy"], players=3, games=2, seed=1, preset=short, rounds=[1])
    assert report["rounds"]["without_closer"] == report["rounds"]["rounds"] == 2 * 3
    assert report["rounds"]["without_closer_rate"] == 1.0
    assert report["agents"]["strong"]["close_rate"] == 0.0
    assert "without a closer 1.000" in ev.format_report(report)
    fifteen = _fifteen(1)
    assert fifteen["rounds"] is None and "close_rate" not in fifteen["agents"]["greedy"]


def test_cli_writes_the_documented_json_and_a_png(tmp_path: Path) -> None:
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    code = ev.main(
        [
            "--agents", "strong,greedy", "--players", "2", "--games", "2", "--seed", "3",
            "--rounds", "1", "--json", str(out), "--plot", str(png), "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads(out.read_text())
    assert report["schema"] == ev.SCHEMA
    assert set(report) >= {"config", "candidate", "agents", "paired", "duplicate", "timing"}
    for name in ("strong", "greedy"):
        a = report["agents"][name]
        for key in (
            "mean_points", "mean_points_per_round", "mean_diff_vs_table", "win_rate",
        ):  # fmt: skip
            assert isinstance(a[key], float | int)
            lo, hi = a[key + "_ci95"]
            assert lo <= a[key] <= hi
        assert set(a["openskill"]) == {"mu", "sigma", "ordinal"}
        assert set(a["points_by_round"]) == {"1"}
    assert report["config"]["games"] == 4 and report["config"]["deals"] == 2
    assert set(report["timing"]) >= {"seconds", "games_per_s", "decisions_per_s", "cpu_seconds"}
    assert report["config"]["versions"] == {"strong": "strong@v1", "greedy": "greedy"}
    assert report["agents"]["strong"]["version"] == "strong@v1"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rejects_bad_arguments() -> None:
    with pytest.raises(SystemExit):
        ev.main(["--agents", "nope,greedy", "--games", "1", "--no-progress"])
    with pytest.raises(SystemExit):
        ev.main(["--agents", "greedy", "--players", "9", "--games", "1", "--no-progress"])


def test_one_deal_reports_no_interval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = ev.evaluate(["greedy", "random"], players=2, games=1, seed=3, rounds=[1])
    greedy, paired = report["agents"]["greedy"], report["paired"]["random"]
    for key in ("mean_points", "mean_points_per_round", "mean_diff_vs_table", "win_rate"):
        assert greedy[key + "_ci95"] is None, key
    assert paired["ci95"] is None and paired["win_rate_diff_ci95"] is None
    assert paired["sd_per_deal"] is None and greedy["mean_points_sd_per_deal"] is None
    assert paired["by_round"]["1"]["ci95"] is None
    text = ev.format_report(report)
    agent_row = next(line for line in text.splitlines() if line.startswith("greedy "))
    assert agent_row.count("n/a (1 deal)") == 3
    assert "points/game n/a (1 deal) (per-deal SD n/a); win rate" in text
    # The columns keep their width, and the saved report is strict JSON (no NaN) that prints again.
    two = ev.evaluate(["greedy", "random"], players=2, games=2, seed=3, rounds=[1])
    two_row = next(
        line for line in ev.format_report(two).splitlines() if line.startswith("greedy ")
    )
    assert len(agent_row) == len(two_row)
    out = tmp_path / "one.json"
    assert ev.main(["--agents", "greedy,random", "--players", "2", "--games", "1", "--seed",
                    "3", "--rounds", "1", "--no-progress", "--json", str(out)]) == 0  # fmt: skip
    saved = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert saved["paired"]["random"]["ci95"] is None
    capsys.readouterr()
    assert ev.main(["--from-json", str(out), "--plot", str(tmp_path / "one.png")]) == 0
    assert "n/a (1 deal)" in capsys.readouterr().out


def test_paired_win_rate_interval_stays_within_its_possible_range() -> None:
    # Seed 9: the candidate wins 3 of 4 deals' shares outright; the t interval over four deals
    # reaches +1.546, past the largest possible difference of win shares (+1).
    report = ev.evaluate(["strong", "random"], players=2, games=4, seed=9, rounds=[1])
    paired = report["paired"]["random"]
    assert paired["win_rate_diff"] == pytest.approx(0.75)
    lo, hi = paired["win_rate_diff_ci95"]
    assert hi == 1.0 and lo == pytest.approx(-0.0456, abs=1e-4)
    assert "win rate +0.750 [-0.046, +1.000]" in ev.format_report(report)


def test_an_evaluation_of_one_agent_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for agents in (["greedy"], ["greedy", "greedy"]):
        with pytest.raises(ValueError, match="at least two different agents"):
            ev.evaluate(agents, players=2, games=1, rounds=[1])
    with pytest.raises(ValueError, match="--mixed greedy: the mixed table needs an agent other"):
        ev.evaluate(["greedy", "random"], players=2, games=1, rounds=[1], mixed=["greedy"])
    with pytest.raises(SystemExit) as exit_info:
        ev.main(["--agents", "greedy", "--players", "2", "--games", "1", "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--agents greedy: an evaluation compares" in err


# ----------------------------------------------------------------------------- checks before play

MODEL_4P = "agents/models/ppo_continental_4p.zip"


def no_games(*args: object, **kwargs: object) -> None:
    raise AssertionError("a game was played before the problem was reported")


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--agents", "ppo:no/such/model.zip,greedy"], "ppo:no/such/model.zip: no such model file"),
        (["--agents", "ppo:README.md,greedy"], "cannot read the model"),
        (["--agents", f"ppo:{MODEL_4P},greedy", "--players", "3"], "trained for 4 players"),
        (["--json", "{file}/r.json"], "--json"),
        (["--plot", "{file}/r.png"], "--plot"),
        (["--json", "{dir}"], "is a directory"),
        (["--rounds", "1-3"], "--rounds"),
        (["--jobs", "0"], "--jobs"),
        (["--from-json", "{dir}/missing.json"], "--from-json"),
    ],
)
def test_problems_are_one_line_errors_before_any_game(
    extra: list[str],
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if "4 players" in expected:
        pytest.importorskip("sb3_contrib")
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory")
    monkeypatch.setattr(ev, "_run_deals", no_games)
    args = ["--agents", "greedy,random", "--games", "1", "--no-progress"]
    args += [x.format(file=a_file, dir=tmp_path) for x in extra]
    with pytest.raises(SystemExit) as exit_info:
        ev.main(args)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err, err


def test_the_shipped_model_fits_its_own_table_size() -> None:
    pytest.importorskip("sb3_contrib")
    from agents.bots.ppo_agent import check_table, load_agent

    agent = load_agent(MODEL_4P)
    # The shipped model records what it was trained for: continental_v1, 4 players.
    assert agent.meta["env"] == "continental_v1" and agent.meta["num_players"] == 4
    assert agent.trained_players == 4
    check_table(agent, 4)
    with pytest.raises(ValueError, match="this table has 5"):
        check_table(agent, 5)
    with pytest.raises(ValueError, match="trained for 4 players"):
        ev.evaluate([f"ppo:{MODEL_4P}", "greedy"], players=3, games=1)


# ----------------------------------------------------------------------------- other games


def _fifteen(jobs: int) -> dict:
    return ev.evaluate(
        ["greedy", "random"], players=3, games=3, seed=2, jobs=jobs, game="fifteen",
        options={"target": 30},
    )  # fmt: skip


def test_fifteen_reports_chips_higher_is_better_and_ignores_jobs() -> None:
    one, two = _fifteen(1), _fifteen(2)
    for report in (one, two):
        report.pop("timing")
        report["config"].pop("jobs")
    assert one == two
    cfg = one["config"]
    assert cfg["game"] == "fifteen" and cfg["unit"] == "chips" and cfg["higher_is_better"]
    assert cfg["options"] == {"target": 30} and "preset" not in cfg
    greedy, rnd = one["agents"]["greedy"], one["agents"]["random"]
    # Chips are zero-sum: per game the seats' totals add to zero, so do the means.
    assert greedy["mean_points"] + 2 * rnd["mean_points"] == pytest.approx(0.0, abs=1e-9)
    # The highest total wins: greedy goes out, random hardly ever.
    assert greedy["win_rate"] > 0.5 and greedy["mean_points"] > 0
    assert one["paired"]["random"]["mean_diff"] > 0
    assert one["duplicate"]["identical_round_deals"] == 1.0
    assert set(greedy["points_by_round"]) >= {"1"}  # chips by hand


def test_fifteen_text_report_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "f.png"
    code = ev.main(
        [
            "--game", "fifteen", "--agents", "greedy,random", "--players", "2", "--games", "1",
            "--set", "hands=1", "--plot", str(png), "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    out = capsys.readouterr().out
    assert "game fifteen (hands=1)" in out and "chips: higher is better" in out
    assert "chips/game" in out
    for argv in (
        ["--game", "fifteen", "--agents", "search,random"],
        ["--game", "fifteen", "--set", "stake=5"],
        ["--game", "fifteen", "--preset", "continental_us"],
        ["--game", "fifteen", "--players", "13"],
        ["--game", "poker"],
    ):
        with pytest.raises(SystemExit):
            ev.main([*argv, "--games", "1", "--no-progress"])


# ----------------------------------------------------------------------------- trust at small margins


def _strip(report: dict) -> dict:
    report = json.loads(json.dumps(report))
    report.pop("timing")
    report["config"].pop("jobs")
    report.get("mixed", {}).pop("timing", None)
    return report


def test_win_rate_interval_is_over_deals_not_games() -> None:
    report = _small(1)
    greedy = report["agents"]["greedy"]
    # The t interval over the 4 per-deal win shares, not Wilson over 12 seat-games.
    from agents.evaluate.stats import rate_ci95

    shares = []
    for d in range(4):
        result = ev.play_deal(
            (d, 5, ev.rotations(ev.lineup(["greedy", "random"], 3)), "contract",
             {"rules": ev.resolve_rules("continental").with_rounds((1, 3)).to_dict()})
        )  # fmt: skip
        wins = [win_shares(g["scores"])[k] for k, g in enumerate(result["games"])]
        shares.append(sum(wins) / len(wins))
    rate, lo, hi = rate_ci95(shares)
    assert greedy["win_rate"] == pytest.approx(rate)
    assert greedy["win_rate_ci95"] == [pytest.approx(lo), pytest.approx(hi)]


def test_per_round_paired_differences_add_up_to_the_game() -> None:
    report = _small(1)
    paired = report["paired"]["random"]
    by = paired["by_round"]
    assert set(by) == {"1", "3"}
    assert sum(r["mean_diff"] for r in by.values()) == pytest.approx(paired["mean_diff"])
    for r in by.values():
        assert r["ci95"][0] <= r["mean_diff"] <= r["ci95"][1] and r["deals"] == 4
    assert paired["sd_per_deal"] > 0
    lo, hi = paired["win_rate_diff_ci95"]
    assert lo <= paired["win_rate_diff"] <= hi
    assert "by round: 1:" in ev.format_report(report)


def test_resume_gives_the_report_of_an_uninterrupted_run(tmp_path: Path) -> None:
    kw = dict(players=3, games=6, seed=8, rounds=[1, 2])
    whole = ev.evaluate(["greedy", "random"], **kw)
    path = tmp_path / "run.ckpt"
    # Interrupted after 3 deals, the last line half written.
    ev.evaluate(["greedy", "random"], **{**kw, "games": 3}, checkpoint=str(path))
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 3
    path.write_text("".join(lines) + lines[-1][: len(lines[-1]) // 2])
    resumed = ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path), resume=True)
    assert resumed["timing"]["resumed_deals"] == 3
    assert _strip(resumed) == _strip(whole)
    assert len(path.read_text().splitlines()) == 1 + 6
    # Resuming a finished run plays nothing and gives the same report again.
    again = ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path), resume=True)
    assert again["timing"]["resumed_deals"] == 6 and _strip(again) == _strip(whole)
    # Another evaluation's checkpoint is refused, naming what differs; the file is unchanged.
    before = path.read_text()
    with pytest.raises(ValueError, match="seed"):
        ev.evaluate(["greedy", "random"], **{**kw, "seed": 9}, checkpoint=str(path), resume=True)
    assert path.read_text() == before


def test_a_resume_of_fewer_deals_keeps_the_lines_it_does_not_use_and_a_bare_header_is_no_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kw = dict(players=2, games=4, seed=13, rounds=[1])
    path = tmp_path / "run.ckpt"
    ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path))
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "#bad\n#bad\n" + "".join(lines[3:]))  # deals 0 and 1 damaged
    resumed = ev.evaluate(["greedy", "random"], **{**kw, "games": 2}, checkpoint=str(path),
                          resume=True)  # fmt: skip
    assert resumed["timing"]["resumed_deals"] == 0
    after = path.read_text().splitlines(keepends=True)
    assert after[:5] == [lines[0], "#bad\n", "#bad\n", lines[3], lines[4]]  # nothing lost
    assert sorted(json.loads(x)["deal"] for x in after[5:]) == [0, 1]
    assert "damaged, skipped" in capsys.readouterr().err
    bare = tmp_path / "bare.ckpt"  # a run that stopped before its first deal: no work in it
    bare.write_text(lines[0])
    ev.evaluate(["greedy", "random"], **kw, checkpoint=str(bare))
    assert len(bare.read_text().splitlines()) == 5


def test_a_damaged_line_mid_checkpoint_is_said_and_only_its_deal_is_played_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kw = dict(players=2, games=60, seed=12, rounds=[1])
    path = tmp_path / "run.ckpt"
    whole = ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path))
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 60
    lines[5] = lines[5][: len(lines[5]) // 2] + "\n"  # deal 4, cut short mid-file
    path.write_text("".join(lines))
    capsys.readouterr()
    resumed = ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path), resume=True)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"{path} line 6: damaged, skipped (" in err[0]
    assert "the 55 intact deals after it are kept" in err[0] and "(deal 4 among them)" in err[0]
    # Only the damaged deal was played again; the report is an uninterrupted run's.
    assert resumed["timing"]["resumed_deals"] == 59
    assert _strip(resumed) == _strip(whole)
    # The damaged line stays as it was (nothing is thrown away); deal 4 is appended at the end.
    after = path.read_text().splitlines(keepends=True)
    assert after[:61] == lines and json.loads(after[61])["deal"] == 4 and len(after) == 62
    again = ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path), resume=True)
    assert again["timing"]["resumed_deals"] == 60 and _strip(again) == _strip(whole)


@pytest.mark.parametrize(
    ("line", "index", "why"),
    [
        ("[1, 2]", 3, "line 4: not a deal (a JSON list)"),
        ('"a note"', 2, "line 3: not a deal (a JSON string)"),
        ('{"note": "x"}', 2, "line 3: not a deal (its 'deal' is None, not a deal number)"),
        ('{"deal": 1, "games": []}', 2, "line 3: not a deal (deal 1 has 0 games, not one per"),
        ('{"deal": 1, "games": [{}, {}]}', 2, "line 3: not a deal (deal 1's game 0 lacks the keys"),
        ("[]", 0, "line 1: a JSON list, not an evaluation checkpoint's header"),
        ("no header", 0, "line 1: not JSON ("),
    ],
)
def test_a_json_line_that_is_not_a_deal_is_a_one_line_error(
    line: str, index: int, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.ckpt"
    args = ["--agents", "greedy,random", "--players", "2", "--games", "3", "--seed", "4",
            "--rounds", "1", "--no-progress", "--checkpoint", str(path)]  # fmt: skip
    assert ev.main(args) == 0
    lines = path.read_text().splitlines(keepends=True)
    lines[index] = line + "\n"
    path.write_text("".join(lines))
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        ev.main([*args, "--resume"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"--checkpoint {path} {why}" in err, err
    assert path.read_text() == "".join(lines)  # unchanged


def test_a_checkpoint_with_deals_is_not_replaced_without_resume(tmp_path: Path) -> None:
    kw = dict(players=2, games=2, seed=5, rounds=[1])
    path = tmp_path / "run.ckpt"
    ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path))
    before = path.read_text()
    assert len(before.splitlines()) == 1 + 2
    with pytest.raises(ValueError, match=r"run\.ckpt already exists.*--resume"):
        ev.evaluate(["greedy", "random"], **kw, checkpoint=str(path))
    assert path.read_text() == before
    # The mixed table's checkpoint is checked too, before the first table plays a game.
    mixed_path = tmp_path / "m.ckpt"
    (tmp_path / "m.ckpt.mixed").write_text(before)
    with pytest.raises(ValueError, match=r"m\.ckpt\.mixed already exists"):
        ev.evaluate(["greedy", "random"], **kw, checkpoint=str(mixed_path), mixed=["random"])
    assert not mixed_path.exists()
    # Control: an empty file (e.g. made by mktemp) is not a run's work and is written over.
    empty = tmp_path / "empty.ckpt"
    empty.write_text("")
    ev.evaluate(["greedy", "random"], **kw, checkpoint=str(empty))
    lines = empty.read_text().splitlines()
    assert len(lines) == 1 + 2 and lines[0] == before.splitlines()[0]


def test_resume_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "c.ckpt"
    args = ["--agents", "greedy,random", "--players", "2", "--games", "3", "--seed", "4",
            "--rounds", "1", "--no-progress", "--checkpoint", str(path)]  # fmt: skip
    assert ev.main(args) == 0
    first = capsys.readouterr().out
    assert ev.main([*args, "--resume"]) == 0
    second = capsys.readouterr().out
    assert "3 deals resumed" in second
    assert first.splitlines()[:-1] == second.splitlines()[:-1]
    with pytest.raises(SystemExit):
        ev.main(["--agents", "greedy,random", "--resume", "--no-progress"])


def test_oracle_agents_are_refused_unless_allowed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="'search-oracle:2' reads the true hidden state"):
        ev.evaluate(["search-oracle:2", "strong"], players=2, games=1, rounds=[1])
    with pytest.raises(ValueError, match="oracle"):
        ev.evaluate(["greedy", "random"], players=2, games=1, rounds=[1], mixed=["search-oracle"])
    with pytest.raises(SystemExit):
        ev.main(["--agents", "search-oracle,strong", "--games", "1", "--no-progress"])
    assert "--allow-oracle" in capsys.readouterr().err
    report = ev.evaluate(
        ["search-oracle:2", "strong"], players=2, games=1, rounds=[1], allow_oracle=True
    )
    assert report["agents"]["search-oracle:2"]["games"] == 2


def test_oracle_search_rolls_out_the_real_hands() -> None:
    import random

    from agents import make_agent
    from agents.contract.view import PlayerView
    from continental_env.contract.game import Game

    game = Game.new("continental", 3, seed=4)
    bot = make_agent("search-oracle:3", 1)
    view = PlayerView(game, game.actor)
    with pytest.raises(RuntimeError, match="attach"):  # a view alone holds nothing hidden
        bot._worlds(view, random.Random(0))
    bot.attach(game)
    worlds = bot._worlds(view, random.Random(0))
    assert len(worlds) == 3
    for w in worlds:  # positive control: the hidden hands are the real ones
        assert w.state.hands == game.state.hands
        assert sorted(w.state.stock) == sorted(game.state.stock)
    assert len({tuple(w.state.stock) for w in worlds}) == 3  # ... the stock order is not


def test_sprt_stops_early_when_the_gap_is_large() -> None:
    from agents.evaluate.stats import SPRT

    report = ev.evaluate(
        ["strong", "random"], players=2, games=60, seed=3, rounds=[1], sprt=SPRT(0, 5, burn_in=5)
    )
    seq = report["sequential"]
    assert seq["decision"] == "H1" and seq["deals"] == report["config"]["deals"] < 60
    assert seq["llr"] >= seq["bounds"][1]
    assert "sequential test" in ev.format_report(report)


def test_sprt_accepts_the_null_between_equal_bots_and_checks_its_settings() -> None:
    from agents.evaluate.stats import SPRT

    test = SPRT(0, 5, burn_in=5).start()
    decision = None
    for i in range(400):
        decision = test.update(30.0 if i % 2 else -30.0)
        if decision:
            break
    assert decision == "H0"
    with pytest.raises(ValueError, match="two different means"):
        SPRT(1, 1)
    with pytest.raises(ValueError, match="error rates"):
        SPRT(0, 5, alpha=0.7)
    with pytest.raises(ValueError, match="--sprt 'x,1'"):
        ev.parse_sprt("x,1")


def test_mixed_table_row(tmp_path: Path) -> None:
    report = ev.evaluate(
        ["greedy", "random"], players=3, games=2, seed=2, rounds=[1], mixed=["strong", "random"]
    )
    mixed = report["mixed"]
    assert mixed["lineup"] == ["greedy", "strong", "random"]
    assert set(mixed["paired"]) == {"strong", "random"}
    # The mixed table is the plain evaluation of that line-up on the same seed.
    alone = ev.evaluate(["greedy", "strong", "random"], players=3, games=2, seed=2, rounds=[1])
    assert mixed["agents"] == alone["agents"]
    assert "mixed table (greedy, strong (strong@v1), random" in ev.format_report(report)


def test_sizing_helpers() -> None:
    from agents.evaluate.stats import deals_for_half_width, deals_for_power

    # (1.96 * 35 / 3)^2 = 522.9 -> 523; (2.80 * 35 / 5)^2 = 384.6 -> 385
    assert deals_for_half_width(35, 3) == 523
    assert deals_for_power(35, 5) == 385
    with pytest.raises(ValueError):
        deals_for_half_width(35, 0)


def test_a_bad_mixed_table_fails_before_any_game(tmp_path: Path) -> None:
    path = tmp_path / "never.ckpt"
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        ev.evaluate(["greedy", "random"], players=2, games=1, mixed=["nope"], checkpoint=str(path))
    assert not path.exists()


def test_the_api_page_documents_evaluate_and_its_signature() -> None:
    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "api.md").read_text()
    assert "::: agents.evaluate.harness.evaluate" in page
    assert "::: agents.evaluate.leaderboard.leaderboard" in page


def test_shared_evaluation_code_names_no_game() -> None:
    # What differs between games is read from their GameSpec, never from their names.
    root = Path(__file__).resolve().parent.parent / "agents" / "evaluate"
    pattern = re.compile(r"""[=!]= *["'](contract|continental|knock|fifteen)["']""")
    found = [
        f"{path.name}:{n}"
        for path in sorted(root.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_seat_labels_do_not_look_like_versions(capsys: pytest.CaptureFixture[str]) -> None:
    from agents.evaluate.report import seat_label
    from agents.play.demo import play_demo_game

    assert seat_label("strong@v1", 2) == "strong@v1 (seat 2)"
    play_demo_game(["strong@v1", "greedy", "random"], seed=3)
    out = capsys.readouterr().out
    assert "strong@v1 (seat 0)" in out and "greedy (seat 1)" in out
    assert not re.search(r"@\d", out)  # "@" is followed only by versions (strong@v1)
