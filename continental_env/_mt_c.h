/* CPython's Mersenne Twister (random.Random) and the methods of random.py built on it, in plain
 * C: the same words, the same draws, so that a generator's state can move between Python and C
 * (random.getstate()[1] is the 624 words and the index) and both continue alike. Shared by the
 * batch core (_batch.c: each lane's generator, its deals) and the kernels (_kernels.c: the
 * belief sampler's draws, _beliefs_c.h). */
#ifndef CONTINENTAL_MT_C_H
#define CONTINENTAL_MT_C_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int index;
} MT;

static inline void mt_init_genrand(MT *r, uint32_t s) {
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++)
        r->mt[i] = (uint32_t)(1812433253U * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i);
    r->index = MT_N;
}

/* init_genrand(19650218), where every init_by_array starts: computed once (mt_tables_init,
 * called by each module's init) and copied. */
static MT MT_BASE;

static void mt_tables_init(void) { mt_init_genrand(&MT_BASE, 19650218U); }

static inline void mt_init_by_array(MT *r, const uint32_t *key, int klen) {
    memcpy(r, &MT_BASE, sizeof *r);
    uint32_t *mt = r->mt;
    int i = 1, j = 0;
    for (int k = MT_N > klen ? MT_N : klen; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
        if (j >= klen) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
}

/* random.Random(seed) for 0 <= seed < 2**64: init_by_array over the 32-bit words of the seed,
 * least significant first (one word when the high word is 0, [0] for 0). */
static inline void mt_seed64(MT *r, uint64_t seed) {
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    mt_init_by_array(r, key, key[1] ? 2 : 1);
}

static inline uint32_t mt_next(MT *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t *mt = r->mt, y;
    if (r->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        r->index = 0;
    }
    y = mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static inline uint64_t mt_bits64(MT *r) { /* getrandbits(64): the first word is the low one */
    uint64_t lo = mt_next(r);
    uint64_t hi = mt_next(r);
    return lo | (hi << 32);
}

static inline uint32_t mt_below(MT *r, uint32_t n) { /* Random._randbelow_with_getrandbits, n >= 1 */
    int k = 0;
    while ((n >> k) != 0) k++; /* n.bit_length() */
    uint32_t v = mt_next(r) >> (32 - k);
    while (v >= n) v = mt_next(r) >> (32 - k);
    return v;
}

static inline void mt_shuffle(MT *r, unsigned char *x, int n) { /* random.shuffle */
    for (int i = n - 1; i >= 1; i--) {
        int j = (int)mt_below(r, (uint32_t)(i + 1));
        unsigned char t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* random.random(): 53 random bits as a float in [0, 1) (genrand_res53). */
static inline double mt_random(MT *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

#endif
