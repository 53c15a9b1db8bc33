/* sens.c: defaults, checks and the dispatch of mb_sens_run to the DDM or the AVM. */
#include <math.h>
#include <string.h>

#include "sens.h"
#include "sens_adjoint.h"
#include "sens_direct.h"

void mb_sens_problem_default(mb_sens_problem *pr, const mb_model *m) {
    memset(pr, 0, sizeof *pr);
    pr->model = m;
    pr->t_end = m ? m->simulate.t_end : 1;
}

void mb_sens_options_default(mb_sens_options *o, const mb_model *m) {
    memset(o, 0, sizeof *o);
    o->method = MB_SENS_DDM;
    o->integrator = MB_INTEGRATOR_RK4;
    o->step = 1e-3;
    o->rtol = o->atol = 1e-8;
    o->max_steps = 100000000;
    o->newton_tol = 1e-12;
    o->newton_max_iter = 20;
    if (m) {
        mb_integrator i;
        if (m->simulate.integrator && mb_integrator_parse(m->simulate.integrator, &i) == MB_OK) o->integrator = i;
        if (m->simulate.step > 0) o->step = m->simulate.step;
        if (m->rod_mode && mb_rod_mode_parse(m->rod_mode, &o->rod_mode) == MB_OK) o->rod_partitioned = m->rod_partitioned;
    }
}

int mb_sens_objective_index(const mb_model *m, const char *name) {
    if (!m || !name) return -1;
    for (int i = 0; i < m->nobj; ++i)
        if (m->objectives[i].name && strcmp(m->objectives[i].name, name) == 0) return i;
    return -1;
}

int mb_sens_method_parse(const char *name, mb_sens_method *out) {
    if (name && strcmp(name, "ddm") == 0) *out = MB_SENS_DDM;
    else if (name && strcmp(name, "avm") == 0) *out = MB_SENS_AVM;
    else return MB_ERR_ARG;
    return MB_OK;
}

int mb_sens_kernel_parse(const char *name, mb_sens_kernel *out) {
    if (name && strcmp(name, "auto") == 0) *out = MB_SENS_KERNEL_AUTO;
    else if (name && strcmp(name, "recursive") == 0) *out = MB_SENS_KERNEL_RECURSIVE;
    else if (name && strcmp(name, "jacobian") == 0) *out = MB_SENS_KERNEL_JACOBIAN;
    else return MB_ERR_ARG;
    return MB_OK;
}

const char *mb_sens_kernel_name(mb_sens_kernel k) {
    return k == MB_SENS_KERNEL_RECURSIVE ? "recursive" : k == MB_SENS_KERNEL_JACOBIAN ? "jacobian" : "auto";
}

static int finite_all(const double *v, int n) {
    for (int i = 0; v && i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

int mb_sens_run(const mb_sens_problem *pr, const mb_sens_options *o, double *psi, double *grad,
                mb_sens_stats *st, char *err, size_t errlen) {
    mb_sens_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    if (!pr || !pr->model || !o || !psi) return mb_fail(err, errlen, MB_ERR_ARG, "sens: NULL problem, options or psi");
    const mb_model *m = pr->model;
    const char *name = m->name ? m->name : "?";
    if (m->nobj < 1 || !m->objectives)
        return mb_fail(err, errlen, MB_ERR_MODEL, "sens: model %s declares no objective", name);
    if (pr->objective < 0 || pr->objective >= m->nobj)
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: objective index %d outside 0..%d", pr->objective, m->nobj - 1);
    if (m->np < 1) return mb_fail(err, errlen, MB_ERR_MODEL, "sens: model %s has no design parameters", name);
    if (m->nc > 0) {
        if (!m->constraints || !m->constraints_dz || !m->constraints_dp || !m->constraint_bias ||
            !m->constraint_bias_dz || !m->constraint_bias_dzd || !m->constraint_bias_dp || !m->constraints_dz_tw_dz ||
            !m->constraint_vel_dz || !m->constraint_vel_dp || !m->constraint_acc_dz || !m->constraint_acc_dp ||
            !m->constraints_dz_tw_dp || !m->inverse_dynamics || !m->inverse_dynamics_dz || !m->inverse_dynamics_dzd ||
            !m->inverse_dynamics_dp || !m->mass || !m->forces)
            return mb_fail(err, errlen, MB_ERR_MODEL, "sens: model %s lacks the constraint derivatives closed-loop "
                           "sensitivities need", name);
    }
    if (!(pr->t_end > pr->t0) || !isfinite(pr->t_end) || !isfinite(pr->t0))
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: t_end = %g must be finite and after t0 = %g", pr->t_end, pr->t0);
    if (!finite_all(pr->p, m->np) || !finite_all(pr->u, m->nu) || !finite_all(pr->z0, m->nz) ||
        !finite_all(pr->zd0, m->nz) || !finite_all(pr->z0_p, m->nz * m->np) || !finite_all(pr->zd0_p, m->nz * m->np))
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: the problem holds a NaN or infinite value");
    if (m->nu > 0 && !pr->u) return mb_fail(err, errlen, MB_ERR_ARG, "sens: model %s has %d inputs: give u", name, m->nu);
    if (o->integrator != MB_INTEGRATOR_DOPRI5 && !(o->step > 0 && isfinite(o->step)))
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: step %g must be positive", o->step);
    if (o->integrator == MB_INTEGRATOR_DOPRI5 && !(o->rtol > 0 && o->atol > 0))
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: dopri5 needs positive rtol and atol");
    if (o->method == MB_SENS_AVM && m->nc == 0 && o->integrator != MB_INTEGRATOR_TRAPEZOIDAL)
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: the adjoint method runs on the trapezoidal rule only (got %s)",
                       mb_integrator_name(o->integrator));
    if (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL || o->method == MB_SENS_AVM) {
        if (!m->inverse_dynamics || !m->inverse_dynamics_dz || !m->inverse_dynamics_dzd || !m->inverse_dynamics_dp ||
            !m->mass)
            return mb_fail(err, errlen, MB_ERR_MODEL, "sens: model %s lacks inverse dynamics derivatives", name);
        if (!(o->newton_tol > 0) || o->newton_max_iter < 1)
            return mb_fail(err, errlen, MB_ERR_ARG, "sens: newton_tol must be > 0 and newton_max_iter >= 1");
    } else if (m->nc == 0 && (!m->forward_dynamics ||
                                (!m->forward_dynamics_sens && (!m->forward_dynamics_dp || (!m->forward_dynamics_dy &&
                                 (!m->forward_dynamics_dz || !m->forward_dynamics_dzd)))))) {
        return mb_fail(err, errlen, MB_ERR_MODEL, "sens: model %s lacks forward dynamics derivatives", name);
    }
    if (o->kernel == MB_SENS_KERNEL_RECURSIVE && !o->psi_only) {
        if (m->nc > 0 || o->method != MB_SENS_DDM)
            return mb_fail(err, errlen, MB_ERR_ARG, "sens: the recursive kernel is the open-tree DDM's (model %s%s)",
                           name, m->nc > 0 ? " has closed loops" : ": the AVM was asked for");
        if (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL ? !m->inverse_dynamics_sens || !m->inverse_dynamics_tangent
                                                       : !m->forward_dynamics_sens)
            return mb_fail(err, errlen, MB_ERR_MODEL, "sens: model %s lacks %s (the recursive kernel)", name,
                           o->integrator == MB_INTEGRATOR_TRAPEZOIDAL ? "inverse_dynamics_sens and the fused tangent"
                                                                       : "forward_dynamics_sens");
    }
    if (o->rod_mode != MB_ROD_EXACT && (m->nc == 0 || o->integrator != MB_INTEGRATOR_RK4))
        return mb_fail(err, errlen, MB_ERR_ARG, "sens: rod inertia %s needs closed loops (Matrix R) on rk4, whose first "
                       "stages its history keeps (model %s%s, integrator %s)", mb_rod_mode_name(o->rod_mode), name,
                       m->nc == 0 ? " has none" : "", mb_integrator_name(o->integrator));
    if (o->checkpoints < 0) return mb_fail(err, errlen, MB_ERR_ARG, "sens: checkpoints %d must be >= 0", o->checkpoints);
    double gdummy[1] = {0};
    double *g = grad;
    if (!g && !o->psi_only) {
        if (m->np > 1) return mb_fail(err, errlen, MB_ERR_ARG, "sens: grad must hold np = %d values", m->np);
        g = gdummy;
    }
    if (o->psi_only) {
        mb_sens_options d = *o;
        d.method = MB_SENS_DDM;
        int rc = mb_sens_ddm(pr, &d, psi, gdummy, st, err, errlen);
        if (rc) return rc;
        return isfinite(*psi) ? MB_OK : mb_fail(err, errlen, MB_ERR_NAN, "sens: psi is not finite");
    }
    int rc = o->method == MB_SENS_AVM ? mb_sens_avm(pr, o, psi, g, st, err, errlen)
                                      : mb_sens_ddm(pr, o, psi, g, st, err, errlen);
    if (rc) return rc;
    if (!isfinite(*psi) || !finite_all(g, m->np))
        return mb_fail(err, errlen, MB_ERR_NAN, "sens: psi or its gradient is not finite");
    return MB_OK;
}
