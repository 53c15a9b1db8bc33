/* sens_recursive_filed.c: the tree DDM's jacobian route as it was when issue 21 was filed (forward_dynamics, _dz,
 * _dzd, _dp of an older generator and runtime, then Sdd = Fz S + Fzd Sd + Fp as its runtime/sens_direct.c
 * aug_eval formed it), timed on the states of tests/bench/sens_recursive.c (the same generator of random numbers,
 * drawn in the same order). Built by tests/bench/sens_recursive_filed.lua against that version's mb_model.h, with
 * -DMODEL_HEADER and -DMODEL. Prints "check" (zdd and Sdd of the first state, which the analysis compares with the
 * recursive kernel's), ns_filed (the minimum over ROUNDS of bench_time.h's medians) and, under callgrind, counts. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include MODEL_HEADER
#include "bench_time.h"
#include "sens_states.h"

#ifndef ROUNDS
#define ROUNDS 5
#endif

static const mb_model *m;
static int n, np;
static double *Z, *ZD, *SSD, *work, *fd, *Fz, *Fzd, *dp, *sdd;

static void eval_filed(int k)
{
    mb_args a = { 0.0, Z + (size_t)k * n, ZD + (size_t)k * n, NULL, NULL, m->p_default, NULL };
    m->forward_dynamics(&a, fd, work);
    m->forward_dynamics_dz(&a, Fz, work);
    m->forward_dynamics_dzd(&a, Fzd, work);
    m->forward_dynamics_dp(&a, dp, work);
    const double *S = SSD + (size_t)k * 2 * n * np;
    jacobian_products(n, np, Fz, Fzd, dp, S, S + (size_t)n * np, sdd);
}

int main(void)
{
    m = &MODEL;
    n = m->nz;
    np = m->np;
    if (!m->forward_dynamics || !m->forward_dynamics_dz || !m->forward_dynamics_dzd || !m->forward_dynamics_dp || np < 1) {
        fprintf(stderr, "GUARD FAILED: the model lacks forward_dynamics, _dz, _dzd or _dp, or design parameters\n");
        return 1;
    }
    size_t nS = (size_t)n * np;
    Z = malloc(sizeof(double) * NSTATE * n);
    ZD = malloc(sizeof(double) * NSTATE * n);
    SSD = malloc(sizeof(double) * NSTATE * 2 * nS);
    work = calloc((size_t)m->nwork + 1, sizeof(double));
    fd = malloc(sizeof(double) * n);
    Fz = malloc(sizeof(double) * n * n);
    Fzd = malloc(sizeof(double) * n * n);
    dp = malloc(sizeof(double) * nS);
    sdd = malloc(sizeof(double) * nS);
    draw_states(n, np, Z, ZD, SSD);
    eval_filed(0);
    printf("n %d\np %d\ncheck", n, np);
    for (int i = 0; i < n; ++i) printf(" %.17g", fd[i]);
    for (size_t i = 0; i < nS; ++i) printf(" %.17g", sdd[i]);
    printf("\n");
    double best = HUGE_VAL;
    int rounds = BENCH_COUNTING() ? 1 : ROUNDS;
    unsigned it = 0;
    for (int r = 0; r < rounds; ++r) {
        double t_filed;
        TIME(t_filed, eval_filed((int)(it++ % NSTATE)); sink = fd[0]);
        best = fmin(best, t_filed);
    }
    printf("ns_filed %.1f\n", best);
    free(Z); free(ZD); free(SSD); free(work); free(fd); free(Fz); free(Fzd); free(dp); free(sdd);
    return 0;
}
