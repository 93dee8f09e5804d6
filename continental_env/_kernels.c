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
#include "_obs_c.h"      /* the v0 observation: plain C, shared with the batch core */
#include "_laydown_c.h"  /* the lay-down choice and the contract search: plain C, shared */
#include "_plan_c.h"     /* strong.make_plan: plain C, shared with the batch core's bots */
#include "_beliefs_c.h"  /* the belief sampler's draws, on CPython's generator (_mt_c.h) */

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

/* ========================================================================= strong.make_plan */
/* The plan itself is _plan_c.h (plain C, shared with the batch core's bots). */

static PlanWork plan_work; /* the kernels run under the GIL: one scratch area is enough */

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
    PlanResult plan;
    int rc = make_plan_c(hand, unseen, trios, runs, min_run, wrap, &plan_work, &plan);
    if (rc == PLAN_TOO_MANY) {
        PyErr_SetString(PyExc_ValueError, "too many run or trio combinations");
        return NULL;
    }
    if (rc == PLAN_NONE) {
        PyErr_SetString(PyExc_AssertionError, "make_plan found no combination");
        return NULL;
    }
    PyObject *core_t = counts_tuple(plan.core);
    if (core_t == NULL) return NULL;
    PyObject *cost_obj = plan.cost_is_int ? PyLong_FromLong(0) : PyFloat_FromDouble(plan.cost);
    if (cost_obj == NULL) {
        Py_DECREF(core_t);
        return NULL;
    }
    return Py_BuildValue("(NiN)", cost_obj, plan.missing, core_t);
}

/* ===================================================================== melds.contract_exists */

/* contract_exists' arguments after the counts: (trios, runs, min_run, wrap[, steal]) read into
 * `counts` and `v`, in range; -1 with a ValueError naming them otherwise. */
static int contract_args(PyObject *args, const char *format, int *counts, int *v) {
    PyObject *counts_obj;
    if (!PyArg_ParseTuple(args, format, &counts_obj, &v[0], &v[1], &v[2], &v[3], &v[4]))
        return -1;
    if (read_counts(counts_obj, counts, "counts") < 0) return -1;
    if (v[0] < 0 || v[1] < 0 || v[0] > 8 || v[1] > 8 || v[2] < 1 || v[2] > MAXRUN) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", v[0],
                     v[1], v[2]);
        return -1;
    }
    return 0;
}

static PyObject *k_contract_exists(PyObject *self, PyObject *args) {
    int counts[NT], v[5];
    if (contract_args(args, "Oiiipp", counts, v) < 0) return NULL;
    return PyBool_FromLong(contract_exists_c(counts, v[0], v[1], v[2], v[3], v[4]));
}

/* Both answers of contract_exists from one search (the batch core's has_contract): (fits
 * without stealing, fits only with stealing). */
static PyObject *k_contract_exists_both(PyObject *self, PyObject *args) {
    int counts[NT], v[5];
    if (contract_args(args, "Oiiip", counts, v) < 0) return NULL;
    int steal_only = 0;
    int plain = contract_exists_both(counts, v[0], v[1], v[2], v[3], &steal_only);
    return Py_BuildValue("(OO)", plain ? Py_True : Py_False, steal_only ? Py_True : Py_False);
}

/* ============================================ melds.core_combinations (+ bound), laydown_plan */
/*
 * The lay-down choice (melds.laydown_plan) is _laydown_c.h, plain C that _batch.c runs too.
 * laydown_cores exposes its core enumeration (the same combinations in the same order as
 * melds.core_combinations after best_contract's own arrangement, each with melds.stuck_bound's
 * value) for the differential tests; laydown_plan the whole choice.
 */

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

typedef struct {
    PyObject *out, *trio_str, *run_str;
    int failed;
} CoresOut;

/* laydown_cores' visitor: (stuck cards, stuck points, melds) in best_arrangement's row form. */
static int cores_append(LdCores *k, long stuck, long stuck_points) {
    CoresOut *o = k->ctx;
    int n = k->n_trio_chosen + k->n_run_chosen;
    PyObject *melds_t = PyTuple_New(n);
    if (melds_t == NULL) return o->failed = 1;
    for (int t = 0; t < k->n_trio_chosen; t++) {
        const int *cards = k->trio_opt[k->chosen_trio[t]];
        PyObject *m = Py_BuildValue("(ONii)", o->trio_str, int_tuple(cards, 3), 0, cards[0] % NR);
        if (m == NULL) {
            Py_DECREF(melds_t);
            return o->failed = 1;
        }
        PyTuple_SET_ITEM(melds_t, t, m);
    }
    for (int r = 0; r < k->n_run_chosen; r++) {
        const int *cards = k->run_cards[r];
        PyObject *m = Py_BuildValue("(ONii)", o->run_str, int_tuple(cards, k->min_run),
                                    cards[MAXRUN - 1], ld_run_suit(k, cards));
        if (m == NULL) {
            Py_DECREF(melds_t);
            return o->failed = 1;
        }
        PyTuple_SET_ITEM(melds_t, k->n_trio_chosen + r, m);
    }
    PyObject *row = Py_BuildValue("(llN)", stuck, stuck_points, melds_t);
    if (row == NULL || PyList_Append(o->out, row) < 0) {
        Py_XDECREF(row);
        return o->failed = 1;
    }
    Py_DECREF(row);
    return 0;
}

static PyObject *k_laydown_cores(PyObject *self, PyObject *args) {
    PyObject *counts_obj, *pts_obj;
    int trios, runs, min_run, wrap, limit;
    unsigned table_ranks, table_suits;
    if (!PyArg_ParseTuple(args, "OiiipOIIi", &counts_obj, &trios, &runs, &min_run, &wrap,
                          &pts_obj, &table_ranks, &table_suits, &limit))
        return NULL;
    LdCores *k = PyMem_Calloc(1, sizeof(LdCores));
    if (k == NULL) return PyErr_NoMemory();
    CoresOut o = {NULL, NULL, NULL, 0};
    PyObject *result = NULL;
    int counts[NT], pts[NT];
    if (read_counts(counts_obj, counts, "counts") < 0 || read_counts(pts_obj, pts, "pts") < 0)
        goto done;
    if (trios < 0 || runs < 0 || trios > LD_MAXCONTRACT || runs > LD_MAXCONTRACT ||
        min_run < 1 || min_run > MAXRUN - 1) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        goto done;
    }
    if (ld_cores_init(k, counts, trios, runs, min_run, wrap, pts, table_ranks, table_suits,
                      limit) < 0) {
        PyErr_SetString(PyExc_ValueError, "too many trio options");
        goto done;
    }
    o.out = PyList_New(0);
    o.trio_str = PyUnicode_InternFromString("trio");
    o.run_str = PyUnicode_InternFromString("run");
    if (o.out == NULL || o.trio_str == NULL || o.run_str == NULL) goto done;
    k->visit = cores_append;
    k->ctx = &o;
    ld_cores_run(k);
    if (o.failed) goto done;
    result = o.out;
    o.out = NULL;
done:
    Py_XDECREF(o.out);
    Py_XDECREF(o.trio_str);
    Py_XDECREF(o.run_str);
    PyMem_Free(k);
    return result;
}

/* One int of laydown_plan's input in lo..hi, else a one-line ValueError/TypeError naming it
 * (`what` formatted with `i` when i >= 0; only on an error: this runs for every input). */
static int ld_int(PyObject *obj, long lo, long hi, const char *what, Py_ssize_t i, int *out) {
    int overflow = 0;
    long v = PyLong_Check(obj) && !PyBool_Check(obj) ? PyLong_AsLongAndOverflow(obj, &overflow)
                                                     : 0;
    if (PyLong_Check(obj) && !PyBool_Check(obj) && !overflow && v >= lo && v <= hi) {
        *out = (int)v;
        return 0;
    }
    if (PyErr_Occurred()) PyErr_Clear();
    char label[64];
    if (i >= 0)
        snprintf(label, sizeof label, what, (int)i);
    else
        snprintf(label, sizeof label, "%s", what);
    if (!PyLong_Check(obj) || PyBool_Check(obj))
        PyErr_Format(PyExc_TypeError, "%s = %R must be an int", label, obj);
    else
        PyErr_Format(PyExc_ValueError, "%s = %R must be in %ld..%ld", label, obj, lo, hi);
    return -1;
}

/* 53 ints, each in lo..hi (the joker's in lo..hi_joker). */
static int ld_ints53(PyObject *obj, const char *name, long hi, long hi_joker, int *out) {
    if (!PyTuple_Check(obj) && !PyList_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of %d ints, got %.80s", name, NT,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *seq = PySequence_Fast(obj, name);
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != NT) {
        PyErr_Format(PyExc_ValueError, "%s must hold %d ints, got %zd", name, NT,
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    char what[48];
    snprintf(what, sizeof what, "%s[%%d]", name); /* once per call, for the error */
    for (int c = 0; c < NT; c++)
        if (ld_int(PySequence_Fast_GET_ITEM(seq, c), 0, c == JK ? hi_joker : hi, what, c,
                   &out[c]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    Py_DECREF(seq);
    return 0;
}

/* The table signature (melds.laydown._table_signature): (kind, cards, start, rank, suit) rows. */
static int ld_table(PyObject *sig, LdTableMeld *table, int *ntable) {
    if (!PyTuple_Check(sig)) {
        PyErr_Format(PyExc_TypeError, "signature must be a tuple of table melds, got %.80s",
                     Py_TYPE(sig)->tp_name);
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(sig);
    if (n > LD_MAXTABLE) {
        PyErr_Format(PyExc_ValueError, "signature holds %zd melds, at most %d", n, LD_MAXTABLE);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *row = PyTuple_GET_ITEM(sig, i);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 5) {
            PyErr_Format(PyExc_TypeError,
                         "signature[%zd] = %R must be a (kind, cards, start, rank, suit) tuple", i,
                         row);
            return -1;
        }
        PyObject *kind = PyTuple_GET_ITEM(row, 0), *cards = PyTuple_GET_ITEM(row, 1);
        LdTableMeld *m = &table[i];
        if (PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "trio") == 0)
            m->kind = LD_TRIO;
        else if (PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "run") == 0)
            m->kind = LD_RUN;
        else {
            PyErr_Format(PyExc_ValueError, "signature[%zd] kind = %R must be 'trio' or 'run'", i,
                         kind);
            return -1;
        }
        if (!PyTuple_Check(cards) && !PyList_Check(cards)) {
            PyErr_Format(PyExc_TypeError, "signature[%zd] cards = %R must be a tuple of ints", i,
                         cards);
            return -1;
        }
        Py_ssize_t len = PySequence_Size(cards);
        Py_ssize_t most = m->kind == LD_TRIO ? MAXMELD : NR;
        if (len < 1 || len > most) {
            PyErr_Format(PyExc_ValueError, "signature[%zd] holds %zd cards, must be 1..%zd", i,
                         len, most);
            return -1;
        }
        for (Py_ssize_t q = 0; q < len; q++) {
            int card;
            PyObject *item = PySequence_GetItem(cards, q);
            if (item == NULL) return -1;
            int bad = ld_int(item, 0, JK, "signature[%d] card", i, &card);
            Py_DECREF(item);
            if (bad) return -1;
        }
        m->n = (int)len;
        if (ld_int(PyTuple_GET_ITEM(row, 2), 0, NR, "signature[%d] start", i, &m->start) < 0)
            return -1;
        if (ld_int(PyTuple_GET_ITEM(row, 3), m->kind == LD_TRIO ? 0 : -1,
                   m->kind == LD_TRIO ? NR - 1 : -1, "signature[%d] rank", i, &m->rank) < 0)
            return -1;
        if (ld_int(PyTuple_GET_ITEM(row, 4), m->kind == LD_RUN ? 0 : -1,
                   m->kind == LD_RUN ? 3 : -1, "signature[%d] suit", i, &m->suit) < 0)
            return -1;
    }
    *ntable = (int)n;
    return 0;
}

static PyObject *k_laydown_plan(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError,
                     "laydown_plan takes 7 arguments (counts, trios, runs, min_run, wrap, "
                     "points53, signature), got %zd",
                     nargs);
        return NULL;
    }
    int counts[NT], pts[NT], trios, runs, min_run, ntable = 0;
    if (ld_ints53(args[0], "counts", LD_MAXCOPIES, LD_MAXJOKERS, counts) < 0 ||
        ld_int(args[1], 0, LD_MAXCONTRACT, "trios", -1, &trios) < 0 ||
        ld_int(args[2], 0, LD_MAXCONTRACT, "runs", -1, &runs) < 0 ||
        ld_int(args[3], 3, MAXRUN - 1, "min_run", -1, &min_run) < 0)
        return NULL;
    if (trios + runs < 1) {
        PyErr_SetString(PyExc_ValueError, "trios + runs = 0: a contract holds one meld at least");
        return NULL;
    }
    int wrap = PyObject_IsTrue(args[4]);
    if (wrap < 0) return NULL;
    if (ld_ints53(args[5], "points53", 10000, 10000, pts) < 0) return NULL;
    LdTableMeld *table = PyMem_Malloc(sizeof(LdTableMeld) * LD_MAXTABLE);
    LdPlan *plan = PyMem_Malloc(sizeof(LdPlan));
    PyObject *result = NULL, *key = NULL, *rows = NULL;
    if (table == NULL || plan == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (ld_table(args[6], table, &ntable) < 0) goto done;
    PyThreadState *ts = PyEval_SaveThread(); /* plain C from here: other threads may run */
    int rc = ld_laydown_plan(counts, trios, runs, min_run, wrap, pts, table, ntable, plan);
    PyEval_RestoreThread(ts);
    if (rc == 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (rc == LD_NOMEM) {
        PyErr_NoMemory();
        goto done;
    }
    if (rc != 1) {
        PyErr_SetString(PyExc_ValueError, "a meld of this hand is too long for the kernel");
        goto done;
    }
    key = Py_BuildValue("(iii)", plan->key[0], plan->key[1], plan->key[2]);
    rows = PyTuple_New(plan->nrows);
    if (key == NULL || rows == NULL) goto done;
    for (int j = 0; j < plan->nrows; j++) {
        const LdRow *r = &plan->rows[j];
        PyObject *row = Py_BuildValue("(sNii)", r->kind == LD_TRIO ? "trio" : "run",
                                      int_tuple(r->cards, r->n), r->start, r->key);
        if (row == NULL) goto done;
        PyTuple_SET_ITEM(rows, j, row);
    }
    result = PyTuple_Pack(2, key, rows);
done:
    Py_XDECREF(key);
    Py_XDECREF(rows);
    PyMem_Free(table);
    PyMem_Free(plan);
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
        if (v >= 0 && v >= lo && v <= hi) { /* the common case: an exact int of one digit */
            dst[i] = (int)v;
            continue;
        }
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

/* The arguments of encode_features after `out` (args[0] is not read), checked and read into
 * fa (fa->buf: one allocation, the caller's to PyMem_Free; NULL after a failure). */
typedef struct {
    FeatInput in;
    int *buf;
    int last_seat[FEAT_HISTORY], last_kind[FEAT_HISTORY], last_card[FEAT_HISTORY];
    float points50[NT];
} FeatArgs;

static int feat_read(PyObject *const *args, FeatArgs *fa) {
    enum {
        A_OUT, A_P, A_SEAT, A_TRIOS, A_RUNS, A_MIN_RUN, A_WRAP, A_LIVE, A_DOWN, A_HAND, A_DECK,
        A_DISCARD, A_TABLE, A_KNOWN, A_SIZES, A_LAID, A_CLAIMS, A_POINTS, A_DISCARDED,
        A_DECLINED, A_TAKES, A_DISCARDS, A_ENTRIES, A_COUNT
    };
    memset(fa, 0, sizeof *fa);
    if (feat_int(args[A_P], "num_players", -1, "", 2, FEAT_MAX_PLAYERS, &fa->in.p) < 0 ||
        feat_int(args[A_SEAT], "seat", -1, "", 0, fa->in.p - 1, &fa->in.seat) < 0 ||
        feat_int(args[A_TRIOS], "trios", -1, "", 0, HA_MAX_MELDS, &fa->in.trios) < 0 ||
        feat_int(args[A_RUNS], "runs", -1, "", 0, HA_MAX_MELDS, &fa->in.runs) < 0 ||
        feat_int(args[A_MIN_RUN], "min_run", -1, "", 1, MAXRUN, &fa->in.min_run) < 0)
        return -1;
    if ((fa->in.wrap = PyObject_IsTrue(args[A_WRAP])) < 0 ||
        (fa->in.live = PyObject_IsTrue(args[A_LIVE])) < 0 ||
        (fa->in.laid_down_self = PyObject_IsTrue(args[A_DOWN])) < 0)
        return -1;
    const int p = fa->in.p;
    PyObject *discard = args[A_DISCARD], *table = args[A_TABLE], *known = args[A_KNOWN];
    PyObject *entries = args[A_ENTRIES];
    fa->in.has_log = entries != Py_None;
    if (!PyList_Check(discard) && !PyTuple_Check(discard)) {
        PyErr_Format(PyExc_TypeError, "discard must be a list or tuple of ints, got %.80s",
                     Py_TYPE(discard)->tp_name);
        return -1;
    }
    if (!PyList_Check(table) && !PyTuple_Check(table)) {
        PyErr_Format(PyExc_TypeError, "table must be a list or tuple of card lists, got %.80s",
                     Py_TYPE(table)->tp_name);
        return -1;
    }
    if (!PyList_Check(known) && !PyTuple_Check(known)) {
        PyErr_Format(PyExc_TypeError, "known must be a list or tuple of count lists, got %.80s",
                     Py_TYPE(known)->tp_name);
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(known) != p) {
        PyErr_Format(PyExc_ValueError, "known must hold %d count lists, got %zd", p,
                     PySequence_Fast_GET_SIZE(known));
        return -1;
    }
    if (fa->in.has_log && !PyList_Check(entries) && !PyTuple_Check(entries)) {
        PyErr_Format(PyExc_TypeError, "entries must be None or a list of (seat, kind, card), got "
                     "%.80s", Py_TYPE(entries)->tp_name);
        return -1;
    }
    Py_ssize_t n_discard = PySequence_Fast_GET_SIZE(discard);
    Py_ssize_t n_table = 0, n_melds = PySequence_Fast_GET_SIZE(table);
    PyObject **melds = PySequence_Fast_ITEMS(table);
    for (Py_ssize_t m = 0; m < n_melds; m++) {
        if (!PyList_Check(melds[m]) && !PyTuple_Check(melds[m])) {
            PyErr_Format(PyExc_TypeError, "table[%zd] must be a list or tuple of ints, got %.80s",
                         m, Py_TYPE(melds[m])->tp_name);
            return -1;
        }
        n_table += PySequence_Fast_GET_SIZE(melds[m]);
    }
    if (n_discard > 1000000 || n_table > 1000000) {
        PyErr_Format(PyExc_ValueError, "discard (%zd) or table (%zd) holds too many cards",
                     n_discard, n_table);
        return -1;
    }
    /* one buffer: hand, deck, points, discard, table, known, sizes, laid down, claims,
     * discarded, declined, takes, discards, the last entries (seat, kind, card) */
    Py_ssize_t total = 3 * NT + n_discard + n_table + 3 * (Py_ssize_t)p * NT + 5 * p +
                       3 * FEAT_HISTORY;
    int *buf = PyMem_Malloc(sizeof(int) * (size_t)total);
    if (buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    fa->buf = buf;
    int *hand = buf, *deck = hand + NT, *points = deck + NT, *pile = points + NT;
    int *cards = pile + n_discard, *kn = cards + n_table, *sizes = kn + p * NT;
    int *laid = sizes + p, *claims = laid + p, *discarded = claims + p;
    int *declined = discarded + p * NT, *takes = declined + p * NT, *discards = takes + p;
    int *last = discards + p;
    if (feat_ints(args[A_HAND], "hand", -1, NT, 0, 0, FEAT_MAX_COUNT, hand) < 0 ||
        feat_ints(args[A_DECK], "deck", -1, NT, 0, 0, FEAT_MAX_COUNT, deck) < 0 ||
        feat_ints(args[A_POINTS], "points", -1, NT, 0, 0, FEAT_MAX_COUNT, points) < 0 ||
        feat_ints(discard, "discard", -1, n_discard, 0, 0, JK, pile) < 0)
        goto fail;
    Py_ssize_t at = 0;
    for (Py_ssize_t m = 0; m < n_melds; m++) {
        Py_ssize_t got = feat_ints(melds[m], "table", m, -1, n_table - at, 0, JK, cards + at);
        if (got < 0) goto fail;
        at += got;
    }
    PyObject **rows = PySequence_Fast_ITEMS(known);
    for (int s = 0; s < p; s++)
        if (feat_ints(rows[s], "known", s, NT, 0, 0, FEAT_MAX_COUNT, kn + s * NT) < 0) goto fail;
    if (feat_ints(args[A_SIZES], "hand_sizes", -1, p, 0, 0, FEAT_MAX_COUNT, sizes) < 0 ||
        feat_ints(args[A_LAID], "laid_down", -1, p, 0, 0, 1, laid) < 0 ||
        feat_ints(args[A_CLAIMS], "claims", -1, p, 0, 0, FEAT_MAX_COUNT, claims) < 0)
        goto fail;
    if (fa->in.has_log) {
        if (feat_ints(args[A_DISCARDED], "discarded", -1, (Py_ssize_t)p * NT, 0, 0,
                      FEAT_MAX_COUNT, discarded) < 0 ||
            feat_ints(args[A_DECLINED], "declined", -1, (Py_ssize_t)p * NT, 0, 0,
                      FEAT_MAX_COUNT, declined) < 0 ||
            feat_ints(args[A_TAKES], "takes", -1, p, 0, 0, FEAT_MAX_COUNT, takes) < 0 ||
            feat_ints(args[A_DISCARDS], "discards", -1, p, 0, 0, FEAT_MAX_COUNT, discards) < 0)
            goto fail;
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
                goto fail;
            }
            PyObject **f = PySequence_Fast_ITEMS(items[e]);
            if (feat_int(f[0], "entries", e, " seat", 0, p - 1, row) < 0 ||
                feat_int(f[1], "entries", e, " kind", 0, FEAT_KINDS - 1, row + 1) < 0 ||
                feat_int(f[2], "entries", e, " card", -1, JK, row + 2) < 0)
                goto fail;
        }
        fa->in.n_last = (int)(n_entries - first);
    }
    for (int e = 0; e < fa->in.n_last; e++) {
        fa->last_seat[e] = last[3 * e];
        fa->last_kind[e] = last[3 * e + 1];
        fa->last_card[e] = last[3 * e + 2];
    }
    for (int c = 0; c < NT; c++) fa->points50[c] = (float)points[c] / 50.0f; /* numpy: float32 */
    fa->in.hand = hand;
    fa->in.deck = deck;
    fa->in.discard = pile;
    fa->in.n_discard = (int)n_discard;
    fa->in.table_cards = cards;
    fa->in.n_table_cards = (int)n_table;
    fa->in.known = kn;
    fa->in.hand_sizes = sizes;
    fa->in.laid_down = laid;
    fa->in.claims = claims;
    fa->in.points50 = fa->points50;
    fa->in.discarded = discarded;
    fa->in.declined = declined;
    fa->in.takes = takes;
    fa->in.discards = discards;
    fa->in.last_seat = fa->last_seat;
    fa->in.last_kind = fa->last_kind;
    fa->in.last_card = fa->last_card;
    if (!features_ok(&fa->in)) { /* the scalars were checked above: cannot happen */
        PyErr_SetString(PyExc_ValueError, "encode_features: input out of range");
        goto fail;
    }
    return 0;
fail:
    PyMem_Free(fa->buf);
    fa->buf = NULL;
    return -1;
}

/* `out` as a writable C-contiguous float32 buffer of `size` floats (view->obj NULL on error). */
static int float_out(PyObject *out, Py_buffer *view, int size, int p) {
    if (PyObject_GetBuffer(out, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) {
        PyErr_Clear();
        view->obj = NULL;
        PyErr_Format(PyExc_TypeError, "out must be a writable contiguous float32 array, got %.80s",
                     Py_TYPE(out)->tp_name);
        return -1;
    }
    const char *fmt = view->format == NULL ? "B" : view->format;
    int is_f32 = view->itemsize == 4 && (strcmp(fmt, "f") == 0 || strcmp(fmt, "=f") == 0 ||
                                         (strcmp(fmt, "<f") == 0 && PY_LITTLE_ENDIAN));
    if (!is_f32) {
        PyErr_Format(PyExc_TypeError, "out must hold float32, got format '%s'", fmt);
    } else if (view->len != (Py_ssize_t)sizeof(float) * size) {
        PyErr_Format(PyExc_ValueError, "out holds %zd floats; %d players need %d",
                     view->len / (Py_ssize_t)sizeof(float), p, size);
    } else {
        return 0;
    }
    PyBuffer_Release(view);
    view->obj = NULL;
    return -1;
}

/* The last hand analyses computed, keyed by everything hand_analysis_c reads: an AEC
 * environment asks for the same seat's hand again and again (claim windows, draws, observe()
 * of each seat), and the analysis is most of the features' time. A pure function's results,
 * so a hit returns exactly what a fresh call would; the GIL serialises the callers. */
#define HA_CACHE 16
static struct {
    int used, hand[NT], trios, runs, min_run, wrap;
    HandAnalysis ha;
} ha_cache[HA_CACHE];
static int ha_cache_next;

/* Point fa->in.analysis at the analysis of its hand and contract when the features read it. */
static void feat_analysis(FeatArgs *fa, HandAnalysis *scratch) {
    FeatInput *in = &fa->in;
    if (in->laid_down_self || !in->live) return;
    for (int i = 0; i < HA_CACHE; i++) {
        if (ha_cache[i].used && ha_cache[i].trios == in->trios && ha_cache[i].runs == in->runs &&
            ha_cache[i].min_run == in->min_run && ha_cache[i].wrap == in->wrap &&
            memcmp(ha_cache[i].hand, in->hand, sizeof ha_cache[i].hand) == 0) {
            in->analysis = &ha_cache[i].ha;
            return;
        }
    }
    if (hand_analysis_c(in->hand, in->trios, in->runs, in->min_run, in->wrap, scratch) < 0)
        return; /* refused: features_write computes (and refuses) it itself */
    int i = ha_cache_next;
    ha_cache_next = (i + 1) % HA_CACHE;
    ha_cache[i].used = 1;
    memcpy(ha_cache[i].hand, in->hand, sizeof ha_cache[i].hand);
    ha_cache[i].trios = in->trios;
    ha_cache[i].runs = in->runs;
    ha_cache[i].min_run = in->min_run;
    ha_cache[i].wrap = in->wrap;
    ha_cache[i].ha = *scratch;
    in->analysis = &ha_cache[i].ha;
}

static PyObject *k_encode_features(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    enum { A_COUNT = 23 };
    if (nargs != A_COUNT) {
        PyErr_Format(PyExc_TypeError, "encode_features takes %d arguments, got %zd", A_COUNT,
                     nargs);
        return NULL;
    }
    FeatArgs fa;
    if (feat_read(args, &fa) < 0) return NULL;
    Py_buffer view;
    PyObject *result = NULL;
    if (float_out(args[0], &view, features_size(fa.in.p), fa.in.p) == 0) {
        HandAnalysis scratch;
        feat_analysis(&fa, &scratch);
        features_write(&fa.in, (float *)view.buf);
        PyBuffer_Release(&view);
        result = Py_NewRef(Py_None);
    }
    PyMem_Free(fa.buf);
    return result;
}

/* ============================================================ contract.aec.encode_observation */
/*
 * The whole observation of one seat in one call: the v0 vector (_obs_c.h, the batch core's
 * writer too) and for version 1 the features after it, read from the engine's lists. Every
 * argument is checked before anything is written: a refused call leaves `out` as it was.
 */

/* A list or tuple of exactly n ints (any size) into dst, each within +-1e15. */
static int obs_long_longs(PyObject *obj, const char *name, Py_ssize_t n, long long *dst) {
    if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list or tuple of ints, got %.80s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(obj) != n) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd ints, got %zd", name, n,
                     PySequence_Fast_GET_SIZE(obj));
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(obj);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyLong_Check(items[i])) {
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be an int, got %.80s", name, i,
                         Py_TYPE(items[i])->tp_name);
            return -1;
        }
        long long v = PyLong_AsLongLong(items[i]);
        if ((v == -1 && PyErr_Occurred()) || v < -1000000000000000LL || v > 1000000000000000LL) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "%s[%zd] = %R is out of range -1e15..1e15", name, i,
                         items[i]);
            return -1;
        }
        dst[i] = v;
    }
    return 0;
}

static PyObject *k_encode_observation(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* out, version, then encode_features' 22 arguments after its `out`, then these */
    enum {
        O_SEEN = 24, O_OWNERS, O_FITS, O_ROUND, O_PHASE, O_SCORES, O_STOCK, O_TURN,
        O_MAX_TURNS, O_COUNT
    };
    if (nargs != O_COUNT) {
        PyErr_Format(PyExc_TypeError, "encode_observation takes %d arguments, got %zd", O_COUNT,
                     nargs);
        return NULL;
    }
    int version;
    if (feat_int(args[1], "version", -1, "", 0, 1, &version) < 0) return NULL;
    FeatArgs fa;
    if (feat_read(args + 1, &fa) < 0) return NULL; /* args[1] sits in feat_read's unread slot */
    const FeatInput *f = &fa.in;
    const int p = f->p;
    PyObject *result = NULL;
    Py_buffer view;
    view.obj = NULL;
    int seen[NT], fits[NT], owners[FEAT_MAX_PLAYERS * 4], lens[FEAT_MAX_PLAYERS * 4];
    const unsigned char *meld_cards[FEAT_MAX_PLAYERS * 4];
    unsigned char *cards = NULL; /* the table's cards (0..52, checked) as the writer reads them */
    long long scores[FEAT_MAX_PLAYERS];
    ObsInput in;
    memset(&in, 0, sizeof in);
    PyObject *table = args[1 + 12];
    Py_ssize_t n_melds = PySequence_Fast_GET_SIZE(table); /* a list or tuple: feat_read */
    if (n_melds > FEAT_MAX_PLAYERS * 4) {
        PyErr_Format(PyExc_ValueError, "table holds %zd melds, more than %d", n_melds,
                     FEAT_MAX_PLAYERS * 4);
        goto done;
    }
    for (Py_ssize_t m = 0; m < n_melds; m++)
        lens[m] = (int)PySequence_Fast_GET_SIZE(PySequence_Fast_ITEMS(table)[m]);
    if (feat_ints(args[O_SEEN], "seen", -1, NT, 0, 0, FEAT_MAX_COUNT, seen) < 0 ||
        feat_ints(args[O_OWNERS], "owners", -1, n_melds, 0, 0, p - 1, owners) < 0 ||
        feat_ints(args[O_FITS], "fits", -1, NT, 0, 0, 1, fits) < 0 ||
        feat_int(args[O_ROUND], "round", -1, "", 1, 7, &in.round) < 0 ||
        feat_int(args[O_PHASE], "phase", -1, "", -1, 2, &in.phase) < 0 ||
        obs_long_longs(args[O_SCORES], "scores", p, scores) < 0 ||
        feat_int(args[O_STOCK], "stock", -1, "", 0, FEAT_MAX_COUNT, &in.stock) < 0 ||
        feat_int(args[O_TURN], "turn", -1, "", 0, FEAT_MAX_COUNT, &in.turn) < 0 ||
        feat_int(args[O_MAX_TURNS], "max_turns", -1, "", 1, FEAT_MAX_COUNT, &in.max_turns) < 0)
        goto done;
    if ((in.phase < 0) == f->live) {
        PyErr_Format(PyExc_ValueError, "phase = %d disagrees with live = %d (-1 exactly when the "
                     "game is over)", in.phase, f->live);
        goto done;
    }
    in.p = p;
    in.seat = f->seat;
    in.hand = f->hand;
    in.discard_top = f->live && f->n_discard ? f->discard[f->n_discard - 1] : -1;
    in.seen = seen;
    in.known = f->known;
    in.n_melds = (int)n_melds;
    in.meld_owner = owners;
    in.meld_len = lens;
    cards = PyMem_Malloc((size_t)f->n_table_cards + 1);
    if (cards == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0, m = 0, at = 0; m < (int)n_melds; m++) {
        meld_cards[m] = cards + at;
        for (int k = 0; k < lens[m]; k++, i++) cards[i] = (unsigned char)f->table_cards[i];
        at += lens[m];
    }
    in.meld_cards = meld_cards;
    in.fits = fits;
    in.trios = f->trios;
    in.runs = f->runs;
    in.hand_sizes = f->hand_sizes;
    in.laid_down = f->laid_down;
    in.scores = scores;
    in.claims = f->claims;
    if (!obs_input_ok(&in)) { /* each value was checked above: cannot happen */
        PyErr_SetString(PyExc_ValueError, "encode_observation: input out of range");
        goto done;
    }
    int v0 = obs_v0_size(p);
    if (float_out(args[0], &view, v0 + (version == 1 ? features_size(p) : 0), p) < 0) goto done;
    obs_v0_write(&in, (float *)view.buf);
    if (version == 1) {
        HandAnalysis scratch;
        feat_analysis(&fa, &scratch);
        features_write(&fa.in, (float *)view.buf + v0);
    }
    result = Py_NewRef(Py_None);
done:
    if (view.obj != NULL) PyBuffer_Release(&view);
    PyMem_Free(cards);
    PyMem_Free(fa.buf);
    return result;
}

/* ============================================================ contract.legal.compute_legal */
/*
 * The contract game's legal action ids in one call, read from the engine's state
 * (contract/legal.py is the readable reference: its candidates filtered by action_checks.CHECKS;
 * tests/test_legal_kernel.py compares the two on random-play positions of every preset and
 * table size). Returns None where the answer needs the full contract search (has_contract's
 * rare last step, melds.best_arrangement): the caller then runs the reference.
 */

#define LG_MAX_MELDS (3 * FEAT_MAX_PLAYERS) /* ActionLayout.max_melds */
#define LG_DISCARD_BASE 6
#define LG_LAYOFF_BASE (LG_DISCARD_BASE + NT)
#define LG_LAYOFF_SLOTS 55
#define LG_SLOT_JOKER 52
#define LG_SLOT_JOKER_LOW 53
#define LG_SLOT_JOKER_HIGH 54
#define LG_SWAP_SLOTS 52

/* What the legal ids read of a table meld: not its cards, only where its jokers are. */
typedef struct {
    int run, owner, start, suit, rank, n;
    int has_joker, end_joker;  /* a joker at the high or the low end (runs) */
    unsigned long long stands; /* runs: bit c set when a joker stands for natural c */
} LgMeld;

/* attribute names, interned once (PyInit__kernels) */
static PyObject *lg_s_phase, *lg_s_current, *lg_s_hands, *lg_s_hand_sizes, *lg_s_laid_down,
    *lg_s_jokers_owed, *lg_s_joker_moved, *lg_s_table, *lg_s_discard, *lg_s_round, *lg_s_kind,
    *lg_s_cards, *lg_s_owner, *lg_s_start, *lg_s_suit, *lg_s_rank, *lg_s_run;

static int lg_intern(void) {
    struct {
        PyObject **slot;
        const char *name;
    } names[] = {{&lg_s_phase, "phase"},           {&lg_s_current, "current"},
                 {&lg_s_hands, "hands"},           {&lg_s_hand_sizes, "hand_sizes"},
                 {&lg_s_laid_down, "laid_down"},   {&lg_s_jokers_owed, "jokers_owed"},
                 {&lg_s_joker_moved, "joker_moved"}, {&lg_s_table, "table"},
                 {&lg_s_discard, "discard"},       {&lg_s_round, "round"},
                 {&lg_s_kind, "kind"},             {&lg_s_cards, "cards"},
                 {&lg_s_owner, "owner"},           {&lg_s_start, "start"},
                 {&lg_s_suit, "suit"},             {&lg_s_rank, "rank"},
                 {&lg_s_run, "run"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((*names[i].slot = PyUnicode_InternFromString(names[i].name)) == NULL) return -1;
    return 0;
}

/* An int within lo..hi into out; -1 with an error naming it otherwise (also for value NULL,
 * a failed read). */
static int lg_long(PyObject *value, const char *name, long lo, long hi, int *out) {
    if (value == NULL) return -1;
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, got %.80s", name,
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    long v = PyLong_AsLong(value);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s = %ld is out of range %ld..%ld", name, v, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int lg_attr_int(PyObject *obj, PyObject *attr, const char *name, long lo, long hi,
                       int *out) {
    PyObject *value = PyObject_GetAttr(obj, attr);
    if (value == NULL) return -1;
    int rc = lg_long(value, name, lo, hi, out);
    Py_DECREF(value);
    return rc;
}

static int lg_attr_bool(PyObject *obj, PyObject *attr, int *out) {
    PyObject *value = PyObject_GetAttr(obj, attr);
    if (value == NULL) return -1;
    *out = PyObject_IsTrue(value);
    Py_DECREF(value);
    return *out < 0 ? -1 : 0;
}

/* Item `i` of `seq` (a list or tuple), borrowed; NULL with an error naming it otherwise. */
static PyObject *lg_item(PyObject *seq, const char *name, Py_ssize_t i) {
    if (!PyList_Check(seq) && !PyTuple_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list, got %.80s", name, Py_TYPE(seq)->tp_name);
        return NULL;
    }
    if (i < 0 || i >= PySequence_Fast_GET_SIZE(seq)) {
        PyErr_Format(PyExc_ValueError, "%s has no item %zd", name, i);
        return NULL;
    }
    return PySequence_Fast_GET_ITEM(seq, i);
}

static int lg_meld(PyObject *meld, LgMeld *out) {
    PyObject *kind = PyObject_GetAttr(meld, lg_s_kind);
    if (kind == NULL) return -1;
    int run = kind == lg_s_run;
    if (!run) {
        if (!PyUnicode_Check(kind)) {
            PyErr_Format(PyExc_TypeError, "meld kind must be a str, got %.80s",
                         Py_TYPE(kind)->tp_name);
            Py_DECREF(kind);
            return -1;
        }
        run = PyUnicode_Compare(kind, lg_s_run) == 0;
    }
    Py_DECREF(kind);
    out->run = run;
    if (lg_attr_int(meld, lg_s_owner, "meld owner", 0, FEAT_MAX_PLAYERS - 1, &out->owner) < 0 ||
        lg_attr_int(meld, lg_s_start, "meld start", -2 * NR, 2 * NR, &out->start) < 0 ||
        lg_attr_int(meld, lg_s_suit, "meld suit", -1, 3, &out->suit) < 0 ||
        lg_attr_int(meld, lg_s_rank, "meld rank", -1, NR - 1, &out->rank) < 0)
        return -1;
    if (!run && out->rank < 0) {
        PyErr_SetString(PyExc_ValueError, "a trio's rank must be 0..12, got -1");
        return -1;
    }
    if (run && out->suit < 0) {
        PyErr_SetString(PyExc_ValueError, "a run's suit must be 0..3, got -1");
        return -1;
    }
    PyObject *cards = PyObject_GetAttr(meld, lg_s_cards);
    if (cards == NULL) return -1;
    if (!PyList_Check(cards) && !PyTuple_Check(cards)) {
        PyErr_Format(PyExc_TypeError, "meld cards must be a list, got %.80s",
                     Py_TYPE(cards)->tp_name);
        Py_DECREF(cards);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(cards);
    out->n = (int)(n < 1000000 ? n : 1000000);
    out->has_joker = 0;
    out->end_joker = 0;
    out->stands = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int card;
        if (lg_long(PySequence_Fast_GET_ITEM(cards, i), "meld card", 0, JK, &card) < 0) {
            Py_DECREF(cards);
            return -1;
        }
        if (card != JK) continue;
        out->has_joker = 1;
        if (run) {
            out->stands |= 1ULL << (out->suit * NR + pymod(out->start + (int)i, NR));
            if (i == 0 || i == n - 1) out->end_joker = 1;
        }
    }
    Py_DECREF(cards);
    return 0;
}

/* melds.run_can_extend; end 0 = low, 1 = high */
static inline int lg_can_extend(const LgMeld *m, int end, int wrap) {
    if (m->n >= NR) return 0;
    if (wrap) return 1;
    return end == 0 ? m->start > 0 : m->start + m->n - 1 < NR;
}

/* melds.end_card: the natural that extends a run at `end`, or -1 */
static inline int lg_end_card(const LgMeld *m, int end, int wrap) {
    if (!m->run || !lg_can_extend(m, end, wrap)) return -1;
    return m->suit * NR + pymod(m->start + (end == 0 ? -1 : m->n), NR);
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Game.owed_jokers_stay_placeable; `slot` < 0 for a swap */
static inline int lg_owed_ok(int size, int owed, int trio, int room, int slot, const LgMeld *m) {
    if (slot < 0) {
        owed += 1;
    } else {
        size -= 1;
        if (m->run) room -= 1;
        if (slot >= LG_SLOT_JOKER) owed = owed - 1 > 0 ? owed - 1 : 0;
    }
    return owed == 0 || (size - owed >= 1 && (trio || room >= owed));
}

static PyObject *k_contract_legal(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* state, then the fixed facts: discard_restriction, swapped_joker_laid_off, swap and
     * shift (joker_rule is "swap" / "shift"), swap_run_jokers_only, min_run, ace_wraparound,
     * swap_base, move_base, max_melds, contracts ((trios, runs) per round) */
    enum { L_STATE, L_RESTRICT, L_LAID_OFF, L_SWAP, L_SHIFT, L_RUN_ONLY, L_MIN_RUN, L_WRAP, L_SWAP_BASE,
           L_MOVE_BASE, L_MAX_MELDS, L_CONTRACTS, L_COUNT };
    if (nargs != L_COUNT) {
        PyErr_Format(PyExc_TypeError, "contract_legal takes %d arguments, got %zd", L_COUNT,
                     nargs);
        return NULL;
    }
    PyObject *st = args[L_STATE];
    int restrict_, laid_off, swap, shift, run_only, min_run, wrap, swap_base, move_base, max_melds;
    if ((restrict_ = PyObject_IsTrue(args[L_RESTRICT])) < 0 ||
        (laid_off = PyObject_IsTrue(args[L_LAID_OFF])) < 0 ||
        (swap = PyObject_IsTrue(args[L_SWAP])) < 0 ||
        (shift = PyObject_IsTrue(args[L_SHIFT])) < 0 ||
        (run_only = PyObject_IsTrue(args[L_RUN_ONLY])) < 0 ||
        lg_long(args[L_MIN_RUN], "min_run", 1, MAXRUN, &min_run) < 0 ||
        (wrap = PyObject_IsTrue(args[L_WRAP])) < 0 ||
        lg_long(args[L_SWAP_BASE], "swap_base", 0, 1 << 24, &swap_base) < 0 ||
        lg_long(args[L_MOVE_BASE], "move_base", 0, 1 << 24, &move_base) < 0 ||
        lg_long(args[L_MAX_MELDS], "max_melds", 1, LG_MAX_MELDS, &max_melds) < 0)
        return NULL;
    PyObject *phase = PyObject_GetAttr(st, lg_s_phase);
    if (phase == NULL) return NULL;
    if (!PyUnicode_Check(phase)) {
        PyErr_Format(PyExc_TypeError, "phase must be a str, got %.80s", Py_TYPE(phase)->tp_name);
        Py_DECREF(phase);
        return NULL;
    }
    int ph = PyUnicode_CompareWithASCIIString(phase, "draw") == 0    ? 0
             : PyUnicode_CompareWithASCIIString(phase, "claim") == 0 ? 1
             : PyUnicode_CompareWithASCIIString(phase, "play") == 0  ? 2
                                                                      : 3;
    Py_DECREF(phase);
    if (ph == 3) return PyList_New(0); /* game over */
    if (ph == 1) return Py_BuildValue("[ii]", 2, 3); /* claim, pass */
    PyObject *discard = PyObject_GetAttr(st, lg_s_discard);
    if (discard == NULL) return NULL;
    int has_discard = PyObject_IsTrue(discard);
    Py_DECREF(discard);
    if (has_discard < 0) return NULL;
    if (ph == 0) return has_discard ? Py_BuildValue("[ii]", 0, 1) : Py_BuildValue("[i]", 0);

    /* the play phase: the player in turn's hand, the table, the turn's flags */
    int seat, owed, moved, round_number, size, down, hand[NT];
    if (lg_attr_int(st, lg_s_current, "current", 0, FEAT_MAX_PLAYERS - 1, &seat) < 0 ||
        lg_attr_int(st, lg_s_jokers_owed, "jokers_owed", 0, FEAT_MAX_COUNT, &owed) < 0 ||
        lg_attr_bool(st, lg_s_joker_moved, &moved) < 0 ||
        lg_attr_int(st, lg_s_round, "round", 1, 7, &round_number) < 0)
        return NULL;
    PyObject *obj = PyObject_GetAttr(st, lg_s_hands);
    if (obj == NULL) return NULL;
    PyObject *row = lg_item(obj, "hands", seat);
    Py_ssize_t got = row == NULL ? -1
                                 : feat_ints(row, "hand", -1, NT, 0, 0, FEAT_MAX_COUNT, hand);
    Py_DECREF(obj);
    if (got < 0) return NULL;
    obj = PyObject_GetAttr(st, lg_s_hand_sizes);
    if (obj == NULL) return NULL;
    row = lg_item(obj, "hand_sizes", seat);
    int rc = row == NULL ? -1 : lg_long(row, "hand size", 0, FEAT_MAX_COUNT, &size);
    Py_DECREF(obj);
    if (rc < 0) return NULL;
    obj = PyObject_GetAttr(st, lg_s_laid_down);
    if (obj == NULL) return NULL;
    row = lg_item(obj, "laid_down", seat);
    down = row == NULL ? -1 : PyObject_IsTrue(row);
    Py_DECREF(obj);
    if (down < 0) return NULL;
    PyObject *contracts = args[L_CONTRACTS];
    row = lg_item(contracts, "contracts", round_number - 1);
    int trios, runs;
    if (row == NULL || lg_item(row, "contract", 1) == NULL ||
        lg_long(PySequence_Fast_GET_ITEM(row, 0), "trios", 0, 8, &trios) < 0 ||
        lg_long(PySequence_Fast_GET_ITEM(row, 1), "runs", 0, 8, &runs) < 0)
        return NULL;
    PyObject *table = PyObject_GetAttr(st, lg_s_table);
    if (table == NULL) return NULL;
    if (!PyList_Check(table) && !PyTuple_Check(table)) {
        PyErr_Format(PyExc_TypeError, "table must be a list, got %.80s", Py_TYPE(table)->tp_name);
        Py_DECREF(table);
        return NULL;
    }
    Py_ssize_t ntable = PySequence_Fast_GET_SIZE(table);
    if (ntable > max_melds) {
        PyErr_Format(PyExc_ValueError, "table holds %zd melds, more than %d", ntable, max_melds);
        Py_DECREF(table);
        return NULL;
    }
    LgMeld melds[LG_MAX_MELDS];
    for (Py_ssize_t m = 0; m < ntable; m++)
        if (lg_meld(PySequence_Fast_GET_ITEM(table, m), &melds[m]) < 0) {
            Py_DECREF(table);
            return NULL;
        }
    Py_DECREF(table);

    /* at most: laydown, close, 53 discards, 55 per meld, 52 per meld, 2 per pair of melds */
    int cap = 2 + NT + (int)ntable * (LG_LAYOFF_SLOTS + LG_SWAP_SLOTS) + 2 * (int)(ntable * ntable);
    int *out = PyMem_Malloc(sizeof(int) * (size_t)cap);
    if (out == NULL) return PyErr_NoMemory();
    int n = 0;
    if (!down) { /* laydown: melds.has_contract */
        int total = 0;
        for (int k = 0; k < NT; k++) total += hand[k];
        if (total >= 3 * trios + min_run * runs + 1 &&
            contract_exists_c(hand, trios, runs, min_run, wrap, 1)) {
            if (trios && runs && !contract_exists_c(hand, trios, runs, min_run, wrap, 0)) {
                PyMem_Free(out); /* only the full search decides: the reference's case */
                Py_RETURN_NONE;
            }
            out[n++] = 4;
        }
    }
    if (!owed && down && size == 1) out[n++] = 5; /* close */
    if (!owed && size >= 2) { /* discard, 004's restriction before laying down */
        int fits[NT], restricted = restrict_ && !down && ntable > 0, all_fit = 1;
        if (restricted) { /* Game.fitting_counts */
            memset(fits, 0, sizeof fits);
            for (int m = 0; m < ntable; m++) {
                const LgMeld *md = &melds[m];
                if (!md->run) {
                    for (int s = 0; s < 4; s++) fits[s * NR + md->rank] = 1;
                    fits[JK] = 1;
                    continue;
                }
                int low = lg_end_card(md, 0, wrap), high = lg_end_card(md, 1, wrap);
                if (low >= 0) fits[low] = 1;
                if (high >= 0) fits[high] = 1;
                if (low >= 0 || high >= 0) fits[JK] = 1;
            }
            for (int k = 0; k < NT; k++)
                if (hand[k] && !fits[k]) all_fit = 0;
        }
        for (int k = 0; k < NT; k++)
            if (hand[k] && (!restricted || !fits[k] || all_fit)) out[n++] = LG_DISCARD_BASE + k;
    }
    int trio = 0, room = 0; /* Game._joker_room */
    for (int m = 0; m < ntable; m++) {
        if (!melds[m].run)
            trio = 1;
        else
            room += NR - melds[m].n;
    }
    if (down && size >= 2) { /* layoff: legal.layoff_ids_on each meld */
        for (int m = 0; m < ntable; m++) {
            const LgMeld *md = &melds[m];
            int base = LG_LAYOFF_BASE + LG_LAYOFF_SLOTS * m, slots[NT + 2], ns = 0;
            if (!md->run) {
                for (int s = 0; s < 4; s++)
                    if (hand[s * NR + md->rank]) slots[ns++] = s * NR + md->rank;
                if (hand[JK]) slots[ns++] = LG_SLOT_JOKER;
            } else {
                int low = lg_end_card(md, 0, wrap), high = lg_end_card(md, 1, wrap), nat[JK];
                memset(nat, 0, sizeof nat);
                if (low >= 0 && hand[low]) nat[low] = 1;
                if (high >= 0 && hand[high]) nat[high] = 1;
                if (md->owner == seat && shift && (low >= 0 || high >= 0))
                    for (int k = 0; k < JK; k++) /* _shift_naturals */
                        if ((md->stands >> k & 1) && hand[k]) nat[k] = 1;
                for (int k = 0; k < JK; k++)
                    if (nat[k]) slots[ns++] = k;
                if (hand[JK]) {
                    if (low >= 0) slots[ns++] = LG_SLOT_JOKER_LOW;
                    if (high >= 0) slots[ns++] = LG_SLOT_JOKER_HIGH;
                }
            }
            for (int k = 0; k < ns; k++)
                if (!laid_off || lg_owed_ok(size, owed, trio, room, slots[k], md))
                    out[n++] = base + slots[k];
        }
    }
    if (down && swap) { /* swap: melds.swap_targets held in hand */
        for (int m = 0; m < ntable; m++) {
            const LgMeld *md = &melds[m];
            if (run_only && !md->run) continue;
            if (laid_off && !lg_owed_ok(size, owed, trio, room, -1, md)) continue;
            int base = swap_base + LG_SWAP_SLOTS * m;
            if (!md->has_joker) continue;
            if (!md->run) {
                for (int s = 0; s < 4; s++)
                    if (hand[s * NR + md->rank]) out[n++] = base + s * NR + md->rank;
                continue;
            }
            for (int k = 0; k < JK; k++)
                if ((md->stands >> k & 1) && hand[k]) out[n++] = base + k;
        }
    }
    if (down && shift && !moved) { /* movejoker: legal.movejoker_ids */
        for (int m = 0; m < ntable; m++) {
            const LgMeld *md = &melds[m];
            if (md->owner != seat || md->n < 5 || !md->run || !md->end_joker) continue;
            for (int k = 0; k < ntable; k++) {
                if (k == m || !melds[k].run) continue;
                for (int e = 0; e < 2; e++)
                    if (lg_can_extend(&melds[k], e, wrap))
                        out[n++] = move_base + 2 * (m * max_melds + k) + e;
            }
        }
    }
    qsort(out, (size_t)n, sizeof(int), cmp_int);
    PyObject *list = PyList_New(n);
    if (list != NULL)
        for (int k = 0; k < n; k++) {
            PyObject *id = PyLong_FromLong(out[k]);
            if (id == NULL) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, k, id);
        }
    PyMem_Free(out);
    return list;
}

/* ============================================================ card_game_env's action mask */

/* mark_ids(out, ids): out[i] = 1 for each id i of `ids` (a list of ints within out), for an
 * int8 mask; every id is checked before anything is written. */
static PyObject *k_mark_ids(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "mark_ids takes 2 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *ids = args[1];
    if (!PyList_Check(ids)) {
        PyErr_Format(PyExc_TypeError, "ids must be a list of ints, got %.80s",
                     Py_TYPE(ids)->tp_name);
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) <
        0)
        return NULL;
    const char *fmt = view.format == NULL ? "B" : view.format;
    if (view.itemsize != 1 || (strcmp(fmt, "b") != 0 && strcmp(fmt, "B") != 0)) {
        PyErr_Format(PyExc_TypeError, "out must hold int8, got format '%s'", fmt);
        PyBuffer_Release(&view);
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(ids);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(ids, i);
        Py_ssize_t v = PyLong_Check(item) ? PyLong_AsSsize_t(item) : -1;
        if (v == -1 && PyErr_Occurred()) PyErr_Clear();
        if (!PyLong_Check(item) || v < 0 || v >= view.len) {
            PyErr_Format(PyExc_ValueError, "ids[%zd] = %R is not an index of the %zd-entry mask",
                         i, item, view.len);
            PyBuffer_Release(&view);
            return NULL;
        }
    }
    char *buf = view.buf;
    for (Py_ssize_t i = 0; i < n; i++) buf[PyLong_AsSsize_t(PyList_GET_ITEM(ids, i))] = 1;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
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
    int counts[NT], pts[NT];
    if (read_counts(counts_obj, counts, "counts") < 0 || read_counts(pts_obj, pts, "pts") < 0)
        goto done;
    if (trios < 0 || runs < 0 || trios > 8 || runs > 8 || min_run < 1 || min_run > MAXRUN) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        goto done;
    }
    int found = contract_search_c(S, counts, trios, runs, min_run, wrap, pts, first_only);
    if (found < 0) {
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

/* ==================================================== beliefs.BeliefSampler._weighted_hand */
/*
 * The Python entry of weighted_hand_c (_beliefs_c.h). The generator travels as
 * random.getstate()[1] (624 words and the index) and comes back advanced; every argument is
 * read and bounds-checked before the first draw.
 */

#define BELIEF_MAX_CARDS 100000
#define BELIEF_MAX_CANDIDATES 100000

static int read_mt_state(PyObject *obj, MT *r) {
    PyObject *seq = PySequence_Fast(obj, "state must be random.getstate()[1]");
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int ok = n == MT_N + 1;
    for (Py_ssize_t i = 0; ok && i <= MT_N; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == (unsigned long)-1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (i < MT_N) {
            ok = v <= 0xFFFFFFFFUL;
            r->mt[i] = (uint32_t)v;
        } else {
            ok = v <= MT_N;
            r->index = (int)v;
        }
    }
    Py_DECREF(seq);
    if (!ok) PyErr_SetString(PyExc_ValueError, "state must be random.getstate()[1]: 624 words and an index");
    return ok ? 0 : -1;
}

static PyObject *mt_state_tuple(const MT *r) {
    PyObject *t = PyTuple_New(MT_N + 1);
    if (t == NULL) return NULL;
    for (int i = 0; i <= MT_N; i++) {
        PyObject *v = i < MT_N ? PyLong_FromUnsignedLong(r->mt[i]) : PyLong_FromLong(r->index);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* A sequence of n floats (n given), or of any length up to cap (*n < 0: set to its length). */
static double *read_doubles(PyObject *obj, Py_ssize_t *n, Py_ssize_t cap, const char *name) {
    PyObject *seq = PySequence_Fast(obj, "expected a sequence of numbers");
    if (seq == NULL) return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if ((*n >= 0 && len != *n) || len < 1 || len > cap) {
        PyErr_Format(PyExc_ValueError, "%s has %zd numbers, expected %zd", name, len,
                     *n >= 0 ? *n : cap);
        Py_DECREF(seq);
        return NULL;
    }
    double *out = PyMem_Malloc(sizeof(double) * (size_t)len);
    if (out == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        out[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (out[i] == -1.0 && PyErr_Occurred()) {
            PyMem_Free(out);
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    *n = len;
    return out;
}

static PyObject *k_weighted_hand(PyObject *self, PyObject *args) {
    PyObject *state_obj, *cards_obj, *known_obj, *ratios_obj, *grid_obj, *edges_obj, *pw_obj;
    int free_n, candidates, trios, runs, min_run, wrap;
    double base;
    if (!PyArg_ParseTuple(args, "OOOiiOOOOdiiip", &state_obj, &cards_obj, &known_obj, &free_n,
                          &candidates, &ratios_obj, &grid_obj, &edges_obj, &pw_obj, &base, &trios,
                          &runs, &min_run, &wrap))
        return NULL;
    MT rng;
    int known[NT];
    if (read_mt_state(state_obj, &rng) < 0 || read_counts(known_obj, known, "known") < 0)
        return NULL;
    if (!hand_analysis_ok(trios, runs, min_run)) {
        PyErr_Format(PyExc_ValueError, "contract %d trios + %d runs of %d is out of range", trios,
                     runs, min_run);
        return NULL;
    }
    PyObject *result = NULL, *cards_seq = PySequence_Fast(cards_obj, "cards must be a sequence");
    if (cards_seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(cards_seq);
    double *ratios = NULL, *grid = NULL, *edges = NULL, *pw = NULL;
    BeliefWork w = {0};
    int *cards = NULL;
    if (n > BELIEF_MAX_CARDS || free_n < 0 || free_n > n || candidates < 1 ||
        candidates > BELIEF_MAX_CANDIDATES) {
        PyErr_Format(PyExc_ValueError,
                     "weighted_hand: %zd cards, %d free slots and %d candidates are out of range",
                     n, free_n, candidates);
        goto done;
    }
    cards = PyMem_Malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (cards == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(cards_seq, i));
        if (c == -1 && PyErr_Occurred()) goto done;
        if (c < 0 || c >= NT) {
            PyErr_Format(PyExc_ValueError, "cards[%zd] = %ld is not a card type", i, c);
            goto done;
        }
        cards[i] = (int)c;
    }
    Py_ssize_t nratio = -1, nedges = -1, npw = NT, ngrid;
    if ((ratios = read_doubles(ratios_obj, &nratio, 64, "ratios")) == NULL) goto done;
    if ((edges = read_doubles(edges_obj, &nedges, 64, "edges")) == NULL) goto done;
    if (pw_obj != Py_None && (pw = read_doubles(pw_obj, &npw, NT, "pw")) == NULL) goto done;
    if (grid_obj != Py_None) {
        /* nratio rows of nedges + 1: read flat, row by row */
        PyObject *rows = PySequence_Fast(grid_obj, "grid must be a sequence of rows");
        if (rows == NULL) goto done;
        if (PySequence_Fast_GET_SIZE(rows) != nratio) {
            PyErr_Format(PyExc_ValueError, "grid has %zd rows, expected %zd (one per ratio)",
                         PySequence_Fast_GET_SIZE(rows), nratio);
            Py_DECREF(rows);
            goto done;
        }
        grid = PyMem_Malloc(sizeof(double) * (size_t)(nratio * (nedges + 1)));
        if (grid == NULL) {
            Py_DECREF(rows);
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t d = 0; d < nratio; d++) {
            ngrid = nedges + 1;
            double *row = read_doubles(PySequence_Fast_GET_ITEM(rows, d), &ngrid, 65, "grid row");
            if (row == NULL) {
                Py_DECREF(rows);
                goto done;
            }
            memcpy(grid + d * (nedges + 1), row, sizeof(double) * (size_t)(nedges + 1));
            PyMem_Free(row);
        }
        Py_DECREF(rows);
    }
    size_t k = (size_t)candidates;
    w.picks = PyMem_Malloc(sizeof(int) * (k * (size_t)free_n + 1));
    w.counts = PyMem_Malloc(sizeof(int) * k * NT);
    w.pool = PyMem_Malloc(sizeof(int) * (size_t)(n + 1));
    w.weights = PyMem_Malloc(sizeof(double) * k);
    w.cum = PyMem_Malloc(sizeof(double) * k);
    w.selected = PyMem_Malloc((size_t)(n + 1));
    if (!w.picks || !w.counts || !w.pool || !w.weights || !w.cum || !w.selected) {
        PyErr_NoMemory();
        goto done;
    }
    BeliefInput in = {cards, (int)n, known, free_n, candidates, ratios, (int)nratio, grid, edges,
                      (int)nedges, pw, base, trios, runs, min_run, wrap};
    int kept = weighted_hand_c(&rng, &in, &w);
    if (kept < 0) {
        PyErr_SetString(PyExc_ValueError, kept == -2 ? "Total of weights must be greater than zero"
                                                     : "a candidate hand's contract is out of range");
        goto done;
    }
    PyObject *picks = PyList_New(free_n);
    if (picks == NULL) goto done;
    for (int i = 0; i < free_n; i++) {
        PyObject *v = PyLong_FromLong(w.picks[(size_t)kept * free_n + i]);
        if (v == NULL) {
            Py_DECREF(picks);
            goto done;
        }
        PyList_SET_ITEM(picks, i, v);
    }
    PyObject *counts = PyList_New(NT);
    if (counts == NULL) {
        Py_DECREF(picks);
        goto done;
    }
    for (int c = 0; c < NT; c++) {
        PyObject *v = PyLong_FromLong(w.counts[(size_t)kept * NT + c]);
        if (v == NULL) {
            Py_DECREF(picks);
            Py_DECREF(counts);
            goto done;
        }
        PyList_SET_ITEM(counts, c, v);
    }
    result = Py_BuildValue("(NNN)", picks, counts, mt_state_tuple(&rng));
done:
    Py_DECREF(cards_seq);
    PyMem_Free(cards);
    PyMem_Free(ratios);
    PyMem_Free(grid);
    PyMem_Free(edges);
    PyMem_Free(pw);
    PyMem_Free(w.picks);
    PyMem_Free(w.counts);
    PyMem_Free(w.pool);
    PyMem_Free(w.weights);
    PyMem_Free(w.cum);
    PyMem_Free(w.selected);
    return result;
}

/* ------------------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"make_plan", k_make_plan, METH_VARARGS,
     "make_plan(hand, unseen, trios, runs, min_run, wrap) -> (cost, missing, core)"},
    {"contract_exists", k_contract_exists, METH_VARARGS,
     "contract_exists(counts, trios, runs, min_run, wrap, steal) -> bool"},
    {"contract_exists_both", k_contract_exists_both, METH_VARARGS,
     "contract_exists_both(counts, trios, runs, min_run, wrap) -> (without stealing, only with)"},
    {"contract_search", k_contract_search, METH_VARARGS,
     "contract_search(counts, trios, runs, min_run, wrap, pts, first_only) -> melds or None"},
    {"weighted_hand", k_weighted_hand, METH_VARARGS,
     "weighted_hand(state, cards, known, free, candidates, ratios, grid, edges, pw, base, trios,"
     " runs, min_run, wrap) -> (picks, counts, state): beliefs.BeliefSampler._weighted_hand's"
     " kept hand and the generator's state after it"},
    {"hand_analysis", k_hand_analysis, METH_VARARGS,
     "hand_analysis(counts, trios, runs, min_run, wrap) -> (distance, reducers, in_trio, in_run)"},
    {"encode_features", (PyCFunction)(void (*)(void))k_encode_features, METH_FASTCALL,
     "encode_features(out, num_players, seat, trios, runs, min_run, wrap, live, laid_down_self,"
     " hand, deck, discard, table, known, hand_sizes, laid_down, claims, points, discarded,"
     " declined, takes, discards, entries) -> None: writes the v1 features into out (float32)"},
    {"encode_observation", (PyCFunction)(void (*)(void))k_encode_observation, METH_FASTCALL,
     "encode_observation(out, version, <encode_features' arguments after out>, seen, owners,"
     " fits, round, phase, scores, stock, turn, max_turns) -> None: writes aec's"
     " encode_observation (v0, and for version 1 the features) into out (float32)"},
    {"laydown_cores", k_laydown_cores, METH_VARARGS,
     "laydown_cores(counts, trios, runs, min_run, wrap, pts, table_ranks, table_suits, limit)"
     " -> [(stuck, stuck_points, melds)]"},
    {"laydown_plan", (PyCFunction)(void (*)(void))k_laydown_plan, METH_FASTCALL,
     "laydown_plan(counts, trios, runs, min_run, wrap, points53, signature) -> (key, rows) or"
     " None: melds.laydown_plan"},
    {"contract_legal", (PyCFunction)(void (*)(void))k_contract_legal, METH_FASTCALL,
     "contract_legal(state, discard_restriction, swapped_joker_laid_off, swap, shift,"
     " swap_run_jokers_only, min_run, ace_wraparound, swap_base, move_base, max_melds,"
     " contracts) -> sorted legal ids, or None where the full contract search decides"},
    {"mark_ids", (PyCFunction)(void (*)(void))k_mark_ids, METH_FASTCALL,
     "mark_ids(out, ids) -> None: out[i] = 1 for each id (out: an int8 buffer)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels",
                                    "Compiled kernels (see continental_env/kernels.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__kernels(void) {
    if (lg_intern() < 0) return NULL;
    obs_tables_init();
    mt_tables_init();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    /* the lay-down's bounds, checked against melds.LAYDOWN_BUDGET / LAYDOWN_EXACT_CARDS */
    if (PyModule_AddIntConstant(m, "LAYDOWN_BUDGET", LAYDOWN_BUDGET) < 0 ||
        PyModule_AddIntConstant(m, "LAYDOWN_EXACT_CARDS", LAYDOWN_EXACT_CARDS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
