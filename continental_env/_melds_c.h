/*
 * Meld helpers shared by the compiled modules (_kernels.c, _batch.c): card constants, Python's
 * modulo, itertools' combination order and the contract existence check (melds.exists), so
 * that both modules run one copy of the code. Everything is static: each module gets its own.
 */
#ifndef CONTINENTAL_MELDS_C_H
#define CONTINENTAL_MELDS_C_H

#include <string.h>

#define NT 53    /* card types */
#define JK 52    /* the joker */
#define NR 13    /* ranks */
#define MAXW 64  /* run windows: 4 suits x at most 14 starts */
#define MAXRUN 13

static inline int pymod(int a, int m) { /* Python's a % m for m > 0 */
    int r = a % m;
    return r < 0 ? r + m : r;
}

/* (i % 13) for i < 27: the rank at position i of a span that starts at rank i0 <= 13 */
static const unsigned char RANK_AT[2 * NR + 1] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1,
                                                   2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0};

/* Rank lists of every run of exactly `min_run` positions (melds.min_spans): the first rank of
 * each span; position i of the span is rank (first + i) % 13. */
static int min_span_starts(int min_run, int wrap, int *starts) {
    int n = wrap ? NR : 14 - min_run + 1;
    for (int s = 0; s < n; s++) starts[s] = s;
    return n;
}

/* Next combination of `k` indices out of `n` in itertools' order; 0 when done. */
static int next_combination(int *idx, int k, int n) {
    int i = k - 1;
    while (i >= 0 && idx[i] == i + n - k) i--;
    if (i < 0) return 0;
    idx[i]++;
    for (int j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
    return 1;
}

/* Next combination with replacement in itertools' order; 0 when done. */
static inline int next_combination_r(int *idx, int k, int n) {
    int i = k - 1;
    while (i >= 0 && idx[i] == n - 1) i--;
    if (i < 0) return 0;
    int v = idx[i] + 1;
    for (int j = i; j < k; j++) idx[j] = v;
    return 1;
}

/* Whether int tuple `a` sorts after `b` (Python's tuple order, equal lengths `n`). */
static inline int lex_greater(const int *a, const int *b, int n) {
    for (int k = 0; k < n; k++)
        if (a[k] != b[k]) return a[k] > b[k];
    return 0;
}

/* ===================================================================== melds.contract_exists */

typedef struct {
    int cards[MAXW][MAXRUN];
    int n;
    int size;
    int steal;
    int trios;
    /* contract_exists_both: a leaf whose trios fit only by stealing sets steal_only and the
     * search goes on for one that fits without (both == 0: the first leaf that fits ends it) */
    int both, steal_only;
} Windows;

/* melds.contract._trios_fit: the cheapest marginal joker costs, rank by rank, add up. */
static int trios_fit(const int *counts, const int *stealable, int trios, int jokers) {
    if (trios == 0) return 1;
    if (trios == 1) { /* some rank with a card to use whose 3 - have the jokers cover */
        for (int r = 0; r < NR; r++) {
            int have = counts[r] + counts[NR + r] + counts[2 * NR + r] + counts[3 * NR + r];
            if (have + stealable[r] >= 1 && 3 - have <= jokers) return 1;
        }
        return 0;
    }
    /* Each rank's marginal costs (3m - have, clipped at 0, step by step) lie in 0..3: count
     * them by value and take the `trios` smallest, cheapest first. */
    int by_cost[4] = {0, 0, 0, 0};
    int n = 0;
    for (int r = 0; r < NR; r++) {
        int have = counts[r] + counts[NR + r] + counts[2 * NR + r] + counts[3 * NR + r];
        int avail = have + stealable[r];
        int prev = 0;
        int top = avail < trios ? avail : trios;
        for (int m = 1; m <= top; m++) {
            int total = 3 * m - have > 0 ? 3 * m - have : 0;
            by_cost[total - prev]++;
            prev = total;
        }
        n += top > 0 ? top : 0;
    }
    if (n < trios) return 0;
    int sum = 0, left = trios;
    for (int cost = 0; cost < 4 && left > 0; cost++) {
        int take = by_cost[cost] < left ? by_cost[cost] : left;
        sum += take * cost;
        left -= take;
    }
    return sum <= jokers;
}

static int exists_runs(int *work, Windows *w, int first, int runs, int *stealable);

static int try_window(int *work, Windows *w, int i, const int *taken, int nt, int runs,
                      int *stealable) {
    int need = w->size - nt;
    if (nt == 0 || need > work[JK]) return 0;
    for (int k = 0; k < nt; k++) work[taken[k]]--;
    work[JK] -= need;
    int mark = w->steal && nt >= 2;
    if (mark)
        for (int k = 0; k < nt; k++) stealable[taken[k] % NR]++;
    int found = exists_runs(work, w, i, runs - 1, stealable);
    if (mark)
        for (int k = 0; k < nt; k++) stealable[taken[k] % NR]--;
    for (int k = 0; k < nt; k++) work[taken[k]]++;
    work[JK] += need;
    return found;
}

static const int NO_STEALS[NR];

static int exists_runs(int *work, Windows *w, int first, int runs, int *stealable) {
    if (runs == 0) {
        if (!w->both) return trios_fit(work, stealable, w->trios, work[JK]);
        /* the steal-free search reaches the same leaves with nothing stealable */
        if (trios_fit(work, NO_STEALS, w->trios, work[JK])) return 1;
        if (trios_fit(work, stealable, w->trios, work[JK])) w->steal_only = 1;
        return 0;
    }
    for (int i = first; i < w->n; i++) {
        const int *cards = w->cards[i];
        int present[MAXRUN], np = 0;
        for (int k = 0; k < w->size; k++) { /* branch-free: random hands defeat prediction */
            present[np] = cards[k];
            np += work[cards[k]] != 0;
        }
        if (np == 0 || w->size - np > work[JK]) continue;
        /* Every natural the window covers; then, with another run still to place, smaller
         * subsets while the jokers last (a joker may stand in for a natural another run needs).
         * The answer is a yes/no, so the order of the subsets does not change it. */
        if (try_window(work, w, i, present, np, runs, stealable)) return 1;
        if (runs >= 2 && np >= 2) {
            for (int k = np - 1; k >= 1; k--) {
                if (w->size - k > work[JK]) continue;
                int idx[MAXRUN], taken[MAXRUN];
                for (int q = 0; q < k; q++) idx[q] = q;
                do {
                    for (int q = 0; q < k; q++) taken[q] = present[idx[q]];
                    if (try_window(work, w, i, taken, k, runs, stealable)) return 1;
                } while (next_combination(idx, k, np));
            }
        }
    }
    return 0;
}

/* The suit row's ranks held at least `j` times as bits, twice over (bit i: rank i % 13), so a
 * span of ranks past the king reads on from the ace. */
static inline unsigned suit_held(const int *row, int j) {
    unsigned held = 0;
    for (int r = 0; r < NR; r++) held |= (unsigned)(row[r] >= j) << r;
    return held | held << NR;
}

/* covered[s]: the bits of `held` (suit_held) in the span of `min_run` ranks from each start s
 * < ns, counted once and then slid one start at a time (the rank leaving at the low end, the
 * rank entering at the high end). */
static inline void spans_covered(unsigned held, int min_run, int ns, int *covered) {
    int c = 0;
    for (int i = 0; i < min_run; i++) c += (int)(held >> i & 1u);
    covered[0] = c;
    for (int s = 1; s < ns; s++) {
        c += (int)(held >> (s + min_run - 1) & 1u) - (int)(held >> (s - 1) & 1u);
        covered[s] = c;
    }
}

/* An upper bound on the naturals `runs` runs of `min_run` can hold together: each run lies in a
 * window (a suit and a span of `min_run` ranks), and the j-th run in the same window holds only
 * ranks the hand has at least j of; the `runs` largest of those counts over every window and j,
 * added. Overlapping windows are counted in full, so the bound only over-counts: a hand whose
 * jokers cannot make up the rest has no contract. `by_covered` holds the first runs' counts
 * (every window's naturals, as the window list counts them); the later runs' are added here. */
static int runs_naturals_bound(const int *counts, int runs, int min_run, int ns,
                               int *by_covered) {
    int covered[NR + 1];
    for (int suit = 0; suit < 4; suit++) {
        for (int j = 2; j <= runs; j++) {
            unsigned held = suit_held(counts + suit * NR, j);
            if (!held) break; /* none with j, none with more */
            spans_covered(held, min_run, ns, covered);
            for (int s = 0; s < ns; s++) by_covered[covered[s]]++;
        }
    }
    int sum = 0, left = runs;
    for (int v = min_run; v > 0 && left > 0; v--) {
        int take = by_covered[v] < left ? by_covered[v] : left;
        sum += take * v;
        left -= take;
    }
    return sum;
}

/* The search behind contract_exists_c and contract_exists_both (below). */
static int contract_exists_search(const int *counts, int trios, int runs, int min_run, int wrap,
                                  int steal, int both, int *steal_only) {
    int work[NT];
    memcpy(work, counts, sizeof work);
    int stealable[NR] = {0};
    /* The trios must fit the whole hand before they can fit what the runs leave: every rank's
     * naturals left or stealable are naturals of the hand, and the jokers left are the hand's
     * at most, so a hand whose trios alone do not fit has no contract (no search needed). */
    if (!trios_fit(counts, stealable, trios, counts[JK])) return 0;
    if (runs == 0) return 1;
    int starts[NR + 1];
    int ns = min_span_starts(min_run, wrap, starts);
    Windows w;
    w.n = 0;
    w.size = min_run;
    w.steal = steal;
    w.trios = trios;
    w.both = both;
    w.steal_only = 0;
    int least = min_run - counts[JK] > 1 ? min_run - counts[JK] : 1;
    int by_covered[MAXRUN + 1] = {0}; /* windows by the naturals they cover (the bound's) */
    for (int suit = 0; suit < 4; suit++) {
        unsigned held = suit_held(counts + suit * NR, 1);
        if (!held) continue;
        int covered[NR + 1]; /* the spans' starts are 0, 1, ..., ns - 1 */
        spans_covered(held, min_run, ns, covered);
        for (int s = 0; s < ns; s++) {
            by_covered[covered[s]]++;
            if (covered[s] >= least) {
                for (int i = 0; i < min_run; i++)
                    w.cards[w.n][i] = suit * NR + RANK_AT[starts[s] + i];
                w.n++;
            }
        }
    }
    /* with one run, the window list (each within the jokers of full) is the same test */
    if (runs >= 2 &&
        runs * min_run - runs_naturals_bound(counts, runs, min_run, ns, by_covered) > counts[JK])
        return 0;
    if (w.n == 0) return 0;
    int found = exists_runs(work, &w, 0, runs, stealable);
    /* a fit without stealing answers both, whatever leaves before it needed a steal */
    if (steal_only != NULL) *steal_only = found ? 0 : w.steal_only;
    return found;
}

/* melds.exists.contract_exists: whether `trios` trios and `runs` runs of `min_run` fit the
 * counts (minimal melds); `steal` lets a trio take a natural a run gives up for a joker. */
static inline int contract_exists_c(const int *counts, int trios, int runs, int min_run,
                                    int wrap, int steal) {
    return contract_exists_search(counts, trios, runs, min_run, wrap, steal, 0, NULL);
}

/* Both answers of contract_exists in one search: 1 when the contract fits without stealing
 * (then with it too); else 0, and *steal_only says whether it fits only with stealing. */
static inline int contract_exists_both(const int *counts, int trios, int runs, int min_run,
                                       int wrap, int *steal_only) {
    *steal_only = 0;
    return contract_exists_search(counts, trios, runs, min_run, wrap, 1, 1, steal_only);
}

#endif /* CONTINENTAL_MELDS_C_H */
