/* dyn_bench.c: ns per call of one generated model's functions against the textbook oracle and central differences.
 * Built by tests/bench/dyn_chain.sh per model with -DMODEL_HEADER, -DREF_HEADER and -DMODEL; prints one
 * "key value" line per measurement. Times are medians of repeated batches, all in this process. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include MODEL_HEADER
#include "bench_time.h"
#include "ref_tree.h"
#include REF_HEADER

int main(void)
{
    const mb_model *m = &MODEL;
    const struct ref_tree *t = &ref_model;
    int n = m->nz;
    double *z = calloc(n, sizeof *z), *zd = calloc(n, sizeof *zd), *zdd = calloc(n, sizeof *zdd);
    double *out = calloc((size_t)n * n * 2 + 2 * n, sizeof *out), *tau = calloc(n, sizeof *tau);
    double *zp = calloc(n, sizeof *zp), *rp = calloc(n, sizeof *rp), *rm = calloc(n, sizeof *rm);
    double *work = calloc((size_t)m->nwork + 1, sizeof *work);
    struct ref_rng g;
    ref_rng_seed(&g, 7);
    for (int i = 0; i < n; ++i) {
        z[i] = ref_rng_uniform(&g, -1, 1); zd[i] = ref_rng_uniform(&g, -1, 1); zdd[i] = ref_rng_uniform(&g, -1, 1);
    }
    mb_args a = { 0.0, z, zd, zdd, NULL, m->p_default, NULL };
    double t_mass, t_id, t_fd, t_jac, t_tan, r_mass, r_id, r_fd, t_cd;
    const double c[3] = { 0.25e-6, 0.5e-3, 1.0 };   /* trapezoidal, h = 1 ms */
    mb_args at = a;
    at.w = c;
    TIME(t_mass, m->mass(&a, out, work); sink = out[0]);
    TIME(r_mass, ref_mass_matrix(t, z, out); sink = out[0]);
    TIME(t_id, m->inverse_dynamics(&a, out, work); sink = out[0]);
    TIME(r_id, ref_inverse_dynamics(t, z, zd, zdd, out); sink = out[0]);
    TIME(t_fd, m->forward_dynamics(&a, out, work); sink = out[0]);
    TIME(r_fd, ref_forward_dynamics(t, z, zd, tau, out); sink = out[0]);
    TIME(t_jac, m->inverse_dynamics_dz(&a, out, work); m->inverse_dynamics_dzd(&a, out + (size_t)n * n, work); sink = out[0]);
    TIME(t_tan, m->inverse_dynamics_tangent(&at, out, work); sink = out[0]);
    /* central differences of the generated residual: 2 calls per column, 2n columns */
    TIME(t_cd, {
        mb_args b = a;
        for (int i = 0; i < n; ++i) zp[i] = z[i];
        for (int arr = 0; arr < 2; ++arr) {
            const double *base = arr ? zd : z;
            for (int i = 0; i < n; ++i) zp[i] = base[i];
            if (arr) b.zd = zp; else b.z = zp;
            for (int j = 0; j < n; ++j) {
                double h = 1e-6 * (1 + fabs(base[j]));
                zp[j] = base[j] + h; m->inverse_dynamics(&b, rp, work);
                zp[j] = base[j] - h; m->inverse_dynamics(&b, rm, work);
                zp[j] = base[j];
                for (int i = 0; i < n; ++i) out[i + (size_t)j * n] = (rp[i] - rm[i]) / (2 * h);
            }
            b.z = z; b.zd = zd;
        }
        sink = out[0];
    });
    printf("n %d\nmass_ns %.1f\nref_mass_ns %.1f\nid_ns %.1f\nref_id_ns %.1f\nfd_ns %.1f\nref_fd_ns %.1f\n",
           n, t_mass, r_mass, t_id, r_id, t_fd, r_fd);
    printf("jac_ns %.1f\ncd_jac_ns %.1f\ntangent_ns %.1f\n", t_jac, t_cd, t_tan);
    free(z); free(zd); free(zdd); free(out); free(tau); free(zp); free(rp); free(rm); free(work);
    return 0;
}
