"""Long commands show progress game by game: ``evaluate``, ``leaderboard`` and ``imitation
collect`` count games in their progress bars (a leaderboard deal of five agents at four seats is
20 games, and a bar counting deals sat at 0/N for minutes), with the same results as before."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
import tqdm

from agents.evaluate import evaluate
from agents.evaluate.leaderboard import leaderboard


class RecordingBar:
    """A stand-in for tqdm that records its total, unit and every update."""

    bars: ClassVar[list[RecordingBar]] = []

    def __init__(self, *args: Any, total: int = 0, unit: str = "it", **kwargs: Any) -> None:
        self.total, self.unit, self.updates = total, unit, []
        RecordingBar.bars.append(self)

    def update(self, n: int = 1) -> None:
        self.updates.append(n)

    def close(self) -> None:
        pass


@pytest.fixture
def bars(monkeypatch: pytest.MonkeyPatch) -> list[RecordingBar]:
    RecordingBar.bars = []
    monkeypatch.setattr(tqdm, "tqdm", RecordingBar)
    return RecordingBar.bars


@pytest.mark.parametrize("jobs", [1, 2])
def test_leaderboard_progress_counts_games(jobs: int, bars: list[RecordingBar]) -> None:
    agents = ["random", "greedy", "strong"]  # 3 tables of 2 seats, 2 rotations each: 6 games a deal
    report = leaderboard(agents, deals=2, players=2, seed=4, jobs=jobs, progress=True)
    (bar,) = bars
    assert bar.unit == "game" and bar.total == 12
    assert bar.updates == [1] * 12  # one step per game, not one per deal
    again = leaderboard(agents, deals=2, players=2, seed=4, jobs=1)
    assert again["agents"] == report["agents"]  # the same games at any --jobs


@pytest.mark.parametrize("jobs", [1, 2])
def test_evaluate_progress_counts_games(jobs: int, bars: list[RecordingBar]) -> None:
    report = evaluate(["greedy", "random"], players=3, games=2, seed=6, jobs=jobs, rounds=[1],
                      progress=True)  # fmt: skip
    (bar,) = bars
    assert bar.unit == "game" and bar.total == 6  # 2 deals x 3 seatings
    assert bar.updates == [1] * 6
    again = evaluate(["greedy", "random"], players=3, games=2, seed=6, jobs=1, rounds=[1])
    assert again["agents"] == report["agents"] and again["paired"] == report["paired"]


def test_imitation_collect_progress_counts_games(tmp_path: Any, bars: list[RecordingBar]) -> None:
    import numpy as np

    pytest.importorskip("torch")
    from agents.train import imitation

    out = tmp_path / "data.npz"
    imitation.collect(str(out), deals=2, seed=5, players=3, preset="continental", features=False,
                      rounds=[1], progress=True)  # fmt: skip
    (bar,) = bars
    assert bar.unit == "game" and bar.total == 4  # 2 deals x (all-teacher table, mixed table)
    assert bar.updates == [1] * 4
    # the same decisions, in the same order, as whole deals give
    whole = [imitation.collect_deal((d, 5, 3, "continental", False, [1])) for d in range(2)]
    with np.load(out) as data:
        assert data["actions"].tolist() == [a for part in whole for a in part["actions"]]
        assert data["deal"].tolist() == [p["deal"] for p in whole for _ in p["actions"]]


def test_tune_strong_progress_counts_games(tmp_path: Any, bars: list[RecordingBar]) -> None:
    pytest.importorskip("cma")
    from agents.train import tune_strong

    tune_strong.tune(deals=1, popsize=2, generations=1, seed=3, state_path=str(tmp_path / "s"),
                     json_path=None, rounds=[1], progress=True)  # fmt: skip
    (bar,) = bars
    # the defaults, then 1 generation of 2 candidates: 3 evaluations of 1 deal x 4 seatings
    assert bar.unit == "game" and bar.total == 12 and bar.updates == [1] * 12
