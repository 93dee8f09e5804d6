"""A numba port of ``agents.contract.strong.make_plan``, kept only to time the numba toolchain.

``scripts/measure_toolchain.py`` times it against the C kernel (docs/speed-kernels.md). It
follows the same steps but is not held to the reference's exact tie-breaking, and nothing in the
package imports it.
"""

import numpy as np
from numba import njit


@njit(cache=True)
def slot_cost(u):
    return 1.0 + 1.5 / (u + 0.25)


@njit(cache=True)
def make_plan_nb(hand, unseen, trios, runs, min_run, wrap):
    JK = 52
    jokers = hand[JK]
    joker_help = 0.5 * unseen[JK]
    slot_of = np.empty(53)
    for c in range(53):
        slot_of[c] = slot_cost(unseen[c] + joker_help)
    tkey = np.empty(13)
    tr = np.empty(13, np.int64)
    tslot = np.empty(13)
    nt = 0
    if trios:
        for r in range(13):
            have = 0
            left = 0
            for s in range(4):
                have += hand[s * 13 + r]
                left += unseen[s * 13 + r]
            slot = slot_cost(left + joker_help)
            need = max(0, 3 - have)
            tkey[r] = need * slot - 0.01 * have
            tr[r] = r
            tslot[r] = slot
        order = np.argsort(tkey, kind="mergesort")
        nt = min(13, trios + 3)
        tr = tr[order][:nt]
        tslot = tslot[order][:nt]
    nstarts = 13 if wrap else 15 - min_run
    win = np.empty((4 * nstarts, min_run), np.int64)
    nw = 0
    for suit in range(4):
        for st in range(nstarts):
            for i in range(min_run):
                win[nw, i] = suit * 13 + (st + i) % 13
            nw += 1
    rcost = np.empty(2 * nw)
    rw = np.empty(2 * nw, np.int64)
    nr = 0
    if runs:
        for w in range(nw):
            held = 0
            cost = 0.0
            for i in range(min_run):
                c = win[w, i]
                if hand[c]:
                    held += 1
                else:
                    cost += slot_of[c]
            if held:
                rcost[nr] = cost
                rw[nr] = w
                nr += 1
        order = np.argsort(rcost[:nr], kind="mergesort")
        m = min(nr, runs + 3)
        rw2 = rw[:nr][order][:m]
        rcost[:nr][order][:m]
        nr = m
    else:
        rw2 = rw[:0]
        rcost[:0]
    # enumerate combinations with replacement (runs <= 3) and trio combinations (trios <= 3)
    best = 1e300
    best_missing = 0
    used = np.zeros(53, np.int64)
    need = np.zeros(53, np.int64)
    slots = np.empty(64)
    combos = []
    if runs == 0:
        combos.append((0, 0, 0))
    elif runs == 1:
        for a in range(nr):
            combos.append((a, 0, 0))
    elif runs == 2:
        for a in range(nr):
            for b in range(a, nr):
                combos.append((a, b, 0))
    else:
        for a in range(nr):
            for b in range(a, nr):
                for c in range(b, nr):
                    combos.append((a, b, c))
    for combo in combos:
        need[:] = 0
        ns = 0
        for j in range(runs):
            w = rw2[combo[j]]
            for i in range(min_run):
                c = win[w, i]
                k = need[c]
                need[c] = k + 1
                if k >= hand[c]:
                    extra = k - hand[c]
                    slots[ns] = (
                        slot_of[c]
                        if extra == 0
                        else slot_cost(max(0, unseen[c] - extra) + joker_help)
                    )
                    ns += 1
        for c in range(53):
            used[c] = min(need[c], hand[c])
        tn = np.zeros(13, np.int64)
        for t in range(nt):
            r = tr[t]
            have = 0
            for s in range(4):
                left = hand[s * 13 + r] - used[s * 13 + r]
                if left > 0:
                    have += left
            tn[t] = max(0, 3 - have)
        # trio combinations of size `trios` out of nt
        idx = np.arange(max(trios, 1))
        while True:
            ts = np.empty(ns + 9)
            ts[:ns] = slots[:ns]
            n = ns
            for j in range(trios):
                for _q in range(tn[idx[j]]):
                    ts[n] = tslot[idx[j]]
                    n += 1
            arr = -np.sort(-ts[:n])
            filled = min(jokers, len(arr))
            cost = 0.0
            for q in range(filled, len(arr)):
                cost += arr[q]
            if cost < best - 1e-9:
                best = cost
                best_missing = len(arr) - filled
            if trios == 0:
                break
            i = trios - 1
            while i >= 0 and idx[i] == i + nt - trios:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for j in range(i + 1, trios):
                idx[j] = idx[j - 1] + 1
    core = used.copy()
    core[JK] = jokers
    return best, best_missing, core


def make_plan(hand, unseen, trios, runs, min_run, wrap):
    c, m, core = make_plan_nb(
        np.array(hand, np.int64), np.array(unseen, np.int64), trios, runs, min_run, wrap
    )
    return c, m, tuple(core.tolist())
