/*
 * Compiled kernels for the hot pure functions of 53-count tuples.
 *
 * Each function here is a line-by-line port of a pure-Python reference that stays in the
 * package as the readable definition (continental_env/kernels.py says which, and how to pick
 * the reference at run time). The ports must return exactly what the reference returns, ties
 * included, so that the bots' decisions are bit-identical whichever path runs:
 *
 * - every sort reproduces Python's stable sort on the same keys (ties broken by the original
 *   position, which is what a stable sort keeps);
 * - floating point follows the same operations in the same order (Python floats are IEEE
 *   doubles; the build turns off contraction into fused multiply-adds), and `sum()` of floats
 *   is emulated as the running interpreter does it (plain left-to-right before 3.12,
 *   Neumaier-compensated from 3.12 on);
 * - enumerations (combinations, combinations with replacement) visit in itertools' order.
 *
 * The hand analysis and the v1 features are plain C without Python objects in
 * _features_c.h (included below), so that other C can include them too; this file holds their
 * Python entries.
 *
 * Card ids: 0..51 are naturals (suit * 13 + rank, rank 0 = ace), 52 is the joker.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "_melds_c.h"

#include "_features_c.h" /* hand_analysis_c and features_write: plain C, shared */

/* ------------------------------------------------------------------------- helpers */

/* Read a sequence of 53 non-negative ints (a tuple on the hot path) into `out`. */
static int read_counts(PyObject *obj, int *out, const char *name) {
    PyObject *seq = PySequence_Fast(obj, "counts must be a sequence");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != NT) {
        PyErr_Format(PyExc_ValueError, "%s must hold %d card counts, got %zd", name, NT,
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (int i = 0; i < NT; i++) {
        long v = PyLong_AsLong(items[i]);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < 0 || v > 1000000) {
            PyErr_Format(PyExc_ValueError, "%s[%d] = %ld is not a card count", name, i, v);
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *counts_tuple(const int *c) {
    PyObject *t = PyTuple_New(NT);
    if (t == NULL) return NULL;
    for (int i = 0; i < NT; i++) {
        PyObject *v = PyLong_FromLong(c[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* sum() of a list of floats as the running interpreter computes it. Python 3.12 made sum()
 * of floats compensated (Neumaier); earlier versions add left to right. An empty list sums to
 * the int 0 there; callers handle that case themselves. */
static double py_sum(const double *x, int n) {
    if (n == 0) return 0.0;
    double f = x[0];
#if PY_VERSION_HEX >= 0x030C0000
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

/* ========================================================================= strong.make_plan */

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

static int cmp_trio(const void *a, const void *b) {
    const TrioCand *x = a, *y = b;
    if (x->key < y->key) return -1;
    if (x->key > y->key) return 1;
    return x->r - y->r; /* the ranks differ: (key, r) decides the tuple order */
}

static int cmp_run(const void *a, const void *b) {
    const RunCand *x = a, *y = b;
    if (x->cost < y->cost) return -1;
    if (x->cost > y->cost) return 1;
    return x->w - y->w; /* windows are numbered in their tuple order */
}

static const double *g_bounds; /* qsort has no context argument */
static int cmp_bound(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (g_bounds[x] < g_bounds[y]) return -1;
    if (g_bounds[x] > g_bounds[y]) return 1;
    return x - y; /* stable: the earlier combination first */
}

static int cmp_desc(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static int lex_greater(const int *a, const int *b, int n) {
    for (int k = 0; k < n; k++)
        if (a[k] != b[k]) return a[k] > b[k];
    return 0;
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

/* Next combination with replacement in itertools' order; 0 when done. */
static int next_combination_r(int *idx, int k, int n) {
    int i = k - 1;
    while (i >= 0 && idx[i] == n - 1) i--;
    if (i < 0) return 0;
    int v = idx[i] + 1;
    for (int j = i; j < k; j++) idx[j] = v;
    return 1;
}

#define MAXCOMBO 4096
#define MAXSLOTS 96

static PyObject *k_make_plan(PyObject *self, PyObject *args) {
    PyObject *hand_obj, *unseen_obj;
    int trios, runs, min_run, wrap;
    if (!PyArg_ParseTuple(args, "OOiiip", &hand_obj, &unseen_obj, &trios, &runs, &min_run, &wrap))
        return NULL;
    int hand[NT], unseen[NT];
    if (read_counts(hand_obj, hand, "hand") < 0 || read_counts(unseen_obj, unseen, "unseen") < 0)
        return NULL;
    if (trios < 0 || runs < 0 || trios > 7 || runs > 4 || min_run < 1 || min_run > MAXRUN) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        return NULL;
    }
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
        qsort(trio_cands, nt, sizeof(TrioCand), cmp_trio);
        if (nt > trios + 3) nt = trios + 3; /* EXTRA_TRIO_CANDIDATES */
    }

    /* Run candidates: windows holding a hand natural, by the cost of their missing cards. */
    static int win[MAXW][MAXRUN];
    int nw = run_windows(min_run, wrap, win);
    RunCand run_cands[2 * MAXW];
    int nr = 0;
    if (runs) {
        for (int w = 0; w < nw; w++) {
            int held = 0;
            double cost = 0.0;
            for (int i = 0; i < min_run; i++) {
                int c = win[w][i];
                if (hand[c])
                    held++;
                else
                    cost += slot_of[c];
            }
            if (held) {
                run_cands[nr].cost = cost;
                run_cands[nr].w = w;
                nr++;
            }
        }
        if (nr < runs) {
            for (int w = 0; w < nw; w++) {
                double xs[MAXRUN] = {0};
                for (int i = 0; i < min_run; i++) xs[i] = slot_of[win[w][i]];
                run_cands[nr].cost = py_sum(xs, min_run);
                run_cands[nr].w = w;
                nr++;
            }
        }
        qsort(run_cands, nr, sizeof(RunCand), cmp_run);
        if (nr > runs + 3) nr = runs + 3; /* EXTRA_RUN_CANDIDATES */
    }

    /* Combinations, in itertools' order. */
    static int run_combos[MAXCOMBO][4];
    int n_run_combos = 0;
    if (runs && nr > 0) {
        int idx[4] = {0, 0, 0, 0};
        do {
            if (n_run_combos >= MAXCOMBO) {
                PyErr_SetString(PyExc_ValueError, "too many run combinations");
                return NULL;
            }
            memcpy(run_combos[n_run_combos++], idx, sizeof idx);
        } while (next_combination_r(idx, runs, nr));
    } else if (!runs) {
        n_run_combos = 1; /* [()] */
    }
    static int trio_combos[MAXCOMBO][8];
    int n_trio_combos = 0;
    if (trios) {
        if (trios <= nt) {
            int idx[8];
            for (int i = 0; i < trios; i++) idx[i] = i;
            do {
                if (n_trio_combos >= MAXCOMBO) {
                    PyErr_SetString(PyExc_ValueError, "too many trio combinations");
                    return NULL;
                }
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
    static double bounds[MAXCOMBO];
    static int order[MAXCOMBO];
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
        order[p] = p;
    }
    g_bounds = bounds;
    qsort(order, n_run_combos, sizeof(int), cmp_bound);

    int have_best = 0, best_int_zero = 0;
    double best_cost = 0.0;
    int best_missing = 0, best_pos = 0, best_tpos = 0;
    int best_used[NT];
    int best_run_combo = 0, best_trio_combo = 0;

    for (int oi = 0; oi < n_run_combos; oi++) {
        int pos = order[oi];
        if (have_best && bounds[pos] > best_cost + 2e-9) break;
        int need[NT];
        memset(need, 0, sizeof need);
        double slots[MAXSLOTS];
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
        int used[NT];
        for (int c = 0; c < NT; c++) used[c] = need[c] < hand[c] ? need[c] : hand[c];
        int trio_n[NR]; /* missing slots of each trio candidate given the runs' cards */
        for (int t = 0; t < nt; t++) {
            int r = trio_cands[t].r, have = 0;
            for (int s = 0; s < 4; s++) {
                int left = hand[s * NR + r] - used[s * NR + r];
                if (left > 0) have += left;
            }
            trio_n[t] = 3 - have > 0 ? 3 - have : 0;
        }
        for (int tp = 0; tp < n_trio_combos; tp++) {
            double t_slots[MAXSLOTS];
            int n = ns;
            memcpy(t_slots, slots, sizeof(double) * ns);
            for (int j = 0; j < trios; j++) {
                int t = trio_combos[tp][j];
                for (int q = 0; q < trio_n[t]; q++) t_slots[n++] = trio_cands[t].slot;
            }
            qsort(t_slots, n, sizeof(double), cmp_desc); /* equal doubles are interchangeable */
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
                memcpy(best_used, used, sizeof used);
                best_run_combo = pos;
                best_trio_combo = tp;
                best_pos = pos;
                best_tpos = tp;
            }
        }
    }
    if (!have_best) {
        PyErr_SetString(PyExc_AssertionError, "make_plan found no combination");
        return NULL;
    }

    /* The core: what the plan's runs and trios use, every joker, and run extensions. */
    int core[NT];
    int *used = best_used;
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
    PyObject *core_t = counts_tuple(core);
    if (core_t == NULL) return NULL;
    PyObject *cost_obj = best_int_zero ? PyLong_FromLong(0) : PyFloat_FromDouble(best_cost);
    if (cost_obj == NULL) {
        Py_DECREF(core_t);
        return NULL;
    }
    return Py_BuildValue("(NiN)", cost_obj, best_missing, core_t);
}

/* ===================================================================== melds.contract_exists */

static PyObject *k_contract_exists(PyObject *self, PyObject *args) {
    PyObject *counts_obj;
    int trios, runs, min_run, wrap, steal;
    if (!PyArg_ParseTuple(args, "Oiiipp", &counts_obj, &trios, &runs, &min_run, &wrap, &steal))
        return NULL;
    int counts[NT];
    if (read_counts(counts_obj, counts, "counts") < 0) return NULL;
    if (trios < 0 || runs < 0 || trios > 8 || runs > 8 || min_run < 1 || min_run > MAXRUN) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        return NULL;
    }
    return PyBool_FromLong(contract_exists_c(counts, trios, runs, min_run, wrap, steal));
}


/* ========================================================= melds.core_combinations (+ bound) */
/*
 * The lay-down search (melds.laydown_plan) examines combinations of contract "cores" in a
 * fixed order and stops after a budget. Enumerating them is most of its time, so the kernel
 * yields the same combinations in the same order (after best_contract's own arrangement, which
 * the caller puts first), each with melds.stuck_bound's value: the caller skips the
 * combinations that bound rules out and runs the exact lay-off closure on the others.
 */

#define MAXTRIOOPT 1024 /* 13 ranks x 34 distinct options, plus one rank's 220 before dedup */
#define MAXSPAN 64

typedef struct {
    int min_run, trios, runs, limit;
    int pts[NT];
    int left[NT];
    int trio_opt[MAXTRIOOPT][3];
    int n_trio_opt;
    int span_suit[MAXSPAN], span_start[MAXSPAN];
    int n_span;
    unsigned table_ranks, table_suits; /* bitmasks: trio ranks and run suits on the table */
    /* the combination being built: trio option indices, then run cards */
    int chosen_trio[8];
    int run_cards[8][MAXRUN];
    int n_trio_chosen, n_run_chosen;
    PyObject *out;
    PyObject *trio_str, *run_str;
    int count;
    int failed;
} Cores;

static int take_cards(int *left, const int *cards, int n) {
    int ok = 1;
    for (int k = 0; k < n; k++) {
        left[cards[k]]--;
        ok = ok && left[cards[k]] >= 0;
    }
    return ok;
}

static void give_cards(int *left, const int *cards, int n) {
    for (int k = 0; k < n; k++) left[cards[k]]++;
}

static PyObject *int_tuple(const int *xs, int n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(xs[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* Emit the current combination: (stuck cards, stuck points, melds) as melds.stuck_bound and
 * the (kind, cards, start, key) form of melds.best_arrangement. Returns 1 to stop. */
static int emit_core(Cores *k) {
    unsigned ranks = k->table_ranks, suits = k->table_suits;
    for (int t = 0; t < k->n_trio_chosen; t++) ranks |= 1u << (k->trio_opt[k->chosen_trio[t]][0] % NR);
    for (int r = 0; r < k->n_run_chosen; r++) {
        int suit = -1;
        for (int i = 0; i < k->min_run; i++)
            if (k->run_cards[r][i] != JK) suit = k->run_cards[r][i] / NR;
        suits |= 1u << suit;
    }
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
    int n = k->n_trio_chosen + k->n_run_chosen;
    PyObject *melds_t = PyTuple_New(n);
    if (melds_t == NULL) return k->failed = 1;
    for (int t = 0; t < k->n_trio_chosen; t++) {
        const int *cards = k->trio_opt[k->chosen_trio[t]];
        PyObject *m = Py_BuildValue("(ONii)", k->trio_str, int_tuple(cards, 3), 0, cards[0] % NR);
        if (m == NULL) {
            Py_DECREF(melds_t);
            return k->failed = 1;
        }
        PyTuple_SET_ITEM(melds_t, t, m);
    }
    for (int r = 0; r < k->n_run_chosen; r++) {
        const int *cards = k->run_cards[r];
        int suit = 0;
        for (int i = 0; i < k->min_run; i++)
            if (cards[i] != JK) suit = cards[i] / NR;
        /* the span's start is stored beside its cards (index min_run) */
        PyObject *m = Py_BuildValue("(ONii)", k->run_str, int_tuple(cards, k->min_run),
                                    cards[MAXRUN - 1], suit);
        if (m == NULL) {
            Py_DECREF(melds_t);
            return k->failed = 1;
        }
        PyTuple_SET_ITEM(melds_t, k->n_trio_chosen + r, m);
    }
    PyObject *row = Py_BuildValue("(llN)", stuck, stuck_points, melds_t);
    if (row == NULL || PyList_Append(k->out, row) < 0) {
        Py_XDECREF(row);
        return k->failed = 1;
    }
    Py_DECREF(row);
    return ++k->count >= k->limit;
}

static int choose_runs(Cores *k, int first, int to_place) {
    if (!to_place) {
        long total = 0;
        for (int c = 0; c < NT; c++) total += k->left[c];
        return total >= 1 ? emit_core(k) : 0;
    }
    for (int i = first; i < k->n_span; i++) {
        int suit = k->span_suit[i], start = k->span_start[i];
        int *cards = k->run_cards[k->n_run_chosen];
        int naturals = 0;
        for (int q = 0; q < k->min_run; q++) {
            int c = suit * NR + (start + q) % NR;
            int before = 0; /* cards.count(c): copies of c already in this run */
            for (int p = 0; p < q; p++) before += cards[p] == c;
            cards[q] = k->left[c] > before ? c : JK;
            naturals += cards[q] != JK;
        }
        if (!naturals) continue;
        cards[MAXRUN - 1] = start;
        if (take_cards(k->left, cards, k->min_run)) {
            k->n_run_chosen++;
            int stop = choose_runs(k, i, to_place - 1);
            k->n_run_chosen--;
            if (stop) {
                give_cards(k->left, cards, k->min_run);
                return 1;
            }
        }
        give_cards(k->left, cards, k->min_run);
    }
    return 0;
}

static int choose_trios(Cores *k, int first) {
    if (k->n_trio_chosen == k->trios) return choose_runs(k, 0, k->runs);
    for (int i = first; i < k->n_trio_opt; i++) {
        const int *cards = k->trio_opt[i];
        if (take_cards(k->left, cards, 3)) {
            k->chosen_trio[k->n_trio_chosen++] = i;
            int stop = choose_trios(k, i);
            k->n_trio_chosen--;
            if (stop) {
                give_cards(k->left, cards, 3);
                return 1;
            }
        }
        give_cards(k->left, cards, 3);
    }
    return 0;
}

static int trio_key(const Cores *k, const int *cards) { /* points of the naturals */
    int v = 0;
    for (int q = 0; q < 3; q++)
        if (cards[q] != JK) v += k->pts[cards[q]];
    return v;
}

static PyObject *k_laydown_cores(PyObject *self, PyObject *args) {
    PyObject *counts_obj, *pts_obj;
    int trios, runs, min_run, wrap, limit;
    unsigned table_ranks, table_suits;
    if (!PyArg_ParseTuple(args, "OiiipOIIi", &counts_obj, &trios, &runs, &min_run, &wrap,
                          &pts_obj, &table_ranks, &table_suits, &limit))
        return NULL;
    Cores *k = PyMem_Calloc(1, sizeof(Cores));
    if (k == NULL) return PyErr_NoMemory();
    PyObject *result = NULL;
    int counts[NT];
    if (read_counts(counts_obj, counts, "counts") < 0 || read_counts(pts_obj, k->pts, "pts") < 0)
        goto done;
    if (trios < 0 || runs < 0 || trios > 8 || runs > 8 || min_run < 1 || min_run > MAXRUN - 1) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        goto done;
    }
    k->min_run = min_run;
    k->trios = trios;
    k->runs = runs;
    k->limit = limit;
    k->table_ranks = table_ranks;
    k->table_suits = table_suits;
    memcpy(k->left, counts, sizeof counts);
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
                if (k->n_trio_opt >= MAXTRIOOPT) {
                    PyErr_SetString(PyExc_ValueError, "too many trio options");
                    goto done;
                }
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
        int key = trio_key(k, tmp), j = i - 1;
        while (j >= 0 && trio_key(k, k->trio_opt[j]) < key) {
            memcpy(k->trio_opt[j + 1], k->trio_opt[j], sizeof tmp);
            j--;
        }
        memcpy(k->trio_opt[j + 1], tmp, sizeof tmp);
    }
    /* Run spans: every suit and start, stable-sorted by the points of the naturals in hand. */
    int nstarts = wrap ? NR : NR + 2 - min_run;
    int span_key[MAXSPAN];
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
    k->out = PyList_New(0);
    k->trio_str = PyUnicode_InternFromString("trio");
    k->run_str = PyUnicode_InternFromString("run");
    if (k->out == NULL || k->trio_str == NULL || k->run_str == NULL) goto done;
    if (limit > 0) choose_trios(k, 0);
    if (k->failed) goto done;
    result = k->out;
    k->out = NULL;
done:
    Py_XDECREF(k->out);
    Py_XDECREF(k->trio_str);
    Py_XDECREF(k->run_str);
    PyMem_Free(k);
    return result;
}


/* ================================================================= melds.distance.hand_analysis */
/* The search is hand_analysis_c in _features_c.h (the features call it too). */

static PyObject *k_hand_analysis(PyObject *self, PyObject *args) {
    PyObject *counts_obj;
    int trios, runs, min_run, wrap;
    if (!PyArg_ParseTuple(args, "Oiiip", &counts_obj, &trios, &runs, &min_run, &wrap))
        return NULL;
    int counts[NT];
    if (read_counts(counts_obj, counts, "counts") < 0) return NULL;
    HandAnalysis ha;
    if (hand_analysis_c(counts, trios, runs, min_run, wrap, &ha) < 0) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        return NULL;
    }
    PyObject *red = PyList_New(0);
    if (red == NULL) return NULL;
    for (int c = 0; c < NT; c++)
        if (ha.reducers >> c & 1) {
            PyObject *v = PyLong_FromLong(c);
            if (v == NULL || PyList_Append(red, v) < 0) {
                Py_XDECREF(v);
                Py_DECREF(red);
                return NULL;
            }
            Py_DECREF(v);
        }
    PyObject *fs = PyFrozenSet_New(red);
    Py_DECREF(red);
    if (fs == NULL) return NULL;
    return Py_BuildValue("(iNNN)", ha.distance, fs, counts_tuple(ha.in_trio),
                         counts_tuple(ha.in_run));
}

/* ======================================================== contract.features.encode_features */
/*
 * The Python entry of features_write (_features_c.h): every argument is read and checked into
 * one C buffer before anything is written, so a refused call leaves `out` as it was.
 */

#define FEAT_MAX_PLAYERS 64
#define FEAT_MAX_COUNT 1000000

/* The name of an argument for an error: `name`, or name[index] when index >= 0, then `field`
 * (formatted only when an error is raised: the checks run on every call). */
static void feat_label(char *label, size_t size, const char *name, Py_ssize_t index,
                       const char *field) {
    if (index >= 0)
        snprintf(label, size, "%s[%zd]%s", name, index, field);
    else
        snprintf(label, size, "%s%s", name, field);
}

/* An int argument in lo..hi into *out. */
static int feat_int(PyObject *obj, const char *name, Py_ssize_t index, const char *field, long lo,
                    long hi, int *out) {
    char label[96];
    if (!PyLong_Check(obj)) {
        feat_label(label, sizeof label, name, index, field);
        PyErr_Format(PyExc_TypeError, "%s must be an int, got %.80s", label,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    long v = PyLong_AsLong(obj);
    if ((v == -1 && PyErr_Occurred()) || v < lo || v > hi) {
        PyErr_Clear();
        feat_label(label, sizeof label, name, index, field);
        PyErr_Format(PyExc_ValueError, "%s = %R is out of range %ld..%ld", label, obj, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* The value of an exact int of one digit or zero (most counts), read without a call; -1 for
 * any other (the caller then asks PyLong_AsLong). */
static inline long small_int(PyObject *obj) {
#if PY_VERSION_HEX >= 0x030C0000
    return PyUnstable_Long_IsCompact((PyLongObject *)obj)
               ? (long)PyUnstable_Long_CompactValue((PyLongObject *)obj)
               : -1;
#else
    Py_ssize_t size = Py_SIZE(obj);
    return size == 0 ? 0 : size == 1 ? (long)((PyLongObject *)obj)->ob_digit[0] : -1;
#endif
}

/* A list or tuple of ints in lo..hi into dst: exactly `n` of them, or (n < 0) at most `cap`.
 * Returns the count read, or -1. */
static Py_ssize_t feat_ints(PyObject *obj, const char *name, Py_ssize_t index, Py_ssize_t n,
                            Py_ssize_t cap, long lo, long hi, int *dst) {
    char label[96];
    if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
        feat_label(label, sizeof label, name, index, "");
        PyErr_Format(PyExc_TypeError, "%s must be a list or tuple of ints, got %.80s", label,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(obj);
    if ((n >= 0 && len != n) || (n < 0 && len > cap)) {
        feat_label(label, sizeof label, name, index, "");
        if (n >= 0)
            PyErr_Format(PyExc_ValueError, "%s must hold %zd ints, got %zd", label, n, len);
        else
            PyErr_Format(PyExc_ValueError, "%s holds %zd ints, more than %zd", label, len, cap);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = items[i];
        long v = PyLong_CheckExact(item) ? small_int(item) : -1;
        if (v < 0 && PyLong_Check(item)) v = PyLong_AsLong(item);
        if (!PyLong_Check(item) || (v == -1 && PyErr_Occurred()) || v < lo || v > hi) {
            char at[32];
            snprintf(at, sizeof at, "[%zd]", i);
            return feat_int(item, name, index, at, lo, hi, dst + i);
        }
        dst[i] = (int)v;
    }
    return len;
}

static PyObject *k_encode_features(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    enum {
        A_OUT, A_P, A_SEAT, A_TRIOS, A_RUNS, A_MIN_RUN, A_WRAP, A_LIVE, A_DOWN, A_HAND, A_DECK,
        A_DISCARD, A_TABLE, A_KNOWN, A_SIZES, A_LAID, A_CLAIMS, A_POINTS, A_DISCARDED,
        A_DECLINED, A_TAKES, A_DISCARDS, A_ENTRIES, A_COUNT
    };
    if (nargs != A_COUNT) {
        PyErr_Format(PyExc_TypeError, "encode_features takes %d arguments, got %zd", A_COUNT,
                     nargs);
        return NULL;
    }
    FeatInput in;
    memset(&in, 0, sizeof in);
    if (feat_int(args[A_P], "num_players", -1, "", 2, FEAT_MAX_PLAYERS, &in.p) < 0 ||
        feat_int(args[A_SEAT], "seat", -1, "", 0, in.p - 1, &in.seat) < 0 ||
        feat_int(args[A_TRIOS], "trios", -1, "", 0, HA_MAX_MELDS, &in.trios) < 0 ||
        feat_int(args[A_RUNS], "runs", -1, "", 0, HA_MAX_MELDS, &in.runs) < 0 ||
        feat_int(args[A_MIN_RUN], "min_run", -1, "", 1, MAXRUN, &in.min_run) < 0)
        return NULL;
    if ((in.wrap = PyObject_IsTrue(args[A_WRAP])) < 0 ||
        (in.live = PyObject_IsTrue(args[A_LIVE])) < 0 ||
        (in.laid_down_self = PyObject_IsTrue(args[A_DOWN])) < 0)
        return NULL;
    const int p = in.p;
    PyObject *discard = args[A_DISCARD], *table = args[A_TABLE], *known = args[A_KNOWN];
    PyObject *entries = args[A_ENTRIES];
    in.has_log = entries != Py_None;
    if (!PyList_Check(discard) && !PyTuple_Check(discard)) {
        PyErr_Format(PyExc_TypeError, "discard must be a list or tuple of ints, got %.80s",
                     Py_TYPE(discard)->tp_name);
        return NULL;
    }
    if (!PyList_Check(table) && !PyTuple_Check(table)) {
        PyErr_Format(PyExc_TypeError, "table must be a list or tuple of card lists, got %.80s",
                     Py_TYPE(table)->tp_name);
        return NULL;
    }
    if (!PyList_Check(known) && !PyTuple_Check(known)) {
        PyErr_Format(PyExc_TypeError, "known must be a list or tuple of count lists, got %.80s",
                     Py_TYPE(known)->tp_name);
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(known) != p) {
        PyErr_Format(PyExc_ValueError, "known must hold %d count lists, got %zd", p,
                     PySequence_Fast_GET_SIZE(known));
        return NULL;
    }
    if (in.has_log && !PyList_Check(entries) && !PyTuple_Check(entries)) {
        PyErr_Format(PyExc_TypeError, "entries must be None or a list of (seat, kind, card), got "
                     "%.80s", Py_TYPE(entries)->tp_name);
        return NULL;
    }
    Py_ssize_t n_discard = PySequence_Fast_GET_SIZE(discard);
    Py_ssize_t n_table = 0, n_melds = PySequence_Fast_GET_SIZE(table);
    PyObject **melds = PySequence_Fast_ITEMS(table);
    for (Py_ssize_t m = 0; m < n_melds; m++) {
        if (!PyList_Check(melds[m]) && !PyTuple_Check(melds[m])) {
            PyErr_Format(PyExc_TypeError, "table[%zd] must be a list or tuple of ints, got %.80s",
                         m, Py_TYPE(melds[m])->tp_name);
            return NULL;
        }
        n_table += PySequence_Fast_GET_SIZE(melds[m]);
    }
    if (n_discard > 1000000 || n_table > 1000000) {
        PyErr_Format(PyExc_ValueError, "discard (%zd) or table (%zd) holds too many cards",
                     n_discard, n_table);
        return NULL;
    }
    /* one buffer: hand, deck, points, discard, table, known, sizes, laid down, claims,
     * discarded, declined, takes, discards, the last entries (seat, kind, card) */
    Py_ssize_t total = 3 * NT + n_discard + n_table + 3 * (Py_ssize_t)p * NT + 5 * p +
                       3 * FEAT_HISTORY;
    int *buf = PyMem_Malloc(sizeof(int) * (size_t)total);
    if (buf == NULL) return PyErr_NoMemory();
    PyObject *result = NULL;
    Py_buffer view;
    view.obj = NULL;
    int *hand = buf, *deck = hand + NT, *points = deck + NT, *pile = points + NT;
    int *cards = pile + n_discard, *kn = cards + n_table, *sizes = kn + p * NT;
    int *laid = sizes + p, *claims = laid + p, *discarded = claims + p;
    int *declined = discarded + p * NT, *takes = declined + p * NT, *discards = takes + p;
    int *last = discards + p;
    if (feat_ints(args[A_HAND], "hand", -1, NT, 0, 0, FEAT_MAX_COUNT, hand) < 0 ||
        feat_ints(args[A_DECK], "deck", -1, NT, 0, 0, FEAT_MAX_COUNT, deck) < 0 ||
        feat_ints(args[A_POINTS], "points", -1, NT, 0, 0, FEAT_MAX_COUNT, points) < 0 ||
        feat_ints(discard, "discard", -1, n_discard, 0, 0, JK, pile) < 0)
        goto done;
    Py_ssize_t at = 0;
    for (Py_ssize_t m = 0; m < n_melds; m++) {
        Py_ssize_t got = feat_ints(melds[m], "table", m, -1, n_table - at, 0, JK, cards + at);
        if (got < 0) goto done;
        at += got;
    }
    PyObject **rows = PySequence_Fast_ITEMS(known);
    for (int s = 0; s < p; s++)
        if (feat_ints(rows[s], "known", s, NT, 0, 0, FEAT_MAX_COUNT, kn + s * NT) < 0) goto done;
    if (feat_ints(args[A_SIZES], "hand_sizes", -1, p, 0, 0, FEAT_MAX_COUNT, sizes) < 0 ||
        feat_ints(args[A_LAID], "laid_down", -1, p, 0, 0, 1, laid) < 0 ||
        feat_ints(args[A_CLAIMS], "claims", -1, p, 0, 0, FEAT_MAX_COUNT, claims) < 0)
        goto done;
    if (in.has_log) {
        if (feat_ints(args[A_DISCARDED], "discarded", -1, (Py_ssize_t)p * NT, 0, 0,
                      FEAT_MAX_COUNT, discarded) < 0 ||
            feat_ints(args[A_DECLINED], "declined", -1, (Py_ssize_t)p * NT, 0, 0,
                      FEAT_MAX_COUNT, declined) < 0 ||
            feat_ints(args[A_TAKES], "takes", -1, p, 0, 0, FEAT_MAX_COUNT, takes) < 0 ||
            feat_ints(args[A_DISCARDS], "discards", -1, p, 0, 0, FEAT_MAX_COUNT, discards) < 0)
            goto done;
        Py_ssize_t n_entries = PySequence_Fast_GET_SIZE(entries);
        Py_ssize_t first = n_entries > FEAT_HISTORY ? n_entries - FEAT_HISTORY : 0;
        PyObject **items = PySequence_Fast_ITEMS(entries);
        for (Py_ssize_t e = first; e < n_entries; e++) {
            int *row = last + 3 * (e - first);
            int ok = (PyTuple_Check(items[e]) || PyList_Check(items[e])) &&
                     PySequence_Fast_GET_SIZE(items[e]) == 3;
            if (!ok) {
                PyErr_Format(PyExc_TypeError, "entries[%zd] must be a (seat, kind, card) tuple, "
                             "got %R", e, items[e]);
                goto done;
            }
            PyObject **f = PySequence_Fast_ITEMS(items[e]);
            if (feat_int(f[0], "entries", e, " seat", 0, p - 1, row) < 0 ||
                feat_int(f[1], "entries", e, " kind", 0, FEAT_KINDS - 1, row + 1) < 0 ||
                feat_int(f[2], "entries", e, " card", -1, JK, row + 2) < 0)
                goto done;
        }
        in.n_last = (int)(n_entries - first);
    }
    int last_seat[FEAT_HISTORY], last_kind[FEAT_HISTORY], last_card[FEAT_HISTORY];
    for (int e = 0; e < in.n_last; e++) {
        last_seat[e] = last[3 * e];
        last_kind[e] = last[3 * e + 1];
        last_card[e] = last[3 * e + 2];
    }
    float points50[NT];
    for (int c = 0; c < NT; c++) points50[c] = (float)points[c] / 50.0f; /* numpy: float32 */
    if (PyObject_GetBuffer(args[A_OUT], &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) <
        0) {
        PyErr_Clear();
        view.obj = NULL;
        PyErr_Format(PyExc_TypeError, "out must be a writable contiguous float32 array, got %.80s",
                     Py_TYPE(args[A_OUT])->tp_name);
        goto done;
    }
    const char *fmt = view.format == NULL ? "B" : view.format;
    int is_f32 = view.itemsize == 4 && (strcmp(fmt, "f") == 0 || strcmp(fmt, "=f") == 0 ||
                                        (strcmp(fmt, "<f") == 0 && PY_LITTLE_ENDIAN));
    int size = features_size(p);
    if (!is_f32) {
        PyErr_Format(PyExc_TypeError, "out must hold float32, got format '%s'", fmt);
        goto done;
    }
    if (view.len != (Py_ssize_t)sizeof(float) * size) {
        PyErr_Format(PyExc_ValueError, "out holds %zd floats; %d players need %d",
                     view.len / (Py_ssize_t)sizeof(float), p, size);
        goto done;
    }
    in.hand = hand;
    in.deck = deck;
    in.discard = pile;
    in.n_discard = (int)n_discard;
    in.table_cards = cards;
    in.n_table_cards = (int)n_table;
    in.known = kn;
    in.hand_sizes = sizes;
    in.laid_down = laid;
    in.claims = claims;
    in.points50 = points50;
    in.discarded = discarded;
    in.declined = declined;
    in.takes = takes;
    in.discards = discards;
    in.last_seat = last_seat;
    in.last_kind = last_kind;
    in.last_card = last_card;
    if (features_write(&in, (float *)view.buf) < 0) { /* checked above: cannot happen */
        PyErr_SetString(PyExc_ValueError, "encode_features: input out of range");
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    if (view.obj != NULL) PyBuffer_Release(&view);
    PyMem_Free(buf);
    return result;
}

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

static PyObject *k_contract_search(PyObject *self, PyObject *args) {
    PyObject *counts_obj, *pts_obj;
    int trios, runs, min_run, wrap, first_only;
    if (!PyArg_ParseTuple(args, "OiiipOp", &counts_obj, &trios, &runs, &min_run, &wrap, &pts_obj,
                          &first_only))
        return NULL;
    Search *S = PyMem_Calloc(1, sizeof(Search));
    if (S == NULL) return PyErr_NoMemory();
    PyObject *result = NULL;
    int counts[NT];
    if (read_counts(counts_obj, counts, "counts") < 0 || read_counts(pts_obj, S->pts, "pts") < 0)
        goto done;
    if (trios < 0 || runs < 0 || trios > 8 || runs > 8 || min_run < 1 || min_run > MAXRUN) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        goto done;
    }
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
    if (S->overflow) {
        PyErr_SetString(PyExc_ValueError, "a meld of this hand is too long for the kernel");
        goto done;
    }
    if (!S->found) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    result = PyList_New(S->n_trio + S->n_run);
    if (result == NULL) goto done;
    for (int t = 0; t < S->n_trio; t++) {
        PyObject *m = Py_BuildValue("(sNii)", "trio", int_tuple(S->trio_cards[t], S->trio_len[t]),
                                    0, S->trio_rank[t]);
        if (m == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, t, m);
    }
    for (int d = 0; d < S->n_run; d++) {
        PyObject *m = Py_BuildValue("(sNii)", "run", int_tuple(S->run_cards[d], S->run_len[d]),
                                    S->run_start[d], S->run_suit[d]);
        if (m == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, S->n_trio + d, m);
    }
done:
    PyMem_Free(S);
    return result;
}

/* ------------------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"make_plan", k_make_plan, METH_VARARGS,
     "make_plan(hand, unseen, trios, runs, min_run, wrap) -> (cost, missing, core)"},
    {"contract_exists", k_contract_exists, METH_VARARGS,
     "contract_exists(counts, trios, runs, min_run, wrap, steal) -> bool"},
    {"contract_search", k_contract_search, METH_VARARGS,
     "contract_search(counts, trios, runs, min_run, wrap, pts, first_only) -> melds or None"},
    {"hand_analysis", k_hand_analysis, METH_VARARGS,
     "hand_analysis(counts, trios, runs, min_run, wrap) -> (distance, reducers, in_trio, in_run)"},
    {"encode_features", (PyCFunction)(void (*)(void))k_encode_features, METH_FASTCALL,
     "encode_features(out, num_players, seat, trios, runs, min_run, wrap, live, laid_down_self,"
     " hand, deck, discard, table, known, hand_sizes, laid_down, claims, points, discarded,"
     " declined, takes, discards, entries) -> None: writes the v1 features into out (float32)"},
    {"laydown_cores", k_laydown_cores, METH_VARARGS,
     "laydown_cores(counts, trios, runs, min_run, wrap, pts, table_ranks, table_suits, limit)"
     " -> [(stuck, stuck_points, melds)]"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels",
                                    "Compiled kernels (see continental_env/kernels.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
