/* rt_dopri5.c: Dormand-Prince meets its tolerance, dense output matches the closed form, and underflow / max-steps fail clearly. */
#include <string.h>

#include "hand_models.h"
#include "integrate.h"
#include "sim.h"
#include "tap.h"

static mb_sim *make(const mb_model *m, double tol, long max_steps) {
    char err[MB_ERRLEN];
    mb_sim_options o;
    mb_sim_options_default(&o, m);
    o.integrator = MB_INTEGRATOR_DOPRI5;
    o.rtol = o.atol = tol;
    o.max_steps = max_steps;
    mb_sim *s = mb_sim_create(m, &o, err, sizeof err);
    if (!s) diag("create failed: %s", err);
    return s;
}

/* Worst error against the closed form over outputs every dt up to T (damped oscillator). */
static double osc_run(double tol, double dt, double T, mb_stats *st) {
    mb_sim *s = make(&hand_osc_model, tol, 0);
    const double p[3] = {0.5, 4, 1};
    mb_sim_set_params(s, p);
    double worst = 0;
    int n = (int)lround(T / dt);
    for (int k = 1; k <= n; ++k) {
        double t = k * dt, z, zd;
        if (mb_sim_step(s, t)) diag("step failed: %s", mb_sim_errmsg(s));
        hand_osc_exact(0.5, 4, 1, 1, 0, t, &z, &zd);
        worst = fmax(worst, fmax(fabs(mb_sim_z(s)[0] - z), fabs(mb_sim_zd(s)[0] - zd)));
    }
    mb_sim_stats(s, st);
    mb_sim_free(s);
    return worst;
}

/* y' = y², y(0) = 1: y = 1/(1 - t) blows up at t = 1. */
static int blowup(void *ctx, double t, const double *y, double *f, char *err, size_t errlen) {
    (void)ctx, (void)t, (void)err, (void)errlen;
    f[0] = y[0] * y[0];
    return MB_OK;
}

int main(void) {
    mb_stats st, st1;
    /* The tolerance is per step, mixed abs/rel; the global error over 10 s
     * (about 3 periods) should stay within a factor 10 of it. */
    double tols[2] = {1e-6, 1e-10};
    for (int i = 0; i < 2; ++i) {
        double e = osc_run(tols[i], 10, 10, &st1);
        diag("dopri5 tol %g: error at t = 10 %.3g (ratio %.2f), %ld steps, %ld rejected, %ld evaluations", tols[i], e,
             e / tols[i], st1.steps, st1.rejected, st1.rhs_evals);
        ok(e <= 10 * tols[i], "dopri5 at tol %g: error at t = 10 within 10x tol (%.3g)", tols[i], e);
        /* Dense output: the same run sampled every 0.05 s via the continuous
         * extension costs no extra steps and is as accurate (4th order). */
        double ed = osc_run(tols[i], 0.05, 10, &st);
        diag("  dense output every 0.05: worst error %.3g over 200 outputs, %ld steps", ed, st.steps);
        ok(ed <= 10 * tols[i], "dense output at tol %g: worst error over 200 outputs within 10x tol (%.3g)", tols[i], ed);
        is_int(st.steps, st1.steps, "dense output at tol %g takes no extra steps", tols[i]);
        /* FSAL: 6 new evaluations per attempt, plus 2 per (re)start (f(t0) and
         * the probe of the initial step choice): at create and after set_params. */
        is_int(st.rhs_evals, 6 * (st.steps + st.rejected) + 4, "FSAL: 6 evaluations per attempted step");
    }
    /* Dense output values in the middle of long steps: loose tolerance, fine sampling. */
    double ed = osc_run(1e-4, 0.01, 5, &st);
    diag("tol 1e-4: %ld steps for 500 outputs, worst error %.3g", st.steps, ed);
    ok(st.steps < 250 && ed < 1e-3, "tol 1e-4: fewer steps than outputs (%ld), dense values within 10x tol (%.3g)",
       st.steps, ed);

    /* Double pendulum: energy is conserved to the tolerance. */
    mb_sim *s = make(&hand_pendulum_model, 1e-10, 0);
    double T0, V0, T, V, worst = 0;
    mb_sim_energy(s, &T0, &V0);
    for (int k = 1; k <= 200; ++k) {
        mb_sim_step(s, 0.1 * k);
        mb_sim_energy(s, &T, &V);
        worst = fmax(worst, fabs((T + V) - (T0 + V0)) / fabs(T0 + V0));
    }
    mb_sim_stats(s, &st);
    diag("double pendulum, dopri5 rtol 1e-10, 20 s: worst relative energy error %.3g, %ld steps, %ld rejected", worst,
         st.steps, st.rejected);
    ok(worst < 1e-8, "double pendulum energy conserved to 1e-8 relative over 20 s (%.3g)", worst);
    /* And the reference table of seeds/004.md §8.2 at t = 20. */
    const double *z = mb_sim_z(s), *zd = mb_sim_zd(s);
    ok(fabs(z[0] + 0.51876956) < 1e-7 && fabs(z[1] + 0.01170865) < 1e-7 && fabs(zd[0] + 0.08083350) < 1e-7 &&
           fabs(zd[1] - 0.30283089) < 1e-7,
       "double pendulum state at t = 20 matches the reference table (%.9f %.9f %.9f %.9f)", z[0], z[1], zd[0], zd[1]);
    mb_sim_free(s);

    /* Max steps: tol 1e-10 needs far more than 20 steps for 10 s. */
    s = make(&hand_osc_model, 1e-10, 20);
    int rc = mb_sim_step(s, 10);
    is_int(rc, MB_ERR_MAX_STEPS, "20 steps are not enough: MB_ERR_MAX_STEPS");
    ok(strstr(mb_sim_errmsg(s), "max_steps = 20") != NULL, "message: \"%s\"", mb_sim_errmsg(s));
    is_double(mb_sim_t(s), 0, 0, 0, "the state stays at the last output time");
    mb_sim_free(s);

    /* Step-size underflow on a blow-up, at the roundoff limit and at a given h_min. */
    char err[MB_ERRLEN] = "";
    mb_dopri5_opts o;
    mb_dopri5_opts_default(&o);
    o.rtol = o.atol = 1e-8;
    mb_dopri5 *dp = mb_dopri5_create(1, &o, err, sizeof err);
    double y0[1] = {1}, y[1];
    memset(&st, 0, sizeof st);
    mb_dopri5_reset(dp, blowup, NULL, 0, y0, &st, err, sizeof err);
    rc = mb_dopri5_advance(dp, blowup, NULL, 2, y, &st, err, sizeof err);
    is_int(rc, MB_ERR_STEP_UNDERFLOW, "y' = y^2 through its blow-up at t = 1: MB_ERR_STEP_UNDERFLOW");
    ok(strstr(err, "step size") && strstr(err, "fell below"), "message: \"%s\"", err);
    /* The numerical solution lags the exact one slightly, so it may pass t = 1 by a hair. */
    ok(fabs(mb_dopri5_time(dp) - 1) < 1e-6, "stopped at the blow-up t = 1 (t = %.15g)", mb_dopri5_time(dp));
    mb_dopri5_free(dp);
    /* A first step far too large is rejected, counted, and the step shrinks. */
    o.h0 = 0.5;
    dp = mb_dopri5_create(1, &o, err, sizeof err);
    memset(&st, 0, sizeof st);
    mb_dopri5_reset(dp, blowup, NULL, 0, y0, &st, err, sizeof err);
    rc = mb_dopri5_advance(dp, blowup, NULL, 0.5, y, &st, err, sizeof err);
    ok(rc == MB_OK && st.rejected >= 1, "a too-large first step is rejected and counted (%ld rejected, %ld accepted)",
       st.rejected, st.steps);
    is_double(y[0], 2.0, 1e-6, 0, "and the result is still right: y(0.5) = 2 (%.12g)", y[0]);
    is_int(st.rhs_evals, 6 * (st.steps + st.rejected) + 1, "a given h0 costs no probe evaluation");
    mb_dopri5_free(dp);
    o.h0 = 0;
    o.h_min = 1e-4;
    dp = mb_dopri5_create(1, &o, err, sizeof err);
    mb_dopri5_reset(dp, blowup, NULL, 0, y0, &st, err, sizeof err);
    rc = mb_dopri5_advance(dp, blowup, NULL, 2, y, &st, err, sizeof err);
    is_int(rc, MB_ERR_STEP_UNDERFLOW, "with h_min = 1e-4: MB_ERR_STEP_UNDERFLOW earlier");
    ok(strstr(err, "limit 0.0001") != NULL, "message names the limit: \"%s\"", err);
    /* Before the blow-up the solution is right (dense output at t = 0.5: y = 2). */
    mb_dopri5_reset(dp, blowup, NULL, 0, y0, &st, err, sizeof err);
    mb_dopri5_advance(dp, blowup, NULL, 0.5, y, &st, err, sizeof err);
    is_double(y[0], 2.0, 1e-6, 0, "y(0.5) = 2 before the blow-up");
    rc = mb_dopri5_advance(dp, blowup, NULL, 0.1, y, &st, err, sizeof err);
    is_int(rc, MB_ERR_ARG, "an output time before the last step: MB_ERR_ARG (%s)", err);
    mb_dopri5_free(dp);

    o.rtol = o.atol = 0;
    ok(mb_dopri5_create(1, &o, err, sizeof err) == NULL && strstr(err, "tolerances"), "zero tolerances refused: %s",
       err);
    return done_testing();
}
