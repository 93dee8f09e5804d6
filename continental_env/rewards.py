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
