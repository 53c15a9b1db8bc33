/* formulation_tree.h: the open-tree formulation, M(z) zdd = Q(t, z, zd, u), as calls an integrator can use. */
#ifndef MB_FORMULATION_TREE_H
#define MB_FORMULATION_TREE_H

#include <stddef.h>

#include "mb_model.h"
#include "mb_status.h"

/* The runtime computes in double; a model compiled with another mb_real links
 * only with a runtime compiled the same way, which is not supported. */

typedef struct mb_tree mb_tree;

/* What the caller will ask for; create checks the model has the functions. */
enum {
    MB_TREE_ACCEL = 1,             /* mb_tree_accel: needs mass + forces, or forward_dynamics */
    MB_TREE_FORWARD_DYNAMICS = 2,  /* mb_tree_accel through model->forward_dynamics (O(n)) */
    MB_TREE_TANGENT = 4            /* mb_tree_residual + mb_tree_tangent: needs mass,
                                      inverse_dynamics_dz, _dzd, and inverse_dynamics or forces */
};

/* Allocates the mass-matrix workspace once. flags: an OR of the values above. */
mb_tree *mb_tree_create(const mb_model *m, unsigned flags, char *err, size_t errlen);
void mb_tree_free(mb_tree *tr);

/* zdd (nz) from M zdd = Q by Cholesky, or model->forward_dynamics when created
 * with MB_TREE_FORWARD_DYNAMICS. MB_ERR_NOT_PD when M is not positive definite,
 * MB_ERR_NAN when M, Q or zdd holds a NaN or infinity; the message names the
 * function, the entry and the time. u may be NULL when nu = 0, p when np = 0. */
int mb_tree_accel(mb_tree *tr, double t, const double *z, const double *zd, const double *u, const double *p,
                  double *zdd, char *err, size_t errlen);

/* r = M zdd - Q (model->inverse_dynamics, else assembled from mass and forces). */
int mb_tree_residual(mb_tree *tr, double t, const double *z, const double *zd, const double *zdd,
                     const double *u, const double *p, double *r, char *err, size_t errlen);

/* T = cz dr/dz + cv dr/dzd + ca M at (t, z, zd, zdd), nz x nz column-major: the
 * Newton tangent of an implicit integrator whose z and zd depend linearly on
 * zdd with slopes cz and cv (trapezoidal: cz = h²/4, cv = h/2, ca = 1). */
int mb_tree_tangent(mb_tree *tr, double t, const double *z, const double *zd, const double *zdd,
                    const double *u, const double *p, double cz, double cv, double ca, double *T, char *err,
                    size_t errlen);

#endif
