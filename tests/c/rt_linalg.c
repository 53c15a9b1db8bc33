/* rt_linalg.c: the LAPACK wrappers solve known small systems and report singular or indefinite input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"
#include "lib/relerr.h"
#include "tap.h"

int main(void) {
    char err[MB_ERRLEN] = "";
    mb_linalg *ws = mb_linalg_create(4, 3, 2, err, sizeof err);
    ok(ws != NULL, "workspace created (%s)", err);

    /* SPD 3x3 with a known solution: A x = b for x = (1, -2, 3). */
    const double A[9] = {4, 2, 0.4, 2, 5, 1, 0.4, 1, 3}; /* column-major, symmetric */
    const double x[3] = {1, -2, 3};
    double b[3], L[9];
    for (int i = 0; i < 3; ++i) b[i] = A[i] * x[0] + A[i + 3] * x[1] + A[i + 6] * x[2];
    memcpy(L, A, sizeof L);
    is_int(mb_chol_factor(3, L, err, sizeof err), MB_OK, "Cholesky of an SPD matrix");
    is_double(L[0], 2.0, 1e-15, 0, "L(1,1) = sqrt(4)");
    double rhs[6];
    memcpy(rhs, b, sizeof b);
    for (int i = 0; i < 3; ++i) rhs[3 + i] = 2 * b[i];
    is_int(mb_chol_solve(3, L, 2, rhs, err, sizeof err), MB_OK, "Cholesky solve with two right-hand sides");
    ok(maxdiff(3, rhs, x) < 1e-14, "Cholesky solution matches (err %.2g)", maxdiff(3, rhs, x));
    ok(fabs(rhs[3] - 2) < 1e-14 && fabs(rhs[4] + 4) < 1e-14, "second right-hand side scaled by 2");
    double rc = 0;
    is_int(mb_chol_rcond(ws, 3, L, mb_norm1(3, 3, A), &rc, err, sizeof err), MB_OK, "Cholesky rcond");
    ok(rc > 0.1 && rc <= 1, "rcond of a well-conditioned SPD matrix is O(1) (%.3g)", rc);

    /* Indefinite: [[1,2],[2,1]] has eigenvalues 3 and -1. */
    double B[4] = {1, 2, 2, 1};
    err[0] = 0;
    is_int(mb_chol_factor(2, B, err, sizeof err), MB_ERR_NOT_PD, "indefinite matrix: MB_ERR_NOT_PD");
    ok(strstr(err, "not positive definite") != NULL, "message says so: \"%s\"", err);
    double Bn[4] = {1, NAN, NAN, 1};
    is_int(mb_chol_factor(2, Bn, err, sizeof err), MB_ERR_NAN, "NaN input to Cholesky: MB_ERR_NAN (%s)", err);

    /* LU of a non-symmetric matrix that needs pivoting (zero leading entry). */
    const double C[9] = {0, 1, 2, 3, 1, 0, 1, 4, 1};
    double LU[9], y[3];
    memcpy(LU, C, sizeof LU);
    for (int i = 0; i < 3; ++i) y[i] = C[i] * x[0] + C[i + 3] * x[1] + C[i + 6] * x[2];
    is_int(mb_lu_factor(ws, 3, LU, err, sizeof err), MB_OK, "LU of a matrix with a zero leading entry");
    is_int(mb_lu_solve(ws, 3, LU, 1, y, err, sizeof err), MB_OK, "LU solve");
    ok(maxdiff(3, y, x) < 1e-14, "LU solution matches (err %.2g)", maxdiff(3, y, x));
    is_int(mb_lu_rcond(ws, 3, LU, mb_norm1(3, 3, C), &rc, err, sizeof err), MB_OK, "LU rcond");
    ok(rc > 1e-3 && rc <= 1, "LU rcond plausible (%.3g)", rc);

    /* Singular: third column = first + second. */
    double S[9] = {1, 2, 3, 4, 5, 6, 5, 7, 9};
    err[0] = 0;
    int rcs = mb_lu_factor(ws, 3, S, err, sizeof err);
    /* Rounding may leave a tiny non-zero pivot instead of an exact zero; then rcond tells. */
    if (rcs == MB_OK) {
        double S0[9] = {1, 2, 3, 4, 5, 6, 5, 7, 9};
        mb_lu_rcond(ws, 3, S, mb_norm1(3, 3, S0), &rc, err, sizeof err);
        ok(rc < 1e-15, "numerically singular matrix has rcond ~ 0 (%.3g)", rc);
        ok(1, "(no exact zero pivot)");
    } else {
        is_int(rcs, MB_ERR_SINGULAR, "singular matrix: MB_ERR_SINGULAR");
        ok(strstr(err, "singular") != NULL, "message names it: \"%s\"", err);
    }
    double Z[4] = {1, 2, 2, 4}; /* exactly singular in floating point */
    err[0] = 0;
    is_int(mb_lu_factor(ws, 2, Z, err, sizeof err), MB_ERR_SINGULAR, "exactly singular 2x2: MB_ERR_SINGULAR");
    ok(strstr(err, "singular") && strstr(err, "U(2,2)"), "message names the zero pivot: \"%s\"", err);
    double big[16] = {0};
    is_int(mb_lu_factor(ws, 4, big, err, sizeof err), MB_ERR_ARG, "too big for the workspace: MB_ERR_ARG (%s)", err);

    /* Pivoted QR: rank of a 4x3 matrix whose third column is a combination. */
    double Q[12] = {1, 0, 1, 2, 0, 1, 1, -1, 2, 3, 5, 1}; /* col3 = 2 col1 + 3 col2 */
    int rank = -1;
    is_int(mb_qrp_factor(ws, 4, 3, Q, 1e-10, &rank, err, sizeof err), MB_OK, "pivoted QR");
    is_int(rank, 2, "rank of a rank-deficient 4x3 matrix is 2");
    const int *piv = mb_linalg_pivots(ws);
    ok(piv[0] >= 0 && piv[0] < 3 && piv[1] != piv[0] && piv[2] != piv[0] && piv[2] != piv[1],
       "pivots are a permutation (%d %d %d)", piv[0], piv[1], piv[2]);

    /* Full-rank overdetermined least squares: fit a line through exact data. */
    double F[8] = {1, 1, 1, 1, 0, 1, 2, 3}, F2[8];
    memcpy(F2, F, sizeof F);
    double d[4] = {1, 3, 5, 7}, d2[4] = {1, 3, 5, 7}; /* y = 1 + 2 t */
    is_int(mb_qrp_factor(ws, 4, 2, F, 0, &rank, err, sizeof err), MB_OK, "QR of the line-fit matrix");
    is_int(mb_qrp_solve(ws, 4, 2, rank, F, 1, d, err, sizeof err), MB_OK, "QR least-squares solve");
    ok(fabs(d[0] - 1) < 1e-13 && fabs(d[1] - 2) < 1e-13, "QR fit recovers (1, 2): (%.15g, %.15g)", d[0], d[1]);
    is_int(mb_lstsq(ws, 4, 2, 1, F2, d2, 0, &rank, err, sizeof err), MB_OK, "dgelsy least squares");
    ok(fabs(d2[0] - 1) < 1e-13 && fabs(d2[1] - 2) < 1e-13, "dgelsy fit recovers (1, 2)");
    /* Noisy data: the residual is orthogonal to the columns (normal equations). */
    double G[8] = {1, 1, 1, 1, 0, 1, 2, 3}, g[4] = {1.1, 2.9, 5.2, 6.8}, g0[4];
    memcpy(g0, g, sizeof g);
    mb_lstsq(ws, 4, 2, 1, G, g, 0, &rank, err, sizeof err);
    double r0 = 0, r1 = 0;
    for (int i = 0; i < 4; ++i) {
        double res = g0[i] - (g[0] + g[1] * i);
        r0 += res;
        r1 += res * i;
    }
    ok(fabs(r0) < 1e-13 && fabs(r1) < 1e-13, "least-squares residual is orthogonal to the columns");
    /* Rank-deficient minimum norm: x1 + x2 = 2 (two identical columns) gives (1, 1). */
    double H[4] = {1, 1, 1, 1}, h[2] = {2, 2};
    mb_lstsq(ws, 2, 2, 1, H, h, 1e-12, &rank, err, sizeof err);
    is_int(rank, 1, "rank-deficient least squares: rank 1");
    ok(fabs(h[0] - 1) < 1e-13 && fabs(h[1] - 1) < 1e-13, "minimum-norm solution (1, 1)");
    double Zm[4] = {0, 0, 0, 0}, zr[2] = {1, 1};
    err[0] = 0;
    is_int(mb_lstsq(ws, 2, 2, 1, Zm, zr, 0, &rank, err, sizeof err), MB_ERR_SINGULAR,
           "zero matrix least squares: MB_ERR_SINGULAR (%s)", err);

    /* The small-block factorization: on a seeded random 7 x 5 matrix with a dependent column the same rank, the same
     * pivots and |R_ii| as dgeqp3's to round-off, and the same solve. */
    mb_linalg *w2 = mb_linalg_create(7, 5, 2, err, sizeof err);
    double A1[35], A2[35], B1[14], B2[14];
    unsigned long long s = 12345;
    for (int i = 0; i < 35; ++i) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        A1[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    for (int i = 0; i < 7; ++i) A1[i + 7 * 3] = A1[i] - 2 * A1[i + 7];   /* column 3 = column 0 - 2 column 1 */
    for (int i = 0; i < 14; ++i) B1[i] = B2[i] = (double)(i % 5) - 1.5;
    memcpy(A2, A1, sizeof A1);
    int ra = -1, rb = -2, p1[5];
    is_int(mb_qrp_factor(w2, 7, 5, A1, 1e-10, &ra, err, sizeof err), MB_OK, "dgeqp3 of the 7 x 5 matrix");
    memcpy(p1, mb_linalg_pivots(w2), sizeof p1);
    double d1[5];
    for (int j = 0; j < 5; ++j) d1[j] = fabs(A1[j + 7 * j]);
    is_int(mb_qrp_solve(w2, 7, 5, ra, A1, 2, B1, err, sizeof err), MB_OK, "its solve");
    is_int(mb_qrp_factor_small(w2, 7, 5, A2, 1e-10, &rb, err, sizeof err), MB_OK, "the small-block factorization");
    const int *p2 = mb_linalg_pivots(w2);
    int same = ra == 4 && rb == 4;
    double dd = 0, db = 0;
    for (int j = 0; j < 5; ++j) {
        same = same && p1[j] == p2[j];
        if (j < 4) dd = fmax(dd, fabs(fabs(A2[j + 7 * j]) - d1[j]));
    }
    ok(same && dd < 1e-14, "rank 4, the same pivots and |R_ii| to %.1g", dd);
    is_int(mb_qrp_solve(w2, 7, 5, rb, A2, 2, B2, err, sizeof err), MB_OK, "its solve");
    for (int i = 0; i < 14; ++i)
        if (i % 7 < 5) db = fmax(db, fabs(B1[i] - B2[i]));
    ok(db < 1e-12, "the same least-squares solutions, two right-hand sides (%.1g)", db);

    /* The transposed solve from the same factor: A' x = b for a seeded random full-rank 7 x 4 A gives the x of least
     * norm, the same as dgelsy's minimum-norm solution of A' x = b. */
    double T1[28], T2[28], bt[7], bl[7];
    s = 777;
    for (int i = 0; i < 28; ++i) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        T1[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    memcpy(T2, T1, sizeof T1);
    for (int j = 0; j < 4; ++j) bt[j] = bl[j] = 1.0 + j;
    mb_linalg *w3 = mb_linalg_create(7, 7, 1, err, sizeof err);
    is_int(mb_qrp_factor_small(w3, 7, 4, T1, 1e-12, &rb, err, sizeof err), MB_OK, "factor of a 7 x 4 matrix");
    is_int(mb_qrp_solve_transposed(w3, 7, 4, rb, T1, bt, err, sizeof err), MB_OK, "transposed solve");
    double tres = 0;
    for (int j = 0; j < 4; ++j) {
        double v = -bl[j];
        for (int i = 0; i < 7; ++i) v += T2[i + 7 * j] * bt[i];
        tres = fmax(tres, fabs(v));
    }
    ok(tres < 1e-13, "A' x = b to %.1g", tres);
    double Tt[49] = {0};   /* A' (4 x 7, in a 7 x 7 buffer) for dgelsy's minimum-norm solution */
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 4; ++j) Tt[j + 7 * i] = T2[i + 7 * j];
    double Tc[28];
    for (int i = 0; i < 7; ++i) memcpy(Tc + 4 * i, Tt + 7 * i, 4 * sizeof(double));
    is_int(mb_lstsq(w3, 4, 7, 1, Tc, bl, 0, &rank, err, sizeof err), MB_OK, "dgelsy on A' x = b");
    ok(maxdiff(7, bl, bt) < 1e-13, "the same least-norm x as dgelsy (%.1g)", maxdiff(7, bl, bt));
    err[0] = 0;
    is_int(mb_qrp_solve_transposed(w3, 7, 4, 3, T1, bt, err, sizeof err), MB_ERR_SINGULAR,
           "rank below the columns: MB_ERR_SINGULAR (%s)", err);
    mb_linalg_free(w3);
    mb_linalg_free(w2);

    /* Cholesky: the plain loops (order <= 32) and LAPACK (larger) both give L L' = A; a matrix whose fourth leading
     * minor is not positive reports pivot 3 on both paths. */
    for (int n = 20; n <= 40; n += 20) {
        double *S0 = calloc((size_t)n * n, sizeof(double)), *Lc = calloc((size_t)n * n, sizeof(double));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                S0[i + n * j] = S0[j + n * i] = (double)(s >> 11) / 9007199254740992.0 - 0.5 + (i == j ? n : 0);
            }
        memcpy(Lc, S0, (size_t)n * n * sizeof(double));
        is_int(mb_chol_factor(n, Lc, err, sizeof err), MB_OK, "Cholesky of an SPD %d x %d", n, n);
        double e = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j <= i; ++j) {
                double v = 0;
                for (int k = 0; k <= j; ++k) v += Lc[i + n * k] * Lc[j + n * k];
                e = fmax(e, fabs(v - S0[i + n * j]));
            }
        ok(e < 1e-12 * n, "L L' = A to %.1g (n = %d)", e, n);
        memcpy(Lc, S0, (size_t)n * n * sizeof(double));
        Lc[3 + n * 3] = -100;
        int at = -1;
        is_int(mb_chol_factor_at(n, Lc, &at, err, sizeof err), MB_ERR_NOT_PD, "indefinite %d x %d: MB_ERR_NOT_PD", n, n);
        is_int(at, 3, "stopped at row 3");
        free(S0);
        free(Lc);
    }

    /* Gauss-Jordan inverses (the square dependent blocks): A X = I, the applications equal products by X, the
     * pivots (permuted rows, a leading zero) and a singular matrix. */
    for (int n = 1; n <= 9; ++n) {
        mb_linalg *wi = mb_linalg_create(n, n, 1, err, sizeof err);
        double *A0 = malloc((size_t)n * n * sizeof(double)), *X = malloc((size_t)n * n * sizeof(double));
        double v[9], w[9], y[9];
        unsigned s = 17u * (unsigned)n;
        for (int i = 0; i < n * n; ++i) {
            s = s * 1103515245u + 12345u;
            A0[i] = (double)(s >> 8) / 16777216.0 - 0.5;
        }
        A0[0] = 0; /* the first pivot must come from another row */
        memcpy(X, A0, (size_t)n * n * sizeof(double));
        int rk = -1;
        double lo = 0, hi = 0;
        is_int(mb_inverse_small(wi, n, X, 1e-12, &rk, &lo, &hi, err, sizeof err), MB_OK, "inverse %d x %d", n, n);
        double e = 0, amax = 0, xmax = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double p = 0;
                for (int k = 0; k < n; ++k) p += A0[i + n * k] * X[k + n * j];
                e = fmax(e, fabs(p - (i == j)));
                amax = fmax(amax, fabs(A0[i + n * j]));
                xmax = fmax(xmax, fabs(X[i + n * j]));
            }
        if (n == 1) {
            ok(rk == 0 && lo == 0, "1 x 1 zero: rank 0");
            is_int(mb_inverse_apply(wi, 1, X, 1, v, 1, err, sizeof err), MB_ERR_SINGULAR, "1 x 1 zero: singular, no apply");
        } else {
            ok(rk == n && e < 1e-13 * n * amax * xmax, "A X = I to %.1g (n = %d, pivots %.2g .. %.2g)", e, n, lo, hi);
            for (int i = 0; i < n; ++i) v[i] = w[i] = i - 0.3 * n;
            is_int(mb_inverse_apply(wi, n, X, 1, v, n, err, sizeof err), MB_OK, "apply");
            for (int i = 0; i < n; ++i) {
                y[i] = 0;
                for (int k = 0; k < n; ++k) y[i] += X[i + n * k] * w[k];
            }
            ok(maxdiff(n, v, y) == 0, "apply = X b exactly (n = %d)", n);
            for (int i = 0; i < n; ++i) v[i] = w[i];
            is_int(mb_inverse_apply_transposed(wi, n, X, v, err, sizeof err), MB_OK, "transposed apply");
            for (int i = 0; i < n; ++i) {
                y[i] = 0;
                for (int k = 0; k < n; ++k) y[i] += A0[k + n * i] * v[k];
            }
            ok(maxdiff(n, y, w) < 1e-12 * n * amax * xmax, "A' (A^-T b) = b to %.1g", maxdiff(n, y, w));
            /* Column 1 = 3 x column 0: rank n - 1, the applications refuse. */
            for (int i = 0; i < n; ++i) X[i] = A0[i] + 1, X[i + n] = 3 * X[i];
            for (int i = 2 * n; i < n * n; ++i) X[i] = A0[i];
            is_int(mb_inverse_small(wi, n, X, 1e-12, &rk, &lo, &hi, err, sizeof err), MB_OK, "a singular %d x %d", n, n);
            ok(rk < n, "its rank is below %d (%d; smallest pivot %.2g of %.2g)", n, rk, lo, hi);
            is_int(mb_inverse_apply(wi, n, X, 1, v, n, err, sizeof err), MB_ERR_SINGULAR, "and it is not applied: %s", err);
        }
        free(A0);
        free(X);
        mb_linalg_free(wi);
    }
    double Dg[4] = {1e-3, 0, 0, 2}, pl, ph;
    mb_linalg *w2i = mb_linalg_create(2, 2, 1, err, sizeof err);
    int r2 = 0;
    mb_inverse_small(w2i, 2, Dg, 1e-12, &r2, &pl, &ph, err, sizeof err);
    ok(r2 == 2 && pl == 1e-3 && ph == 2 && Dg[0] == 1e3 && Dg[3] == 0.5, "diag(1e-3, 2): pivots 1e-3 and 2, inverse diag(1e3, 0.5)");
    Dg[0] = NAN, Dg[1] = Dg[2] = 0, Dg[3] = 1;
    is_int(mb_inverse_small(w2i, 2, Dg, 1e-12, &r2, &pl, &ph, err, sizeof err), MB_ERR_NAN, "NaN input: %s", err);
    mb_linalg_free(w2i);

    mb_linalg_free(ws);
    ok(mb_linalg_create(0, 3, 1, err, sizeof err) == NULL && strstr(err, ">= 1"), "bad sizes refused: %s", err);
    is_int(strcmp(mb_status_name(MB_ERR_NEWTON), "MB_ERR_NEWTON"), 0, "status names");
    return done_testing();
}
