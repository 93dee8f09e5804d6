"""The knock game through the shared front ends: its ``GameSpec`` (``agents.games``), the
evaluation harness on duplicate deals (``--game knock``) and the benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

import agents.evaluate.harness as ev
from agents import cli
from agents.games import game_spec

SMALL = {"max_turns_per_hand": 30, "max_hands": 4}


def test_the_spec_plays_a_game_and_fingerprints_deals_by_seat() -> None:
    spec = game_spec("knock")
    assert spec.name == "knock" and spec.unit == "chips" and spec.higher_is_better
    spec.check_options(3, SMALL)
    game, again = spec.new_game(3, 5, SMALL), spec.new_game(3, 5, SMALL)
    assert spec.deal_fingerprint(game) == spec.deal_fingerprint(again)
    assert spec.deal_fingerprint(game) != spec.deal_fingerprint(spec.new_game(3, 6, SMALL))
    bots = [spec.make_agent(n, s) for s, n in enumerate(["greedy", "random", "random"])]
    while not game.is_over:
        seat = game.actor
        game.apply(bots[seat].act(spec.view(game, seat)))
    scores = spec.final_scores(game)
    assert scores == game.chips and sum(scores) == 0
    # A hand's chips plus the ante make a seat's final chips.
    for seat in range(3):
        assert scores[seat] == -game.stake + sum(v[seat] for _label, v in spec.segments(game))
    assert spec.parse_options(["stake=100"]) == {"stake": 100}
    with pytest.raises(ValueError, match="bad option 'target=5'"):
        spec.parse_options(["target=5"])
    with pytest.raises(ValueError, match="multiple of 5"):
        spec.check_options(4, {"stake": 12})


def test_a_seat_out_of_the_game_leaves_its_ten_cards_at_the_bottom_of_the_stock() -> None:
    # The fingerprint reads each seat's ten from the hands, or from the stock's bottom for a seat
    # that is out: the same in every rotation of a duplicate deal.
    from continental_env.knock.game import Game

    spec = game_spec("knock")
    a = Game.new(num_players=3, seed=4)
    b = a.clone()
    b.in_game[1] = False  # as if seat 1 had been eliminated
    for g in (a, b):
        g.hand_index = -1  # deal hand 1 again (the next deal's seed), dealer 0 in both
        g.dealer = 2
        g._deal()
    assert a.hands[0] == b.hands[0] and a.hands[2] == b.hands[2] and sum(b.hands[1]) == 0
    assert spec.deal_fingerprint(a) == spec.deal_fingerprint(b)


def _report(jobs: int) -> dict:
    return ev.evaluate(
        ["greedy", "random"], players=3, games=2, seed=2, jobs=jobs, game="knock", options=SMALL
    )


def test_knock_reports_net_chips_higher_is_better_and_ignores_jobs() -> None:
    one, two = _report(1), _report(2)
    for report in (one, two):
        report.pop("timing")
        report["config"].pop("jobs")
    assert one == two
    cfg = one["config"]
    assert cfg["game"] == "knock" and cfg["unit"] == "chips" and cfg["higher_is_better"]
    greedy, rnd = one["agents"]["greedy"], one["agents"]["random"]
    assert greedy["mean_points"] + 2 * rnd["mean_points"] == pytest.approx(0.0, abs=1e-9)
    assert one["duplicate"]["identical_round_deals"] == 1.0


def test_knock_text_report_cli_and_bench(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = ev.main(
        [
            "--game", "knock", "--agents", "greedy,random", "--players", "2", "--games", "1",
            "--set", "max_hands=2", "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "game knock" in out and "chips: higher is better" in out
    for argv in (["--agents", "search,random"], ["--set", "target=5"], ["--players", "7"]):
        with pytest.raises(SystemExit):
            ev.main(["--game", "knock", *argv, "--games", "1", "--no-progress"])
    argv = ["bench", "--game", "knock", "--games", "1", "--players", "2", "--repeats", "1"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "game knock" in out and out.count(" engine ") == 1 and out.count(" aec ") == 1
    with pytest.raises(SystemExit):
        cli.main(["bench", "--game", "knock", "--players", "7"])
