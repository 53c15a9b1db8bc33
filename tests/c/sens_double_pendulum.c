/* sens_double_pendulum.c: kinetic-energy sensitivities of the double pendulum vs seeds/004.md §8.2 and its identities. */
#include <string.h>

#include "double_pendulum.c"
#include "sens.h"
#include "tap.h"

/* seeds/004.md §8.2: RK4, h = 1e-3, KE and dKE/d[L1, L2, M_P, M_Q] at t = 5, 10, 15, 20 s. */
static const double T_OUT[4] = {5, 10, 15, 20};
static const double KE[4] = {1.914064215, 3.939707958, 2.078276756, 0.013231880};
static const double DKE[4][4] = {
    {11.98421466, 11.19241336, -2.60272097, 4.51678519},
    {3.09115762, 1.69681248, 0.72703862, 3.21266934},
    {-31.18060509, -31.34642504, 9.93791969, -7.85964294},
    {-1.73817065, -1.40371285, 2.39654264, -2.38331076},
};

int main(void) {
    const mb_model *m = &double_pendulum_model;
    char err[MB_ERRLEN] = "";
    double u[1] = {0};
    mb_sens_problem pr;
    mb_sens_problem_default(&pr, m);
    pr.u = u;
    pr.objective = mb_sens_objective_index(m, "kinetic_energy");
    ok(pr.objective == 0 && mb_sens_objective_index(m, "nope") == -1, "objective found by name");
    is_int(m->np, 4, "four design parameters L1 L2 mP mQ");
    mb_sens_options o;
    mb_sens_options_default(&o, m);
    ok(o.integrator == MB_INTEGRATOR_RK4 && o.step == 1e-3, "options from the model: rk4, h = 1e-3");

    for (int k = 0; k < 4; ++k) {
        double psi, g[4];
        pr.t_end = T_OUT[k];
        int rc = mb_sens_run(&pr, &o, &psi, g, NULL, err, sizeof err);
        if (!is_int(rc, MB_OK, "DDM rk4 to t = %g", T_OUT[k])) diag("%s", err);
        /* The table has 10 significant digits for KE and 10 for the gradient: 1e-6 relative leaves room. */
        is_double(psi, KE[k], 1e-6, 0, "KE(%g) = %.9f", T_OUT[k], KE[k]);
        for (int j = 0; j < 4; ++j)
            is_double(g[j], DKE[k][j], 1e-6, 0, "dKE/d%s at t = %g", m->p_names[j], T_OUT[k]);
        /* Mass homogeneity: mP dKE/dmP + mQ dKE/dmQ = KE (unit masses). */
        is_double(g[2] + g[3], psi, 1e-8, 1e-10, "mass homogeneity at t = %g", T_OUT[k]);
        /* Length scaling: L1 dKE/dL1 + L2 dKE/dL2 = KE - t/2 dKE/dt, dKE/dt = -dV/dt = sum m g . v. */
        {
            mb_sim *s = mb_sim_create(m, NULL, err, sizeof err);
            mb_sim_step(s, T_OUT[k]);
            double pts_z[2] = {0}, zd[2];
            memcpy(zd, mb_sim_zd(s), sizeof zd);
            const double *z = mb_sim_z(s);
            /* v_y of P and Q: P = (L1 sin a, -L1 cos a), Q = P + (L2 sin(a+b), -L2 cos(a+b)). */
            double vPy = sin(z[0]) * zd[0], vQy = vPy + sin(z[0] + z[1]) * (zd[0] + zd[1]);
            pts_z[0] = vPy;
            pts_z[1] = vQy;
            double dKEdt = -9.81 * (pts_z[0] + pts_z[1]);
            is_double(g[0] + g[1], psi - 0.5 * T_OUT[k] * dKEdt, 1e-8, 1e-10, "length scaling at t = %g", T_OUT[k]);
            mb_sim_free(s);
        }
    }
    /* seeds/004.md §8.2, FD with the paper's perturbation of M_P (5e-4) on h = 2e-3 runs: forward FD is off
     * by about 2 % at t = 10 and 20 s, central FD by 2e-4; the analytic gradient needs no step. */
    {
        static const double T2[2] = {10, 20}, FWD[2] = {0.71325273, 2.44450190}, CEN[2] = {0.72705890, 2.39606804};
        mb_sens_options of = o;
        of.step = 2e-3;
        of.psi_only = 1;
        for (int k = 0; k < 2; ++k) {
            double p0[4], q[4], f0, fp, fm, g[4], d = 5e-4;
            memcpy(p0, m->p_default, sizeof p0);
            memcpy(q, p0, sizeof q);
            pr.t_end = T2[k];
            pr.p = q;
            mb_sens_run(&pr, &of, &f0, NULL, NULL, err, sizeof err);
            q[2] = p0[2] + d;
            mb_sens_run(&pr, &of, &fp, NULL, NULL, err, sizeof err);
            q[2] = p0[2] - d;
            mb_sens_run(&pr, &of, &fm, NULL, NULL, err, sizeof err);
            pr.p = NULL;
            double fwd = (fp - f0) / d;
            is_double(fwd, FWD[k], 1e-6, 0, "forward FD of dKE/dmP (5e-4, h = 2e-3) at t = %g as in the digest",
                      T2[k]);
            is_double((fp - fm) / (2 * d), CEN[k], 1e-6, 0, "central FD of dKE/dmP at t = %g as in the digest", T2[k]);
            double psi_h;
            mb_sens_run(&pr, &o, &psi_h, g, NULL, err, sizeof err);
            double off = fabs(fwd - g[2]) / fabs(g[2]);
            ok(off > 0.01 && off < 0.03, "forward FD is off by %.2g %% at t = %g (digest: up to 2 %%)", 100 * off, T2[k]);
        }
    }
    return done_testing();
}
