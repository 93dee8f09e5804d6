"""Whether a hand can lay its round's contract down: the existence check on the hot path.

``has_contract`` (``melds.contract``) asks it on every legal-action query of a seat not yet down,
so it answers the question with minimal melds and never builds an arrangement; why it stays
beside the one arrangement search (``melds.contract.ContractSearch``), with figures, is in
``melds.contract``'s docstring. ``contract_exists`` runs the compiled port
(``continental_env/_kernels.c``) when built, else ``contract_exists_reference``, the readable
definition here (``tests/test_kernels.py`` compares the two).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate, combinations

from continental_env import kernels
from continental_env.cards import JOKER, RANK_CARDS
from continental_env.melds.core import min_spans, window_cards

__all__ = ["contract_exists", "contract_exists_reference"]


# Bounded: a 53-tuple key and its entry take about 0.7 KiB, so 16,384 entries stay near 11 MiB
# per process (100,000 took about 70 MiB in every training worker) while the hit rate in play
# stays high (a hand changes one card at a time and is asked about again and again).
@lru_cache(maxsize=16_384)
def contract_exists(
    counts: tuple[int, ...], trios: int, runs: int, min_run: int, wrap: bool, steal: bool
) -> bool:
    """Existence only, on the hot path of every legal-action query of a player not yet down.

    The compiled kernel when built (``continental_env.kernels``), else the reference below.
    """
    native = kernels.native
    if native is not None:
        return native.contract_exists(counts, trios, runs, min_run, wrap, steal)
    return contract_exists_reference(counts, trios, runs, min_run, wrap, steal)


def contract_exists_reference(
    counts: tuple[int, ...], trios: int, runs: int, min_run: int, wrap: bool, steal: bool
) -> bool:
    """``contract_exists`` in pure Python, the readable definition the kernel follows.

    Minimal melds suffice: any run holds a run of exactly ``min_run`` cards with a natural, and
    any trio three cards with a natural, and smaller melds leave more for the rest. So runs are
    chosen among windows of ``min_run`` positions, and trios by the cheapest joker costs.
    """
    jokers = counts[JOKER]
    if runs == 0:
        return _trios_fit(counts, [0] * 13, trios, jokers)
    windows = []
    starts = [ranks[0] for ranks in min_spans(min_run, wrap)]
    least = max(1, min_run - jokers)  # naturals a window needs: one at least, jokers the rest
    for suit in range(4):
        base = suit * 13
        row = counts[base : base + 13]
        if not any(row):
            continue
        # Naturals per window from prefix sums over the suit's row taken twice (a window's
        # ranks run on from its first rank, modulo 13).
        prefix = list(accumulate([1 if n else 0 for n in row] * 2, initial=0))
        for first, cards in zip(starts, window_cards(min_run, wrap)[suit], strict=True):
            if prefix[first + min_run] - prefix[first] >= least:
                windows.append(cards)
    if not windows:
        return False
    work = list(counts)
    stealable = [0] * 13
    return _exists_runs(work, windows, 0, runs, trios, stealable, steal)


def _exists_runs(
    work: list[int],
    windows: list,
    first: int,
    runs: int,
    trios: int,
    stealable: list[int],
    steal: bool = True,
) -> bool:
    if runs == 0:
        return _trios_fit(work, stealable, trios, work[JOKER])
    for i in range(first, len(windows)):
        cards = windows[i]
        present = [c for c in cards if work[c]]
        size = len(cards)
        if not present or size - len(present) > work[JOKER]:
            continue  # no natural, or too few jokers even with every natural (so with any subset)
        # Usually a window takes every natural it covers. With another run still to place, a
        # joker may stand in for a natural that the other run needs (2C JK JK JK + 3C JK JK JK),
        # so smaller subsets are tried too, while the jokers last.
        options = [present]
        if runs >= 2 and len(present) >= 2:
            options += [
                list(sub)
                for k in range(len(present) - 1, 0, -1)
                if size - k <= work[JOKER]
                for sub in combinations(present, k)
            ]
        for taken in options:
            if _try_window(work, windows, i, taken, size, runs, trios, stealable, steal):
                return True
    return False


def _try_window(
    work: list[int],
    windows: list,
    i: int,
    taken: list[int],
    size: int,
    runs: int,
    trios: int,
    stealable: list[int],
    steal: bool,
) -> bool:
    """Place one run on window ``i`` with the naturals ``taken`` and jokers for the rest."""
    need = size - len(taken)
    if not taken or need > work[JOKER]:
        return False
    for c in taken:
        work[c] -= 1
    work[JOKER] -= need
    if steal and len(taken) >= 2:
        for c in taken:
            stealable[c % 13] += 1
    found = _exists_runs(work, windows, i, runs - 1, trios, stealable, steal)
    if steal and len(taken) >= 2:
        for c in taken:
            stealable[c % 13] -= 1
    for c in taken:
        work[c] += 1
    work[JOKER] += need
    return found


def _trios_fit(counts: Sequence[int], stealable: list[int], trios: int, jokers: int) -> bool:
    """Whether `trios` trios fit: the cheapest marginal joker costs, rank by rank, add up."""
    if trios == 0:
        return True
    costs = []
    for r in range(13):
        c, d, h, s = RANK_CARDS[r]
        n = counts[c] + counts[d] + counts[h] + counts[s]
        avail = n + stealable[r]  # a natural a run gives up costs the run one joker
        prev = 0
        for m in range(1, min(avail, trios) + 1):
            total = max(0, 3 * m - n)
            costs.append(total - prev)
            prev = total
    if len(costs) < trios:
        return False
    costs.sort()
    return sum(costs[:trios]) <= jokers
