/* loops_tangent.c: ns per al3 step of one generated closed-loop model with the analytic tangent against the same
 * tangent by central differences of the generated functions (al3.fd_tangent), same run. Built by
 * tests/bench/loops_tangent.lua with -DMB_MODEL; prints "key value" lines. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include "bench_time.h"
#include "sim.h"

extern const mb_model MB_MODEL;

int main(void) {
    const mb_model *m = &MB_MODEL;
    const double h = 1e-3, t_end = 0.05;
    double ns[2] = { 0, 0 };
    long iters[2] = { 0, 0 }, steps[2] = { 0, 0 };
    for (int fd = 0; fd < 2; ++fd) {
        char err[MB_ERRLEN] = "";
        mb_sim_options o;
        mb_sim_options_default(&o, m);
        o.formulation = MB_FORMULATION_AL3;
        o.step = h;
        o.al3.fd_tangent = fd;
        mb_sim *s = mb_sim_create(m, &o, err, sizeof err);
        if (!s) { fprintf(stderr, "loops_tangent: %s\n", err); return 1; }
        double t0 = bench_now();
        if (mb_sim_step(s, t_end)) { fprintf(stderr, "loops_tangent: %s\n", mb_sim_errmsg(s)); return 1; }
        double t1 = bench_now();
        mb_stats st;
        mb_sim_stats(s, &st);
        steps[fd] = st.steps;
        iters[fd] = st.newton_iters;
        ns[fd] = (t1 - t0) / (st.steps > 0 ? st.steps : 1);
        mb_sim_free(s);
    }
    printf("nz %d\nnc %d\nsteps %ld\nanalytic_step_ns %.0f\nfd_step_ns %.0f\nanalytic_newton %ld\nfd_newton %ld\n", m->nz, m->nc,
           steps[0], ns[0], ns[1], iters[0], iters[1]);
    return steps[0] == steps[1] ? 0 : 1;
}
