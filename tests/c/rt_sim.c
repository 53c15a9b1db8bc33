/* rt_sim.c: the mb_sim API: defaults, setters that refuse bad values, inputs, restarts, accessors and error reporting. */
#include <string.h>

#include "hand_models.h"
#include "output_csv.h"
#include "sim.h"
#include "tap.h"

int main(void) {
    char err[MB_ERRLEN] = "";
    mb_sim_options o;
    mb_sim_options_default(&o, &hand_pendulum_model);
    ok(o.integrator == MB_INTEGRATOR_RK4 && o.step == 1e-3 && o.rtol == 1e-8 && o.atol == 1e-8,
       "options default from the model's simulate element");
    mb_integrator it;
    ok(mb_integrator_parse("trapezoidal", &it) == MB_OK && it == MB_INTEGRATOR_TRAPEZOIDAL &&
           mb_integrator_parse("euler", &it) == MB_ERR_ARG && !strcmp(mb_integrator_name(MB_INTEGRATOR_DOPRI5), "dopri5"),
       "integrator names parse and print");

    mb_sim *s = mb_sim_create(&hand_pendulum_model, NULL, err, sizeof err);
    ok(s != NULL, "create with NULL options");
    is_double(mb_sim_z(s)[0], 0.5235987755982988, 0, 0, "initial state from the model");
    is_double(mb_sim_params(s)[2], 1.0, 0, 0, "parameters from p_default");
    double T, V;
    is_int(mb_sim_energy(s, &T, &V), MB_OK, "energy available");
    is_double(V, -9.81 * (2 * cos(0.5235987755982988) + cos(0.5235987755982988)), 1e-14, 0,
              "potential energy at the start = -g (2 L1 cos t1 + L2 cos(t1 + t2))");
    double pts[6];
    is_int(mb_sim_points(s, pts), MB_OK, "points available");
    is_double(pts[3], 1.0, 1e-14, 0, "tip Q.x = L1 sin(pi/6) + L2 sin(pi/6) = 1");

    /* Setters refuse bad values and change nothing. */
    double p[4] = {1, 1, NAN, 1};
    is_int(mb_sim_set_params(s, p), MB_ERR_ARG, "NaN parameter refused");
    ok(strstr(mb_sim_errmsg(s), "parameter 2 (mP) is nan") != NULL, "message names it: \"%s\"", mb_sim_errmsg(s));
    is_double(mb_sim_params(s)[2], 1.0, 0, 0, "parameters unchanged after the refusal");
    is_int(mb_sim_set_param(s, "L9", 2), MB_ERR_ARG, "unknown parameter name refused");
    ok(strstr(mb_sim_errmsg(s), "(it has: L1, L2, mP, mQ)") != NULL, "message lists the names: \"%s\"",
       mb_sim_errmsg(s));
    is_int(mb_sim_set_param(s, "mQ", INFINITY), MB_ERR_ARG, "infinite value refused");
    double zbad[2] = {0, INFINITY};
    is_int(mb_sim_set_state(s, 0, zbad, NULL), MB_ERR_ARG, "infinite coordinate refused");
    is_double(mb_sim_z(s)[1], 0, 0, 0, "state unchanged");
    double ubad[1] = {NAN};
    is_int(mb_sim_set_inputs(s, ubad), MB_ERR_ARG, "NaN input refused");

    /* Stepping backwards is an error; stepping to the same time is a no-op. */
    is_int(mb_sim_step(s, 1), MB_OK, "step to t = 1");
    is_int(mb_sim_step(s, 0.5), MB_ERR_ARG, "step back to 0.5 refused");
    ok(strstr(mb_sim_errmsg(s), "before the current time") != NULL, "\"%s\"", mb_sim_errmsg(s));
    is_int(mb_sim_step(s, NAN), MB_ERR_ARG, "step to NaN refused");
    is_int(mb_sim_step(s, 1), MB_OK, "step to the current time is a no-op");
    mb_sim_free(s);

    /* The same trajectory in two pieces and in one (dopri5 restarts after set_inputs). */
    mb_sim_options_default(&o, &hand_pendulum_model);
    o.integrator = MB_INTEGRATOR_DOPRI5;
    o.rtol = o.atol = 1e-11;
    mb_sim *a = mb_sim_create(&hand_pendulum_model, &o, err, sizeof err);
    mb_sim *b = mb_sim_create(&hand_pendulum_model, &o, err, sizeof err);
    mb_sim_step(a, 2);
    mb_sim_step(b, 1);
    double u0[1] = {0};
    mb_sim_set_inputs(b, u0); /* same value: only forces a restart */
    mb_sim_step(b, 2);
    ok(fabs(mb_sim_z(a)[0] - mb_sim_z(b)[0]) < 1e-9, "a restart at t = 1 does not change the trajectory (%.2g)",
       mb_sim_z(a)[0] - mb_sim_z(b)[0]);
    mb_sim_free(a);
    mb_sim_free(b);

    /* Inputs: a constant force u on the damped oscillator settles at x = u / k. */
    mb_sim_options_default(&o, &hand_osc_model);
    o.integrator = MB_INTEGRATOR_TRAPEZOIDAL;
    o.step = 0.01;
    s = mb_sim_create(&hand_osc_model, &o, err, sizeof err);
    mb_sim_set_param(s, "c", 4);
    double u[1] = {2};
    is_int(mb_sim_set_inputs(s, u), MB_OK, "set_inputs");
    mb_sim_step(s, 30);
    is_double(mb_sim_z(s)[0], 0.5, 0, 1e-8, "constant input: x settles at u / k = 0.5");
    mb_stats st;
    mb_sim_stats(s, &st);
    is_int(st.steps, 3000, "stats: 3000 steps");
    ok(st.jac_evals > 0 && st.newton_iters >= st.steps, "stats: Newton counters filled");

    /* set_state restarts there. */
    double z1[1] = {0.5}, zd1[1] = {0};
    mb_sim_set_state(s, 5, z1, zd1);
    mb_sim_step(s, 6);
    is_double(mb_sim_z(s)[0], 0.5, 0, 1e-12, "restart at the equilibrium stays there");
    is_double(mb_sim_t(s), 6, 0, 0, "time continues from set_state's t");
    mb_sim_free(s);

    /* Errors from the model surface with the state left at a good point. */
    s = mb_sim_create(&hand_nan_model, NULL, err, sizeof err);
    int rc = mb_sim_step(s, 1);
    is_int(rc, MB_ERR_NAN, "NaN from the model during a run: MB_ERR_NAN");
    ok(strstr(mb_sim_errmsg(s), "forces Q[0] (x) is NaN") != NULL, "\"%s\"", mb_sim_errmsg(s));
    ok(mb_sim_t(s) <= 0.5 && mb_sim_t(s) > 0.48 && isfinite(mb_sim_z(s)[0]),
       "state stays at the last good step (t = %g)", mb_sim_t(s));
    is_int(mb_sim_energy(s, NULL, NULL), MB_ERR_MODEL, "energy of a model without energy: MB_ERR_MODEL");
    mb_sim_free(s);

    err[0] = 0;
    ok(mb_sim_create(&hand_indefinite_model, NULL, err, sizeof err) == NULL &&
           strstr(err, "not positive definite at t = 0"),
       "a non-PD mass matrix fails at create: \"%s\"", err);
    mb_sim_options_default(&o, &hand_osc_model);
    o.step = -1;
    ok(mb_sim_create(&hand_osc_model, &o, err, sizeof err) == NULL && strstr(err, "step -1 must be positive"),
       "negative step refused at create: \"%s\"", err);
    o.step = 1e-3;
    o.integrator = (mb_integrator)7;
    ok(mb_sim_create(&hand_osc_model, &o, err, sizeof err) == NULL && strstr(err, "unknown integrator"),
       "unknown integrator refused: \"%s\"", err);
    o.integrator = MB_INTEGRATOR_DOPRI5;
    o.rtol = -1;
    ok(mb_sim_create(&hand_osc_model, &o, err, sizeof err) == NULL && strstr(err, "tolerances"),
       "negative tolerance refused: \"%s\"", err);

    /* CSV rows of the oscillator: header, values, and the model check. */
    FILE *f = tmpfile();
    s = mb_sim_create(&hand_osc_model, NULL, err, sizeof err);
    mb_csv *c = mb_csv_create(f, &hand_osc_model, err, sizeof err);
    mb_csv_row(c, s, err, sizeof err);
    mb_sim_step(s, 0.25);
    mb_csv_row(c, s, err, sizeof err);
    is_int(mb_csv_rows(c), 2, "two CSV rows written");
    mb_sim *other = mb_sim_create(&hand_pendulum_model, NULL, err, sizeof err);
    is_int(mb_csv_row(c, other, err, sizeof err), MB_ERR_ARG, "a row of another model is refused");
    rewind(f);
    char buf[1024] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    ok(!strncmp(buf, "t,z.x,zd.x,kinetic,potential,energy,mass.x,mass.y,mass.z\n0,1,0,0,2,2,1,0,0\n0.25,", 67),
       "CSV header and first row as expected");
    if (strncmp(buf, "t,z.x", 5)) diag("got: %.80s", buf);
    mb_csv_free(c);
    mb_sim_free(other);
    mb_sim_free(s);
    fclose(f);
    return done_testing();
}
