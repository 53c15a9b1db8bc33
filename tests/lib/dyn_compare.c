/* dyn_compare.c: a generated model against the textbook oracle (tests/c/ref_tree.h) at seeded random states.
 * Built by tests/dyn_reference.t with -DMODEL_HEADER='"NAME.h"' -DREF_HEADER='"NAME_ref.h"' -DMODEL=NAME_model;
 * prints "key value" lines: worst errors relative to each quantity's max-norm. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include MODEL_HEADER
#include "ref_tree.h"
#include "relerr.h"
#include REF_HEADER


static double worst(double w, double e) { return e > w || e != e ? e : w; }

int main(void)
{
    const mb_model *m = &MODEL;
    const struct ref_tree *t = &ref_model;
    int n = m->nz;
    if (n != t->n) { printf("size_mismatch %d %d\n", n, t->n); return 1; }
    static double z[REF_MAX], zd[REF_MAX], zdd[REF_MAX], M[REF_MAX * REF_MAX], Mr[REF_MAX * REF_MAX];
    static double L[REF_MAX * REF_MAX], r[REF_MAX], rr[REF_MAX], Q[REF_MAX], Qr[REF_MAX], fd[REF_MAX],
        fdr[REF_MAX], tau0[REF_MAX];
    double e_M = 0, e_sym = 0, e_r = 0, e_Q = 0, e_T = 0, e_Tr = 0, e_V = 0, e_fd = 0, e_fdr = 0;
    int not_pd = 0, bad_status = 0;
    double *work = calloc(m->nwork > 0 ? (size_t)m->nwork : 1, sizeof *work);
    if (!work) return 2;
    struct ref_rng s;
    ref_rng_seed(&s, 12345);
    for (int k = 0; k < 6; ++k) {
        for (int i = 0; i < n; ++i) {
            z[i] = ref_rng_uniform(&s, -1.5, 1.5);
            zd[i] = ref_rng_uniform(&s, -2, 2);
            zdd[i] = ref_rng_uniform(&s, -2, 2);
            tau0[i] = 0;
        }
        mb_args a = { 0.0, z, zd, zdd, NULL, m->p_default, NULL };
        m->mass(&a, M, work);
        ref_mass_matrix(t, z, Mr);
        e_M = worst(e_M, relerr(M, Mr, n * n));
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (M[i + j * n] != M[j + i * n]) e_sym = 1;
        if (ref_cholesky(n, M, L) != 0) not_pd = 1;
        m->inverse_dynamics(&a, r, work);
        ref_inverse_dynamics(t, z, zd, zdd, rr);
        e_r = worst(e_r, relerr(r, rr, n));
        m->forces(&a, Q, work);
        ref_forces(t, z, zd, Qr);
        e_Q = worst(e_Q, relerr(Q, Qr, n));
        double en[2], enr[2], T = 0;
        m->energy(&a, en, work);
        ref_energy(t, z, zd, enr);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) T += 0.5 * zd[i] * M[i + j * n] * zd[j];
        e_T = worst(e_T, fabs(en[0] - T) / fmax(fabs(T), 1e-300));
        e_Tr = worst(e_Tr, fabs(en[0] - enr[0]) / fmax(fabs(enr[0]), 1e-300));
        e_V = worst(e_V, fabs(en[1] - enr[1]) / fmax(fabs(enr[1]), 1.0));
        if (m->forward_dynamics(&a, fd, work)) bad_status = 1;
        if (ref_forward_dynamics(t, z, zd, tau0, fdr) != 0) not_pd = 1;
        e_fd = worst(e_fd, relerr(fd, fdr, n));
        /* M fd = Q with the generated M and Q: the residual at fd vanishes */
        a.zdd = fd;
        m->inverse_dynamics(&a, r, work);
        double rn = 0, qn = 0;
        for (int i = 0; i < n; ++i) { rn = fmax(rn, fabs(r[i])); qn = fmax(qn, fabs(Q[i])); }
        e_fdr = worst(e_fdr, rn / fmax(qn, 1.0));
    }
    printf("mass %.3e\nsymmetric %.3e\nnot_pd %d\ninverse_dynamics %.3e\nforces %.3e\n", e_M, e_sym, not_pd, e_r, e_Q);
    printf("kinetic_vs_M %.3e\nkinetic_vs_ref %.3e\npotential_vs_ref %.3e\n", e_T, e_Tr, e_V);
    printf("forward_dynamics %.3e\nresidual_at_fd %.3e\nbad_status %d\n", e_fd, e_fdr, bad_status);
    free(work);
    return 0;
}
