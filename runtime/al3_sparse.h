/* al3_sparse.h: the al3 tangent in the generation-time patterns: their union, where each source's values go, and the
 * products with Phi_z. */
#ifndef MB_AL3_SPARSE_H
#define MB_AL3_SPARSE_H

#include <stddef.h>

#include "mb_model.h"
#include "sparse_lu.h"

/* T = M + h/2 dr/dzd + h²/4 (dr/dz + curvature + alpha Phi_z'Phi_z) is assembled in the union of the patterns of
 * its terms, which the generator fixed: every source writes its compressed values and a map, computed once, says
 * where each one adds into T. Phi_z'Phi_z is a list of products (two Phi_z entries of one row, their T entry). */
typedef struct {
    int n, nc, nnz;
    int *colptr, *rowind;       /* T's pattern: n + 1, nnz */
    double *Tv, *Jpv;           /* T's values; the derivative terms alone, kept jacobian_reuse iterations */
    double *Mv, *Jv, *Dv, *Cv;  /* sources: mass, Phi_z (nc x n), the derivative terms (inverse_dynamics_tangent or the
                                 * provider's [dr/dz, dr/dzd]), the curvature constraints_dz_tw_dz */
    int nM, nJ, nD, nC;         /* their non-zeros */
    int *mapM, *mapD, *mapC;    /* source entry -> T entry */
    int nD_dz;                  /* provider only: its first nD_dz entries are dr/dz, the rest dr/dzd */
    const mb_pattern *Jpat;     /* Phi_z's pattern */
    long ntrip;
    int *trip;                  /* Phi_z'Phi_z: 3 per product: two entries of Jv, the T entry */
    mb_splu *lu;
} mb_al3_sparse;

/* provider: the outside [dr/dz, dr/dzd] pattern (n x 2n) in place of inverse_dynamics_tangent, or NULL; curvature:
 * 1 when constraints_dz_tw_dz joins T. Checks that the model has the compressed forms it needs. */
mb_al3_sparse *mb_al3_sparse_create(const mb_model *m, const mb_pattern *provider, int curvature, char *err,
                                    size_t errlen);
void mb_al3_sparse_free(mb_al3_sparse *s);

/* dst[map[k]] += scale src[k], k < count. */
void mb_al3_sparse_scatter(const int *map, int count, const double *src, double scale, double *dst);
/* Tv += scale Phi_z'Phi_z from Jv. */
void mb_al3_sparse_penalty(mb_al3_sparse *s, double scale);
/* y += Phi_z x (y: nc), and y += scale Phi_z' v (y: n), from Jv. */
void mb_al3_sparse_phi_x(const mb_al3_sparse *s, const double *x, double *y);
void mb_al3_sparse_phit_x(const mb_al3_sparse *s, const double *v, double scale, double *y);

#endif
