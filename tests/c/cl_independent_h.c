/* cl_independent_h.c: the identities of general independent coordinates (seeds/000.md §1.4, §7.2 item 9) on fivebar_point. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fivebar_point.c"
#include "kinematics.h"
#include "tap.h"

/* With q = h(z) a coordinate held by the rows h(z) - q (model/topology.lua), Phi'_z = [Phi_z 0; h_z -I]. Matrix R's
 * R' = [R_z; I] then gives the seed's Phi_z R_z = 0 and B R_z = I with B = h_z, and zd = R' qd for any qd. */
enum { NZ = 6, NC = 4, NJ = 4, D = 2, X2 = 4, Y2 = 5 };

int main(void) {
    const mb_model *m = &fivebar_point_model;
    char err[512];
    ok(m->nz == NZ && m->nc == NC && m->n_independent == D && m->independent[0] == X2 && m->independent[1] == Y2,
       "fivebar_point: 6 coordinates (4 angles, x2, y2), 4 equations, x2 and y2 independent");
    ok(m->forward_dynamics == NULL && m->mass != NULL, "no forward dynamics (M is singular in x2, y2), a mass matrix");
    double *work = calloc((size_t)(m->nwork > 0 ? m->nwork : 1), sizeof(double));
    const double *p = m->p_default;
    mb_kin *k = mb_kin_create(m, NULL, err, sizeof err);
    if (!ok(k != NULL, "kinematics of the model")) diag("%s", err);

    /* A2 moved to five points of the hanging linkage's reach; the angles follow by assembly. */
    const double a2[5][2] = {{0.2, -0.84}, {0.05, -0.7}, {0.35, -0.6}, {-0.1, -0.5}, {0.45, -0.45}};
    for (int c = 0; c < 5; ++c) {
        double z[NZ], zd[NZ] = {0}, R[NZ * D], J[NC * NZ], pts[3], Jp[3 * NZ], v[3];
        memcpy(z, m->z0, sizeof z);
        z[X2] = a2[c][0];
        z[Y2] = a2[c][1];
        int it = 0;
        if (!ok(mb_kin_position(k, 0, z, p, &it, err, sizeof err) == MB_OK, "A2 = (%g, %g): assembles in %d iterations",
                a2[c][0], a2[c][1], it)) {
            diag("%s", err);
            continue;
        }
        ok(z[X2] == a2[c][0] && z[Y2] == a2[c][1], "x2, y2 held by the position problem");
        mb_args a = {0, z, zd, NULL, NULL, p, NULL};
        m->points(&a, pts, work);
        ok(fabs(pts[0] - z[X2]) < 1e-12 && fabs(pts[1] - z[Y2]) < 1e-12, "the point P2 is where x2, y2 say (%.2g)",
           fmax(fabs(pts[0] - z[X2]), fabs(pts[1] - z[Y2])));
        is_int(mb_kin_R(k, R, err, sizeof err), MB_OK, "R");
        m->constraints_dz(&a, J, work);
        m->points_dz(&a, Jp, work);
        /* The rows h(z) - q: h_z is d P2 / dz over the angles, -I over (x2, y2). */
        double dh = 0;
        for (int r = 0; r < D; ++r)
            for (int j = 0; j < NZ; ++j) {
                double want = j < NJ ? Jp[r + 3 * j] : (j - NJ == r ? -1.0 : 0.0);
                dh = fmax(dh, fabs(J[(2 + r) + NC * j] - want));
            }
        ok(dh < 1e-15, "the rows of h: h_z = d P2/dz, -1 on q (%.2g)", dh);
        double PR[NC * D] = {0}, BR[D * D] = {0};
        for (int i = 0; i < NC; ++i)
            for (int col = 0; col < D; ++col)
                for (int j = 0; j < NZ; ++j) PR[i + NC * col] += J[i + NC * j] * R[j + NZ * col];
        for (int r = 0; r < D; ++r)
            for (int col = 0; col < D; ++col) {
                for (int j = 0; j < NJ; ++j) BR[r + D * col] += Jp[r + 3 * j] * R[j + NZ * col];
                BR[r + D * col] -= r == col;
            }
        ok(max_abs(PR, NC * D) < 1e-13, "Phi'_z R' = 0 (%.2g)", max_abs(PR, NC * D));
        ok(R[X2] == 1 && R[Y2] == 0 && R[X2 + NZ] == 0 && R[Y2 + NZ] == 1, "R' = [R_z; I] on x2, y2");
        ok(max_abs(BR, D * D) < 1e-13, "B R_z = I with B = h_z (%.2g)", max_abs(BR, D * D));
        /* The velocity problem: zd = R' qd, and the point moves at qd. */
        zd[X2] = 0.3;
        zd[Y2] = -0.7;
        is_int(mb_kin_velocity(k, 0, z, zd, p, err, sizeof err), MB_OK, "velocity problem");
        double dv = 0;
        for (int j = 0; j < NZ; ++j) dv = fmax(dv, fabs(zd[j] - (R[j] * 0.3 - R[j + NZ] * 0.7)));
        mb_kin_violation(k, 0, z, zd, NULL, p, v, err, sizeof err);
        ok(dv < 1e-12 && v[1] < 1e-13, "zd = R' qd (%.2g), Phi'_z zd = 0 (%.2g)", dv, v[1]);
    }
    mb_kin_free(k);
    free(work);
    return done_testing();
}
