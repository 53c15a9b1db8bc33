/* sens_double_pendulum.c: kinetic-energy sensitivities of the double pendulum vs seeds/004.md §8.2 and its identities,
 * with each DDM kernel forced (the recursive forward_dynamics_sens of issue 21 and the dense Jacobian route): the
 * table to 7 significant digits, both exact identities, the kernels against each other and the kernel reported. */
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

/* Half a unit in the 7th significant digit of x: the tolerance of "x to 7 significant digits". */
static double sig7(double x) { return 0.5 * pow(10.0, floor(log10(fabs(x))) - 6); }

/* max |a - b| / max |b| over n values (NaN: infinite). */
static double relmax(const double *a, const double *b, int n) {
    double e = 0, s = 0;
    for (int i = 0; i < n; ++i) {
        double d = fabs(a[i] - b[i]);
        if (!(d <= e)) e = d == d ? d : INFINITY;
        if (fabs(b[i]) > s) s = fabs(b[i]);
    }
    return e / (s > 0 ? s : 1);
}

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

    /* Each kernel forced in turn (rk4, h = 1e-3, the model's): psi and the gradient at the four times, kept for
     * the comparison of the kernels below. */
    static const mb_sens_kernel KERNELS[2] = {MB_SENS_KERNEL_RECURSIVE, MB_SENS_KERNEL_JACOBIAN};
    double PSI[2][4], G[2][4][4];
    for (int kk = 0; kk < 2; ++kk)
    for (int k = 0; k < 4; ++k) {
        double psi, *g = G[kk][k];
        const char *kname = mb_sens_kernel_name(KERNELS[kk]);
        mb_sens_options ko = o;
        ko.kernel = KERNELS[kk];
        mb_sens_stats st;
        memset(&st, 0, sizeof st);
        pr.t_end = T_OUT[k];
        int rc = mb_sens_run(&pr, &ko, &psi, g, &st, err, sizeof err);
        PSI[kk][k] = psi;
        if (!is_int(rc, MB_OK, "DDM rk4, %s kernel, to t = %g", kname, T_OUT[k])) diag("%s", err);
        is_int(st.kernel, KERNELS[kk], "stats.kernel reports the forced %s kernel (t = %g)", kname, T_OUT[k]);
        /* 7 significant digits: within half a unit of the 7th digit of the table's value. */
        is_double(psi, KE[k], 0, sig7(KE[k]), "%s: KE(%g) = %.9f to 7 significant digits", kname, T_OUT[k], KE[k]);
        for (int j = 0; j < 4; ++j)
            is_double(g[j], DKE[k][j], 0, sig7(DKE[k][j]), "%s: dKE/d%s at t = %g = %.8f to 7 significant digits",
                      kname, m->p_names[j], T_OUT[k], DKE[k][j]);
        /* Mass homogeneity: mP dKE/dmP + mQ dKE/dmQ = KE (unit masses). */
        is_double(g[2] + g[3], psi, 1e-8, 1e-10, "%s: mass homogeneity at t = %g", kname, T_OUT[k]);
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
            is_double(g[0] + g[1], psi - 0.5 * T_OUT[k] * dKEdt, 1e-8, 1e-10, "%s: length scaling at t = %g", kname,
                      T_OUT[k]);
            mb_sim_free(s);
        }
    }
    /* The two kernels differentiate the same rk4 scheme: equal to round-off over 20000 steps. */
    for (int k = 0; k < 4; ++k) {
        ok(relmax(G[0][k], G[1][k], 4) <= 1e-12, "recursive gradient = jacobian gradient at t = %g (%.1e relative)",
           T_OUT[k], relmax(G[0][k], G[1][k], 4));
        is_double(PSI[0][k], PSI[1][k], 1e-12, 0, "both kernels give the same KE at t = %g", T_OUT[k]);
    }
    /* auto runs one of the two and says which; the trapezoidal rule (inverse_dynamics_sens with the fused tangent)
     * and dopri5 take the forced kernels too and agree the same way. */
    {
        double psi, g[4];
        mb_sens_stats st;
        pr.t_end = 5;
        int rc = mb_sens_run(&pr, &o, &psi, g, &st, err, sizeof err);
        if (!is_int(rc, MB_OK, "DDM rk4, auto kernel, to t = 5")) diag("%s", err);
        int which = st.kernel == MB_SENS_KERNEL_RECURSIVE ? 0 : st.kernel == MB_SENS_KERNEL_JACOBIAN ? 1 : -1;
        ok(which >= 0, "auto reports the kernel that ran (%s)", mb_sens_kernel_name(st.kernel));
        ok(which >= 0 && memcmp(g, G[which][0], sizeof g) == 0 && psi == PSI[which][0],
           "auto's KE and gradient are the named kernel's, bit for bit");
        static const mb_integrator INTEG[2] = {MB_INTEGRATOR_TRAPEZOIDAL, MB_INTEGRATOR_DOPRI5};
        for (int i = 0; i < 2; ++i) {
            double gk[2][4], pk[2];
            for (int kk = 0; kk < 2; ++kk) {
                mb_sens_options oi = o;
                oi.integrator = INTEG[i];
                oi.kernel = KERNELS[kk];
                memset(&st, 0, sizeof st);
                rc = mb_sens_run(&pr, &oi, &pk[kk], gk[kk], &st, err, sizeof err);
                if (!is_int(rc, MB_OK, "DDM %s, %s kernel, to t = 5", mb_integrator_name(INTEG[i]),
                            mb_sens_kernel_name(KERNELS[kk])))
                    diag("%s", err);
                is_int(st.kernel, KERNELS[kk], "%s: stats.kernel reports the forced %s kernel",
                       mb_integrator_name(INTEG[i]), mb_sens_kernel_name(KERNELS[kk]));
            }
            ok(relmax(gk[0], gk[1], 4) <= 1e-12 && fabs(pk[0] - pk[1]) <= 1e-12 * fabs(pk[1]),
               "%s: recursive = jacobian, gradient (%.1e relative) and KE", mb_integrator_name(INTEG[i]),
               relmax(gk[0], gk[1], 4));
            /* The same objective to the integrators' error: the table's value at t = 5 within 1e-4. */
            ok(relmax(gk[0], DKE[0], 4) <= 1e-4, "%s: the recursive gradient is the table's to the scheme's error "
               "(%.1e)", mb_integrator_name(INTEG[i]), relmax(gk[0], DKE[0], 4));
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
