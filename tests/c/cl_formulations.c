/* cl_formulations.c: matrix_r and al3 on the hand-written four-bar and slider-crank: agreement, closed forms, energy, drift, errors. */
#include <string.h>

#include "cl_models.h"
#include "sim.h"
#include "tap.h"

static mb_sim *make(const mb_model *m, mb_formulation f, mb_integrator i, double h, double tol) {
    char err[MB_ERRLEN] = "";
    mb_sim_options o;
    mb_sim_options_default(&o, m);
    o.formulation = f;
    o.integrator = i;
    o.step = h;
    o.rtol = o.atol = tol;
    mb_sim *s = mb_sim_create(m, &o, err, sizeof err);
    if (!s) diag("create %s: %s", m->name, err);
    return s;
}

static double energy(mb_sim *s) {
    double T, V;
    mb_sim_energy(s, &T, &V);
    return T + V;
}

/* Runs to t_end in outputs of dt; returns the worst violations seen and the energy drift. */
static int run(mb_sim *s, double t_end, double dt, double worst[3], double *drift) {
    double E0 = energy(s), v[3];
    worst[0] = worst[1] = worst[2] = 0;
    *drift = 0;
    long n = (long)(t_end / dt + 0.5);
    for (long k = 1; k <= n; ++k) {
        int rc = mb_sim_step(s, k * dt);
        if (rc) {
            diag("step to %g: %s", k * dt, mb_sim_errmsg(s));
            return rc;
        }
        mb_sim_constraint_violation(s, v);
        for (int i = 0; i < 3; ++i) worst[i] = fmax(worst[i], v[i]);
        *drift = fmax(*drift, fabs(energy(s) - E0) / fabs(E0));
    }
    return MB_OK;
}

static double zdiff(mb_sim *a, mb_sim *b) {
    double d = 0;
    for (int i = 0; i < 3; ++i) d = fmax(d, fabs(mb_sim_z(a)[i] - mb_sim_z(b)[i]));
    return d;
}

/* The four-bar's mass matrix with M(1, 2) = M(2, 1) = NaN. */
static int nan_mass(const mb_args *a, mb_real *out, mb_real *work) {
    int rc = cl_fourbar_model.mass(a, out, work);
    out[1 + 3 * 2] = out[2 + 3 * 1] = NAN;
    return rc;
}

int main(void) {
    double w[3], drift;
    mb_stats st;
    char err[MB_ERRLEN];

    /* Reference: matrix_r with dopri5 at tight tolerances. */
    mb_sim *ref = make(&cl_fourbar_spin_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_DOPRI5, 0, 1e-12);
    ok(ref != NULL, "four-bar, matrix_r + dopri5");
    is_int(mb_sim_dof(ref), 1, "one degree of freedom");
    is_int(run(ref, 1, 0.01, w, &drift), MB_OK, "runs 1 s (the crank turns over)");
    ok(drift < 1e-6, "conservative four-bar keeps its energy: relative drift %.2g < 1e-6", drift);
    ok(w[0] < 1e-10 && w[1] < 1e-10 && w[2] < 1e-10, "constraints at every output: %.2g %.2g %.2g < 1e-10", w[0], w[1],
       w[2]);
    mb_sim_stats(ref, &st);
    diag("matrix_r dopri5: %ld steps, %ld evaluations, %ld re-selections", st.steps, st.rhs_evals,
         mb_sim_reselections(ref));

    /* matrix_r with rk4: constraints after every step. */
    mb_sim *rk = make(&cl_fourbar_spin_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_RK4, 1e-3, 0);
    is_int(run(rk, 1, 1e-3, w, &drift), MB_OK, "matrix_r + rk4, h = 1e-3, checked after every step");
    ok(w[0] < 1e-10 && w[1] < 1e-10 && w[2] < 1e-10, "after every step: %.2g %.2g %.2g < 1e-10", w[0], w[1], w[2]);
    ok(drift < 1e-6, "energy drift %.2g", drift);
    ok(zdiff(rk, ref) < 1e-5, "rk4 agrees with dopri5: %.2g", zdiff(rk, ref));
    mb_sim_free(rk);

    /* al3: agreement shrinking with the step (second order), bounded energy. */
    double dprev = 0;
    for (int k = 0; k < 3; ++k) {
        double h = 2e-3 / (1 << k);
        mb_sim *al = make(&cl_fourbar_spin_model, MB_FORMULATION_AL3, MB_INTEGRATOR_TRAPEZOIDAL, h, 0);
        int rc = run(al, 1, 0.01, w, &drift);
        double d = zdiff(al, ref);
        mb_sim_stats(al, &st);
        ok(rc == MB_OK && d < 1e-2, "al3 h = %g: max |z - z_ref| at t = 1 is %.3g; energy drift %.2g; "
           "%.2f Newton iterations per step; violations %.2g %.2g %.2g", h, d, drift,
           (double)st.newton_iters / st.steps, w[0], w[1], w[2]);
        ok(w[0] < 1e-9 && drift < 5e-3, "al3 h = %g: constraints hold (%.2g) and energy stays bounded (%.2g)", h, w[0],
           drift);
        if (k > 0) ok(d < dprev / 3, "error shrinks with the step like h²: %.3g -> %.3g", dprev, d);
        dprev = d;
        mb_sim_free(al);
    }

    /* Exact tangent against the approximate one of seeds/003.md eq. (20). */
    long iters[2];
    for (int a = 0; a < 2; ++a) {
        mb_sim_options o;
        mb_sim_options_default(&o, &cl_fourbar_spin_model);
        o.formulation = MB_FORMULATION_AL3;
        o.step = 1e-3;
        o.al3.approx_tangent = a;
        mb_sim *al = mb_sim_create(&cl_fourbar_spin_model, &o, err, sizeof err);
        mb_sim_step(al, 1);
        mb_sim_stats(al, &st);
        iters[a] = st.newton_iters;
        mb_sim_free(al);
    }
    ok(iters[0] > 0 && iters[0] <= iters[1], "exact tangent: %ld Newton iterations over 1000 steps, no more than eq. (20): %ld",
       iters[0], iters[1]);

    /* The user's choice (rocker) degenerates where the rocker turns back: re-selected, same motion. */
    mb_sim *ro = make(&cl_fourbar_rocker_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_DOPRI5, 0, 1e-12);
    /* The same start as the reference: its assembled velocities (the model's zd0 holds the crank's). */
    mb_sim *r0 = make(&cl_fourbar_spin_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_DOPRI5, 0, 1e-12);
    mb_sim_set_state(ro, 0, mb_sim_z(r0), mb_sim_zd(r0));
    mb_sim_free(r0);
    is_int(run(ro, 1, 0.01, w, &drift), MB_OK, "rocker as the user's degree of freedom runs through its dead points");
    ok(mb_sim_reselections(ro) > 0, "independent coordinates re-selected %ld times", mb_sim_reselections(ro));
    ok(zdiff(ro, ref) < 1e-8, "same motion as the automatic choice: %.2g", zdiff(ro, ref));
    mb_sim_free(ro);
    mb_sim_options o;
    mb_sim_options_default(&o, &cl_fourbar_rocker_model);
    o.kin.reselect = 0;
    ro = mb_sim_create(&cl_fourbar_rocker_model, &o, err, sizeof err);
    r0 = make(&cl_fourbar_spin_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_DOPRI5, 0, 1e-12);
    mb_sim_set_state(ro, 0, mb_sim_z(r0), mb_sim_zd(r0));
    mb_sim_free(r0);
    int rc = MB_OK;
    for (int k = 1; k <= 1000 && rc == MB_OK; ++k) rc = mb_sim_step(ro, k * 1e-3);
    is_int(rc, MB_ERR_SINGULAR, "with re-selection off the dead point is an error");
    ok(strstr(mb_sim_errmsg(ro), "no longer determine") != NULL, "\"%s\"", mb_sim_errmsg(ro));
    ok(isfinite(mb_sim_z(ro)[0]) && mb_sim_t(ro) > 0, "state stays finite at the last good step, t = %g", mb_sim_t(ro));
    mb_sim_free(ro);
    mb_sim_free(ref);

    /* Slider-crank: matrix_r and al3 agree; energy. */
    mb_sim *sa = make(&cl_slider_crank_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_DOPRI5, 0, 1e-12);
    mb_sim *sb = make(&cl_slider_crank_model, MB_FORMULATION_AL3, MB_INTEGRATOR_TRAPEZOIDAL, 2.5e-4, 0);
    is_int(run(sa, 2, 0.01, w, &drift), MB_OK, "slider-crank matrix_r");
    ok(drift < 1e-6 && w[0] < 1e-10, "energy drift %.2g, violation %.2g", drift, w[0]);
    is_int(run(sb, 2, 0.01, w, &drift), MB_OK, "slider-crank al3");
    ok(zdiff(sa, sb) < 1e-4, "al3 (h = 2.5e-4) within %.2g of matrix_r at t = 2", zdiff(sa, sb));
    mb_sim_free(sa);
    mb_sim_free(sb);

    /* Driven slider-crank: the slider follows the closed form of the crank angle. */
    for (int f = 1; f <= 2; ++f) {
        mb_sim *sd = make(&cl_slider_crank_driven_model, (mb_formulation)f,
                          f == 1 ? MB_INTEGRATOR_RK4 : MB_INTEGRATOR_TRAPEZOIDAL, 1e-3, 0);
        ok(sd && mb_sim_dof(sd) == 0, "driven slider-crank (%s): no degree of freedom", mb_formulation_name(f));
        double worst = 0;
        for (int k = 1; k <= 200 && sd; ++k) {
            double t = k * 0.01;
            if (mb_sim_step(sd, t)) break;
            const double *z = mb_sim_z(sd);
            worst = fmax(worst, fabs(z[0] - (SC_W * t + SC_A * sin(t))) + fabs(z[2] - sc_slider_exact(z[0])));
        }
        ok(worst < (f == 1 ? 1e-12 : 1e-9), "%s: crank = drive and slider = closed form over 2 s (max error %.2g)",
           mb_formulation_name(f), worst);
        mb_sim_free(sd);
    }

    /* The work of the constraint forces (mb_sim_power_constraints, zd . r): the drive's work is the energy the
     * mechanism gains (it has no other non-conservative force); without the drive it does none. Trapezoidal
     * quadrature of the power every 1 ms, matrix_r + rk4. */
    for (int driven = 0; driven <= 1; ++driven) {
        const mb_model *m = driven ? &cl_slider_crank_driven_model : &cl_slider_crank_model;
        mb_sim *sw = make(m, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_RK4, 1e-3, 0);
        double r[3], p0 = 0, p1 = 0, work = 0, E0 = sw ? energy(sw) : 0, pmax = 0;
        int rc = sw ? mb_sim_power_constraints(sw, r, &p0) : -1;
        for (int k = 1; k <= 2000 && rc == MB_OK; ++k) {
            if ((rc = mb_sim_step(sw, k * 1e-3)) || (rc = mb_sim_power_constraints(sw, r, &p1))) break;
            work += 0.5 * (p0 + p1) * 1e-3;
            pmax = fmax(pmax, fabs(p1));
            p0 = p1;
        }
        double dE = sw ? energy(sw) - E0 : NAN;
        if (driven)
            ok(rc == MB_OK && fabs(work - dE) < 1e-5 * fabs(dE) && fabs(dE) > 0.1,
               "driven slider-crank: the work of the drive %.9g J equals the energy change %.9g J", work, dE);
        else
            ok(rc == MB_OK && pmax < 1e-9, "free slider-crank: the constraint forces do no work (largest power %.2g W)",
               pmax);
        mb_sim_free(sw);
    }

    /* Long run: 20 s of the four-bar, matrix_r + rk4; al3. */
    mb_sim *lr = make(&cl_fourbar_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_RK4, 1e-3, 0);
    is_int(run(lr, 20, 0.1, w, &drift), MB_OK, "four-bar 20 s matrix_r + rk4");
    ok(w[0] < 1e-10 && w[1] < 1e-10 && w[2] < 1e-10 && drift < 1e-6, "no drift: %.2g %.2g %.2g, energy %.2g", w[0],
       w[1], w[2], drift);
    mb_sim_free(lr);
    lr = make(&cl_fourbar_model, MB_FORMULATION_AL3, MB_INTEGRATOR_TRAPEZOIDAL, 1e-3, 0);
    is_int(run(lr, 20, 0.1, w, &drift), MB_OK, "four-bar 20 s al3");
    ok(w[0] < 1e-9 && w[1] < 1e-6 && w[2] < 1e-3 && drift < 1e-3, "bounded: %.2g %.2g %.2g, energy %.2g", w[0], w[1],
       w[2], drift);
    mb_sim_free(lr);

    /* Redundant constraints run through least squares. */
    mb_sim *rd = make(&cl_fourbar_redundant_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_RK4, 1e-3, 0);
    mb_sim *rn = make(&cl_fourbar_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_RK4, 1e-3, 0);
    mb_sim *ra = make(&cl_fourbar_redundant_model, MB_FORMULATION_AL3, MB_INTEGRATOR_TRAPEZOIDAL, 1e-3, 0);
    mb_sim_step(rd, 1);
    mb_sim_step(rn, 1);
    is_int(mb_sim_step(ra, 1), MB_OK, "redundant four-bar with al3: %s", mb_sim_errmsg(ra));
    ok(zdiff(rd, rn) < 1e-10, "redundant four-bar (matrix_r) = the plain one: %.2g", zdiff(rd, rn));
    ok(zdiff(ra, rn) < 1e-2, "redundant four-bar (al3) near it: %.2g", zdiff(ra, rn));
    mb_sim_free(rd);
    mb_sim_free(rn);
    mb_sim_free(ra);

    /* Errors. */
    mb_sim_options_default(&o, &cl_fourbar_model);
    ok(o.formulation == MB_FORMULATION_MATRIX_R, "default formulation for a closed loop: matrix_r");
    o.formulation = MB_FORMULATION_TREE;
    ok(mb_sim_create(&cl_fourbar_model, &o, err, sizeof err) == NULL &&
           strstr(err, "use matrix_r, al3, penalty or baumgarte"),
       "tree on a closed loop refused: \"%s\"", err);
    o.formulation = MB_FORMULATION_MATRIX_R;
    o.integrator = MB_INTEGRATOR_TRAPEZOIDAL;
    ok(mb_sim_create(&cl_fourbar_model, &o, err, sizeof err) == NULL && strstr(err, "lacks constraint_vel_dz"),
       "matrix_r + trapezoidal on a model without the constraints' derivatives names the first missing: \"%s\"", err);
    mb_sim *bad = make(&cl_fourbar_model, MB_FORMULATION_MATRIX_R, MB_INTEGRATOR_RK4, 1e-3, 0);
    is_int(mb_sim_set_param(bad, "Lg", 1.0), MB_OK, "ground link made too long");
    is_int(mb_sim_set_state(bad, 0, fb_z0, NULL), MB_OK, "restart");
    is_int(mb_sim_step(bad, 0.1), MB_ERR_NEWTON, "step: the mechanism does not assemble");
    ok(strstr(mb_sim_errmsg(bad), "does not assemble") != NULL, "\"%s\"", mb_sim_errmsg(bad));
    mb_sim_free(bad);
    /* A mass matrix with a NaN entry: matrix_r checks M only when a result built on it is not finite, and then
     * names the entry, not the acceleration it spoiled. */
    mb_model nanm = cl_fourbar_model;
    nanm.mass = nan_mass;
    mb_sim_options_default(&o, &nanm);
    o.formulation = MB_FORMULATION_MATRIX_R;
    err[0] = '\0';
    ok(mb_sim_create(&nanm, &o, err, sizeof err) == NULL && strstr(err, "mass matrix M(2, 1) (O4, A) is nan at t = 0"),
       "a NaN in M stops the start and names the entry: \"%s\"", err);
    mb_formulation fo;
    ok(mb_formulation_parse("al3", &fo) == MB_OK && fo == MB_FORMULATION_AL3 && mb_formulation_parse("x", &fo) &&
           !strcmp(mb_formulation_name(MB_FORMULATION_MATRIX_R), "matrix_r"),
       "formulation names");
    return done_testing();
}
