/* al3_sparse.c: the al3 tangent in the generation-time patterns: their union, where each source's values go, and the
 * products with Phi_z. */
#include <stdlib.h>
#include <string.h>

#include "al3_sparse.h"

void mb_al3_sparse_free(mb_al3_sparse *s) {
    if (!s) return;
    void *bufs[] = {s->colptr, s->rowind, s->Tv, s->Jpv, s->Mv, s->Jv, s->Dv, s->Cv, s->mapM, s->mapD, s->mapC, s->trip};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; ++i) free(bufs[i]);
    mb_splu_free(s->lu);
    free(s);
}

/* Marks a pattern's entries in the n x n table (a column j >= n folds onto j - n: [dr/dz, dr/dzd] share T's columns). */
static void mark(char *used, int n, const mb_pattern *p) {
    for (int j = 0; j < p->cols; ++j)
        for (int k = p->colptr[j]; k < p->colptr[j + 1]; ++k) used[p->rowind[k] + (size_t)(j % n) * n] = 1;
}

static int *map_of(const int *pos, int n, const mb_pattern *p) {
    int *map = malloc((size_t)(p->colptr[p->cols] > 0 ? p->colptr[p->cols] : 1) * sizeof(int));
    if (!map) return NULL;
    for (int j = 0; j < p->cols; ++j)
        for (int k = p->colptr[j]; k < p->colptr[j + 1]; ++k) map[k] = pos[p->rowind[k] + (size_t)(j % n) * n];
    return map;
}

static const char *mname(const mb_model *m) { return m->name ? m->name : "(unnamed)"; }

mb_al3_sparse *mb_al3_sparse_create(const mb_model *m, const mb_pattern *provider, int curvature, char *err,
                                    size_t errlen) {
    int n = m->nz, nc = m->nc;
    const char *missing = !m->mass_csc ? "mass"
                          : !provider && !m->inverse_dynamics_tangent_csc ? "inverse_dynamics_tangent"
                          : nc > 0 && !m->constraints_dz_csc ? "constraints_dz"
                          : nc > 0 && curvature && !m->constraints_dz_tw_dz_csc ? "constraints_dz_tw_dz"
                          : NULL;
    if (missing) {
        mb_fail(err, errlen, MB_ERR_MODEL,
                "model %s has no compressed form of %s, needed by the sparse al3 tangent (generate with --csc)",
                mname(m), missing);
        return NULL;
    }
    const mb_pattern *D = provider ? provider : m->inverse_dynamics_tangent_pattern;
    if (!mb_pattern_valid(m->mass_pattern, n, n) || !mb_pattern_valid(D, n, provider ? 2 * n : n) ||
        (nc > 0 && !mb_pattern_valid(m->constraints_dz_pattern, nc, n)) ||
        (nc > 0 && curvature && !mb_pattern_valid(m->constraints_dz_tw_dz_pattern, n, n))) {
        mb_fail(err, errlen, MB_ERR_ARG, "al3: a pattern of the sparse tangent has the wrong shape or an index outside it "
                "(model %s%s)", mname(m), provider ? ", or the provider's, which must be nz x 2nz" : "");
        return NULL;
    }
    mb_al3_sparse *s = calloc(1, sizeof *s);
    char *used = calloc((size_t)n * n, 1);
    int *pos = malloc((size_t)n * n * sizeof(int));
    int *rowlen = calloc((size_t)(nc > 0 ? nc : 1) + 1, sizeof(int)), *rowent = NULL;
    if (!s || !used || !pos || !rowlen) goto nomem;
    s->n = n;
    s->nc = nc;
    for (int j = 0; j < n; ++j) used[j + (size_t)j * n] = 1;   /* a pivot place in every column */
    mark(used, n, m->mass_pattern);
    mark(used, n, D);
    if (nc > 0 && curvature) mark(used, n, m->constraints_dz_tw_dz_pattern);
    /* Phi_z'Phi_z: the columns met in one row of Phi_z couple pairwise. Rows listed as (column, entry). */
    const mb_pattern *J = nc > 0 ? m->constraints_dz_pattern : NULL;
    if (J) {
        s->Jpat = J;
        s->nJ = J->colptr[n];
        for (int k = 0; k < s->nJ; ++k) rowlen[J->rowind[k] + 1]++;
        for (int i = 0; i < nc; ++i) rowlen[i + 1] += rowlen[i];
        if (!(rowent = malloc((size_t)(s->nJ > 0 ? s->nJ : 1) * 2 * sizeof(int)))) goto nomem;
        int *fill = calloc((size_t)nc, sizeof(int));
        if (!fill) goto nomem;
        for (int j = 0; j < n; ++j)
            for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k) {
                int i = J->rowind[k], at = rowlen[i] + fill[i]++;
                rowent[2 * at] = j;
                rowent[2 * at + 1] = k;
            }
        free(fill);
        for (int i = 0; i < nc; ++i) {
            long len = rowlen[i + 1] - rowlen[i];
            s->ntrip += len * len;
            for (int a = rowlen[i]; a < rowlen[i + 1]; ++a)
                for (int b = rowlen[i]; b < rowlen[i + 1]; ++b) used[rowent[2 * a] + (size_t)rowent[2 * b] * n] = 1;
        }
    }
    /* T's pattern and each entry's place. */
    if (!(s->colptr = malloc((size_t)(n + 1) * sizeof(int)))) goto nomem;
    s->colptr[0] = 0;
    for (int j = 0; j < n; ++j) {
        int c = 0;
        for (int i = 0; i < n; ++i) c += used[i + (size_t)j * n];
        s->colptr[j + 1] = s->colptr[j] + c;
    }
    s->nnz = s->colptr[n];
    if (!(s->rowind = malloc((size_t)s->nnz * sizeof(int)))) goto nomem;
    for (int j = 0, k = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            if (used[i + (size_t)j * n]) {
                pos[i + (size_t)j * n] = k;
                s->rowind[k++] = i;
            }
    s->nM = m->mass_pattern->colptr[n];
    s->nD = D->colptr[D->cols];
    s->nD_dz = provider ? D->colptr[n] : s->nD;
    s->nC = nc > 0 && curvature ? m->constraints_dz_tw_dz_pattern->colptr[n] : 0;
    if (!(s->mapM = map_of(pos, n, m->mass_pattern)) || !(s->mapD = map_of(pos, n, D)) ||
        (s->nC && !(s->mapC = map_of(pos, n, m->constraints_dz_tw_dz_pattern))))
        goto nomem;
    if (s->ntrip) {
        if (!(s->trip = malloc((size_t)s->ntrip * 3 * sizeof(int)))) goto nomem;
        long t = 0;
        for (int i = 0; i < nc; ++i)
            for (int a = rowlen[i]; a < rowlen[i + 1]; ++a)
                for (int b = rowlen[i]; b < rowlen[i + 1]; ++b) {
                    s->trip[3 * t] = rowent[2 * a + 1];
                    s->trip[3 * t + 1] = rowent[2 * b + 1];
                    s->trip[3 * t + 2] = pos[rowent[2 * a] + (size_t)rowent[2 * b] * n];
                    ++t;
                }
    }
    double **vals[] = {&s->Tv, &s->Jpv, &s->Mv, &s->Jv, &s->Dv, &s->Cv};
    int counts[] = {s->nnz, s->nnz, s->nM, s->nJ, s->nD, s->nC};
    for (size_t i = 0; i < sizeof vals / sizeof *vals; ++i)
        if (!(*vals[i] = calloc((size_t)(counts[i] > 0 ? counts[i] : 1), sizeof(double)))) goto nomem;
    free(used);
    free(pos);
    free(rowlen);
    free(rowent);
    if (!(s->lu = mb_splu_create(n, s->colptr, s->rowind, err, errlen))) {
        mb_al3_sparse_free(s);
        return NULL;
    }
    return s;
nomem:
    free(used);
    free(pos);
    free(rowlen);
    free(rowent);
    mb_al3_sparse_free(s);
    mb_fail(err, errlen, MB_ERR_ALLOC, "al3: out of memory for the sparse tangent (nz = %d, nc = %d)", n, nc);
    return NULL;
}

void mb_al3_sparse_scatter(const int *map, int count, const double *src, double scale, double *dst) {
    for (int k = 0; k < count; ++k) dst[map[k]] += scale * src[k];
}

void mb_al3_sparse_penalty(mb_al3_sparse *s, double scale) {
    const int *t = s->trip;
    for (long k = 0; k < s->ntrip; ++k, t += 3) s->Tv[t[2]] += scale * s->Jv[t[0]] * s->Jv[t[1]];
}

void mb_al3_sparse_phi_x(const mb_al3_sparse *s, const double *x, double *y) {
    const mb_pattern *J = s->Jpat;
    for (int j = 0; j < s->n; ++j)
        for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k) y[J->rowind[k]] += s->Jv[k] * x[j];
}

void mb_al3_sparse_phit_x(const mb_al3_sparse *s, const double *v, double scale, double *y) {
    const mb_pattern *J = s->Jpat;
    for (int j = 0; j < s->n; ++j) {
        double acc = 0;
        for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k) acc += s->Jv[k] * v[J->rowind[k]];
        y[j] += scale * acc;
    }
}
