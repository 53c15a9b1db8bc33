/* sens_oscillator.c: DDM and AVM against the closed form of the oscillator, with initial conditions that depend on p. */
#include <string.h>

#include "oscillator.c"
#include "sens.h"
#include "tap.h"

/* x(t) = x0 cos wt + v0/w sin wt, w = sqrt(k/m); psi = int_0^T x^2 dt + xd(T). The initial state depends on
 * the design: x0 = 1e-3 k, v0 = 0.05 m, so the t0 boundary term of the adjoint is not zero. */
static double closed_form(double k, double m, double T) {
    double w = sqrt(k / m), x0 = 1e-3 * k, v0 = 0.05 * m, s = sin(w * T), c = cos(w * T), s2 = sin(2 * w * T);
    double icc = T / 2 + s2 / (4 * w), iss = T / 2 - s2 / (4 * w), ics = s * s / (2 * w);
    return x0 * x0 * icc + 2 * x0 * v0 / w * ics + v0 * v0 / (w * w) * iss - x0 * w * s + v0 * c;
}

static int run(mb_sens_problem *pr, const mb_sens_options *o, const double *p, double *psi, double *g,
               mb_sens_stats *st) {
    static double z0[1], zd0[1], z0p[2], zd0p[2];
    /* p = (k, m) in byte order. */
    z0[0] = 1e-3 * p[0];
    zd0[0] = 0.05 * p[1];
    z0p[0] = 1e-3, z0p[1] = 0;
    zd0p[0] = 0, zd0p[1] = 0.05;
    pr->p = p;
    pr->z0 = z0;
    pr->zd0 = zd0;
    pr->z0_p = z0p;
    pr->zd0_p = zd0p;
    char err[MB_ERRLEN] = "";
    int rc = mb_sens_run(pr, o, psi, g, st, err, sizeof err);
    if (rc) diag("%s", err);
    return rc;
}

/* Central differences of whole simulations (psi alone, the same discretization). */
static void fd(mb_sens_problem *pr, const mb_sens_options *o, const double *p, double *g) {
    mb_sens_options of = *o;
    of.psi_only = 1;
    for (int j = 0; j < 2; ++j) {
        double q[2] = {p[0], p[1]}, hi, lo, d = 1e-5 * p[j];
        q[j] = p[j] + d;
        run(pr, &of, q, &hi, NULL, NULL);
        q[j] = p[j] - d;
        run(pr, &of, q, &lo, NULL, NULL);
        g[j] = (hi - lo) / (2 * d);
    }
}

int main(void) {
    const mb_model *m = &oscillator_model;
    const double p[2] = {100.0, 1.0}, T = 1.0;
    ok(m->nobj == 1 && !strcmp(m->p_names[0], "k") && !strcmp(m->p_names[1], "m"), "objective wobble, p = (k, m)");
    mb_sens_problem pr;
    mb_sens_problem_default(&pr, m);
    pr.t_end = T;
    double exact[2];
    for (int j = 0; j < 2; ++j) {
        double q[2] = {p[0], p[1]}, d = 1e-5 * p[j], hi, lo;
        q[j] += d;
        hi = closed_form(q[0], q[1], T);
        q[j] -= 2 * d;
        lo = closed_form(q[0], q[1], T);
        exact[j] = (hi - lo) / (2 * d);
    }
    double psi, g[2], gf[2];
    mb_sens_stats st;

    mb_sens_options o;
    mb_sens_options_default(&o, m);
    o.step = 1e-4;
    is_int(run(&pr, &o, p, &psi, g, &st), MB_OK, "DDM rk4 runs");
    is_double(psi, closed_form(p[0], p[1], T), 1e-9, 0, "DDM rk4: psi = closed form");
    is_double(g[0], exact[0], 1e-7, 0, "DDM rk4: dpsi/dk = closed form (x0 depends on k)");
    is_double(g[1], exact[1], 1e-7, 0, "DDM rk4: dpsi/dm = closed form (v0 depends on m)");

    o.integrator = MB_INTEGRATOR_DOPRI5;
    o.rtol = o.atol = 1e-11;
    is_int(run(&pr, &o, p, &psi, g, &st), MB_OK, "DDM dopri5 runs");
    is_double(g[0], exact[0], 1e-6, 0, "DDM dopri5: dpsi/dk = closed form");
    is_double(g[1], exact[1], 1e-6, 0, "DDM dopri5: dpsi/dm = closed form");

    o.integrator = MB_INTEGRATOR_TRAPEZOIDAL;
    o.step = 1e-3;
    double gd[2];
    is_int(run(&pr, &o, p, &psi, gd, &st), MB_OK, "DDM trapezoidal runs");
    is_int(st.factorizations, st.steps + 1, "DDM trapezoidal: one factorization per step (and one at t0)");
    fd(&pr, &o, p, gf);
    is_double(gd[0], gf[0], 1e-6, 0, "DDM trapezoidal = central differences of whole runs (k)");
    is_double(gd[1], gf[1], 1e-6, 0, "DDM trapezoidal = central differences of whole runs (m)");
    /* Trapezoidal h = 1e-3, w = 10: the phase error is small but real; the closed form bounds it. */
    is_double(gd[0], exact[0], 1e-3, 0, "DDM trapezoidal near the closed form (k)");

    o.method = MB_SENS_AVM;
    int ks[3] = {0, 1, 7};
    for (int i = 0; i < 3; ++i) {
        o.checkpoints = ks[i];
        double psa;
        is_int(run(&pr, &o, p, &psa, g, &st), MB_OK, "AVM with %d checkpoints runs", ks[i]);
        is_double(g[0], gd[0], 1e-10, 0, "AVM (K = %d) = DDM trapezoidal (k)", ks[i]);
        is_double(g[1], gd[1], 1e-10, 0, "AVM (K = %d) = DDM trapezoidal (m)", ks[i]);
        ok(st.stored_states <= (ks[i] ? ks[i] + 1000 / ks[i] + 2 : 2 * 32 + 2), "AVM (K = %d) stores %ld states",
           ks[i], st.stored_states);
        is_double(psa, psi, 1e-14, 0, "AVM psi = DDM psi");
    }
    /* Without the boundary term the gradient is wrong: the check above can fail. */
    double zz[1] = {1e-3 * p[0]}, vv[1] = {0.05 * p[1]}; /* outlive pr's use below */
    {
        mb_sens_options oa = o;
        oa.checkpoints = 0;
        pr.z0 = zz, pr.zd0 = vv, pr.z0_p = NULL, pr.zd0_p = NULL, pr.p = p;
        char err[MB_ERRLEN];
        mb_sens_run(&pr, &oa, &psi, g, NULL, err, sizeof err);
        ok(fabs(g[0] - gf[0]) > 1e-3 * fabs(gf[0]), "AVM without z0_p misses the t0 boundary term (%g vs %g)", g[0],
           gf[0]);
    }
    /* Errors. */
    {
        char err[MB_ERRLEN] = "";
        mb_sens_options ob = o;
        ob.integrator = MB_INTEGRATOR_RK4;
        ok(mb_sens_run(&pr, &ob, &psi, g, NULL, err, sizeof err) == MB_ERR_ARG && strstr(err, "trapezoidal"),
           "AVM on rk4 is refused: %s", err);
        mb_sens_problem bad = pr;
        bad.objective = 3;
        ok(mb_sens_run(&bad, &o, &psi, g, NULL, err, sizeof err) == MB_ERR_ARG, "objective index out of range: %s",
           err);
        bad = pr;
        bad.t_end = NAN;
        ok(mb_sens_run(&bad, &o, &psi, g, NULL, err, sizeof err) == MB_ERR_ARG, "NaN t_end refused: %s", err);
    }
    return done_testing();
}
