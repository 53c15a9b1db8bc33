/* rt_fn_status.c: the status and workspace contract of generated functions (mb_model.h) and how the runtime reports a
 * non-zero status: a singular mass matrix in the generated L'DL solve, an unknown status of a hand model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "double_pendulum.c"
#include "formulation_tree.h"
#include "mb_work.h"
#include "sens.h"
#include "tap.h"

/* A hand model whose forward dynamics fails with a status the runtime does not know. */
static int odd_fd(const mb_args *a, mb_real *out, mb_real *work) {
    (void)a;
    (void)work;
    out[0] = 0;
    return 7;
}
static const mb_model odd_model = {.name = "odd", .nz = 1, .nb = 1, .forward_dynamics = odd_fd};

int main(void) {
    const mb_model *m = &double_pendulum_model;
    char err[MB_ERRLEN] = "";
    double z[2] = {0.3, -0.2}, zd[2] = {0.1, 0.4}, out[8], p[4], tau[1] = {0.5};
    double *work = mb_work_alloc(m);
    memcpy(p, m->p_default, sizeof p);
    mb_args a = {0.0, z, zd, NULL, tau, p, NULL};

    /* The double pendulum's solves are unrolled (small): no function of it needs work. */
    ok(work != NULL && m->nwork >= double_pendulum_forward_dynamics_dz_NWORK && double_pendulum_mass_NWORK == 0,
       "model->nwork is at least each function's work size (%d)", m->nwork);
    is_int(double_pendulum_mass(&a, out, NULL), MB_FN_OK, "a function without work accepts work = NULL");
    is_int(m->forward_dynamics_dz(&a, out, work), MB_FN_OK, "forward_dynamics_dz at positive masses: MB_FN_OK");

    /* mP = -3, mQ = 1: the shoulder's pivot, D_1 = M11 - M12^2 / M22 = L1^2 (mP + mQ sin^2 elbow), is negative. */
    p[2] = -3;
    is_int(m->forward_dynamics_dz(&a, out, work), MB_FN_SINGULAR, "a negative pivot: MB_FN_SINGULAR");
    p[2] = NAN;
    is_int(m->forward_dynamics_dzd(&a, out, work), MB_FN_SINGULAR, "a NaN pivot: MB_FN_SINGULAR");
    /* (An infinite shoulder angle no longer reaches M: in body frames M depends on the elbow alone.) */
    p[2] = INFINITY;
    is_int(m->forward_dynamics_dp(&a, out, work), MB_FN_SINGULAR, "an infinite pivot: MB_FN_SINGULAR");
    p[2] = 1;

    /* The runtime turns the status into MB_ERR_NOT_PD with the function's name: DDM on rk4 evaluates
     * forward_dynamics_dy (both Jacobians fused) at every stage with the jacobian kernel, and forward_dynamics_sens
     * (whose articulated pivots are checked) with the recursive one. */
    double u[1] = {0}, psi, g[4], pbad[4];
    memcpy(pbad, m->p_default, sizeof pbad);
    pbad[2] = -3;
    mb_sens_problem pr;
    mb_sens_problem_default(&pr, m);
    pr.u = u;
    pr.p = pbad;
    pr.t_end = 0.01;
    mb_sens_options o;
    mb_sens_options_default(&o, m);
    o.kernel = MB_SENS_KERNEL_JACOBIAN;
    int rc = mb_sens_run(&pr, &o, &psi, g, NULL, err, sizeof err);
    is_int(rc, MB_ERR_NOT_PD, "sensitivities (jacobian kernel) with an indefinite M fail with MB_ERR_NOT_PD");
    ok(strstr(err, "forward_dynamics_dy") && strstr(err, "not positive and finite"), "the message names the function: %s",
       err);
    o.kernel = MB_SENS_KERNEL_RECURSIVE;
    rc = mb_sens_run(&pr, &o, &psi, g, NULL, err, sizeof err);
    is_int(rc, MB_ERR_NOT_PD, "sensitivities (recursive kernel) with an indefinite M fail with MB_ERR_NOT_PD");
    ok(strstr(err, "forward_dynamics_sens") && strstr(err, "not positive and finite"),
       "the message names the function: %s", err);
    mb_args as = {0.0, z, zd, NULL, tau, pbad, NULL};
    double w[2 * 2 * 4] = {0}, fs[2 * (1 + 4)];   /* [S, Sd], n x np each; zdd and four columns */
    as.w = w;
    is_int(m->forward_dynamics_sens(&as, fs, work), MB_FN_SINGULAR, "forward_dynamics_sens: a negative pivot");

    mb_tree *tr = mb_tree_create(&odd_model, MB_TREE_ACCEL | MB_TREE_FORWARD_DYNAMICS, err, sizeof err);
    ok(tr != NULL, "tree formulation of a hand model with forward dynamics");
    double zz[1] = {0}, zzd[1] = {0}, zdd[1];
    rc = tr ? mb_tree_accel(tr, 0.5, zz, zzd, NULL, NULL, zdd, err, sizeof err) : MB_OK;
    is_int(rc, MB_ERR_MODEL, "an unknown status is a model error");
    ok(strstr(err, "unknown status 7") != NULL, "the message gives the status: %s", err);
    mb_tree_free(tr);
    free(work);
    return done_testing();
}
