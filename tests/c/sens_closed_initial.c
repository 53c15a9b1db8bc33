/* sens_closed_initial.c: closed-loop DDM and AVM with an initial state that depends on p (t0 boundary term) vs FD. */
#include <string.h>

#include "fivebar.c"
#include "sens.h"
#include "tap.h"

/* fivebar, 0.1 s, objective psi2 (squared speed of A2). The independent initial values depend on the
 * design: J0(0) = J0_model + 0.2 (Ls1 - 0.5) and J4'(0) = 3 (mA1 - 0.3) + 0.5, so dz0/dp and dzd0/dp are
 * non-zero in the independent rows; the dependent ones follow by assembly inside the scheme. */
enum { NZ = 4, NP = 5, J0 = 0, J4 = 2, LS1 = 1, MA1 = 3 };

static double z0[NZ], zd0[NZ], z0p[NZ * NP], zd0p[NZ * NP];

static int run(const mb_sens_options *o, const double *p, int with_ic_sens, double *psi, double *g) {
    const mb_model *m = &fivebar_model;
    memcpy(z0, m->z0, sizeof z0);
    memset(zd0, 0, sizeof zd0);
    z0[J0] += 0.2 * (p[LS1] - 0.5);
    zd0[J4] = 3 * (p[MA1] - 0.3) + 0.5;
    memset(z0p, 0, sizeof z0p);
    memset(zd0p, 0, sizeof zd0p);
    z0p[J0 + NZ * LS1] = 0.2;
    zd0p[J4 + NZ * MA1] = 3;
    mb_sens_problem pr;
    mb_sens_problem_default(&pr, m);
    pr.objective = mb_sens_objective_index(m, "psi2");
    pr.t_end = 0.1;
    pr.p = p;
    pr.z0 = z0;
    pr.zd0 = zd0;
    pr.z0_p = with_ic_sens ? z0p : NULL;
    pr.zd0_p = with_ic_sens ? zd0p : NULL;
    char err[MB_ERRLEN] = "";
    int rc = mb_sens_run(&pr, o, psi, g, NULL, err, sizeof err);
    if (rc) diag("%s", err);
    return rc;
}

static double worst(const double *a, const double *b) {
    double scale = 0, w = 0;
    for (int j = 0; j < NP; ++j) scale = fmax(scale, fabs(b[j]));
    for (int j = 0; j < NP; ++j) w = fmax(w, fabs(a[j] - b[j]) / scale);
    return w;
}

int main(void) {
    const mb_model *m = &fivebar_model;
    ok(m->nz == NZ && m->np == NP && !strcmp(m->z_names[J0], "J0") && !strcmp(m->z_names[J4], "J4") &&
           !strcmp(m->p_names[LS1], "Ls1") && !strcmp(m->p_names[MA1], "mA1"),
       "fivebar layout as assumed");
    double p[NP];
    memcpy(p, m->p_default, sizeof p);
    mb_sens_options o;
    mb_sens_options_default(&o, m);
    ok(o.integrator == MB_INTEGRATOR_RK4, "closed loops default to rk4");
    double psi, gd[NP], ga[NP], gf[NP], gn[NP];
    is_int(run(&o, p, 1, &psi, gd), MB_OK, "DDM runs");
    /* Central differences of whole runs, the initial state recomputed from p each time. */
    mb_sens_options of = o;
    of.psi_only = 1;
    for (int j = 0; j < NP; ++j) {
        double q[NP], hi, lo, d = 1e-6 * fmax(1, fabs(p[j]));
        memcpy(q, p, sizeof q);
        q[j] = p[j] + d;
        run(&of, q, 1, &hi, NULL);
        q[j] = p[j] - d;
        run(&of, q, 1, &lo, NULL);
        gf[j] = (hi - lo) / (2 * d);
    }
    double w = worst(gd, gf);
    ok(w < 1e-6, "DDM = central differences with p-dependent initial state (worst %.2g)", w);
    o.method = MB_SENS_AVM;
    o.checkpoints = 5;
    is_int(run(&o, p, 1, &psi, ga), MB_OK, "AVM runs");
    w = worst(ga, gd);
    ok(w < 1e-9, "AVM = DDM, boundary term included (worst %.2g)", w);
    is_int(run(&o, p, 0, &psi, gn), MB_OK, "AVM without dz0/dp runs");
    ok(fabs(gn[LS1] - gf[LS1]) > 1e-3 * fabs(gf[LS1]) && fabs(gn[MA1] - gf[MA1]) > 1e-3 * fabs(gf[MA1]),
       "without dz0/dp the Ls1 and mA1 components are wrong (%g vs %g, %g vs %g)", gn[LS1], gf[LS1], gn[MA1],
       gf[MA1]);
    return done_testing();
}
