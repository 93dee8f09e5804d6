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

/* Rank lists of every run of exactly `min_run` positions (melds.min_spans): the first rank of
 * each span; position i of the span is rank (first + i) % 13. */
static int min_span_starts(int min_run, int wrap, int *starts) {
    int n = wrap ? NR : 14 - min_run + 1;
    for (int s = 0; s < n; s++) starts[s] = s;
    return n;
}

/* Set bits of x (SWAR; no popcount instruction is assumed of the target). */
static inline int popcount32(unsigned x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
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
} Windows;

/* melds.contract._trios_fit: the cheapest marginal joker costs, rank by rank, add up. */
static int trios_fit(const int *counts, const int *stealable, int trios, int jokers) {
    if (trios == 0) return 1;
    int costs[NR * 8];
    int n = 0;
    for (int r = 0; r < NR; r++) {
        int have = counts[r] + counts[NR + r] + counts[2 * NR + r] + counts[3 * NR + r];
        int avail = have + stealable[r];
        int prev = 0;
        int top = avail < trios ? avail : trios;
        for (int m = 1; m <= top; m++) {
            int total = 3 * m - have > 0 ? 3 * m - have : 0;
            costs[n++] = total - prev;
            prev = total;
        }
    }
    if (n < trios) return 0;
    /* the sum of the `trios` smallest costs (partial selection sort: trios is small) */
    int sum = 0;
    for (int k = 0; k < trios; k++) {
        int best = k;
        for (int i = k + 1; i < n; i++)
            if (costs[i] < costs[best]) best = i;
        int tmp = costs[k];
        costs[k] = costs[best];
        costs[best] = tmp;
        sum += costs[k];
    }
    return sum <= jokers;
}

static int exists_runs(int *work, const Windows *w, int first, int runs, int *stealable);

static int try_window(int *work, const Windows *w, int i, const int *taken, int nt, int runs,
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

static int exists_runs(int *work, const Windows *w, int first, int runs, int *stealable) {
    if (runs == 0) return trios_fit(work, stealable, w->trios, work[JK]);
    for (int i = first; i < w->n; i++) {
        const int *cards = w->cards[i];
        int present[MAXRUN], np = 0;
        for (int k = 0; k < w->size; k++)
            if (work[cards[k]]) present[np++] = cards[k];
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

/* melds.exists.contract_exists: whether `trios` trios and `runs` runs of `min_run` fit the
 * counts (minimal melds); `steal` lets a trio take a natural a run gives up for a joker. */
static int contract_exists_c(const int *counts, int trios, int runs, int min_run, int wrap,
                             int steal) {
    int work[NT];
    memcpy(work, counts, sizeof work);
    int stealable[NR] = {0};
    if (runs == 0) return trios_fit(counts, stealable, trios, counts[JK]);
    Windows w;
    w.n = 0;
    w.size = min_run;
    w.steal = steal;
    w.trios = trios;
    int starts[NR + 1];
    int ns = min_span_starts(min_run, wrap, starts);
    int least = min_run - counts[JK] > 1 ? min_run - counts[JK] : 1;
    const unsigned full = (1u << min_run) - 1u, ranks = (1u << NR) - 1u;
    for (int suit = 0; suit < 4; suit++) {
        const int *row = counts + suit * NR;
        unsigned held = 0; /* bit r: the suit's rank r is in hand */
        for (int r = 0; r < NR; r++) held |= (unsigned)(row[r] != 0) << r;
        if (!held) continue;
        for (int s = 0; s < ns; s++) {
            /* the span's ranks (start + i) % 13 as bits: the run's bits, the wrapped ones low */
            int st = starts[s];
            unsigned span = ((full << st) | (full >> (NR - st))) & ranks;
            if (popcount32(held & span) >= least) {
                for (int i = 0; i < min_run; i++)
                    w.cards[w.n][i] = suit * NR + (starts[s] + i) % NR;
                w.n++;
            }
        }
    }
    if (w.n == 0) return 0;
    return exists_runs(work, &w, 0, runs, stealable);
}

#endif /* CONTINENTAL_MELDS_C_H */
