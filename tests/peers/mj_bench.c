/* mj_bench.c: ns per call of one generated model against MuJoCo on the same model (tests/lib/mjcf_export.lua).
 * Built by tests/bench/peers_mujoco.lua with -DMB_MODEL and, when the model has them, -DWITH_DERIVATIVES.
 * MuJoCo's calls are the smallest set that computes the same thing from scratch at a new state:
 *   mass               mj_kinematics, mj_comPos, mj_crb, mj_fullM (dense M)
 *   inverse dynamics   mj_kinematics, mj_comPos, mj_comVel, mj_rne(flg_acc = 1)
 *   forward dynamics   mj_forward (contacts, constraints and passive forces disabled in the MJCF)
 *   derivatives        mjd_transitionFD (centred, of one RK4 step: 2nv x 2nv) against mbgen's analytic
 *                      forward_dynamics_dz + _dzd (nv x 2nv) -- related but not the same matrix.
 * Prints "key value" lines; the agreement of M and r is tests/peer_mujoco.t's job. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include <mujoco/mujoco.h>

#include "bench_time.h"
#include "mb_model.h"

extern const mb_model MB_MODEL;

int main(int argc, char **argv) {
    char err[1000] = "";
    mjModel *m = argc > 1 ? mj_loadXML(argv[1], NULL, err, sizeof err) : NULL;
    if (!m) { fprintf(stderr, "mj_bench: %s\n", err); return 2; }
    mjData *d = mj_makeData(m);
    const mb_model *g = &MB_MODEL;
    int n = g->nz, nv = m->nv;
    double *z = calloc(n, sizeof *z), *zd = calloc(n, sizeof *zd), *zdd = calloc(n, sizeof *zdd);
    double *out = calloc((size_t)4 * n * n + 4 * n, sizeof *out), *res = calloc((size_t)nv, sizeof *res);
    double *A = calloc((size_t)4 * nv * nv, sizeof *A), *Mj = calloc((size_t)nv * nv, sizeof *Mj);
    double *work = calloc((size_t)g->nwork + 1, sizeof *work);
    for (int i = 0; i < n; ++i) {
        z[i] = 0.3 * ((i * 7919) % 13 - 6) / 6.0;
        zd[i] = 0.5 * ((i * 104729) % 11 - 5) / 5.0;
        zdd[i] = 0.1 * i;
    }
    for (int i = 0; i < nv; ++i) { d->qpos[i] = z[i]; d->qvel[i] = zd[i]; d->qacc[i] = zdd[i]; }
    mb_args a = { 0.0, z, zd, zdd, NULL, g->p_default, NULL };
    double t_mass, t_id, t_fd, j_mass, j_id, j_fd;
    TIME(t_mass, g->mass(&a, out, work); sink = out[0]);
    TIME(j_mass, mj_kinematics(m, d); mj_comPos(m, d); mj_crb(m, d); mj_fullM(m, Mj, d->qM); sink = Mj[0]);
    TIME(t_id, g->inverse_dynamics(&a, out, work); sink = out[0]);
    TIME(j_id, mj_kinematics(m, d); mj_comPos(m, d); mj_comVel(m, d); mj_rne(m, d, 1, res); sink = res[0]);
    TIME(t_fd, g->forward_dynamics(&a, out, work); sink = out[0]);
    TIME(j_fd, mj_forward(m, d); sink = d->qacc[0]);
    printf("n %d\nmass_ns %.1f\nmj_mass_ns %.1f\nid_ns %.1f\nmj_id_ns %.1f\nfd_ns %.1f\nmj_fd_ns %.1f\n", n, t_mass,
           j_mass, t_id, j_id, t_fd, j_fd);
#ifdef WITH_DERIVATIVES
    double t_d, j_d;
    TIME(t_d, g->forward_dynamics_dz(&a, out, work); g->forward_dynamics_dzd(&a, out + (size_t)n * n, work); sink = out[0]);
    TIME(j_d, mjd_transitionFD(m, d, 1e-6, 1, A, NULL, NULL, NULL); sink = A[0]);
    printf("fd_deriv_ns %.1f\nmj_transition_fd_ns %.1f\n", t_d, j_d);
#endif
    mj_deleteData(d);
    mj_deleteModel(m);
    free(z); free(zd); free(zdd); free(out); free(res); free(A); free(Mj); free(work);
    return 0;
}
