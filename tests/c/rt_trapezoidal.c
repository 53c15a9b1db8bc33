/* rt_trapezoidal.c: the trapezoidal rule conserves linear energy exactly, converges with order 2, and its Newton converges fast or fails clearly. */
#include <string.h>

#include "hand_models.h"
#include "sim.h"
#include "tap.h"

static mb_sim *make(const mb_model *m, double h, double ntol, int nmax) {
    char err[MB_ERRLEN];
    mb_sim_options o;
    mb_sim_options_default(&o, m);
    o.integrator = MB_INTEGRATOR_TRAPEZOIDAL;
    o.step = h;
    o.newton_tol = ntol;
    o.newton_max_iter = nmax;
    mb_sim *s = mb_sim_create(m, &o, err, sizeof err);
    if (!s) diag("create failed: %s", err);
    return s;
}

static double osc_error(double h, double T) {
    mb_sim *s = make(&hand_osc_model, h, 1e-12, 10);
    const double p[3] = {0.5, 4, 1};
    mb_sim_set_params(s, p);
    mb_sim_step(s, T);
    double z, zd;
    hand_osc_exact(0.5, 4, 1, 1, 0, T, &z, &zd);
    double e = fmax(fabs(mb_sim_z(s)[0] - z), fabs(mb_sim_zd(s)[0] - zd));
    mb_sim_free(s);
    return e;
}

int main(void) {
    /* Undamped oscillator, a coarse step (h = 0.1 with period pi): the quadratic
     * energy is an exact invariant of the rule for linear systems. */
    mb_sim *s = make(&hand_osc_model, 0.1, 1e-12, 10);
    double T0, V0, T, V, worst = 0;
    mb_sim_energy(s, &T0, &V0);
    for (int k = 1; k <= 100; ++k) {
        mb_sim_step(s, 1.0 * k);
        mb_sim_energy(s, &T, &V);
        worst = fmax(worst, fabs(T + V - T0 - V0) / (T0 + V0));
    }
    mb_stats st;
    mb_sim_stats(s, &st);
    diag("undamped oscillator, h = 0.1, 1000 steps: worst relative energy error %.3g", worst);
    ok(worst < 1e-10, "trapezoidal conserves the oscillator's energy to 1e-10 over 1000 steps (%.3g)", worst);
    /* Linear system + exact tangent: the first Newton correction is exact, the
     * second only confirms (|dx| ~ roundoff). 2 per step, 1 at the start. */
    is_int(st.newton_iters, 2 * st.steps + 1, "linear system: Newton takes exactly 2 iterations per step");
    is_int(st.jac_evals, st.newton_iters, "one tangent per iteration (full Newton)");
    mb_sim_free(s);

    /* Order 2 on the damped oscillator. */
    double e1 = osc_error(0.02, 4), e2 = osc_error(0.01, 4), e3 = osc_error(0.005, 4);
    double s1 = log2(e1 / e2), s2 = log2(e2 / e3);
    diag("trapezoidal damped oscillator errors at t = 4: %.3g %.3g %.3g; slopes %.3f %.3f", e1, e2, e3, s1, s2);
    is_double(s1, 2.0, 0, 0.1, "trapezoidal convergence slope (h 0.02 -> 0.01) is 2 +- 0.1");
    is_double(s2, 2.0, 0, 0.1, "trapezoidal convergence slope (h 0.01 -> 0.005) is 2 +- 0.1");

    /* Nonlinear double pendulum: Newton with the exact tangent converges in few iterations. */
    s = make(&hand_pendulum_model, 1e-2, 1e-10, 10);
    mb_sim_energy(s, &T0, &V0);
    worst = 0;
    for (int k = 1; k <= 200; ++k) {
        if (mb_sim_step(s, 0.1 * k)) diag("failed: %s", mb_sim_errmsg(s));
        mb_sim_energy(s, &T, &V);
        worst = fmax(worst, fabs(T + V - T0 - V0) / fabs(T0 + V0));
    }
    mb_sim_stats(s, &st);
    double per = (double)(st.newton_iters - 1) / st.steps;
    diag("double pendulum, h = 0.01, 20 s: %.2f Newton iterations per step, worst relative energy error %.3g", per,
         worst);
    ok(per <= 3.5, "Newton converges in <= 3.5 iterations per step on average (%.2f)", per);
    ok(worst < 1e-3, "energy error stays bounded (%.3g) over 20 s with h = 0.01", worst);
    double z20 = mb_sim_z(s)[0];
    mb_sim_free(s);
    /* A wrong tangent (here: dr/dz in place of dr/dzd) costs more iterations: the test above
     * would notice if the tangent were not the exact one. */
    mb_model wrong = hand_pendulum_model;
    wrong.inverse_dynamics_dzd = wrong.inverse_dynamics_dz; /* deliberately wrong */
    s = make(&wrong, 1e-2, 1e-10, 50);
    int rc = mb_sim_step(s, 20);
    mb_sim_stats(s, &st);
    double perw = (double)st.newton_iters / st.steps;
    diag("with a wrong tangent: %.2f iterations per step (rc %d)", perw, rc);
    ok(rc != MB_OK || perw > per + 0.5, "a wrong tangent needs clearly more iterations (%.2f vs %.2f)", perw, per);
    ok(rc != MB_OK || fabs(mb_sim_z(s)[0] - z20) < 1e-7, "but the converged solution is the same");
    mb_sim_free(s);

    /* Newton failure: one iteration allowed on a nonlinear problem. */
    s = make(&hand_pendulum_model, 1e-2, 1e-10, 1);
    if (!s) {
        ok(0, "create with newton_max_iter = 1");
    } else {
        rc = mb_sim_step(s, 1);
        is_int(rc, MB_ERR_NEWTON, "newton_max_iter = 1 on the pendulum: MB_ERR_NEWTON");
        ok(strstr(mb_sim_errmsg(s), "Newton did not converge in 1 iteration(s) at t = 0.01") != NULL,
           "message names iterations and time: \"%s\"", mb_sim_errmsg(s));
        is_double(mb_sim_t(s), 0, 0, 0, "state stays at the last good step (t = 0)");
        mb_sim_free(s);
    }
    /* Divergence: a huge step on the pendulum from a large swing. */
    s = make(&hand_pendulum_model, 2.0, 1e-10, 8);
    const double z0[2] = {2.5, -2.0}, zd0[2] = {6, -6};
    mb_sim_set_state(s, 0, z0, zd0);
    rc = mb_sim_step(s, 40);
    diag("h = 2 from a large swing: rc %d, t = %g, \"%s\"", rc, mb_sim_t(s), mb_sim_errmsg(s));
    ok(rc == MB_ERR_NEWTON || rc == MB_OK, "a huge step either converges or reports MB_ERR_NEWTON (never NaN)");
    ok(isfinite(mb_sim_z(s)[0]) && isfinite(mb_sim_zd(s)[1]), "the state is finite either way");
    mb_sim_free(s);

    /* A model without the tangent functions cannot use the trapezoidal rule. */
    char err[MB_ERRLEN] = "";
    mb_sim_options o;
    mb_sim_options_default(&o, &hand_indefinite_model);
    o.integrator = MB_INTEGRATOR_TRAPEZOIDAL;
    ok(mb_sim_create(&hand_indefinite_model, &o, err, sizeof err) == NULL && strstr(err, "Newton tangent"),
       "trapezoidal without dr/dz: \"%s\"", err);
    o = (mb_sim_options){0};
    mb_sim_options_default(&o, &hand_osc_model);
    o.integrator = MB_INTEGRATOR_TRAPEZOIDAL;
    o.newton_max_iter = 0;
    ok(mb_sim_create(&hand_osc_model, &o, err, sizeof err) == NULL && strstr(err, "newton_max_iter"),
       "newton_max_iter = 0 refused: \"%s\"", err);
    return done_testing();
}
