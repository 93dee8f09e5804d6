/*
 * The contract game's rules in C, many independent games ("lanes") per call.
 *
 * A port of continental_env/contract/game.py (the readable reference) that holds N games in C
 * structs, steps all of them in one call and writes each lane's continental_v0 observation
 * (contract/aec.py encode_observation) and legal-action mask into caller-owned arrays. After
 * every action a lane's position is the reference engine's, field for field: the deal (CPython's
 * MT19937 and random.shuffle, reproduced below), the legal actions (legal.py and the CHECKS of
 * action_checks.py), every effect and the public log. The lay-down's arrangement
 * (melds.laydown_plan) is _laydown_c.h's; only the rare fallback of has_contract calls back
 * into Python. The Python side (continental_env/batch.py) converts `export` dicts to Game.to_dict.
 *
 * Card ids: 0..51 naturals (suit * 13 + rank, rank 0 = ace), 52 the joker.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "_melds_c.h"
#include "_features_c.h"
#include "_obs_c.h"

#define MAXP 8         /* players */
#define MAXMELDS 24    /* 3 melds per player */
#define MAXMELD 160    /* cards in one meld: 16 decks' naturals of a rank (64) and jokers (96) */
#define MAXCARDS 928   /* 16 decks of 52 naturals and 6 jokers */
#define MAXROUNDS 64   /* rounds per game (rules.rounds may repeat a round) */
#define MAXDECKS 16
#define NKINDS 10
/* Loaded scores stay far from int32's bound: a round scores at most 928 cards x 10,000 points,
 * so a finished game's scores (int32 in `step`) stay below 2**31. */
#define MAXSCORE 1000000000LL

#include "_laydown_c.h" /* the lay-down choice (melds.laydown_plan) in plain C */

enum { DRAW_PH, CLAIM_PH, PLAY_PH, OVER_PH };
enum { A_DRAW, A_TAKE, A_CLAIM, A_PASS, A_LAYDOWN, A_CLOSE, K_DISCARD, K_LAYOFF, K_SWAP, K_MOVE };
enum { TRIO_K, RUN_K };
enum { LOW_E, HIGH_E, NO_E = -1 };

#define DISCARD_BASE 6
#define LAYOFF_BASE 59
#define LAYOFF_SLOTS 55
#define SLOT_JOKER 52
#define SLOT_JOKER_LOW 53
#define SLOT_JOKER_HIGH 54
#define SWAP_SLOTS 52

static const char *PHASES[4] = {"draw", "claim", "play", "game_over"};
static const int CONTRACTS[7][2] = {{2, 0}, {1, 1}, {0, 2}, {3, 0}, {2, 1}, {1, 2}, {0, 3}};

#include "_mt_c.h" /* CPython's Mersenne Twister and the random methods built on it */

/* The seed of lane `lane`'s `game`-th game (splitmix64's finaliser, three times). */
static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static uint64_t lane_game_seed(uint64_t seed, uint64_t lane, uint64_t game) {
    return mix64(mix64(mix64(seed) ^ lane) ^ game);
}

/* ------------------------------------------------------------------------- structs */

typedef struct {
    int min_run, wrap, joker_rule, swap_run_only, swapped_laid_off, discard_restriction;
    int one_turn_bonus, claims_after_laydown, max_claims, max_turns, jokers_per_deck;
    int pts[NT];
    int R;
    int rounds[MAXROUNDS];
    int decks[MAXROUNDS];
} Rules;

typedef struct {
    int owner, kind, n, start, rank, suit;
    unsigned char cards[MAXMELD];
} Meld;

typedef struct {
    signed char seat, kind, card;
} LogEntry;

typedef struct {
    long long round, points[MAXP], closer, turns;
} History;

/* A lane: one game. Its fields are ordered by how often a decision touches them (a lane is
 * about 28 KB and a step visits every lane once): the scalars and the arrays each decision
 * reads come first, in a few cache lines, the round's history, generator and v1 caches last. */
typedef struct {
    /* every decision */
    int round, round_index, dealer, current, phase, asked;
    int queue[MAXP], nqueue;
    int nstock, ndiscard, ntable, nhist, turn;
    int joker_moved, jokers_owed;
    int legal_ok, nlegal, fits_ok;
    int totals_ok; /* the four totals are the log's (else ensure_totals counts them first) */
    int *legal;    /* the legal ids (num_actions capacity; in Core.legal_block) */
    /* dynamic: the public log */
    LogEntry *log;
    Py_ssize_t nlog, caplog;
    long long moves;
    int hand_sizes[MAXP];
    int laid_down[MAXP], laid_down_turn[MAXP];
    int claims[MAXP];
    int last_action[MAXP]; /* -1: None */
    long long scores[MAXP];
    int lg_takes[MAXP], lg_discards[MAXP];
    int hands[MAXP][NT];
    int seen[NT];
    /* fitting_counts of the table, kept while fits_ok (cleared whenever the table changes) */
    int fits[NT];
    int known[MAXP][NT];
    /* the log's running totals (public_log.PublicLog: discarded, declined, takes, discards) */
    int lg_discarded[MAXP][NT], lg_declined[MAXP][NT];
    unsigned char discard[MAXCARDS];
    unsigned char stock[MAXCARDS];
    Meld table[MAXMELDS];
    /* a round's end, a deal, a new game */
    History hist[MAXROUNDS];
    MT rng;
    uint64_t seeds[MAXROUNDS];
    long long game_index;
    /* v1: each seat's last hand analysis and what it was of (hand, contract): a seat's hand
     * changes a few times a turn, its decisions (claims, draws) often see the same hand */
    HandAnalysis ha[MAXP];
    int ha_hand[MAXP][NT], ha_trios[MAXP], ha_runs[MAXP], ha_ok[MAXP];
} Lane;

typedef struct {
    PyObject_HEAD int N, P, M, num_actions, obs_dim, swap_base, move_base;
    int version, v0_dim;  /* the observation: 0 = continental_v0, 1 = v1 (v0 + features) */
    float points50[NT];   /* features: float32(points) / 50 */
    Rules r;
    uint64_t seed;
    PyObject *laydown_plan, *has_contract_slow;
    Lane *lanes;
    int *legal_block;  /* every lane's legal ids (num_actions each), one block */
    int lanes_mapped, legal_mapped; /* each block was mapped (lanes_alloc), not calloc'ed */
    int busy;
    unsigned char partners[NT][NT]; /* the bots' handtools.partner_table of these rules */
    int bot_perturb; /* the bots' positive control (BotView.perturb); 0 in play */
    struct BotWorkTag *bot_work; /* the bots' scratch area, made at their first call */
} Core;

/* Whether this thread holds the GIL while stepping: callbacks into Python take it back. */
typedef struct {
    PyThreadState *ts;
} Ctx;

static void ctx_gil(Ctx *c) {
    if (c && c->ts) {
        PyEval_RestoreThread(c->ts);
        c->ts = NULL;
    }
}

static void ctx_nogil(Ctx *c) {
    if (c && !c->ts) c->ts = PyEval_SaveThread();
}

/* ------------------------------------------------------------------------- meld helpers */

static int run_can_extend(const Rules *r, const Meld *m, int end) {
    if (m->n >= NR) return 0;
    if (r->wrap) return 1;
    if (end == LOW_E) return m->start > 0;
    return m->start + m->n - 1 < NR;
}

static int represented(const Meld *m, int i) { return m->suit * NR + pymod(m->start + i, NR); }

/* melds.end_card: the natural extending a run at `end`, or -1. */
static int end_card(const Rules *r, const Meld *m, int end) {
    if (m->kind != RUN_K || !run_can_extend(r, m, end)) return -1;
    int pos = end == LOW_E ? -1 : m->n;
    return m->suit * NR + pymod(m->start + pos, NR);
}

static int extend_run(const Rules *r, Meld *m, int card, int end) {
    if (m->n >= MAXMELD) return -1;
    if (end == HIGH_E) {
        m->cards[m->n++] = (unsigned char)card;
        return 0;
    }
    memmove(m->cards + 1, m->cards, (size_t)m->n);
    m->cards[0] = (unsigned char)card;
    m->n++;
    m->start = r->wrap ? pymod(m->start - 1, NR) : m->start - 1;
    return 0;
}

static void take_end_joker(const Rules *r, Meld *m, int end) {
    if (m->n < 1) return;
    if (end == HIGH_E) {
        m->n--;
        return;
    }
    memmove(m->cards, m->cards + 1, (size_t)(m->n - 1));
    m->n--;
    m->start = r->wrap ? pymod(m->start + 1, NR) : m->start + 1;
}

static int joker_for(const Meld *m, int card) {
    for (int i = 0; i < m->n; i++)
        if (m->cards[i] == JK && (m->kind == TRIO_K || represented(m, i) == card)) return i;
    return -1;
}

static int end_joker(const Meld *m) {
    if (m->kind != RUN_K || m->n == 0) return NO_E;
    if (m->cards[m->n - 1] == JK) return HIGH_E;
    if (m->cards[0] == JK) return LOW_E;
    return NO_E;
}

static int natural_layoff_end(const Rules *r, const Meld *m, int card) {
    if (card / NR != m->suit) return NO_E;
    int rank = card % NR;
    if (run_can_extend(r, m, HIGH_E) && pymod(m->start + m->n, NR) == rank) return HIGH_E;
    if (run_can_extend(r, m, LOW_E) && pymod(m->start - 1, NR) == rank) return LOW_E;
    return NO_E;
}

/* melds.lay_off (the engine checked the card fits). */
static int lay_off(const Rules *r, Meld *m, int card, int end) {
    if (m->kind == TRIO_K) {
        if (m->n >= MAXMELD) return -1;
        m->cards[m->n++] = (unsigned char)card;
        return 0;
    }
    if (card == JK) return extend_run(r, m, JK, end == NO_E ? HIGH_E : end);
    int natural = natural_layoff_end(r, m, card);
    if (natural == NO_E) { /* 003's shift: the natural takes the joker's place */
        int i = joker_for(m, card);
        if (i < 0) return -1;
        m->cards[i] = (unsigned char)card;
        return extend_run(r, m, JK, run_can_extend(r, m, HIGH_E) ? HIGH_E : LOW_E);
    }
    return extend_run(r, m, card, natural);
}

#include "_bots_c.h" /* greedy, strong@v1 and strong@v2 on a seat's view (BotView) */

/* Game.fitting_counts: per card type, 1 if it fits some table meld now. */
static void fitting_counts_now(const Core *c, const Lane *L, int *fits) {
    memset(fits, 0, NT * sizeof(int));
    for (int k = 0; k < L->ntable; k++) {
        const Meld *m = &L->table[k];
        if (m->kind == TRIO_K) {
            for (int s = 0; s < 4; s++) fits[s * NR + m->rank] = 1;
            fits[JK] = 1;
            continue;
        }
        int low = end_card(&c->r, m, LOW_E), high = end_card(&c->r, m, HIGH_E);
        if (low >= 0) fits[low] = 1;
        if (high >= 0) fits[high] = 1;
        if (low >= 0 || high >= 0) fits[JK] = 1;
    }
}

/* The lane's fitting counts, computed once per table position (the table changes only by
 * lay-downs, lay-offs, swaps, joker moves and a new round: perform and reset_round clear
 * fits_ok, and a loaded lane starts without it). */
static const int *fitting_counts(const Core *c, Lane *L) {
    if (!L->fits_ok) {
        fitting_counts_now(c, L, L->fits);
        L->fits_ok = 1;
    }
    return L->fits;
}

/* ------------------------------------------------------------------------- legal actions */

static int actor_of(const Lane *L) {
    if (L->phase == OVER_PH) return -1;
    return L->phase == CLAIM_PH ? L->asked : L->current;
}

/* melds.has_contract: 1, 0, or -1 with a Python error (the fallback's callback failed). */
static int has_contract(Core *c, const int *counts, int trios, int runs, Ctx *ctx) {
    int total = 0;
    for (int i = 0; i < NT; i++) total += counts[i];
    if (total < 3 * trios + c->r.min_run * runs + 1) return 0;
    /* with stealing, without: one search gives both (a fit without stealing answers yes) */
    int steal_only;
    if (contract_exists_both(counts, trios, runs, c->r.min_run, c->r.wrap, &steal_only)) return 1;
    if (!steal_only) return 0;
    ctx_gil(ctx);
    int answer = -1;
    PyObject *t = PyTuple_New(NT);
    if (t != NULL) {
        for (int i = 0; i < NT; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(counts[i]));
        PyObject *res = PyObject_CallFunction(c->has_contract_slow, "Oii", t, trios, runs);
        Py_DECREF(t);
        if (res != NULL) {
            answer = PyObject_IsTrue(res);
            Py_DECREF(res);
        }
    }
    ctx_nogil(ctx);
    return answer;
}

/* `v` into the ascending list `list` of `n` distinct ints unless it is there; the new length. */
static inline int add_sorted(int *list, int n, int v) {
    int j = n;
    while (j > 0 && list[j - 1] > v) j--;
    if (j > 0 && list[j - 1] == v) return n;
    memmove(list + j + 1, list + j, (size_t)(n - j) * sizeof(int));
    list[j] = v;
    return n + 1;
}

/* Game.owed_jokers_stay_placeable; `slot` < 0 for a swap. */
static int owed_placeable(const Core *c, const Lane *L, int trio, int room, int slot, int m) {
    int size = L->hand_sizes[L->current];
    int owed = L->jokers_owed;
    if (slot < 0) {
        owed += 1;
    } else {
        size -= 1;
        if (L->table[m].kind == RUN_K) room -= 1;
        if (slot >= SLOT_JOKER) owed = owed - 1 > 0 ? owed - 1 : 0;
    }
    return owed == 0 || (size - owed >= 1 && (trio || room >= owed));
}

static const int NONE_HELD_BACK[NT]; /* no card held back from the discard list */

/* legal.compute_legal: the ids come out sorted (kinds in id order, each kind's ids rising). */
static int compute_legal(Core *c, Lane *L, Ctx *ctx) {
    int *out = L->legal;
    int n = 0;
    L->legal_ok = 0;
    if (L->phase == DRAW_PH) {
        out[n++] = A_DRAW;
        if (L->ndiscard) out[n++] = A_TAKE;
    } else if (L->phase == CLAIM_PH) {
        out[n++] = A_CLAIM;
        out[n++] = A_PASS;
    } else if (L->phase == PLAY_PH) {
        const Rules *r = &c->r;
        int seat = L->current;
        const int *hand = L->hands[seat];
        int size = L->hand_sizes[seat];
        int down = L->laid_down[seat];
        int owed = L->jokers_owed;
        if (!down) {
            int h = has_contract(c, hand, CONTRACTS[L->round - 1][0], CONTRACTS[L->round - 1][1],
                                 ctx);
            if (h < 0) return -1;
            if (h) out[n++] = A_LAYDOWN;
        }
        if (!owed && down && size == 1) out[n++] = A_CLOSE;
        if (!owed && size >= 2) {
            const int *fits = NULL;
            int restrict_ = r->discard_restriction && !down && L->ntable > 0;
            int all_fit = 1;
            if (restrict_) {
                fits = fitting_counts(c, L);
                for (int k = 0; k < NT; k++)
                    if (hand[k] && !fits[k]) all_fit = 0;
            }
            /* branch-free (a random hand's counts defeat the branch predictor): a held card,
             * unless the restriction holds it back as fitting a table meld */
            const int *held_back = restrict_ && !all_fit ? fits : NONE_HELD_BACK;
            for (int k = 0; k < NT; k++) {
                out[n] = DISCARD_BASE + k;
                n += (hand[k] != 0) & !held_back[k];
            }
        }
        int trio = 0, room = 0;
        if (r->swapped_laid_off && down) {
            for (int m = 0; m < L->ntable; m++) {
                if (L->table[m].kind == TRIO_K)
                    trio = 1;
                else
                    room += NR - L->table[m].n;
            }
        }
        if (down && size >= 2) {
            for (int m = 0; m < L->ntable; m++) {
                const Meld *md = &L->table[m];
                int base = LAYOFF_BASE + LAYOFF_SLOTS * m;
                int slots[8], ns = 0;
                if (md->kind == TRIO_K) {
                    for (int s = 0; s < 4; s++)
                        if (hand[s * NR + md->rank]) slots[ns++] = s * NR + md->rank;
                    if (hand[JK]) slots[ns++] = SLOT_JOKER;
                } else {
                    int low = end_card(&c->r, md, LOW_E), high = end_card(&c->r, md, HIGH_E);
                    int nat[MAXMELD], nn = 0; /* the naturals that lay off, ascending */
                    if (low >= 0 && hand[low]) nn = add_sorted(nat, nn, low);
                    if (high >= 0 && hand[high]) nn = add_sorted(nat, nn, high);
                    if (md->owner == seat && r->joker_rule == 1 && (low >= 0 || high >= 0)) {
                        for (int i = 0; i < md->n; i++)
                            if (md->cards[i] == JK && hand[represented(md, i)])
                                nn = add_sorted(nat, nn, represented(md, i));
                    }
                    for (int j = 0; j < nn; j++)
                        if (!(r->swapped_laid_off && !owed_placeable(c, L, trio, room, nat[j], m)))
                            out[n++] = base + nat[j];
                    if (hand[JK]) {
                        if (low >= 0) slots[ns++] = SLOT_JOKER_LOW;
                        if (high >= 0) slots[ns++] = SLOT_JOKER_HIGH;
                    }
                }
                for (int k = 0; k < ns; k++)
                    if (!(r->swapped_laid_off && !owed_placeable(c, L, trio, room, slots[k], m)))
                        out[n++] = base + slots[k];
            }
        }
        if (down && r->joker_rule == 0) {
            for (int m = 0; m < L->ntable; m++) {
                const Meld *md = &L->table[m];
                if (r->swap_run_only && md->kind != RUN_K) continue;
                if (r->swapped_laid_off && !owed_placeable(c, L, trio, room, -1, m)) continue;
                int base = c->swap_base + SWAP_SLOTS * m;
                if (md->kind == TRIO_K) {
                    int has_joker = 0;
                    for (int i = 0; i < md->n; i++) has_joker |= md->cards[i] == JK;
                    if (!has_joker) continue;
                    for (int s = 0; s < 4; s++)
                        if (hand[s * NR + md->rank]) out[n++] = base + s * NR + md->rank;
                } else {
                    int tg[MAXMELD], nt = 0; /* the naturals a joker stands for, ascending */
                    for (int i = 0; i < md->n; i++)
                        if (md->cards[i] == JK && hand[represented(md, i)])
                            nt = add_sorted(tg, nt, represented(md, i));
                    for (int j = 0; j < nt; j++) out[n++] = base + tg[j];
                }
            }
        }
        if (down && r->joker_rule == 1 && !L->joker_moved) {
            for (int m = 0; m < L->ntable; m++) {
                const Meld *md = &L->table[m];
                if (md->owner != seat || md->n < 5 || end_joker(md) == NO_E) continue;
                for (int k = 0; k < L->ntable; k++) {
                    if (k == m || L->table[k].kind != RUN_K) continue;
                    for (int e = LOW_E; e <= HIGH_E; e++)
                        if (run_can_extend(&c->r, &L->table[k], e))
                            out[n++] = c->move_base + 2 * (m * c->M + k) + e;
                }
            }
        }
    }
    L->nlegal = n;
    L->legal_ok = 1;
    return 0;
}

static int ensure_legal(Core *c, Lane *L, Ctx *ctx) {
    return L->legal_ok ? 0 : compute_legal(c, L, ctx);
}

static int is_legal(const Lane *L, long long a) {
    int lo = 0, hi = L->nlegal - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (L->legal[mid] == a) return 1;
        if (L->legal[mid] < a)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------- the deal */

static int log_add(Lane *L, int seat, int kind, int card) {
    if (L->nlog == L->caplog) {
        Py_ssize_t cap = L->caplog ? 2 * L->caplog : 256;
        LogEntry *grown = PyMem_RawRealloc(L->log, (size_t)cap * sizeof(LogEntry));
        if (grown == NULL) return -1;
        L->log = grown;
        L->caplog = cap;
    }
    L->log[L->nlog].seat = (signed char)seat;
    L->log[L->nlog].kind = (signed char)kind;
    L->log[L->nlog].card = (signed char)card;
    L->nlog++;
    if (!L->totals_ok) return 0; /* counted from the log when first read (ensure_totals) */
    if (kind == K_DISCARD) { /* public_log.PublicLog._add */
        L->lg_discarded[seat][card]++;
        L->lg_discards[seat]++;
    } else if ((kind == A_DRAW || kind == A_PASS) && card >= 0) {
        L->lg_declined[seat][card]++;
    } else if (kind == A_TAKE) {
        L->lg_takes[seat]++;
    }
    return 0;
}

static void totals_clear(Lane *L) {
    memset(L->lg_discarded, 0, sizeof L->lg_discarded);
    memset(L->lg_declined, 0, sizeof L->lg_declined);
    memset(L->lg_takes, 0, sizeof L->lg_takes);
    memset(L->lg_discards, 0, sizeof L->lg_discards);
}

/* An empty log. The log's totals are kept as it grows where the observation reads them (v1);
 * elsewhere (v0) only the bots read them, so they are counted from the log when a bot first
 * asks in the round (ensure_totals) and kept from then on: a step with no bot writes nothing to
 * the totals' lines, which at a thousand lanes are rarely in cache. */
static void log_clear(const Core *c, Lane *L) {
    L->nlog = 0;
    L->totals_ok = c->version == 1;
    if (L->totals_ok) totals_clear(L);
}

/* The log's totals, counted from the log if they were not kept (log_clear). */
static void ensure_totals(Lane *L) {
    if (L->totals_ok) return;
    totals_clear(L);
    L->totals_ok = 1;
    Py_ssize_t n = L->nlog;
    L->nlog = 0;
    for (Py_ssize_t k = 0; k < n; k++) /* the same entries again: no growth, no failure */
        log_add(L, L->log[k].seat, L->log[k].kind, L->log[k].card);
}

static void reset_round(Core *c, Lane *L) {
    int P = c->P;
    L->dealer = 0;
    L->current = 0;
    L->phase = DRAW_PH;
    L->asked = -1;
    L->nqueue = 0;
    memset(L->hands, 0, sizeof L->hands);
    memset(L->hand_sizes, 0, sizeof L->hand_sizes);
    L->nstock = 0;
    L->ndiscard = 0;
    L->ntable = 0;
    L->fits_ok = 0;
    for (int s = 0; s < P; s++) {
        L->laid_down[s] = 0;
        L->laid_down_turn[s] = -1;
        L->claims[s] = 0;
        L->last_action[s] = -1;
    }
    L->turn = 0;
    memset(L->known, 0, sizeof L->known);
    memset(L->seen, 0, sizeof L->seen);
    L->joker_moved = 0;
    L->jokers_owed = 0;
    log_clear(c, L);
    L->legal_ok = 0;
}

/* Game._deal. */
static void deal(Core *c, Lane *L) {
    int P = c->P;
    reset_round(c, L);
    mt_seed64(&L->rng, L->seeds[L->round_index]);
    int decks = c->r.decks[L->round_index];
    int len = 0;
    for (int k = 0; k < NT; k++) {
        int copies = k == JK ? decks * c->r.jokers_per_deck : decks;
        for (int i = 0; i < copies; i++) L->stock[len++] = (unsigned char)k;
    }
    mt_shuffle(&L->rng, L->stock, len);
    L->dealer = L->round_index % P;
    int n = 6 + L->round;
    for (int s = 0; s < P; s++) {
        for (int i = len - n; i < len; i++) L->hands[s][L->stock[i]]++;
        len -= n;
        L->hand_sizes[s] = n;
    }
    L->discard[0] = L->stock[--len];
    L->ndiscard = 1;
    L->nstock = len;
    L->seen[L->discard[0]]++;
    L->current = (L->dealer + 1) % P;
}

/* Game.new for lane `i`'s game `g`. */
static void new_game(Core *c, Lane *L, Py_ssize_t i, long long g) {
    MT master;
    mt_seed64(&master, lane_game_seed(c->seed, (uint64_t)i, (uint64_t)g));
    for (int k = 0; k < c->r.R; k++) L->seeds[k] = mt_bits64(&master);
    L->game_index = g;
    L->round_index = 0;
    L->round = c->r.rounds[0];
    memset(L->scores, 0, sizeof L->scores);
    L->nhist = 0;
    L->moves = 0;
    deal(c, L);
}

/* ------------------------------------------------------------------------- effects */

static void add_card(Lane *L, int seat, int card) {
    L->hands[seat][card]++;
    L->hand_sizes[seat]++;
}

static void remove_card(Lane *L, int seat, int card) {
    L->hands[seat][card]--;
    L->hand_sizes[seat]--;
    if (L->known[seat][card]) L->known[seat][card]--;
}

static int pop_stock(Lane *L) { /* -1: none left */
    if (L->nstock == 0 && L->ndiscard > 1) {
        unsigned char top = L->discard[L->ndiscard - 1];
        memcpy(L->stock, L->discard, (size_t)(L->ndiscard - 1));
        L->nstock = L->ndiscard - 1;
        mt_shuffle(&L->rng, L->stock, L->nstock);
        L->discard[0] = top;
        L->ndiscard = 1;
    }
    return L->nstock ? L->stock[--L->nstock] : -1;
}

static long long hand_points(const Core *c, const Lane *L, int seat) {
    long long sum = 0;
    for (int k = 0; k < NT; k++) sum += (long long)L->hands[seat][k] * c->r.pts[k];
    return sum;
}

static void end_round(Core *c, Lane *L, int closer) {
    int P = c->P;
    History *h = &L->hist[L->nhist++];
    h->round = L->round;
    h->closer = closer;
    h->turns = L->turn;
    for (int s = 0; s < P; s++) {
        if (s == closer)
            h->points[s] = L->laid_down_turn[s] == L->turn ? c->r.one_turn_bonus : 0;
        else
            h->points[s] = hand_points(c, L, s);
        L->scores[s] += h->points[s];
    }
    L->round_index++;
    if (L->round_index >= c->r.R) {
        L->phase = OVER_PH;
        L->asked = -1;
        L->nqueue = 0;
        log_clear(c, L);
        return;
    }
    L->round = c->r.rounds[L->round_index];
    deal(c, L);
}

static void finish_draw(Core *c, Lane *L) {
    L->phase = PLAY_PH;
    L->asked = -1;
    L->nqueue = 0;
    int card = pop_stock(L);
    if (card < 0) {
        end_round(c, L, -1);
        return;
    }
    add_card(L, L->current, card);
}

static int may_claim(const Core *c, const Lane *L, int seat) {
    if (L->laid_down[seat] && !c->r.claims_after_laydown) return 0;
    return c->r.max_claims < 0 || L->claims[seat] < c->r.max_claims;
}

/* Game._do_laydown's arrangement (melds.laydown_plan, run in C by _laydown_c.h without the
 * GIL), checked against the hand but not yet laid: an error leaves the lane unchanged. */
static int laydown_melds(Core *c, Lane *L, Ctx *ctx, Meld **out, Py_ssize_t *nout) {
    int seat = L->current;
    int trios = CONTRACTS[L->round - 1][0], runs = CONTRACTS[L->round - 1][1];
    LdTableMeld table[MAXMELDS];
    for (int m = 0; m < L->ntable; m++) {
        const Meld *md = &L->table[m];
        table[m].kind = md->kind == TRIO_K ? LD_TRIO : LD_RUN;
        table[m].n = md->n;
        table[m].start = md->start;
        table[m].rank = md->rank;
        table[m].suit = md->suit;
    }
    const char *error = NULL;
    Meld *melds = NULL;
    LdPlan *plan = PyMem_RawMalloc(sizeof(LdPlan));
    int rc = plan == NULL ? LD_NOMEM
                          : ld_laydown_plan(L->hands[seat], trios, runs, c->r.min_run, c->r.wrap,
                                            c->r.pts, table, L->ntable, plan);
    if (rc == LD_NOMEM) {
        error = "";
        goto done;
    }
    if (rc != 1 || plan->nrows < 1 || L->ntable + plan->nrows > MAXMELDS) {
        error = "laydown_plan found no lay-down for a legal lay-down";
        goto done;
    }
    melds = PyMem_RawCalloc((size_t)plan->nrows, sizeof(Meld));
    if (melds == NULL) {
        error = "";
        goto done;
    }
    int left[NT];
    memcpy(left, L->hands[seat], sizeof left);
    for (int j = 0; j < plan->nrows; j++) {
        const LdRow *row = &plan->rows[j];
        Meld *md = &melds[j];
        md->owner = seat;
        md->kind = row->kind == LD_TRIO ? TRIO_K : RUN_K;
        md->start = row->kind == LD_TRIO ? 0 : row->start;
        md->rank = row->kind == LD_TRIO ? row->key : -1;
        md->suit = row->kind == LD_TRIO ? -1 : row->key;
        md->n = row->n;
        for (int i = 0; i < row->n; i++) {
            int v = row->cards[i];
            if (v < 0 || v >= NT || left[v] <= 0) {
                error = "laydown_plan returned a meld that is not in the hand";
                goto done;
            }
            left[v]--;
            md->cards[i] = (unsigned char)v;
        }
    }
    *out = melds;
    *nout = plan->nrows;
    melds = NULL;
done:
    PyMem_RawFree(plan);
    PyMem_RawFree(melds);
    if (error == NULL) return 0;
    ctx_gil(ctx);
    if (*error)
        PyErr_SetString(PyExc_RuntimeError, error);
    else
        PyErr_NoMemory();
    ctx_nogil(ctx);
    return -1;
}

/* Game._lay_down. */
static void lay_down(Lane *L, const Meld *melds, Py_ssize_t nrows) {
    int seat = L->current;
    for (Py_ssize_t j = 0; j < nrows; j++) {
        for (int i = 0; i < melds[j].n; i++) remove_card(L, seat, melds[j].cards[i]);
        L->table[L->ntable++] = melds[j];
    }
    L->laid_down[seat] = 1;
    L->laid_down_turn[seat] = L->turn;
}

static int meld_error(Ctx *ctx, const char *what) {
    ctx_gil(ctx);
    PyErr_Format(PyExc_RuntimeError, "%s: a meld outgrew its bounds (inconsistent position)",
                 what);
    ctx_nogil(ctx);
    return -1;
}

/* Game._perform for a legal action; -1 with a Python error (has_contract's fallback, memory). */
static int perform(Core *c, Lane *L, int a, Ctx *ctx) {
    int P = c->P;
    int actor = actor_of(L);
    int top = L->ndiscard ? L->discard[L->ndiscard - 1] : -1;
    int kind, x = 0, m = 0, dst = 0, end = 0;
    if (a < DISCARD_BASE) {
        kind = a;
    } else if (a < LAYOFF_BASE) {
        kind = K_DISCARD;
        x = a - DISCARD_BASE;
    } else if (a < c->swap_base) {
        kind = K_LAYOFF;
        m = (a - LAYOFF_BASE) / LAYOFF_SLOTS;
        x = (a - LAYOFF_BASE) % LAYOFF_SLOTS;
    } else if (a < c->move_base) {
        kind = K_SWAP;
        m = (a - c->swap_base) / SWAP_SLOTS;
        x = (a - c->swap_base) % SWAP_SLOTS;
    } else {
        kind = K_MOVE;
        int pair = (a - c->move_base) / 2;
        end = (a - c->move_base) % 2;
        m = pair / c->M;
        dst = pair % c->M;
    }
    int card = -1;
    if (kind <= A_PASS)
        card = top;
    else if (kind == K_DISCARD || kind == K_SWAP)
        card = x;
    else if (kind == K_LAYOFF)
        card = x < JK ? x : JK;
    Meld *melds = NULL;
    Py_ssize_t nmelds = 0;
    if (kind == A_LAYDOWN && laydown_melds(c, L, ctx, &melds, &nmelds) < 0) return -1;
    if (log_add(L, actor, kind, card) < 0) {
        PyMem_RawFree(melds);
        ctx_gil(ctx);
        PyErr_NoMemory();
        ctx_nogil(ctx);
        return -1;
    }
    L->last_action[actor] = a;
    L->moves++;
    L->legal_ok = 0;
    if (kind == A_LAYDOWN || kind >= K_LAYOFF) L->fits_ok = 0; /* the table changes */
    int seat = L->current;
    switch (kind) {
    case A_DRAW: {
        int q = 0;
        if (L->ndiscard)
            for (int k = 1; k < P; k++) {
                int s = (seat + k) % P;
                if (may_claim(c, L, s)) L->queue[q++] = s;
            }
        if (q) {
            L->phase = CLAIM_PH;
            L->nqueue = q;
            L->asked = L->queue[0];
        } else {
            finish_draw(c, L);
        }
        break;
    }
    case A_TAKE: {
        int t = L->discard[--L->ndiscard];
        add_card(L, seat, t);
        L->known[seat][t]++;
        L->phase = PLAY_PH;
        break;
    }
    case A_CLAIM: {
        int who = L->asked;
        int t = L->discard[--L->ndiscard];
        add_card(L, who, t);
        L->known[who][t]++;
        L->claims[who]++;
        int penalty = pop_stock(L);
        if (penalty >= 0) add_card(L, who, penalty);
        finish_draw(c, L);
        break;
    }
    case A_PASS:
        memmove(L->queue, L->queue + 1, (size_t)(L->nqueue - 1) * sizeof(int));
        L->nqueue--;
        if (L->nqueue)
            L->asked = L->queue[0];
        else
            finish_draw(c, L);
        break;
    case A_LAYDOWN:
        lay_down(L, melds, nmelds);
        PyMem_RawFree(melds);
        break;
    case A_CLOSE: {
        int t = 0;
        while (t < NT && !L->hands[seat][t]) t++;
        if (t < NT) {
            remove_card(L, seat, t);
            L->discard[L->ndiscard++] = (unsigned char)t;
        }
        end_round(c, L, seat);
        break;
    }
    case K_DISCARD:
        remove_card(L, seat, x);
        L->discard[L->ndiscard++] = (unsigned char)x;
        L->seen[x]++;
        L->turn++;
        L->joker_moved = 0;
        if (L->turn >= c->r.max_turns) {
            end_round(c, L, -1);
            break;
        }
        L->current = (seat + 1) % P;
        L->phase = DRAW_PH;
        break;
    case K_LAYOFF:
        if (x >= SLOT_JOKER) {
            remove_card(L, seat, JK);
            L->jokers_owed = L->jokers_owed - 1 > 0 ? L->jokers_owed - 1 : 0;
            if (lay_off(&c->r, &L->table[m], JK, x == SLOT_JOKER_LOW ? LOW_E : HIGH_E) < 0)
                return meld_error(ctx, "layoff");
        } else {
            remove_card(L, seat, x);
            if (lay_off(&c->r, &L->table[m], x, NO_E) < 0) return meld_error(ctx, "layoff");
        }
        break;
    case K_SWAP: {
        remove_card(L, seat, x);
        int i = joker_for(&L->table[m], x);
        if (i >= 0) L->table[m].cards[i] = (unsigned char)x;
        add_card(L, seat, JK);
        L->known[seat][JK]++;
        if (c->r.swapped_laid_off) L->jokers_owed++;
        break;
    }
    case K_MOVE: {
        int from = end_joker(&L->table[m]);
        take_end_joker(&c->r, &L->table[m], from);
        if (extend_run(&c->r, &L->table[dst], JK, end) < 0) return meld_error(ctx, "movejoker");
        L->joker_moved = 1;
        break;
    }
    }
    return 0;
}

/* ------------------------------------------------------------------------- observation */

static int obs_size(int P) { return 65 * (2 * P + 3) + 14 + 4 * P; }

/* features.encode_features(game, seat) of the continental_v1 observation, after the v0 part
 * (the one implementation in _features_c.h, fed from the lane's arrays). */
static void write_features(const Core *c, Lane *L, float *out, int seat) {
    int P = c->P;
    int deck[NT], shown[NT] = {0}, last_seat[FEAT_HISTORY], last_kind[FEAT_HISTORY],
        last_card[FEAT_HISTORY];
    int decks = c->r.decks[L->round_index < c->r.R ? L->round_index : c->r.R - 1];
    for (int k = 0; k < NT; k++) deck[k] = k == JK ? decks * c->r.jokers_per_deck : decks;
    /* the cards face up, counted where they lie (the features read only the pile's top) */
    for (int k = 0; k < L->ndiscard; k++) shown[L->discard[k]]++;
    for (int m = 0; m < L->ntable; m++)
        for (int i = 0; i < L->table[m].n; i++) shown[L->table[m].cards[i]]++;
    int top = L->ndiscard ? L->discard[L->ndiscard - 1] : -1;
    int live = L->phase != OVER_PH;
    int n_last = 0;
    if (live) {
        Py_ssize_t first = L->nlog > FEAT_HISTORY ? L->nlog - FEAT_HISTORY : 0;
        for (Py_ssize_t k = first; k < L->nlog; k++, n_last++) {
            last_seat[n_last] = L->log[k].seat;
            last_kind[n_last] = L->log[k].kind;
            last_card[n_last] = L->log[k].card;
        }
    }
    int trios = CONTRACTS[L->round - 1][0], runs = CONTRACTS[L->round - 1][1];
    const HandAnalysis *analysis = NULL;
    if (live && !L->laid_down[seat]) { /* the features read the analysis: cached per seat */
        if (!(L->ha_ok[seat] && L->ha_trios[seat] == trios && L->ha_runs[seat] == runs &&
              memcmp(L->ha_hand[seat], L->hands[seat], sizeof L->ha_hand[seat]) == 0)) {
            L->ha_ok[seat] = hand_analysis_c(L->hands[seat], trios, runs, c->r.min_run,
                                             c->r.wrap, &L->ha[seat]) == 0;
            memcpy(L->ha_hand[seat], L->hands[seat], sizeof L->ha_hand[seat]);
            L->ha_trios[seat] = trios;
            L->ha_runs[seat] = runs;
        }
        if (L->ha_ok[seat]) analysis = &L->ha[seat];
    }
    FeatInput in = {
        .p = P,
        .seat = seat,
        .trios = CONTRACTS[L->round - 1][0],
        .runs = CONTRACTS[L->round - 1][1],
        .min_run = c->r.min_run,
        .wrap = c->r.wrap,
        .live = live,
        .laid_down_self = L->laid_down[seat],
        .hand = L->hands[seat],
        .deck = deck,
        .discard = &top,
        .n_discard = L->ndiscard ? 1 : 0,
        .shown = shown,
        .known = &L->known[0][0],
        .hand_sizes = L->hand_sizes,
        .laid_down = L->laid_down,
        .claims = L->claims,
        .points50 = c->points50,
        .has_log = live,
        .discarded = &L->lg_discarded[0][0],
        .declined = &L->lg_declined[0][0],
        .takes = L->lg_takes,
        .discards = L->lg_discards,
        .last_seat = last_seat,
        .last_kind = last_kind,
        .last_card = last_card,
        .n_last = n_last,
        .analysis = analysis,
    };
    features_write(&in, out);
}

/* aec.encode_observation(game, seat, observation_layout(P, 0)) (_obs_c.h, shared with the
 * kernels' encode_observation), and for v1 the features. */
static void write_obs(const Core *c, Lane *L, float *obs, int seat) {
    int P = c->P;
    if (seat < 0) {
        memset(obs, 0, (size_t)c->obs_dim * sizeof(float));
        return;
    }
    int owner[MAXMELDS], len[MAXMELDS];
    const unsigned char *cards[MAXMELDS];
    for (int m = 0; m < L->ntable; m++) {
        owner[m] = L->table[m].owner;
        len[m] = L->table[m].n;
        cards[m] = L->table[m].cards;
    }
    const int *fits = fitting_counts(c, L);
    ObsInput in = {
        .p = P,
        .seat = seat,
        .hand = L->hands[seat],
        .discard_top = L->ndiscard && L->phase != OVER_PH ? L->discard[L->ndiscard - 1] : -1,
        .seen = L->seen,
        .known = &L->known[0][0],
        .n_melds = L->ntable,
        .meld_owner = owner,
        .meld_len = len,
        .meld_cards = cards,
        .fits = fits,
        .round = (int)L->round,
        .phase = L->phase != OVER_PH ? L->phase : -1,
        .trios = CONTRACTS[L->round - 1][0],
        .runs = CONTRACTS[L->round - 1][1],
        .hand_sizes = L->hand_sizes,
        .laid_down = L->laid_down,
        .scores = L->scores,
        .claims = L->claims,
        .stock = L->nstock,
        .turn = L->turn,
        .max_turns = c->r.max_turns,
    };
    obs_v0_write(&in, obs); /* obs_dim == v0_dim for v0; the features zero their own part */
    if (c->version == 1) write_features(c, L, obs + c->v0_dim, seat);
}

/* ------------------------------------------------------------------------- buffers */

typedef struct {
    Py_buffer view;
    int held;
} Buf;

static void buf_release(Buf *b) {
    if (b->held) PyBuffer_Release(&b->view);
    b->held = 0;
}

/* kind: 'f' float32, 'b' bool/uint8, 'q' int64, 'i' int32. */
static int format_ok(const Py_buffer *v, char kind) {
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    if (f[0] == '\0' || f[1] != '\0') return 0;
    switch (kind) {
    case 'f':
        return f[0] == 'f' && v->itemsize == 4;
    case 'b':
        return (f[0] == '?' || f[0] == 'B') && v->itemsize == 1;
    case 'q':
        return (f[0] == 'l' || f[0] == 'q') && v->itemsize == 8;
    case 'i':
        return (f[0] == 'i' || f[0] == 'l') && v->itemsize == 4;
    case 'd':
        return f[0] == 'd' && v->itemsize == 8;
    }
    return 0;
}

static const char *kind_name(char kind) {
    switch (kind) {
    case 'f':
        return "float32";
    case 'b':
        return "bool or uint8";
    case 'q':
        return "int64";
    case 'd':
        return "float64";
    default:
        return "int32";
    }
}

/* A C-contiguous array of `kind` and shape (d0,) or (d0, d1) (d1 < 0: one dimension). */
static int get_buf(PyObject *obj, Buf *b, const char *name, char kind, Py_ssize_t d0,
                   Py_ssize_t d1, int writable) {
    b->held = 0;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s must be a C-contiguous%s %s numpy array", name,
                     writable ? " writable" : "", kind_name(kind));
        return -1;
    }
    b->held = 1;
    if (!format_ok(&b->view, kind)) {
        PyErr_Format(PyExc_TypeError, "%s must have dtype %s, got format %s", name,
                     kind_name(kind), b->view.format ? b->view.format : "B");
        buf_release(b);
        return -1;
    }
    int nd = d1 < 0 ? 1 : 2;
    if (b->view.ndim != nd || b->view.shape[0] != d0 || (nd == 2 && b->view.shape[1] != d1)) {
        if (nd == 1)
            PyErr_Format(PyExc_ValueError, "%s must have shape (%zd,)", name, d0);
        else
            PyErr_Format(PyExc_ValueError, "%s must have shape (%zd, %zd)", name, d0, d1);
        buf_release(b);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------- the type */

static int core_busy(Core *c) {
    if (c->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the core is busy (a call is in progress)");
        return 1;
    }
    if (c->laydown_plan == NULL || c->has_contract_slow == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the core's callbacks were cleared");
        return 1;
    }
    return 0;
}

/* The callbacks may close over an object that holds the core: the cycle collector sees them. */
static int core_traverse(Core *c, visitproc visit, void *arg) {
    Py_VISIT(c->laydown_plan);
    Py_VISIT(c->has_contract_slow);
    return 0;
}

static int core_clear(Core *c) {
    Py_CLEAR(c->laydown_plan);
    Py_CLEAR(c->has_contract_slow);
    return 0;
}

/* The lanes' memory: one zeroed block. On Linux, mapped and marked for transparent huge pages
 * (a batch of 1,024 lanes spans tens of MB, read a few lines per lane per step: with 4 KB pages
 * most of those reads also miss the TLB). Elsewhere, or when mapping fails, calloc. */
static void *lanes_alloc(size_t bytes, int *mapped) {
    *mapped = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: no result depends on it */
        *mapped = 1;
        return p;
    }
#endif
    return PyMem_RawCalloc(1, bytes);
}

static void lanes_free(void *p, size_t bytes, int mapped) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (mapped) {
        munmap(p, bytes);
        return;
    }
#endif
    (void)bytes;
    (void)mapped;
    PyMem_RawFree(p);
}

static void core_dealloc(Core *c) {
    PyObject_GC_UnTrack(c);
    if (c->lanes) {
        for (int i = 0; i < c->N; i++) {
            PyMem_RawFree(c->lanes[i].log);
        }
        if (c->legal_block)
            lanes_free(c->legal_block, (size_t)c->N * c->num_actions * sizeof(int), c->legal_mapped);
        lanes_free(c->lanes, (size_t)c->N * sizeof(Lane), c->lanes_mapped);
    }
    PyMem_RawFree(c->bot_work);
    core_clear(c);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int read_int(PyObject *obj, long long lo, long long hi, const char *what, long long *out) {
    int overflow = 0;
    long long v = PyLong_Check(obj) && !PyBool_Check(obj)
                      ? PyLong_AsLongLongAndOverflow(obj, &overflow)
                      : 0;
    if (!PyLong_Check(obj) || PyBool_Check(obj) || overflow || v < lo || v > hi) {
        if (PyErr_Occurred()) PyErr_Clear();
        PyObject *r = PyObject_Repr(obj);
        PyErr_Format(PyExc_ValueError, "%s = %s must be an integer in %lld..%lld", what,
                     r ? PyUnicode_AsUTF8(r) : "?", lo, hi);
        Py_XDECREF(r);
        return -1;
    }
    *out = v;
    return 0;
}

static PyObject *core_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"num_games",    "num_players",       "rules",   "seed",
                             "laydown_plan", "has_contract_slow", "version", NULL};
    Py_ssize_t N;
    int P, version = 0;
    PyObject *rules, *seed, *plan, *slow;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "niOOOO|i", kwlist, &N, &P, &rules, &seed, &plan,
                                     &slow, &version))
        return NULL;
    if (version != 0 && version != 1) {
        PyErr_Format(PyExc_ValueError, "version = %d: the observation is 0 (v0) or 1 (v1)",
                     version);
        return NULL;
    }
    if (N < 1 || N > (1 << 20)) {
        PyErr_Format(PyExc_ValueError, "num_games = %zd must be in 1..%d", N, 1 << 20);
        return NULL;
    }
    if (P < 2 || P > MAXP) {
        PyErr_Format(PyExc_ValueError, "num_players = %d must be in 2..%d", P, MAXP);
        return NULL;
    }
    /* laydown_plan is no longer called (the lay-down is _laydown_c.h's): None or any callable
     * is accepted, so that callers written for the callback keep working */
    if ((plan != Py_None && !PyCallable_Check(plan)) || !PyCallable_Check(slow)) {
        PyErr_SetString(PyExc_TypeError,
                        "laydown_plan must be None or callable (unused), has_contract_slow callable");
        return NULL;
    }
    PyObject *index = PyNumber_Index(seed); /* ints and numpy integers */
    if (index == NULL) return NULL;
    PyObject *mask = PyLong_FromUnsignedLongLong(~0ULL);
    PyObject *reduced = mask ? PyNumber_And(index, mask) : NULL;
    Py_XDECREF(mask);
    Py_DECREF(index);
    if (reduced == NULL) return NULL;
    uint64_t seed64 = PyLong_AsUnsignedLongLong(reduced);
    Py_DECREF(reduced);
    if (PyErr_Occurred()) return NULL;

    Rules r;
    memset(&r, 0, sizeof r);
    PyObject *seq = PySequence_Fast(rules, "rules must be a tuple of ints");
    if (seq == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **it = PySequence_Fast_ITEMS(seq);
    static const char *names[11] = {"min_run",
                                    "ace_wraparound",
                                    "joker_rule",
                                    "swap_run_jokers_only",
                                    "swapped_joker_laid_off",
                                    "discard_restriction",
                                    "one_turn_bonus",
                                    "claims_after_laydown",
                                    "max_claims_per_round",
                                    "max_turns_per_round",
                                    "jokers_per_deck"};
    static const long long lo[11] = {3, 0, 0, 0, 0, 0, -10000, 0, -1, 1, 0};
    static const long long hi[11] = {12, 1, 1, 1, 1, 1, 10000, 1, 1000000000, 1000000000, 6};
    long long v[11], R;
    char what[64];
    if (n < 11 + NT + 1) {
        PyErr_Format(PyExc_ValueError, "rules holds %zd ints, expected at least %d", n,
                     11 + NT + 1 + 2);
        goto fail;
    }
    for (int k = 0; k < 11; k++) {
        snprintf(what, sizeof what, "rules %s", names[k]);
        if (read_int(it[k], lo[k], hi[k], what, &v[k]) < 0) goto fail;
    }
    for (int k = 0; k < NT; k++) {
        long long p;
        snprintf(what, sizeof what, "rules card points[%d]", k);
        if (read_int(it[11 + k], 0, 10000, what, &p) < 0) goto fail;
        r.pts[k] = (int)p;
    }
    if (read_int(it[11 + NT], 1, MAXROUNDS, "rules number of rounds", &R) < 0) goto fail;
    if (n != 11 + NT + 1 + 2 * R) {
        PyErr_Format(PyExc_ValueError, "rules holds %zd ints, expected %lld for %lld rounds", n,
                     11 + NT + 1 + 2 * R, R);
        goto fail;
    }
    r.min_run = (int)v[0];
    r.wrap = (int)v[1];
    r.joker_rule = (int)v[2];
    r.swap_run_only = (int)v[3];
    r.swapped_laid_off = (int)v[4];
    r.discard_restriction = (int)v[5];
    r.one_turn_bonus = (int)v[6];
    r.claims_after_laydown = (int)v[7];
    r.max_claims = (int)v[8];
    r.max_turns = (int)v[9];
    r.jokers_per_deck = (int)v[10];
    r.R = (int)R;
    for (int k = 0; k < R; k++) {
        long long x, d;
        snprintf(what, sizeof what, "rules round[%d]", k);
        if (read_int(it[12 + NT + k], 1, 7, what, &x) < 0) goto fail;
        snprintf(what, sizeof what, "rules decks[%d]", k);
        if (read_int(it[12 + NT + R + k], 1, MAXDECKS, what, &d) < 0) goto fail;
        r.rounds[k] = (int)x;
        r.decks[k] = (int)d;
        if (d * (52 + r.jokers_per_deck) < P * (6 + x) + 1) {
            PyErr_Format(PyExc_ValueError,
                         "rules decks[%d] = %lld deal too few cards for %d players in round %lld",
                         k, d, P, x);
            goto fail;
        }
    }
    Py_DECREF(seq);

    Core *c = (Core *)type->tp_alloc(type, 0);
    if (c == NULL) return NULL;
    c->N = (int)N;
    c->P = P;
    c->M = 3 * P;
    c->swap_base = LAYOFF_BASE + LAYOFF_SLOTS * c->M;
    c->move_base = c->swap_base + SWAP_SLOTS * c->M;
    c->num_actions = c->move_base + 2 * c->M * c->M;
    c->version = version;
    c->v0_dim = obs_size(P);
    c->obs_dim = c->v0_dim + (version == 1 ? features_size(P) : 0);
    c->r = r;
    for (int k = 0; k < NT; k++) c->points50[k] = (float)r.pts[k] / 50.0f;
    c->seed = seed64;
    bots_partner_table(r.min_run, r.wrap, c->partners);
    c->bot_perturb = 0;
    Py_INCREF(plan);
    c->laydown_plan = plan;
    Py_INCREF(slow);
    c->has_contract_slow = slow;
    c->lanes = lanes_alloc((size_t)N * sizeof(Lane), &c->lanes_mapped);
    if (c->lanes == NULL) {
        Py_DECREF(c);
        return PyErr_NoMemory();
    }
    c->legal_block = lanes_alloc((size_t)N * c->num_actions * sizeof(int), &c->legal_mapped);
    if (c->legal_block == NULL) {
        Py_DECREF(c);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < N; i++) {
        c->lanes[i].legal = c->legal_block + (size_t)i * c->num_actions;
        new_game(c, &c->lanes[i], i, 0);
    }
    return (PyObject *)c;
fail:
    Py_DECREF(seq);
    return NULL;
}

static PyObject *core_reset_all(Core *c, PyObject *unused) {
    if (core_busy(c)) return NULL;
    for (int i = 0; i < c->N; i++) new_game(c, &c->lanes[i], i, 0);
    Py_RETURN_NONE;
}

/* Ask for lane i's output rows (observation and mask) and its most-read lines ahead of their
 * use: a large batch's rows and lanes are out of cache, and a store to a line not in cache
 * waits for it, so each lane's step asks for the next lane's while it plays. A hint only: no
 * result depends on it. */
static inline void prefetch_bytes(const void *start, size_t bytes) {
    const char *p = (const char *)start;
    for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o, 1, 3);
}

static inline void prefetch_rows(const Core *c, const float *obs, const unsigned char *mask, int i) {
    if (i >= c->N) return;
    /* the lane's top discard and public log's tail (single lines its action reads first),
     * then its first lines (its scalars, hands, seen cards and fitting counts), the rows it
     * writes, the known cards and the log's totals */
    const Lane *L = &c->lanes[i];
    if (L->ndiscard) __builtin_prefetch(L->discard + L->ndiscard - 1, 1, 3);
    if (L->log) __builtin_prefetch(L->log + L->nlog, 1, 3);
    prefetch_bytes(L, offsetof(Lane, known));
    prefetch_bytes(obs + (size_t)i * c->obs_dim, (size_t)c->obs_dim * sizeof(float));
    prefetch_bytes(mask + (size_t)i * c->num_actions, (size_t)c->num_actions);
    prefetch_bytes(L->known, (size_t)c->P * sizeof L->known[0]);
    if (c->version != 1) {
        prefetch_bytes(L->lg_discarded, sizeof L->lg_discarded);
        return;
    }
    /* v1: the log's totals of the table's seats, and the cached hand analysis of the seat to
     * act now and of the next (who acts after a discard) */
    prefetch_bytes(L->lg_discarded, (size_t)c->P * sizeof L->lg_discarded[0]);
    prefetch_bytes(L->lg_declined, (size_t)c->P * sizeof L->lg_declined[0]);
    __builtin_prefetch(L->ha_ok, 1, 3);
    int seat = actor_of(L);
    if (seat < 0) return;
    prefetch_bytes(L->ha_hand[seat], sizeof L->ha_hand[seat]);
    prefetch_bytes(L->ha_hand[(seat + 1) % c->P], sizeof L->ha_hand[0]);
}

/* Write lane i's observation, mask row and actor; -1 with a Python error. */
static int write_lane(Core *c, int i, float *obs, unsigned char *mask, int64_t *actor, Ctx *ctx) {
    Lane *L = &c->lanes[i];
    if (ensure_legal(c, L, ctx) < 0) return -1;
    int seat = actor_of(L);
    write_obs(c, L, obs + (size_t)i * c->obs_dim, seat);
    unsigned char *row = mask + (size_t)i * c->num_actions;
    memset(row, 0, (size_t)c->num_actions);
    for (int k = 0; k < L->nlegal; k++) row[L->legal[k]] = 1;
    actor[i] = seat;
    return 0;
}

static PyObject *core_write(Core *c, PyObject *args) {
    PyObject *o_obs, *o_mask, *o_actor;
    if (!PyArg_ParseTuple(args, "OOO", &o_obs, &o_mask, &o_actor)) return NULL;
    if (core_busy(c)) return NULL;
    Buf b[3];
    memset(b, 0, sizeof b);
    PyObject *ret = NULL;
    if (get_buf(o_obs, &b[0], "obs", 'f', c->N, c->obs_dim, 1) < 0 ||
        get_buf(o_mask, &b[1], "mask", 'b', c->N, c->num_actions, 1) < 0 ||
        get_buf(o_actor, &b[2], "actor", 'q', c->N, -1, 1) < 0)
        goto done;
    c->busy = 1;
    Ctx ctx = {NULL};
    ctx_nogil(&ctx);
    int err = 0;
    for (int i = 0; i < c->N && !err; i++)
        err = write_lane(c, i, b[0].view.buf, b[1].view.buf, b[2].view.buf, &ctx) < 0;
    ctx_gil(&ctx);
    c->busy = 0;
    if (!err) ret = Py_NewRef(Py_None);
done:
    for (int k = 0; k < 3; k++) buf_release(&b[k]);
    return ret;
}

static PyObject *core_step(Core *c, PyObject *args) {
    PyObject *o[9];
    o[8] = Py_None;
    if (!PyArg_ParseTuple(args, "OOOOOOOO|O", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6],
                          &o[7], &o[8]))
        return NULL;
    if (core_busy(c)) return NULL;
    Buf b[9];
    memset(b, 0, sizeof b);
    PyObject *ret = NULL;
    int N = c->N, P = c->P;
    if (get_buf(o[0], &b[0], "actions", 'q', N, -1, 0) < 0 ||
        get_buf(o[1], &b[1], "obs", 'f', N, c->obs_dim, 1) < 0 ||
        get_buf(o[2], &b[2], "mask", 'b', N, c->num_actions, 1) < 0 ||
        get_buf(o[3], &b[3], "actor", 'q', N, -1, 1) < 0 ||
        get_buf(o[4], &b[4], "round_points", 'i', N, P, 1) < 0 ||
        get_buf(o[5], &b[5], "round_end", 'b', N, -1, 1) < 0 ||
        get_buf(o[6], &b[6], "done", 'b', N, -1, 1) < 0 ||
        get_buf(o[7], &b[7], "final_scores", 'i', N, P, 1) < 0 ||
        (o[8] != Py_None && get_buf(o[8], &b[8], "active", 'b', N, -1, 0) < 0))
        goto done;
    const int64_t *actions = b[0].view.buf;
    /* active[i] == 0: lane i is not stepped, reports nothing, and its rows show its position */
    const unsigned char *active = o[8] != Py_None ? b[8].view.buf : NULL;
    int32_t *round_points = b[4].view.buf, *final_scores = b[7].view.buf;
    unsigned char *round_end = b[5].view.buf, *done_out = b[6].view.buf;
    c->busy = 1;
    Ctx ctx = {NULL};
    ctx_nogil(&ctx);
    long long bad = -1;
    int err = 0;
    /* Every lane's action first: an illegal one changes nothing anywhere. */
    for (int i = 0; i < N && !err; i++) {
        Lane *L = &c->lanes[i];
        if (i + 4 < N) { /* a later lane's scalars and legal ids, read next at their turn */
            __builtin_prefetch(&c->lanes[i + 4], 0, 3);
            __builtin_prefetch(c->lanes[i + 4].legal, 0, 3);
        }
        if (ensure_legal(c, L, &ctx) < 0) {
            err = 1;
            break;
        }
        int64_t a = actions[i];
        if (active && !active[i]) continue;
        if (a < 0 || a >= c->num_actions || !is_legal(L, a)) {
            bad = i;
            break;
        }
    }
    for (int i = 0; i < N && !err && bad < 0; i++) {
        Lane *L = &c->lanes[i];
        prefetch_rows(c, b[1].view.buf, b[2].view.buf, i + 1);
        if (active && !active[i]) {
            round_end[i] = 0;
            done_out[i] = 0;
            for (int s = 0; s < P; s++) round_points[i * P + s] = final_scores[i * P + s] = 0;
            if (write_lane(c, i, b[1].view.buf, b[2].view.buf, b[3].view.buf, &ctx) < 0) err = 1;
            continue;
        }
        int before = L->nhist;
        if (perform(c, L, (int)actions[i], &ctx) < 0) {
            err = 1;
            break;
        }
        int ended = L->nhist > before;
        round_end[i] = (unsigned char)ended;
        for (int s = 0; s < P; s++)
            round_points[i * P + s] = ended ? (int32_t)L->hist[L->nhist - 1].points[s] : 0;
        int over = L->phase == OVER_PH;
        done_out[i] = (unsigned char)over;
        for (int s = 0; s < P; s++) final_scores[i * P + s] = over ? (int32_t)L->scores[s] : 0;
        if (over) new_game(c, L, i, L->game_index + 1);
        if (write_lane(c, i, b[1].view.buf, b[2].view.buf, b[3].view.buf, &ctx) < 0) err = 1;
    }
    ctx_gil(&ctx);
    c->busy = 0;
    if (!err) ret = PyLong_FromLongLong(bad);
done:
    for (int k = 0; k < 9; k++) buf_release(&b[k]);
    return ret;
}

/* One uniformly random legal action per lane: the k-th legal id (ascending), k = floor(u * n)
 * for the lane's uniform u in [0, 1) (BatchGame.random_legal; the reference does the same). */
/* Privileged: every other seat's hand as card counts, seats in order after the lane's actor
 * (out float32, (N, (P - 1) * NT); zeros in a lane loaded with a finished game). What no
 * observation shows: for a critic during training, never for a decision. */
static PyObject *core_hidden_hands(Core *c, PyObject *args) {
    PyObject *o_out;
    if (!PyArg_ParseTuple(args, "O", &o_out)) return NULL;
    if (core_busy(c)) return NULL;
    Buf b;
    if (get_buf(o_out, &b, "out", 'f', c->N, (Py_ssize_t)(c->P - 1) * NT, 1) < 0) return NULL;
    float *out = b.view.buf;
    for (int i = 0; i < c->N; i++) {
        const Lane *L = &c->lanes[i];
        float *row = out + (size_t)i * (c->P - 1) * NT;
        int seat = actor_of(L);
        for (int j = 1; j < c->P; j++) {
            const int *hand = L->hands[seat < 0 ? 0 : (seat + j) % c->P];
            for (int k = 0; k < NT; k++) row[(j - 1) * NT + k] = seat < 0 ? 0.0f : (float)hand[k];
        }
    }
    buf_release(&b);
    Py_RETURN_NONE;
}

static PyObject *core_sample_legal(Core *c, PyObject *args) {
    PyObject *o_u, *o_out;
    if (!PyArg_ParseTuple(args, "OO", &o_u, &o_out)) return NULL;
    if (core_busy(c)) return NULL;
    Buf b[2];
    memset(b, 0, sizeof b);
    PyObject *ret = NULL;
    if (get_buf(o_u, &b[0], "uniform", 'd', c->N, -1, 0) < 0 ||
        get_buf(o_out, &b[1], "out", 'q', c->N, -1, 1) < 0)
        goto done;
    const double *u = b[0].view.buf;
    int64_t *out = b[1].view.buf;
    for (int i = 0; i < c->N; i++) {
        if (!(u[i] >= 0.0 && u[i] < 1.0)) {
            PyErr_Format(PyExc_ValueError, "uniform[%d] is not in [0, 1)", i);
            goto done;
        }
    }
    c->busy = 1;
    int err = 0;
    for (int i = 0; i < c->N && !err; i++) {
        Lane *L = &c->lanes[i];
        if (ensure_legal(c, L, NULL) < 0) {
            err = 1;
            break;
        }
        if (L->nlegal == 0) {
            out[i] = -1; /* a finished game loaded on the lane: no action */
            continue;
        }
        int k = (int)(u[i] * L->nlegal);
        out[i] = L->legal[k < L->nlegal ? k : L->nlegal - 1];
    }
    c->busy = 0;
    if (!err) ret = Py_NewRef(Py_None);
done:
    for (int k = 0; k < 2; k++) buf_release(&b[k]);
    return ret;
}

/* ------------------------------------------------------------------------- bots */

/* The bots' has_contract: the lane's rules and the GIL state (its rare fallback calls Python). */
typedef struct {
    Core *c;
    Ctx *ctx;
    int failed; /* the fallback raised: the Python error is set */
} BotEnv;

static int bot_has_contract(void *env, const int *counts, int trios, int runs) {
    BotEnv *e = env;
    int h = has_contract(e->c, counts, trios, runs, e->ctx);
    if (h < 0) e->failed = 1;
    return h;
}

/* Seat `seat`'s PlayerView of lane L as the bots read it: the rules, its own hand and the
 * public fields; no other hand and no stock card is reachable from `v`. */
static void bot_view(Core *c, const Lane *L, int seat, int *deck, BotEnv *env, BotView *v) {
    int decks = c->r.decks[L->round_index];
    for (int k = 0; k < NT; k++) deck[k] = k == JK ? decks * c->r.jokers_per_deck : decks;
    v->r = &c->r;
    v->partners = (const unsigned char(*)[NT])c->partners;
    v->P = c->P;
    v->seat = seat;
    v->phase = L->phase;
    v->trios = CONTRACTS[L->round - 1][0];
    v->runs = CONTRACTS[L->round - 1][1];
    v->turn = L->turn;
    v->stock_size = L->nstock;
    v->hand_size = L->hand_sizes[seat];
    v->swap_base = c->swap_base;
    v->move_base = c->move_base;
    v->hand = L->hands[seat];
    v->hand_sizes = L->hand_sizes;
    v->laid_down = L->laid_down;
    v->known = (const int(*)[NT])L->known;
    v->discard = L->discard;
    v->ndiscard = L->ndiscard;
    v->table = L->table;
    v->ntable = L->ntable;
    v->discarded = (const int(*)[NT])L->lg_discarded;
    v->declined = (const int(*)[NT])L->lg_declined;
    v->deck = deck;
    v->legal = L->legal;
    v->nlegal = L->nlegal;
    v->has_contract = bot_has_contract;
    v->env = env;
    v->perturb = c->bot_perturb;
}

static const char *BOT_NAMES[BOT_KINDS] = {"greedy", "strong@v1", "strong@v2"};

/* The action of lane i's seat to act by its bot (kinds: the lane's row of P bot kinds);
 * -1 with a Python error. */
static int lane_bot_action(Core *c, int i, const int *kinds, BotWork *w, BotEnv *env,
                           int *action) {
    Lane *L = &c->lanes[i];
    if (ensure_legal(c, L, env->ctx) < 0) return -1;
    ensure_totals(L); /* the bots read the log's totals */
    int seat = actor_of(L);
    if (seat < 0) {
        *action = -1; /* a finished game loaded on the lane: no action */
        return 0;
    }
    int deck[NT];
    BotView v;
    bot_view(c, L, seat, deck, env, &v);
    int kind = kinds[seat];
    int a = bot_act(&v, kind, w);
    if (env->failed) return -1;
    if (a < 0 || !is_legal(L, a)) {
        ctx_gil(env->ctx);
        PyErr_Format(PyExc_RuntimeError, "lane %d: bot %s of seat %d %s", i, BOT_NAMES[kind],
                     seat, a < 0 ? "found no action to take" : "chose an illegal action");
        ctx_nogil(env->ctx);
        return -1;
    }
    *action = a;
    return 0;
}

/* `kinds` (int8 or int32, shape (P,) or (N, P), each -1..2) into out[N * P]. */
static int read_kinds(Core *c, PyObject *obj, int *out) {
    Py_buffer v;
    if (PyObject_GetBuffer(obj, &v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "kinds must be a C-contiguous int8 or int32 numpy array");
        return -1;
    }
    const char *f = v.format ? v.format : "B";
    if (*f == '@' || *f == '=' || *f == '<') f++;
    int i8 = f[0] == 'b' && f[1] == '\0' && v.itemsize == 1;
    int i32 = (f[0] == 'i' || f[0] == 'l') && f[1] == '\0' && v.itemsize == 4;
    int rc = -1, N = c->N, P = c->P;
    if (!i8 && !i32) {
        PyErr_Format(PyExc_TypeError, "kinds must have dtype int8 or int32, got format %s", f);
        goto done;
    }
    int per_lane = v.ndim == 2;
    if (!((v.ndim == 1 && v.shape[0] == P) || (per_lane && v.shape[0] == N && v.shape[1] == P))) {
        PyErr_Format(PyExc_ValueError, "kinds must have shape (%d,) or (%d, %d)", P, N, P);
        goto done;
    }
    for (int i = 0; i < (per_lane ? N : 1); i++)
        for (int s = 0; s < P; s++) {
            Py_ssize_t k = (Py_ssize_t)i * P + s;
            int x = i8 ? ((const signed char *)v.buf)[k] : ((const int32_t *)v.buf)[k];
            if (x < -1 || x >= BOT_KINDS) {
                PyErr_Format(PyExc_ValueError,
                             "kinds[%zd] = %d must be -1 (no bot) or 0..2 (greedy, strong@v1, "
                             "strong@v2)",
                             k, x);
                goto done;
            }
            out[k] = x;
        }
    if (!per_lane)
        for (int i = 1; i < N; i++) memcpy(out + (size_t)i * P, out, sizeof(int) * (size_t)P);
    rc = 0;
done:
    PyBuffer_Release(&v);
    return rc;
}

/* Every lane to decide (active, live) has a bot at its seat to act (all_seats: at every
 * seat, for play_out): else ValueError. */
static int kinds_cover(Core *c, const int *kinds, const unsigned char *active, int all_seats) {
    for (int i = 0; i < c->N; i++) {
        if (active && !active[i]) continue;
        int actor = actor_of(&c->lanes[i]);
        for (int s = 0; s < c->P; s++) {
            if (kinds[(size_t)i * c->P + s] >= 0 || (!all_seats && s != actor) || actor < 0)
                continue;
            PyErr_Format(PyExc_ValueError, "kinds[%d, %d] = -1: seat %d of lane %d %s", i, s, s,
                         i, all_seats ? "plays in play_out and has no bot" : "is to act and has no bot");
            return -1;
        }
    }
    return 0;
}

/* The arguments both bot methods share: kinds, then an out array, then optional active. */
typedef struct {
    int *kinds;
    Buf out, active;
    BotWork *work; /* the core's */
} BotArgs;

static void bot_args_free(BotArgs *a) {
    PyMem_RawFree(a->kinds);
    buf_release(&a->out);
    buf_release(&a->active);
}

static int bot_args(Core *c, PyObject *kinds, PyObject *out, const char *out_name, Py_ssize_t d1,
                    PyObject *active, BotArgs *a, int all_seats) {
    memset(a, 0, sizeof *a);
    a->kinds = PyMem_RawMalloc(sizeof(int) * (size_t)c->N * (size_t)c->P);
    if (c->bot_work == NULL) { /* the core's one scratch area: its calls never overlap (busy) */
        c->bot_work = PyMem_RawMalloc(sizeof(BotWork));
        if (c->bot_work != NULL) { /* no run windows kept yet; the plan's counts start at 0 */
            c->bot_work->plan.win_min_run = 0;
            memset(c->bot_work->plan.need, 0, sizeof c->bot_work->plan.need);
        }
    }
    a->work = c->bot_work;
    if (a->kinds == NULL || a->work == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (read_kinds(c, kinds, a->kinds) < 0 || get_buf(out, &a->out, out_name, 'q', c->N, d1, 1) < 0 ||
        (active != Py_None && get_buf(active, &a->active, "active", 'b', c->N, -1, 0) < 0))
        return -1;
    return kinds_cover(c, a->kinds, a->active.held ? a->active.view.buf : NULL, all_seats);
}

static PyObject *core_bot_actions(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 2 || nargs > 3) {
        PyErr_Format(PyExc_TypeError, "bot_actions(kinds, out, active=None) takes 2 or 3 "
                                      "arguments, got %zd", nargs);
        return NULL;
    }
    if (core_busy(c)) return NULL;
    BotArgs a;
    PyObject *ret = NULL;
    if (bot_args(c, args[0], args[1], "out", -1, nargs > 2 ? args[2] : Py_None, &a, 0) < 0)
        goto done;
    const unsigned char *active = a.active.held ? a.active.view.buf : NULL;
    int64_t *out = a.out.view.buf;
    c->busy = 1;
    Ctx ctx = {NULL};
    ctx_nogil(&ctx);
    BotEnv env = {c, &ctx, 0};
    int err = 0;
    for (int i = 0; i < c->N && !err; i++) {
        if (active && !active[i]) continue;
        int action;
        err = lane_bot_action(c, i, a.kinds + (size_t)i * c->P, a.work, &env, &action) < 0;
        if (!err) out[i] = action;
    }
    ctx_gil(&ctx);
    c->busy = 0;
    if (!err) ret = Py_NewRef(Py_None);
done:
    bot_args_free(&a);
    return ret;
}

/* A lane plays this many actions at most in one play_out (no round of the rules comes near). */
#define PLAYOUT_MAX_ACTIONS 10000000LL

static PyObject *core_play_out(Core *c, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 && nargs != 5) {
        PyErr_Format(PyExc_TypeError, "play_out(kinds, active, until_round_end, out_points"
                                      "[, restart]) takes 4 or 5 arguments, got %zd", nargs);
        return NULL;
    }
    if (core_busy(c)) return NULL;
    int until_round_end = PyObject_IsTrue(args[2]);
    if (until_round_end < 0) return NULL;
    /* restart: a lane whose game ends starts its next one (as step); else it stays over */
    int restart = nargs == 5 ? PyObject_IsTrue(args[4]) : 1;
    if (restart < 0) return NULL;
    BotArgs a;
    PyObject *ret = NULL;
    int P = c->P;
    if (bot_args(c, args[0], args[3], "out_points", P, args[1], &a, 1) < 0) goto done;
    const unsigned char *active = a.active.held ? a.active.view.buf : NULL;
    int64_t *points = a.out.view.buf;
    c->busy = 1;
    Ctx ctx = {NULL};
    ctx_nogil(&ctx);
    BotEnv env = {c, &ctx, 0};
    int err = 0;
    for (int i = 0; i < c->N && !err; i++) {
        int64_t *row = points + (size_t)i * P;
        for (int s = 0; s < P; s++) row[s] = 0;
        if (active && !active[i]) continue;
        Lane *L = &c->lanes[i];
        const int *kinds = a.kinds + (size_t)i * P;
        for (long long n = 0; L->phase != OVER_PH && !err; n++) {
            int action, before = L->nhist;
            if (n >= PLAYOUT_MAX_ACTIONS) {
                ctx_gil(&ctx);
                PyErr_Format(PyExc_RuntimeError, "lane %d: no round end after %lld actions", i,
                             n);
                ctx_nogil(&ctx);
                err = 1;
                break;
            }
            if (lane_bot_action(c, i, kinds, a.work, &env, &action) < 0 ||
                perform(c, L, action, &ctx) < 0) {
                err = 1;
                break;
            }
            if (L->nhist == before) continue;
            for (int s = 0; s < P; s++) row[s] += L->hist[L->nhist - 1].points[s];
            if (L->phase == OVER_PH) { /* as step: a finished lane starts its next game */
                if (restart) new_game(c, L, i, L->game_index + 1);
                break;
            }
            if (until_round_end) break;
        }
    }
    ctx_gil(&ctx);
    c->busy = 0;
    if (!err) ret = Py_NewRef(Py_None);
done:
    bot_args_free(&a);
    return ret;
}

/* ------------------------------------------------------------------------- export */

static PyObject *int_list(const int *xs, int n) {
    PyObject *l = PyList_New(n);
    if (l == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(l, i, PyLong_FromLong(xs[i]));
    return l;
}

static PyObject *ll_list(const long long *xs, int n) {
    PyObject *l = PyList_New(n);
    if (l == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(l, i, PyLong_FromLongLong(xs[i]));
    return l;
}

static PyObject *uc_list(const unsigned char *xs, int n) {
    PyObject *l = PyList_New(n);
    if (l == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(l, i, PyLong_FromLong(xs[i]));
    return l;
}

static PyObject *per_seat_counts(const int (*rows)[NT], int P) {
    PyObject *l = PyList_New(P);
    if (l == NULL) return NULL;
    for (int s = 0; s < P; s++) {
        PyObject *row = int_list(rows[s], NT);
        if (row == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, s, row);
    }
    return l;
}

static PyObject *opt_int(long long v) { /* -1: None */
    return v < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(v);
}

static int put(PyObject *d, const char *key, PyObject *value) {
    if (value == NULL) return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

static PyObject *bool_list(const int *xs, int n) {
    PyObject *l = PyList_New(n);
    if (l == NULL) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(l, i, PyBool_FromLong(xs[i]));
    return l;
}

static PyObject *lane_export(Core *c, const Lane *L) {
    int P = c->P;
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    PyObject *table = PyList_New(L->ntable), *hist = PyList_New(L->nhist);
    PyObject *last = PyList_New(P), *seeds = PyList_New(c->r.R), *log = PyList_New(L->nlog);
    PyObject *words = PyTuple_New(MT_N + 1);
    if (!table || !hist || !last || !seeds || !log || !words) goto fail_lists;
    for (int m = 0; m < L->ntable; m++) {
        const Meld *md = &L->table[m];
        PyList_SET_ITEM(table, m,
                        Py_BuildValue("(isNiii)", md->owner, md->kind == TRIO_K ? "trio" : "run",
                                      uc_list(md->cards, md->n), md->start, md->rank, md->suit));
    }
    for (int h = 0; h < L->nhist; h++) {
        const History *e = &L->hist[h];
        PyList_SET_ITEM(hist, h,
                        Py_BuildValue("{s:L,s:N,s:N,s:L}", "round", e->round, "points",
                                      ll_list(e->points, P), "closer", opt_int(e->closer),
                                      "turns", e->turns));
    }
    for (int s = 0; s < P; s++) PyList_SET_ITEM(last, s, opt_int(L->last_action[s]));
    for (int k = 0; k < c->r.R; k++)
        PyList_SET_ITEM(seeds, k, PyLong_FromUnsignedLongLong(L->seeds[k]));
    for (Py_ssize_t k = 0; k < L->nlog; k++)
        PyList_SET_ITEM(log, k,
                        Py_BuildValue("(iii)", L->log[k].seat, L->log[k].kind, L->log[k].card));
    for (int k = 0; k < MT_N; k++) PyTuple_SET_ITEM(words, k, PyLong_FromUnsignedLong(L->rng.mt[k]));
    PyTuple_SET_ITEM(words, MT_N, PyLong_FromLong(L->rng.index));
    if (PyErr_Occurred()) goto fail_lists;
    if (put(d, "round", PyLong_FromLong(L->round)) ||
        put(d, "round_index", PyLong_FromLong(L->round_index)) ||
        put(d, "dealer", PyLong_FromLong(L->dealer)) ||
        put(d, "current", PyLong_FromLong(L->current)) ||
        put(d, "phase", PyUnicode_FromString(PHASES[L->phase])) ||
        put(d, "asked", opt_int(L->asked)) || put(d, "claim_queue", int_list(L->queue, L->nqueue)) ||
        put(d, "hands", per_seat_counts((const int(*)[NT])L->hands, P)) ||
        put(d, "hand_sizes", int_list(L->hand_sizes, P)) ||
        put(d, "stock", uc_list(L->stock, L->nstock)) ||
        put(d, "discard", uc_list(L->discard, L->ndiscard)) || put(d, "table", table) ||
        put(d, "laid_down", bool_list(L->laid_down, P)) ||
        put(d, "laid_down_turn", int_list(L->laid_down_turn, P)) ||
        put(d, "scores", ll_list(L->scores, P)) || put(d, "turn", PyLong_FromLong(L->turn)) ||
        put(d, "claims", int_list(L->claims, P)) ||
        put(d, "known", per_seat_counts((const int(*)[NT])L->known, P)) ||
        put(d, "seen_discards", int_list(L->seen, NT)) || put(d, "round_history", hist) ||
        put(d, "last_action", last) || put(d, "moves", PyLong_FromLongLong(L->moves)) ||
        put(d, "joker_moved", PyBool_FromLong(L->joker_moved)) ||
        put(d, "jokers_owed", PyLong_FromLong(L->jokers_owed)) ||
        put(d, "rng", Py_BuildValue("(iNO)", 3, words, Py_None)) || put(d, "deal_seeds", seeds) ||
        put(d, "public_log", log) || put(d, "game_index", PyLong_FromLongLong(L->game_index))) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
fail_lists:
    Py_XDECREF(table);
    Py_XDECREF(hist);
    Py_XDECREF(last);
    Py_XDECREF(seeds);
    Py_XDECREF(log);
    Py_XDECREF(words);
    Py_DECREF(d);
    return NULL;
}

static int lane_index(Core *c, PyObject *arg, int *out) {
    long long i;
    PyObject *index = PyBool_Check(arg) ? NULL : PyNumber_Index(arg); /* numpy integers too */
    if (index == NULL) {
        PyErr_Clear();
        index = Py_NewRef(arg);
    }
    int rc = read_int(index, 0, c->N - 1, "lane", &i);
    Py_DECREF(index);
    if (rc < 0) return -1;
    *out = (int)i;
    return 0;
}

static PyObject *core_export(Core *c, PyObject *arg) {
    int i;
    if (core_busy(c) || lane_index(c, arg, &i) < 0) return NULL;
    return lane_export(c, &c->lanes[i]);
}

/* ------------------------------------------------------------------------- load */

static PyObject *field(PyObject *d, const char *key) { /* borrowed; ValueError when missing */
    PyObject *v = PyDict_GetItemString(d, key);
    if (v == NULL) PyErr_Format(PyExc_ValueError, "load: missing field '%s'", key);
    return v;
}

/* An int in lo..hi without formatting an error label (the common case); 0 if it is not one. */
static inline int int_in_range(PyObject *obj, long long lo, long long hi, long long *out) {
    if (!PyLong_Check(obj) || PyBool_Check(obj)) return 0;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    if (v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static int get_int(PyObject *d, const char *key, long long lo, long long hi, long long *out) {
    PyObject *v = field(d, key);
    if (v == NULL) return -1;
    if (int_in_range(v, lo, hi, out)) return 0;
    char what[80];
    snprintf(what, sizeof what, "load: '%s'", key);
    return read_int(v, lo, hi, what, out);
}

static int get_opt(PyObject *d, const char *key, long long lo, long long hi, long long *out) {
    PyObject *v = field(d, key);
    if (v == NULL) return -1;
    if (v == Py_None) {
        *out = -1;
        return 0;
    }
    if (int_in_range(v, lo, hi, out)) return 0;
    char what[80];
    snprintf(what, sizeof what, "load: '%s'", key);
    return read_int(v, lo, hi, what, out);
}

static int get_bool(PyObject *v, const char *what, int *out) {
    if (!PyBool_Check(v)) {
        PyErr_Format(PyExc_ValueError, "load: %s must be true or false", what);
        return -1;
    }
    *out = v == Py_True;
    return 0;
}

/* A sequence of exactly n ints in lo..hi (n < 0: any length up to -n), into out[]. */
static int get_ints(PyObject *obj, const char *what, Py_ssize_t n, long long lo, long long hi,
                    long long *out, Py_ssize_t *len) {
    if (!PyList_Check(obj) && !PyTuple_Check(obj)) {
        PyErr_Format(PyExc_ValueError, "load: %s must be a list", what);
        return -1;
    }
    Py_ssize_t m = PySequence_Size(obj);
    if ((n >= 0 && m != n) || (n < 0 && m > -n)) {
        PyErr_Format(PyExc_ValueError, "load: %s holds %zd values, expected %s%zd", what, m,
                     n < 0 ? "at most " : "", n < 0 ? -n : n);
        return -1;
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *x = PySequence_Fast_GET_ITEM(obj, k);
        if (int_in_range(x, lo, hi, &out[k])) continue;
        char w[96]; /* the label only for the error */
        snprintf(w, sizeof w, "load: %s[%zd]", what, k);
        if (read_int(x, lo, hi, w, &out[k]) < 0) return -1;
    }
    if (len) *len = m;
    return 0;
}

static int get_counts(PyObject *d, const char *key, int P, int (*rows)[NT]) {
    PyObject *v = field(d, key);
    if (v == NULL) return -1;
    if ((!PyList_Check(v) && !PyTuple_Check(v)) || PySequence_Size(v) != P) {
        PyErr_Format(PyExc_ValueError, "load: '%s' must be %d lists of %d counts", key, P, NT);
        return -1;
    }
    long long tmp[NT];
    for (int s = 0; s < P; s++) {
        char what[64];
        snprintf(what, sizeof what, "'%s'[%d]", key, s);
        if (get_ints(PySequence_Fast_GET_ITEM(v, s), what, NT, 0, MAXCARDS, tmp, NULL) < 0)
            return -1;
        for (int k = 0; k < NT; k++) rows[s][k] = (int)tmp[k];
    }
    return 0;
}

static int load_meld(Core *c, PyObject *row, int m, Meld *md) {
    PyObject *cards;
    const char *kind;
    long long owner, start, rank, suit;
    if (!PyTuple_Check(row) && !PyList_Check(row)) goto bad;
    PyObject *t = PySequence_Tuple(row);
    if (t == NULL) return -1;
    int ok = PyTuple_GET_SIZE(t) == 6 && PyUnicode_Check(PyTuple_GET_ITEM(t, 1));
    if (ok) {
        kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(t, 1));
        if (kind == NULL) {
            Py_DECREF(t);
            return -1;
        }
        cards = PyTuple_GET_ITEM(t, 2);
        char what[64];
        snprintf(what, sizeof what, "load: table[%d] owner", m);
        if (read_int(PyTuple_GET_ITEM(t, 0), 0, c->P - 1, what, &owner) < 0 ||
            read_int(PyTuple_GET_ITEM(t, 3), 0, NR, "load: a meld's start", &start) < 0 ||
            read_int(PyTuple_GET_ITEM(t, 4), -1, NR - 1, "load: a meld's rank", &rank) < 0 ||
            read_int(PyTuple_GET_ITEM(t, 5), -1, 3, "load: a meld's suit", &suit) < 0) {
            Py_DECREF(t);
            return -1;
        }
        md->owner = (int)owner;
        md->start = (int)start;
        md->rank = (int)rank;
        md->suit = (int)suit;
        md->kind = strcmp(kind, "trio") == 0 ? TRIO_K : strcmp(kind, "run") == 0 ? RUN_K : -1;
        long long tmp[MAXMELD];
        Py_ssize_t n;
        snprintf(what, sizeof what, "table[%d] cards", m);
        if (md->kind < 0 || get_ints(cards, what, -MAXMELD, 0, JK, tmp, &n) < 0) {
            if (!PyErr_Occurred()) goto bad_t;
            Py_DECREF(t);
            return -1;
        }
        md->n = (int)n;
        for (int i = 0; i < n; i++) md->cards[i] = (unsigned char)tmp[i];
        int naturals = 0;
        for (int i = 0; i < n; i++) naturals += md->cards[i] != JK;
        if (md->kind == TRIO_K) {
            ok = n >= 3 && md->rank >= 0 && md->start == 0 && md->suit == -1 && naturals;
            for (int i = 0; ok && i < n; i++)
                ok = md->cards[i] == JK || md->cards[i] % NR == md->rank;
        } else {
            ok = n >= c->r.min_run && n <= NR && md->suit >= 0 && md->rank == -1 && naturals &&
                 (c->r.wrap ? md->start < NR : md->start + n - 1 <= NR);
            for (int i = 0; ok && i < n; i++)
                ok = md->cards[i] == JK || md->cards[i] == represented(md, i);
        }
    }
    if (!ok) goto bad_t;
    Py_DECREF(t);
    return 0;
bad_t:
    Py_DECREF(t);
bad:
    PyErr_Format(PyExc_ValueError,
                 "load: table[%d] must be a valid (owner, 'trio'|'run', cards, start, rank, suit)",
                 m);
    return -1;
}

static int load_lane(Core *c, PyObject *d, Lane *L) {
    int P = c->P, R = c->r.R;
    long long v, tmp[MAXCARDS];
    Py_ssize_t n;
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_ValueError, "load: the position must be a dict");
        return -1;
    }
    if (get_int(d, "round_index", 0, R, &v) < 0) return -1;
    L->round_index = (int)v;
    PyObject *ph = field(d, "phase");
    if (ph == NULL) return -1;
    L->phase = -1;
    for (int k = 0; k < 4; k++)
        if (PyUnicode_Check(ph) && PyUnicode_CompareWithASCIIString(ph, PHASES[k]) == 0)
            L->phase = k;
    if (L->phase < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "load: 'phase' must be 'draw', 'claim', 'play' or 'game_over'");
        return -1;
    }
    int over = L->phase == OVER_PH;
    if (over != (L->round_index == R)) {
        PyErr_SetString(PyExc_ValueError,
                        "load: the game is over exactly when round_index is the number of rounds");
        return -1;
    }
    int at = over ? R - 1 : L->round_index;
    if (get_int(d, "round", c->r.rounds[at], c->r.rounds[at], &v) < 0) return -1;
    L->round = (int)v;
    if (get_int(d, "dealer", 0, P - 1, &v) < 0) return -1;
    L->dealer = (int)v;
    if (get_int(d, "current", 0, P - 1, &v) < 0) return -1;
    L->current = (int)v;
    if (get_opt(d, "asked", 0, P - 1, &v) < 0) return -1;
    L->asked = (int)v;
    PyObject *f;
    if ((f = field(d, "claim_queue")) == NULL ||
        get_ints(f, "'claim_queue'", -(P - 1), 0, P - 1, tmp, &n) < 0)
        return -1;
    L->nqueue = (int)n;
    for (int k = 0; k < n; k++) L->queue[k] = (int)tmp[k];
    if (L->phase == CLAIM_PH ? (L->nqueue < 1 || L->queue[0] != L->asked ||
                                L->asked == L->current)
                             : (L->asked != -1 || L->nqueue)) {
        PyErr_SetString(PyExc_ValueError,
                        "load: only a claim window asks a seat; its queue starts with it");
        return -1;
    }
    if (get_counts(d, "hands", P, L->hands) < 0) return -1;
    if ((f = field(d, "hand_sizes")) == NULL ||
        get_ints(f, "'hand_sizes'", P, 0, MAXCARDS, tmp, NULL) < 0)
        return -1;
    for (int s = 0; s < P; s++) {
        int sum = 0;
        for (int k = 0; k < NT; k++) sum += L->hands[s][k];
        if (sum != tmp[s] || (!over && sum < 1)) {
            PyErr_Format(PyExc_ValueError,
                         "load: 'hand_sizes'[%d] = %lld must be the hand's size %d (at least 1 in "
                         "a live round)",
                         s, tmp[s], sum);
            return -1;
        }
        L->hand_sizes[s] = sum;
    }
    if ((f = field(d, "stock")) == NULL ||
        get_ints(f, "'stock'", -MAXCARDS, 0, JK, tmp, &n) < 0)
        return -1;
    L->nstock = (int)n;
    for (int k = 0; k < n; k++) L->stock[k] = (unsigned char)tmp[k];
    if ((f = field(d, "discard")) == NULL ||
        get_ints(f, "'discard'", -MAXCARDS, 0, JK, tmp, &n) < 0)
        return -1;
    L->ndiscard = (int)n;
    for (int k = 0; k < n; k++) L->discard[k] = (unsigned char)tmp[k];
    if (L->phase == CLAIM_PH && !L->ndiscard) {
        PyErr_SetString(PyExc_ValueError, "load: phase 'claim' needs a card on the discard pile");
        return -1;
    }
    if ((f = field(d, "table")) == NULL) return -1;
    if ((!PyList_Check(f) && !PyTuple_Check(f)) || PySequence_Size(f) > c->M) {
        PyErr_Format(PyExc_ValueError, "load: 'table' must be a list of at most %d melds", c->M);
        return -1;
    }
    L->ntable = (int)PySequence_Size(f);
    for (int m = 0; m < L->ntable; m++)
        if (load_meld(c, PySequence_Fast_GET_ITEM(f, m), m, &L->table[m]) < 0) return -1;
    /* Every card of the round's decks exactly once: the piles and melds stay in bounds. */
    int total[NT] = {0};
    for (int s = 0; s < P; s++)
        for (int k = 0; k < NT; k++) total[k] += L->hands[s][k];
    for (int k = 0; k < L->nstock; k++) total[L->stock[k]]++;
    for (int k = 0; k < L->ndiscard; k++) total[L->discard[k]]++;
    for (int m = 0; m < L->ntable; m++)
        for (int i = 0; i < L->table[m].n; i++) total[L->table[m].cards[i]]++;
    for (int k = 0; k < NT; k++) {
        int want = k == JK ? c->r.decks[at] * c->r.jokers_per_deck : c->r.decks[at];
        if (total[k] != want) {
            PyErr_Format(PyExc_ValueError,
                         "load: cards are not conserved: card %d appears %d times, expected %d",
                         k, total[k], want);
            return -1;
        }
    }
    if ((f = field(d, "laid_down")) == NULL) return -1;
    if ((!PyList_Check(f) && !PyTuple_Check(f)) || PySequence_Size(f) != P) {
        PyErr_Format(PyExc_ValueError, "load: 'laid_down' must be %d bools", P);
        return -1;
    }
    for (int s = 0; s < P; s++)
        if (get_bool(PySequence_Fast_GET_ITEM(f, s), "'laid_down' entries", &L->laid_down[s]) < 0)
            return -1;
    if ((f = field(d, "laid_down_turn")) == NULL ||
        get_ints(f, "'laid_down_turn'", P, -1, INT32_MAX, tmp, NULL) < 0)
        return -1;
    for (int s = 0; s < P; s++) L->laid_down_turn[s] = (int)tmp[s];
    if ((f = field(d, "scores")) == NULL ||
        get_ints(f, "'scores'", P, -MAXSCORE, MAXSCORE, tmp, NULL) < 0)
        return -1;
    for (int s = 0; s < P; s++) L->scores[s] = tmp[s];
    if (get_int(d, "turn", 0, INT32_MAX / 2, &v) < 0) return -1;
    L->turn = (int)v;
    if (!over && (L->current - L->dealer - 1 - L->turn) % P != 0) {
        PyErr_SetString(PyExc_ValueError,
                        "load: 'current' must be (dealer + 1 + turn) % players in a live round");
        return -1;
    }
    if ((f = field(d, "claims")) == NULL ||
        get_ints(f, "'claims'", P, 0, INT32_MAX, tmp, NULL) < 0)
        return -1;
    for (int s = 0; s < P; s++) L->claims[s] = (int)tmp[s];
    if (get_counts(d, "known", P, L->known) < 0) return -1;
    for (int s = 0; s < P; s++)
        for (int k = 0; k < NT; k++)
            if (L->known[s][k] > L->hands[s][k]) {
                PyErr_Format(PyExc_ValueError, "load: known[%d] lists cards not in that hand", s);
                return -1;
            }
    if ((f = field(d, "seen_discards")) == NULL ||
        get_ints(f, "'seen_discards'", NT, 0, INT32_MAX, tmp, NULL) < 0)
        return -1;
    for (int k = 0; k < NT; k++) L->seen[k] = (int)tmp[k];
    if ((f = field(d, "round_history")) == NULL) return -1;
    /* At most one entry per round played (a position built by hand may leave it empty). */
    if ((!PyList_Check(f) && !PyTuple_Check(f)) || PySequence_Size(f) > L->round_index) {
        PyErr_SetString(PyExc_ValueError,
                        "load: 'round_history' must hold at most one entry per round played");
        return -1;
    }
    L->nhist = (int)PySequence_Size(f);
    for (int h = 0; h < L->nhist; h++) {
        PyObject *e = PySequence_Fast_GET_ITEM(f, h);
        History *out = &L->hist[h];
        if (!PyDict_Check(e) || get_int(e, "round", c->r.rounds[h], c->r.rounds[h], &v) < 0 ||
            get_opt(e, "closer", 0, P - 1, &out->closer) < 0 ||
            get_int(e, "turns", 0, INT32_MAX, &out->turns) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "load: round_history[%d] must be a dict", h);
            return -1;
        }
        out->round = v;
        PyObject *pts = field(e, "points");
        if (pts == NULL ||
            get_ints(pts, "round_history points", P, -MAXSCORE, MAXSCORE, out->points, NULL) < 0)
            return -1;
    }
    if ((f = field(d, "last_action")) == NULL) return -1;
    if ((!PyList_Check(f) && !PyTuple_Check(f)) || PySequence_Size(f) != P) {
        PyErr_Format(PyExc_ValueError, "load: 'last_action' must be %d entries", P);
        return -1;
    }
    for (int s = 0; s < P; s++) {
        PyObject *x = PySequence_Fast_GET_ITEM(f, s);
        if (x == Py_None) {
            L->last_action[s] = -1;
        } else {
            if (read_int(x, 0, c->num_actions - 1, "load: a 'last_action' entry", &v) < 0)
                return -1;
            L->last_action[s] = (int)v;
        }
    }
    if (get_int(d, "moves", 0, LLONG_MAX, &v) < 0) return -1;
    L->moves = v;
    if ((f = field(d, "joker_moved")) == NULL || get_bool(f, "'joker_moved'", &L->joker_moved) < 0)
        return -1;
    if (get_int(d, "jokers_owed", 0, MAXCARDS, &v) < 0) return -1;
    L->jokers_owed = (int)v;
    if (L->jokers_owed && !(c->r.swapped_laid_off && L->phase == PLAY_PH &&
                            L->laid_down[L->current] &&
                            L->jokers_owed <= L->hands[L->current][JK])) {
        PyErr_SetString(PyExc_ValueError,
                        "load: 'jokers_owed' needs the seat in turn laid down, in play, holding "
                        "that many jokers");
        return -1;
    }
    if ((f = field(d, "rng")) == NULL) return -1;
    if ((!PyTuple_Check(f) && !PyList_Check(f)) || PySequence_Size(f) != 3 ||
        PySequence_Fast_GET_ITEM(f, 2) != Py_None) {
        PyErr_SetString(PyExc_ValueError, "load: 'rng' must be (3, 625 ints, None)");
        return -1;
    }
    if (read_int(PySequence_Fast_GET_ITEM(f, 0), 3, 3, "load: rng version", &v) < 0 ||
        get_ints(PySequence_Fast_GET_ITEM(f, 1), "rng words", MT_N + 1, 0, UINT32_MAX, tmp,
                 NULL) < 0)
        return -1;
    if (tmp[MT_N] > MT_N) {
        PyErr_Format(PyExc_ValueError, "load: rng index %lld must be in 0..%d", tmp[MT_N], MT_N);
        return -1;
    }
    for (int k = 0; k < MT_N; k++) L->rng.mt[k] = (uint32_t)tmp[k];
    L->rng.index = (int)tmp[MT_N];
    if ((f = field(d, "deal_seeds")) == NULL) return -1;
    if ((!PyList_Check(f) && !PyTuple_Check(f)) || PySequence_Size(f) != R) {
        PyErr_Format(PyExc_ValueError, "load: 'deal_seeds' must be %d ints", R);
        return -1;
    }
    for (int k = 0; k < R; k++) {
        PyObject *x = PySequence_Fast_GET_ITEM(f, k);
        unsigned long long s = PyLong_Check(x) && !PyBool_Check(x) ? PyLong_AsUnsignedLongLong(x)
                                                                  : (unsigned long long)-1;
        if (PyErr_Occurred() || !PyLong_Check(x) || PyBool_Check(x)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "load: deal_seeds[%d] must be an int in 0..2**64-1", k);
            return -1;
        }
        L->seeds[k] = s;
    }
    if ((f = field(d, "public_log")) == NULL) return -1;
    if (!PyList_Check(f) && !PyTuple_Check(f)) {
        PyErr_SetString(PyExc_ValueError, "load: 'public_log' must be a list");
        return -1;
    }
    Py_ssize_t nlog = PySequence_Size(f);
    log_clear(c, L);
    for (Py_ssize_t k = 0; k < nlog; k++) {
        long long e[3];
        PyObject *x = PySequence_Fast_GET_ITEM(f, k);
        if (get_ints(x, "a 'public_log' entry", 3, -1, NT - 1, e, NULL) < 0) return -1;
        if (e[0] < 0 || e[0] >= P || e[1] < 0 || e[1] >= NKINDS) {
            PyErr_Format(PyExc_ValueError, "load: public_log[%zd] needs a seat and a kind 0..%d",
                         k, NKINDS - 1);
            return -1;
        }
        if (log_add(L, (int)e[0], (int)e[1], (int)e[2]) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    if (get_int(d, "game_index", 0, LLONG_MAX - 1, &v) < 0) return -1;
    L->game_index = v;
    L->legal_ok = 0;
    L->fits_ok = 0;
    return 0;
}

static PyObject *core_load(Core *c, PyObject *args) {
    PyObject *o_i, *d;
    int i;
    if (!PyArg_ParseTuple(args, "OO", &o_i, &d)) return NULL;
    if (core_busy(c) || lane_index(c, o_i, &i) < 0) return NULL;
    Lane *tmp = PyMem_RawCalloc(1, sizeof(Lane));
    if (tmp == NULL) return PyErr_NoMemory();
    if (load_lane(c, d, tmp) < 0) {
        PyMem_RawFree(tmp->log);
        PyMem_RawFree(tmp);
        return NULL;
    }
    Lane *L = &c->lanes[i];
    LogEntry *old_log = L->log;
    int *legal = L->legal;
    *L = *tmp;
    L->legal = legal;
    L->legal_ok = 0;
    PyMem_RawFree(old_log);
    PyMem_RawFree(tmp);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------------- module */

static PyMethodDef core_methods[] = {
    {"reset_all", (PyCFunction)core_reset_all, METH_NOARGS,
     "reset_all(): every lane starts its game 0."},
    {"write", (PyCFunction)core_write, METH_VARARGS,
     "write(obs, mask, actor): each lane's v0 observation, legal mask and actor seat (a lane "
     "loaded with a finished game: actor -1, zeros)."},
    {"step", (PyCFunction)core_step, METH_VARARGS,
     "step(actions, obs, mask, actor, round_points, round_end, done, final_scores[, active]) "
     "-> int: the "
     "first lane whose action is illegal (nothing changed), or -1 once every lane stepped; "
     "round_points and final_scores are 0 in lanes where no round or game ended; a finished "
     "lane starts its next game at once. If has_contract_slow raises, the error propagates: the "
     "lanes before have stepped, those after have not. active (bool, one per lane): only those "
     "lanes step; the others report nothing and their rows show their position."},
    {"hidden_hands", (PyCFunction)core_hidden_hands, METH_VARARGS,
     "hidden_hands(out): privileged: every other seat's hand as card counts, seats in order "
     "after each lane's actor (float32, (N, (P - 1) * 53); zeros where the game is over)."},
    {"sample_legal", (PyCFunction)core_sample_legal, METH_VARARGS,
     "sample_legal(uniform, out): per lane the k-th legal id, k = floor(uniform[i] * count)."},
    {"bot_actions", (PyCFunction)(void (*)(void))core_bot_actions, METH_FASTCALL,
     "bot_actions(kinds, out[, active]): each (active) lane's seat to act decides by its bot "
     "(kinds int8/int32 of shape (P,) or (N, P): 0 greedy, 1 strong@v1, 2 strong@v2, -1 none), "
     "written to out (int64, N; -1 for a finished game); no lane changes. Releases the GIL."},
    {"play_out", (PyCFunction)(void (*)(void))core_play_out, METH_FASTCALL,
     "play_out(kinds, active, until_round_end, out_points): every active lane (active None: "
     "all) played by the bots of kinds at every seat until its round ends (until_round_end) or "
     "its game ends; out_points (int64, (N, P)) gets the points each seat scored meanwhile (0 "
     "in other lanes). A finished game's lane starts its next game, as in step. An error stops "
     "the call: the lanes before it have played out. Releases the GIL."},
    {"export", (PyCFunction)core_export, METH_O, "export(i) -> dict: lane i's position."},
    {"load", (PyCFunction)core_load, METH_VARARGS, "load(i, raw): put a position on lane i."},
    {NULL, NULL, 0, NULL},
};

#if PY_VERSION_HEX < 0x030C0000 /* Py_T_INT and Py_READONLY are in Python.h from 3.12 */
#include <structmember.h>
#define Py_T_INT T_INT
#define Py_READONLY READONLY
#endif

static PyMemberDef core_members[] = {
    {"num_games", Py_T_INT, offsetof(Core, N), Py_READONLY, "lanes"},
    {"num_players", Py_T_INT, offsetof(Core, P), Py_READONLY, "players per game"},
    {"num_actions", Py_T_INT, offsetof(Core, num_actions), Py_READONLY, "action ids per game"},
    {"obs_dim", Py_T_INT, offsetof(Core, obs_dim), Py_READONLY, "size of the observation"},
    {"version", Py_T_INT, offsetof(Core, version), Py_READONLY, "observation: 0 = v0, 1 = v1"},
    {"bot_perturb", Py_T_INT, offsetof(Core, bot_perturb), 0,
     "the bots' positive control for the differential tests: 1 flips greedy's last discard "
     "tie-break (highest card id); 0 (the default) plays the bots as defined"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "continental_env._batch.Core",
    .tp_basicsize = sizeof(Core),
    .tp_dealloc = (destructor)core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_doc = "Core(num_games, num_players, rules, seed, laydown_plan, has_contract_slow): N "
              "contract games stepped together (continental_env/_batch.c). laydown_plan is "
              "unused (None or a callable): the lay-down is chosen in C. write and step "
              "release the GIL, taking it back only for the has_contract_slow callback.",
    .tp_methods = core_methods,
    .tp_members = core_members,
    .tp_new = core_new,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_batch",
                                    "The contract game's rules in C, many games per call.", -1,
                                    NULL};

PyMODINIT_FUNC PyInit__batch(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    obs_tables_init();
    mt_tables_init();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
