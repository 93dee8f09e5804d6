"""Named observation layouts: consecutive slices of a flat vector, one per named part."""

from __future__ import annotations

from collections.abc import Iterable


def consecutive_slices(parts: Iterable[tuple[str, int]]) -> dict[str, slice]:
    """``{name: slice}`` laying the ``(name, size)`` parts end to end from index 0, in order."""
    out = {}
    start = 0
    for name, size in parts:
        out[name] = slice(start, start + size)
        start += size
    return out
