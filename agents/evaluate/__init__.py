"""Evaluation: the duplicate-deal harness (``continental evaluate``), its statistics, the
leaderboard and the speed table.

| module | what |
|---|---|
| ``harness`` | ``evaluate``, ``play_game``, reports and plots; ``python -m agents.evaluate`` |
| ``stats`` | confidence intervals, SPRT, deal counts for a half-width |
| ``leaderboard`` | every agent on the same deals, ranked (``continental leaderboard``) |
| ``speed`` | the speed table against another revision (``continental speed``) |

The harness's public functions are importable from here: ``from agents.evaluate import evaluate``.
"""

from agents.evaluate.harness import (
    derive_seed,
    evaluate,
    format_report,
    lineup,
    play_deal,
    play_game,
    plot_report,
    refuse_oracles,
    rotations,
)

__all__ = [
    "derive_seed",
    "evaluate",
    "format_report",
    "lineup",
    "play_deal",
    "play_game",
    "plot_report",
    "refuse_oracles",
    "rotations",
]
