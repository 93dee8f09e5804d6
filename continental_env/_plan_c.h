/*
 * strong.make_plan_reference in plain C (the cheapest route to the round's contract), shared by
 * the compiled modules: _kernels.c's make_plan and the batch core's bots (_bots_c.h). One copy
 * of the code, no Python objects, no static state (the batch core runs it without the GIL).
 *
 * The result is the reference's, float bits and ties included:
 * - every sort reproduces Python's stable sort on the same keys (ties broken by the original
 *   position, which is what a stable sort keeps);
 * - floating point follows the same operations in the same order (Python floats are IEEE
 *   doubles; the build turns off contraction into fused multiply-adds), and `sum()` of floats
 *   is emulated as the running interpreter does it (plain left-to-right before 3.12,
 *   Neumaier-compensated from 3.12 on);
 * - enumerations (combinations, combinations with replacement) visit in itertools' order.
 *
 * Include Python.h first (PY_VERSION_HEX picks the interpreter's float sum).
 */
#ifndef CONTINENTAL_PLAN_C_H
#define CONTINENTAL_PLAN_C_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "_melds_c.h"

#define PLAN_MAXCOMBO 4096
#define PLAN_MAXSLOTS 96
#define PLAN_TOO_MANY (-1) /* more run or trio combinations than PLAN_MAXCOMBO */
#define PLAN_NONE (-2)     /* no combination at all (the reference's assertion) */

/* sum() of a list of floats as the running interpreter computes it. Python 3.12 made sum()
 * of floats compensated (Neumaier); earlier versions add left to right. An empty list sums to
 * the int 0 there; callers handle that case themselves. */
static double py_sum(const double *x, int n) {
    if (n == 0) return 0.0;
    double f = x[0];
#if defined(PY_VERSION_HEX) && PY_VERSION_HEX >= 0x030C0000
    double c = 0.0;
    for (int i = 1; i < n; i++) {
        double t = f + x[i];
        if (fabs(f) >= fabs(x[i]))
            c += (f - t) + x[i];
        else
            c += (x[i] - t) + f;
        f = t;
    }
    if (c != 0.0 && isfinite(c)) f += c;
#else
    for (int i = 1; i < n; i++) f += x[i];
#endif
    return f;
}

/* strong._slot_cost */
static inline double slot_cost(double unseen) { return 1.0 + 1.5 / (unseen + 0.25); }

typedef struct {
    double key;
    int r;
    double slot;
} TrioCand;

typedef struct {
    double cost;
    int w; /* index into the sorted windows: order of the card tuples */
} RunCand;

/* The candidates' orders (Python's tuple order on (key, r) and (cost, cards)); both are total:
 * the ranks, and the windows, differ. Insertion sorts: a few dozen items at most. */
static inline int trio_before(const TrioCand *x, const TrioCand *y) {
    return x->key < y->key || (x->key == y->key && x->r < y->r);
}

static inline int run_before(const RunCand *x, const RunCand *y) {
    return x->cost < y->cost || (x->cost == y->cost && x->w < y->w);
}

/* The first `k` of `a` in sorted order, into `a[0..k)`: what sorting all `n` and keeping `k`
 * gives (the orders are total). Returns how many were kept, min(n, k). */
static int first_trios(TrioCand *a, int n, int k) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        TrioCand t = a[i];
        if (m == k && !trio_before(&t, &a[m - 1])) continue;
        int j = m < k ? m++ : m - 1;
        for (; j > 0 && trio_before(&t, &a[j - 1]); j--) a[j] = a[j - 1];
        a[j] = t;
    }
    return m;
}

static int first_runs(RunCand *a, int n, int k) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        RunCand t = a[i];
        if (m == k && !run_before(&t, &a[m - 1])) continue;
        int j = m < k ? m++ : m - 1;
        for (; j > 0 && run_before(&t, &a[j - 1]); j--) a[j] = a[j - 1];
        a[j] = t;
    }
    return m;
}

/* Highest first (equal doubles are interchangeable). */
static void sort_desc(double *a, int n) {
    for (int i = 1; i < n; i++) {
        double t = a[i];
        int j = i;
        for (; j > 0 && a[j - 1] < t; j--) a[j] = a[j - 1];
        a[j] = t;
    }
}

/* Windows of strong._run_windows: every suit and span as card tuples, sorted and distinct. */
static int run_windows(int min_run, int wrap, int win[][MAXRUN]) {
    int starts[NR + 1];
    int ns = min_span_starts(min_run, wrap, starts);
    int n = 0;
    for (int suit = 0; suit < 4; suit++)
        for (int s = 0; s < ns; s++) {
            for (int i = 0; i < min_run; i++) win[n][i] = suit * NR + (starts[s] + i) % NR;
            n++;
        }
    /* sort lexicographically (insertion sort: at most 56 windows) */
    for (int i = 1; i < n; i++) {
        int tmp[MAXRUN];
        memcpy(tmp, win[i], sizeof tmp);
        int j = i - 1;
        while (j >= 0 && lex_greater(win[j], tmp, min_run)) {
            memcpy(win[j + 1], win[j], sizeof tmp);
            j--;
        }
        memcpy(win[j + 1], tmp, sizeof tmp);
    }
    /* drop duplicates (the set in the reference) */
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m && memcmp(win[m - 1], win[i], sizeof(int) * min_run) == 0) continue;
        if (m != i) memcpy(win[m], win[i], sizeof(int) * MAXRUN);
        m++;
    }
    return m;
}

/* The scratch arrays of make_plan_c (too large for a thread's stack); the run windows of the
 * last (min_run, wrap) are kept (win_min_run 0: none yet). Zero `win_min_run` and `need` before
 * the first call. */
typedef struct {
    int win_min_run, win_wrap, nw;
    int win[MAXW][MAXRUN];
    int need[NT]; /* all zero between calls */
    int run_combos[PLAN_MAXCOMBO][4];
    int trio_combos[PLAN_MAXCOMBO][8];
    double bounds[PLAN_MAXCOMBO];
    int order[PLAN_MAXCOMBO];
} PlanWork;

/* strong.Plan: `cost` (the int 0 of sum([]) when `cost_is_int`), `missing`, `core`. */
typedef struct {
    double cost;
    int cost_is_int;
    int missing;
    int core[NT];
} PlanResult;

/* strong.make_plan_reference(hand, unseen, trios, runs, rules) for trios 0..7, runs 0..4,
 * min_run 1..MAXRUN: 0 with `out` filled, PLAN_TOO_MANY or PLAN_NONE. */
static int make_plan_c(const int *hand, const int *unseen, int trios, int runs, int min_run,
                       int wrap, PlanWork *w, PlanResult *out) {
    const int jokers = hand[JK];
    const double joker_help = 0.5 * unseen[JK];
    double slot_of[NT];
    for (int c = 0; c < NT; c++) slot_of[c] = slot_cost(unseen[c] + joker_help);

    /* Trio candidates: every rank by the cost of the slots it still needs. */
    TrioCand trio_cands[NR];
    int nt = 0;
    if (trios) {
        for (int r = 0; r < NR; r++) {
            int have = 0, left = 0;
            for (int s = 0; s < 4; s++) {
                have += hand[s * NR + r];
                left += unseen[s * NR + r];
            }
            double slot = slot_cost(left + joker_help);
            int need = 3 - have > 0 ? 3 - have : 0;
            trio_cands[nt].key = need * slot - 0.01 * have;
            trio_cands[nt].r = r;
            trio_cands[nt].slot = slot;
            nt++;
        }
        nt = first_trios(trio_cands, nt, trios + 3); /* EXTRA_TRIO_CANDIDATES */
    }

    /* Run candidates: windows holding a hand natural, by the cost of their missing cards. */
    int(*win)[MAXRUN] = w->win;
    if (w->win_min_run != min_run || w->win_wrap != wrap) {
        w->nw = run_windows(min_run, wrap, win);
        w->win_min_run = min_run;
        w->win_wrap = wrap;
    }
    int nw = w->nw;
    RunCand run_cands[2 * MAXW];
    int nr = 0;
    if (runs) {
        for (int k = 0; k < nw; k++) {
            int held = 0;
            double cost = 0.0;
            for (int i = 0; i < min_run; i++) {
                int c = win[k][i];
                if (hand[c])
                    held++;
                else
                    cost += slot_of[c];
            }
            if (held) {
                run_cands[nr].cost = cost;
                run_cands[nr].w = k;
                nr++;
            }
        }
        if (nr < runs) {
            for (int k = 0; k < nw; k++) {
                double xs[MAXRUN] = {0};
                for (int i = 0; i < min_run; i++) xs[i] = slot_of[win[k][i]];
                run_cands[nr].cost = py_sum(xs, min_run);
                run_cands[nr].w = k;
                nr++;
            }
        }
        nr = first_runs(run_cands, nr, runs + 3); /* EXTRA_RUN_CANDIDATES */
    }

    /* Combinations, in itertools' order. */
    int(*run_combos)[4] = w->run_combos;
    int n_run_combos = 0;
    if (runs && nr > 0) {
        int idx[4] = {0, 0, 0, 0};
        do {
            if (n_run_combos >= PLAN_MAXCOMBO) return PLAN_TOO_MANY;
            memcpy(run_combos[n_run_combos++], idx, sizeof idx);
        } while (next_combination_r(idx, runs, nr));
    } else if (!runs) {
        n_run_combos = 1; /* [()] */
    }
    int(*trio_combos)[8] = w->trio_combos;
    int n_trio_combos = 0;
    if (trios) {
        if (trios <= nt) {
            int idx[8];
            for (int i = 0; i < trios; i++) idx[i] = i;
            do {
                if (n_trio_combos >= PLAN_MAXCOMBO) return PLAN_TOO_MANY;
                memcpy(trio_combos[n_trio_combos++], idx, sizeof idx);
            } while (next_combination(idx, trios, nt));
        }
    } else {
        n_trio_combos = 1;
    }

    /* Lower bounds of each run combination's cost (see the reference for why they hold). */
    double dearest[2 * MAXW];
    for (int k = 0; k < nr; k++) {
        double d = 0.0;
        int any = 0;
        for (int i = 0; i < min_run; i++) {
            int c = win[run_cands[k].w][i];
            if (!hand[c] && (!any || slot_of[c] > d)) {
                d = slot_of[c];
                any = 1;
            }
        }
        dearest[k] = any ? d : 0.0;
    }
    double *bounds = w->bounds;
    int *order = w->order;
    for (int p = 0; p < n_run_combos; p++) {
        double bound = 0.0;
        for (int j = 0; j < runs; j++) bound += run_cands[run_combos[p][j]].cost;
        if (jokers && runs) {
            double m = dearest[run_combos[p][0]];
            for (int j = 1; j < runs; j++)
                if (dearest[run_combos[p][j]] > m) m = dearest[run_combos[p][j]];
            bound -= jokers * m;
        }
        bounds[p] = bound;
    }
    /* sorted(range(n), key=bounds.__getitem__): a stable insertion sort (a few dozen items) */
    for (int p = 0; p < n_run_combos; p++) {
        int j = p;
        while (j > 0 && bounds[order[j - 1]] > bounds[p]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = p;
    }

    int have_best = 0, best_int_zero = 0;
    double best_cost = 0.0;
    int best_missing = 0, best_pos = 0, best_tpos = 0;
    int best_run_combo = 0, best_trio_combo = 0;

    for (int oi = 0; oi < n_run_combos; oi++) {
        int pos = order[oi];
        if (have_best && bounds[pos] > best_cost + 2e-9) break;
        int *need = w->need; /* zero between combinations: only the combination's cards set */
        double slots[PLAN_MAXSLOTS];
        int ns = 0;
        for (int j = 0; j < runs; j++) {
            const int *cards = win[run_cands[run_combos[pos][j]].w];
            for (int i = 0; i < min_run; i++) {
                int c = cards[i];
                int k = need[c];
                need[c] = k + 1;
                if (k >= hand[c]) {
                    int extra = k - hand[c];
                    int u = unseen[c] - extra;
                    slots[ns++] = extra == 0 ? slot_of[c] : slot_cost((u > 0 ? u : 0) + joker_help);
                }
            }
        }
        int trio_n[NR]; /* missing slots of each trio candidate given the runs' cards */
        for (int t = 0; t < nt; t++) {
            int r = trio_cands[t].r, have = 0;
            for (int s = 0; s < 4; s++) {
                int c = s * NR + r; /* what the runs leave: hand - min(need, hand) */
                int left = hand[c] - (need[c] < hand[c] ? need[c] : hand[c]);
                if (left > 0) have += left;
            }
            trio_n[t] = 3 - have > 0 ? 3 - have : 0;
        }
        for (int j = 0; j < runs; j++) { /* need back to zero */
            const int *cards = win[run_cands[run_combos[pos][j]].w];
            for (int i = 0; i < min_run; i++) need[cards[i]] = 0;
        }
        sort_desc(slots, ns); /* each trio combination's sort then only places its own slots */
        for (int tp = 0; tp < n_trio_combos; tp++) {
            double t_slots[PLAN_MAXSLOTS];
            int n = ns;
            memcpy(t_slots, slots, sizeof(double) * ns);
            for (int j = 0; j < trios; j++) {
                int t = trio_combos[tp][j];
                for (int q = 0; q < trio_n[t]; q++) t_slots[n++] = trio_cands[t].slot;
            }
            sort_desc(t_slots, n);
            int filled = jokers < n ? jokers : n;
            int nrest = n - filled;
            double cost = py_sum(t_slots + filled, nrest);
            if (!have_best || cost < best_cost - 1e-9 ||
                (cost <= best_cost + 1e-9 &&
                 (pos < best_pos || (pos == best_pos && tp < best_tpos)))) {
                have_best = 1;
                best_cost = cost;
                best_int_zero = nrest == 0; /* sum([]) is the int 0 */
                best_missing = nrest;
                best_run_combo = pos;
                best_trio_combo = tp;
                best_pos = pos;
                best_tpos = tp;
            }
        }
    }
    if (!have_best) return PLAN_NONE;

    /* The core: what the plan's runs and trios use, every joker, and run extensions. */
    int *core = out->core;
    int used[NT]; /* the best run combination's cards in hand: min(need, hand) */
    memset(used, 0, sizeof used);
    for (int j = 0; j < runs; j++) {
        const int *cards = win[run_cands[run_combos[best_run_combo][j]].w];
        for (int i = 0; i < min_run; i++) used[cards[i]]++;
    }
    for (int c = 0; c < NT; c++) used[c] = used[c] < hand[c] ? used[c] : hand[c];
    for (int j = 0; j < trios; j++) {
        int r = trio_cands[trio_combos[best_trio_combo][j]].r;
        for (int s = 0; s < 4; s++) {
            int c = s * NR + r;
            int left = hand[c] - used[c];
            if (left > 0) used[c] += left;
        }
    }
    for (int c = 0; c < NT; c++) core[c] = used[c];
    core[JK] = jokers;
    for (int j = 0; j < runs; j++) {
        const int *cards = win[run_cands[run_combos[best_run_combo][j]].w];
        int suit = cards[0] / NR;
        for (int e = 0; e < 2; e++) { /* HIGH, then LOW; a fresh run for each end */
            int start = cards[0] % NR, n = min_run;
            for (;;) {
                /* melds.end_card: the natural that extends this end, if the end is open */
                if (n >= NR) break;
                if (!wrap && (e == 1 ? !(start > 0) : !(start + n - 1 < NR))) break;
                int c = suit * NR + pymod(start + (e == 1 ? -1 : n), NR);
                int in_window = 0;
                for (int i = 0; i < min_run; i++) in_window |= cards[i] == c;
                if (hand[c] <= core[c] || in_window) break;
                core[c] += 1;
                n++; /* melds.extend_run */
                if (e == 1) start = wrap ? pymod(start - 1, NR) : start - 1;
            }
        }
    }
    out->cost = best_cost;
    out->cost_is_int = best_int_zero;
    out->missing = best_missing;
    return 0;
}

#endif /* CONTINENTAL_PLAN_C_H */
