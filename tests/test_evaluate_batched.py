"""Evaluations of compiled bots on the batch core (``agents.evaluate.batched``): the same report as
game by game, but for its timing."""

from __future__ import annotations

from typing import Any

import pytest

import agents.evaluate.batched as batched_module
from agents.contract.rollouts import compiled_available
from agents.evaluate import evaluate
from agents.evaluate.batched import can_batch, compiled_bot

needs_core = pytest.mark.skipif(not compiled_available(), reason="compiled batch core not built")


def _without_timing(report: dict[str, Any]) -> dict[str, Any]:
    out = dict(report)
    out.pop("timing")
    return out


def _both(monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> tuple[dict, dict]:
    batched = evaluate(**kwargs)
    monkeypatch.setattr(batched_module, "BATCHED", False)
    one_by_one = evaluate(**kwargs)
    monkeypatch.setattr(batched_module, "BATCHED", True)
    return batched, one_by_one


@needs_core
@pytest.mark.parametrize(
    ("agents", "players", "preset"),
    [
        (["strong@v1", "greedy"], 4, "continental"),
        (["strong", "strong@v2", "greedy"], 3, "continental"),
        (["greedy", "strong@v1"], 5, "continental"),
        (["strong@v2", "strong@v1"], 2, "continental"),
    ],
)
def test_batched_reports_equal_game_by_game(monkeypatch, agents, players, preset) -> None:
    batched, one_by_one = _both(monkeypatch, agents=agents, players=players, games=3, seed=77,
                                preset=preset)  # fmt: skip
    assert _without_timing(batched) == _without_timing(one_by_one)
    assert batched["timing"]["decisions"] == one_by_one["timing"]["decisions"] > 0


@needs_core
def test_batched_reports_equal_with_other_rules(monkeypatch) -> None:
    from continental_env.rules import PRESETS

    for preset in PRESETS:
        if preset == "continental":
            continue
        batched, one_by_one = _both(monkeypatch, agents=["strong@v1", "greedy"], players=4,
                                    games=2, seed=5, preset=preset, rounds=[1, 4])  # fmt: skip
        assert _without_timing(batched) == _without_timing(one_by_one), preset


@needs_core
def test_the_comparison_sees_a_different_game(monkeypatch) -> None:
    """Positive control: the reports of another seed differ, so equality is a real check."""
    a = evaluate(["strong@v1", "greedy"], 4, 2, seed=1)
    b = evaluate(["strong@v1", "greedy"], 4, 2, seed=2)
    assert _without_timing(a) != _without_timing(b)


def test_only_compiled_bots_of_the_contract_game_batch() -> None:
    from agents.games import game_spec

    seat = [["strong", "greedy", "greedy", "greedy"]]
    contract, fifteen = game_spec("contract"), game_spec("fifteen")
    assert compiled_bot("strong", contract) == "strong@v1"
    assert compiled_bot("random", contract) is None
    assert compiled_bot("search@v5", contract) is None
    assert compiled_bot("greedy", fifteen) is None  # no batch for that game
    from continental_env.batch import BOT_NAMES

    assert contract.batch_bots == BOT_NAMES
    assert can_batch([(0, 1, seat, "contract", {})]) == compiled_available()
    assert not can_batch([(0, 1, [["strong", "random", "greedy", "greedy"]], "contract", {})])
    assert not can_batch([(0, 1, [["greedy", "greedy"]], "fifteen", {})])
    assert not can_batch([])


@needs_core
def test_play_out_without_restart_keeps_a_finished_game_as_it_ended() -> None:
    from continental_env.batch import BatchGame

    b = BatchGame(3, 3, rounds=[1, 2], seed=4)
    b.reset()
    for _ in range(2):
        b.play_out("strong@v1", restart=False)
    raws = [b.export(i) for i in range(3)]
    assert all(r["phase"] == "game_over" and len(r["round_history"]) == 2 for r in raws)
    assert b.play_out("greedy", restart=False).sum() == 0  # nothing left to play
    assert [b.export(i) for i in range(3)] == raws
    b.play_out("strong@v1", restart=True)  # restart only applies when a game ends in the call
    assert all(b.export(i)["phase"] == "game_over" for i in range(3))
    assert b.game(0).is_over and b.game(0).state.scores == raws[0]["scores"]


@needs_core
@pytest.mark.parametrize(
    ("agents", "players"),
    [(["greedy", "strong@v1", "strong@v2", "strong"], 3), (["strong@v1", "greedy"], 4)],
)
def test_batched_leaderboards_equal_game_by_game(monkeypatch, agents, players) -> None:
    from agents.evaluate import leaderboard as board_module
    from agents.evaluate.batched import can_batch_lineups
    from agents.games import game_spec

    played = []
    real = board_module._batched

    def spy(*args: Any) -> Any:
        played.append(True)
        return real(*args)

    monkeypatch.setattr(board_module, "_batched", spy)
    batched = board_module.leaderboard(agents, deals=3, players=players, seed=41)
    assert played  # positive control: the batch played these
    monkeypatch.setattr(batched_module, "BATCHED", False)
    one_by_one = board_module.leaderboard(agents, deals=3, players=players, seed=41)
    for report in (batched, one_by_one):
        report.pop("timing")
    assert batched == one_by_one
    # A line-up with a bot the batch does not decide plays game by game.
    monkeypatch.setattr(batched_module, "BATCHED", True)
    spec = game_spec("contract")
    assert not can_batch_lineups([["greedy", "random", "strong@v1"]], spec, 3, {})
    assert can_batch_lineups([["greedy", "strong@v1", "strong@v2"]], spec, 3, {})
