/* sens_start.c: a closed-loop start assembled holding chosen coordinates, and its sensitivities to the design. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinematics.h"
#include "mb_work.h"
#include "sens_start.h"

/* "J0, J4" into buf. */
static const char *held_names(const mb_model *m, const int *hold, int count, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = 0;
    for (int j = 0; j < count && at < len; ++j)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", j ? ", " : "", m->z_names ? m->z_names[hold[j]] : "?");
    return buf;
}

/* The dependent rows of B (nc x np, the right-hand sides, overwritten) into S (nz x np); the others zero. */
static int solve_into(mb_kin *k, const mb_model *m, double *B, double *S, char *err, size_t errlen) {
    int nc = m->nc, nz = m->nz, np = m->np, rc;
    if ((rc = mb_kin_solve_dependent(k, np, B, nc, err, errlen))) return rc;
    const int *dep = mb_kin_dependent(k);
    memset(S, 0, (size_t)nz * np * sizeof(double));
    for (int j = 0; j < np; ++j)
        for (int r = 0; r < mb_kin_rank(k); ++r) S[dep[r] + (size_t)nz * j] = B[r + (size_t)nc * j];
    return MB_OK;
}

int mb_sens_start_hold(const mb_model *m, double t0, const double *p, const double *u, const int *hold, int count,
                       double *z0, double *zd0, double *z0_p, double *zd0_p, char *err, size_t errlen) {
    if (!m || m->nc < 1)
        return mb_fail(err, errlen, MB_ERR_ARG, "start: holding coordinates needs a model with constraints");
    if (!m->constraints_dp || !m->constraint_vel_dz || !m->constraint_vel_dp)
        return mb_fail(err, errlen, MB_ERR_MODEL, "start: model %s lacks constraints_dp, constraint_vel_dz or "
                       "constraint_vel_dp", m->name);
    int nz = m->nz, nc = m->nc, np = m->np, rc, it = 0;
    char names[256];
    mb_kin_options ko;
    mb_kin_options_default(&ko);
    ko.reselect = 0;
    mb_kin *k = mb_kin_create(m, &ko, err, errlen);
    if (!k) return MB_ERR_MODEL;
    size_t nb = (size_t)nc * (np > 0 ? np : 1);
    double *B = calloc(nb, sizeof(double)), *J = calloc((size_t)nc * nz + nb, sizeof(double));
    double *uz = calloc((size_t)(m->nu > 0 ? m->nu : 1), sizeof(double)), *work = mb_work_alloc(m);
    if (!B || !J || !uz || !work) {
        rc = mb_fail(err, errlen, MB_ERR_ALLOC, "start: out of memory");
        goto done;
    }
    /* The model's own choice first (mb_kin_set_independent replaces a choice), then the held one, factored at z0. */
    if ((rc = mb_kin_factor(k, t0, z0, p, err, errlen))) goto done;
    if (mb_kin_set_independent(k, hold, count) != MB_OK) {
        rc = mb_fail(err, errlen, MB_ERR_ARG, "start: hold %s: model %s has %d degrees of freedom; give that many "
                     "distinct coordinates", held_names(m, hold, count, names, sizeof names), m->name, mb_kin_dof(k));
        goto done;
    }
    if ((rc = mb_kin_position(k, t0, z0, p, &it, err, errlen)) || (rc = mb_kin_velocity(k, t0, z0, zd0, p, err, errlen))) {
        char why[MB_ERRLEN];
        snprintf(why, sizeof why, "%s", err);
        rc = mb_fail(err, errlen, rc, "start: the loops cannot be closed holding %s at t = %g: %s",
                     held_names(m, hold, count, names, sizeof names), t0, why);
        goto done;
    }
    mb_args a = {t0, z0, zd0, NULL, u ? u : uz, p, NULL};
    double *Jp = J + (size_t)nc * nz;
    m->constraints_dp(&a, Jp, work);
    for (size_t i = 0; i < nb; ++i) B[i] = -Jp[i];
    if ((rc = solve_into(k, m, B, z0_p, err, errlen))) goto done;
    /* Velocity level: Phi_z zd0_p = -(d(Phi_z zd + Phi_t)/dz z0_p + d(Phi_z zd + Phi_t)/dp). */
    m->constraint_vel_dz(&a, J, work);
    m->constraint_vel_dp(&a, Jp, work);
    for (int j = 0; j < np; ++j)
        for (int r = 0; r < nc; ++r) {
            double s = Jp[r + (size_t)nc * j];
            for (int c = 0; c < nz; ++c) s += J[r + (size_t)nc * c] * z0_p[c + (size_t)nz * j];
            B[r + (size_t)nc * j] = -s;
        }
    rc = solve_into(k, m, B, zd0_p, err, errlen);
done:
    mb_kin_free(k);
    free(B);
    free(J);
    free(uz);
    free(work);
    return rc;
}
