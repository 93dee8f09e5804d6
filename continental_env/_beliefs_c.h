/* The search's belief sampler where it is hot, in plain C: one opponent's hand by
 * sampling-importance-resampling (agents.contract.beliefs.BeliefSampler._weighted_hand), with
 * the draws of CPython's random.sample and random.choices on the caller's generator (_mt_c.h),
 * so the hands and the generator's state afterwards are the Python sampler's. The contract
 * distance of each candidate hand is hand_analysis_c's (_features_c.h), as distance_bin reads
 * it. Included by _kernels.c after _features_c.h. */
#ifndef CONTINENTAL_BELIEFS_C_H
#define CONTINENTAL_BELIEFS_C_H

#include <math.h>
#include <string.h>

#include "_mt_c.h"

/* random.sample(range(n), k): k distinct indices in selection order (0 <= k <= n). `pool` holds
 * n ints and `selected` n bytes of scratch. The two branches and the set size that picks
 * between them are random.py's. */
static void mt_sample_range(MT *r, int n, int k, int *out, int *pool, unsigned char *selected) {
    long long setsize = 21;
    if (k > 5) {
        /* 4 ** ceil(log(k * 3, 4)): math.log(x, base) is log(x) / log(base) in doubles */
        int e = (int)ceil(log((double)k * 3.0) / log(4.0));
        long long p = 1;
        for (int i = 0; i < e; i++) p *= 4;
        setsize += p;
    }
    if (n <= setsize) {
        for (int i = 0; i < n; i++) pool[i] = i;
        for (int i = 0; i < k; i++) {
            int j = (int)mt_below(r, (uint32_t)(n - i));
            out[i] = pool[j];
            pool[j] = pool[n - i - 1];
        }
    } else {
        memset(selected, 0, (size_t)n);
        for (int i = 0; i < k; i++) {
            int j = (int)mt_below(r, (uint32_t)n);
            while (selected[j]) j = (int)mt_below(r, (uint32_t)n);
            selected[j] = 1;
            out[i] = j;
        }
    }
}

/* random.choices(range(n), weights)[0]: the cumulative weights added left to right, one draw
 * random() * total, bisect_right over the first n - 1 of them. -1: the total is not positive
 * and finite (Python raises ValueError there). */
static int mt_choice_weighted(MT *r, const double *weights, int n, double *cum) {
    double acc = 0.0;
    for (int i = 0; i < n; i++) {
        acc = i ? acc + weights[i] : weights[i];
        cum[i] = acc;
    }
    double total = cum[n - 1] + 0.0;
    if (!(total > 0.0) || !isfinite(total)) return -1;
    double x = mt_random(r) * total;
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x < cum[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* bisect_right(edges, x) (beliefs.excess_bin). */
static int edges_bin(const double *edges, int nedges, double x) {
    int lo = 0, hi = nedges;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x < edges[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* What _weighted_hand reads besides the generator. */
typedef struct {
    const int *cards; /* the cards not yet placed, in their shuffled order */
    int n;
    const int *known; /* the opponent's known cards (NT counts) */
    int free;         /* its unknown slots: the cards each candidate draws */
    int candidates;
    const double *ratios; /* likelihood ratio per distance bin (nratio = MAX_DISTANCE + 1) */
    int nratio;
    const double *grid; /* NULL, or nratio rows of nedges + 1 joint ratios (history) */
    const double *edges;
    int nedges;
    const double *pw; /* NULL, or per card type its partners of the seat's shown cards */
    double base;      /* a random hand's mean partners */
    int trios, runs, min_run, wrap;
} BeliefInput;

/* Scratch of weighted_hand_c: candidates * free picks, candidates * NT counts, and per
 * candidate its weight and cumulative weight; n ints and n bytes for the sampling. */
typedef struct {
    int *picks, *counts, *pool;
    double *weights, *cum;
    unsigned char *selected;
} BeliefWork;

/* The kept candidate's index (its picks at w->picks + k * free, its counts at w->counts + k *
 * NT); -1 when a hand's contract is out of hand_analysis_c's bounds, -2 when the weights'
 * total is not positive (the reference raises ValueError). */
static int weighted_hand_c(MT *r, const BeliefInput *in, BeliefWork *w) {
    for (int k = 0; k < in->candidates; k++) {
        int *picks = w->picks + (size_t)k * in->free;
        int *counts = w->counts + (size_t)k * NT;
        mt_sample_range(r, in->n, in->free, picks, w->pool, w->selected);
        memcpy(counts, in->known, sizeof(int) * NT);
        for (int i = 0; i < in->free; i++) counts[in->cards[picks[i]]] += 1;
        HandAnalysis ha;
        if (hand_analysis_c(counts, in->trios, in->runs, in->min_run, in->wrap, &ha) < 0)
            return -1;
        int d = ha.distance < in->nratio - 1 ? ha.distance : in->nratio - 1;
        if (in->pw == NULL || in->grid == NULL) {
            w->weights[k] = in->ratios[d];
        } else {
            double excess = 0.0; /* sum(pw[cards[i]] for i in picks) - base */
            for (int i = 0; i < in->free; i++) excess += in->pw[in->cards[picks[i]]];
            excess -= in->base;
            int b = edges_bin(in->edges, in->nedges, excess);
            w->weights[k] = in->grid[(size_t)d * (in->nedges + 1) + b];
        }
    }
    int kept = mt_choice_weighted(r, w->weights, in->candidates, w->cum);
    return kept < 0 ? -2 : kept;
}

#endif
