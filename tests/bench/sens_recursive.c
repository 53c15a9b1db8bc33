/* sens_recursive.c: one right-hand-side evaluation of the tree DDM (the nominal accelerations and the p sensitivity
 * accelerations Sdd_j = d zdd along (S_j, Sd_j, e_j)) by its two kernels, timed in one process on the same states:
 *   recursive: forward_dynamics_sens (O(n) per parameter on the body-frame articulated-body recursion, in whichever
 *              of its two forms the generator found cheaper), one call;
 *   jacobian:  forward_dynamics + forward_dynamics_dy + forward_dynamics_dp, then Sdd = Fz S + Fzd Sd + Fp by
 *              the loop of runtime/sens_direct.c aug_eval (today's route).
 * Built by tests/bench/sens_recursive.sh per (n, p) with -DMODEL_HEADER and -DMODEL. A model built with p = 0
 * and only forward_dynamics and forward_dynamics_sens times the two nominal kernels alone (no _dy, _dp).
 * Before anything is timed, both kernels' zdd and Sdd are compared on every state: a relative difference above
 * 1e-10 prints "GUARD FAILED" and exits 1. Prints "key value" lines: sizes, the generator's operation counts
 * (model->slot_ops), ns per evaluation (the minimum over ROUNDS of bench_time.h's medians, the kernels taking
 * turns within each round) and the guard's largest difference. Under callgrind every TIME counts instructions
 * instead (one round). */
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
#ifndef GUARD_TOL
#define GUARD_TOL 1e-10
#endif

static const mb_model *m;
static int n, np, has_jac;
static double *Z, *ZD, *SSD;          /* NSTATE states: z, zd (n each), w = [S, Sd] (2 n np) */
static double *work, *rec, *fd, *dy, *dp, *sdd;

static const double *S_of(int k) { return SSD + (size_t)k * 2 * n * np; }

/* Every evaluation starts from scratch: nothing is kept between calls, as in aug_eval. Without design parameters
 * (p = 0) a model has no _sens functions: the nominal kernel is forward_dynamics. */
static void eval_recursive(int k)
{
    mb_args a = { 0.0, Z + (size_t)k * n, ZD + (size_t)k * n, NULL, NULL, m->p_default, S_of(k) };
    if ((np > 0 ? m->forward_dynamics_sens : m->forward_dynamics)(&a, rec, work)) { fprintf(stderr, "GUARD FAILED: forward_dynamics_sens singular\n"); exit(1); }
}

static void eval_jacobian(int k)
{
    mb_args a = { 0.0, Z + (size_t)k * n, ZD + (size_t)k * n, NULL, NULL, m->p_default, NULL };
    if (m->forward_dynamics(&a, fd, work)) { fprintf(stderr, "GUARD FAILED: forward_dynamics singular\n"); exit(1); }
    if (!has_jac) return;
    m->forward_dynamics_dy(&a, dy, work);
    m->forward_dynamics_dp(&a, dp, work);
    const double *S = S_of(k);
    jacobian_products(n, np, dy, dy + (size_t)n * n, dp, S, S + (size_t)n * np, sdd);
}

/* One part of the jacobian route alone: 0 forward_dynamics, 1 forward_dynamics_dy, 2 forward_dynamics_dp. */
static void eval_part(int which, int k)
{
    mb_args a = { 0.0, Z + (size_t)k * n, ZD + (size_t)k * n, NULL, NULL, m->p_default, NULL };
    if (which == 0) m->forward_dynamics(&a, fd, work);
    else if (which == 1) m->forward_dynamics_dy(&a, dy, work);
    else m->forward_dynamics_dp(&a, dp, work);
}

static long ops(int slot) { return m->slot_ops ? m->slot_ops[slot] : -1; }

int main(void)
{
    m = &MODEL;
    n = m->nz;
    np = m->np;
    has_jac = np > 0 && m->forward_dynamics_dy && m->forward_dynamics_dp;
    if (!m->forward_dynamics || (np > 0 && (!m->forward_dynamics_sens || !has_jac))) {
        fprintf(stderr, "GUARD FAILED: the model lacks forward_dynamics, _sens, _dy or _dp\n");
        return 1;
    }
    size_t nS = (size_t)n * np;
    Z = malloc(sizeof(double) * NSTATE * n);
    ZD = malloc(sizeof(double) * NSTATE * n);
    SSD = malloc(sizeof(double) * (NSTATE * 2 * nS + 1));
    work = calloc((size_t)m->nwork + 1, sizeof(double));
    rec = malloc(sizeof(double) * (n + nS));
    fd = malloc(sizeof(double) * n);
    dy = malloc(sizeof(double) * (2 * (size_t)n * n + 1));
    dp = malloc(sizeof(double) * (nS + 1));
    sdd = malloc(sizeof(double) * (nS + 1));
    draw_states(n, np, Z, ZD, SSD);

    /* The guard: both kernels on every state, relative to the largest entry of each column. */
    double worst = 0;
    for (int k = 0; k < NSTATE; ++k) {
        eval_recursive(k);
        eval_jacobian(k);
        for (int j = 0; j <= np; ++j) {
            const double *r = rec + (size_t)j * n, *c = j == 0 ? fd : sdd + (size_t)(j - 1) * n;
            double scale = 0, diff = 0;
            for (int i = 0; i < n; ++i) {
                if (!isfinite(r[i]) || !isfinite(c[i])) diff = HUGE_VAL;
                scale = fmax(scale, fabs(c[i]));
                diff = fmax(diff, fabs(r[i] - c[i]));
            }
            double e = diff / fmax(scale, 1e-300);
            if (!(e <= worst)) worst = e;
        }
    }
    printf("n %d\np %d\nnwork %d\n", n, np, m->nwork);
    printf("guard_rel %.3e\n", worst);
    /* zdd and Sdd of the first state, for a route built elsewhere (tests/bench/sens_recursive_filed.lua) to check. */
    eval_recursive(0);
    printf("check");
    for (size_t i = 0; i < (size_t)n + nS; ++i) printf(" %.17g", rec[i]);
    printf("\n");
    if (!(worst <= GUARD_TOL)) {
        fprintf(stderr, "GUARD FAILED: n = %d, p = %d: recursive and jacobian zdd/Sdd differ by %.3e relative (> %g)\n",
                n, np, worst, GUARD_TOL);
        return 1;
    }
    printf("ops_fd %ld\nops_dy %ld\nops_dp %ld\nops_sens %ld\n", ops(MB_SLOT_forward_dynamics),
           has_jac ? ops(MB_SLOT_forward_dynamics_dy) : 0, has_jac ? ops(MB_SLOT_forward_dynamics_dp) : 0,
           ops(np > 0 ? MB_SLOT_forward_dynamics_sens : MB_SLOT_forward_dynamics));

    /* Timed: the two routes take turns in every round, the parts of the jacobian route after them. */
    double best_rec = HUGE_VAL, best_jac = HUGE_VAL, best_fd = HUGE_VAL, best_dy = HUGE_VAL, best_dp = HUGE_VAL;
    int rounds = BENCH_COUNTING() ? 1 : ROUNDS;
    unsigned it = 0;
    for (int r = 0; r < rounds; ++r) {
        double t_rec, t_jac, t_fd, t_dy = 0, t_dp = 0;
        TIME(t_rec, eval_recursive((int)(it++ % NSTATE)); sink = rec[0]);
        TIME(t_jac, eval_jacobian((int)(it++ % NSTATE)); sink = fd[0]);
        TIME(t_fd, eval_part(0, (int)(it++ % NSTATE)); sink = fd[0]);
        if (has_jac) {
            TIME(t_dy, eval_part(1, (int)(it++ % NSTATE)); sink = dy[0]);
            TIME(t_dp, eval_part(2, (int)(it++ % NSTATE)); sink = dp[0]);
        }
        best_rec = fmin(best_rec, t_rec); best_jac = fmin(best_jac, t_jac); best_fd = fmin(best_fd, t_fd);
        best_dy = fmin(best_dy, t_dy); best_dp = fmin(best_dp, t_dp);
    }
    printf("rounds %d\nns_rec %.1f\nns_jac %.1f\nns_fd %.1f\nns_dy %.1f\nns_dp %.1f\n", rounds, best_rec, best_jac,
           best_fd, best_dy, best_dp);
    free(Z); free(ZD); free(SSD); free(work); free(rec); free(fd); free(dy); free(dp); free(sdd);
    return 0;
}
