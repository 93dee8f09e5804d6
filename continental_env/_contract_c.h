/*
 * melds.ContractSearch (best_contract's search) in plain C, shared by the compiled modules
 * (_kernels.c's contract_search, the lay-down choice of _laydown_c.h): one copy of the code.
 * No Python objects; everything is static.
 */
#ifndef CONTINENTAL_CONTRACT_C_H
#define CONTINENTAL_CONTRACT_C_H

#include <string.h>

#include "_melds_c.h"

/* ============================================================ melds.ContractSearch (best_contract) */
/*
 * Branch and bound over run windows, then an exact choice of trio ranks (melds.ContractSearch): the
 * arrangement of exactly `trios` trios and `runs` runs placing the most points. Integers only;
 * the windows, the trio combinations and the meld building follow the reference in order, so
 * the first best arrangement found is the same one.
 */

#define MAXWIN 720   /* 4 suits x 13 starts x 13 lengths */
#define MAXMELD 160  /* cards in one meld: a trio may take every natural of its rank and jokers */

typedef struct {
    int value, suit, start, n, pad_low, pad_high;
} Window;

typedef struct {
    int cards[MAXRUN + 1];
    int len, suit, start, naturals;
} RunPick;

typedef struct {
    int trios, runs, min_run, wrap, first_only;
    int pts[NT];
    int total_points;
    int best_value;
    int trio_bound, joker_bound;
    Window win[MAXWIN];
    int nw;
    RunPick chosen[8];
    int depth;
    /* the best arrangement: trio melds, then run melds */
    int n_trio, n_run;
    int trio_cards[8][MAXMELD], trio_len[8], trio_rank[8];
    int run_cards[8][MAXMELD], run_len[8], run_start[8], run_suit[8];
    int found;
    int overflow;
} Search;

static int search_finish(Search *S, const int *counts_in, const int *trio_m, int value);

static int search_leaf(Search *S, const int *counts, int run_value) {
    if (S->trios == 0) return search_finish(S, counts, NULL, run_value);
    int jokers = counts[JK];
    int left_by_rank[NR], value_by_rank[NR], stealable[NR] = {0};
    for (int r = 0; r < NR; r++) {
        left_by_rank[r] = value_by_rank[r] = 0;
        for (int s = 0; s < 4; s++) {
            left_by_rank[r] += counts[s * NR + r];
            value_by_rank[r] += S->pts[s * NR + r] * counts[s * NR + r];
        }
    }
    for (int d = 0; d < S->depth; d++)
        if (S->chosen[d].naturals >= 2)
            for (int k = 0; k < S->chosen[d].len; k++)
                if (S->chosen[d].cards[k] != JK) stealable[S->chosen[d].cards[k] % NR]++;
    int ranks[NR], nr = 0;
    for (int r = 0; r < NR; r++)
        if (left_by_rank[r] + stealable[r] > 0) ranks[nr++] = r;
    if (!nr) return 0;
    int best_m[NR], have_best = 0, best_val = -1;
    int idx[8] = {0};
    do { /* combinations_with_replacement(ranks, trios) */
        int m[NR] = {0};
        for (int j = 0; j < S->trios; j++) m[ranks[idx[j]]]++;
        int cost = 0, val = 0, ok = 1;
        for (int j = 0; j < S->trios && ok; j++) {
            int r = ranks[idx[j]];
            if (j && ranks[idx[j - 1]] == r) continue; /* each distinct rank once */
            int have = left_by_rank[r];
            int steal = m[r] - have > 0 ? m[r] - have : 0;
            if (steal > stealable[r]) {
                ok = 0;
                break;
            }
            int more = 3 * m[r] - have - steal;
            cost += steal + (more > 0 ? more : 0);
            val += value_by_rank[r];
        }
        if (ok && cost <= jokers && val > best_val) {
            best_val = val;
            memcpy(best_m, m, sizeof m);
            have_best = 1;
        }
    } while (next_combination_r(idx, S->trios, nr));
    if (!have_best) return 0;
    return search_finish(S, counts, best_m, run_value + best_val);
}

static int search_runs(Search *S, const int *counts, int first, int value) {
    if (S->depth == S->runs) return search_leaf(S, counts, value);
    int left = S->runs - S->depth;
    for (int i = first; i < S->nw; i++) {
        const Window *w = &S->win[i];
        if (value + left * w->value + S->trio_bound + S->joker_bound <= S->best_value)
            break; /* windows are sorted by value: nothing further can beat the best */
        int need = w->pad_low + w->pad_high;
        for (int k = 0; k < w->n; k++) need += counts[w->suit * NR + (w->start + k) % NR] == 0;
        if (need > counts[JK]) continue;
        /* melds.contract._take_run on a copy of the counts */
        int sub[NT];
        memcpy(sub, counts, sizeof sub);
        RunPick *pick = &S->chosen[S->depth];
        int len = 0, naturals = 0, gained = 0;
        for (int k = 0; k < w->pad_low; k++) pick->cards[len++] = JK;
        for (int k = 0; k < w->n; k++) {
            int c = w->suit * NR + (w->start + k) % NR;
            if (sub[c] > 0) {
                sub[c]--;
                pick->cards[len++] = c;
                naturals++;
                gained += S->pts[c];
            } else {
                pick->cards[len++] = JK;
            }
        }
        for (int k = 0; k < w->pad_high; k++) pick->cards[len++] = JK;
        sub[JK] -= len - naturals;
        if (naturals == 0) continue;
        pick->len = len;
        pick->suit = w->suit;
        pick->start = w->start - w->pad_low;
        pick->naturals = naturals;
        S->depth++;
        int stop = search_runs(S, sub, i, value + gained);
        S->depth--;
        if (stop) return 1;
    }
    return 0;
}

/* Build the arrangement (melds.ContractSearch._finish) and keep it if it places more points. */
static int search_finish(Search *S, const int *counts_in, const int *trio_m, int value) {
    (void)value;
    int counts[NT];
    memcpy(counts, counts_in, sizeof counts);
    int nrun = S->depth;
    int run_cards[8][MAXMELD], run_len[8], run_start[8], run_suit[8];
    for (int d = 0; d < nrun; d++) {
        memcpy(run_cards[d], S->chosen[d].cards, sizeof(int) * S->chosen[d].len);
        run_len[d] = S->chosen[d].len;
        run_start[d] = S->chosen[d].start;
        run_suit[d] = S->chosen[d].suit;
    }
    int ntrio = 0;
    int trio_cards[8][MAXMELD], trio_len[8];
    if (trio_m != NULL) {
        for (int r = 0; r < NR; r++) { /* sorted(trio_ranks.items()) */
            int m = trio_m[r];
            if (!m) continue;
            int naturals[MAXMELD], nn = 0;
            for (int s = 0; s < 4; s++) {
                int c = s * NR + r;
                for (int q = 0; q < counts[c]; q++) {
                    if (nn >= MAXMELD) return S->overflow = 1;
                    naturals[nn++] = c;
                }
                counts[c] = 0;
            }
            /* steal missing naturals from runs, a joker taking their place */
            while (nn < m) {
                int stolen = 0;
                for (int d = 0; d < nrun && !stolen; d++) {
                    int nat = 0, hit = -1;
                    for (int k = 0; k < run_len[d]; k++)
                        if (run_cards[d][k] != JK) {
                            nat++;
                            if (hit < 0 && run_cards[d][k] % NR == r) hit = k;
                        }
                    if (hit >= 0 && nat >= 2) {
                        naturals[nn++] = run_cards[d][hit];
                        run_cards[d][hit] = JK;
                        counts[JK]--;
                        stolen = 1;
                    }
                }
                if (!stolen) return 0; /* guarded by the caller's stealable count */
            }
            for (int g = 0; g < m; g++) { /* naturals[g::m] */
                int *t = trio_cards[ntrio];
                int len = 0;
                for (int q = g; q < nn; q += m) t[len++] = naturals[q];
                int need = 3 - len > 0 ? 3 - len : 0;
                counts[JK] -= need;
                for (int q = 0; q < need; q++) t[len++] = JK;
                trio_len[ntrio++] = len;
            }
        }
        if (counts[JK] < 0) return 0;
        if (trio_len[0] + counts[JK] > MAXMELD) return S->overflow = 1;
        for (int q = 0; q < counts[JK]; q++) trio_cards[0][trio_len[0]++] = JK;
        counts[JK] = 0;
    } else {
        /* No trio: spare jokers extend runs, then replace cheaper naturals in runs. */
        for (int d = 0; d < nrun; d++) {
            while (counts[JK] > 0 && run_len[d] < NR) {
                if (S->wrap || run_start[d] + run_len[d] - 1 < NR) {
                    run_cards[d][run_len[d]++] = JK;
                } else if (run_start[d] > 0) {
                    memmove(run_cards[d] + 1, run_cards[d], sizeof(int) * run_len[d]);
                    run_cards[d][0] = JK;
                    run_len[d]++;
                    run_start[d]--;
                } else {
                    break;
                }
                counts[JK]--;
            }
        }
        while (counts[JK] > 0) {
            int bi = -1, bk = -1;
            for (int d = 0; d < nrun; d++) {
                int nat = 0, k = -1;
                for (int q = 0; q < run_len[d]; q++)
                    if (run_cards[d][q] != JK) {
                        nat++;
                        if (k < 0 || S->pts[run_cards[d][q]] < S->pts[run_cards[d][k]]) k = q;
                    }
                if (nat >= 2 &&
                    (bi < 0 || S->pts[run_cards[d][k]] < S->pts[run_cards[bi][bk]])) {
                    bi = d;
                    bk = k;
                }
            }
            if (bi < 0 || S->pts[run_cards[bi][bk]] >= S->pts[JK]) break;
            counts[run_cards[bi][bk]]++;
            run_cards[bi][bk] = JK;
            counts[JK]--;
        }
    }
    int leftover = 0;
    for (int c = 0; c < NT; c++) leftover += counts[c] * S->pts[c];
    int placed = S->total_points - leftover;
    if (placed > S->best_value) {
        S->best_value = placed;
        S->found = 1;
        S->n_trio = ntrio;
        S->n_run = nrun;
        for (int t = 0; t < ntrio; t++) {
            memcpy(S->trio_cards[t], trio_cards[t], sizeof(int) * trio_len[t]);
            S->trio_len[t] = trio_len[t];
            int rank = -1;
            for (int q = 0; q < trio_len[t] && rank < 0; q++)
                if (trio_cards[t][q] != JK) rank = trio_cards[t][q] % NR;
            S->trio_rank[t] = rank;
        }
        for (int d = 0; d < nrun; d++) {
            memcpy(S->run_cards[d], run_cards[d], sizeof(int) * run_len[d]);
            S->run_len[d] = run_len[d];
            S->run_start[d] = pymod(run_start[d], S->wrap ? 13 : 14);
            S->run_suit[d] = run_suit[d];
        }
    }
    return S->first_only;
}

/* Run the search on `counts` into the zeroed `S` (S->pts and the arrangement fields are its
 * own): 1 found (the best arrangement in S), 0 none, -1 a meld too long for MAXMELD. */
static int contract_search_c(Search *S, const int *counts, int trios, int runs, int min_run,
                             int wrap, const int *pts, int first_only) {
    /* the scalars only: the arrays are written before they are read (a whole memset of the
     * ~30 KB struct would cost more than a small search) */
    S->nw = S->depth = S->found = S->overflow = S->n_trio = S->n_run = 0;
    S->total_points = S->trio_bound = S->joker_bound = 0;
    memcpy(S->pts, pts, sizeof S->pts);
    S->trios = trios;
    S->runs = runs;
    S->min_run = min_run;
    S->wrap = wrap;
    S->first_only = first_only;
    S->best_value = -1;
    for (int c = 0; c < NT; c++) S->total_points += counts[c] * S->pts[c];
    int jokers = counts[JK];
    if (runs) { /* melds.contract._windows, then a stable sort by value, highest first */
        for (int suit = 0; suit < 4; suit++) {
            int base = suit * NR, present[NR], any = 0, first_present = -1;
            for (int r = 0; r < NR; r++) {
                present[r] = counts[base + r] > 0;
                any |= present[r];
                if (present[r] && first_present < 0) first_present = r;
            }
            if (!any) continue;
            int max_start = wrap ? NR - 1 : NR;
            for (int start = 0; start <= max_start; start++)
                for (int n = 1; n <= NR; n++) {
                    if (!wrap && start + n - 1 > 13) continue;
                    if (!present[start % NR] || !present[(start + n - 1) % NR]) continue;
                    if (wrap && n == NR && start != first_present) continue;
                    int gaps = 0, value = 0;
                    for (int i = 0; i < n; i++) {
                        int r = (start + i) % NR;
                        if (present[r])
                            value += S->pts[base + r];
                        else
                            gaps++;
                    }
                    int pad = min_run - n > 0 ? min_run - n : 0;
                    if (gaps + pad > jokers) continue;
                    int pad_high = 0, pad_low = 0;
                    if (pad) {
                        int room_high = wrap ? NR - n : NR - (start + n - 1);
                        pad_high = pad < room_high ? pad : room_high;
                        pad_low = pad - pad_high;
                        if (!wrap && pad_low > start) continue;
                        if (n + pad > NR) continue;
                    }
                    Window w = {value, suit, start, n, pad_low, pad_high};
                    int j = S->nw++;
                    while (j > 0 && S->win[j - 1].value < value) {
                        S->win[j] = S->win[j - 1];
                        j--;
                    }
                    S->win[j] = w;
                }
        }
    }
    int rank_values[NR];
    for (int r = 0; r < NR; r++) {
        rank_values[r] = 0;
        for (int s = 0; s < 4; s++) rank_values[r] += S->pts[s * NR + r] * counts[s * NR + r];
    }
    for (int k = 0; k < trios && k < NR; k++) { /* the best `trios` ranks by natural points */
        int b = k;
        for (int i = k + 1; i < NR; i++)
            if (rank_values[i] > rank_values[b]) b = i;
        int tmp = rank_values[k];
        rank_values[k] = rank_values[b];
        rank_values[b] = tmp;
        S->trio_bound += rank_values[k];
    }
    S->joker_bound = counts[JK] * S->pts[JK];
    search_runs(S, counts, 0, 0);
    return S->overflow ? -1 : S->found;
}

#endif /* CONTINENTAL_CONTRACT_C_H */
