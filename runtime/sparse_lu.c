/* sparse_lu.c: sparse LU of a square matrix in a fixed compressed-column pattern, over SuiteSparse's KLU. */
#include <math.h>
#include <stdlib.h>

#include <suitesparse/klu.h>

#include "sparse_lu.h"

struct mb_splu {
    int n;
    int *colptr, *rowind;       /* KLU takes non-const pointers: private copies */
    klu_common common;
    klu_symbolic *symbolic;
    klu_numeric *numeric;
    double rcond_full;          /* klu_rcond after the last full factorization */
    long full, refactor;
};

void mb_splu_free(mb_splu *s) {
    if (!s) return;
    if (s->numeric) klu_free_numeric(&s->numeric, &s->common);
    if (s->symbolic) klu_free_symbolic(&s->symbolic, &s->common);
    free(s->colptr);
    free(s->rowind);
    free(s);
}

mb_splu *mb_splu_create(int n, const int *colptr, const int *rowind, char *err, size_t errlen) {
    if (n < 1 || !colptr || !rowind) {
        mb_fail(err, errlen, MB_ERR_ARG, "sparse LU: needs n >= 1 and a pattern");
        return NULL;
    }
    mb_splu *s = calloc(1, sizeof *s);
    int nnz = colptr[n];
    if (!s || !(s->colptr = malloc((size_t)(n + 1) * sizeof(int))) ||
        !(s->rowind = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int)))) {
        mb_splu_free(s);
        mb_fail(err, errlen, MB_ERR_ALLOC, "sparse LU: out of memory (n = %d, %d non-zeros)", n, nnz);
        return NULL;
    }
    s->n = n;
    for (int j = 0; j <= n; ++j) s->colptr[j] = colptr[j];
    for (int k = 0; k < nnz; ++k) s->rowind[k] = rowind[k];
    klu_defaults(&s->common);
    s->symbolic = klu_analyze(n, s->colptr, s->rowind, &s->common);
    if (!s->symbolic) {
        mb_fail(err, errlen, MB_ERR_ARG, "sparse LU: KLU cannot analyse the %d x %d pattern (%d non-zeros; status %d)",
                n, n, nnz, s->common.status);
        mb_splu_free(s);
        return NULL;
    }
    return s;
}

static int singular(mb_splu *s, char *err, size_t errlen) {
    return mb_fail(err, errlen, MB_ERR_SINGULAR, "sparse LU: the %d x %d matrix is singular to working precision (KLU "
                   "status %d)", s->n, s->n, s->common.status);
}

int mb_splu_factor(mb_splu *s, const double *values, char *err, size_t errlen) {
    double *v = (double *)values;   /* KLU reads the values only */
    if (s->numeric) {
        /* Refactor in the old pivot order; keep it unless KLU fails or the pivots spread far more than when chosen. */
        if (klu_refactor(s->colptr, s->rowind, v, s->symbolic, s->numeric, &s->common) &&
            klu_rcond(s->symbolic, s->numeric, &s->common) && s->common.rcond > 1e-6 * s->rcond_full &&
            s->common.rcond > 0) {
            s->refactor++;
            return MB_OK;
        }
        klu_free_numeric(&s->numeric, &s->common);
    }
    s->common.status = KLU_OK;
    s->numeric = klu_factor(s->colptr, s->rowind, v, s->symbolic, &s->common);
    if (!s->numeric || s->common.status != KLU_OK) {
        if (s->numeric) klu_free_numeric(&s->numeric, &s->common);
        return singular(s, err, errlen);
    }
    if (!klu_rcond(s->symbolic, s->numeric, &s->common) || !(s->common.rcond > 0)) {
        klu_free_numeric(&s->numeric, &s->common);
        return singular(s, err, errlen);
    }
    s->rcond_full = s->common.rcond;
    s->full++;
    return MB_OK;
}

int mb_splu_solve(mb_splu *s, double *b, char *err, size_t errlen) {
    if (!s->numeric) return mb_fail(err, errlen, MB_ERR_ARG, "sparse LU: solve before a factorization");
    if (!klu_solve(s->symbolic, s->numeric, s->n, 1, b, &s->common))
        return mb_fail(err, errlen, MB_ERR_SINGULAR, "sparse LU: KLU's solve failed (status %d)", s->common.status);
    return MB_OK;
}

long mb_splu_full_count(const mb_splu *s) { return s->full; }
long mb_splu_refactor_count(const mb_splu *s) { return s->refactor; }
long mb_splu_lu_nnz(const mb_splu *s) { return s->numeric ? (long)s->numeric->lnz + s->numeric->unz + s->n : 0; }
