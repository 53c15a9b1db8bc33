/* cl_dof_invariance.c: mb_sens_start_hold on fivebar_point: the start held by the ground joints and its dz0/dp. */
#include <string.h>

#include "fivebar_point.c"
#include "sens.h"
#include "sens_start.h"
#include "tap.h"

/* fivebar_point's independent coordinates are A2's x2, y2; its start holds them. Holding J0 and J4 instead is the
 * start of the joint-angle model, so both choices integrate one problem for every design (tests/cl_independent_h.t
 * compares the gradients through mbgen sens --start-hold). Here: the identities the start must satisfy. */
enum { NZ = 6, NC = 4, NP = 5, J0 = 0, J4 = 2, X2 = 4, LA1 = 0 };

int main(void) {
    const mb_model *m = &fivebar_point_model;
    ok(m->nz == NZ && m->nc == NC && m->np == NP && !strcmp(m->z_names[J0], "J0") && !strcmp(m->z_names[J4], "J4") &&
           !strcmp(m->z_names[X2], "x2") && !strcmp(m->p_names[LA1], "LA1"),
       "fivebar_point layout as assumed");
    char err[MB_ERRLEN] = "";
    double p[NP], z[NZ], zd[NZ], S[NZ * NP], Sd[NZ * NP], work[4096];
    ok(m->nwork <= 4096, "workspace");
    memcpy(p, m->p_default, sizeof p);
    p[LA1] *= 1.05;   /* LA1 off its default: the held start must move A2 */
    const int hold[2] = {J0, J4};
    memcpy(z, m->z0, sizeof z);
    memcpy(zd, m->zd0, sizeof zd);
    zd[J4] = 0.7;
    int rc = mb_sens_start_hold(m, 0, p, NULL, hold, 2, z, zd, S, Sd, err, sizeof err);
    if (!is_int(rc, MB_OK, "start holding J0, J4 at LA1 = 1.05 its default")) diag("%s", err);
    ok(z[J0] == m->z0[J0] && z[J4] == m->z0[J4] && zd[J0] == m->zd0[J0] && zd[J4] == 0.7,
       "J0, J4 and their velocities kept");
    ok(fabs(z[X2] - m->z0[X2]) + fabs(z[X2 + 1] - m->z0[X2 + 1]) > 1e-3, "x2, y2 moved with LA1 (%.3g, %.3g)",
       z[X2] - m->z0[X2], z[X2 + 1] - m->z0[X2 + 1]);
    mb_args a = {0, z, zd, NULL, NULL, p, NULL};
    double phi[NC], J[NC * NZ], Jp[NC * NP], Vz[NC * NZ], Vp[NC * NP], r[NC * NP];
    m->constraints(&a, phi, work);
    ok(max_abs(phi, NC) < 1e-12, "the loops and the rows of h closed (%.2g)", max_abs(phi, NC));
    double v[NC] = {0};
    m->constraints_dz(&a, J, work);
    for (int i = 0; i < NC; ++i)
        for (int c = 0; c < NZ; ++c) v[i] += J[i + NC * c] * zd[c];
    ok(max_abs(v, NC) < 1e-12, "Phi_z zd = 0 (%.2g)", max_abs(v, NC));
    m->constraints_dp(&a, Jp, work);
    m->constraint_vel_dz(&a, Vz, work);
    m->constraint_vel_dp(&a, Vp, work);
    double rv[NC * NP];
    for (int j = 0; j < NP; ++j)
        for (int i = 0; i < NC; ++i) {
            double s = Jp[i + NC * j], t = Vp[i + NC * j];
            for (int c = 0; c < NZ; ++c) s += J[i + NC * c] * S[c + NZ * j], t += Vz[i + NC * c] * S[c + NZ * j] + J[i + NC * c] * Sd[c + NZ * j];
            r[i + NC * j] = s;
            rv[i + NC * j] = t;
        }
    ok(max_abs(r, NC * NP) < 1e-12, "Phi_z dz0/dp + Phi_p = 0 (%.2g)", max_abs(r, NC * NP));
    ok(max_abs(rv, NC * NP) < 1e-12, "and its velocity level (%.2g)", max_abs(rv, NC * NP));
    double held = 0;
    for (int j = 0; j < NP; ++j) held = fmax(held, fabs(S[J0 + NZ * j]) + fabs(S[J4 + NZ * j]) + fabs(Sd[J0 + NZ * j]) + fabs(Sd[J4 + NZ * j]));
    ok(held == 0, "the held rows of dz0/dp and dzd0/dp are zero");
    /* dz0/dp against central differences of the start itself. */
    double fdw = 0;
    for (int j = 0; j < NP; ++j) {
        double q[NP], zh[NZ], zl[NZ], zdh[NZ], zdl[NZ], Sh[NZ * NP], Sdh[NZ * NP], h = 1e-6 * fmax(1, fabs(p[j]));
        memcpy(q, p, sizeof q);
        q[j] = p[j] + h;
        memcpy(zh, m->z0, sizeof zh);
        memcpy(zdh, zd, sizeof zdh);
        mb_sens_start_hold(m, 0, q, NULL, hold, 2, zh, zdh, Sh, Sdh, err, sizeof err);
        q[j] = p[j] - h;
        memcpy(zl, m->z0, sizeof zl);
        memcpy(zdl, zd, sizeof zdl);
        mb_sens_start_hold(m, 0, q, NULL, hold, 2, zl, zdl, Sh, Sdh, err, sizeof err);
        for (int c = 0; c < NZ; ++c) {
            fdw = fmax(fdw, fabs((zh[c] - zl[c]) / (2 * h) - S[c + NZ * j]));
            fdw = fmax(fdw, fabs((zdh[c] - zdl[c]) / (2 * h) - Sd[c + NZ * j]));
        }
    }
    ok(fdw < 1e-7, "dz0/dp and dzd0/dp = central differences of the start (%.2g)", fdw);
    /* Bad holds: one coordinate for two degrees of freedom, or the same one twice. */
    const int one[1] = {J0}, twice[2] = {J0, J0};
    memcpy(z, m->z0, sizeof z);
    rc = mb_sens_start_hold(m, 0, p, NULL, one, 1, z, zd, S, Sd, err, sizeof err);
    ok(rc == MB_ERR_ARG && strstr(err, "hold J0") && strstr(err, "2 degrees of freedom"), "one held coordinate: %s", err);
    rc = mb_sens_start_hold(m, 0, p, NULL, twice, 2, z, zd, S, Sd, err, sizeof err);
    ok(rc == MB_ERR_ARG && strstr(err, "hold J0, J0"), "a coordinate twice: %s", err);
    return done_testing();
}
