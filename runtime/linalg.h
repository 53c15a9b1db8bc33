/* linalg.h: dense linear algebra for the runtime (Cholesky, LU, pivoted QR, least squares) over LAPACK. */
#ifndef MB_LINALG_H
#define MB_LINALG_H

#include <stddef.h>

#include "mb_status.h"

/* All matrices are dense, column-major and contiguous (leading dimension =
 * number of rows), the layout generated models write. Every call returns an
 * mb_status and writes a message to err/errlen on failure. Factorizations
 * overwrite their input; nothing here allocates except mb_linalg_create.
 *
 * The workspace holds what LAPACK needs beside the matrix: pivots, the
 * Householder scalars of QR and a `work` array sized once by LAPACK's own
 * workspace query for the largest problem the caller announces. One workspace
 * belongs to one factored matrix at a time (LU and QR keep their pivots in it). */
typedef struct mb_linalg mb_linalg;

/* A workspace for matrices of up to m rows and n columns, and up to nrhs
 * right-hand sides (all >= 1). NULL on failure (message in err). */
mb_linalg *mb_linalg_create(int m, int n, int nrhs, char *err, size_t errlen);
void mb_linalg_free(mb_linalg *ws);

/* 1 when all n values are finite: one pass of x * 0 sums (0 for finite x, NaN otherwise), the cheap test before a
 * loop that names the offending entry. */
int mb_all_finite(const double *v, size_t n);
/* The same over the structural non-zeros of a dense rows x cols matrix (compressed-column colptr, rowind; NULL:
 * every entry): a generated function writes its structural zeros as exact zeros, which cannot be NaN. */
int mb_all_finite_pattern(const double *a, int rows, int cols, const int *colptr, const int *rowind);

/* 1-norm (largest column sum of |a_ij|) of an m x n matrix, for the rcond calls. */
double mb_norm1(int m, int n, const double *a);
/* Infinity-norm (largest row sum of |a_ij|). */
double mb_norm_inf(int m, int n, const double *a);

/* Cholesky A = L L' of a symmetric n x n matrix (only the lower triangle is read;
 * L replaces it). MB_ERR_NOT_PD names the first leading minor that is not
 * positive definite. Needs no workspace. */
int mb_chol_factor(int n, double *a, char *err, size_t errlen);
/* The same; on MB_ERR_NOT_PD *pivot is the 0-based row where the factorization stopped (else -1). */
int mb_chol_factor_at(int n, double *a, int *pivot, char *err, size_t errlen);
/* Solves A X = B with the factor from mb_chol_factor; B is n x nrhs, overwritten by X. */
int mb_chol_solve(int n, const double *l, int nrhs, double *b, char *err, size_t errlen);
/* Reciprocal condition number (1-norm estimate) from the Cholesky factor and the
 * 1-norm of the original matrix. */
int mb_chol_rcond(mb_linalg *ws, int n, const double *l, double anorm, double *rcond,
                  char *err, size_t errlen);

/* LU with partial pivoting P A = L U of an n x n matrix (n <= workspace n);
 * the pivots stay in ws. MB_ERR_SINGULAR when a pivot is exactly zero. */
int mb_lu_factor(mb_linalg *ws, int n, double *a, char *err, size_t errlen);
/* Solves A X = B with the factor and the pivots in ws; B is n x nrhs, overwritten. */
int mb_lu_solve(const mb_linalg *ws, int n, const double *lu, int nrhs, double *b,
                char *err, size_t errlen);
/* Reciprocal condition number (1-norm estimate) from the LU factor. */
int mb_lu_rcond(mb_linalg *ws, int n, const double *lu, double anorm, double *rcond,
                char *err, size_t errlen);

/* QR with column pivoting A P = Q R of an m x n matrix (LAPACK dgeqp3). The
 * numerical rank is the number of diagonal entries with |R_ii| > tol |R_11|
 * (tol <= 0 picks max(m,n) * DBL_EPSILON). The permutation is read with
 * mb_linalg_pivots: column k of A P is column piv[k] of A (0-based). */
int mb_qrp_factor(mb_linalg *ws, int m, int n, double *a, double tol, int *rank,
                  char *err, size_t errlen);
const int *mb_linalg_pivots(const mb_linalg *ws);
/* The same factorization (storage, pivots, rank) by plain loops for blocks up to 64 x 64 (larger ones go to
 * mb_qrp_factor): the column norms are exact at every step where dgeqp3 downdates them, so near-ties may pivot
 * differently. For the blocks factored at every evaluation (the kinematic solves' dependent block). */
int mb_qrp_factor_small(mb_linalg *ws, int m, int n, double *a, double tol, int *rank, char *err, size_t errlen);
/* Basic least-squares solution from the factor of mb_qrp_factor: the `rank`
 * leading pivoted columns are used, the others get zero. B is ldb x nrhs with
 * ldb = max(m, n): on entry its first m rows hold the right-hand sides, on exit
 * its first n rows hold X. MB_ERR_SINGULAR when rank is 0. */
int mb_qrp_solve(mb_linalg *ws, int m, int n, int rank, const double *qr, int nrhs, double *b,
                 char *err, size_t errlen);

/* Solves A' x = b from the same factor, for a full-rank A (rank = n <= m): b (n) in x's first n entries on entry,
 * x (m) on return, the solution of least norm (Q [R^-T P' b; 0]). One right-hand side, plain loops. MB_ERR_SINGULAR
 * when rank < n. */
int mb_qrp_solve_transposed(const mb_linalg *ws, int m, int n, int rank, const double *qr, double *x, char *err,
                            size_t errlen);

/* The inverse of a small n x n matrix in place, by Gauss-Jordan elimination with partial pivoting (plain loops;
 * the pivots stay in ws). *rank = the leading pivots above tol |first pivot| (tol <= 0: n DBL_EPSILON); *pmin,
 * *pmax = the smallest and largest |pivot| (pmin / pmax: the conditioning test, as |R_nn / R_11| of pivoted QR);
 * below full rank a is left unspecified and the applies fail. For the square blocks factored at every evaluation and then applied to many right-hand sides:
 * an application is a product by columns, which vectorizes, where a triangular solve runs one entry at a time. */
int mb_inverse_small(mb_linalg *ws, int n, double *a, double tol, int *rank, double *pmin, double *pmax, char *err,
                     size_t errlen);
/* B = A^-1 B for nrhs columns (n x nrhs, leading dimension ldb >= n). MB_ERR_SINGULAR after a singular matrix. */
int mb_inverse_apply(mb_linalg *ws, int n, const double *inv, int nrhs, double *b, int ldb, char *err,
                     size_t errlen);
/* x = A^-T x (n values). */
int mb_inverse_apply_transposed(mb_linalg *ws, int n, const double *inv, double *x, char *err, size_t errlen);

/* Minimum-norm least-squares solution of A X ~ B (LAPACK dgelsy: complete
 * orthogonal factorization with a rank tolerance as in mb_qrp_factor). A is
 * m x n and is destroyed; B as in mb_qrp_solve (ldb = max(m, n)). */
int mb_lstsq(mb_linalg *ws, int m, int n, int nrhs, double *a, double *b, double tol, int *rank,
             char *err, size_t errlen);

#endif
