/*
 * The continental_v1 features in C: melds.distance.hand_analysis and
 * contract.features.encode_features_reference, ported exactly (bit-identical float32 vectors).
 *
 * Plain C, no Python objects: `static inline` code (no warning where a part goes unused) meant
 * to be #included by a C file that wants the features (the `_kernels` module's Python entries,
 * or a core that steps many games and points a FeatInput at its own arrays). Self-contained:
 * it needs only the C library.
 *
 * Card ids: 0..51 are naturals (suit * 13 + rank, rank 0 = ace), 52 is the joker.
 *
 * Floating point follows numpy's operations in the reference, one by one (the build turns off
 * contraction into fused multiply-adds): float32 arrays multiplied in float32, Python floats
 * (doubles) divided in double and stored to float32, numpy float32 scalars in float32.
 */
#ifndef CONTINENTAL_FEATURES_C_H
#define CONTINENTAL_FEATURES_C_H

#include <string.h>

#ifndef NT
#define NT 53 /* card types */
#endif
#ifndef JK
#define JK 52 /* the joker */
#endif
#ifndef NR
#define NR 13 /* ranks */
#endif
#ifndef MAXW
#define MAXW 64 /* run windows: 4 suits x at most 14 starts */
#endif
#ifndef MAXRUN
#define MAXRUN 13
#endif

/* i % 13 for 0 <= i < 27: the rank at position i of a span or a reach that may pass the king
 * (this header stands alone, so it keeps its own table) */
static const unsigned char FEAT_RANK_MOD[2 * NR + 1] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0};

/* ================================================================= melds.distance.hand_analysis */
/*
 * Distance to the contract (melds.distance._Plans): a branch and bound over run windows, trio
 * ranks by their marginal costs at each leaf. Integers only; the visiting order is the
 * reference's, so the first best plan (which fixes the cards "in trios" and "in runs") is the
 * same one. Sets of card ids are 64-bit masks (53 card types).
 */

typedef unsigned long long Mask;
#define ALL_CARDS ((((Mask)1) << NT) - 1)
#define HA_MAX_MELDS 8 /* trios and runs of one contract: the arrays below hold this many */

typedef struct {
    int trios, runs, jokers, hand_size, slots, min_run;
    int nw;
    int win[MAXW][MAXRUN];
    int static_empty[MAXW];
    int best;
    Mask reducers;
    /* the run naturals taken at each depth, and the first best plan */
    int took[HA_MAX_MELDS][MAXRUN], n_took[HA_MAX_MELDS], depth;
    int plan_took[HA_MAX_MELDS][MAXRUN], plan_n_took[HA_MAX_MELDS], plan_depth;
    int plan_ranks[HA_MAX_MELDS], plan_n_ranks;
    int plan_left[NT];
} Plans;

/* What melds.distance.hand_analysis returns: (distance, reducers, in_trio, in_run). */
typedef struct {
    int distance;
    Mask reducers; /* bit c: card type c reduces the distance */
    int in_trio[NT];
    int in_run[NT];
} HandAnalysis;

/* melds.distance._trio_choice: the cheapest `trios` (marginal, rank, m) items.
 *
 * Item (r, m) is the m-th trio of rank r, m = 1..trios; its marginal is total(m) - total(m - 1)
 * with total(m) = max(0, 3m - left[r]). For a rank with L naturals left that is 0 for
 * m <= L / 3, then 3 - L % 3 for m* = L / 3 + 1, then 3: every marginal is 0..3 and a rank's
 * items come in m order. So the stable selection by (marginal, rank, m) takes, for each marginal
 * v = 0, 1, 2, 3 in turn, the ranks' items of marginal v in (rank, m) order, until `trios` are
 * chosen (the reference builds all 13 x trios items and selects the smallest in turn). */
static inline void trio_choose(int r, int m, int v, const int *left, int *k, int *empty,
                               int *ranks, int *bare_n, Mask *bare_mask) {
    *empty += v;
    ranks[(*k)++] = r;
    if (m > left[r]) { /* a trio with no natural of the hand */
        (*bare_n)++;
        for (int s = 0; s < 4; s++) *bare_mask |= ((Mask)1) << (s * NR + r);
    }
}

static inline void trio_choice(const int *left, int trios, int *empty, int *ranks, int *bare_n,
                               Mask *bare_mask, Mask *fill_mask) {
    *empty = 0;
    *bare_n = 0;
    *bare_mask = 0;
    *fill_mask = 0;
    if (trios <= 0) return;
    int k = 0, threshold = 0;
    for (int r = 0; r < NR && k < trios; r++) /* marginal 0: m = 1 .. L / 3 */
        for (int m = 1; m <= left[r] / 3 && m <= trios && k < trios; m++)
            trio_choose(r, m, 0, left, &k, empty, ranks, bare_n, bare_mask);
    for (int v = 1; v <= 2 && k < trios; v++) /* 1 and 2: m* of the ranks with L % 3 == 3 - v */
        for (int r = 0; r < NR && k < trios; r++)
            if (left[r] / 3 + 1 <= trios && 3 - left[r] % 3 == v) {
                trio_choose(r, left[r] / 3 + 1, v, left, &k, empty, ranks, bare_n, bare_mask);
                threshold = v;
            }
    for (int r = 0; r < NR && k < trios; r++) { /* 3: m* when L % 3 == 0, and every m past m* */
        int first = left[r] / 3 + (left[r] % 3 == 0 ? 1 : 2);
        for (int m = first; m <= trios && k < trios; m++) {
            trio_choose(r, m, 3, left, &k, empty, ranks, bare_n, bare_mask);
            threshold = 3;
        }
    }
    /* fill: the ranks with an item of marginal in (0, threshold]: their smallest positive one,
     * 3 - L % 3 at m*, when m* <= trios */
    for (int r = 0; r < NR; r++)
        if (left[r] / 3 + 1 <= trios && 3 - left[r] % 3 <= threshold)
            for (int s = 0; s < 4; s++) *fill_mask |= ((Mask)1) << (s * NR + r);
}

static inline void plans_trios(Plans *p, const int *work, int empty, int seeds, Mask missing,
                               Mask bare) {
    int term_hand = p->slots + 1 - p->hand_size;
    int pre = empty - p->jokers;
    if (term_hand > pre) pre = term_hand;
    if (seeds > pre) pre = seeds;
    if (pre > p->best) return; /* trios only add empty slots */
    int trio_empty = 0, ranks[HA_MAX_MELDS], bare_n = 0;
    Mask trio_bare = 0, fill = 0;
    if (p->trios) {
        int left[NR];
        for (int r = 0; r < NR; r++)
            left[r] = work[r] + work[NR + r] + work[2 * NR + r] + work[3 * NR + r];
        trio_choice(left, p->trios, &trio_empty, ranks, &bare_n, &trio_bare, &fill);
    }
    int term_empty = empty + trio_empty - p->jokers;
    int term_seed = seeds + bare_n;
    int cost = term_empty;
    if (term_hand > cost) cost = term_hand;
    if (term_seed > cost) cost = term_seed;
    if (cost < 0) cost = 0;
    if (cost > p->best) return;
    if (cost < p->best) {
        p->best = cost;
        p->reducers = 0;
        p->plan_depth = p->depth;
        memcpy(p->plan_took, p->took, sizeof p->took);
        memcpy(p->plan_n_took, p->n_took, sizeof p->n_took);
        p->plan_n_ranks = p->trios;
        memcpy(p->plan_ranks, ranks, sizeof(int) * p->trios);
        memcpy(p->plan_left, work, sizeof p->plan_left);
    }
    if (cost == 0) return;
    /* A card reduces this plan's distance when it lowers every term at the maximum. */
    Mask allowed = ALL_CARDS;
    int any = 0;
    if (term_empty == cost) {
        allowed = missing | (((Mask)1) << JK) | fill;
        any = 1;
    }
    if (term_seed == cost) {
        Mask seed = bare | trio_bare;
        allowed = any ? (allowed & seed) : seed;
    }
    p->reducers |= allowed;
}

static inline void plans_runs(Plans *p, int *work, int first, int empty, int seeds,
                              Mask missing, Mask bare) {
    int left = p->runs - p->depth;
    if (left == 0) {
        plans_trios(p, work, empty, seeds, missing, bare);
        return;
    }
    for (int i = first; i < p->nw; i++) {
        if (p->best == 0) return; /* in hand: no card reduces a distance of 0 */
        int e = empty + left * p->static_empty[i] - p->jokers;
        int t = p->slots + 1 - p->hand_size;
        if (t > e) e = t;
        if (seeds > e) e = seeds;
        if (e < 0) e = 0;
        if (e > p->best) break; /* windows are sorted: none further can do as well */
        const int *w = p->win[i];
        int *took = p->took[p->depth], nt = 0, gaps = 0;
        Mask gap_mask = 0;
        for (int k = 0; k < p->min_run; k++) {
            if (work[w[k]])
                took[nt++] = w[k];
            else {
                gaps++;
                gap_mask |= ((Mask)1) << w[k];
            }
        }
        for (int k = 0; k < nt; k++) work[took[k]]--;
        p->n_took[p->depth++] = nt;
        if (nt)
            plans_runs(p, work, i, empty + gaps, seeds, missing | gap_mask, bare);
        else /* no hand natural: one added card must be a natural of it */
            plans_runs(p, work, i, empty + gaps, seeds + 1, missing | gap_mask, bare | gap_mask);
        p->depth--;
        for (int k = 0; k < nt; k++) work[took[k]]++;
    }
}

/* Whether hand_analysis_c accepts this contract and run length (its arrays' bounds). */
static inline int hand_analysis_ok(int trios, int runs, int min_run) {
    return trios >= 0 && runs >= 0 && trios <= HA_MAX_MELDS && runs <= HA_MAX_MELDS &&
           min_run >= 1 && min_run <= MAXRUN;
}

/* melds.distance.hand_analysis_reference of `counts` (53 non-negative counts); -1 (and `out`
 * untouched) when hand_analysis_ok refuses the contract, else 0. */
static inline int hand_analysis_c(const int *counts, int trios, int runs, int min_run,
                                  int wrap, HandAnalysis *out) {
    if (!hand_analysis_ok(trios, runs, min_run)) return -1;
    Plans plans;
    Plans *p = &plans;
    /* every field the search reads before writing it (the window table, the taken naturals
     * and the plan are written before they are read: not cleared, 4 KB a call) */
    p->nw = 0;
    p->hand_size = 0;
    p->reducers = 0;
    p->depth = 0;
    p->plan_depth = 0;
    p->plan_n_ranks = 0;
    p->trios = trios;
    p->runs = runs;
    p->min_run = min_run;
    p->jokers = counts[JK];
    for (int c = 0; c < NT; c++) p->hand_size += counts[c];
    p->slots = 3 * trios + min_run * runs;
    p->best = 1000000000;
    /* windows (melds.distance._windows_for: every suit and start of melds.min_spans, a run of
     * `min_run` positions from rank `start`, wrapping at the king when allowed), stable-sorted
     * by hand naturals covered, most first */
    int ns = wrap ? NR : 14 - min_run + 1;
    int covered[MAXW], start[MAXW], made = 0;
    for (int suit = 0; suit < 4; suit++) {
        unsigned held = 0; /* bit r: the hand holds the rank r natural of this suit */
        for (int r = 0; r < NR; r++) held |= (unsigned)(counts[suit * NR + r] != 0) << r;
        held |= held << NR; /* the ranks again above the king: positions (s + i) % NR */
        /* the naturals each window covers, slid one start at a time: the bit leaving at the
         * low end, the one entering at the high end */
        int cov = 0;
        for (int i = 0; i < min_run; i++) cov += (int)(held >> i & 1u);
        for (int s = 0; s < ns; s++, made++) {
            if (s) cov += (int)(held >> (s + min_run - 1) & 1u) - (int)(held >> (s - 1) & 1u);
            start[made] = suit * 16 + s; /* the window's suit and first rank (s < 16) */
            covered[made] = cov;
        }
    }
    /* the stable sort, most covered first, as a counting sort (covered is 0..min_run): each
     * count's first place, then every window in turn to the next place of its count */
    int order[MAXW], place[MAXRUN + 1] = {0};
    for (int k = 0; k < made; k++) place[covered[k]]++;
    for (int want = min_run, at = 0; want >= 0; want--) {
        int n = place[want];
        place[want] = at;
        at += n;
    }
    for (int k = 0; k < made; k++) order[place[covered[k]]++] = k;
    p->nw = made;
    for (int j = 0; j < p->nw; j++) {
        int k = order[j], suit = start[k] / 16, s = start[k] % 16;
        for (int i = 0; i < min_run; i++) /* s + i < 26 */
            p->win[j][i] = suit * NR + FEAT_RANK_MOD[s + i];
        p->static_empty[j] = min_run - covered[k];
    }
    int work[NT];
    memcpy(work, counts, sizeof work);
    plans_runs(p, work, 0, 0, 0, 0, 0);

    memset(out->in_trio, 0, sizeof out->in_trio);
    memset(out->in_run, 0, sizeof out->in_run);
    for (int d = 0; d < p->plan_depth; d++)
        for (int k = 0; k < p->plan_n_took[d]; k++) out->in_run[p->plan_took[d][k]]++;
    int seen_rank[NR] = {0};
    for (int k = 0; k < p->plan_n_ranks; k++) {
        int r = p->plan_ranks[k];
        if (seen_rank[r]) continue; /* set(trio_ranks) */
        seen_rank[r] = 1;
        for (int s = 0; s < 4; s++) out->in_trio[s * NR + r] += p->plan_left[s * NR + r];
    }
    if (counts[JK]) {
        int placed = 0;
        for (int c = 0; c < NT; c++) placed += out->in_trio[c] + out->in_run[c];
        int used = p->slots - placed < counts[JK] ? p->slots - placed : counts[JK];
        (runs ? out->in_run : out->in_trio)[JK] = used > 0 ? used : 0;
    }
    out->distance = p->best;
    out->reducers = p->reducers;
    return 0;
}

/* ====================================================== contract.features.encode_features */

#define FEAT_HISTORY 8      /* features.HISTORY */
#define FEAT_MAX_DISTANCE 7 /* features.MAX_DISTANCE */
#define FEAT_KINDS 10       /* public_log.KINDS */

/* One seat's public information, every seat-indexed array in absolute seats. Arrays a call
 * does not read may be NULL: the pile when n_discard is 0, the log's when has_log is 0. */
typedef struct {
    int p, seat, trios, runs, min_run, wrap, live, laid_down_self;
    const int *hand;    /* 53 counts: the seat's own hand */
    const int *deck;    /* 53 counts: the round's deck (rules.deck_counts) */
    const int *discard; /* the pile, bottom first (only its top when `shown` is given) */
    int n_discard;
    const int *table_cards; /* every card on the table (any order); unread with `shown` */
    int n_table_cards;
    /* 53 counts of the cards face up (the pile's and the table's) when the caller keeps them,
     * else NULL (counted here from the pile and the table) */
    const int *shown;
    const int *known;                           /* p x 53 */
    const int *hand_sizes, *laid_down, *claims; /* p each */
    const float *points50;                      /* 53: float32(points) / 50 in float32 */
    int has_log; /* the round's log exists (record is not None and live) */
    const int *discarded, *declined;              /* p x 53 log totals */
    const int *takes, *discards;                  /* p each */
    const int *last_seat, *last_kind, *last_card; /* <= 8 newest entries, OLDEST first */
    int n_last;
    /* hand_analysis_c(hand, trios, runs, min_run, wrap) when the caller has it already (a batch
     * core caches it per seat: a hand is analysed once, not at every decision), else NULL */
    const HandAnalysis *analysis;
} FeatInput;

/* Offsets of features.feature_layout(p). */
typedef struct {
    int distance, reducers, offer, stock_draw, in_trio, in_run, deadwood, partners, points,
        unseen, discarded, declined, opponents, history, size;
} FeatLayout;

static inline FeatLayout features_layout(int p) {
    FeatLayout l;
    l.distance = 0;
    l.reducers = l.distance + FEAT_MAX_DISTANCE + 1;
    l.offer = l.reducers + NT;
    l.stock_draw = l.offer + 3;
    l.in_trio = l.stock_draw + 2;
    l.in_run = l.in_trio + NT;
    l.deadwood = l.in_run + NT;
    l.partners = l.deadwood + NT;
    l.points = l.partners + NT;
    l.unseen = l.points + NT;
    l.discarded = l.unseen + NT;
    l.declined = l.discarded + p * NT;
    l.opponents = l.declined + p * NT;
    l.history = l.opponents + (p - 1) * 6;
    l.size = l.history + FEAT_HISTORY * (p + FEAT_KINDS + NR + 5);
    return l;
}

/* Length of the feature vector of a table of `p` seats. */
static inline int features_size(int p) { return features_layout(p).size; }

/* Whether features_write accepts `in`'s scalars (the arrays are the caller's to size). */
static inline int features_ok(const FeatInput *in) {
    return in->p >= 2 && in->seat >= 0 && in->seat < in->p && in->n_last >= 0 &&
           in->n_last <= FEAT_HISTORY && hand_analysis_ok(in->trios, in->runs, in->min_run);
}

/* features.count_unseen: the round's `deck` less the `hand`, the cards `shown` face up (the
 * discard pile's and the table's, counts per card type) and the cards the other seats are
 * `known` (p x 53) to hold; clipped at 0 only once everything is taken off. The one copy: the
 * v1 features and the batch core's bots (_bots_c.h) call it. */
static inline void count_unseen_c(const int *deck, const int *hand, const int *shown,
                                  const int *known, int p, int seat, int *out) {
    for (int c = 0; c < NT; c++) out[c] = deck[c] - hand[c] - shown[c];
    for (int s = 0; s < p; s++)
        if (s != seat)
            for (int c = 0; c < NT; c++) out[c] -= known[s * NT + c];
    for (int c = 0; c < NT; c++)
        if (out[c] < 0) out[c] = 0;
}

/* features.encode_features_reference of `in` into `out` (features_size(in->p) floats, zeroed
 * here first). Every value must be in range: card ids 0..52, seats 0..p-1, kinds 0..9, counts
 * non-negative. Returns -1 (out untouched) when features_ok refuses `in`, else 0. */
static inline int features_write(const FeatInput *in, float *out) {
    if (!features_ok(in)) return -1;
    const int p = in->p, seat = in->seat;
    const FeatLayout l = features_layout(p);
    memset(out, 0, sizeof(float) * l.size);
    const int *hand = in->hand;

    int unseen[NT], counted[NT];
    const int *shown = in->shown;
    if (shown == NULL) {
        memset(counted, 0, sizeof counted);
        for (int i = 0; i < in->n_discard; i++) counted[in->discard[i]]++;
        for (int i = 0; i < in->n_table_cards; i++) counted[in->table_cards[i]]++;
        shown = counted;
    }
    count_unseen_c(in->deck, hand, shown, in->known, p, seat, unseen);

    if (in->laid_down_self || !in->live) {
        for (int c = 0; c < NT; c++) out[l.deadwood + c] = (float)hand[c];
    } else { /* features._encode_contract */
        HandAnalysis mine;
        const HandAnalysis *ha = in->analysis;
        if (ha == NULL) {
            hand_analysis_c(hand, in->trios, in->runs, in->min_run, in->wrap, &mine);
            ha = &mine;
        }
        int d = ha->distance;
        out[l.distance + (d < FEAT_MAX_DISTANCE ? d : FEAT_MAX_DISTANCE)] = 1.0f;
        for (Mask m = ha->reducers & ALL_CARDS; m; m &= m - 1) /* each card type that reduces */
            out[l.reducers + __builtin_ctzll(m)] = 1.0f;
        if (in->n_discard) {
            /* distance (int) - reducers[top] (numpy float32) / 10.0: float32 arithmetic */
            float r = out[l.reducers + in->discard[in->n_discard - 1]];
            out[l.offer] = 1.0f;
            out[l.offer + 1] = r;
            out[l.offer + 2] = ((float)d - r) / 10.0f;
        }
        long long total = 0, hits = 0;
        for (int c = 0; c < NT; c++) total += unseen[c];
        for (Mask m = ha->reducers & ALL_CARDS; m; m &= m - 1) hits += unseen[__builtin_ctzll(m)];
        if (total) { /* float(unseen @ reducers) / total: exact integers, then doubles */
            double chance = (double)hits / (double)total;
            out[l.stock_draw] = (float)chance;
            out[l.stock_draw + 1] = (float)(((double)d - chance) / 10.0);
        }
        for (int c = 0; c < NT; c++) {
            out[l.in_trio + c] = (float)ha->in_trio[c];
            out[l.in_run + c] = (float)ha->in_run[c];
            /* float32(counts) - trio - run: whole numbers, exact in float32 */
            out[l.deadwood + c] = (float)hand[c] - (float)ha->in_trio[c] - (float)ha->in_run[c];
        }
    }

    /* partners (features._partners): n / 4.0 in double, stored to float32 */
    const int reach = in->min_run - 1;
    long long hand_total = 0;
    for (int c = 0; c < NT; c++) hand_total += hand[c];
    long long rank_total[NR]; /* the hand's naturals of each rank, every suit */
    for (int r = 0; r < NR; r++)
        rank_total[r] = hand[r] + hand[NR + r] + hand[2 * NR + r] + hand[3 * NR + r];
    for (int c = 0; c < JK; c++) {
        if (!hand[c]) continue;
        int rank = c % NR, suit = c / NR;
        long long n = rank_total[rank] - 1;
        const int *row = hand + suit * NR;
        for (int delta = 1; delta <= reach; delta++) {
            int lo = rank - delta, hi = rank + delta; /* -12..24 (reach < 13) */
            if (in->wrap) {
                n += row[FEAT_RANK_MOD[lo + NR]] + row[FEAT_RANK_MOD[hi]];
            } else {
                if (lo >= 0) n += row[lo];
                if (hi < NR) n += row[hi];
            }
        }
        out[l.partners + c] = (float)((double)n / 4.0);
    }
    if (hand[JK]) out[l.partners + JK] = (float)((double)(hand_total - 1) / 4.0);

    for (int c = 0; c < NT; c++) {
        out[l.points + c] = (float)hand[c] * in->points50[c]; /* float32 x float32 */
        out[l.unseen + c] = (float)unseen[c];
    }

    /* discarded, declined, takes, discards: the log's totals rotated to start at the seat */
    int has_totals = in->live && in->has_log && in->n_last > 0;
    for (int k = 0; k < p; k++) {
        int s = (seat + k) % p;
        if (!has_totals) break;
        float *restrict to_discarded = out + l.discarded + k * NT;
        float *restrict to_declined = out + l.declined + k * NT;
        const int *restrict discarded = in->discarded + s * NT;
        const int *restrict declined = in->declined + s * NT;
        for (int c = 0; c < NT; c++) to_discarded[c] = (float)discarded[c];
        for (int c = 0; c < NT; c++) to_declined[c] = (float)declined[c];
    }

    /* opponents (features._encode_opponents): Python floats stored to float32 */
    for (int k = 1; k < p; k++) {
        int s = (seat + k) % p;
        int base = l.opponents + 6 * (k - 1);
        long long known = 0;
        for (int c = 0; c < NT; c++) known += in->known[s * NT + c];
        out[base] = (float)((double)in->hand_sizes[s] / 20.0);
        out[base + 1] = in->laid_down[s] ? 1.0f : 0.0f;
        out[base + 2] = (float)((double)in->claims[s] / 3.0);
        out[base + 3] = (float)((double)known / 10.0);
        if (has_totals) {
            out[base + 4] = (float)((double)in->takes[s] / 5.0);
            out[base + 5] = (float)((double)in->discards[s] / 20.0);
        }
    }

    /* history (features._encode_history): the newest entry first */
    if (in->live && in->has_log) {
        const int width = p + FEAT_KINDS + NR + 5;
        for (int i = 0; i < in->n_last; i++) {
            int e = in->n_last - 1 - i;
            int row = l.history + i * width;
            int who = in->last_seat[e], card = in->last_card[e];
            out[row + ((who - seat) % p + p) % p] = 1.0f;
            out[row + p + in->last_kind[e]] = 1.0f;
            if (card >= 0) {
                int card_base = row + p + FEAT_KINDS;
                if (card == JK) {
                    out[card_base + NR + 4] = 1.0f;
                } else {
                    out[card_base + card % NR] = 1.0f;
                    out[card_base + NR + card / NR] = 1.0f;
                }
            }
        }
    }
    return 0;
}

#endif /* CONTINENTAL_FEATURES_C_H */
