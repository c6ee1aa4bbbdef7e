/*
 * A constant-time check of the prover's path of protocol/crypto/_msm.c under valgrind, in the
 * manner of A. Langley's ctgrind (2010): the secret scalars are marked undefined
 * (VALGRIND_MAKE_MEM_UNDEFINED), so memcheck reports every conditional branch and every memory
 * address computed from them ("Conditional jump or move depends on uninitialised value(s)",
 * "Use of uninitialised value of size 8"). The results are marked defined again only once
 * encoded, and printed so that the caller compares them with libsodium.
 *
 * Input (stdin): three scalars k0, k1, k2, one per line, 64 hex digits, little-endian, < 2^255.
 * Output: fixed1 = k0 G; fixed2 = k0 G + k1 (2G) (two fixed-base tables); straus = k0 G +
 * k1 (2G) + k2 (5G) (constant-time Straus), each a 32-byte encoding in hex; then (scalars below
 * L) scalar = k0 k1 + k2 mod L by the prover's Montgomery arithmetic (sc_mul, sc_add), 32 bytes
 * little-endian in hex, and reduced = 1 (sc_is_reduced of all three).
 *
 * With the argument `control` the last sum is made by the verifier's variable-time Straus
 * instead, and memcheck must complain: a check that the instrumentation works.
 *
 * Build and run: tests/protocol/test_msm_constant_time.py, or
 *   gcc -O3 -I/usr/include tools/ctgrind/ct_check.c -o /tmp/ct_check
 *   valgrind --error-exitcode=1 /tmp/ct_check < scalars.txt
 */
#define MSM_NO_PYTHON
#include "../../protocol/crypto/_msm.c"

#include <stdio.h>
#include <valgrind/memcheck.h>

/* RFC 9496, appendix A.1: the encoding of the generator */
static const unsigned char G_ENC[32] = {0xe2, 0xf2, 0xae, 0x0a, 0x6a, 0xbc, 0x4e, 0x71, 0xa8, 0x84, 0xa9,
                                        0x61, 0xc5, 0x00, 0x51, 0x5f, 0x58, 0xe3, 0x0b, 0x6a, 0xa5, 0x82,
                                        0xdd, 0x8d, 0xb6, 0xa6, 0x59, 0x45, 0xe0, 0x8d, 0x2d, 0x76};

static int read_scalar(unsigned char k[32]) {
    char hex[65];
    if (scanf("%64s", hex) != 1) return -1;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return -1;
        k[i] = (unsigned char)v;
    }
    return 0;
}

static void print_point(const char *name, const unsigned char out[32]) {
    printf("%s ", name);
    for (int i = 0; i < 32; i++) printf("%02x", out[i]);
    printf("\n");
}

int main(int argc, char **argv) {
    /* `ct_check control`: the same sum by the VARIABLE-TIME Straus of the verifier, which memcheck
     * must report (this shows that the instrumentation sees a secret-dependent branch) */
    const int control = argc > 1 && strcmp(argv[1], "control") == 0;
    unsigned char k[3][32], out[32];
    for (int i = 0; i < 3; i++)
        if (read_scalar(k[i]) != 0 || (k[i][31] & 0x80)) return 2;
    ge_ext points[3], two, five;
    if (ristretto_decode(&points[0], G_ENC) != 0) return 3;
    ge_double(&two, &points[0]);
    ge_double(&five, &two);
    ge_add(&five, &five, &points[0]);
    points[1] = two;
    points[2] = five;
    static fixed_table tables[2];
    if (fixed_table_build(&tables[0], &points[0]) != 0 || fixed_table_build(&tables[1], &points[1]) != 0) return 5;
    const fixed_table *tabs[2] = {&tables[0], &tables[1]};
    const unsigned char *ks[2] = {k[0], k[1]};

    VALGRIND_MAKE_MEM_UNDEFINED(k, sizeof k); /* from here on the scalars are secret */
    ge_ext acc;
    fixed_lincomb_ct(&acc, tabs, ks, 1);
    ristretto_encode(out, &acc);
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
    print_point("fixed1", out);
    fixed_lincomb_ct(&acc, tabs, ks, 2);
    ristretto_encode(out, &acc);
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
    print_point("fixed2", out);
    unsigned char flat[96];
    memcpy(flat, k, sizeof flat);
    if ((control ? msm_straus(&acc, points, flat, 3) : lincomb_ct_points(&acc, points, flat, 3)) != 0) return 4;
    ristretto_encode(out, &acc);
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
    print_point("straus", out);
    sc a, b, c;
    sc_frombytes(a, k[0]);
    sc_frombytes(b, k[1]);
    sc_frombytes(c, k[2]);
    uint64_t reduced = sc_is_reduced(k[0]) & sc_is_reduced(k[1]) & sc_is_reduced(k[2]);
    sc_mul(a, a, b);
    sc_add(a, a, c);
    sc_tobytes(out, a);
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
    VALGRIND_MAKE_MEM_DEFINED(&reduced, sizeof reduced);
    print_point("scalar", out);
    printf("reduced %d\n", (int)reduced);
    return 0;
}
