/*
 * The contract game's rule-based bots in C: `greedy` (agents/contract/greedy.py), `strong@v1`
 * (agents/contract/strong.py) and `strong@v2` at its frozen tuned constants
 * (agents/contract/strong_tuned.py, Params()). Included by _batch.c after its Rules and Meld
 * types and the meld helpers (end_card, natural_layoff_end, run_can_extend); no Python objects.
 *
 * A bot reads a BotView and nothing else: what the seat's PlayerView gives it (its own hand,
 * the public table, discard pile, publicly known pick-ups, the public log's totals, hand sizes,
 * the stock's size, the turn, the rules). BotView has no field for another seat's hand or the
 * stock's cards; _batch.c's bot_view fills it from a lane.
 *
 * Each function mirrors the Python method it names, in the same order: floats are added and
 * multiplied in the Python's order (doubles, no fused multiply-add in this build), ties go the
 * same way (min/max keep the first best; keys compared as the Python tuples).
 */
#ifndef CONTINENTAL_BOTS_C_H
#define CONTINENTAL_BOTS_C_H

#include "_contract_c.h"
#include "_features_c.h"
#include "_laydown_c.h"
#include "_plan_c.h"

enum { BOT_GREEDY = 0, BOT_STRONG_V1 = 1, BOT_STRONG_V2 = 2, BOT_KINDS = 3 };
#define BOT_ERROR (-1) /* the Python bot would raise (no legal action it can pick) */

#define TRIO_BIT 1 /* handtools.TRIO_BIT */
#define RUN_BIT 2  /* handtools.RUN_BIT */

/* What one seat may see of a lane (agents.contract.view.PlayerView). */
typedef struct {
    const Rules *r;          /* the game's rules (public) */
    const unsigned char (*partners)[NT]; /* handtools.partner_table(rules) */
    int P, seat, phase, trios, runs, turn, stock_size, hand_size;
    int swap_base, move_base; /* the action layout */
    const int *hand;          /* the seat's own hand, counts per card type */
    const int *hand_sizes;    /* per seat */
    const int *laid_down;     /* per seat */
    const int (*known)[NT];   /* per seat, the cards it publicly picked up */
    const unsigned char *discard;
    int ndiscard;
    const Meld *table;
    int ntable;
    const int (*discarded)[NT], (*declined)[NT]; /* the public log's totals per seat */
    const int *deck;          /* rules.deck_counts of the round */
    const int *legal;         /* the seat's legal action ids, ascending */
    int nlegal;
    /* melds.has_contract on counts the bot chooses (its callback may need the GIL): 1, 0, -1 */
    int (*has_contract)(void *env, const int *counts, int trios, int runs);
    void *env;
    int perturb; /* positive control of the differential test: 1 flips greedy's discard tie */
} BotView;

/* The scratch space of the strong bots (plans and the contract search: too big for a stack). */
typedef struct BotWorkTag {
    PlanWork plan;
    Search search;
    LdPlan arrangement;
} BotWork;

/* strong_tuned.Params (strong@v2's frozen values) and strong@v1's constants as the same fields. */
typedef struct {
    int v2;
    double take_gain, claim_long, claim_stock;
    double laydown_points, laydown_turns, laydown_stock, short_hand;
    double feed_next, feed_other, feed_down, feed_scale_down, safe_weight, danger_cards;
    double danger_points_up, danger_points_down, point_base, point_age;
} StrongParams;

static const StrongParams STRONG_V1 = {
    .v2 = 0, .take_gain = 0.5, .claim_long = 2, .claim_stock = 4,
    /* StrongAgent._lay_down_now's literals */
    .laydown_points = 25, .laydown_turns = 2, .laydown_stock = 20, .short_hand = 4,
    .point_base = 0.15, .point_age = 0.35,
};

static const StrongParams STRONG_V2 = {
    .v2 = 1, .take_gain = 0.57, .claim_long = 2.0, .claim_stock = 4.0,
    .laydown_points = 10.92, .laydown_turns = 2.97, .laydown_stock = 20.0, .short_hand = 5.49,
    .feed_next = 0.73, .feed_other = 0.35, .feed_down = 3.55, .feed_scale_down = 1.0,
    .safe_weight = 0.87, .danger_cards = 2.56, .danger_points_up = 0.86,
    .danger_points_down = 0.83, .point_base = 0.15, .point_age = 0.35,
};

/* ------------------------------------------------------------------ handtools */

/* melds.trio_rank(cards) is not None for [a, b, joker]. */
static int pair_trio(int a, int b) {
    if (a == JK && b == JK) return 0; /* a meld needs a natural */
    return a == JK || b == JK || a % NR == b % NR;
}

/* melds.is_valid_meld(RUN, [a, b] + [joker] * (min_run - 2)): the naturals of one suit, no rank
 * twice, and some window of min_run positions (melds.arrange_run's starts) holds their ranks. */
static int pair_run(int a, int b, int min_run, int wrap) {
    int nat[2], k = 0;
    if (a != JK) nat[k++] = a;
    if (b != JK) nat[k++] = b;
    if (k == 0 || min_run > NR) return 0;
    if (k == 2 && (a / NR != b / NR || a % NR == b % NR)) return 0;
    int last = wrap ? NR - 1 : NR + 1 - min_run;
    for (int start = 0; start <= last; start++) {
        if (!wrap && start + min_run - 1 > NR) continue;
        int ok = 1;
        for (int j = 0; j < k && ok; j++) {
            int found = 0;
            for (int i = 0; i < min_run; i++) found |= (start + i) % NR == nat[j] % NR;
            ok = found;
        }
        if (ok) return 1;
    }
    return 0;
}

/* handtools.partner_table: table[a][b] = TRIO_BIT | RUN_BIT for the kinds a and b can start. */
static void bots_partner_table(int min_run, int wrap, unsigned char (*table)[NT]) {
    for (int a = 0; a < NT; a++)
        for (int b = 0; b < NT; b++)
            table[a][b] = (unsigned char)((pair_trio(a, b) ? TRIO_BIT : 0) |
                                          (pair_run(a, b, min_run, wrap) ? RUN_BIT : 0));
}

/* handtools.contract_bits */
static int contract_bits(const BotView *v) {
    return (v->trios ? TRIO_BIT : 0) | (v->runs ? RUN_BIT : 0);
}

/* handtools.partners: how many other cards of the hand start a contract meld with `card`. */
static int partners(const BotView *v, const int *hand, int card, int bits) {
    const unsigned char *row = v->partners[card];
    int n = 0;
    for (int c = 0; c < NT; c++)
        if (row[c] & bits) n += hand[c];
    if ((row[card] & bits) && hand[card] > 0) n -= 1; /* the card is not its own partner */
    return n;
}

/* melds.can_fit */
static int bot_can_fit(const Rules *r, const Meld *m, int card) {
    if (card == JK) return m->kind == TRIO_K || run_can_extend(r, m, LOW_E) ||
                           run_can_extend(r, m, HIGH_E);
    if (m->kind == TRIO_K) return card % NR == m->rank;
    return natural_layoff_end(r, m, card) != NO_E;
}

/* handtools.fits_table: whether `card` could be laid off on some table meld now. */
static int fits_table(const BotView *v, int card) {
    for (int m = 0; m < v->ntable; m++)
        if (bot_can_fit(v->r, &v->table[m], card)) return 1;
    return 0;
}

/* handtools.unseen_counts: features.count_unseen (_features_c.h) over the seat's view. */
static void unseen_counts(const BotView *v, int *out) {
    int shown[NT] = {0};
    for (int k = 0; k < v->ndiscard; k++) shown[v->discard[k]]++;
    for (int m = 0; m < v->ntable; m++)
        for (int i = 0; i < v->table[m].n; i++) shown[v->table[m].cards[i]]++;
    count_unseen_c(v->deck, v->hand, shown, &v->known[0][0], v->P, v->seat, out);
}

/* The run `m` lengthened by one card at `end` (melds.extend_run on a copy): only its length
 * and start matter to end_card. */
static Meld run_shape_extended(const Rules *r, const Meld *m, int end) {
    Meld out;
    out.owner = m->owner;
    out.kind = m->kind;
    out.rank = m->rank;
    out.suit = m->suit;
    out.n = m->n + 1;
    out.start = end == HIGH_E ? m->start : r->wrap ? pymod(m->start - 1, NR) : m->start - 1;
    return out;
}

static int legal_has(const BotView *v, int a) {
    for (int k = 0; k < v->nlegal; k++)
        if (v->legal[k] == a) return 1;
    return 0;
}

/* ------------------------------------------------------------------ greedy */

/* GreedyAgent._draw */
static int greedy_draw(const BotView *v) {
    if (!legal_has(v, A_TAKE) || !v->ndiscard) return A_DRAW;
    int top = v->discard[v->ndiscard - 1];
    if (v->laid_down[v->seat]) return fits_table(v, top) ? A_TAKE : A_DRAW;
    return partners(v, v->hand, top, contract_bits(v)) > 0 ? A_TAKE : A_DRAW;
}

/* GreedyAgent._claim: claim only the card that completes the contract. */
static int greedy_claim(const BotView *v) {
    if (!v->ndiscard || v->laid_down[v->seat]) return A_PASS;
    int h = v->has_contract(v->env, v->hand, v->trios, v->runs);
    if (h != 0) return h < 0 ? BOT_ERROR : A_PASS;
    int hand[NT];
    memcpy(hand, v->hand, sizeof hand);
    hand[v->discard[v->ndiscard - 1]] += 1;
    h = v->has_contract(v->env, hand, v->trios, v->runs);
    return h < 0 ? BOT_ERROR : h ? A_CLAIM : A_PASS;
}

/* greedy._useful_swap: a legal joker swap when a joker fits some table meld, else -1. */
static int greedy_useful_swap(const BotView *v) {
    if (v->hand_size < 2) return -1;
    if (!fits_table(v, JK)) return -1;
    for (int k = 0; k < v->nlegal; k++)
        if (v->legal[k] >= v->swap_base && v->legal[k] < v->move_base) return v->legal[k];
    return -1;
}

/* GreedyAgent._discard */
static int greedy_discard(const BotView *v) {
    const int *pts = v->r->pts;
    int best = -1;
    if (v->laid_down[v->seat]) { /* max by (points, -card) */
        for (int k = 0; k < v->nlegal; k++) {
            int a = v->legal[k];
            if (a < DISCARD_BASE || a >= DISCARD_BASE + NT) continue;
            int c = a - DISCARD_BASE;
            if (best < 0 || pts[c] > pts[best]) best = c;
        }
        return best < 0 ? BOT_ERROR : DISCARD_BASE + best;
    }
    int bits = contract_bits(v), best_n = 0;
    for (int k = 0; k < v->nlegal; k++) { /* min by (partners, -points, card) */
        int a = v->legal[k];
        if (a < DISCARD_BASE || a >= DISCARD_BASE + NT) continue;
        int c = a - DISCARD_BASE;
        int n = c == JK ? NT : partners(v, v->hand, c, bits);
        /* the positive control flips the last tie-break: the highest card wins a tie */
        if (best < 0 || n < best_n || (n == best_n && pts[c] > pts[best]) ||
            (v->perturb == 1 && n == best_n && pts[c] == pts[best]))
            best = c, best_n = n;
    }
    return best < 0 ? BOT_ERROR : DISCARD_BASE + best;
}

/* GreedyAgent._play */
static int greedy_play(const BotView *v) {
    if (legal_has(v, A_CLOSE)) return A_CLOSE;
    if (legal_has(v, A_LAYDOWN)) return A_LAYDOWN;
    int swap = greedy_useful_swap(v);
    if (swap >= 0) return swap;
    for (int k = 0; k < v->nlegal; k++) /* the first lay-off */
        if (v->legal[k] >= LAYOFF_BASE && v->legal[k] < v->swap_base) return v->legal[k];
    return greedy_discard(v);
}

/* ------------------------------------------------------------------ strong@v1 and v2 */

/* StrongAgent._plan (strong.make_plan); 0 or -1 (no plan: the reference would raise). */
static int strong_plan(const BotView *v, const int *hand, const int *unseen, BotWork *w,
                       PlanResult *out) {
    return make_plan_c(hand, unseen, v->trios, v->runs, v->r->min_run, v->r->wrap, &w->plan,
                       out) == 0
               ? 0
               : -1;
}

/* StrongAgent._related: whether `card` starts a contract meld with some card in hand. */
static int strong_related(const BotView *v, int card) {
    const unsigned char *row = v->partners[card];
    int bits = contract_bits(v);
    for (int c = 0; c < NT; c++)
        if (v->hand[c] && (row[c] & bits)) return 1;
    return 0;
}

/* StrongAgent._draw */
static int strong_draw(const BotView *v, const StrongParams *p, BotWork *w) {
    if (!legal_has(v, A_TAKE) || !v->ndiscard) return A_DRAW;
    int top = v->discard[v->ndiscard - 1];
    if (v->laid_down[v->seat]) return fits_table(v, top) ? A_TAKE : A_DRAW;
    if (top == JK) return A_TAKE;
    if (!strong_related(v, top)) return A_DRAW;
    int unseen[NT], hand[NT];
    unseen_counts(v, unseen);
    PlanResult now, after;
    memcpy(hand, v->hand, sizeof hand);
    hand[top] += 1;
    if (strong_plan(v, v->hand, unseen, w, &now) < 0 || strong_plan(v, hand, unseen, w, &after) < 0)
        return BOT_ERROR;
    return after.cost < now.cost - p->take_gain ? A_TAKE : A_DRAW;
}

/* StrongAgent._claim */
static int strong_claim(const BotView *v, const StrongParams *p, BotWork *w) {
    if (!v->ndiscard || v->laid_down[v->seat]) return A_PASS;
    int top = v->discard[v->ndiscard - 1];
    int h = v->has_contract(v->env, v->hand, v->trios, v->runs);
    if (h < 0) return BOT_ERROR;
    if (h) return A_PASS;
    int hand[NT];
    memcpy(hand, v->hand, sizeof hand);
    hand[top] += 1;
    h = v->has_contract(v->env, hand, v->trios, v->runs);
    if (h < 0) return BOT_ERROR;
    if (h) return A_CLAIM;
    if (top != JK && !strong_related(v, top)) return A_PASS;
    if (v->hand_size > 3 * v->trios + v->r->min_run * v->runs + p->claim_long) return A_PASS;
    if (v->stock_size < 2 * v->P + p->claim_stock) return A_PASS;
    int unseen[NT];
    unseen_counts(v, unseen);
    PlanResult now, after;
    if (strong_plan(v, v->hand, unseen, w, &now) < 0 || strong_plan(v, hand, unseen, w, &after) < 0)
        return BOT_ERROR;
    if (after.cost < now.cost - p->take_gain && after.missing <= 1) /* CLAIM_MAX_MISSING */
        return A_CLAIM;
    return A_PASS;
}

/* StrongAgent._lay_down_now (v1's literals) and StrongV2Agent._lay_down_now (Params):
 * 1 lay down now, 0 wait, -1 error. */
static int strong_lay_down_now(const BotView *v, const StrongParams *p, BotWork *w) {
    const Rules *r = v->r;
    int found = ld_best_arrangement(&w->search, v->hand, v->trios, v->runs, r->min_run, r->wrap,
                                    r->pts, &w->arrangement); /* melds.best_contract */
    if (found < 0) return -1;
    if (!found) return 0;
    int left[NT];
    memcpy(left, v->hand, sizeof left);
    for (int j = 0; j < w->arrangement.nrows; j++)
        for (int i = 0; i < w->arrangement.rows[j].n; i++) left[w->arrangement.rows[j].cards[i]]--;
    long left_cards = 0, left_points = 0;
    for (int c = 0; c < NT; c++) {
        left_cards += left[c];
        if (left[c]) left_points += (long)left[c] * r->pts[c];
    }
    int others_down = 0, short_hand = 0;
    for (int s = 0; s < v->P; s++) {
        if (s == v->seat) continue;
        others_down |= v->laid_down[s] != 0;
        short_hand |= v->hand_sizes[s] <= p->short_hand;
    }
    int late = v->turn >= p->laydown_turns * v->P || v->stock_size < p->laydown_stock;
    return left_cards <= 1 || others_down || short_hand || late || left_points >= p->laydown_points;
}

/* StrongAgent._pick_layoff: the lay-off that opens a spot for another card in hand, else the
 * highest points; max by (opens, points, -id). */
static int strong_pick_layoff(const BotView *v) {
    const Rules *r = v->r;
    int best = -1, best_opens = 0, best_pts = 0;
    for (int k = 0; k < v->nlegal; k++) {
        int a = v->legal[k];
        if (a < LAYOFF_BASE || a >= v->swap_base) continue;
        int slot = (a - LAYOFF_BASE) % LAYOFF_SLOTS, m = (a - LAYOFF_BASE) / LAYOFF_SLOTS;
        int card = slot >= JK ? JK : slot;
        const Meld *meld = &v->table[m];
        int opens = 0;
        if (meld->kind == RUN_K && card != JK) {
            int end = natural_layoff_end(r, meld, card);
            if (end != NO_E) {
                Meld longer = run_shape_extended(r, meld, end);
                int beyond = end_card(r, &longer, end);
                opens = beyond >= 0 && v->hand[beyond] && beyond != card ? 1 : 0;
            }
        }
        /* ids ascend: a later id wins only with a strictly larger (opens, points) */
        if (best < 0 || opens > best_opens || (opens == best_opens && r->pts[card] > best_pts))
            best = a, best_opens = opens, best_pts = r->pts[card];
    }
    return best;
}

/* StrongAgent._table_move: a joker swap when a joker would fit the table, else the best
 * lay-off, else -1. */
static int strong_table_move(const BotView *v) {
    int swap = -1, layoffs = 0;
    for (int k = 0; k < v->nlegal; k++) {
        int a = v->legal[k];
        if (swap < 0 && a >= v->swap_base && a < v->move_base) swap = a;
        if (a >= LAYOFF_BASE && a < v->swap_base) layoffs = 1;
    }
    if (swap >= 0 && v->hand_size >= 2 && fits_table(v, JK)) return swap;
    return layoffs ? strong_pick_layoff(v) : -1;
}

/* StrongAgent._feed_penalties (v1): how much discarding each card would help the next seat. */
static void strong_feed_v1(const BotView *v, double *pen) {
    for (int c = 0; c < NT; c++) pen[c] = 0.0;
    int nxt = (v->seat + 1) % v->P;
    if (v->laid_down[nxt]) {
        for (int c = 0; c < NT; c++)
            if (v->hand[c] && fits_table(v, c)) pen[c] += 3.0;
        return;
    }
    const int *known = v->known[nxt];
    int any = 0;
    for (int d = 0; d < NT; d++) any |= known[d] != 0;
    if (!any) return;
    int bits = contract_bits(v);
    for (int c = 0; c < NT; c++) {
        if (!v->hand[c]) continue;
        const unsigned char *row = v->partners[c];
        for (int d = 0; d < NT; d++)
            if (known[d] && (row[d] & bits)) {
                pen[c] += 2.0;
                break;
            }
    }
}

/* StrongV2Agent._interest: how much seat `s` (not laid down) wants card `c`. */
static double strong_interest(const BotView *v, const StrongParams *p, int c, int s, int bits) {
    const unsigned char *row = v->partners[c];
    const int *known = v->known[s];
    double interest = 0.0;
    for (int d = 0; d < NT; d++)
        if (known[d] && (row[d] & bits)) {
            interest = 1.0;
            break;
        }
    if (p->safe_weight && c != JK) { /* handtools.shown_by_seat: discarded + declined */
        int related = 0;
        for (int d = 0; d < NT - 1; d++)
            if (d == c || (row[d] & bits)) related += v->discarded[s][d] + v->declined[s][d];
        interest -= p->safe_weight * (related < 2 ? related : 2);
    }
    return interest;
}

/* StrongV2Agent._feed_penalties: how much discarding each card would help the seats that may
 * pick it up (in seat order after this one). */
static void strong_feed_v2(const BotView *v, const StrongParams *p, double *pen) {
    for (int c = 0; c < NT; c++) pen[c] = 0.0;
    int bits = contract_bits(v);
    for (int k = 1; k < v->P; k++) {
        int s = (v->seat + k) % v->P;
        int nxt = k == 1;
        if (v->laid_down[s]) {
            if (nxt && p->feed_down) /* _add_table_fits */
                for (int c = 0; c < NT; c++)
                    if (v->hand[c] && fits_table(v, c)) pen[c] += p->feed_down;
            continue;
        }
        double weight = nxt ? p->feed_next : p->feed_other;
        if (!weight) continue;
        for (int c = 0; c < NT; c++)
            if (v->hand[c]) pen[c] += weight * strong_interest(v, p, c, s, bits);
    }
}

static void strong_feed(const BotView *v, const StrongParams *p, double *pen) {
    if (p->v2)
        strong_feed_v2(v, p, pen);
    else
        strong_feed_v1(v, pen);
}

/* StrongV2Agent._danger: an opponent down with few cards. */
static int strong_danger(const BotView *v, const StrongParams *p) {
    if (!p->v2) return 0;
    for (int s = 0; s < v->P; s++)
        if (s != v->seat && v->laid_down[s] && v->hand_sizes[s] <= p->danger_cards) return 1;
    return 0;
}

/* StrongAgent._layoff_prospect: how close `card` is to fitting a table meld. */
static double strong_layoff_prospect(const BotView *v, int card, const int *unseen) {
    if (card == JK) return 10.0;
    const Rules *r = v->r;
    double score = 0.0;
    for (int m = 0; m < v->ntable; m++) {
        const Meld *meld = &v->table[m];
        if (meld->kind == RUN_K && meld->suit == card / NR && !bot_can_fit(r, meld, card)) {
            for (int e = 0; e < 2; e++) { /* HIGH, then LOW */
                int edge = e == 0 ? HIGH_E : LOW_E;
                int between = end_card(r, meld, edge);
                if (between < 0) continue;
                Meld longer = run_shape_extended(r, meld, edge);
                if (end_card(r, &longer, edge) == card) {
                    double half = 0.5 * unseen[between];
                    score += (half < 1.0 ? half : 1.0) + 0.3 * unseen[JK];
                }
            }
        } else if (bot_can_fit(r, meld, card)) {
            score += 2.0;
        }
    }
    return score;
}

/* StrongAgent._discard_down / StrongV2Agent._discard_down: min by (keep value, card). */
static int strong_discard_down(const BotView *v, const StrongParams *p) {
    const int *pts = v->r->pts;
    int unseen[NT];
    double feed[NT];
    unseen_counts(v, unseen);
    strong_feed(v, p, feed);
    double point_weight = 0.5 + (strong_danger(v, p) ? p->danger_points_down : 0.0);
    int best = -1;
    double best_value = 0.0;
    for (int k = 0; k < v->nlegal; k++) {
        int a = v->legal[k];
        if (a < DISCARD_BASE || a >= DISCARD_BASE + NT) continue;
        int c = a - DISCARD_BASE;
        double prospect = strong_layoff_prospect(v, c, unseen);
        double value = p->v2 ? prospect * 4.0 - pts[c] * point_weight + p->feed_scale_down * feed[c]
                             : prospect * 4.0 - pts[c] * 0.5 - feed[c];
        if (best < 0 || value < best_value) best = c, best_value = value;
    }
    return DISCARD_BASE + best;
}

/* StrongAgent._spare_or_cheapest's value of a spare card. */
static double strong_spare_value(const BotView *v, int c, const int *unseen, const double *feed,
                                 double point_weight, int bits) {
    const unsigned char *row = v->partners[c];
    double value = 0.0;
    for (int d = 0; d < NT - 1; d++) {
        int k = v->hand[d] - (d == c ? 1 : 0);
        if (k > 0 && (row[d] & bits)) {
            if ((row[d] & TRIO_BIT) && (bits & TRIO_BIT)) {
                int left = 0;
                for (int s = 0; s < 4; s++) left += unseen[s * NR + c % NR];
                value += 1.0 + 0.15 * left;
            } else if (row[d] & RUN_BIT) {
                value += 0.8 + 0.3 * unseen[c];
            }
        }
    }
    if (v->ntable && fits_table(v, c)) value += 0.7;
    return value - point_weight * v->r->pts[c] / 2.0 + feed[c];
}

/* StrongAgent._discard_up and _spare_or_cheapest (v2: its point weight). */
static int strong_discard_up(const BotView *v, const StrongParams *p, BotWork *w) {
    const int *pts = v->r->pts;
    int unseen[NT];
    double feed[NT];
    unseen_counts(v, unseen);
    PlanResult plan;
    if (strong_plan(v, v->hand, unseen, w, &plan) < 0) return BOT_ERROR;
    strong_feed(v, p, feed);
    int naturals[NT], nn = 0, all[NT], na = 0;
    for (int k = 0; k < v->nlegal; k++) {
        int a = v->legal[k];
        if (a < DISCARD_BASE || a >= DISCARD_BASE + NT) continue;
        all[na++] = a - DISCARD_BASE;
        if (a - DISCARD_BASE != JK) naturals[nn++] = a - DISCARD_BASE;
    }
    if (!nn) { /* `naturals or cards` */
        memcpy(naturals, all, sizeof(int) * (size_t)na);
        nn = na;
    }
    double age = v->turn / (6.0 * v->P);
    if (!(age < 1.0)) age = 1.0; /* min(1.0, age) */
    double point_weight = p->point_base + p->point_age * age;
    if (strong_danger(v, p)) point_weight += p->danger_points_up;
    int bits = contract_bits(v), best = -1;
    double best_value = 0.0;
    for (int k = 0; k < nn; k++) { /* the spare cards: min by (value, card) */
        int c = naturals[k];
        if (v->hand[c] <= plan.core[c]) continue;
        double value = strong_spare_value(v, c, unseen, feed, point_weight, bits);
        if (best < 0 || value < best_value) best = c, best_value = value;
    }
    if (best >= 0) return DISCARD_BASE + best;
    int less[NT]; /* every card is in the plan: give up the one whose loss costs least */
    memcpy(less, v->hand, sizeof less);
    for (int k = 0; k < nn; k++) {
        int c = naturals[k];
        less[c] -= 1;
        PlanResult after;
        int rc = strong_plan(v, less, unseen, w, &after);
        less[c] += 1;
        if (rc < 0) return BOT_ERROR;
        double key = after.cost + feed[c] * 0.2 - 0.01 * pts[c];
        if (best < 0 || key < best_value) best = c, best_value = key;
    }
    return best < 0 ? BOT_ERROR : DISCARD_BASE + best;
}

/* StrongAgent._end_turn: the discard, else a joker move, else the first legal action. */
static int strong_end_turn(const BotView *v, const StrongParams *p, BotWork *w) {
    int move = -1, discards = 0;
    for (int k = 0; k < v->nlegal; k++) {
        int a = v->legal[k];
        if (move < 0 && a >= v->move_base) move = a;
        if (a >= DISCARD_BASE && a < DISCARD_BASE + NT) discards = 1;
    }
    if (!discards) return move >= 0 ? move : v->legal[0];
    if (v->laid_down[v->seat]) return strong_discard_down(v, p);
    return strong_discard_up(v, p, w);
}

/* StrongAgent._play */
static int strong_play(const BotView *v, const StrongParams *p, BotWork *w) {
    if (legal_has(v, A_CLOSE)) return A_CLOSE;
    if (legal_has(v, A_LAYDOWN)) {
        int now = strong_lay_down_now(v, p, w);
        if (now < 0) return BOT_ERROR;
        if (now) return A_LAYDOWN;
    }
    int move = strong_table_move(v);
    if (move >= 0) return move;
    return strong_end_turn(v, p, w);
}

/* ------------------------------------------------------------------ the entry */

/* SeededAgent.act: bot `kind`'s action for the seat of `v` (its legal actions in v->legal),
 * or BOT_ERROR where the Python bot would raise. */
static int bot_act(const BotView *v, int kind, BotWork *w) {
    if (v->nlegal < 1) return BOT_ERROR;
    if (kind == BOT_GREEDY) {
        if (v->phase == DRAW_PH) return greedy_draw(v);
        if (v->phase == CLAIM_PH) return greedy_claim(v);
        return greedy_play(v);
    }
    const StrongParams *p = kind == BOT_STRONG_V2 ? &STRONG_V2 : &STRONG_V1;
    if (v->phase == DRAW_PH) return strong_draw(v, p, w);
    if (v->phase == CLAIM_PH) return strong_claim(v, p, w);
    return strong_play(v, p, w);
}

#endif /* CONTINENTAL_BOTS_C_H */
