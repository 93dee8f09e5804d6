/*
 * The continental_v0 observation in C: contract.aec.encode_observation's v0 part, exactly
 * (bit-identical float32 vectors).
 *
 * Plain C, no Python objects: `static inline`, #included by the `_kernels` module (its
 * encode_observation entry, from the engine's Python lists) and by the batch core (from its
 * lanes), so both write the same vector from one definition.
 *
 * Floating point follows the reference: Python floats (doubles) divided in double and stored
 * to float32.
 */
#ifndef CONTINENTAL_OBS_C_H
#define CONTINENTAL_OBS_C_H

#include <string.h>

#ifndef NT
#define NT 53 /* card types */
#endif

#define OBS_PLANE 65 /* a 5 x 13 count plane; its first NT entries are the card counts */

/* One seat's view of a position; seats absolute, the writer makes them relative. */
typedef struct {
    int p, seat;
    const int *hand;        /* NT counts */
    int discard_top;        /* the top discard shown, or -1 (none, or the game is over) */
    const int *seen;        /* NT: every card discarded face up this round */
    const int *known;       /* p x NT: cards each seat is known to hold */
    int n_melds;            /* table melds */
    const int *meld_owner;  /* n_melds */
    const int *meld_len;    /* n_melds: cards per meld */
    const unsigned char *const *meld_cards; /* n_melds: each meld's cards (pointers, so a
                                             * caller's melds are read where they are) */
    const int *fits;        /* NT: 1 if the card type fits a table meld now */
    int round;              /* 1..7 */
    int phase;              /* 0 draw, 1 claim, 2 play, -1 none (game over) */
    int trios, runs;        /* the round's contract */
    const int *hand_sizes;  /* p */
    const int *laid_down;   /* p, 0 or 1 */
    const long long *scores; /* p */
    const int *claims;      /* p */
    int stock, turn, max_turns;
} ObsInput;

/* The v0 vector's length for p players (aec.observation_size(observation_layout(p, 0))). */
static inline int obs_v0_size(int p) { return OBS_PLANE * (2 * p + 3) + 12 + 4 * p + 2; }

/* Whether `in` is in the writer's domain (indices it writes stay inside the vector). */
static inline int obs_input_ok(const ObsInput *in) {
    if (in->p < 2 || in->seat < 0 || in->seat >= in->p) return 0;
    if (in->discard_top < -1 || in->discard_top >= NT) return 0;
    if (in->round < 1 || in->round > 7 || in->phase < -1 || in->phase > 2) return 0;
    if (in->max_turns <= 0) return 0;
    for (int m = 0; m < in->n_melds; m++) {
        if (in->meld_owner[m] < 0 || in->meld_owner[m] >= in->p || in->meld_len[m] < 0) return 0;
        for (int i = 0; i < in->meld_len[m]; i++)
            if (in->meld_cards[m][i] >= NT) return 0;
    }
    return 1;
}

/* k / 20.0 and k / 100.0 as float32 for the hand sizes and the stock (each one division in
 * double, as the reference computes it): filled once by obs_tables_init, which each module's
 * init calls before anything writes an observation. */
#define OBS_TABLE 1024
static float OBS_DIV20[OBS_TABLE], OBS_DIV100[OBS_TABLE];

static void obs_tables_init(void) {
    for (int k = 0; k < OBS_TABLE; k++) {
        OBS_DIV20[k] = (float)(k / 20.0);
        OBS_DIV100[k] = (float)(k / 100.0);
    }
}

/* (float)(v / d) from `table` (k / d for k < OBS_TABLE) where it holds v. */
static inline float obs_div(const float *table, int v, double d) {
    return v >= 0 && v < OBS_TABLE ? table[v] : (float)(v / d);
}

/* One count plane: NT int counts as floats, then the plane's unused tail zeroed. */
static inline void obs_count_plane(float *restrict plane, const int *restrict counts) {
    for (int k = 0; k < NT; k++) plane[k] = (float)counts[k];
    for (int k = NT; k < OBS_PLANE; k++) plane[k] = 0.0f;
}

/* aec.encode_observation(game, seat, observation_layout(p, 0)) of `in` into `obs`
 * (obs_v0_size(p) floats, overwritten). Every float is written once: the count planes whole,
 * the sparse parts (the discard plane, the meld planes, the scalars) zeroed and then set. */
static inline void obs_v0_write(const ObsInput *in, float *restrict obs) {
    const int P = in->p, seat = in->seat, PL = OBS_PLANE;
    obs_count_plane(obs, in->hand);
    memset(obs + PL, 0, (size_t)PL * sizeof(float));
    if (in->discard_top >= 0) obs[PL + in->discard_top] = 1.0f;
    obs_count_plane(obs + 2 * PL, in->seen);
    int base = 3 * PL;
    for (int j = 1; j < P; j++) {
        int o = seat + j < P ? seat + j : seat + j - P;
        obs_count_plane(obs + base + PL * (j - 1), in->known + (size_t)o * NT);
    }
    base = PL * (P + 2);
    memset(obs + base, 0, (size_t)(PL * P) * sizeof(float));
    for (int m = 0; m < in->n_melds; m++) {
        int rel = in->meld_owner[m] - seat; /* both in 0..P-1 */
        if (rel < 0) rel += P;
        float *plane = obs + base + PL * rel;
        const unsigned char *cards = in->meld_cards[m];
        for (int i = 0; i < in->meld_len[m]; i++) plane[cards[i]] += 1.0f;
    }
    base = PL * (2 * P + 2);
    obs_count_plane(obs + base, in->fits);
    memset(obs + PL * (2 * P + 3), 0, (size_t)(obs_v0_size(P) - PL * (2 * P + 3)) * sizeof(float));
    float *s = obs + PL * (2 * P + 3);
    s[in->round - 1] = 1.0f;
    if (in->phase >= 0) s[7 + in->phase] = 1.0f;
    s[10] = (float)(in->trios / 3.0);
    s[11] = (float)(in->runs / 3.0);
    s += 12;
    for (int j = 0; j < P; j++) {
        int o = seat + j < P ? seat + j : seat + j - P;
        s[j] = obs_div(OBS_DIV20, in->hand_sizes[o], 20.0);
        s[P + j] = in->laid_down[o] ? 1.0f : 0.0f;
        s[2 * P + j] = (float)((double)in->scores[o] / 100.0);
        s[3 * P + j] = (float)in->claims[o];
    }
    s[4 * P] = obs_div(OBS_DIV100, in->stock, 100.0);
    s[4 * P + 1] = (float)((double)in->turn / (double)in->max_turns);
}

#endif
