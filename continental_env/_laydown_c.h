/*
 * The lay-down choice (melds.laydown_plan, RULES 1.4) in plain C, shared by the compiled modules
 * (_kernels.c's laydown_plan and laydown_cores, _batch.c's lay-down): one copy of the code, no
 * Python objects, everything static. continental_env/melds/laydown.py is the readable
 * reference; each function below names the one it ports and follows its order (stable sorts,
 * the first best kept, itertools.product's order, Python's tuple comparisons), so the result
 * is the same value.
 */
#ifndef CONTINENTAL_LAYDOWN_C_H
#define CONTINENTAL_LAYDOWN_C_H

#include <stdlib.h>
#include <string.h>

#include "_contract_c.h"
#include "_melds_c.h"

#define LAYDOWN_BUDGET 400     /* melds.LAYDOWN_BUDGET */
#define LAYDOWN_EXACT_CARDS 20 /* melds.LAYDOWN_EXACT_CARDS */
#define LD_MAXCONTRACT 8       /* trios, and runs, of one contract */
#define LD_MAXCOPIES 16        /* copies of a natural in a hand: rules.MAX_DECKS */
#define LD_MAXJOKERS 96        /* jokers in a hand: MAX_DECKS x MAX_JOKERS_PER_DECK */
#define LD_MAXTABLE 64         /* melds on the table */
#define LD_MAXALL (LD_MAXTABLE + 2 * LD_MAXCONTRACT)
#define LD_OWNCARDS 24 /* an own meld of the exact path: at most LAYDOWN_EXACT_CARDS cards */
#define LD_MAXTRIOOPT 1024 /* 13 ranks x 34 distinct options, plus one rank's 220 before dedup */
#define LD_MAXSPAN 64
#define LD_NOMEM (-1)
#define LD_TOOLONG (-2)

enum { LD_TRIO = 0, LD_RUN = 1 };
enum { LD_LOW = 0, LD_HIGH = 1 };

/* A table meld as the closure sees it: runs by their start and length (their cards do not
 * change where lay-offs go), trios by their rank. */
typedef struct {
    int kind, n, start, rank, suit;
} LdTableMeld;

/* One row of the result: (kind, cards, start, key), key a trio's rank or a run's suit. */
typedef struct {
    int kind, start, key, n;
    int cards[MAXMELD];
} LdRow;

typedef struct {
    int key[3]; /* cards left, points left (after lay-offs), points right after */
    int nrows;
    LdRow rows[2 * LD_MAXCONTRACT];
} LdPlan;

/* ================================================================ core enumeration */
/*
 * melds.core_combinations after best_contract's arrangement: combinations of contract "cores"
 * in a fixed order, each with melds.stuck_bound's value, handed to `visit` (1 stops).
 */

typedef struct LdCores LdCores;
typedef int (*ld_visit_fn)(LdCores *k, long stuck, long stuck_points);

struct LdCores {
    int min_run, trios, runs, limit;
    int pts[NT];
    int left[NT];
    long total; /* the cards in `counts`: those left are total minus the chosen melds' */
    int trio_opt[LD_MAXTRIOOPT][3];
    int n_trio_opt;
    int span_suit[LD_MAXSPAN], span_start[LD_MAXSPAN];
    int span_cards[LD_MAXSPAN][MAXRUN]; /* the span's card ids, low to high */
    int n_span;
    unsigned table_ranks, table_suits; /* bitmasks: trio ranks and run suits on the table */
    /* the combination being built: trio option indices, then run cards (the span's start
     * stored beside them, at index MAXRUN - 1) */
    int chosen_trio[LD_MAXCONTRACT];
    int run_cards[LD_MAXCONTRACT][MAXRUN];
    int n_trio_chosen, n_run_chosen;
    int count;
    ld_visit_fn visit;
    void *ctx;
};

static inline int ld_take(int *left, const int *cards, int n) {
    int ok = 1;
    for (int k = 0; k < n; k++) {
        left[cards[k]]--;
        ok = ok && left[cards[k]] >= 0;
    }
    return ok;
}

static inline void ld_give(int *left, const int *cards, int n) {
    for (int k = 0; k < n; k++) left[cards[k]]++;
}

static inline int ld_run_suit(const LdCores *k, const int *cards) {
    int suit = 0;
    for (int i = 0; i < k->min_run; i++)
        if (cards[i] != JK) suit = cards[i] / NR;
    return suit;
}

/* The current combination: melds.stuck_bound, then the visitor. Returns 1 to stop. */
static int ld_emit_core(LdCores *k) {
    unsigned ranks = k->table_ranks, suits = k->table_suits;
    for (int t = 0; t < k->n_trio_chosen; t++)
        ranks |= 1u << (k->trio_opt[k->chosen_trio[t]][0] % NR);
    for (int r = 0; r < k->n_run_chosen; r++) suits |= 1u << ld_run_suit(k, k->run_cards[r]);
    long stuck = 0, stuck_points = 0;
    for (int c = 0; c < JK; c++)
        if (k->left[c] && !(ranks >> (c % NR) & 1u) && !(suits >> (c / NR) & 1u)) {
            stuck += k->left[c];
            stuck_points += (long)k->left[c] * k->pts[c];
        }
    if (!stuck) {
        stuck = 1;
        int first = 1;
        for (int c = 0; c < NT; c++)
            if (k->left[c] && (first || k->pts[c] < stuck_points)) {
                stuck_points = k->pts[c];
                first = 0;
            }
    }
    if (k->visit(k, stuck, stuck_points)) return 1;
    return ++k->count >= k->limit;
}

static int ld_choose_runs(LdCores *k, int first, int to_place) {
    if (!to_place) {
        long left = k->total - 3L * k->n_trio_chosen - (long)k->min_run * k->n_run_chosen;
        return left >= 1 ? ld_emit_core(k) : 0;
    }
    for (int i = first; i < k->n_span; i++) {
        int start = k->span_start[i];
        const int *span = k->span_cards[i];
        int *cards = k->run_cards[k->n_run_chosen];
        int naturals = 0;
        /* the reference's `left[c] > cards.count(c)`: a span of at most 12 ranks holds each
         * card once, so the count is 0 */
        for (int q = 0; q < k->min_run; q++) {
            int c = span[q];
            cards[q] = k->left[c] > 0 ? c : JK;
            naturals += cards[q] != JK;
        }
        if (!naturals) continue;
        /* ld_take fails only when the jokers run short (the naturals are in hand), and then
         * gives everything back: skip its work, the same outcome */
        if (k->min_run - naturals > k->left[JK]) continue;
        cards[MAXRUN - 1] = start;
        if (ld_take(k->left, cards, k->min_run)) {
            k->n_run_chosen++;
            int stop = ld_choose_runs(k, i, to_place - 1);
            k->n_run_chosen--;
            if (stop) {
                ld_give(k->left, cards, k->min_run);
                return 1;
            }
        }
        ld_give(k->left, cards, k->min_run);
    }
    return 0;
}

static int ld_choose_trios(LdCores *k, int first) {
    if (k->n_trio_chosen == k->trios) return ld_choose_runs(k, 0, k->runs);
    for (int i = first; i < k->n_trio_opt; i++) {
        const int *cards = k->trio_opt[i];
        if (ld_take(k->left, cards, 3)) {
            k->chosen_trio[k->n_trio_chosen++] = i;
            int stop = ld_choose_trios(k, i);
            k->n_trio_chosen--;
            if (stop) {
                ld_give(k->left, cards, 3);
                return 1;
            }
        }
        ld_give(k->left, cards, 3);
    }
    return 0;
}

static int ld_trio_key(const LdCores *k, const int *cards) { /* points of the naturals */
    int v = 0;
    for (int q = 0; q < 3; q++)
        if (cards[q] != JK) v += k->pts[cards[q]];
    return v;
}

/* Set up the enumeration (trio options, run spans) in the zeroed `k`; trios and runs in
 * 0..LD_MAXCONTRACT, min_run in 1..MAXRUN - 1. 0, or -1 if the options overflow. */
static int ld_cores_init(LdCores *k, const int *counts, int trios, int runs, int min_run,
                         int wrap, const int *pts, unsigned table_ranks, unsigned table_suits,
                         int limit) {
    k->min_run = min_run;
    k->trios = trios;
    k->runs = runs;
    k->limit = limit;
    k->table_ranks = table_ranks;
    k->table_suits = table_suits;
    memcpy(k->pts, pts, sizeof k->pts);
    memcpy(k->left, counts, sizeof k->left);
    k->total = 0;
    for (int c = 0; c < NT; c++) k->total += counts[c];
    int jokers = counts[JK];
    /* Trio options: per rank, every distinct multiset of 3, 2, 1 naturals (at most 3 copies of
     * each) padded with jokers, in sorted order; then a stable sort by the naturals' points. */
    for (int r = 0; r < NR; r++) {
        int nat[12], nn = 0;
        for (int s = 0; s < 4; s++) {
            int copies = counts[s * NR + r] < 3 ? counts[s * NR + r] : 3;
            for (int q = 0; q < copies; q++) nat[nn++] = s * NR + r;
        }
        for (int kk = 3; kk >= 1; kk--) {
            if (3 - kk > jokers || kk > nn) continue;
            /* sorted(set(combinations(naturals, kk))): every combination, then an insertion
             * sort of the new rows and a pass that keeps the first of each run of equal ones */
            int idx[3], base = k->n_trio_opt;
            for (int q = 0; q < kk; q++) idx[q] = q;
            do {
                if (k->n_trio_opt >= LD_MAXTRIOOPT) return -1;
                int *opt = k->trio_opt[k->n_trio_opt++];
                for (int q = 0; q < 3; q++) opt[q] = q < kk ? nat[idx[q]] : JK;
            } while (next_combination(idx, kk, nn));
            for (int i = base + 1; i < k->n_trio_opt; i++) {
                int tmp[3], j = i - 1;
                memcpy(tmp, k->trio_opt[i], sizeof tmp);
                while (j >= base && lex_greater(k->trio_opt[j], tmp, 3)) {
                    memcpy(k->trio_opt[j + 1], k->trio_opt[j], sizeof tmp);
                    j--;
                }
                memcpy(k->trio_opt[j + 1], tmp, sizeof tmp);
            }
            int m = base;
            for (int i = base; i < k->n_trio_opt; i++) {
                if (m > base && memcmp(k->trio_opt[m - 1], k->trio_opt[i], sizeof(int) * 3) == 0)
                    continue;
                memcpy(k->trio_opt[m++], k->trio_opt[i], sizeof(int) * 3);
            }
            k->n_trio_opt = m;
        }
    }
    /* stable insertion sort by descending natural points */
    for (int i = 1; i < k->n_trio_opt; i++) {
        int tmp[3];
        memcpy(tmp, k->trio_opt[i], sizeof tmp);
        int key = ld_trio_key(k, tmp), j = i - 1;
        while (j >= 0 && ld_trio_key(k, k->trio_opt[j]) < key) {
            memcpy(k->trio_opt[j + 1], k->trio_opt[j], sizeof tmp);
            j--;
        }
        memcpy(k->trio_opt[j + 1], tmp, sizeof tmp);
    }
    /* Run spans: every suit and start, stable-sorted by the points of the naturals in hand. */
    int nstarts = wrap ? NR : NR + 2 - min_run;
    int span_key[LD_MAXSPAN];
    for (int suit = 0; suit < 4; suit++)
        for (int st = 0; st < nstarts; st++) {
            int v = 0;
            for (int q = 0; q < min_run; q++) {
                int c = suit * NR + (st + q) % NR;
                if (counts[c]) v += k->pts[c];
            }
            int j = k->n_span++;
            while (j > 0 && span_key[j - 1] < v) {
                span_key[j] = span_key[j - 1];
                k->span_suit[j] = k->span_suit[j - 1];
                k->span_start[j] = k->span_start[j - 1];
                j--;
            }
            span_key[j] = v;
            k->span_suit[j] = suit;
            k->span_start[j] = st;
        }
    /* Spans with no natural in hand never hold one deeper down (the cards only go): dropping
     * them leaves the order of the others, so the enumeration is the same. */
    int kept = 0;
    for (int i = 0; i < k->n_span; i++) {
        int any = 0;
        for (int q = 0; q < min_run; q++)
            any |= counts[k->span_suit[i] * NR + (k->span_start[i] + q) % NR] != 0;
        if (!any) continue;
        k->span_suit[kept] = k->span_suit[i];
        k->span_start[kept] = k->span_start[i];
        for (int q = 0; q < min_run; q++)
            k->span_cards[kept][q] = k->span_suit[i] * NR + (k->span_start[i] + q) % NR;
        kept++;
    }
    k->n_span = kept;
    return 0;
}

static void ld_cores_run(LdCores *k) {
    if (k->limit > 0) ld_choose_trios(k, 0);
}

/* ================================================================ the lay-off closure */

typedef struct {
    int kind, rank, suit, start, n;
    int cards[LD_OWNCARDS]; /* own melds only: the table's cards are not tracked */
} LdMeld;

typedef struct {
    int wrap;
    int pts[NT];
    int ntable;
    const LdTableMeld *table;
    /* one suit's lay-off options (melds._suit_layoffs), per suit: stride 6 + ends */
    int nends[4];
    int end_meld[4][2 * LD_MAXALL], end_side[4][2 * LD_MAXALL];
    int *opt[4];
    int nopt[4], capopt[4];
    int *found; /* the depth-first search's leaves of the suit being searched */
    int nfound, capfound;
    int error; /* LD_NOMEM or LD_TOOLONG */
    /* the depth-first search's state */
    int row[NR];
    int lengths[2 * LD_MAXALL];
    int jokers, suit;
    unsigned trio_own, trio_any;
    LdMeld *melds;
    int nmelds;
} LdWork;

static inline int ld_can_extend(const LdMeld *m, int end, int wrap) { /* run_can_extend */
    if (m->n >= NR) return 0;
    if (wrap) return 1;
    if (end == LD_LOW) return m->start > 0;
    return m->start + m->n - 1 < NR;
}

static inline int ld_end_card(const LdMeld *m, int end, int wrap) { /* end_card; -1: None */
    if (m->kind != LD_RUN || !ld_can_extend(m, end, wrap)) return -1;
    int pos = end == LD_LOW ? -1 : m->n;
    return m->suit * NR + pymod(m->start + pos, NR);
}

/* extend_run; the cards only when `own` (the table's are not tracked). 0, or -1 if full. */
static inline int ld_extend(LdMeld *m, int card, int end, int wrap, int own) {
    if (own) {
        if (m->n >= LD_OWNCARDS) return -1;
        if (end == LD_HIGH) {
            m->cards[m->n] = card;
        } else {
            memmove(m->cards + 1, m->cards, sizeof(int) * (size_t)m->n);
            m->cards[0] = card;
        }
    }
    m->n++;
    if (end == LD_LOW) m->start = wrap ? pymod(m->start - 1, NR) : m->start - 1;
    return 0;
}

static int ld_grow(int **buf, int *cap, int need) {
    if (need <= *cap) return 0;
    int n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    int *p = realloc(*buf, sizeof(int) * (size_t)n);
    if (p == NULL) return -1;
    *buf = p;
    *cap = n;
    return 0;
}

static void ld_leaf(LdWork *w, int used, int placed, int placed_points, int own_points) {
    int base = w->suit * NR, nends = w->nends[w->suit], stride = 6 + nends;
    for (int r = 0; r < NR; r++)
        if ((w->trio_any >> r & 1u) && w->row[r]) {
            int p = w->row[r] * w->pts[base + r];
            placed += w->row[r];
            placed_points += p;
            if (w->trio_own >> r & 1u) own_points += p;
        }
    int room = 0, own_room = 0;
    for (int k = 0; k < nends; k += 2) { /* each run once: its low end, then its high end */
        int i = w->end_meld[w->suit][k];
        room += NR - w->melds[i].n;
        if (i >= w->ntable) own_room += NR - w->melds[i].n;
    }
    if (ld_grow(&w->found, &w->capfound, (w->nfound + 1) * stride) < 0) {
        w->error = LD_NOMEM;
        return;
    }
    int *o = w->found + w->nfound * stride;
    o[0] = used;
    o[1] = placed;
    o[2] = placed_points;
    o[3] = own_points;
    o[4] = room;
    o[5] = own_room;
    memcpy(o + 6, w->lengths, sizeof(int) * (size_t)nends);
    w->nfound++;
}

static void ld_visit(LdWork *w, int k, int used, int placed, int placed_points, int own_points) {
    if (w->error) return;
    int suit = w->suit, base = suit * NR;
    if (k == w->nends[suit]) {
        ld_leaf(w, used, placed, placed_points, own_points);
        return;
    }
    int i = w->end_meld[suit][k], end = w->end_side[suit][k], own = i >= w->ntable;
    LdMeld *m = &w->melds[i];
    int saved_n = m->n, saved_start = m->start;
    w->lengths[k] = 0;
    ld_visit(w, k + 1, used, placed, placed_points, own_points);
    int taken[NR + 1], ntaken = 0;
    for (;;) {
        int c = ld_end_card(m, end, w->wrap);
        if (c < 0) break;
        if (w->row[c - base]) {
            w->row[c - base]--;
        } else if (used < w->jokers) {
            used++;
            c = JK;
        } else {
            break;
        }
        taken[ntaken++] = c;
        ld_extend(m, c, end, w->wrap, 0);
        placed++;
        placed_points += w->pts[c];
        if (own) own_points += w->pts[c];
        if (c != JK) {
            w->lengths[k] = ntaken;
            ld_visit(w, k + 1, used, placed, placed_points, own_points);
        }
    }
    w->lengths[k] = 0;
    for (int q = 0; q < ntaken; q++)
        if (taken[q] != JK) w->row[taken[q] - base]++;
    m->n = saved_n;
    m->start = saved_start;
}

/* melds._suit_layoffs: the options of `suit` into w->opt[suit], dominated ones dropped. */
static void ld_suit_layoffs(LdWork *w, int suit, const int *rest) {
    int base = suit * NR, nends = 0;
    for (int i = 0; i < w->nmelds; i++)
        if (w->melds[i].kind == LD_RUN && w->melds[i].suit == suit) {
            w->end_meld[suit][nends] = i;
            w->end_side[suit][nends++] = LD_LOW;
            w->end_meld[suit][nends] = i;
            w->end_side[suit][nends++] = LD_HIGH;
        }
    w->nends[suit] = nends;
    w->suit = suit;
    memcpy(w->row, rest + base, sizeof w->row);
    w->nfound = 0;
    ld_visit(w, 0, 0, 0, 0, 0);
    w->nopt[suit] = 0;
    if (w->error) return;
    int stride = 6 + nends, n = w->nfound;
    for (int a = 0; a < n; a++) {
        const int *o = w->found + a * stride;
        int keep = 1;
        for (int b = 0; b < n && keep; b++) {
            const int *x = w->found + b * stride;
            if (x[0] <= o[0] && x[1] >= o[1] && x[2] >= o[2] && x[3] >= o[3] && x[4] >= o[4] &&
                x[5] >= o[5] && memcmp(x, o, sizeof(int) * 6) != 0)
                keep = 0;
        }
        for (int b = 0; b < w->nopt[suit] && keep; b++)
            if (memcmp(w->opt[suit] + b * stride, o, sizeof(int) * 6) == 0) keep = 0;
        if (!keep) continue;
        if (ld_grow(&w->opt[suit], &w->capopt[suit], (w->nopt[suit] + 1) * stride) < 0) {
            w->error = LD_NOMEM;
            return;
        }
        memcpy(w->opt[suit] + w->nopt[suit] * stride, o, sizeof(int) * (size_t)stride);
        w->nopt[suit]++;
    }
}

static inline int ld_naturals(const LdMeld *m) {
    int v = 0;
    for (int q = 0; q < m->n; q++) v += m->cards[q] != JK;
    return v;
}

/* melds._own_result: the own melds after the chosen lay-offs onto them, into `out`. Changes
 * w->melds (the closure's copies). 0, or -1 (w->error set) if a meld outgrows its bound. */
static int ld_own_result(LdWork *w, const int *rest, const int *combo, int spare_own,
                         LdMeld *out, int *nout) {
    int hand[NT];
    memcpy(hand, rest, sizeof hand);
    for (int suit = 0; suit < 4; suit++) { /* melds._replay_run_layoffs */
        const int *option = w->opt[suit] + combo[suit] * (6 + w->nends[suit]);
        for (int k = 0; k < w->nends[suit]; k++) {
            int i = w->end_meld[suit][k], end = w->end_side[suit][k];
            LdMeld *m = &w->melds[i];
            for (int q = 0; q < option[6 + k]; q++) {
                int c = ld_end_card(m, end, w->wrap);
                if (c < 0) goto too_long; /* the search extended this end: cannot happen */
                if (hand[c]) {
                    hand[c]--;
                } else {
                    hand[JK]--;
                    c = JK;
                }
                if (ld_extend(m, c, end, w->wrap, i >= w->ntable) < 0) goto too_long;
            }
        }
    }
    int n = 0;
    for (int i = w->ntable; i < w->nmelds; i++) out[n++] = w->melds[i];
    *nout = n;
    for (int j = 0; j < n; j++) {
        LdMeld *m = &out[j];
        if (m->kind != LD_TRIO || !(w->trio_own >> m->rank & 1u)) continue;
        for (int s = 0; s < 4; s++) {
            int c = s * NR + m->rank;
            if (m->n + hand[c] > LD_OWNCARDS) goto too_long;
            for (int q = 0; q < hand[c]; q++) m->cards[m->n++] = c;
            hand[c] = 0;
        }
    }
    for (int q = 0; q < spare_own; q++) { /* melds._place_spare_joker */
        int target = -1;
        for (int j = 0; j < n; j++)
            if (out[j].kind == LD_TRIO &&
                (target < 0 || ld_naturals(&out[j]) < ld_naturals(&out[target])))
                target = j;
        if (target >= 0) {
            if (out[target].n >= LD_OWNCARDS) goto too_long;
            out[target].cards[out[target].n++] = JK;
            continue;
        }
        for (int j = 0; j < n && target < 0; j++)
            if (out[j].kind == LD_RUN && out[j].n < NR) target = j;
        if (target < 0) goto too_long; /* the options counted this room: cannot happen */
        int end = ld_can_extend(&out[target], LD_HIGH, w->wrap) ? LD_HIGH : LD_LOW;
        if (ld_extend(&out[target], JK, end, w->wrap, 1) < 0) goto too_long;
    }
    return 0;
too_long:
    w->error = LD_TOOLONG;
    return -1;
}

static int ld_closure(LdWork *w, int *rest, const LdMeld *own, int nown, int keep_one,
                      int *key, LdMeld *out, int *nout);

/* melds._keep_cheapest: everything could go, so keep the cheapest card whose absence still
 * lets the rest go. */
static int ld_keep_cheapest(LdWork *w, int *rest, const LdMeld *own, int nown, int *key,
                            LdMeld *out, int *nout) {
    int order[NT], n = 0;
    for (int c = 0; c < NT; c++) { /* sorted by points, stable */
        if (!rest[c]) continue;
        int j = n++;
        while (j > 0 && w->pts[order[j - 1]] > w->pts[c]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = c;
    }
    for (int q = 0; q < n; q++) {
        int c = order[q], sub[3];
        rest[c]--;
        int rc = ld_closure(w, rest, own, nown, 0, sub, out, nout);
        rest[c]++;
        if (rc < 0) return -1;
        if (sub[0] == 0) {
            key[0] = 1;
            key[1] = w->pts[c];
            key[2] = sub[2] + w->pts[c];
            return 0;
        }
    }
    w->error = LD_TOOLONG; /* a full lay-off sequence always has a last card: cannot happen */
    return -1;
}

/* melds._closure: the best lay-offs from `rest` onto the table and the `own` new melds; its key
 * and the own melds as it leaves them. 0, or -1 with w->error set. */
static int ld_closure(LdWork *w, int *rest, const LdMeld *own, int nown, int keep_one,
                      int *key, LdMeld *out, int *nout) {
    LdMeld melds[LD_MAXALL];
    for (int i = 0; i < w->ntable; i++) {
        const LdTableMeld *t = &w->table[i];
        melds[i].kind = t->kind;
        melds[i].rank = t->rank;
        melds[i].suit = t->suit;
        melds[i].start = t->start;
        melds[i].n = t->n;
    }
    memcpy(melds + w->ntable, own, sizeof(LdMeld) * (size_t)nown);
    w->melds = melds;
    w->nmelds = w->ntable + nown;
    unsigned trio_own = 0, trio_any = 0;
    for (int i = 0; i < w->nmelds; i++)
        if (melds[i].kind == LD_TRIO) {
            trio_any |= 1u << melds[i].rank;
            if (i >= w->ntable) trio_own |= 1u << melds[i].rank;
        }
    w->trio_own = trio_own;
    w->trio_any = trio_any;
    w->jokers = rest[JK];
    int size = 0, points = 0;
    for (int c = 0; c < NT; c++) {
        size += rest[c];
        points += rest[c] * w->pts[c];
    }
    for (int suit = 0; suit < 4; suit++) {
        ld_suit_layoffs(w, suit, rest);
        if (w->error) return -1;
    }
    /* melds._best_combination: itertools.product's order, the first of the most */
    int best[3] = {0, 0, 0}, combo[4], best_combo[4] = {0, 0, 0, 0}, best_spare = 0, any = 0;
    int jp = w->pts[JK], any_trio = trio_any != 0, own_trio = trio_own != 0;
    int st[4];
    for (int s = 0; s < 4; s++) st[s] = 6 + w->nends[s];
    for (combo[0] = 0; combo[0] < w->nopt[0]; combo[0]++)
        for (combo[1] = 0; combo[1] < w->nopt[1]; combo[1]++)
            for (combo[2] = 0; combo[2] < w->nopt[2]; combo[2]++)
                for (combo[3] = 0; combo[3] < w->nopt[3]; combo[3]++) {
                    int sum[6] = {0, 0, 0, 0, 0, 0};
                    for (int s = 0; s < 4; s++) {
                        const int *o = w->opt[s] + combo[s] * st[s];
                        for (int f = 0; f < 6; f++) sum[f] += o[f];
                    }
                    if (sum[0] > w->jokers) continue;
                    int spare = w->jokers - sum[0], spare_placed, spare_own;
                    if (any_trio) {
                        spare_placed = spare;
                        spare_own = own_trio ? spare : (spare < sum[5] ? spare : sum[5]);
                    } else {
                        spare_placed = spare < sum[4] ? spare : sum[4];
                        spare_own = spare < sum[5] ? spare : sum[5];
                    }
                    int value[3] = {sum[1] + spare_placed, sum[2] + spare_placed * jp,
                                    sum[3] + spare_own * jp};
                    if (!any || lex_greater(value, best, 3)) {
                        any = 1;
                        memcpy(best, value, sizeof best);
                        memcpy(best_combo, combo, sizeof combo);
                        best_spare = spare_own;
                    }
                }
    if (best[0] == size && keep_one) return ld_keep_cheapest(w, rest, own, nown, key, out, nout);
    key[0] = size - best[0];
    key[1] = points - best[1];
    key[2] = points - best[2];
    return ld_own_result(w, rest, best_combo, best_spare, out, nout);
}

/* ================================================================ the driver */

typedef struct {
    LdWork w;
    LdCores cores;
    int counts[NT];
    int floor;
    int examined, have_best;
    int best_key[3];
    LdMeld best_own[2 * LD_MAXCONTRACT];
    int n_best_own;
} LdSearch;

/* One candidate of melds._best_closure; 1 stops (the best possible key, or an error). */
static int ld_candidate(LdSearch *S, long stuck, long stuck_points, const LdMeld *own,
                        int nown) {
    if (S->examined++ >= LAYDOWN_BUDGET) return 1;
    if (S->have_best &&
        (stuck > S->best_key[0] || (stuck == S->best_key[0] && stuck_points > S->best_key[1])))
        return 0;
    int rest[NT], key[3], nout;
    LdMeld out[2 * LD_MAXCONTRACT];
    memcpy(rest, S->counts, sizeof rest);
    for (int j = 0; j < nown; j++)
        for (int q = 0; q < own[j].n; q++) rest[own[j].cards[q]]--;
    if (ld_closure(&S->w, rest, own, nown, 1, key, out, &nout) < 0) return 1;
    if (!S->have_best || lex_greater(S->best_key, key, 3)) {
        S->have_best = 1;
        memcpy(S->best_key, key, sizeof key);
        memcpy(S->best_own, out, sizeof(LdMeld) * (size_t)nout);
        S->n_best_own = nout;
        if (key[0] == 1 && key[1] == S->floor && key[2] == S->floor) return 1;
    }
    return 0;
}

static int ld_core_visit(LdCores *k, long stuck, long stuck_points) {
    LdSearch *S = k->ctx;
    LdMeld own[2 * LD_MAXCONTRACT];
    int n = 0;
    for (int t = 0; t < k->n_trio_chosen; t++, n++) {
        const int *cards = k->trio_opt[k->chosen_trio[t]];
        own[n].kind = LD_TRIO;
        own[n].rank = cards[0] % NR;
        own[n].suit = -1;
        own[n].start = 0;
        own[n].n = 3;
        memcpy(own[n].cards, cards, sizeof(int) * 3);
    }
    for (int r = 0; r < k->n_run_chosen; r++, n++) {
        const int *cards = k->run_cards[r];
        own[n].kind = LD_RUN;
        own[n].rank = -1;
        own[n].suit = ld_run_suit(k, cards);
        own[n].start = cards[MAXRUN - 1];
        own[n].n = k->min_run;
        memcpy(own[n].cards, cards, sizeof(int) * (size_t)k->min_run);
    }
    return ld_candidate(S, stuck, stuck_points, own, n);
}

/* melds.best_arrangement into `plan`'s rows: the search, keeping a card back if every card
 * goes (melds._keep_one_back). 1 found, 0 none, LD_TOOLONG. */
static int ld_best_arrangement(Search *S, const int *counts, int trios, int runs, int min_run,
                               int wrap, const int *pts, LdPlan *plan) {
    int found = contract_search_c(S, counts, trios, runs, min_run, wrap, pts, 0);
    if (found < 0) return LD_TOOLONG;
    int total = 0, placed_cards = 0;
    for (int c = 0; c < NT; c++) total += counts[c];
    if (found) {
        for (int t = 0; t < S->n_trio; t++) placed_cards += S->trio_len[t];
        for (int d = 0; d < S->n_run; d++) placed_cards += S->run_len[d];
    }
    if (found && placed_cards == total) { /* melds._keep_one_back */
        int order[NT], n = 0, best_left = -1, hand_points = 0;
        for (int c = 0; c < NT; c++) {
            hand_points += counts[c] * pts[c];
            if (!counts[c]) continue;
            int j = n++;
            while (j > 0 && pts[order[j - 1]] > pts[c]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = c;
        }
        Search *T = malloc(sizeof(Search));
        if (T == NULL) return LD_NOMEM;
        found = 0;
        int rest[NT];
        memcpy(rest, counts, sizeof rest);
        for (int q = 0; q < n; q++) {
            int c = order[q];
            if (found && pts[c] >= best_left) break;
            rest[c]--;
            int got = contract_search_c(T, rest, trios, runs, min_run, wrap, pts, 0);
            rest[c]++;
            if (got < 0) {
                free(T);
                return LD_TOOLONG;
            }
            if (!got) continue;
            int placed = 0;
            for (int t = 0; t < T->n_trio; t++)
                for (int i = 0; i < T->trio_len[t]; i++) placed += pts[T->trio_cards[t][i]];
            for (int d = 0; d < T->n_run; d++)
                for (int i = 0; i < T->run_len[d]; i++) placed += pts[T->run_cards[d][i]];
            int left = hand_points - pts[c] - placed + pts[c];
            if (!found || left < best_left) {
                memcpy(S, T, sizeof(Search));
                found = 1;
                best_left = left;
            }
        }
        free(T);
    }
    if (!found) return 0;
    plan->nrows = 0;
    for (int t = 0; t < S->n_trio; t++) {
        LdRow *row = &plan->rows[plan->nrows++];
        row->kind = LD_TRIO;
        row->start = 0;
        row->key = S->trio_rank[t];
        row->n = S->trio_len[t];
        memcpy(row->cards, S->trio_cards[t], sizeof(int) * (size_t)row->n);
    }
    for (int d = 0; d < S->n_run; d++) {
        LdRow *row = &plan->rows[plan->nrows++];
        row->kind = LD_RUN;
        row->start = S->run_start[d];
        row->key = S->run_suit[d];
        row->n = S->run_len[d];
        memcpy(row->cards, S->run_cards[d], sizeof(int) * (size_t)row->n);
    }
    return 1;
}

/*
 * melds.laydown_plan: the lay-down chosen from `counts` (53 counts, naturals 0..LD_MAXCOPIES,
 * jokers 0..LD_MAXJOKERS) for `trios` + `runs` (each 0..LD_MAXCONTRACT, one at least) onto the `ntable`
 * (<= LD_MAXTABLE) melds of `table`, card points `pts` (0..10000). 1 with `plan` filled,
 * 0 without a contract, LD_NOMEM, or LD_TOOLONG (beyond these bounds).
 */
static int ld_laydown_plan(const int *counts, int trios, int runs, int min_run, int wrap,
                           const int *pts, const LdTableMeld *table, int ntable, LdPlan *plan) {
    LdSearch *S = calloc(1, sizeof(LdSearch));
    Search *search = malloc(sizeof(Search));
    int rc = LD_NOMEM;
    if (S == NULL || search == NULL) goto done;
    rc = ld_best_arrangement(search, counts, trios, runs, min_run, wrap, pts, plan);
    if (rc != 1) goto done;
    int total = 0, points = 0;
    for (int c = 0; c < NT; c++) total += counts[c];
    if (total > LAYDOWN_EXACT_CARDS) { /* melds._fewest_points_plan */
        int left[NT];
        memcpy(left, counts, sizeof left);
        for (int j = 0; j < plan->nrows; j++)
            for (int q = 0; q < plan->rows[j].n; q++) left[plan->rows[j].cards[q]]--;
        total = 0;
        for (int c = 0; c < NT; c++) {
            total += left[c];
            points += left[c] * pts[c];
        }
        plan->key[0] = total;
        plan->key[1] = plan->key[2] = points;
        goto done;
    }
    /* melds._best_closure over best_contract's arrangement, then the cores */
    memcpy(S->counts, counts, sizeof S->counts);
    S->w.wrap = wrap;
    memcpy(S->w.pts, pts, sizeof S->w.pts);
    S->w.table = table;
    S->w.ntable = ntable;
    S->floor = -1;
    for (int c = 0; c < NT; c++)
        if (counts[c] && (S->floor < 0 || pts[c] < S->floor)) S->floor = pts[c];
    LdMeld own[2 * LD_MAXCONTRACT];
    unsigned ranks = 0, suits = 0, table_ranks = 0, table_suits = 0;
    for (int i = 0; i < ntable; i++) {
        if (table[i].kind == LD_TRIO) table_ranks |= 1u << table[i].rank;
        if (table[i].kind == LD_RUN) table_suits |= 1u << table[i].suit;
    }
    int rest[NT];
    memcpy(rest, counts, sizeof rest);
    for (int j = 0; j < plan->nrows; j++) {
        const LdRow *row = &plan->rows[j];
        if (row->n > LD_OWNCARDS) { /* cannot happen: the hand holds at most 20 cards */
            rc = LD_TOOLONG;
            goto done;
        }
        own[j].kind = row->kind;
        own[j].rank = row->kind == LD_TRIO ? row->key : -1;
        own[j].suit = row->kind == LD_RUN ? row->key : -1;
        own[j].start = row->start;
        own[j].n = row->n;
        memcpy(own[j].cards, row->cards, sizeof(int) * (size_t)row->n);
        for (int q = 0; q < row->n; q++) rest[row->cards[q]]--;
        if (row->kind == LD_TRIO) ranks |= 1u << row->key;
        if (row->kind == LD_RUN) suits |= 1u << row->key;
    }
    /* melds.stuck_bound of the first candidate */
    ranks |= table_ranks;
    suits |= table_suits;
    long stuck = 0, stuck_points = 0;
    for (int c = 0; c < JK; c++)
        if (rest[c] && !(ranks >> (c % NR) & 1u) && !(suits >> (c / NR) & 1u)) {
            stuck += rest[c];
            stuck_points += (long)rest[c] * pts[c];
        }
    if (!stuck) {
        stuck = 1;
        stuck_points = -1;
        for (int c = 0; c < NT; c++)
            if (rest[c] && (stuck_points < 0 || pts[c] < stuck_points)) stuck_points = pts[c];
    }
    int stop = ld_candidate(S, stuck, stuck_points, own, plan->nrows);
    if (!stop && !S->w.error) {
        if (ld_cores_init(&S->cores, counts, trios, runs, min_run, wrap, pts, table_ranks,
                          table_suits, LAYDOWN_BUDGET - 1) < 0) {
            rc = LD_TOOLONG;
            goto done;
        }
        S->cores.visit = ld_core_visit;
        S->cores.ctx = S;
        ld_cores_run(&S->cores);
    }
    if (S->w.error) {
        rc = S->w.error;
        goto done;
    }
    memcpy(plan->key, S->best_key, sizeof plan->key);
    plan->nrows = 0;
    for (int pass = LD_TRIO; pass <= LD_RUN; pass++) /* trios first, then runs */
        for (int j = 0; j < S->n_best_own; j++) {
            const LdMeld *m = &S->best_own[j];
            if (m->kind != pass) continue;
            LdRow *row = &plan->rows[plan->nrows++];
            row->kind = m->kind;
            row->start = m->kind == LD_TRIO ? 0 : m->start;
            row->key = m->kind == LD_TRIO ? m->rank : m->suit;
            row->n = m->n;
            memcpy(row->cards, m->cards, sizeof(int) * (size_t)m->n);
        }
    rc = 1;
done:
    if (S != NULL) {
        for (int s = 0; s < 4; s++) free(S->w.opt[s]);
        free(S->w.found);
    }
    free(S);
    free(search);
    return rc;
}

#endif /* CONTINENTAL_LAYDOWN_C_H */
