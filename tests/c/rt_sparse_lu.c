/* rt_sparse_lu.c: KLU behind sparse_lu.h solves as the dense LU does, keeps its pivot order while it serves, factors
 * afresh when the values make that order bad, and reports a singular matrix by status and message. */
#include <math.h>
#include <string.h>

#include "linalg.h"
#include "sparse_lu.h"
#include "tap.h"

#define N 30

static unsigned long long seed = 7;
static double rnd(void) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}

/* A non-symmetric pattern: the diagonal, a band below, and scattered entries above; values in the pattern's order. */
static int colptr[N + 1], rowind[N * N];
static void pattern(void) {
    int k = 0;
    for (int j = 0; j < N; ++j) {
        colptr[j] = k;
        for (int i = 0; i < N; ++i)
            if (i == j || (i > j && i - j <= 2) || (i < j && (i * 7 + j * 3) % 11 == 0)) rowind[k++] = i;
    }
    colptr[N] = k;
}

/* dense = the matrix of vals; diag_shift strengthens the diagonal. */
static void fill(double *vals, double *dense, double diag_shift) {
    memset(dense, 0, sizeof(double) * N * N);
    for (int j = 0; j < N; ++j)
        for (int k = colptr[j]; k < colptr[j + 1]; ++k) {
            vals[k] = rnd() + (rowind[k] == j ? diag_shift : 0);
            dense[rowind[k] + j * N] = vals[k];
        }
}

/* max |x_sparse - x_dense| / max |x_dense| for b of ones. */
static double compare(mb_splu *s, mb_linalg *ws, const double *vals, double *dense, char *err) {
    double x[N], y[N];
    for (int i = 0; i < N; ++i) x[i] = y[i] = 1 + 0.1 * i;
    if (mb_splu_factor(s, vals, err, MB_ERRLEN) || mb_splu_solve(s, x, err, MB_ERRLEN)) return INFINITY;
    if (mb_lu_factor(ws, N, dense, err, MB_ERRLEN) || mb_lu_solve(ws, N, dense, 1, y, err, MB_ERRLEN)) return INFINITY;
    double e = 0, m = 0;
    for (int i = 0; i < N; ++i) {
        e = fmax(e, fabs(x[i] - y[i]));
        m = fmax(m, fabs(y[i]));
    }
    return e / m;
}

int main(void) {
    char err[MB_ERRLEN] = "";
    double vals[N * N], dense[N * N];
    pattern();
    mb_splu *s = mb_splu_create(N, colptr, rowind, err, sizeof err);
    mb_linalg *ws = mb_linalg_create(N, N, 1, err, sizeof err);
    if (!ok(s && ws, "KLU analyses a %d x %d pattern with %d non-zeros", N, N, colptr[N])) {
        diag("%s", err);
        return done_testing();
    }
    fill(vals, dense, 4);
    double e = compare(s, ws, vals, dense, err);
    ok(e < 1e-13, "the first factorization solves as LAPACK's dense LU does (%.2e)", e);
    /* New values of similar size: refactored in the kept order. */
    double worst = 0;
    for (int r = 0; r < 5; ++r) {
        fill(vals, dense, 4);
        worst = fmax(worst, compare(s, ws, vals, dense, err));
    }
    ok(worst < 1e-13, "five refactorizations with new values solve alike (%.2e)", worst);
    is_int(mb_splu_full_count(s), 1, "one full factorization so far");
    is_int(mb_splu_refactor_count(s), 5, "five refactorizations kept its pivots");
    ok(mb_splu_lu_nnz(s) >= colptr[N], "L + U holds at least the pattern (%ld)", mb_splu_lu_nnz(s));
    /* A matrix whose kept pivot order meets a zero: the diagonal weak and one diagonal entry exactly zero, so the old
     * order has a zero pivot (or a bad spread); the door factors afresh and still solves. */
    fill(vals, dense, 0);
    for (int k = colptr[3]; k < colptr[4]; ++k)
        if (rowind[k] == 3) vals[k] = dense[3 + 3 * N] = 0;
    e = compare(s, ws, vals, dense, err);
    ok(e < 1e-9, "a matrix the old pivots do not serve is solved after a fresh factorization (%.2e)", e);
    ok(mb_splu_full_count(s) >= 1 && mb_splu_full_count(s) + mb_splu_refactor_count(s) == 7,
       "every factorization is counted as full or refactored (%ld + %ld)", mb_splu_full_count(s),
       mb_splu_refactor_count(s));
    /* A singular matrix: column 5 zero. */
    fill(vals, dense, 4);
    for (int k = colptr[5]; k < colptr[6]; ++k) vals[k] = 0;
    err[0] = 0;
    int rc = mb_splu_factor(s, vals, err, sizeof err);
    is_int(rc, MB_ERR_SINGULAR, "a singular matrix is MB_ERR_SINGULAR");
    ok(strstr(err, "singular") != NULL, "with a message: %s", err);
    double b[N] = {0};
    ok(mb_splu_solve(s, b, err, sizeof err) != MB_OK, "and no solve follows a failed factorization");
    /* A new, regular matrix after the failure. */
    fill(vals, dense, 4);
    e = compare(s, ws, vals, dense, err);
    ok(e < 1e-13, "the next regular matrix factors and solves again (%.2e)", e);
    /* Bad arguments. */
    ok(!mb_splu_create(0, colptr, rowind, err, sizeof err) && strstr(err, "n >= 1"), "n = 0 is refused: %s", err);
    mb_splu_free(s);
    mb_linalg_free(ws);
    mb_splu_free(NULL);
    return done_testing();
}
