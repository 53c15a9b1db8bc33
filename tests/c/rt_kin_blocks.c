/* rt_kin_blocks.c: the dependent block split by its pattern solves, builds R and recovers multipliers as one dense block does. */
#include <math.h>
#include <string.h>

#include "kin_blocks.h"
#include "lib/relerr.h"
#include "tap.h"

#define NC 9
#define NZ 14
#define RANK 8
#define DOF 6

/* Phi_z's pattern (rows of each coordinate's column): dependent coordinates 0-2 in rows 0-2, 3-5 in rows 3-6 (four
 * equations for three coordinates, a redundant one), 6-7 in rows 7-8; the independent 8-13 reach rows {0, 3},
 * {7}, none, all, {4, 5}, {1}. */
static const int colptr[NZ + 1] = {0, 3, 6, 9, 13, 17, 21, 23, 25, 27, 28, 28, 37, 39, 40};
static const int rowind[40] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3, 4, 5,
                               6, 7, 8, 7, 8, 0, 3, 7, 0, 1, 2, 3, 4, 5, 6, 7, 8, 4, 5, 1};
static const mb_pattern P = {NC, NZ, colptr, rowind};
static const int dep[RANK] = {0, 1, 2, 3, 4, 5, 6, 7}, ind[DOF] = {8, 9, 10, 11, 12, 13};

static unsigned long long seed = 2026;
static double rnd(void) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}

int main(void) {
    char err[MB_ERRLEN] = "";
    double J[NC * NZ] = {0};
    for (int c = 0; c < NZ; ++c)
        for (int q = colptr[c]; q < colptr[c + 1]; ++q) J[rowind[q] + NC * c] = rnd() + (c == rowind[q] ? 2 : 0);
    kin_blocks *kb = kin_blocks_create(&P, NC, NZ, dep, RANK, ind, DOF, 1, err, sizeof err);
    kin_blocks *kd = kin_blocks_create(NULL, NC, NZ, dep, RANK, ind, DOF, 1, err, sizeof err);
    ok(kb && kd, "blocks made (%s)", err);
    is_int(kin_blocks_count(kb), 3, "three blocks by the pattern");
    int m[3], n[3];
    for (int b = 0; b < 3; ++b) kin_blocks_shape(kb, b, m + b, n + b);
    ok(m[0] == 3 && n[0] == 3 && m[1] == 4 && n[1] == 3 && m[2] == 2 && n[2] == 2, "shapes 3 x 3, 4 x 3, 2 x 2");
    is_int(kin_blocks_count(kd), 1, "one block without a pattern");
    double rb = 0, rd = 0;
    is_int(kin_blocks_factor(kb, J, 1e-9, 1e-2, &rb, err, sizeof err), MB_OK, "blocks factored");
    is_int(kin_blocks_factor(kd, J, 1e-9, 1e-2, &rd, err, sizeof err), MB_OK, "the dense block factored");
    ok(rb > 1e-3 && rd > 1e-3, "both regular (ratios %.3g, %.3g)", rb, rd);

    /* Least squares (the redundant row makes it a true least-squares problem) with more right-hand sides than the
     * blocks have room for (DOF), so they go in chunks, in a buffer with a leading dimension above nc. */
#define NRHS (2 * DOF + 1)
#define LDB (NC + 2)
    double B1[LDB * NRHS], B2[LDB * NRHS];
    for (int i = 0; i < LDB * NRHS; ++i) B1[i] = B2[i] = rnd();
    is_int(kin_blocks_solve(kb, NRHS, B1, LDB, err, sizeof err), MB_OK, "blocks solve, %d right-hand sides", NRHS);
    is_int(kin_blocks_solve(kd, NRHS, B2, LDB, err, sizeof err), MB_OK, "dense solve");
    double e = 0;
    for (int c = 0; c < NRHS; ++c) e = fmax(e, maxdiff(RANK, B1 + LDB * c, B2 + LDB * c));
    ok(e < 1e-13, "the same least-squares solutions (%.1g)", e);

    /* R: the same columns; outside the pattern the dense R is zero too. */
    double R1[NZ * DOF] = {0}, R2[NZ * DOF] = {0};
    is_int(kin_blocks_R(kb, J, R1, err, sizeof err), MB_OK, "R by blocks");
    is_int(kin_blocks_R(kd, J, R2, err, sizeof err), MB_OK, "R dense");
    ok(maxdiff(NZ * DOF, R1, R2) < 1e-13, "the same R (%.1g)", maxdiff(NZ * DOF, R1, R2));
    const int *rp, *ri;
    kin_blocks_R_pattern(kb, &rp, &ri);
    int outside = 0, listed = rp[DOF];
    for (int c = 0; c < DOF; ++c)
        for (int i = 0; i < NZ; ++i) {
            int in = 0;
            for (int q = rp[c]; q < rp[c + 1]; ++q) in = in || ri[q] == i;
            if (!in && fabs(R2[i + NZ * c]) > 1e-15) ++outside;
        }
    is_int(outside, 0, "R's pattern holds every non-zero of the dense R");
    is_int(listed, 3 + 3 + 2 + 0 + 8 + 3 + 3, "R's pattern: the blocks each column reaches (%d entries)", listed);

    /* Multipliers: Phi_z[:, dep]' lambda = g, the least-norm lambda, by blocks and dense. */
    double g[RANK], l1[NC], l2[NC];
    for (int j = 0; j < RANK; ++j) g[j] = rnd();
    is_int(kin_blocks_solve_transposed(kb, g, l1, err, sizeof err), MB_OK, "transposed solve by blocks");
    is_int(kin_blocks_solve_transposed(kd, g, l2, err, sizeof err), MB_OK, "transposed solve dense");
    ok(maxdiff(NC, l1, l2) < 1e-13, "the same multipliers (%.1g)", maxdiff(NC, l1, l2));
    double res = 0;
    for (int j = 0; j < RANK; ++j) {
        double v = -g[j];
        for (int i = 0; i < NC; ++i) v += J[i + NC * dep[j]] * l1[i];
        res = fmax(res, fabs(v));
    }
    ok(res < 1e-13, "Phi_z[:, dep]' lambda = g to %.1g", res);

    /* Square blocks inverted (the default) against every block by pivoted QR: the same solutions, R and multipliers;
     * the conditioning ratios are of the same kind (pivots, |R_kk|) and both well above the re-selection's 1e-2. */
    kin_blocks *kq = kin_blocks_create(&P, NC, NZ, dep, RANK, ind, DOF, 0, err, sizeof err);
    double rq = 0, B3[LDB * NRHS], R3[NZ * DOF] = {0}, l3[NC];
    is_int(kin_blocks_factor(kq, J, 1e-9, 1e-2, &rq, err, sizeof err), MB_OK, "blocks factored by QR alone");
    ok(rq > 1e-2 && rb > 1e-2 && rb <= rq * (1 + 1e-12), "conditioning: %.3g bounded from the inverses, %.3g by QR", rb, rq);
    double rx = 0;
    kin_blocks_factor(kb, J, 1e-9, 1, &rx, err, sizeof err);
    ok(fabs(rx - rq) < 1e-12 * rq, "below the threshold the ratio is QR's (%.6g, %.6g)", rx, rq);
    for (int i = 0; i < LDB * NRHS; ++i) B3[i] = B2[i];
    for (int i = 0; i < LDB * NRHS; ++i) B1[i] = B2[i];
    kin_blocks_solve(kb, NRHS, B1, LDB, err, sizeof err);
    kin_blocks_solve(kq, NRHS, B3, LDB, err, sizeof err);
    e = 0;
    for (int c = 0; c < NRHS; ++c) e = fmax(e, maxdiff(RANK, B1 + LDB * c, B3 + LDB * c));
    ok(e < 1e-13, "inverses and QR: the same solutions (%.1g)", e);
    kin_blocks_R(kq, J, R3, err, sizeof err);
    ok(maxdiff(NZ * DOF, R1, R3) < 1e-13, "the same R (%.1g)", maxdiff(NZ * DOF, R1, R3));
    kin_blocks_solve_transposed(kq, g, l3, err, sizeof err);
    ok(maxdiff(NC, l1, l3) < 1e-13, "the same multipliers (%.1g)", maxdiff(NC, l1, l3));
    kin_blocks_free(kq);

    /* A rank-deficient block (coordinate 5 = 2 x coordinate 4) fails the conditioning test on both paths. */
    for (int i = 0; i < NC; ++i) J[i + NC * 5] = 2 * J[i + NC * 4];
    kin_blocks_factor(kb, J, 1e-9, 1e-2, &rb, err, sizeof err);
    kin_blocks_factor(kd, J, 1e-9, 1e-2, &rd, err, sizeof err);
    ok(rb == 0 && rd == 0, "a dependent column repeated: ratio 0 (%.2g, %.2g)", rb, rd);
    is_int(kin_blocks_worst(kb), 1, "the block named is the 4 x 3 one");
    for (int i = 0; i < NC; ++i) J[i + NC * 5] = J[i + NC * 4] + 1e-3 * (i == 4), J[i + NC * 1] = 3 * J[i + NC * 0];
    kin_blocks_factor(kb, J, 1e-9, 1e-2, &rb, err, sizeof err);
    ok(rb == 0 && kin_blocks_worst(kb) == 0, "a square block's column repeated: ratio 0, block 0 named (%.2g)", rb);
    kin_blocks_free(kb);
    kin_blocks_free(kd);

    /* A dependent coordinate whose column is structurally zero is a block of its own that is never regular. */
    static const int dep2[RANK] = {0, 1, 2, 3, 4, 6, 7, 10}, ind2[DOF] = {5, 8, 9, 11, 12, 13};
    kb = kin_blocks_create(&P, NC, NZ, dep2, RANK, ind2, DOF, 1, err, sizeof err);
    is_int(kin_blocks_count(kb), 4, "a zero dependent column: a fourth block");
    kin_blocks_factor(kb, J, 1e-9, 1e-2, &rb, err, sizeof err);
    ok(rb == 0, "and the choice is not regular (ratio %.2g)", rb);
    kin_blocks_free(kb);
    return done_testing();
}
