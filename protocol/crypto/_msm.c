/*
 * protocol.crypto._msm: a multi-scalar multiplication sum(k_i * P_i) in ristretto255, for PUBLIC
 * scalars only (proof verification). Written for skyjo-lan from the published specifications:
 *
 *   - the field GF(p), p = 2^255 - 19, and the curve edwards25519 (a = -1,
 *     d = -121665/121666): RFC 7748, sections 4.1 and 5; elements in radix 2^51 (five 51-bit
 *     limbs), products in unsigned __int128;
 *   - ristretto255 decoding, encoding and the constants SQRT_M1, INVSQRT_A_MINUS_D and the
 *     function SQRT_RATIO_M1: RFC 9496, sections 4.1, 4.2, 4.3.1 and 4.3.2;
 *   - point addition and doubling in extended twisted Edwards coordinates (X:Y:Z:T),
 *     x = X/Z, y = Y/Z, xy = T/Z: Hisil, Wong, Carter, Dawson, "Twisted Edwards Curves
 *     Revisited", ASIACRYPT 2008, section 3 (the unified addition with k = 2d, section 3.1, and
 *     the doubling of section 3.3, both with a = -1); with a = -1 a square and d a non-square
 *     in GF(p) the addition is complete, so no case needs special handling;
 *   - many terms: Pippenger's bucket method (N. Pippenger, "On the evaluation of powers and
 *     monomials", SIAM J. Comput. 9(2), 1980), as described in Bernstein, Doumen, Lange,
 *     Oosterwijk, "Faster batch forgery identification", INDOCRYPT 2012, section 4, with signed
 *     digits and the window width chosen from the number of terms by the cost estimate below;
 *   - few terms: Straus's interleaved method ("Addition chains of vectors", Amer. Math. Monthly
 *     71, 1964), one table of multiples per point and the doublings shared, signed 4-bit digits.
 *
 * VARIABLE TIME (the multi-scalar multiplication `lincomb_public_vartime`). Every branch and
 * memory access there may depend on the scalars and the points.
 * That is safe only because the caller gives public data (verifier challenges, random
 * verifier coefficients drawn after the proof is fixed, responses and points read from the
 * wire). Never call it with a secret scalar: see docs/crypto.md.
 *
 * The Python side (protocol/crypto/group.py) reduces the scalars mod L, drops identity terms
 * and turns a refused point into the exact error of group.decode_point.
 */
#ifndef MSM_NO_PYTHON /* tools/ctgrind builds the arithmetic alone, to check it under valgrind */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__SIZEOF_INT128__)
#error "skyjo-lan's _msm needs unsigned __int128 (GCC or Clang); the pure-Python path is used instead"
#endif

typedef unsigned __int128 u128;
typedef uint64_t fe[5]; /* value = sum h[i] 2^(51 i); limbs kept below about 2^52 */

#define MASK51 ((uint64_t)0x7ffffffffffffULL)

static const fe FE_ZERO = {0, 0, 0, 0, 0};
static const fe FE_ONE = {1, 0, 0, 0, 0};
/* d = -121665/121666, 2d, sqrt(-1) (non-negative) and 1/sqrt(a-d) (RFC 9496, section 4.1) */
static const fe FE_D = {0x34dca135978a3ULL, 0x1a8283b156ebdULL, 0x5e7a26001c029ULL, 0x739c663a03cbbULL,
                        0x52036cee2b6ffULL};
static const fe FE_D2 = {0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL, 0x6738cc7407977ULL,
                         0x2406d9dc56dffULL};
static const fe FE_SQRT_M1 = {0x61b274a0ea0b0ULL, 0xd5a5fc8f189dULL, 0x7ef5e9cbd0c60ULL, 0x78595a6804c9eULL,
                              0x2b8324804fc1dULL};
static const fe FE_INVSQRT_A_MINUS_D = {0xfdaa805d40eaULL, 0x2eb482e57d339ULL, 0x7610274bc58ULL,
                                        0x6510b613dc8ffULL, 0x786c8905cfaffULL};

/* ---- field arithmetic mod p = 2^255 - 19 ------------------------------------------------- */

static inline void fe_copy(fe h, const fe f) { memcpy(h, f, sizeof(fe)); }

/* Bring every limb below 2^51 (limb 0 below 2^51 + 2^18): 2^255 = 19 mod p. */
static inline void fe_carry(fe h) {
    uint64_t c;
    c = h[0] >> 51; h[0] &= MASK51; h[1] += c;
    c = h[1] >> 51; h[1] &= MASK51; h[2] += c;
    c = h[2] >> 51; h[2] &= MASK51; h[3] += c;
    c = h[3] >> 51; h[3] &= MASK51; h[4] += c;
    c = h[4] >> 51; h[4] &= MASK51; h[0] += 19 * c;
}

static inline void fe_add(fe h, const fe f, const fe g) {
    for (int i = 0; i < 5; i++) h[i] = f[i] + g[i];
    fe_carry(h);
}

/* f - g computed as f + 4p - g, so no limb goes negative while g's limbs are below 2^53. */
static inline void fe_sub(fe h, const fe f, const fe g) {
    h[0] = f[0] + 0x1fffffffffffb4ULL - g[0];
    h[1] = f[1] + 0x1ffffffffffffcULL - g[1];
    h[2] = f[2] + 0x1ffffffffffffcULL - g[2];
    h[3] = f[3] + 0x1ffffffffffffcULL - g[3];
    h[4] = f[4] + 0x1ffffffffffffcULL - g[4];
    fe_carry(h);
}

static inline void fe_neg(fe h, const fe f) { fe_sub(h, FE_ZERO, f); }

/* fe_add and fe_sub without the carry, for a value that only goes into fe_mul (or into one more
 * such sum first): the bounds are ge_add_cached_any's (below). Every fe kept in a point has limbs
 * below 2^52 (fe_mul's output, or a carried sum), and these results are never kept. */
static inline void fe_add_lazy(fe h, const fe f, const fe g) {
    for (int i = 0; i < 5; i++) h[i] = f[i] + g[i];
}

static inline void fe_sub_lazy(fe h, const fe f, const fe g) {
    h[0] = f[0] + 0x1fffffffffffb4ULL - g[0];
    h[1] = f[1] + 0x1ffffffffffffcULL - g[1];
    h[2] = f[2] + 0x1ffffffffffffcULL - g[2];
    h[3] = f[3] + 0x1ffffffffffffcULL - g[3];
    h[4] = f[4] + 0x1ffffffffffffcULL - g[4];
}

/* Reduce the five 128-bit column sums of a product into limbs. */
static inline void fe_reduce_wide(fe h, u128 r0, u128 r1, u128 r2, u128 r3, u128 r4) {
    r1 += (uint64_t)(r0 >> 51);
    h[0] = (uint64_t)r0 & MASK51;
    r2 += (uint64_t)(r1 >> 51);
    h[1] = (uint64_t)r1 & MASK51;
    r3 += (uint64_t)(r2 >> 51);
    h[2] = (uint64_t)r2 & MASK51;
    r4 += (uint64_t)(r3 >> 51);
    h[3] = (uint64_t)r3 & MASK51;
    uint64_t c = (uint64_t)(r4 >> 51);
    h[4] = (uint64_t)r4 & MASK51;
    h[0] += 19 * c;
    h[1] += h[0] >> 51;
    h[0] &= MASK51;
}

/* Schoolbook product; a limb product of weight 2^(51 k), k >= 5, folds back times 19. Always
 * inlined in the point addition (fe_mul_inline): its seven products are most of a verify's field
 * work, and a call each cost a tenth of a product in moves and saved registers. */
#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif
static ALWAYS_INLINE void fe_mul_inline(fe h, const fe f, const fe g) {
    const uint64_t f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4];
    const uint64_t g0 = g[0], g1 = g[1], g2 = g[2], g3 = g[3], g4 = g[4];
    const uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
    u128 r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19 + (u128)f4 * g1_19;
    u128 r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19 + (u128)f4 * g2_19;
    u128 r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19 + (u128)f4 * g3_19;
    u128 r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0 + (u128)f4 * g4_19;
    u128 r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0;
    fe_reduce_wide(h, r0, r1, r2, r3, r4);
}

static inline void fe_mul(fe h, const fe f, const fe g) { fe_mul_inline(h, f, g); }

static inline void fe_sq(fe h, const fe f) {
    const uint64_t f0 = f[0], f1 = f[1], f2 = f[2], f3 = f[3], f4 = f[4];
    const uint64_t f0_2 = 2 * f0, f1_2 = 2 * f1;
    const uint64_t f3_19 = 19 * f3, f4_19 = 19 * f4;
    u128 r0 = (u128)f0 * f0 + (u128)(2 * f1) * f4_19 + (u128)(2 * f2) * f3_19;
    u128 r1 = (u128)f0_2 * f1 + (u128)f3 * f3_19 + (u128)(2 * f2) * f4_19;
    u128 r2 = (u128)f0_2 * f2 + (u128)f1 * f1 + (u128)(2 * f3) * f4_19;
    u128 r3 = (u128)f0_2 * f3 + (u128)f1_2 * f2 + (u128)f4 * f4_19;
    u128 r4 = (u128)f0_2 * f4 + (u128)f1_2 * f3 + (u128)f2 * f2;
    fe_reduce_wide(h, r0, r1, r2, r3, r4);
}

static inline void fe_sqn(fe h, const fe f, int n) {
    fe_sq(h, f);
    for (int i = 1; i < n; i++) fe_sq(h, h);
}

/* The unique representative in [0, p), little-endian. */
static void fe_tobytes(unsigned char s[32], const fe f) {
    fe h;
    fe_copy(h, f);
    fe_carry(h);
    fe_carry(h); /* now h < 2^255 + 2^18 < 2p */
    /* q = 1 exactly when h >= p, i.e. when h + 19 reaches 2^255 */
    uint64_t q = (h[0] + 19) >> 51;
    q = (h[1] + q) >> 51;
    q = (h[2] + q) >> 51;
    q = (h[3] + q) >> 51;
    q = (h[4] + q) >> 51;
    h[0] += 19 * q;
    h[1] += h[0] >> 51; h[0] &= MASK51;
    h[2] += h[1] >> 51; h[1] &= MASK51;
    h[3] += h[2] >> 51; h[2] &= MASK51;
    h[4] += h[3] >> 51; h[3] &= MASK51;
    h[4] &= MASK51; /* drops q * 2^255 */
    uint64_t w[4];
    w[0] = h[0] | (h[1] << 51);
    w[1] = (h[1] >> 13) | (h[2] << 38);
    w[2] = (h[2] >> 26) | (h[3] << 25);
    w[3] = (h[3] >> 39) | (h[4] << 12);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) s[8 * i + j] = (unsigned char)(w[i] >> (8 * j));
}

static inline uint64_t load64_le(const unsigned char *s) {
    uint64_t r = 0;
    for (int j = 7; j >= 0; j--) r = (r << 8) | s[j];
    return r;
}

/* The low 255 bits of s (the caller has checked that s is canonical). */
static void fe_frombytes(fe h, const unsigned char s[32]) {
    h[0] = load64_le(s) & MASK51;
    h[1] = (load64_le(s + 6) >> 3) & MASK51;
    h[2] = (load64_le(s + 12) >> 6) & MASK51;
    h[3] = (load64_le(s + 19) >> 1) & MASK51;
    h[4] = (load64_le(s + 24) >> 12) & MASK51;
}

/* The helpers below are constant time (no branch and no memory index depends on the values),
 * because the encoding and SQRT_RATIO_M1 also serve the prover's secret-scalar path. */
static int fe_is_negative(const fe f) {
    unsigned char s[32];
    fe_tobytes(s, f);
    return s[0] & 1;
}

/* 1 when the 32 bytes are all zero, else 0, without a branch. */
static int bytes_are_zero(const unsigned char s[32]) {
    unsigned acc = 0;
    for (int i = 0; i < 32; i++) acc |= s[i];
    return (int)(((uint32_t)acc - 1) >> 31);
}

static int fe_is_zero(const fe f) {
    unsigned char s[32];
    fe_tobytes(s, f);
    return bytes_are_zero(s);
}

static int fe_equal(const fe f, const fe g) {
    unsigned char a[32], b[32];
    fe_tobytes(a, f);
    fe_tobytes(b, g);
    for (int i = 0; i < 32; i++) a[i] ^= b[i];
    return bytes_are_zero(a);
}

/* f = g when b = 1, f unchanged when b = 0 (b is 0 or 1): a mask, not a branch. */
static inline void fe_cmov(fe f, const fe g, uint64_t b) {
    const uint64_t mask = (uint64_t)0 - b;
    for (int i = 0; i < 5; i++) f[i] ^= mask & (f[i] ^ g[i]);
}

static void fe_abs(fe h, const fe f) {
    fe minus;
    fe_neg(minus, f);
    fe_copy(h, f);
    fe_cmov(h, minus, (uint64_t)fe_is_negative(f));
}

/* z^(2^250 - 1), the common part of the two exponentiations below (11 products, 250 squares). */
static void fe_pow_2_250_1(fe out, fe z11, const fe z) {
    fe t0, t1, t2, t3;
    fe_sq(t0, z);          /* z^2 */
    fe_sqn(t1, t0, 2);     /* z^8 */
    fe_mul(t1, t1, z);     /* z^9 */
    fe_mul(t0, t0, t1);    /* z^11 */
    fe_copy(z11, t0);
    fe_sq(t2, t0);         /* z^22 */
    fe_mul(t1, t1, t2);    /* z^31 = z^(2^5 - 1) */
    fe_sqn(t2, t1, 5);
    fe_mul(t1, t2, t1);    /* z^(2^10 - 1) */
    fe_sqn(t2, t1, 10);
    fe_mul(t2, t2, t1);    /* z^(2^20 - 1) */
    fe_sqn(t3, t2, 20);
    fe_mul(t2, t3, t2);    /* z^(2^40 - 1) */
    fe_sqn(t2, t2, 10);
    fe_mul(t1, t2, t1);    /* z^(2^50 - 1) */
    fe_sqn(t2, t1, 50);
    fe_mul(t2, t2, t1);    /* z^(2^100 - 1) */
    fe_sqn(t3, t2, 100);
    fe_mul(t2, t3, t2);    /* z^(2^200 - 1) */
    fe_sqn(t2, t2, 50);
    fe_mul(out, t2, t1);   /* z^(2^250 - 1) */
}

/* z^((p - 5) / 8) = z^(2^252 - 3) = (z^(2^250 - 1))^4 * z */
static void fe_pow_p58(fe out, const fe z) {
    fe t, z11;
    fe_pow_2_250_1(t, z11, z);
    fe_sqn(t, t, 2);
    fe_mul(out, t, z);
}

/* RFC 9496, section 4.2: SQRT_RATIO_M1(u, v), in three steps: v3 = v^3 and w = u v^7 ... */
static void fe_sqrt_ratio_m1_start(fe v3, fe w, const fe u, const fe v) {
    fe v7;
    fe_sq(v3, v);
    fe_mul(v3, v3, v);         /* v^3 */
    fe_sq(v7, v3);
    fe_mul(v7, v7, v);         /* v^7 */
    fe_mul(w, u, v7);
}

/* ... then the exponentiation t = w^((p-5)/8) (fe_pow_p58), then r from u, v, v^3 and t. */
static int fe_sqrt_ratio_m1_finish(fe r, const fe u, const fe v, const fe v3, const fe t) {
    fe check, neg_u, neg_u_i, r_prime;
    fe_mul(r, u, v3);
    fe_mul(r, r, t);
    fe_sq(check, r);
    fe_mul(check, check, v);
    fe_neg(neg_u, u);
    fe_mul(neg_u_i, neg_u, FE_SQRT_M1);
    int correct_sign = fe_equal(check, u);
    int flipped_sign = fe_equal(check, neg_u);
    int flipped_sign_i = fe_equal(check, neg_u_i);
    fe_mul(r_prime, r, FE_SQRT_M1);
    fe_cmov(r, r_prime, (uint64_t)(flipped_sign | flipped_sign_i));
    fe_abs(r, r);
    return correct_sign | flipped_sign;
}

/* Returns was_square; r = the non-negative root of u/v when it exists, otherwise of
 * SQRT_M1 * u/v. */
static int fe_sqrt_ratio_m1(fe r, const fe u, const fe v) {
    fe v3, t;
    fe_sqrt_ratio_m1_start(v3, t, u, v);
    fe_pow_p58(t, t);          /* (u v^7)^((p-5)/8) */
    return fe_sqrt_ratio_m1_finish(r, u, v, v3, t);
}

/* fe_pow_p58 of up to DECODE_LANES independent inputs, step by step side by side: the same
 * operations on each, so the same results, but the processor overlaps the chains of 252
 * dependent squarings (each one waits on the last one's carries): about 30% faster than one
 * after the other on the machine of issue 29. Public inputs only (the decoding of received
 * points): the same code as fe_pow_p58, only interleaved, claiming nothing more about timing.
 * The same idea as the 2-way parallel field arithmetic of A. Faz-Hernandez, J. Lopez, "Fast
 * implementation of Curve25519 using AVX2", LATINCRYPT 2015, left to the processor's
 * out-of-order execution instead of vector instructions. */
#define DECODE_LANES 4

/* The lanes' squarings and products are compiled twice, for x86-64 processors with BMI2 (its
 * mulx: a 64x64-bit product into any two registers, not only rdx:rax, so no moves around each
 * limb product) and without; the loader picks one per process (GCC function multi-versioning,
 * target_clones, an ifunc: Linux with glibc only, as musl has no ifunc). The same C, so the
 * same results. Public data only, as above: the constant-time paths are not cloned. Decoding
 * alone: 4.59 -> 4.36 us a point (min of 20 alternated runs); verify 20,570 -> 19,934 Ir-u. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    defined(__GLIBC__)
#define LANES_CLONES __attribute__((target_clones("bmi2", "default")))
#else
#define LANES_CLONES
#endif

LANES_CLONES static void fe_sqn_lanes(fe *h, fe *f, int n, int lanes) {
    for (int l = 0; l < lanes; l++) fe_sq(h[l], f[l]);
    for (int i = 1; i < n; i++)
        for (int l = 0; l < lanes; l++) fe_sq(h[l], h[l]);
}

LANES_CLONES static void fe_mul_lanes(fe *h, fe *f, fe *g, int lanes) {
    for (int l = 0; l < lanes; l++) fe_mul(h[l], f[l], g[l]);
}

/* fe_pow_2_250_1's steps (its z11 unused here), then fe_pow_p58's last two, for each lane */
static void fe_pow_p58_lanes(fe *out, fe *z, int lanes) {
    fe a[DECODE_LANES], b[DECODE_LANES], c[DECODE_LANES], d[DECODE_LANES];
    fe_sqn_lanes(a, z, 1, lanes);   /* z^2 */
    fe_sqn_lanes(b, a, 2, lanes);   /* z^8 */
    fe_mul_lanes(b, b, z, lanes);   /* z^9 */
    fe_mul_lanes(a, a, b, lanes);   /* z^11 */
    fe_sqn_lanes(c, a, 1, lanes);   /* z^22 */
    fe_mul_lanes(b, b, c, lanes);   /* z^31 = z^(2^5 - 1) */
    fe_sqn_lanes(c, b, 5, lanes);
    fe_mul_lanes(b, c, b, lanes);   /* z^(2^10 - 1) */
    fe_sqn_lanes(c, b, 10, lanes);
    fe_mul_lanes(c, c, b, lanes);   /* z^(2^20 - 1) */
    fe_sqn_lanes(d, c, 20, lanes);
    fe_mul_lanes(c, d, c, lanes);   /* z^(2^40 - 1) */
    fe_sqn_lanes(c, c, 10, lanes);
    fe_mul_lanes(b, c, b, lanes);   /* z^(2^50 - 1) */
    fe_sqn_lanes(c, b, 50, lanes);
    fe_mul_lanes(c, c, b, lanes);   /* z^(2^100 - 1) */
    fe_sqn_lanes(d, c, 100, lanes);
    fe_mul_lanes(c, d, c, lanes);   /* z^(2^200 - 1) */
    fe_sqn_lanes(c, c, 50, lanes);
    fe_mul_lanes(c, c, b, lanes);   /* z^(2^250 - 1) */
    fe_sqn_lanes(c, c, 2, lanes);
    fe_mul_lanes(out, c, z, lanes); /* z^(2^252 - 3) */
}

/* ---- the group: extended coordinates (HWCD 2008, section 3, a = -1) ----------------------- */

typedef struct {
    fe X, Y, Z, T;
} ge_ext;

/* A point ready to be added: (Y + X, Y - X, Z, 2 d T). */
typedef struct {
    fe YpX, YmX, Z, T2d;
} ge_cached;

static void ge_identity(ge_ext *p) {
    fe_copy(p->X, FE_ZERO);
    fe_copy(p->Y, FE_ONE);
    fe_copy(p->Z, FE_ONE);
    fe_copy(p->T, FE_ZERO);
}

static void ge_to_cached(ge_cached *c, const ge_ext *p) {
    fe_add(c->YpX, p->Y, p->X);
    fe_sub(c->YmX, p->Y, p->X);
    fe_copy(c->Z, p->Z);
    fe_mul(c->T2d, p->T, FE_D2);
}

/* r = p + q or p - q (unified addition, k = 2d: 9 multiplications, 8 when q's Z is known to be
 * exactly 1, as for a point fresh from ristretto_decode: `q_z_one`, a constant at every call).
 * The sums are not carried (fe_add_lazy): with every input limb below 2^52, Y - X and Y + X are
 * below 2^53.6; d = 2Z below 2^53; e = b - a below 2^53.6, h = b + a below 2^52.1 (a, b from
 * fe_mul: below 2^51.01); f, g = d -/+ c below 2^54 (c below 2^51.01, so d + 4p - c >= 0). The
 * largest product, f g (both below 2^54), has column sums below 2^114.5 and a top carry below
 * 2^59.4, times 19 below 2^63.6: no 128-bit sum and no limb of fe_reduce_wide overflows, and
 * the outputs are below 2^52 again (the same bounds as libsodium's ref10 and donna-64 keep). */
static inline void ge_add_cached_any(ge_ext *r, const ge_ext *p, const ge_cached *q, int negate, int q_z_one) {
    fe a, b, c, d, e, f, g, h, t;
    fe_sub_lazy(t, p->Y, p->X);
    fe_mul_inline(a, t, negate ? q->YpX : q->YmX);
    fe_add_lazy(t, p->Y, p->X);
    fe_mul_inline(b, t, negate ? q->YmX : q->YpX);
    fe_mul_inline(c, p->T, q->T2d);
    if (q_z_one)
        fe_copy(d, p->Z);
    else
        fe_mul_inline(d, p->Z, q->Z);
    fe_add_lazy(d, d, d);
    fe_sub_lazy(e, b, a);
    fe_add_lazy(h, b, a);
    if (negate) {
        fe_add_lazy(f, d, c);
        fe_sub_lazy(g, d, c);
    } else {
        fe_sub_lazy(f, d, c);
        fe_add_lazy(g, d, c);
    }
    fe_mul_inline(r->X, e, f);
    fe_mul_inline(r->Y, g, h);
    fe_mul_inline(r->T, e, h);
    fe_mul_inline(r->Z, f, g);
}

static void ge_add_cached(ge_ext *r, const ge_ext *p, const ge_cached *q, int negate) {
    ge_add_cached_any(r, p, q, negate, 0);
}

static void ge_add(ge_ext *r, const ge_ext *p, const ge_ext *q) {
    ge_cached c;
    ge_to_cached(&c, q);
    ge_add_cached(r, p, &c, 0);
}

/* r = 2p (section 3.3 with a = -1: 4 multiplications, 4 squares). */
static void ge_double(ge_ext *r, const ge_ext *p) {
    fe a, b, c, d, e, f, g, h, t;
    fe_sq(a, p->X);
    fe_sq(b, p->Y);
    fe_sq(c, p->Z);
    fe_add(c, c, c);
    fe_neg(d, a); /* a * A with a = -1 */
    fe_add(t, p->X, p->Y);
    fe_sq(e, t);
    fe_sub(e, e, a);
    fe_sub(e, e, b);
    fe_add(g, d, b);
    fe_sub(f, g, c);
    fe_sub(h, d, b);
    fe_mul(r->X, e, f);
    fe_mul(r->Y, g, h);
    fe_mul(r->T, e, h);
    fe_mul(r->Z, f, g);
}

/* RFC 9496, section 4.3.1, up to SQRT_RATIO_M1's exponentiation: -1 for an encoding refused
 * before it (the identity, as group.decode_point refuses it, a non-canonical or negative s). */
typedef struct {
    fe s, u1, u2, v, t, v3, w;
} decoding;

static int ristretto_decode_start(decoding *d, const unsigned char s_bytes[32]) {
    static const unsigned char zero[32] = {0};
    int refused = 0;
    if (memcmp(s_bytes, zero, 32) == 0) refused = 1;
    /* canonical: s < p = 2^255 - 19 (bit 255 clear, and not in [p, 2^255)) */
    if (s_bytes[31] & 0x80) refused = 1;
    if (s_bytes[31] == 0x7f && s_bytes[0] >= 0xed) {
        int all_ff = 1;
        for (int i = 1; i < 31; i++)
            if (s_bytes[i] != 0xff) all_ff = 0;
        if (all_ff) refused = 1;
    }
    if (s_bytes[0] & 1) refused = 1; /* negative */
    fe ss, u2_sqr;
    fe_frombytes(d->s, s_bytes);
    fe_sq(ss, d->s);
    fe_sub(d->u1, FE_ONE, ss);
    fe_add(d->u2, FE_ONE, ss);
    fe_sq(u2_sqr, d->u2);
    fe_sq(d->t, d->u1);
    fe_mul(d->t, d->t, FE_D);
    fe_neg(d->t, d->t);
    fe_sub(d->v, d->t, u2_sqr); /* v = -(D u1^2) - u2^2 */
    fe_mul(d->t, d->v, u2_sqr);
    fe_sqrt_ratio_m1_start(d->v3, d->w, FE_ONE, d->t);
    return refused ? -1 : 0;
}

/* The rest of the decoding, from pow = w^((p-5)/8). Returns 0 for an accepted encoding. */
static int ristretto_decode_finish(ge_ext *p, const decoding *d, const fe pow) {
    fe invsqrt, den_x, den_y, t;
    int was_square = fe_sqrt_ratio_m1_finish(invsqrt, FE_ONE, d->t, d->v3, pow);
    fe_mul(den_x, invsqrt, d->u2);
    fe_mul(den_y, invsqrt, den_x);
    fe_mul(den_y, den_y, d->v);
    fe_add(t, d->s, d->s);
    fe_mul(t, t, den_x);
    fe_abs(p->X, t);
    fe_mul(p->Y, d->u1, den_y);
    fe_copy(p->Z, FE_ONE);
    fe_mul(p->T, p->X, p->Y);
    if (!was_square || fe_is_negative(p->T) || fe_is_zero(p->Y)) return -1;
    return 0;
}

/* RFC 9496, section 4.3.1. Returns 0 for an accepted encoding; the identity (all zero) is
 * refused here too, as group.decode_point refuses it. */
static int ristretto_decode(ge_ext *p, const unsigned char s_bytes[32]) {
    decoding d;
    fe pow;
    if (ristretto_decode_start(&d, s_bytes) != 0) return -1;
    fe_pow_p58(pow, d.w);
    return ristretto_decode_finish(p, &d, pow);
}

/* ristretto_decode of encodings[j] into points[j] for j < n, up to DECODE_LANES at a time, their
 * exponentiations side by side (fe_pow_p58_lanes). Returns the first j refused, or -1. */
static ptrdiff_t ristretto_decode_many(ge_ext *points, const unsigned char *encodings, size_t n) {
    for (size_t j = 0; j < n; j += DECODE_LANES) {
        const int lanes = n - j < DECODE_LANES ? (int)(n - j) : DECODE_LANES;
        decoding d[DECODE_LANES];
        fe w[DECODE_LANES], pow[DECODE_LANES];
        int refused[DECODE_LANES];
        for (int l = 0; l < lanes; l++) {
            refused[l] = ristretto_decode_start(&d[l], encodings + 32 * (j + (size_t)l));
            fe_copy(w[l], d[l].w);
        }
        fe_pow_p58_lanes(pow, w, lanes);
        for (int l = 0; l < lanes; l++)
            if (ristretto_decode_finish(&points[j + (size_t)l], &d[l], pow[l]) != 0) refused[l] = -1;
        for (int l = 0; l < lanes; l++)
            if (refused[l] != 0) return (ptrdiff_t)(j + (size_t)l);
    }
    return -1;
}

/* RFC 9496, section 4.3.2 (the identity encodes as 32 zero bytes); constant time. */
static void ristretto_encode(unsigned char out[32], const ge_ext *p) {
    fe u1, u2, t, invsqrt, den1, den2, z_inv, ix0, iy0, ench, x, y, den_inv;
    fe_add(t, p->Z, p->Y);
    fe_sub(u1, p->Z, p->Y);
    fe_mul(u1, t, u1);
    fe_mul(u2, p->X, p->Y);
    fe_sq(t, u2);
    fe_mul(t, t, u1);
    fe_sqrt_ratio_m1(invsqrt, FE_ONE, t);
    fe_mul(den1, invsqrt, u1);
    fe_mul(den2, invsqrt, u2);
    fe_mul(z_inv, den1, den2);
    fe_mul(z_inv, z_inv, p->T);
    fe_mul(ix0, p->X, FE_SQRT_M1);
    fe_mul(iy0, p->Y, FE_SQRT_M1);
    fe_mul(ench, den1, FE_INVSQRT_A_MINUS_D);
    fe_mul(t, p->T, z_inv);
    const uint64_t rotate = (uint64_t)fe_is_negative(t);
    fe_copy(x, p->X);
    fe_copy(y, p->Y);
    fe_copy(den_inv, den2);
    fe_cmov(x, iy0, rotate);
    fe_cmov(y, ix0, rotate);
    fe_cmov(den_inv, ench, rotate);
    fe_mul(t, x, z_inv);
    fe_neg(ix0, y); /* ix0 is free again: -y */
    fe_cmov(y, ix0, (uint64_t)fe_is_negative(t));
    fe_sub(t, p->Z, y);
    fe_mul(t, den_inv, t);
    fe_abs(t, t);
    fe_tobytes(out, t);
}

/* ---- scalars: signed base-2^c digits -------------------------------------------------------- */

#define SCALAR_BITS 253 /* every scalar is below L < 2^253 */

/* Bits pos .. pos + c - 1 of k (little-endian), those from bit 256 on read as zeros; c <= 24, so
 * with the shift pos % 8 they lie in the four bytes from pos / 8: one 32-bit read, not a loop
 * over the bits (the recoding of a verify's large sums went bit by bit: about 3 % of its work).
 * Public scalars only (the variable-time sums): the bytes read depend on pos, not on k. */
static unsigned window_bits(const unsigned char k[32], unsigned pos, unsigned c) {
    if (pos >= 256) return 0;
    const unsigned at = pos >> 3;
    uint32_t w = 0;
    if (at <= 28)
        w = (uint32_t)k[at] | (uint32_t)k[at + 1] << 8 | (uint32_t)k[at + 2] << 16 | (uint32_t)k[at + 3] << 24;
    else
        for (unsigned i = at; i < 32; i++) w |= (uint32_t)k[i] << (8 * (i - at));
    return (unsigned)(w >> (pos & 7)) & ((1u << c) - 1u);
}

/* Digits d_j in [-2^(c-1), 2^(c-1)] with k = sum d_j 2^(c j), j < nwin = ceil(253 / c) + 1. */
static void recode_signed(int32_t *digits, const unsigned char k[32], unsigned c, unsigned nwin) {
    int32_t carry = 0;
    const int32_t half = 1 << (c - 1), full = 1 << c;
    for (unsigned j = 0; j < nwin; j++) {
        int32_t v = (int32_t)window_bits(k, j * c, c) + carry;
        if (v > half) {
            digits[j] = v - full;
            carry = 1;
        } else {
            digits[j] = v;
            carry = 0;
        }
    }
}

static unsigned windows_for(unsigned c) { return (SCALAR_BITS + c - 1) / c + 1; }

/* ---- sum(k_i P_i) --------------------------------------------------------------------------- */

/* Straus: a table P, 2P, ..., 8P per point, 4-bit signed digits, one chain of doublings. */
static int msm_straus(ge_ext *acc, const ge_ext *points, const unsigned char *scalars, size_t n) {
    const unsigned c = 4, nwin = windows_for(4), half = 8;
    ge_cached *table = malloc(n * half * sizeof(ge_cached));
    int32_t *digits = malloc(n * nwin * sizeof(int32_t));
    if (table == NULL || digits == NULL) {
        free(table);
        free(digits);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        ge_ext multiple = points[i], two;
        ge_cached *row = table + i * half;
        ge_to_cached(&row[0], &points[i]);
        ge_double(&two, &points[i]);
        ge_to_cached(&row[1], &two);
        multiple = two;
        for (unsigned m = 2; m < half; m++) {
            ge_add_cached(&multiple, &multiple, &row[0], 0);
            ge_to_cached(&row[m], &multiple);
        }
        recode_signed(digits + i * nwin, scalars + 32 * i, c, nwin);
    }
    int empty = 1;
    ge_identity(acc);
    for (unsigned j = nwin; j-- > 0;) {
        if (!empty)
            for (unsigned b = 0; b < c; b++) ge_double(acc, acc);
        for (size_t i = 0; i < n; i++) {
            int32_t d = digits[i * nwin + j];
            if (d == 0) continue;
            const ge_cached *q = &table[i * half + (unsigned)(d > 0 ? d : -d) - 1];
            ge_add_cached(acc, acc, q, d < 0);
            empty = 0;
        }
    }
    free(table);
    free(digits);
    return 0;
}

/* Pippenger with signed digits: per window, each term goes into bucket |d| (negated when
 * d < 0); sum_m m B_m comes from two running sums; the windows are joined by Horner's rule. */
static int msm_pippenger(ge_ext *acc, const ge_ext *points, const unsigned char *scalars, size_t n,
                         unsigned c) {
    const unsigned nwin = windows_for(c);
    const size_t nbuckets = (size_t)1 << (c - 1);
    ge_cached *cached = malloc(n * sizeof(ge_cached));
    int32_t *digits = malloc(n * nwin * sizeof(int32_t));
    ge_ext *buckets = malloc(nbuckets * sizeof(ge_ext));
    unsigned char *used = malloc(nbuckets);
    if (cached == NULL || digits == NULL || buckets == NULL || used == NULL) {
        free(cached);
        free(digits);
        free(buckets);
        free(used);
        return -1;
    }
    int z_one = 1; /* every point fresh from ristretto_decode (Z = 1 exactly): 8-multiplication adds */
    int32_t point_digits[SCALAR_BITS + 2]; /* nwin <= 128 for any c >= 2 */
    for (size_t i = 0; i < n; i++) {
        ge_to_cached(&cached[i], &points[i]);
        /* stored window by window (digits[j n + i]): each window then reads its digits in order,
         * not one per cache line (a few per cent faster at thousands of terms) */
        recode_signed(point_digits, scalars + 32 * i, c, nwin);
        for (unsigned j = 0; j < nwin; j++) digits[(size_t)j * n + i] = point_digits[j];
        if (memcmp(points[i].Z, FE_ONE, sizeof(fe)) != 0) z_one = 0;
    }
    int empty = 1;
    ge_identity(acc);
    for (unsigned j = nwin; j-- > 0;) {
        if (!empty)
            for (unsigned b = 0; b < c; b++) ge_double(acc, acc);
        memset(used, 0, nbuckets);
        const int32_t *window_digits = digits + (size_t)j * n;
        for (size_t i = 0; i < n; i++) {
            int32_t d = window_digits[i];
            if (d == 0) continue;
            size_t m = (size_t)(d > 0 ? d : -d) - 1;
            if (used[m]) {
                if (z_one)
                    ge_add_cached_any(&buckets[m], &buckets[m], &cached[i], d < 0, 1);
                else
                    ge_add_cached(&buckets[m], &buckets[m], &cached[i], d < 0);
            } else {
                buckets[m] = points[i];
                if (d < 0) {
                    fe_neg(buckets[m].X, buckets[m].X);
                    fe_neg(buckets[m].T, buckets[m].T);
                }
                used[m] = 1;
            }
        }
        /* running = B_top + ... + B_m; window = sum over m of running */
        ge_ext running, window;
        int running_set = 0, window_set = 0;
        for (size_t m = nbuckets; m-- > 0;) {
            if (used[m]) {
                if (running_set)
                    ge_add(&running, &running, &buckets[m]);
                else
                    running = buckets[m];
                running_set = 1;
            }
            if (running_set) {
                if (window_set)
                    ge_add(&window, &window, &running);
                else
                    window = running;
                window_set = 1;
            }
        }
        if (window_set) {
            if (empty)
                *acc = window;
            else
                ge_add(acc, acc, &window);
            empty = 0;
        }
    }
    free(cached);
    free(digits);
    free(buckets);
    free(used);
    return 0;
}

/* Point additions (doublings counted alike) of each method, to choose between them. */
static double straus_cost(size_t n) { return 4.0 * windows_for(4) + (double)n * (8 + windows_for(4)); }

static double pippenger_cost(size_t n, unsigned c) {
    return (double)windows_for(c) * ((double)n + 2.0 * (double)((size_t)1 << (c - 1)) + c);
}

static unsigned best_window(size_t n) {
    unsigned best = 2;
    for (unsigned c = 3; c <= 16; c++)
        if (pippenger_cost(n, c) < pippenger_cost(n, best)) best = c;
    return best;
}

/* ---- the prover's path: SECRET scalars, constant time ----------------------------------------
 *
 * The method is the fixed-base scalar multiplication of D. J. Bernstein, N. Duif, T. Lange,
 * P. Schwabe, B.-Y. Yang, "High-speed high-security signatures", CHES 2011 (J. Cryptographic
 * Engineering 2(2), 2012), section 4: the scalar is written in signed radix 16,
 * k = sum_{i<64} e_i 16^i with every e_i in [-8, 8]; a table holds j 16^(2m) P for j = 1..8 and
 * m = 0..31, so k P = 16 (sum_m e_{2m+1} 16^(2m) P) + sum_m e_{2m} 16^(2m) P costs 64 additions
 * and 4 doublings; each e_i 16^(2m) P is read from its row by scanning all eight entries with
 * conditional moves and negated by a conditional move, so no branch and no memory address
 * depends on the scalar. The same digits and the same selection serve Straus's interleaving
 * (`lincomb_ct`): one 8-entry table per point, built from the public point, then 64 rounds of
 * 4 doublings and one selected addition per point. The additions are the complete unified
 * formula above (no case for the identity or for equal points), the field arithmetic has no
 * branch, and the encoding of the result is constant time (see fe_cmov). What is and is not
 * claimed, and how it was checked: docs/crypto.md, "The prover's constant-time path".
 */

#define CT_DIGITS 64
#define CT_ROWS 32

/* 1/z = z^(p - 2) = z^(2^255 - 21) = (z^(2^250 - 1))^(2^5) * z^11 (Fermat). */
static void fe_invert(fe out, const fe z) {
    fe t, z11;
    fe_pow_2_250_1(t, z11, z);
    fe_sqn(t, t, 5);
    fe_mul(out, t, z11);
}

/* The tables of the constant-time path hold PUBLIC multiples with Z = 1 (y + x, y - x, 1, 2dxy):
 * 8-multiplication additions and three field elements to move per entry. One inversion for all
 * of them (Montgomery's trick: P. L. Montgomery, "Speeding the Pollard and elliptic curve methods
 * of factorization", Math. Comp. 48, 1987, section 10.3.1). */
static int normalize_to_cached(ge_cached *out, const ge_ext *in, size_t m) {
    fe *prefix = malloc((m ? m : 1) * sizeof(fe));
    if (prefix == NULL) return -1;
    fe acc, inv, zinv, x, y;
    fe_copy(acc, FE_ONE);
    for (size_t i = 0; i < m; i++) {
        fe_copy(prefix[i], acc);
        fe_mul(acc, acc, in[i].Z);
    }
    fe_invert(inv, acc);
    for (size_t i = m; i-- > 0;) {
        fe_mul(zinv, inv, prefix[i]);
        fe_mul(inv, inv, in[i].Z);
        fe_mul(x, in[i].X, zinv);
        fe_mul(y, in[i].Y, zinv);
        fe_add(out[i].YpX, y, x);
        fe_sub(out[i].YmX, y, x);
        fe_copy(out[i].Z, FE_ONE);
        fe_mul(out[i].T2d, x, y);
        fe_mul(out[i].T2d, out[i].T2d, FE_D2);
    }
    free(prefix);
    return 0;
}

/* Secret data is overwritten before its memory is given back. */
static void wipe(void *p, size_t len) {
    memset(p, 0, len);
    /* the empty asm takes p and clobbers memory: the compiler must assume the zeros are read, so
     * it cannot drop the memset as a dead store (the barrier of BoringSSL's OPENSSL_cleanse); a
     * byte-by-byte volatile loop did the same at a tenth of the speed, in every digit's selection */
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* k = sum e_i 16^i, e_i in [-8, 8] (k < 2^255, so the last digit is at most 8). */
static void recode_radix16(signed char e[CT_DIGITS], const unsigned char k[32]) {
    for (int i = 0; i < 32; i++) {
        e[2 * i] = (signed char)(k[i] & 15);
        e[2 * i + 1] = (signed char)((k[i] >> 4) & 15);
    }
    int carry = 0;
    for (int i = 0; i < CT_DIGITS - 1; i++) {
        int v = e[i] + carry; /* in [0, 16] */
        carry = (v + 8) >> 4; /* 1 when v >= 8 */
        e[i] = (signed char)(v - 16 * carry);
    }
    e[CT_DIGITS - 1] = (signed char)(e[CT_DIGITS - 1] + carry);
}

/* 1 when a == b, else 0 (a, b < 2^32), without a branch. */
static inline uint64_t ct_equal(uint32_t a, uint32_t b) { return ((uint64_t)(a ^ b) - 1) >> 63; }

/* t = d * P from row = (P, 2P, ..., 8P), d in [-8, 8]: all eight entries are read. Every entry
 * has Z = 1 (normalize_to_cached), as the identity has: Z is not moved. */
static void select_ct(ge_cached *t, const ge_cached row[8], signed char d) {
    const int32_t dd = d;
    const uint32_t negative = (uint32_t)dd >> 31; /* 1 when d < 0 */
    const int32_t mask = -(int32_t)negative;
    const uint32_t magnitude = (uint32_t)((dd ^ mask) - mask);
    /* t = OR over j of (mask_j AND row[j - 1]), exactly one mask all ones (or none: d = 0, and
     * the identity (1, 1, 1, 0) is ORed in by the mask of magnitude == 0) */
    const uint64_t none = (uint64_t)0 - ct_equal(magnitude, 0);
    for (int i = 0; i < 5; i++) {
        t->YpX[i] = none & FE_ONE[i];
        t->YmX[i] = none & FE_ONE[i];
        t->T2d[i] = 0;
    }
    fe_copy(t->Z, FE_ONE);
    for (uint32_t j = 1; j <= 8; j++) {
        const uint64_t mask = (uint64_t)0 - ct_equal(magnitude, j);
        const ge_cached *u = &row[j - 1];
        for (int i = 0; i < 5; i++) {
            t->YpX[i] |= mask & u->YpX[i];
            t->YmX[i] |= mask & u->YmX[i];
            t->T2d[i] |= mask & u->T2d[i];
        }
    }
    /* -(X, Y, Z, T) = (-X, Y, Z, -T): Y + X and Y - X swap, 2dT changes sign; both under a mask */
    const uint64_t swap = (uint64_t)0 - (uint64_t)negative;
    for (int i = 0; i < 5; i++) {
        const uint64_t x = swap & (t->YpX[i] ^ t->YmX[i]);
        t->YpX[i] ^= x;
        t->YmX[i] ^= x;
    }
    fe minus_t;
    fe_neg(minus_t, t->T2d);
    fe_cmov(t->T2d, minus_t, negative);
    wipe(minus_t, sizeof minus_t);
}

/* Row m holds j 256^m P for j = 1..8 (256^m = 16^(2m)). Built from a public point. */
typedef struct {
    ge_cached row[CT_ROWS][8];
} fixed_table;

static int fixed_table_build(fixed_table *tab, const ge_ext *p) {
    ge_ext *multiples = malloc(CT_ROWS * 8 * sizeof(ge_ext));
    if (multiples == NULL) return -1;
    ge_ext base = *p;
    ge_cached first;
    for (int m = 0; m < CT_ROWS; m++) {
        ge_ext *row = multiples + 8 * m;
        row[0] = base;
        ge_to_cached(&first, &base);
        for (int j = 1; j < 8; j++) ge_add_cached(&row[j], &row[j - 1], &first, 0);
        for (int b = 0; b < 8; b++) ge_double(&base, &base);
    }
    int status = normalize_to_cached(&tab->row[0][0], multiples, CT_ROWS * 8);
    free(multiples);
    return status;
}

/* acc = sum_t k_t P_t over `count` fixed tables (Bernstein et al. 2012, section 4; the odd digits
 * of every scalar first, four doublings shared, then the even digits). */
static void fixed_lincomb_ct(ge_ext *acc, const fixed_table *const *tables, const unsigned char *const *k,
                             size_t count) {
    signed char e[CT_DIGITS];
    ge_cached t;
    ge_identity(acc);
    for (int parity = 1; parity >= 0; parity--) {
        for (size_t s = 0; s < count; s++) {
            recode_radix16(e, k[s]);
            for (int m = 0; m < CT_ROWS; m++) {
                select_ct(&t, tables[s]->row[m], e[2 * m + parity]);
                ge_add_cached_any(acc, acc, &t, 0, 1);
            }
        }
        if (parity == 1)
            for (int b = 0; b < 4; b++) ge_double(acc, acc);
    }
    wipe(e, sizeof e);
    wipe(&t, sizeof t);
}

/* Straus with the selection above: sum k_i P_i for secret k_i and public P_i. */
static int lincomb_ct_points(ge_ext *acc, const ge_ext *points, const unsigned char *scalars, size_t n) {
    ge_cached *table = malloc((n ? n : 1) * 8 * sizeof(ge_cached));
    ge_ext *multiples = malloc((n ? n : 1) * 8 * sizeof(ge_ext));
    signed char *digits = malloc((n ? n : 1) * CT_DIGITS);
    if (table == NULL || multiples == NULL || digits == NULL) {
        free(table);
        free(multiples);
        free(digits);
        return -1;
    }
    ge_cached first;
    for (size_t i = 0; i < n; i++) {
        ge_ext *row = multiples + 8 * i;
        row[0] = points[i];
        ge_to_cached(&first, &points[i]);
        for (int j = 1; j < 8; j++) ge_add_cached(&row[j], &row[j - 1], &first, 0);
        recode_radix16(digits + CT_DIGITS * i, scalars + 32 * i);
    }
    int status = normalize_to_cached(table, multiples, 8 * n);
    free(multiples);
    if (status != 0) {
        wipe(digits, n * CT_DIGITS);
        free(table);
        free(digits);
        return -1;
    }
    ge_cached t;
    ge_identity(acc);
    for (int j = CT_DIGITS - 1; j >= 0; j--) {
        if (j != CT_DIGITS - 1)
            for (int b = 0; b < 4; b++) ge_double(acc, acc);
        for (size_t i = 0; i < n; i++) {
            select_ct(&t, table + 8 * i, digits[CT_DIGITS * i + (size_t)j]);
            ge_add_cached_any(acc, acc, &t, 0, 1);
        }
    }
    wipe(digits, n * CT_DIGITS);
    wipe(&t, sizeof t);
    free(table);
    free(digits);
    return 0;
}

/* ---- the prover's scalars mod L, constant time ------------------------------------------------
 *
 * Montgomery multiplication (P. L. Montgomery, "Modular multiplication without trial division",
 * Math. Comp. 44(170), 1985), limb by limb, in radix 2^52 with five limbs and R = 2^260, for the
 * prover's products of SECRET scalars (which group.py otherwise sends one by one to libsodium's
 * crypto_core_ristretto255_scalar_*). No branch and no memory index depends on a scalar: the
 * final subtraction of L is done always and undone by a mask. L = 2^252 + 27742317777372353535851937790883648493.
 */

typedef uint64_t sc[5]; /* value = sum a[i] 2^(52 i), limbs below 2^52 */

#define MASK52 ((uint64_t)0xfffffffffffffULL)
static const sc SC_L = {0x2631a5cf5d3edULL, 0xdea2f79cd6581ULL, 0x14def9ULL, 0, 0x100000000000ULL};
static const uint64_t SC_LFACTOR = 0x51da312547e1bULL; /* -1/L mod 2^52 */
static const sc SC_RR = {0x9d265e952d13bULL, 0xd63c715bea69fULL, 0x5be65cb687604ULL, 0x3dceec73d217fULL,
                         0x9411b7c309aULL}; /* R^2 mod L */
static const sc SC_ZERO = {0, 0, 0, 0, 0};

/* 32 bytes little-endian (a value below 2^256) into limbs. */
static void sc_frombytes(sc r, const unsigned char b[32]) {
    const uint64_t w0 = load64_le(b), w1 = load64_le(b + 8), w2 = load64_le(b + 16), w3 = load64_le(b + 24);
    r[0] = w0 & MASK52;
    r[1] = ((w0 >> 52) | (w1 << 12)) & MASK52;
    r[2] = ((w1 >> 40) | (w2 << 24)) & MASK52;
    r[3] = ((w2 >> 28) | (w3 << 36)) & MASK52;
    r[4] = w3 >> 16;
}

static void sc_tobytes(unsigned char b[32], const sc a) {
    const uint64_t w[4] = {a[0] | (a[1] << 52), (a[1] >> 12) | (a[2] << 40), (a[2] >> 24) | (a[3] << 28),
                           (a[3] >> 36) | (a[4] << 16)};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) b[8 * i + j] = (unsigned char)(w[i] >> (8 * j));
}

/* r = a - b mod L for a, b in [0, L) (any a - b in (-L, L)): L is added back under a mask when
 * the difference is negative. */
static void sc_sub(sc r, const sc a, const sc b) {
    sc d;
    uint64_t borrow = 0;
    for (int i = 0; i < 5; i++) {
        borrow = a[i] - (b[i] + (borrow >> 63));
        d[i] = borrow & MASK52;
    }
    const uint64_t negative = (uint64_t)0 - (borrow >> 63); /* all ones when a < b */
    uint64_t carry = 0;
    for (int i = 0; i < 5; i++) {
        carry = (carry >> 52) + d[i] + (SC_L[i] & negative);
        r[i] = carry & MASK52;
    }
}

/* r = a + b mod L for a, b in [0, L). */
static void sc_add(sc r, const sc a, const sc b) {
    sc s;
    uint64_t carry = 0;
    for (int i = 0; i < 5; i++) {
        carry = a[i] + b[i] + (carry >> 52);
        s[i] = carry & MASK52;
    }
    sc_sub(r, s, SC_L); /* s < 2L */
}

/* r = a b / R mod L for a, b in [0, L): the product's nine columns, then five steps that each
 * add the multiple of L making the lowest limb zero, and one final subtraction (the result of
 * the steps is below 2L). */
static void sc_mont_mul(sc r, const sc a, const sc b) {
    u128 z[9] = {0};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) z[i + j] += (u128)a[i] * b[j];
    uint64_t m[5];
    u128 carry = 0;
    for (int i = 0; i < 5; i++) {
        u128 sum = z[i] + carry;
        for (int j = 0; j < i; j++) sum += (u128)m[j] * SC_L[i - j];
        m[i] = ((uint64_t)sum * SC_LFACTOR) & MASK52;
        carry = (sum + (u128)m[i] * SC_L[0]) >> 52;
    }
    sc t;
    for (int i = 5; i < 9; i++) {
        u128 sum = z[i] + carry;
        for (int j = i - 4; j < 5; j++) sum += (u128)m[j] * SC_L[i - j];
        t[i - 5] = (uint64_t)sum & MASK52;
        carry = sum >> 52;
    }
    t[4] = (uint64_t)carry;
    sc_sub(r, t, SC_L);
}

/* r = a b mod L (a b / R, then times R^2 / R). */
static void sc_mul(sc r, const sc a, const sc b) {
    sc t;
    sc_mont_mul(t, a, b);
    sc_mont_mul(r, t, SC_RR);
}

/* 1 when the 32 bytes hold a value below L, else 0, without a branch on the value. */
static uint64_t sc_is_reduced(const unsigned char b[32]) {
    sc a;
    sc_frombytes(a, b);
    uint64_t borrow = 0;
    for (int i = 0; i < 5; i++) borrow = a[i] - (SC_L[i] + (borrow >> 63));
    return borrow >> 63; /* a - L < 0 */
}

#ifndef MSM_NO_PYTHON
/* ---- Python functions --------------------------------------------------------------------------- */

/* A refused point i: ValueError(("invalid point", i)), turned into decode_point's error by group.py. */
static void set_invalid_point(Py_ssize_t i) {
    PyObject *details = Py_BuildValue("(sn)", "invalid point", i);
    if (details != NULL) {
        PyErr_SetObject(PyExc_ValueError, details);
        Py_DECREF(details);
    }
}

#define DECODED_BYTES ((Py_ssize_t)sizeof(ge_ext))

static const char decode_doc[] =
    "decode_points(encodings) -> bytes\n\n"
    "RFC 9496 decoding of n canonical 32-byte encodings (the identity refused), each kept as its\n"
    "decoded form (DECODED_SIZE bytes) for lincomb_public_vartime, so a point received is decoded\n"
    "once. A refused point raises ValueError(('invalid point', i)) for the first such i.";

static PyObject *decode_points(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer eb;
    if (!PyArg_ParseTuple(args, "y*", &eb)) return NULL;
    PyObject *result = NULL;
    if (eb.len % 32 != 0) {
        PyErr_SetString(PyExc_ValueError, "encodings must be n * 32 bytes");
        goto done;
    }
    size_t n = (size_t)eb.len / 32;
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n * DECODED_BYTES);
    if (result == NULL) goto done;
    ge_ext *out = (ge_ext *)(void *)PyBytes_AS_STRING(result);
    const unsigned char *enc = eb.buf;
    Py_ssize_t bad = -1;
    Py_BEGIN_ALLOW_THREADS
    bad = ristretto_decode_many(out, enc, n);
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        Py_CLEAR(result);
        set_invalid_point(bad);
    }
done:
    PyBuffer_Release(&eb);
    return result;
}

static const char decode_list_doc[] =
    "decode_list(items) -> list[bytes] | None\n\n"
    "decode_points of a sequence of n points given one by one: the decoded form (DECODED_SIZE\n"
    "bytes) of each, in a list; None when an item is not a 32-byte bytes object (exactly bytes)\n"
    "or RFC 9496 refuses it (the caller finds which, and why, as it would without this).";

static PyObject *decode_list(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq)) return NULL;
    PyObject *fast = PySequence_Fast(seq, "items must be a sequence");
    if (fast == NULL) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    PyObject **items = PySequence_Fast_ITEMS(fast);
    PyObject *result = NULL;
    ge_ext *decoded = NULL;
    unsigned char *encodings = malloc(n ? (size_t)n * 32 : 1);
    decoded = malloc(n ? (size_t)n * sizeof(ge_ext) : 1);
    if (encodings == NULL || decoded == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int refused = 0;
    for (Py_ssize_t i = 0; i < n && !refused; i++) {
        PyObject *item = items[i];
        if (!PyBytes_CheckExact(item) || PyBytes_GET_SIZE(item) != 32)
            refused = 1;
        else
            memcpy(encodings + 32 * i, PyBytes_AS_STRING(item), 32);
    }
    if (!refused) {
        /* the GIL let go only for many points: for a few, releasing it costs more than it frees */
        PyThreadState *saved = n >= 16 ? PyEval_SaveThread() : NULL;
        refused = ristretto_decode_many(decoded, encodings, (size_t)n) >= 0;
        if (saved != NULL) PyEval_RestoreThread(saved);
    }
    if (refused) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    result = PyList_New(n);
    if (result == NULL) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *form = PyBytes_FromStringAndSize((const char *)&decoded[i], DECODED_BYTES);
        if (form == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, form);
    }
done:
    free(encodings);
    free(decoded);
    Py_DECREF(fast);
    return result;
}

static const char lincomb_doc[] =
    "lincomb_public_vartime(scalars, points) -> bytes\n\n"
    "sum(k_i * P_i) in ristretto255, in VARIABLE TIME: for public scalars only (verification).\n"
    "`scalars` is n 32-byte little-endian scalars below 2^253; `points` a list of n bytes, each a\n"
    "canonical 32-byte encoding (the identity refused), decoded here, or a form returned by\n"
    "decode_points (DECODED_SIZE bytes), used as it is. Returns the canonical encoding of the sum\n"
    "(32 zero bytes for the identity). A point that RFC 9496 refuses raises\n"
    "ValueError(('invalid point', i)).";

static PyObject *lincomb_public_vartime(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer sb;
    PyObject *list;
    if (!PyArg_ParseTuple(args, "y*O!", &sb, &PyList_Type, &list)) return NULL;
    PyObject *result = NULL;
    ge_ext *points = NULL;
    unsigned char *encodings = NULL;
    size_t *to_decode = NULL;
    size_t n = (size_t)PyList_GET_SIZE(list);
    if (sb.len < 0 || (size_t)sb.len != 32 * n) {
        PyErr_SetString(PyExc_ValueError, "one 32-byte scalar per point");
        goto done;
    }
    const unsigned char *scalars = sb.buf;
    for (size_t i = 0; i < n; i++) {
        if (scalars[32 * i + 31] >= 0x20) {
            PyErr_SetString(PyExc_ValueError, "scalar not below 2^253");
            goto done;
        }
    }
    points = malloc((n ? n : 1) * sizeof(ge_ext));
    encodings = malloc((n ? n : 1) * 32);
    to_decode = malloc((n ? n : 1) * sizeof(size_t));
    if (points == NULL || encodings == NULL || to_decode == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    size_t pending = 0;
    for (size_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, (Py_ssize_t)i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "points must be bytes");
            goto done;
        }
        Py_ssize_t len = PyBytes_GET_SIZE(item);
        if (len == 32) {
            memcpy(encodings + 32 * pending, PyBytes_AS_STRING(item), 32);
            to_decode[pending++] = i;
        } else if (len == DECODED_BYTES) {
            memcpy(&points[i], PyBytes_AS_STRING(item), sizeof(ge_ext));
        } else {
            set_invalid_point((Py_ssize_t)i);
            goto done;
        }
    }
    Py_ssize_t bad = -1;
    int status = 0;
    ge_ext sum;
    unsigned char out[32];
    Py_BEGIN_ALLOW_THREADS
    for (size_t j = 0; j < pending; j++) {
        if (ristretto_decode(&points[to_decode[j]], encodings + 32 * j) != 0) {
            bad = (Py_ssize_t)to_decode[j];
            break;
        }
    }
    if (bad < 0) {
        if (n == 0)
            ge_identity(&sum);
        else if (straus_cost(n) <= pippenger_cost(n, best_window(n)))
            status = msm_straus(&sum, points, scalars, n);
        else
            status = msm_pippenger(&sum, points, scalars, n, best_window(n));
        if (status == 0) ristretto_encode(out, &sum);
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0)
        set_invalid_point(bad);
    else if (status != 0)
        PyErr_NoMemory();
    else
        result = PyBytes_FromStringAndSize((const char *)out, 32);
done:
    free(points);
    free(encodings);
    free(to_decode);
    PyBuffer_Release(&sb);
    return result;
}

static const char fixed_table_doc[] =
    "fixed_table(point) -> bytes\n\n"
    "The table of j 256^m P (j = 1..8, m = 0..31) of a PUBLIC point P (a canonical encoding),\n"
    "for mul_fixed_ct. ValueError(('invalid point', 0)) when P does not decode.";

static PyObject *fixed_table_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pb;
    if (!PyArg_ParseTuple(args, "y*", &pb)) return NULL;
    PyObject *result = NULL;
    ge_ext p;
    if (pb.len != 32 || ristretto_decode(&p, pb.buf) != 0) {
        set_invalid_point(0);
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(fixed_table));
    if (result == NULL) goto done;
    fixed_table *tab = (fixed_table *)(void *)PyBytes_AS_STRING(result);
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = fixed_table_build(tab, &p);
    Py_END_ALLOW_THREADS
    if (status != 0) {
        Py_CLEAR(result);
        PyErr_NoMemory();
    }
done:
    PyBuffer_Release(&pb);
    return result;
}

/* Every scalar of the constant-time path must be below 2^255 (group.py reduces them mod L): the
 * only test made on a secret scalar, which a reduced scalar always passes. */
static int scalars_in_range(const unsigned char *k, size_t n) {
    unsigned high = 0;
    for (size_t i = 0; i < n; i++) high |= k[32 * i + 31];
    return (high & 0x80) == 0;
}

#define MAX_TABLES 4

static const char mul_fixed_doc[] =
    "mul_fixed_ct(tables, scalars, addends) -> bytes\n\n"
    "In CONSTANT TIME, for SECRET scalars: for i < n, the encoding of\n"
    "sum_t k_{t,i} P_t (+ A_i), where tables[t] = fixed_table(P_t) (1 to 4 tables), scalars[t] is\n"
    "n 32-byte little-endian scalars below 2^255 and addends is empty, n canonical encodings A_i\n"
    "(public points) or their n forms from decode_points. Returns n * 32 bytes (32 zero bytes for an identity result); with raw true,\n"
    "n * DECODED_SIZE bytes instead, the sums in the extension's own form, unencoded (for add_ct).";

static PyObject *mul_fixed_ct(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *tables_obj, *scalars_obj;
    Py_buffer ab;
    int raw = 0;
    if (!PyArg_ParseTuple(args, "O!O!y*|p", &PyTuple_Type, &tables_obj, &PyTuple_Type, &scalars_obj, &ab, &raw))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(tables_obj);
    const fixed_table *tables[MAX_TABLES];
    const unsigned char *scalars[MAX_TABLES];
    ge_ext *addends = NULL;
    Py_ssize_t n = -1;
    if (count < 1 || count > MAX_TABLES || PyTuple_GET_SIZE(scalars_obj) != count) {
        PyErr_SetString(PyExc_ValueError, "1 to 4 tables, one scalar string per table");
        goto done;
    }
    for (Py_ssize_t t = 0; t < count; t++) {
        PyObject *tab = PyTuple_GET_ITEM(tables_obj, t), *ks = PyTuple_GET_ITEM(scalars_obj, t);
        if (!PyBytes_Check(tab) || PyBytes_GET_SIZE(tab) != (Py_ssize_t)sizeof(fixed_table) || !PyBytes_Check(ks) ||
            PyBytes_GET_SIZE(ks) % 32 != 0 || (n >= 0 && PyBytes_GET_SIZE(ks) != 32 * n)) {
            PyErr_SetString(PyExc_ValueError, "tables from fixed_table, n 32-byte scalars for each");
            goto done;
        }
        n = PyBytes_GET_SIZE(ks) / 32;
        tables[t] = (const fixed_table *)(const void *)PyBytes_AS_STRING(tab);
        scalars[t] = (const unsigned char *)PyBytes_AS_STRING(ks);
        if (!scalars_in_range(scalars[t], (size_t)n)) {
            PyErr_SetString(PyExc_ValueError, "scalar not below 2^255");
            goto done;
        }
    }
    if (ab.len != 0 && ab.len != 32 * n && ab.len != DECODED_BYTES * n) {
        PyErr_SetString(PyExc_ValueError, "addends must be empty, n * 32 bytes or n decoded forms");
        goto done;
    }
    if (ab.len != 0) {
        addends = malloc((size_t)n * sizeof(ge_ext));
        if (addends == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        if (ab.len == DECODED_BYTES * n && n != 0) { /* forms from decode_points, used as they are */
            memcpy(addends, ab.buf, (size_t)n * sizeof(ge_ext));
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                if (ristretto_decode(&addends[i], (const unsigned char *)ab.buf + 32 * i) != 0) {
                    set_invalid_point(i);
                    goto done;
                }
            }
        }
    }
    result = PyBytes_FromStringAndSize(NULL, (raw ? DECODED_BYTES : 32) * n);
    if (result == NULL) goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    ge_ext acc;
    const unsigned char *k[MAX_TABLES];
    for (Py_ssize_t i = 0; i < n; i++) {
        for (Py_ssize_t t = 0; t < count; t++) k[t] = scalars[t] + 32 * i;
        fixed_lincomb_ct(&acc, tables, k, (size_t)count);
        if (addends != NULL) {
            ge_ext sum;
            ge_add(&sum, &acc, &addends[i]);
            acc = sum;
            wipe(&sum, sizeof sum);
        }
        if (raw)
            memcpy(out + DECODED_BYTES * i, &acc, sizeof acc);
        else
            ristretto_encode(out + 32 * i, &acc);
    }
    wipe(&acc, sizeof acc);
    Py_END_ALLOW_THREADS
done:
    free(addends);
    PyBuffer_Release(&ab);
    return result;
}

static const char add_ct_doc[] =
    "add_ct(secret, points) -> bytes\n\n"
    "In CONSTANT TIME in the SECRET points: for i < n, the encoding of S_i + P_i, where `secret` is\n"
    "n forms from mul_fixed_ct(..., raw=True) (S_i, never encoded) and `points` a list of n PUBLIC\n"
    "points, each a canonical encoding (decoded here, the identity refused:\n"
    "ValueError(('invalid point', i))) or a form from decode_points. Returns n * 32 bytes; with\n"
    "forms true, (those bytes, the sums' forms as decode_points gives them: n * DECODED_SIZE).\n"
    "(A shuffle's re-encryption: the input ciphertexts plus the prepared encryptions of zero.)";

/* p[i] = (X/Z, Y/Z, 1, XY/Z^2) for i < n, with one inversion for all (Montgomery's trick:
 * P. L. Montgomery, "Speeding the Pollard and elliptic curve methods of factorization", Math.
 * Comp. 48(177), 1987, section 10.3.1). For PUBLIC points (variable time is not needed here, but
 * nothing depends on the values anyway). */
static int normalize_ext(ge_ext *p, size_t n) {
    fe *prefix = malloc((n ? n : 1) * sizeof(fe));
    if (prefix == NULL) return -1;
    fe acc, inv, zinv;
    fe_copy(acc, FE_ONE);
    for (size_t i = 0; i < n; i++) {
        fe_copy(prefix[i], acc);
        fe_mul(acc, acc, p[i].Z);
    }
    fe_invert(inv, acc);
    for (size_t i = n; i-- > 0;) {
        fe_mul(zinv, inv, prefix[i]);
        fe_mul(inv, inv, p[i].Z);
        fe_mul(p[i].X, p[i].X, zinv);
        fe_mul(p[i].Y, p[i].Y, zinv);
        fe_copy(p[i].Z, FE_ONE);
        fe_mul(p[i].T, p[i].X, p[i].Y);
    }
    free(prefix);
    return 0;
}

static PyObject *add_ct(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer sb;
    PyObject *list;
    int want_forms = 0;
    if (!PyArg_ParseTuple(args, "y*O!|p", &sb, &PyList_Type, &list, &want_forms)) return NULL;
    PyObject *result = NULL, *encodings = NULL, *forms = NULL;
    ge_ext *points = NULL;
    size_t n = (size_t)PyList_GET_SIZE(list);
    if (sb.len < 0 || (size_t)sb.len != n * (size_t)DECODED_BYTES) {
        PyErr_SetString(PyExc_ValueError, "one secret form per point");
        goto done;
    }
    points = malloc((n ? n : 1) * sizeof(ge_ext));
    if (points == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, (Py_ssize_t)i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "points must be bytes");
            goto done;
        }
        Py_ssize_t len = PyBytes_GET_SIZE(item);
        const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(item);
        if (len == DECODED_BYTES)
            memcpy(&points[i], data, sizeof(ge_ext));
        else if (len != 32 || ristretto_decode(&points[i], data) != 0) {
            set_invalid_point((Py_ssize_t)i);
            goto done;
        }
    }
    encodings = PyBytes_FromStringAndSize(NULL, 32 * (Py_ssize_t)n);
    if (encodings == NULL) goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(encodings);
    const unsigned char *secret = (const unsigned char *)sb.buf;
    int status = 0;
    Py_BEGIN_ALLOW_THREADS
    ge_ext s, sum;
    for (size_t i = 0; i < n; i++) {
        memcpy(&s, secret + (size_t)DECODED_BYTES * i, sizeof s); /* the buffer need not be aligned */
        ge_add(&sum, &points[i], &s);
        points[i] = sum; /* the sums are public: the shuffle's outputs */
    }
    wipe(&s, sizeof s);
    wipe(&sum, sizeof sum);
    /* with Z = 1, the sums' forms are those decode_points would give (kept for later sums) */
    if (want_forms) status = normalize_ext(points, n);
    if (status == 0)
        for (size_t i = 0; i < n; i++) ristretto_encode(out + 32 * i, &points[i]);
    Py_END_ALLOW_THREADS
    if (status != 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (!want_forms) {
        result = encodings;
        encodings = NULL;
        goto done;
    }
    forms = PyBytes_FromStringAndSize((const char *)points, (Py_ssize_t)n * DECODED_BYTES);
    if (forms != NULL) result = PyTuple_Pack(2, encodings, forms);
done:
    Py_XDECREF(encodings);
    Py_XDECREF(forms);
    free(points);
    PyBuffer_Release(&sb);
    return result;
}

/* The scalar vectors of sc_muladd, sc_dot, sc_chain: each n 32-byte scalars below L, or one
 * (used for every i) where the doc says so. Returns n, or -1 with ValueError. Whether every
 * scalar is below L is tested on all of them together (one flag), the only test made on a secret
 * scalar, which a reduced scalar always passes. */
static Py_ssize_t sc_vector(const Py_buffer *b, Py_ssize_t n, int may_be_one) {
    if (b->len % 32 != 0 || (b->len != 32 * n && !(may_be_one && b->len == 32))) {
        PyErr_SetString(PyExc_ValueError, "scalar vectors of n 32-byte scalars (or one where allowed)");
        return -1;
    }
    uint64_t reduced = 1;
    for (Py_ssize_t i = 0; i < b->len / 32; i++) reduced &= sc_is_reduced((const unsigned char *)b->buf + 32 * i);
    if (!reduced) {
        PyErr_SetString(PyExc_ValueError, "scalar not reduced mod L");
        return -1;
    }
    return b->len / 32;
}

static const char sc_muladd_doc[] =
    "sc_muladd(a, b, c) -> bytes\n\n"
    "In CONSTANT TIME, for SECRET scalars: a_i b_i + c_i mod L for i < n, n * 32 bytes. Each of a,\n"
    "b, c is n 32-byte little-endian scalars below L, or a single one used for every i; c may also\n"
    "be empty (zero). n is the longest of the three.";

static PyObject *sc_muladd_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer ab, bb, cb;
    if (!PyArg_ParseTuple(args, "y*y*y*", &ab, &bb, &cb)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = ab.len > bb.len ? ab.len : bb.len;
    n = (cb.len > n ? cb.len : n) / 32;
    if (sc_vector(&ab, n, 1) < 0 || sc_vector(&bb, n, 1) < 0 || (cb.len != 0 && sc_vector(&cb, n, 1) < 0))
        goto done;
    result = PyBytes_FromStringAndSize(NULL, 32 * n);
    if (result == NULL) goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(result);
    const unsigned char *a = ab.buf, *b = bb.buf, *c = cb.buf;
    const size_t step_a = ab.len == 32 ? 0 : 32, step_b = bb.len == 32 ? 0 : 32, step_c = cb.len == 32 ? 0 : 32;
    Py_BEGIN_ALLOW_THREADS
    sc x, y, z;
    for (Py_ssize_t i = 0; i < n; i++) {
        sc_frombytes(x, a + step_a * (size_t)i);
        sc_frombytes(y, b + step_b * (size_t)i);
        sc_mul(z, x, y);
        if (cb.len != 0) {
            sc_frombytes(x, c + step_c * (size_t)i);
            sc_add(z, z, x);
        }
        sc_tobytes(out + 32 * i, z);
    }
    wipe(x, sizeof x);
    wipe(y, sizeof y);
    wipe(z, sizeof z);
    Py_END_ALLOW_THREADS
done:
    PyBuffer_Release(&ab);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&cb);
    return result;
}

static const char sc_dot_doc[] =
    "sc_dot(a, b) -> bytes\n\n"
    "In CONSTANT TIME, for SECRET scalars: sum a_i b_i mod L (32 bytes), a n 32-byte scalars below\n"
    "L, b n of them or a single one used for every i.";

static PyObject *sc_dot_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer ab, bb;
    if (!PyArg_ParseTuple(args, "y*y*", &ab, &bb)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = ab.len / 32;
    if (sc_vector(&ab, n, 0) < 0 || sc_vector(&bb, n, 1) < 0) goto done;
    const unsigned char *a = ab.buf, *b = bb.buf;
    const size_t step_b = bb.len == 32 && n != 1 ? 0 : 32;
    unsigned char out[32];
    Py_BEGIN_ALLOW_THREADS
    sc x, y, z, acc;
    memcpy(acc, SC_ZERO, sizeof acc);
    for (Py_ssize_t i = 0; i < n; i++) {
        sc_frombytes(x, a + 32 * (size_t)i);
        sc_frombytes(y, b + step_b * (size_t)i);
        sc_mul(z, x, y);
        sc_add(acc, acc, z);
    }
    sc_tobytes(out, acc);
    wipe(x, sizeof x);
    wipe(y, sizeof y);
    wipe(z, sizeof z);
    wipe(acc, sizeof acc);
    Py_END_ALLOW_THREADS
    result = PyBytes_FromStringAndSize((const char *)out, 32);
    wipe(out, sizeof out);
done:
    PyBuffer_Release(&ab);
    PyBuffer_Release(&bb);
    return result;
}

static const char sc_chain_doc[] =
    "sc_chain(u, r) -> bytes\n\n"
    "In CONSTANT TIME, for SECRET scalars: a_1..a_n then b_1..b_n (2n * 32 bytes), where\n"
    "a_i = u_i a_{i-1} and b_i = u_i b_{i-1} + r_i mod L from a_0 = 1, b_0 = 0 (the commitment\n"
    "chain c^_i = b_i G + a_i h of a shuffle proof, unrolled); u and r n 32-byte scalars below L.";

static PyObject *sc_chain_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer ub, rb;
    if (!PyArg_ParseTuple(args, "y*y*", &ub, &rb)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = ub.len / 32;
    if (sc_vector(&ub, n, 0) < 0 || sc_vector(&rb, n, 0) < 0) goto done;
    result = PyBytes_FromStringAndSize(NULL, 64 * n);
    if (result == NULL) goto done;
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(result);
    const unsigned char *u = ub.buf, *r = rb.buf;
    Py_BEGIN_ALLOW_THREADS
    sc a = {1, 0, 0, 0, 0}, b, x, y;
    memcpy(b, SC_ZERO, sizeof b);
    for (Py_ssize_t i = 0; i < n; i++) {
        sc_frombytes(x, u + 32 * (size_t)i);
        sc_mul(a, x, a);
        sc_mul(b, x, b);
        sc_frombytes(y, r + 32 * (size_t)i);
        sc_add(b, b, y);
        sc_tobytes(out + 32 * i, a);
        sc_tobytes(out + 32 * (n + i), b);
    }
    wipe(a, sizeof a);
    wipe(b, sizeof b);
    wipe(x, sizeof x);
    wipe(y, sizeof y);
    Py_END_ALLOW_THREADS
done:
    PyBuffer_Release(&ub);
    PyBuffer_Release(&rb);
    return result;
}

static const char lincomb_ct_doc[] =
    "lincomb_ct(scalars, points) -> bytes\n\n"
    "In CONSTANT TIME, for SECRET scalars: the encoding of sum(k_i * P_i), `scalars` n 32-byte\n"
    "little-endian scalars below 2^255, `points` n canonical encodings of PUBLIC points (the\n"
    "identity refused: ValueError(('invalid point', i))) or their n forms from decode_points.\n"
    "32 zero bytes for the identity.";

static PyObject *lincomb_ct(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer sb, pb;
    if (!PyArg_ParseTuple(args, "y*y*", &sb, &pb)) return NULL;
    PyObject *result = NULL;
    ge_ext *points = NULL;
    size_t n = (size_t)sb.len / 32;
    const int as_forms = n != 0 && pb.len == DECODED_BYTES * (Py_ssize_t)n;
    if (sb.len % 32 != 0 || (sb.len != pb.len && !as_forms)) {
        PyErr_SetString(PyExc_ValueError, "n 32-byte scalars and n points (encodings or decoded forms)");
        goto done;
    }
    if (!scalars_in_range(sb.buf, n)) {
        PyErr_SetString(PyExc_ValueError, "scalar not below 2^255");
        goto done;
    }
    points = malloc((n ? n : 1) * sizeof(ge_ext));
    if (points == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (as_forms)
        memcpy(points, pb.buf, n * sizeof(ge_ext));
    else
        for (size_t i = 0; i < n; i++) {
            if (ristretto_decode(&points[i], (const unsigned char *)pb.buf + 32 * i) != 0) {
                set_invalid_point((Py_ssize_t)i);
                goto done;
            }
        }
    int status;
    ge_ext sum;
    unsigned char out[32];
    Py_BEGIN_ALLOW_THREADS
    status = lincomb_ct_points(&sum, points, sb.buf, n);
    if (status == 0) ristretto_encode(out, &sum);
    wipe(&sum, sizeof sum);
    Py_END_ALLOW_THREADS
    if (status != 0)
        PyErr_NoMemory();
    else
        result = PyBytes_FromStringAndSize((const char *)out, 32);
done:
    free(points);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&pb);
    return result;
}

static PyObject *public_table_py(PyObject *self, PyObject *args);
static PyObject *lincomb_public_wnaf(PyObject *self, PyObject *args);
static PyObject *sum_public(PyObject *self, PyObject *args);
static PyObject *ed25519_cofactored_sum_py(PyObject *self, PyObject *args);
static PyObject *ed25519_key_table_py(PyObject *self, PyObject *args);
static PyObject *ed25519_check_py(PyObject *self, PyObject *args);
static const char ed25519_doc[] =
    "ed25519_cofactored_sum(points, scalars, base_scalar) -> bool\n\n"
    "Whether [8](sum k_i P_i + b B) is the identity of edwards25519, B its base point, in VARIABLE\n"
    "TIME (public data only: signatures being checked). `points` is n Ed25519 encodings (RFC 8032,\n"
    "5.1.3: y below p, x recovered, the sign bit honoured), `scalars` n 32-byte little-endian\n"
    "scalars below 2^253, `base_scalar` one more. False as well when a point does not decode or\n"
    "is of small order ([8]P the identity): no signature with such an R or key verifies.";

static PyMethodDef methods[] = {
    {"decode_points", decode_points, METH_VARARGS, decode_doc},
    {"decode_list", decode_list, METH_VARARGS, decode_list_doc},
    {"lincomb_public_vartime", lincomb_public_vartime, METH_VARARGS, lincomb_doc},
    {"fixed_table", fixed_table_py, METH_VARARGS, fixed_table_doc},
    {"mul_fixed_ct", mul_fixed_ct, METH_VARARGS, mul_fixed_doc},
    {"add_ct", add_ct, METH_VARARGS, add_ct_doc},
    {"sc_muladd", sc_muladd_py, METH_VARARGS, sc_muladd_doc},
    {"sc_dot", sc_dot_py, METH_VARARGS, sc_dot_doc},
    {"sc_chain", sc_chain_py, METH_VARARGS, sc_chain_doc},
    {"lincomb_ct", lincomb_ct, METH_VARARGS, lincomb_ct_doc},
    /* issue 29, the flip (defined at the end of this file) */
    {"public_table", public_table_py, METH_VARARGS,
     "public_table(point) -> bytes: P, 3P, ..., 63P of a PUBLIC point, for lincomb_public_wnaf."},
    {"lincomb_public_wnaf", lincomb_public_wnaf, METH_VARARGS,
     "lincomb_public_wnaf(scalars, points) -> bytes: sum(k_i * P_i) in VARIABLE TIME (public\n"
     "scalars only) by interleaved wNAF; points are encodings, decode_points forms or public_table\n"
     "tables."},
    {"sum_public", sum_public, METH_VARARGS,
     "sum_public(points, negate) -> bytes: sum (-1)^negate[i] P_i of PUBLIC points (encodings or\n"
     "decode_points forms), decoded once, encoded once."},
    /* protocol version 6: Ed25519 signatures checked in a batch (defined at the end of this file) */
    {"ed25519_cofactored_sum", ed25519_cofactored_sum_py, METH_VARARGS, ed25519_doc},
    {"ed25519_key_table", ed25519_key_table_py, METH_VARARGS,
     "ed25519_key_table(key) -> bytes | None: the tables of -A, [2^64](-A), [2^128](-A), [2^192](-A)\n"
     "for ed25519_check; None when the key does not decode or is of small order."},
    {"ed25519_check", ed25519_check_py, METH_VARARGS,
     "ed25519_check(key_table, r, k, s) -> bool: whether [8]([s]B - [k]A - R) is the identity (R\n"
     "decoded, not of small order), in VARIABLE TIME (public data: a signature being checked);\n"
     "k and s are 32-byte little-endian scalars below L."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_msm",
    "ristretto255 for skyjo-lan: a multi-scalar multiplication for PUBLIC scalars (variable time)\n"
    "and constant-time fixed-base and Straus multiplications for the prover's SECRET scalars\n"
    "(see _msm.c).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__msm(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "DECODED_SIZE", (long)sizeof(ge_ext)) < 0 ||
        PyModule_AddIntConstant(m, "FIXED_TABLE_SIZE", (long)sizeof(fixed_table)) < 0 ||
        PyModule_AddIntConstant(m, "PUBLIC_TABLE_SIZE", (long)(32 * sizeof(ge_cached))) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
#endif /* MSM_NO_PYTHON */

/* ---- issue 29, the flip: small public sums by interleaved wNAF, a public card's shares summed -----
 *
 * A flip's share proofs are checked in sums of a dozen terms (`lincomb_public_wnaf`), where most
 * of the cost is the additions of Straus's interleaving. Here each scalar is written in width-w
 * non-adjacent form (wNAF: J. A. Solinas, "Efficient arithmetic on Koblitz curves", Designs, Codes
 * and Cryptography 19, 2000, section 4; digits odd, |d| < 2^(w-1), at most one non-zero digit in
 * any w consecutive ones: about 253 / (w + 1) additions a scalar instead of 253 / 4), and the
 * wNAFs are interleaved over one chain of doublings (B. Moller, "Algorithms for
 * multi-exponentiation", SAC 2001, section 3.2; Hankerson, Menezes, Vanstone, "Guide to Elliptic
 * Curve Cryptography", 2004, algorithm 3.51). Two more savings:
 *   - each scalar k is replaced by the shorter of k and L - k, the point negated for the latter:
 *     a batch weight -r with r < 2^128 (a commitment's coefficient) costs 128 bits, not 253;
 *   - a point used in many sums (G, a seat's key share) may come with its table of odd multiples
 *     P, 3P, ..., 63P precomputed once (`public_table`, w = 7, normalised to Z = 1 with one
 *     inversion, so its additions cost 8 multiplications); other points get P, 3P, ..., 15P
 *     (w = 5) per call, the same 8 entries as msm_straus's table.
 * VARIABLE TIME, like lincomb_public_vartime: public scalars only.
 */

#define WNAF_W 5         /* per-call tables: P, 3P, ..., 15P */
#define WNAF_W_LASTING 7 /* precomputed tables: P, 3P, ..., 63P */
#define WNAF_LEN 256     /* digits of a scalar below 2^253: at most 254 */

typedef struct {
    ge_cached odd[1 << (WNAF_W_LASTING - 2)];
} wnaf_table;

/* L in 32 little-endian bytes */
static const unsigned char L_BYTES[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                                          0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
                                          0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};

static unsigned bit_length(const unsigned char k[32]) {
    for (int i = 31; i >= 0; i--)
        if (k[i]) {
            unsigned bits = 0;
            for (unsigned v = k[i]; v; v >>= 1) bits++;
            return 8 * (unsigned)i + bits;
        }
    return 0;
}

/* out = L - k for 0 < k < L; returns 0 when k >= L or k = 0 (nothing is written then). */
static int l_minus(unsigned char out[32], const unsigned char k[32]) {
    int i;
    for (i = 31; i >= 0 && k[i] == L_BYTES[i]; i--) {
    }
    if (i < 0 || k[i] > L_BYTES[i] || bit_length(k) == 0) return 0;
    int borrow = 0;
    for (int j = 0; j < 32; j++) {
        int v = (int)L_BYTES[j] - (int)k[j] - borrow;
        borrow = v < 0;
        out[j] = (unsigned char)(v + 256 * borrow);
    }
    return 1;
}

/* The width-w NAF of k < 2^253 (w <= 8): k = sum naf[i] 2^i, at most 254 digits. Returns the number
 * of digits up to the last non-zero one. */
static unsigned wnaf_recode(signed char naf[WNAF_LEN], const unsigned char k[32], unsigned w) {
    const unsigned width = 1u << w, half = width >> 1;
    unsigned carry = 0, pos = 0, len = 0;
    memset(naf, 0, WNAF_LEN);
    while (pos < WNAF_LEN) { /* window_bits reads zeros past bit 255 */
        unsigned window = carry + window_bits(k, pos, w);
        if ((window & 1) == 0) { /* this bit of k + carry 2^pos is zero: the carry moves up */
            pos++;
            continue;
        }
        if (window < half) {
            naf[pos] = (signed char)window;
            carry = 0;
        } else {
            naf[pos] = (signed char)((int)window - (int)width);
            carry = 1;
        }
        len = pos + 1;
        pos += w;
    }
    return len;
}

/* tab = P, 3P, ..., (2m - 1)P (m entries, Z as computed). */
static void odd_multiples(ge_cached *tab, const ge_ext *p, unsigned m) {
    ge_ext two, cur = *p;
    ge_cached two_cached;
    ge_double(&two, p);
    ge_to_cached(&two_cached, &two);
    ge_to_cached(&tab[0], p);
    for (unsigned j = 1; j < m; j++) {
        ge_add_cached(&cur, &cur, &two_cached, 0);
        ge_to_cached(&tab[j], &cur);
    }
}

static int wnaf_table_build(wnaf_table *tab, const ge_ext *p) {
    enum { M = 1 << (WNAF_W_LASTING - 2) };
    ge_ext multiples[M], two;
    ge_cached two_cached;
    multiples[0] = *p;
    ge_double(&two, p);
    ge_to_cached(&two_cached, &two);
    for (unsigned j = 1; j < M; j++) ge_add_cached(&multiples[j], &multiples[j - 1], &two_cached, 0);
    return normalize_to_cached(tab->odd, multiples, M);
}

/* One term of a wNAF sum: its table (z_one when every entry has Z = 1), its digits, its sign. */
typedef struct {
    const ge_cached *table;
    signed char digits[WNAF_LEN];
    unsigned len;
    int negate;
    int z_one;
    int decode; /* its point is an encoding still to decode (lincomb_public_wnaf) */
} wnaf_term;

/* acc = sum over the terms of (-1)^negate sum_i digits[i] 2^i P (tables already filled). */
static void msm_wnaf(ge_ext *acc, const wnaf_term *terms, size_t n) {
    unsigned top = 0;
    for (size_t t = 0; t < n; t++)
        if (terms[t].len > top) top = terms[t].len;
    int empty = 1;
    ge_identity(acc);
    for (unsigned i = top; i-- > 0;) {
        if (!empty) ge_double(acc, acc);
        for (size_t t = 0; t < n; t++) {
            const int d = terms[t].digits[i];
            if (d == 0) continue;
            const ge_cached *q = &terms[t].table[((d > 0 ? d : -d) - 1) / 2];
            const int negate = (d < 0) ^ terms[t].negate;
            if (terms[t].z_one)
                ge_add_cached_any(acc, acc, q, negate, 1);
            else
                ge_add_cached(acc, acc, q, negate);
            empty = 0;
        }
    }
}

#ifndef MSM_NO_PYTHON
#define WNAF_TABLE_BYTES ((Py_ssize_t)sizeof(wnaf_table))
_Static_assert(sizeof(wnaf_table) == 32 * sizeof(ge_cached), "PUBLIC_TABLE_SIZE in PyInit__msm");

/* public_table(point) -> bytes: the table of P, 3P, ..., 63P of a PUBLIC point (a canonical
 * encoding), for lincomb_public_wnaf. ValueError(('invalid point', 0)) when P does not decode. */
static PyObject *public_table_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pb;
    if (!PyArg_ParseTuple(args, "y*", &pb)) return NULL;
    PyObject *result = NULL;
    ge_ext p;
    if (pb.len != 32 || ristretto_decode(&p, pb.buf) != 0) {
        set_invalid_point(0);
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, WNAF_TABLE_BYTES);
    if (result == NULL) goto done;
    if (wnaf_table_build((wnaf_table *)(void *)PyBytes_AS_STRING(result), &p) != 0) {
        Py_CLEAR(result);
        PyErr_NoMemory();
    }
done:
    PyBuffer_Release(&pb);
    return result;
}

/* lincomb_public_wnaf(scalars, points) -> bytes: sum(k_i * P_i) in VARIABLE TIME, for public
 * scalars only. `scalars` is n 32-byte little-endian scalars below 2^253; `points` a list of n
 * bytes, each a canonical 32-byte encoding (decoded here, the identity refused), a form from
 * decode_points (DECODED_SIZE bytes) or a table from public_table (PUBLIC_TABLE_SIZE bytes).
 * Returns the canonical encoding of the sum (32 zero bytes for the identity); a refused point
 * raises ValueError(('invalid point', i)). */
static PyObject *lincomb_public_wnaf(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer sb;
    PyObject *list;
    if (!PyArg_ParseTuple(args, "y*O!", &sb, &PyList_Type, &list)) return NULL;
    PyObject *result = NULL;
    const size_t n = (size_t)PyList_GET_SIZE(list);
    wnaf_term *terms = NULL;
    ge_ext *points = NULL;
    ge_cached *tables = NULL;
    unsigned char *encodings = NULL;
    PyObject **keep = NULL;
    size_t held = 0; /* the tables given, referenced while the GIL is released */
    if (sb.len < 0 || (size_t)sb.len != 32 * n) {
        PyErr_SetString(PyExc_ValueError, "one 32-byte scalar per point");
        goto done;
    }
    const unsigned char *scalars = sb.buf;
    for (size_t i = 0; i < n; i++) {
        if (scalars[32 * i + 31] >= 0x20) {
            PyErr_SetString(PyExc_ValueError, "scalar not below 2^253");
            goto done;
        }
    }
    const size_t per_call = (size_t)1 << (WNAF_W - 2);
    terms = malloc((n ? n : 1) * sizeof(wnaf_term));
    points = malloc((n ? n : 1) * sizeof(ge_ext));
    tables = malloc((n ? n : 1) * per_call * sizeof(ge_cached));
    encodings = malloc((n ? n : 1) * 32);
    keep = malloc((n ? n : 1) * sizeof(PyObject *));
    if (terms == NULL || points == NULL || tables == NULL || encodings == NULL || keep == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, (Py_ssize_t)i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "points must be bytes");
            goto done;
        }
        const Py_ssize_t len = PyBytes_GET_SIZE(item);
        terms[i].table = NULL;
        terms[i].z_one = 0;
        terms[i].decode = 0;
        if (len == 32) {
            memcpy(encodings + 32 * i, PyBytes_AS_STRING(item), 32);
            terms[i].decode = 1;
        } else if (len == DECODED_BYTES) {
            memcpy(&points[i], PyBytes_AS_STRING(item), sizeof(ge_ext));
        } else if (len == WNAF_TABLE_BYTES) {
            Py_INCREF(item);
            keep[held++] = item;
            terms[i].table = ((const wnaf_table *)(const void *)PyBytes_AS_STRING(item))->odd;
            terms[i].z_one = 1;
        } else {
            set_invalid_point((Py_ssize_t)i);
            goto done;
        }
    }
    Py_ssize_t bad = -1;
    ge_ext sum;
    unsigned char out[32];
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < n && bad < 0; i++) {
        wnaf_term *t = &terms[i];
        if (t->decode && ristretto_decode(&points[i], encodings + 32 * i) != 0) {
            bad = (Py_ssize_t)i;
            break;
        }
        const unsigned char *k = scalars + 32 * i;
        unsigned char other[32];
        t->negate = 0;
        if (l_minus(other, k) && bit_length(other) < bit_length(k)) {
            k = other;
            t->negate = 1;
        }
        const unsigned w = t->table != NULL ? WNAF_W_LASTING : WNAF_W;
        t->len = wnaf_recode(t->digits, k, w);
        if (t->table == NULL) {
            ge_cached *own = tables + per_call * i;
            if (t->len) odd_multiples(own, &points[i], (unsigned)per_call);
            t->table = own;
        }
    }
    if (bad < 0) {
        msm_wnaf(&sum, terms, n);
        ristretto_encode(out, &sum);
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0)
        set_invalid_point(bad);
    else
        result = PyBytes_FromStringAndSize((const char *)out, 32);
done:
    if (keep != NULL)
        for (size_t i = 0; i < held; i++) Py_DECREF(keep[i]);
    free(terms);
    free(points);
    free(tables);
    free(encodings);
    free(keep);
    PyBuffer_Release(&sb);
    return result;
}

/* sum_public(points, negate) -> bytes: the encoding of sum_i (-1)^negate[i] P_i for PUBLIC points
 * (encodings, decoded here, or decode_points forms), one decoding a point and one encoding in all
 * (a card's M = c2 - sum D_i: libsodium's addition decodes both operands and encodes the sum each
 * time). `negate` holds one byte (0 or 1) a point. 32 zero bytes for the identity; a refused point
 * raises ValueError(('invalid point', i)). VARIABLE TIME (the decoding's early refusals). */
static PyObject *sum_public(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *list;
    Py_buffer nb;
    if (!PyArg_ParseTuple(args, "O!y*", &PyList_Type, &list, &nb)) return NULL;
    PyObject *result = NULL;
    const Py_ssize_t n = PyList_GET_SIZE(list);
    if (nb.len != n) {
        PyErr_SetString(PyExc_ValueError, "one negation flag a point");
        goto done;
    }
    const unsigned char *negate = nb.buf;
    ge_ext acc, p;
    ge_cached c;
    ge_identity(&acc);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "points must be bytes");
            goto done;
        }
        const Py_ssize_t len = PyBytes_GET_SIZE(item);
        if (len == DECODED_BYTES)
            memcpy(&p, PyBytes_AS_STRING(item), sizeof p);
        else if (len != 32 || ristretto_decode(&p, (const unsigned char *)PyBytes_AS_STRING(item)) != 0) {
            set_invalid_point(i);
            goto done;
        }
        ge_to_cached(&c, &p);
        ge_add_cached(&acc, &acc, &c, negate[i] != 0);
    }
    unsigned char out[32];
    ristretto_encode(out, &acc);
    result = PyBytes_FromStringAndSize((const char *)out, 32);
done:
    PyBuffer_Release(&nb);
    return result;
}

/* ---- protocol version 6: Ed25519 signatures, one at a time or many in one sum ------------------
 *
 * The rule (PROTOCOL.md 5.3, docs/crypto.md): a signature (R, S) of M under A verifies when S < L,
 * A and R decode and are not of small order, and [8]([S]B - R - [k]A) is the identity, k =
 * SHA-512(R || A || M) mod L: the "cofactored" equation of RFC 8032, section 5.1.7, which the
 * batch check of Bernstein, Duif, Lange, Schwabe, Yang, "High-speed high-security signatures",
 * J. Cryptographic Engineering 2(2), 2012, section 5, can decide for many signatures at once
 * (the random 128-bit multipliers z_i, and the sums, are drawn and formed by the caller:
 * protocol/crypto/signatures.py). Chalkias, Garillot, Nikolaenko, "Taming the many EdDSAs",
 * SSR 2020, section 3, explains why one check and the batch agree only with this equation.
 */

/* RFC 8032, section 5.1.3, up to SQRT_RATIO_M1's exponentiation: -1 for a y refused before it. */
typedef struct {
    fe y, u, v, v3, w;
    int x_0;
} ed25519_decoding;

static int ed25519_decode_start(ed25519_decoding *d, const unsigned char s[32]) {
    unsigned char y_bytes[32];
    int refused = 0;
    memcpy(y_bytes, s, 32);
    d->x_0 = y_bytes[31] >> 7;
    y_bytes[31] &= 0x7f;
    /* y < p = 2^255 - 19: refuse y in [p, 2^255) */
    if (y_bytes[31] == 0x7f && y_bytes[0] >= 0xed) {
        int all_ff = 1;
        for (int i = 1; i < 31; i++)
            if (y_bytes[i] != 0xff) all_ff = 0;
        if (all_ff) refused = 1;
    }
    fe yy;
    fe_frombytes(d->y, y_bytes);
    fe_sq(yy, d->y);
    fe_sub(d->u, yy, FE_ONE);  /* y^2 - 1 */
    fe_mul(d->v, yy, FE_D);
    fe_add(d->v, d->v, FE_ONE);   /* d y^2 + 1, never zero: -1/d is not a square */
    fe_sqrt_ratio_m1_start(d->v3, d->w, d->u, d->v);
    return refused ? -1 : 0;
}

/* The rest of the decoding, from pow = w^((p-5)/8). */
static int ed25519_decode_finish(ge_ext *p, const ed25519_decoding *d, const fe pow) {
    fe x;
    if (!fe_sqrt_ratio_m1_finish(x, d->u, d->v, d->v3, pow)) return -1; /* x^2 = u/v has no root */
    if (fe_is_zero(x) && d->x_0) return -1;
    if (fe_is_negative(x) != d->x_0) fe_neg(x, x);
    fe_copy(p->X, x);
    fe_copy(p->Y, d->y);
    fe_copy(p->Z, FE_ONE);
    fe_mul(p->T, x, d->y);
    return 0;
}

/* RFC 8032, section 5.1.3: 0 and the point for an accepted encoding, -1 otherwise. */
static int ed25519_decode(ge_ext *p, const unsigned char s[32]) {
    ed25519_decoding d;
    fe pow;
    if (ed25519_decode_start(&d, s) != 0) return -1;
    fe_pow_p58(pow, d.w);
    return ed25519_decode_finish(p, &d, pow);
}

/* ed25519_decode of n encodings into points, up to DECODE_LANES at a time, their exponentiations
 * side by side (fe_pow_p58_lanes): 0 when all are accepted, -1 otherwise. */
static int ed25519_decode_many(ge_ext *points, const unsigned char *encodings, size_t n) {
    for (size_t j = 0; j < n; j += DECODE_LANES) {
        const int lanes = n - j < DECODE_LANES ? (int)(n - j) : DECODE_LANES;
        ed25519_decoding d[DECODE_LANES];
        fe w[DECODE_LANES], pow[DECODE_LANES];
        int refused = 0;
        for (int l = 0; l < lanes; l++) {
            refused |= ed25519_decode_start(&d[l], encodings + 32 * (j + (size_t)l));
            fe_copy(w[l], d[l].w);
        }
        fe_pow_p58_lanes(pow, w, lanes);
        for (int l = 0; l < lanes; l++) refused |= ed25519_decode_finish(&points[j + (size_t)l], &d[l], pow[l]);
        if (refused) return -1;
    }
    return 0;
}

/* Whether [8]p is the identity (X = 0 and Y = Z), p then replaced by [8]p. */
static int ge_times_8_is_identity(ge_ext *p) {
    for (int i = 0; i < 3; i++) ge_double(p, p);
    return fe_is_zero(p->X) && fe_equal(p->Y, p->Z);
}

/* B = (x, 4/5), x positive: RFC 8032, section 5.1. */
static const unsigned char ED25519_BASE[32] = {0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                               0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
                                               0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66};

static PyObject *ed25519_cofactored_sum_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer pb, sb, bb;
    if (!PyArg_ParseTuple(args, "y*y*y*", &pb, &sb, &bb)) return NULL;
    PyObject *result = NULL;
    ge_ext *points = NULL;
    unsigned char *scalars = NULL;
    if (pb.len % 32 != 0 || sb.len != pb.len || bb.len != 32) {
        PyErr_SetString(PyExc_ValueError, "n 32-byte points, n 32-byte scalars and one base scalar");
        goto done;
    }
    const size_t n = (size_t)pb.len / 32, m = n + 1;
    for (size_t i = 0; i < m; i++) {
        const unsigned char *k = i < n ? (const unsigned char *)sb.buf + 32 * i : (const unsigned char *)bb.buf;
        if (k[31] >= 0x20) {
            PyErr_SetString(PyExc_ValueError, "scalar not below 2^253");
            goto done;
        }
    }
    points = malloc(m * sizeof(ge_ext));
    scalars = malloc(m * 32);
    if (points == NULL || scalars == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(scalars, sb.buf, 32 * n);
    memcpy(scalars + 32 * n, bb.buf, 32);
    int holds = 0, status = 0;
    Py_BEGIN_ALLOW_THREADS
    int decoded = ed25519_decode(&points[n], ED25519_BASE) == 0;
    if (decoded && ed25519_decode_many(points, pb.buf, n) != 0) decoded = 0;
    for (size_t i = 0; decoded && i < n; i++) {
        ge_ext eight = points[i];
        if (ge_times_8_is_identity(&eight)) decoded = 0; /* small order */
    }
    if (decoded) {
        ge_ext sum;
        if (straus_cost(m) <= pippenger_cost(m, best_window(m)))
            status = msm_straus(&sum, points, scalars, m);
        else
            status = msm_pippenger(&sum, points, scalars, m, best_window(m));
        if (status == 0) holds = ge_times_8_is_identity(&sum);
    }
    Py_END_ALLOW_THREADS
    if (status != 0)
        PyErr_NoMemory();
    else
        result = PyBool_FromLong(holds);
done:
    free(points);
    free(scalars);
    PyBuffer_Release(&pb);
    PyBuffer_Release(&sb);
    PyBuffer_Release(&bb);
    return result;
}

/* One signature against a key checked many times (every frame a live peer receives): the
 * doublings of [S]B - [k]A shared eight ways. Each scalar is split in eight 32-bit pieces by
 * position (Lim and Lee, "More flexible exponentiation with precomputation", CRYPTO 1994;
 * the same idea as a comb), each piece summed with a kept width-7 wNAF table of B, [2^32]B,
 * [2^64]B, ..., [2^224]B and of -A, [2^32](-A), ...: 32 doublings and about 64 additions,
 * against about 253 doublings for one joint sum (and 64 with four pieces: a third of the check's
 * field multiplications were those doublings). Then R is subtracted and the cofactor applied, as
 * in ed25519_cofactored_sum: the same decisions (tests/protocol/test_signatures.py). */

#define SPLIT_PARTS 8
#define SPLIT_BITS (WNAF_LEN / SPLIT_PARTS) /* digits of a scalar each piece holds */

typedef struct {
    wnaf_table part[SPLIT_PARTS];
} split_table;

static int split_table_build(split_table *t, const ge_ext *p) {
    ge_ext cur = *p;
    for (int j = 0; j < SPLIT_PARTS; j++) {
        if (wnaf_table_build(&t->part[j], &cur) != 0) return -1;
        if (j < SPLIT_PARTS - 1)
            for (int b = 0; b < SPLIT_BITS; b++) ge_double(&cur, &cur);
    }
    return 0;
}

/* The SPLIT_PARTS terms of k (below 2^253) against a split table: piece j holds the digits
 * SPLIT_BITS j .. SPLIT_BITS (j + 1) - 1. */
static void split_terms(wnaf_term terms[SPLIT_PARTS], const split_table *t, const unsigned char k[32]) {
    signed char naf[WNAF_LEN];
    wnaf_recode(naf, k, WNAF_W_LASTING);
    for (unsigned j = 0; j < SPLIT_PARTS; j++) {
        wnaf_term *term = &terms[j];
        term->table = t->part[j].odd;
        term->negate = 0;
        term->z_one = 1;
        term->decode = 0;
        memset(term->digits, 0, SPLIT_BITS);
        term->len = 0;
        for (unsigned q = 0; q < SPLIT_BITS; q++) {
            term->digits[q] = naf[SPLIT_BITS * j + q];
            if (naf[SPLIT_BITS * j + q]) term->len = q + 1;
        }
    }
}

static split_table base_split;
static int base_split_ready = 0;

#define SPLIT_TABLE_BYTES ((Py_ssize_t)sizeof(split_table))

static PyObject *ed25519_key_table_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer kb;
    if (!PyArg_ParseTuple(args, "y*", &kb)) return NULL;
    PyObject *result = NULL;
    ge_ext a, eight;
    if (kb.len != 32 || ed25519_decode(&a, kb.buf) != 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    eight = a;
    if (ge_times_8_is_identity(&eight)) { /* of small order: no signature under it verifies */
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    fe_neg(a.X, a.X);
    fe_neg(a.T, a.T); /* -A */
    result = PyBytes_FromStringAndSize(NULL, SPLIT_TABLE_BYTES);
    if (result == NULL) goto done;
    if (split_table_build((split_table *)(void *)PyBytes_AS_STRING(result), &a) != 0) {
        Py_CLEAR(result);
        PyErr_NoMemory();
    }
done:
    PyBuffer_Release(&kb);
    return result;
}

static PyObject *ed25519_check_py(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer tb, rb, kb, sb;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &tb, &rb, &kb, &sb)) return NULL;
    PyObject *result = NULL;
    if (tb.len != SPLIT_TABLE_BYTES || rb.len != 32 || kb.len != 32 || sb.len != 32) {
        PyErr_SetString(PyExc_ValueError, "a key table, R, and two 32-byte scalars");
        goto done;
    }
    if (((const unsigned char *)kb.buf)[31] >= 0x20 || ((const unsigned char *)sb.buf)[31] >= 0x20) {
        PyErr_SetString(PyExc_ValueError, "scalar not below 2^253");
        goto done;
    }
    if (!base_split_ready) {
        ge_ext b;
        if (ed25519_decode(&b, ED25519_BASE) != 0 || split_table_build(&base_split, &b) != 0) {
            PyErr_NoMemory();
            goto done;
        }
        base_split_ready = 1;
    }
    int holds = 0;
    Py_BEGIN_ALLOW_THREADS
    ge_ext r, eight;
    if (ed25519_decode(&r, rb.buf) == 0) {
        eight = r;
        if (!ge_times_8_is_identity(&eight)) {
            wnaf_term terms[2 * SPLIT_PARTS];
            ge_ext acc;
            ge_cached r_cached;
            split_terms(terms, &base_split, sb.buf);
            split_terms(terms + SPLIT_PARTS, (const split_table *)tb.buf, kb.buf);
            msm_wnaf(&acc, terms, 2 * SPLIT_PARTS);
            ge_to_cached(&r_cached, &r);
            ge_add_cached(&acc, &acc, &r_cached, 1); /* [S]B - [k]A - R */
            holds = ge_times_8_is_identity(&acc);
        }
    }
    Py_END_ALLOW_THREADS
    result = PyBool_FromLong(holds);
done:
    PyBuffer_Release(&tb);
    PyBuffer_Release(&rb);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&sb);
    return result;
}
#endif /* MSM_NO_PYTHON */
