/* mj_agree.c: M and the inverse dynamics of one generated model against MuJoCo on the same model (MJCF from
 * tests/lib/mjcf_export.lua) at seeded random states; prints "key value" lines of the worst relative errors.
 *
 * Conventions: MuJoCo's dofs are ordered depth-first and mapped here by joint name (the mbgen coordinate name);
 * mj_rne(flg_acc = 1) gives M qacc + qfrc_bias with qfrc_bias = C(q, qd) qd + g(q) = -Q, which is mbgen's
 * residual r = M zdd - Q when no other force acts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mujoco/mujoco.h>

#include "mb_model.h"

extern const mb_model MB_MODEL;

static unsigned long long rng = 0x2545f4914f6cdd1dULL;
static double rnd(void) {
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: mj_agree MODEL.xml\n"); return 2; }
    char err[1000] = "";
    mjModel *m = mj_loadXML(argv[1], NULL, err, sizeof err);
    if (!m) { fprintf(stderr, "mj_agree: %s\n", err); return 2; }
    mjData *d = mj_makeData(m);
    const mb_model *g = &MB_MODEL;
    int n = g->nz;
    if (m->nv != n) { fprintf(stderr, "mj_agree: MuJoCo has %d dofs, mbgen %d\n", m->nv, n); return 2; }
    int *map = malloc(sizeof(int) * n);   /* mbgen coordinate i -> MuJoCo dof */
    for (int i = 0; i < n; ++i) {
        int j = mj_name2id(m, mjOBJ_JOINT, g->z_names[i]);
        if (j < 0) { fprintf(stderr, "mj_agree: no joint %s\n", g->z_names[i]); return 2; }
        map[i] = m->jnt_dofadr[j];
    }
    double *z = malloc(sizeof(double) * n), *zd = malloc(sizeof(double) * n), *zdd = malloc(sizeof(double) * n);
    double *M = malloc(sizeof(double) * n * n), *Mj = malloc(sizeof(double) * n * n);
    double *r = malloc(sizeof(double) * n), *rj = malloc(sizeof(double) * n);
    double *work = calloc((size_t)g->nwork + 1, sizeof *work);
    double worst_m = 0, worst_r = 0;
    for (int k = 0; k < 10; ++k) {
        for (int i = 0; i < n; ++i) {
            z[i] = rnd(); zd[i] = 2 * rnd(); zdd[i] = 2 * rnd();
            d->qpos[map[i]] = z[i]; d->qvel[map[i]] = zd[i];
        }
        mb_args a = { 0.0, z, zd, zdd, NULL, g->p_default, NULL };
        g->mass(&a, M, work);
        g->inverse_dynamics(&a, r, work);
        mj_forward(m, d);
        for (int i = 0; i < n; ++i) d->qacc[map[i]] = zdd[i];
        mj_fullM(m, Mj, d->qM);
        mj_rne(m, d, 1, rj);
        double mmax = 0, rmax = 0;
        for (int i = 0; i < n * n; ++i) mmax = fmax(mmax, fabs(M[i]));
        for (int i = 0; i < n; ++i) rmax = fmax(rmax, fabs(r[i]));
        for (int i = 0; i < n; ++i) {
            worst_r = fmax(worst_r, fabs(r[i] - rj[map[i]]) / rmax);
            for (int j = 0; j < n; ++j)
                worst_m = fmax(worst_m, fabs(M[i + j * n] - Mj[map[i] * n + map[j]]) / mmax);
        }
    }
    printf("n %d\nmass_rel %.3e\ninverse_dynamics_rel %.3e\n", n, worst_m, worst_r);
    mj_deleteData(d);
    mj_deleteModel(m);
    free(map); free(z); free(zd); free(zdd); free(M); free(Mj); free(r); free(rj);
    return 0;
}
