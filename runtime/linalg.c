/* linalg.c: the only file that calls LAPACK; thin wrappers with workspaces sized once and error messages. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "linalg.h"

/* Fortran prototypes (liblapack-dev ships no C header). Character arguments
 * carry a hidden length argument at the end in gfortran's ABI; passing it
 * explicitly is what gfortran-compiled LAPACK expects since gcc 8. */
typedef size_t flen;
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, flen);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
                    double *b, const int *ldb, int *info, flen);
extern void dpocon_(const char *uplo, const int *n, const double *a, const int *lda, const double *anorm,
                    double *rcond, double *work, int *iwork, int *info, flen);
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
                    const int *ipiv, double *b, const int *ldb, int *info, flen);
extern void dgecon_(const char *norm, const int *n, const double *a, const int *lda, const double *anorm,
                    double *rcond, double *work, int *iwork, int *info, flen);
extern void dgeqp3_(const int *m, const int *n, double *a, const int *lda, int *jpvt, double *tau,
                    double *work, const int *lwork, int *info);
extern void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
                    const double *a, const int *lda, const double *tau, double *c, const int *ldc,
                    double *work, const int *lwork, int *info, flen, flen);
extern void dtrtrs_(const char *uplo, const char *trans, const char *diag, const int *n, const int *nrhs,
                    const double *a, const int *lda, double *b, const int *ldb, int *info, flen, flen, flen);
extern void dgelsy_(const int *m, const int *n, const int *nrhs, double *a, const int *lda, double *b,
                    const int *ldb, int *jpvt, const double *rcond, int *rank, double *work,
                    const int *lwork, int *info);

struct mb_linalg {
    int m, n, nrhs;
    int *ipiv;      /* n: LU pivots (1-based, LAPACK's) */
    int *jpvt;      /* n: QR column pivots (1-based) */
    int *piv0;      /* n: the same, 0-based, for callers */
    int inverted;   /* mb_inverse_small left a regular matrix's inverse */
    int *iwork;     /* n: condition estimators */
    double *tau;    /* min(m, n): Householder scalars */
    double *tmp;    /* max(m, n): permutation buffer */
    double *work;   /* lwork */
    int lwork;
};

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

void mb_linalg_free(mb_linalg *ws) {
    if (!ws) return;
    free(ws->ipiv);
    free(ws->jpvt);
    free(ws->piv0);
    free(ws->iwork);
    free(ws->tau);
    free(ws->tmp);
    free(ws->work);
    free(ws);
}

mb_linalg *mb_linalg_create(int m, int n, int nrhs, char *err, size_t errlen) {
    if (m < 1 || n < 1 || nrhs < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "linalg: workspace sizes must be >= 1 (got m=%d n=%d nrhs=%d)",
                m, n, nrhs);
        return NULL;
    }
    mb_linalg *ws = calloc(1, sizeof *ws);
    if (!ws) goto nomem;
    ws->m = m;
    ws->n = n;
    ws->nrhs = nrhs;
    int mn = imin(m, n), mx = imax(m, n);
    ws->ipiv = calloc((size_t)n, sizeof *ws->ipiv);
    ws->jpvt = calloc((size_t)n, sizeof *ws->jpvt);
    ws->piv0 = calloc((size_t)n, sizeof *ws->piv0);
    ws->iwork = calloc((size_t)n, sizeof *ws->iwork);
    ws->tau = calloc((size_t)mn, sizeof *ws->tau);
    ws->tmp = calloc((size_t)mx, sizeof *ws->tmp);
    if (!ws->ipiv || !ws->jpvt || !ws->piv0 || !ws->iwork || !ws->tau || !ws->tmp) goto nomem;

    /* LAPACK's workspace queries (lwork = -1) for the largest announced problem;
     * the condition estimators need 4n. */
    int lwork = 4 * n, q = -1, info = 0, ldb = mx;
    double opt = 0, dummy = 0, rc = 0;
    int rank = 0;
    dgeqp3_(&m, &n, &dummy, &m, ws->jpvt, ws->tau, &opt, &q, &info);
    if (info == 0) lwork = imax(lwork, (int)opt);
    dormqr_("L", "T", &m, &nrhs, &mn, &dummy, &m, ws->tau, &dummy, &ldb, &opt, &q, &info, 1, 1);
    if (info == 0) lwork = imax(lwork, (int)opt);
    dgelsy_(&m, &n, &nrhs, &dummy, &m, &dummy, &ldb, ws->jpvt, &rc, &rank, &opt, &q, &info);
    if (info == 0) lwork = imax(lwork, (int)opt);
    ws->lwork = lwork;
    ws->work = calloc((size_t)lwork, sizeof *ws->work);
    if (!ws->work) goto nomem;
    return ws;
nomem:
    mb_linalg_free(ws);
    mb_fail(err, errlen, MB_ERR_ALLOC, "linalg: out of memory for a %d x %d workspace", m, n);
    return NULL;
}

const int *mb_linalg_pivots(const mb_linalg *ws) { return ws->piv0; }

double mb_norm1(int m, int n, const double *a) {
    double best = 0;
    for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int i = 0; i < m; ++i) s += fabs(a[i + (size_t)j * m]);
        if (s > best || isnan(s)) best = s;
    }
    return best;
}

double mb_norm_inf(int m, int n, const double *a) {
    double best = 0;
    for (int i = 0; i < m; ++i) {
        double s = 0;
        for (int j = 0; j < n; ++j) s += fabs(a[i + (size_t)j * m]);
        if (s > best || isnan(s)) best = s;
    }
    return best;
}

/* A negative info from LAPACK means we passed a bad argument: a bug here, not bad data. */
static int lapack_arg(char *err, size_t errlen, const char *routine, int info) {
    return mb_fail(err, errlen, MB_ERR_LAPACK, "linalg: %s rejected argument %d", routine, -info);
}

static int check_ws(const mb_linalg *ws, int m, int n, int nrhs, const char *what, char *err, size_t errlen) {
    if (!ws) return mb_fail(err, errlen, MB_ERR_ARG, "linalg: %s needs a workspace", what);
    if (m < 1 || n < 1 || nrhs < 0 || m > ws->m || n > ws->n || nrhs > ws->nrhs)
        return mb_fail(err, errlen, MB_ERR_ARG,
                       "linalg: %s of %d x %d with %d right-hand sides exceeds the workspace (%d x %d, %d)",
                       what, m, n, nrhs, ws->m, ws->n, ws->nrhs);
    return MB_OK;
}

int mb_all_finite(const double *v, size_t n) {
    double any = 0;
    for (size_t i = 0; i < n; ++i) any += v[i] * 0.0;
    return any == 0;
}

int mb_all_finite_pattern(const double *a, int rows, int cols, const int *colptr, const int *rowind) {
    if (!colptr || !rowind) return mb_all_finite(a, (size_t)rows * cols);
    double any = 0;
    for (int j = 0; j < cols; ++j) {
        const double *c = a + (size_t)j * rows;
        for (int q = colptr[j]; q < colptr[j + 1]; ++q) any += c[rowind[q]] * 0.0;
    }
    return any == 0;
}

static int check_finite(int count, const double *a, const char *what, char *err, size_t errlen) {
    if (mb_all_finite(a, (size_t)(count > 0 ? count : 0))) return MB_OK;
    for (int i = 0; i < count; ++i)
        if (!isfinite(a[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "linalg: %s: entry %d is %g", what, i, a[i]);
    return MB_OK;
}

/* Up to this order Cholesky factor and solve run as plain loops (LAPACK's storage and pivot report). */
#define MB_CHOL_SMALL 32

int mb_chol_factor(int n, double *a, char *err, size_t errlen) {
    int pivot;
    return mb_chol_factor_at(n, a, &pivot, err, errlen);
}

int mb_chol_factor_at(int n, double *a, int *pivot, char *err, size_t errlen) {
    *pivot = -1;
    if (n < 1 || !a) return mb_fail(err, errlen, MB_ERR_ARG, "linalg: Cholesky of an empty matrix");
    /* LAPACK does not check for NaN; a NaN would pass as "positive definite". */
    int rc = check_finite(n * n, a, "Cholesky input", err, errlen);
    if (rc) return rc;
    int info = 0;
    if (n <= MB_CHOL_SMALL) {   /* plain loops: the sizes of Matrix R's reduced mass matrix, where dpotrf's call
                                   layers cost more than its arithmetic */
        for (int j = 0; j < n && !info; ++j) {
            double *cj = a + (size_t)j * n, d = cj[j];
            for (int k = 0; k < j; ++k) d -= a[j + (size_t)k * n] * a[j + (size_t)k * n];
            if (!(d > 0)) {
                info = j + 1;
                break;
            }
            d = sqrt(d);
            cj[j] = d;
            for (int i = j + 1; i < n; ++i) {
                double v = cj[i];
                for (int k = 0; k < j; ++k) v -= a[i + (size_t)k * n] * a[j + (size_t)k * n];
                cj[i] = v / d;
            }
        }
    } else {
        dpotrf_("L", &n, a, &n, &info, 1);
        if (info < 0) return lapack_arg(err, errlen, "dpotrf", info);
    }
    if (info > 0) {
        *pivot = info - 1;
        return mb_fail(err, errlen, MB_ERR_NOT_PD,
                       "Cholesky: the leading %d x %d block is not positive definite (pivot %d)", info, info,
                       info);
    }
    return MB_OK;
}

int mb_chol_solve(int n, const double *l, int nrhs, double *b, char *err, size_t errlen) {
    if (n < 1 || nrhs < 0 || !l || (nrhs && !b))
        return mb_fail(err, errlen, MB_ERR_ARG, "linalg: bad Cholesky solve arguments");
    if (nrhs == 0) return MB_OK;
    if (n <= MB_CHOL_SMALL) {
        for (int c = 0; c < nrhs; ++c) {
            double *x = b + (size_t)c * n;
            for (int i = 0; i < n; ++i) {
                double v = x[i];
                for (int k = 0; k < i; ++k) v -= l[i + (size_t)k * n] * x[k];
                x[i] = v / l[i + (size_t)i * n];
            }
            for (int i = n - 1; i >= 0; --i) {
                double v = x[i];
                for (int k = i + 1; k < n; ++k) v -= l[k + (size_t)i * n] * x[k];
                x[i] = v / l[i + (size_t)i * n];
            }
        }
        return MB_OK;
    }
    int info = 0;
    dpotrs_("L", &n, &nrhs, l, &n, b, &n, &info, 1);
    if (info < 0) return lapack_arg(err, errlen, "dpotrs", info);
    return MB_OK;
}

int mb_chol_rcond(mb_linalg *ws, int n, const double *l, double anorm, double *rcond, char *err,
                  size_t errlen) {
    int rc = check_ws(ws, n, n, 0, "Cholesky rcond", err, errlen);
    if (rc) return rc;
    int info = 0;
    dpocon_("L", &n, l, &n, &anorm, rcond, ws->work, ws->iwork, &info, 1);
    if (info < 0) return lapack_arg(err, errlen, "dpocon", info);
    return MB_OK;
}

int mb_lu_factor(mb_linalg *ws, int n, double *a, char *err, size_t errlen) {
    int rc = check_ws(ws, n, n, 0, "LU", err, errlen);
    if (rc) return rc;
    if ((rc = check_finite(n * n, a, "LU input", err, errlen))) return rc;
    int info = 0;
    dgetrf_(&n, &n, a, &n, ws->ipiv, &info);
    if (info < 0) return lapack_arg(err, errlen, "dgetrf", info);
    if (info > 0)
        return mb_fail(err, errlen, MB_ERR_SINGULAR,
                       "LU: the matrix is singular (pivot U(%d,%d) is exactly zero)", info, info);
    return MB_OK;
}

int mb_lu_solve(const mb_linalg *ws, int n, const double *lu, int nrhs, double *b, char *err,
                size_t errlen) {
    int rc = check_ws(ws, n, n, nrhs, "LU solve", err, errlen);
    if (rc) return rc;
    if (nrhs == 0) return MB_OK;
    int info = 0;
    dgetrs_("N", &n, &nrhs, lu, &n, ws->ipiv, b, &n, &info, 1);
    if (info < 0) return lapack_arg(err, errlen, "dgetrs", info);
    return MB_OK;
}

int mb_lu_rcond(mb_linalg *ws, int n, const double *lu, double anorm, double *rcond, char *err,
                size_t errlen) {
    int rc = check_ws(ws, n, n, 0, "LU rcond", err, errlen);
    if (rc) return rc;
    int info = 0;
    dgecon_("1", &n, lu, &n, &anorm, rcond, ws->work, ws->iwork, &info, 1);
    if (info < 0) return lapack_arg(err, errlen, "dgecon", info);
    return MB_OK;
}

static double default_tol(int m, int n, double tol) {
    return tol > 0 ? tol : imax(m, n) * DBL_EPSILON;
}

int mb_qrp_factor(mb_linalg *ws, int m, int n, double *a, double tol, int *rank, char *err,
                  size_t errlen) {
    int rc = check_ws(ws, m, n, 0, "pivoted QR", err, errlen);
    if (rc) return rc;
    if ((rc = check_finite(m * n, a, "pivoted QR input", err, errlen))) return rc;
    for (int j = 0; j < n; ++j) ws->jpvt[j] = 0; /* 0 = every column free to move */
    int info = 0;
    dgeqp3_(&m, &n, a, &m, ws->jpvt, ws->tau, ws->work, &ws->lwork, &info);
    if (info < 0) return lapack_arg(err, errlen, "dgeqp3", info);
    for (int j = 0; j < n; ++j) ws->piv0[j] = ws->jpvt[j] - 1;
    /* Column pivoting makes |R_ii| non-increasing, so the rank is a prefix count. */
    int k = imin(m, n), r = 0;
    double lim = default_tol(m, n, tol) * fabs(a[0]);
    while (r < k && fabs(a[r + (size_t)r * m]) > lim) ++r;
    if (rank) *rank = r;
    return MB_OK;
}

/* Small blocks: at the sizes of a vehicle's dependent block (19 x 19) reference LAPACK spends more in its call
 * layers (lsame_, dnrm2_'s scaling, dlarf through dgemv/dger) than in the arithmetic; these plain loops do the same
 * Householder factorization in its storage. */
#define MB_QRP_SMALL (64 * 64)

int mb_qrp_factor_small(mb_linalg *ws, int m, int n, double *a, double tol, int *rank, char *err, size_t errlen) {
    if ((size_t)m * n > MB_QRP_SMALL) return mb_qrp_factor(ws, m, n, a, tol, rank, err, errlen);
    int rc = check_ws(ws, m, n, 0, "pivoted QR", err, errlen);
    if (rc) return rc;
    if ((rc = check_finite(m * n, a, "pivoted QR input", err, errlen))) return rc;
    int k = imin(m, n);
    for (int j = 0; j < n; ++j) ws->piv0[j] = j;
    for (int s = 0; s < k; ++s) {
        /* The pivot: the largest norm of the remaining rows, the first of equals (as dgeqp3's idamax); norms are
         * recomputed, not downdated, so they are exact. */
        int p = s;
        double best = -1;
        for (int j = s; j < n; ++j) {
            const double *c = a + (size_t)j * m;
            double v = 0;
            for (int i = s; i < m; ++i) v += c[i] * c[i];
            if (v > best) best = v, p = j;
        }
        if (p != s) {
            double *cs = a + (size_t)s * m, *cp = a + (size_t)p * m;
            for (int i = 0; i < m; ++i) {
                double t = cs[i];
                cs[i] = cp[i];
                cp[i] = t;
            }
            int t = ws->piv0[s];
            ws->piv0[s] = ws->piv0[p];
            ws->piv0[p] = t;
        }
        /* H = I - tau v v' with v = (1, c[s+1..]) maps column s to (beta, 0, ...) (LAPACK's dlarfg). */
        double *c = a + (size_t)s * m, alpha = c[s], xn = 0;
        for (int i = s + 1; i < m; ++i) xn += c[i] * c[i];
        if (xn == 0) {
            ws->tau[s] = 0;
            continue;
        }
        double beta = -copysign(sqrt(alpha * alpha + xn), alpha), scale = 1 / (alpha - beta);
        ws->tau[s] = (beta - alpha) / beta;
        for (int i = s + 1; i < m; ++i) c[i] *= scale;
        c[s] = beta;
        for (int j = s + 1; j < n; ++j) {
            double *cj = a + (size_t)j * m, w = cj[s];
            for (int i = s + 1; i < m; ++i) w += c[i] * cj[i];
            w *= ws->tau[s];
            cj[s] -= w;
            for (int i = s + 1; i < m; ++i) cj[i] -= w * c[i];
        }
    }
    for (int j = 0; j < n; ++j) ws->jpvt[j] = ws->piv0[j] + 1;
    int r = 0;
    double lim = default_tol(m, n, tol) * fabs(a[0]);
    while (r < k && fabs(a[r + (size_t)r * m]) > lim) ++r;
    if (rank) *rank = r;
    return MB_OK;
}

/* x <- H x for the reflector H = I - tau v v' of step s in LAPACK's storage: v = (1, col[s+1 .. m)) from row s on. */
static inline void householder(const double *col, double tau, int s, int m, double *x) {
    if (tau == 0) return;
    double w = x[s];
    for (int i = s + 1; i < m; ++i) w += col[i] * x[i];
    w *= tau;
    x[s] -= w;
    for (int i = s + 1; i < m; ++i) x[i] -= w * col[i];
}

int mb_qrp_solve(mb_linalg *ws, int m, int n, int rank, const double *qr, int nrhs, double *b, char *err,
                 size_t errlen) {
    int rc = check_ws(ws, m, n, nrhs, "pivoted QR solve", err, errlen);
    if (rc) return rc;
    if (rank < 1 || rank > imin(m, n))
        return mb_fail(err, errlen, MB_ERR_SINGULAR, "least squares: the matrix has rank %d", rank);
    if (nrhs == 0) return MB_OK;
    int info = 0, k = imin(m, n), ldb = imax(m, n);
    if ((size_t)m * n > MB_QRP_SMALL) {
        dormqr_("L", "T", &m, &nrhs, &k, qr, &m, ws->tau, b, &ldb, ws->work, &ws->lwork, &info, 1, 1);
        if (info < 0) return lapack_arg(err, errlen, "dormqr", info);
        dtrtrs_("U", "N", "N", &rank, &nrhs, qr, &m, b, &ldb, &info, 1, 1, 1);
        if (info < 0) return lapack_arg(err, errlen, "dtrtrs", info);
    } else {   /* Q' b, then R x = (Q' b)[0 .. rank) by back substitution, in plain loops (see MB_QRP_SMALL) */
        for (int j = 0; j < rank && !info; ++j)
            if (qr[j + (size_t)j * m] == 0) info = j + 1;
        for (int c = 0; c < nrhs && !info; ++c) {
            double *x = b + (size_t)c * ldb;
            for (int s = 0; s < k; ++s) householder(qr + (size_t)s * m, ws->tau[s], s, m, x);
            for (int j = rank - 1; j >= 0; --j) {
                double s = x[j];
                for (int l = j + 1; l < rank; ++l) s -= qr[j + (size_t)l * m] * x[l];
                x[j] = s / qr[j + (size_t)j * m];
            }
        }
    }
    if (info > 0)
        return mb_fail(err, errlen, MB_ERR_SINGULAR, "least squares: R(%d,%d) is exactly zero", info, info);
    for (int c = 0; c < nrhs; ++c) {
        double *x = b + (size_t)c * ldb;
        for (int j = 0; j < n; ++j) ws->tmp[j] = 0;
        for (int j = 0; j < rank; ++j) ws->tmp[ws->piv0[j]] = x[j];
        for (int j = 0; j < n; ++j) x[j] = ws->tmp[j];
    }
    return MB_OK;
}

int mb_qrp_solve_transposed(const mb_linalg *ws, int m, int n, int rank, const double *qr, double *x, char *err,
                            size_t errlen) {
    if (rank != n || n > m || n > ws->n || m > ws->m)
        return mb_fail(err, errlen, MB_ERR_SINGULAR, "transposed solve: a %d x %d factor of rank %d", m, n, rank);
    /* A P = Q R, so A' x = b is R' (Q' x) = P' b: forward substitution for y = Q' x's first n entries, zeros below
     * (the least-norm x), then x = Q y = H_1 ... H_k y. */
    double *y = ws->tmp;
    for (int j = 0; j < n; ++j) y[j] = x[ws->piv0[j]];
    for (int j = 0; j < n; ++j) {
        double s = y[j], d = qr[j + (size_t)j * m];
        for (int l = 0; l < j; ++l) s -= qr[l + (size_t)j * m] * y[l];
        if (d == 0) return mb_fail(err, errlen, MB_ERR_SINGULAR, "transposed solve: R(%d,%d) is exactly zero", j + 1, j + 1);
        y[j] = s / d;
    }
    for (int i = 0; i < m; ++i) x[i] = i < n ? y[i] : 0;
    for (int s = imin(m, n) - 1; s >= 0; --s) householder(qr + (size_t)s * m, ws->tau[s], s, m, x);
    return MB_OK;
}

int mb_inverse_small(mb_linalg *ws, int n, double *a, double tol, int *rank, double *pmin, double *pmax, char *err,
                     size_t errlen) {
    int rc = check_ws(ws, n, n, 0, "inverse", err, errlen);
    if (rc) return rc;
    if ((rc = check_finite(n * n, a, "inverse input", err, errlen))) return rc;
    int *piv = ws->ipiv;
    double lo = INFINITY, hi = 0, first = 0;
    int r = n;
    ws->inverted = 0;
    for (int k = 0; k < n; ++k) {
        /* Partial pivoting: the largest entry of column k from row k down, the first of equals. */
        double *ck = a + (size_t)k * n, best = fabs(ck[k]);
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (fabs(ck[i]) > best) best = fabs(ck[i]), p = i;
        piv[k] = p;
        if (p != k)
            for (int j = 0; j < n; ++j) {
                double t = a[k + (size_t)j * n];
                a[k + (size_t)j * n] = a[p + (size_t)j * n];
                a[p + (size_t)j * n] = t;
            }
        double d = ck[k], ad = fabs(d);
        if (k == 0) first = ad;
        if (r == n && !(ad > default_tol(n, n, tol) * first)) r = k;
        if (ad < lo) lo = ad;
        if (ad > hi) hi = ad;
        if (d == 0) break;
        /* Gauss-Jordan step by columns: every other column less column k times its row-k entry scaled by 1/d
         * (column k's row-k entry zeroed for it, so row k keeps the scaled entry), then column k becomes
         * -column k / d with 1/d on the diagonal. */
        double inv = 1 / d;
        ck[k] = 0;
        for (int j = 0; j < n; ++j) {
            if (j == k) continue;
            double *cj = a + (size_t)j * n, u = cj[k] * inv;
            cj[k] = u;
            if (u != 0)
                for (int i = 0; i < n; ++i) cj[i] -= ck[i] * u;
        }
        for (int i = 0; i < n; ++i) ck[i] *= -inv;
        ck[k] = inv;
    }
    if (rank) *rank = r;
    if (pmin) *pmin = lo;
    if (pmax) *pmax = hi;
    if (r < n) return MB_OK;
    /* The row interchanges of A are column interchanges of its inverse, undone in reverse order. */
    for (int k = n - 1; k >= 0; --k)
        if (piv[k] != k) {
            double *x = a + (size_t)k * n, *y = a + (size_t)piv[k] * n;
            for (int i = 0; i < n; ++i) {
                double t = x[i];
                x[i] = y[i];
                y[i] = t;
            }
        }
    ws->inverted = 1;
    return MB_OK;
}

int mb_inverse_apply(mb_linalg *ws, int n, const double *inv, int nrhs, double *b, int ldb, char *err,
                     size_t errlen) {
    int rc = check_ws(ws, n, n, 0, "inverse apply", err, errlen);
    if (rc) return rc;
    if (!ws->inverted) return mb_fail(err, errlen, MB_ERR_SINGULAR, "inverse apply: the matrix is singular");
    double *restrict y = ws->tmp;
    for (int c = 0; c < nrhs; ++c) {
        double *restrict x = b + (size_t)c * ldb;
        double v = x[0];
        for (int i = 0; i < n; ++i) y[i] = inv[i] * v;
        for (int j = 1; j < n; ++j) {
            const double *restrict col = inv + (size_t)j * n;
            v = x[j];
            for (int i = 0; i < n; ++i) y[i] += col[i] * v;
        }
        for (int i = 0; i < n; ++i) x[i] = y[i];
    }
    return MB_OK;
}

int mb_inverse_apply_transposed(mb_linalg *ws, int n, const double *inv, double *x, char *err, size_t errlen) {
    int rc = check_ws(ws, n, n, 0, "inverse apply", err, errlen);
    if (rc) return rc;
    if (!ws->inverted) return mb_fail(err, errlen, MB_ERR_SINGULAR, "inverse apply: the matrix is singular");
    double *y = ws->tmp;
    for (int j = 0; j < n; ++j) {
        const double *col = inv + (size_t)j * n;
        double v = 0;
        for (int i = 0; i < n; ++i) v += col[i] * x[i];
        y[j] = v;
    }
    for (int j = 0; j < n; ++j) x[j] = y[j];
    return MB_OK;
}

int mb_lstsq(mb_linalg *ws, int m, int n, int nrhs, double *a, double *b, double tol, int *rank, char *err,
             size_t errlen) {
    int rc = check_ws(ws, m, n, nrhs, "least squares", err, errlen);
    if (rc) return rc;
    if ((rc = check_finite(m * n, a, "least-squares matrix", err, errlen))) return rc;
    for (int j = 0; j < n; ++j) ws->jpvt[j] = 0;
    int info = 0, r = 0, ldb = imax(m, n);
    double rcond = default_tol(m, n, tol);
    if (nrhs == 0) return MB_OK;
    dgelsy_(&m, &n, &nrhs, a, &m, b, &ldb, ws->jpvt, &rcond, &r, ws->work, &ws->lwork, &info);
    if (info < 0) return lapack_arg(err, errlen, "dgelsy", info);
    if (rank) *rank = r;
    if (r == 0) return mb_fail(err, errlen, MB_ERR_SINGULAR, "least squares: the matrix is zero (rank 0)");
    return MB_OK;
}
