"""The reward formulas of DESIGN.md ("Rewards"), shared by the environment and training."""

from __future__ import annotations

from collections.abc import Sequence

POINTS_SCALE = 100.0  # rewards count points in hundreds


def relative_reward(points: Sequence[int], seat: int) -> float:
    """``relative`` reward of a seat for one round: (mean of the others' points - own) / 100.

    Zero-sum over the table: the seats' rewards for a round add up to 0.
    """
    others = (sum(points) - points[seat]) / (len(points) - 1)
    return (others - points[seat]) / POINTS_SCALE


__all__ = ["POINTS_SCALE", "relative_reward"]


def win_rewards(num_players: int, winners: Sequence[int]) -> list[float]:
    """The ``win`` reward of a finished game per seat: the winners share +1, the others -1."""
    won = set(winners)
    losers = num_players - len(won)
    return [
        1.0 / len(won) if s in won else (-1.0 / losers if losers else 0.0)
        for s in range(num_players)
    ]
