/* adolc_al3.h: the ADOL-C providers of the al3 tangent's [dr/dz, dr/dzd] (adolc_al3_jac.cpp) as the whole-run
 * comparison (adolc_al3.c) plugs them into mb_al3_options.jacobian. */
#ifndef ADOLC_AL3_H
#define ADOLC_AL3_H

#include <stddef.h>

#include "formulation_al3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dense forward (fov_forward, 2n directions), dense reverse (zos_forward + fov_reverse, n weight vectors), sparse
 * (jac_pat once, a greedy column colouring, compressed fov_forward, recovery: this ADOL-C has no ColPack). */
typedef enum { AD_FORWARD, AD_REVERSE, AD_SPARSE } ad_mode;

/* Tapes r(z, zd, t, u) at zdd = 0 with the parameters p, once per program, at the state a (its zdd is not read);
 * every provider evaluates this one tape. Returns 0, or 1 after a message. */
int ad_al3_record(int n, int nu, int np, const mb_args *a, char *err, size_t errlen);

typedef struct ad_al3 ad_al3;
ad_al3 *ad_al3_create(ad_mode mode, char *err, size_t errlen);
void ad_al3_free(ad_al3 *ad);
/* nz x 2nz: full for the dense modes, jac_pat's (safe mode: valid at every state) for the sparse one. */
const mb_pattern *ad_al3_pattern(const ad_al3 *ad);
int ad_al3_colours(const ad_al3 *ad);   /* sparse: the compressed directions; dense: 2n or n */

/* The hook (ctx: an ad_al3). Refuses a p other than the taped one and a non-zero zdd (the tape is r at zdd = 0:
 * approx_tangent only). */
mb_al3_jacobian_fn ad_al3_jacobian;

#ifdef __cplusplus
}
#endif
#endif
