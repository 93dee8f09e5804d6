"""Evaluation: the duplicate-deal harness (``continental evaluate``), its statistics and the
leaderboard.

| module | what |
|---|---|
| ``harness`` | ``evaluate``, its command line (``main``) and the report's JSON schema |
| ``deals`` | seating, seeds, ``play_game`` and the deals played in worker processes |
| ``batched`` | line-ups of compiled bots played on the game's batch, many games per call |
| ``aggregate`` | the report from the deals' results: means over deals, paired differences, ratings |
| ``report`` | the report as a text table (``format_report``) and a PNG (``plot_report``) |
| ``checkpoint`` | the JSON-lines checkpoint that ``--resume`` reads back |
| ``arguments`` | the parser of ``continental evaluate`` and its checks before the first game |
| ``stats`` | confidence intervals, SPRT, deal counts for a half-width |
| ``variance`` | the paired difference with control variates at chance events (AIVAT-style), beside the plain one |
| ``leaderboard`` | every agent on the same deals, ranked (``continental leaderboard``) |
| ``anchored`` | the leaderboard anchored on ``strong@v1``: each agent's paired difference from its own runs |

The harness's public functions are importable from here (``from agents.evaluate import evaluate``)
and from ``agents.evaluate.harness``; ``python -m agents.evaluate`` is ``continental evaluate``.
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
