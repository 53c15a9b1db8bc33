/* rt_rk4.c: RK4 converges with order 4 on the oscillator's closed form and reproduces the double-pendulum reference table. */
#include <string.h>

#include "hand_models.h"
#include "sim.h"
#include "tap.h"

/* Error at t = T of the damped oscillator (c = 0.5, k = 4, m = 1) with step h. */
static double osc_error(double h, double T, mb_stats *st) {
    char err[MB_ERRLEN];
    mb_sim_options o;
    mb_sim_options_default(&o, &hand_osc_model);
    o.integrator = MB_INTEGRATOR_RK4;
    o.step = h;
    mb_sim *s = mb_sim_create(&hand_osc_model, &o, err, sizeof err);
    const double p[3] = {0.5, 4, 1};
    mb_sim_set_params(s, p);
    if (mb_sim_step(s, T)) diag("step failed: %s", mb_sim_errmsg(s));
    double z, zd;
    hand_osc_exact(0.5, 4, 1, 1, 0, T, &z, &zd);
    double e = fmax(fabs(mb_sim_z(s)[0] - z), fabs(mb_sim_zd(s)[0] - zd));
    if (st) mb_sim_stats(s, st);
    mb_sim_free(s);
    return e;
}

int main(void) {
    /* Order: errors at h, h/2, h/4; the slope log2(e(h)/e(h/2)) should be 4. */
    double e1 = osc_error(0.04, 4, NULL), e2 = osc_error(0.02, 4, NULL), e3 = osc_error(0.01, 4, NULL);
    double s1 = log2(e1 / e2), s2 = log2(e2 / e3);
    diag("rk4 oscillator errors at t = 4: h 0.04 %.3g, 0.02 %.3g, 0.01 %.3g; ratios %.2f %.2f; slopes %.3f %.3f", e1, e2,
         e3, e1 / e2, e2 / e3, s1, s2);
    is_double(s1, 4.0, 0, 0.2, "rk4 convergence slope (h 0.04 -> 0.02) is 4 +- 0.2");
    is_double(s2, 4.0, 0, 0.2, "rk4 convergence slope (h 0.02 -> 0.01) is 4 +- 0.2");
    mb_stats st;
    osc_error(0.01, 4, &st);
    is_int(st.steps, 400, "t = 4 with h = 0.01 takes exactly 400 steps (no sliver step)");
    is_int(st.rhs_evals, 1600, "4 evaluations per step");

    /* A step that does not divide the interval is shortened evenly: 0.3 / 0.07 -> 5 steps of 0.06. */
    char err[MB_ERRLEN];
    mb_sim_options o;
    mb_sim_options_default(&o, &hand_osc_model);
    o.step = 0.07;
    mb_sim *s = mb_sim_create(&hand_osc_model, &o, err, sizeof err);
    mb_sim_step(s, 0.3);
    mb_sim_stats(s, &st);
    is_int(st.steps, 5, "0.3 in steps of at most 0.07 takes 5 steps");
    is_double(mb_sim_t(s), 0.3, 0, 0, "and lands on t_out exactly");
    mb_sim_free(s);

    /* The reference table of seeds/004.md §8.2 (RK4, h = 1e-3, an independent
     * Python implementation), with our hand-written double pendulum. */
    static const double table[4][5] = {
        {5, 0.26939296, 0.25560588, 1.04819123, -0.43162469},
        {10, 0.01792090, -0.01960597, 0.58415708, 1.57734820},
        {15, -0.27533405, -0.20840905, 1.14606537, -0.59794247},
        {20, -0.51876956, -0.01170865, -0.08083350, 0.30283089},
    };
    static const double ke[4] = {1.914064215, 3.939707958, 2.078276756, 0.013231880};
    mb_sim_options_default(&o, &hand_pendulum_model);
    o.integrator = MB_INTEGRATOR_RK4;
    o.step = 1e-3;
    s = mb_sim_create(&hand_pendulum_model, &o, err, sizeof err);
    double worst = 0, kworst = 0;
    for (int k = 0; k < 4; ++k) {
        mb_sim_step(s, table[k][0]);
        const double *z = mb_sim_z(s), *zd = mb_sim_zd(s);
        worst = fmax(worst, fmax(fmax(fabs(z[0] - table[k][1]), fabs(z[1] - table[k][2])),
                                 fmax(fabs(zd[0] - table[k][3]), fabs(zd[1] - table[k][4]))));
        double T, V;
        mb_sim_energy(s, &T, &V);
        kworst = fmax(kworst, fabs(T - ke[k]));
    }
    diag("double pendulum vs seeds/004.md table: worst state difference %.3g, kinetic energy %.3g", worst, kworst);
    ok(worst < 2e-8, "double pendulum state at t = 5, 10, 15, 20 matches the reference table to 2e-8");
    ok(kworst < 1e-8, "kinetic energy matches the table to 1e-8");
    mb_sim_free(s);
    return done_testing();
}
