/* sparse_lu.h: sparse LU of a square matrix in a fixed compressed-column pattern, over SuiteSparse's KLU. */
#ifndef MB_SPARSE_LU_H
#define MB_SPARSE_LU_H

#include <stddef.h>

#include "mb_status.h"

/* The one door to KLU, as linalg.h is LAPACK's. The pattern is analysed once (fill-reducing ordering, block
 * triangular form) when created; every mb_splu_factor then refactors the values in the pivot order of the last full
 * factorization, which costs only the arithmetic, and factors afresh (new pivots) when that order has gone bad: KLU's
 * refactorization fails, or its pivots' spread (klu_rcond) falls 1e6 times below the full factorization's. */
typedef struct mb_splu mb_splu;

/* n x n with colptr (n + 1) and rowind (colptr[n]), which the caller keeps alive and unchanged. NULL on failure. */
mb_splu *mb_splu_create(int n, const int *colptr, const int *rowind, char *err, size_t errlen);
void mb_splu_free(mb_splu *s);

/* Factors the matrix whose structural non-zeros are values (colptr[n], the pattern's order). MB_ERR_SINGULAR when
 * a pivot is zero or the matrix is singular to working precision. */
int mb_splu_factor(mb_splu *s, const double *values, char *err, size_t errlen);
/* Solves A x = b in place (b: n values) with the last factorization. */
int mb_splu_solve(mb_splu *s, double *b, char *err, size_t errlen);

/* Full factorizations (new pivots) and refactorizations (pivots kept) so far, and the non-zeros of L + U. */
long mb_splu_full_count(const mb_splu *s);
long mb_splu_refactor_count(const mb_splu *s);
long mb_splu_lu_nnz(const mb_splu *s);

#endif
