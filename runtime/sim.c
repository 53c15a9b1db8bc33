/* sim.c: the simulation object: owns state, parameters, inputs and workspaces, and wires formulation to integrator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulation_matrix_r.h"
#include "formulation_tree.h"
#include "linalg.h"
#include "matrix_r_reduced.h"
#include "mb_work.h"
#include "sim.h"

struct mb_sim {
    const mb_model *m;
    mb_sim_options o;
    int nz;
    double t;
    double *y;          /* 2 nz: z then zd, the state the user sees */
    double *p, *u;      /* np, nu (NULL when 0: generated code does not read them) */
    double *ptmp;       /* max(np, nu): staging for set_params/set_inputs (all-or-nothing) */
    double *e2;         /* 2: energy scratch */
    double *work;       /* the model functions' workspace */
    mb_tree *tree;
    mb_mr *mr;          /* matrix_r */
    mb_mrs *mrs;        /* matrix_r with the trapezoidal rule: the reduced system it integrates */
    double *zdd, *zi, *zdi; /* nz each: matrix_r's full acceleration; the independent coordinates and velocities */
    mb_al3 *al3;        /* al3 */
    mb_bg *bg;          /* baumgarte */
    double *f2;         /* 2 nz: scratch for the acceleration of a violation report */
    double *cz, *ct, *cb; /* closed loops: Phi_z (nc x nz, then Phi_z' nz x nc), Phi_t (nc), max(nz, nc) */
    mb_linalg *cla;     /* closed loops: least squares for the multipliers of the constraint power */
    mb_rk4 *rk4;
    mb_dopri5 *dp;
    mb_trap *trap;
    mb_so_system sys;
    int need_reset;     /* the integrator must restart from (t, y) before the next step */
    mb_stats st;
    char msg[MB_ERRLEN];
};

void mb_sim_options_default(mb_sim_options *o, const mb_model *m) {
    o->integrator = MB_INTEGRATOR_RK4;
    o->step = 1e-3;
    o->rtol = o->atol = 1e-6;
    o->h_min = o->h_max = 0;
    o->max_steps = 1000000;
    o->newton_tol = 1e-10;
    o->newton_max_iter = 10;
    o->use_forward_dynamics = 0;
    o->formulation = m && m->nc > 0 ? MB_FORMULATION_MATRIX_R : MB_FORMULATION_TREE;
    mb_kin_options_default(&o->kin);
    mb_al3_options_default(&o->al3);
    o->rod_mode = MB_ROD_EXACT;
    o->rod_partitioned = 0;
    o->generated_reduction = 1;
    o->baumgarte_a = o->baumgarte_b = 10;
    if (!m) return;
    if (m->rod_mode && mb_rod_mode_parse(m->rod_mode, &o->rod_mode) == MB_OK) o->rod_partitioned = m->rod_partitioned;
    mb_formulation fo;
    if (m->simulate.formulation && mb_formulation_parse(m->simulate.formulation, &fo) == MB_OK) o->formulation = fo;
    mb_integrator i;
    if (m->simulate.integrator && mb_integrator_parse(m->simulate.integrator, &i) == MB_OK) o->integrator = i;
    if (m->simulate.step > 0) o->step = m->simulate.step;
    if (m->simulate.tolerance > 0) o->rtol = o->atol = m->simulate.tolerance;
}

static const char *const integrator_names[] = {"rk4", "dopri5", "trapezoidal"};

int mb_integrator_parse(const char *name, mb_integrator *out) {
    for (int i = 0; i < 3; ++i)
        if (name && strcmp(name, integrator_names[i]) == 0) {
            *out = (mb_integrator)i;
            return MB_OK;
        }
    return MB_ERR_ARG;
}

const char *mb_integrator_name(mb_integrator i) {
    return (unsigned)i < 3 ? integrator_names[i] : "unknown";
}

static const char *const formulation_names[] = {"tree", "matrix_r", "al3", "baumgarte", "penalty"};
#define NFORMULATIONS (int)(sizeof formulation_names / sizeof *formulation_names)

int mb_formulation_parse(const char *name, mb_formulation *out) {
    for (int i = 0; i < NFORMULATIONS; ++i)
        if (name && strcmp(name, formulation_names[i]) == 0) {
            *out = (mb_formulation)i;
            return MB_OK;
        }
    return MB_ERR_ARG;
}

const char *mb_formulation_name(mb_formulation f) {
    return (int)f >= 0 && (int)f < NFORMULATIONS ? formulation_names[f] : "unknown";
}

/* ---- the system as each integrator sees it ---- */
static int ode_rhs(void *ctx, double t, const double *y, double *f, char *err, size_t errlen) {
    mb_sim *s = ctx;
    if (s->mr) return mb_mr_rhs(s->mr, t, y, s->u, s->p, f, err, errlen);
    if (s->bg) return mb_bg_rhs(s->bg, t, y, s->u, s->p, f, err, errlen);
    memcpy(f, y + s->nz, (size_t)s->nz * sizeof(double));
    return mb_tree_accel(s->tree, t, y, y + s->nz, s->u, s->p, f + s->nz, err, errlen);
}

static int so_residual(void *ctx, double t, const double *z, const double *zd, const double *zdd, double *r,
                       char *err, size_t errlen) {
    mb_sim *s = ctx;
    return mb_tree_residual(s->tree, t, z, zd, zdd, s->u, s->p, r, err, errlen);
}

static int so_tangent(void *ctx, double t, const double *z, const double *zd, const double *zdd, double cz,
                      double cv, double ca, double *T, char *err, size_t errlen) {
    mb_sim *s = ctx;
    return mb_tree_tangent(s->tree, t, z, zd, zdd, s->u, s->p, cz, cv, ca, T, err, errlen);
}

/* ---- lifetime ---- */
void mb_sim_free(mb_sim *s) {
    if (!s) return;
    mb_tree_free(s->tree);
    mb_mrs_free(s->mrs);
    mb_mr_free(s->mr);
    free(s->zdd);
    free(s->zi);
    free(s->zdi);
    mb_al3_free(s->al3);
    mb_bg_free(s->bg);
    free(s->f2);
    free(s->cz);
    free(s->ct);
    free(s->cb);
    mb_linalg_free(s->cla);
    mb_rk4_free(s->rk4);
    mb_dopri5_free(s->dp);
    mb_trap_free(s->trap);
    free(s->y);
    free(s->p);
    free(s->u);
    free(s->ptmp);
    free(s->e2);
    free(s->work);
    free(s);
}

/* RK4's stages told to Matrix R, whose rod modes keep the first ones (rod_history.h), and to Baumgarte's form, which
 * records the violation at the first ones (accepted states). */
static void rk4_stage(void *ctx, int stage) { mb_mr_set_stage(ctx, stage); }
static void rk4_stage_bg(void *ctx, int stage) { mb_bg_set_stage(ctx, stage); }

long mb_sim_violation_max(const mb_sim *s, double v[2]) {
    v[0] = v[1] = 0;
    return s->bg ? mb_bg_violation_max(s->bg, v) : 0;
}

void mb_sim_rod_reset(mb_sim *s) {
    if (s->mr) mb_mr_rod_reset(s->mr);
}

long mb_sim_rod_exact_evals(const mb_sim *s) { return s->mr ? mb_mr_rod_exact_evals(s->mr) : 0; }

/* Restarts the integrator at (t, y): evaluates the initial acceleration. A restart (a new state, parameters or
 * inputs, or the retry after a failed step) is a discontinuity for the rods' acceleration history too. */
static int restart(mb_sim *s) {
    int rc = MB_OK;
    mb_sim_rod_reset(s);
    /* Closed loops: the state the user set (or the model's start) is assembled first. */
    if (s->mr && (rc = mb_mr_project(s->mr, s->t, s->y, s->y + s->nz, s->p, s->msg, sizeof s->msg))) {
        s->need_reset = 1;
        return rc;
    }
    /* Baumgarte's form assembles the start only; then the stabilisation alone holds the constraints. */
    if (s->bg && (rc = mb_bg_assemble(s->bg, s->t, s->y, s->y + s->nz, s->p, s->msg, sizeof s->msg))) {
        s->need_reset = 1;
        return rc;
    }
    if (s->mrs) {
        /* The trapezoidal rule on the independent coordinates of the current choice (matrix_r_reduced.h). */
        rc = mb_mr_accel(s->mr, s->t, s->y, s->y + s->nz, s->u, s->p, s->zdd, s->msg, sizeof s->msg);
        if (rc == MB_OK) {
            mb_mrs_begin(s->mrs, s->t, s->y, s->y + s->nz, s->zdd, s->zi, s->zdi);
            if (!s->trap) {
                s->trap = mb_trap_create(mb_mrs_dof(s->mrs), s->o.newton_tol, s->o.newton_max_iter, s->msg,
                                         sizeof s->msg);
                if (!s->trap) rc = MB_ERR_ALLOC;
                else mb_trap_set_reuse(s->trap, 1);
            }
        }
        if (rc == MB_OK)
            rc = mb_trap_reset(s->trap, &s->sys, s->t, s->zi, s->zdi, &s->st, s->msg, sizeof s->msg);
        s->need_reset = rc != MB_OK;
        return rc;
    }
    if (s->al3) {
        rc = mb_al3_reset(s->al3, s->t, s->y, s->y + s->nz, s->u, s->p, s->o.step, &s->st, s->msg, sizeof s->msg);
        if (rc == MB_OK) {
            memcpy(s->y, mb_al3_z(s->al3), (size_t)s->nz * sizeof(double));
            memcpy(s->y + s->nz, mb_al3_zd(s->al3), (size_t)s->nz * sizeof(double));
        }
        s->need_reset = rc != MB_OK;
        return rc;
    }
    switch (s->o.integrator) {
    case MB_INTEGRATOR_RK4: break; /* keeps no state between steps */
    case MB_INTEGRATOR_DOPRI5: rc = mb_dopri5_reset(s->dp, ode_rhs, s, s->t, s->y, &s->st, s->msg, sizeof s->msg); break;
    case MB_INTEGRATOR_TRAPEZOIDAL:
        rc = mb_trap_reset(s->trap, &s->sys, s->t, s->y, s->y + s->nz, &s->st, s->msg, sizeof s->msg);
        break;
    }
    s->need_reset = rc != MB_OK;
    return rc;
}

mb_sim *mb_sim_create(const mb_model *m, const mb_sim_options *o, char *err, size_t errlen) {
    if (!m || m->nz < 1 || m->np < 0 || m->nu < 0) {
        mb_fail(err, errlen, MB_ERR_ARG, "mb_sim_create: %s", m ? "the model has no coordinates" : "no model");
        return NULL;
    }
    mb_sim_options d;
    mb_sim_options_default(&d, m);
    if (!o) o = &d;
    if ((unsigned)o->integrator > MB_INTEGRATOR_TRAPEZOIDAL) {
        mb_fail(err, errlen, MB_ERR_ARG, "mb_sim_create: unknown integrator %d", (int)o->integrator);
        return NULL;
    }
    if ((unsigned)o->formulation > MB_FORMULATION_PENALTY) {
        mb_fail(err, errlen, MB_ERR_ARG, "mb_sim_create: unknown formulation %d", (int)o->formulation);
        return NULL;
    }
    if (o->formulation == MB_FORMULATION_BAUMGARTE && o->integrator == MB_INTEGRATOR_TRAPEZOIDAL) {
        mb_fail(err, errlen, MB_ERR_ARG, "baumgarte is an ODE for rk4 or dopri5, not the trapezoidal rule (al3 is the "
                "implicit closed-loop formulation)");
        return NULL;
    }
    if (o->formulation == MB_FORMULATION_TREE && m->nc > 0) {
        mb_fail(err, errlen, MB_ERR_ARG,
                "model %s has %d constraint equations: the tree formulation ignores them; use matrix_r, al3, penalty or "
                "baumgarte",
                m->name ? m->name : "?", m->nc);
        return NULL;
    }
    mb_sim_options oal;
    if ((o->formulation == MB_FORMULATION_AL3 || o->formulation == MB_FORMULATION_PENALTY) &&
        (o->integrator != MB_INTEGRATOR_TRAPEZOIDAL || o->al3.penalty != (o->formulation == MB_FORMULATION_PENALTY))) {
        oal = *o;
        oal.integrator = MB_INTEGRATOR_TRAPEZOIDAL; /* al3 (and penalty) is its own trapezoidal rule */
        oal.al3.penalty = o->formulation == MB_FORMULATION_PENALTY;
        o = &oal;
    }
    if (o->integrator != MB_INTEGRATOR_DOPRI5 && (!(o->step > 0) || !isfinite(o->step))) {
        mb_fail(err, errlen, MB_ERR_ARG, "mb_sim_create: step %g must be positive and finite", o->step);
        return NULL;
    }
    if (o->rod_mode != MB_ROD_EXACT &&
        (o->formulation != MB_FORMULATION_MATRIX_R || o->integrator != MB_INTEGRATOR_RK4)) {
        mb_fail(err, errlen, MB_ERR_ARG, "rod inertia %s needs the matrix_r formulation with rk4 (the extrapolation's "
                "history is RK4's first stages; got %s with %s); rod inertia exact works with every one",
                mb_rod_mode_name(o->rod_mode), mb_formulation_name(o->formulation), mb_integrator_name(o->integrator));
        return NULL;
    }
    mb_sim *s = calloc(1, sizeof *s);
    if (!s) goto nomem;
    s->m = m;
    s->o = *o;
    s->nz = m->nz;
    size_t nz = (size_t)m->nz, np = (size_t)m->np, nu = (size_t)m->nu;
    if (!(s->y = calloc(2 * nz, sizeof(double)))) goto nomem;
    if (np && !(s->p = calloc(np, sizeof(double)))) goto nomem;
    if (nu && !(s->u = calloc(nu, sizeof(double)))) goto nomem;
    if (!(s->ptmp = calloc(np > nu ? np + 1 : nu + 1, sizeof(double)))) goto nomem;
    if (!(s->e2 = calloc(2, sizeof(double)))) goto nomem;
    if (!(s->work = mb_work_alloc(m))) goto nomem;
    if (!(s->f2 = calloc(2 * nz, sizeof(double)))) goto nomem;
    if (m->nc > 0) {
        size_t nc = (size_t)m->nc;
        if (!(s->cz = calloc(2 * nc * nz, sizeof(double))) || !(s->ct = calloc(nc, sizeof(double))) ||
            !(s->cb = calloc(nc > nz ? nc : nz, sizeof(double))))
            goto nomem;
        if (!(s->cla = mb_linalg_create(m->nz, m->nc, 1, err, errlen))) goto fail;
    }
    for (size_t i = 0; i < nz; ++i) {
        s->y[i] = m->z0 ? m->z0[i] : 0;
        s->y[nz + i] = m->zd0 ? m->zd0[i] : 0;
    }
    for (size_t i = 0; i < np; ++i) s->p[i] = m->p_default ? m->p_default[i] : 0;

    if (o->formulation == MB_FORMULATION_MATRIX_R) {
        if (!(s->mr = mb_mr_create(m, &o->kin, err, errlen))) goto fail;
        if (mb_kin_prefer(mb_mr_kin(s->mr), m->zd0)) goto nomem;
        if (mb_mr_set_rods(s->mr, o->rod_mode, o->rod_partitioned, err, errlen)) goto fail;
        mb_mr_set_generated(s->mr, o->generated_reduction);
        if (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL) {
            if (!(s->mrs = mb_mrs_create(m, s->mr, s->u, s->p, err, errlen))) goto fail;
            if (!(s->zdd = calloc(nz, sizeof(double))) || !(s->zi = calloc(nz, sizeof(double))) ||
                !(s->zdi = calloc(nz, sizeof(double))))
                goto nomem;
            s->sys = mb_mrs_system(s->mrs);
        }
    } else if (o->formulation == MB_FORMULATION_BAUMGARTE) {
        if (!(s->bg = mb_bg_create(m, o->baumgarte_a, o->baumgarte_b, &o->kin, err, errlen))) goto fail;
        if (mb_kin_prefer(mb_bg_kin(s->bg), m->zd0)) goto nomem;
    } else if (o->formulation == MB_FORMULATION_AL3 || o->formulation == MB_FORMULATION_PENALTY) {
        if (!(s->al3 = mb_al3_create(m, &o->al3, &o->kin, err, errlen))) goto fail;
        if (mb_kin_prefer(mb_al3_kin(s->al3), m->zd0)) goto nomem;
        if (restart(s)) {
            mb_fail(err, errlen, MB_OK, "%s", s->msg);
            goto fail;
        }
        s->msg[0] = '\0';
        return s;
    } else {
        unsigned flags;
        if (o->integrator == MB_INTEGRATOR_TRAPEZOIDAL) flags = MB_TREE_TANGENT;
        else flags = MB_TREE_ACCEL | (o->use_forward_dynamics ? MB_TREE_FORWARD_DYNAMICS : 0);
        if (!(s->tree = mb_tree_create(m, flags, err, errlen))) goto fail;
    }
    switch (o->integrator) {
    case MB_INTEGRATOR_RK4:
        if (!(s->rk4 = mb_rk4_create(2 * m->nz, err, errlen))) goto fail;
        if (s->mr && o->rod_mode != MB_ROD_EXACT) mb_rk4_set_stage_hook(s->rk4, rk4_stage, s->mr);
        if (s->bg) mb_rk4_set_stage_hook(s->rk4, rk4_stage_bg, s->bg);
        break;
    case MB_INTEGRATOR_DOPRI5: {
        mb_dopri5_opts dopt;
        mb_dopri5_opts_default(&dopt);
        dopt.rtol = o->rtol;
        dopt.atol = o->atol;
        dopt.h_min = o->h_min;
        dopt.h_max = o->h_max;
        dopt.max_steps = o->max_steps;
        if (!(s->dp = mb_dopri5_create(2 * m->nz, &dopt, err, errlen))) goto fail;
        break;
    }
    case MB_INTEGRATOR_TRAPEZOIDAL:
        if (s->mrs) break; /* its size is the degrees of freedom: made at the first restart */
        if (!(s->trap = mb_trap_create(m->nz, o->newton_tol, o->newton_max_iter, err, errlen))) goto fail;
        s->sys.residual = so_residual;
        s->sys.tangent = so_tangent;
        s->sys.ctx = s;
        break;
    }
    /* Evaluate the model once at the start so a broken model fails at create. */
    if (o->integrator == MB_INTEGRATOR_RK4) {
        if ((s->mr || s->bg) && restart(s)) {
            mb_fail(err, errlen, MB_OK, "%s", s->msg);
            goto fail;
        }
        if (ode_rhs(s, s->t, s->y, s->f2, err, errlen)) goto fail;
    } else if (restart(s)) {
        mb_fail(err, errlen, MB_OK, "%s", s->msg);
        goto fail;
    }
    s->msg[0] = '\0';
    return s;
nomem:
    mb_fail(err, errlen, MB_ERR_ALLOC, "mb_sim_create: out of memory (model %s, nz = %d)",
            m->name ? m->name : "?", m->nz);
fail:
    mb_sim_free(s);
    return NULL;
}

/* ---- setting ---- */
static int check_finite(mb_sim *s, const double *v, int n, const char *what, const char *const *names) {
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return mb_fail(s->msg, sizeof s->msg, MB_ERR_ARG, "%s %d (%s) is %g; values must be finite", what, i,
                           names && names[i] ? names[i] : "?", v[i]);
    return MB_OK;
}

int mb_sim_set_state(mb_sim *s, double t, const double *z, const double *zd) {
    int rc;
    if (!z) return mb_fail(s->msg, sizeof s->msg, MB_ERR_ARG, "mb_sim_set_state: z is NULL");
    if (!isfinite(t)) return mb_fail(s->msg, sizeof s->msg, MB_ERR_ARG, "mb_sim_set_state: time %g", t);
    if ((rc = check_finite(s, z, s->nz, "coordinate", s->m->z_names))) return rc;
    if (zd && (rc = check_finite(s, zd, s->nz, "velocity", s->m->z_names))) return rc;
    s->t = t;
    for (int i = 0; i < s->nz; ++i) {
        s->y[i] = z[i];
        s->y[s->nz + i] = zd ? zd[i] : 0;
    }
    s->need_reset = 1;
    return MB_OK;
}

int mb_sim_set_params(mb_sim *s, const double *p) {
    int rc;
    if (s->m->np == 0) return MB_OK;
    if (!p) return mb_fail(s->msg, sizeof s->msg, MB_ERR_ARG, "mb_sim_set_params: p is NULL");
    if ((rc = check_finite(s, p, s->m->np, "parameter", s->m->p_names))) return rc;
    memcpy(s->p, p, (size_t)s->m->np * sizeof(double));
    s->need_reset = 1;
    return MB_OK;
}

int mb_sim_set_param(mb_sim *s, const char *name, double value) {
    for (int i = 0; i < s->m->np; ++i)
        if (name && s->m->p_names && s->m->p_names[i] && strcmp(name, s->m->p_names[i]) == 0) {
            memcpy(s->ptmp, s->p, (size_t)s->m->np * sizeof(double));
            s->ptmp[i] = value;
            return mb_sim_set_params(s, s->ptmp);
        }
    /* List the names so the user sees the choices. */
    char list[MB_ERRLEN / 2] = "";
    size_t len = 0;
    for (int i = 0; i < s->m->np && s->m->p_names && len + 2 < sizeof list; ++i)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", s->m->p_names[i]);
    return mb_fail(s->msg, sizeof s->msg, MB_ERR_ARG, "model %s has no design parameter \"%s\" (it has: %s)",
                   s->m->name ? s->m->name : "?", name ? name : "(null)", s->m->np ? list : "none");
}

int mb_sim_set_inputs(mb_sim *s, const double *u) {
    int rc;
    if (s->m->nu == 0) return MB_OK;
    if (!u) return mb_fail(s->msg, sizeof s->msg, MB_ERR_ARG, "mb_sim_set_inputs: u is NULL");
    if ((rc = check_finite(s, u, s->m->nu, "input", s->m->u_names))) return rc;
    memcpy(s->u, u, (size_t)s->m->nu * sizeof(double));
    s->need_reset = 1;
    return MB_OK;
}

/* ---- stepping ---- */
static const char *zname(const mb_sim *s, int i) {
    return s->m->z_names && s->m->z_names[i] ? s->m->z_names[i] : "?";
}

/* Names the coordinate behind an integrator's failure, which the integrator (knowing no mechanics) gives
 * as a component: the largest error estimate of dopri5 in y = [z; zd], the largest Newton correction of
 * the trapezoidal rule in zdd. */
static int name_worst(mb_sim *s, int rc) {
    int i = -1;
    const char *what = "", *array = "";
    if (s->dp && rc == MB_ERR_STEP_UNDERFLOW) {
        i = mb_dopri5_worst(s->dp);
        what = "error estimate";
        array = i < s->nz ? "z" : "zd";
        i %= s->nz;
    } else if (s->trap && rc == MB_ERR_NEWTON) {
        i = mb_trap_worst(s->trap);
        if (s->mrs) i = mb_mrs_coordinate(s->mrs, i); /* a reduced unknown: its coordinate */
        what = "correction";
        array = "zdd";
    }
    if (i < 0 || i >= s->nz) return rc;
    size_t len = strlen(s->msg);
    if (len + 1 < sizeof s->msg)
        snprintf(s->msg + len, sizeof s->msg - len, "; largest %s in %s[%d] (%s)", what, array, i, zname(s, i));
    return rc;
}

int mb_sim_assemble(mb_sim *s) {
    return s->need_reset ? restart(s) : MB_OK;
}

/* The n equal steps of at most the option's step that reach t_out, and their size; MB_ERR_MAX_STEPS beyond
 * max_steps. For the closed loops' fixed-step rules, which go one step at a time. */
static int fixed_steps(mb_sim *s, double t_out, long *n, double *h) {
    *n = mb_fixed_step_count(s->t, t_out, s->o.step);
    if (s->o.max_steps > 0 && *n > s->o.max_steps)
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_MAX_STEPS,
                       "reaching t = %g takes %ld steps of %g, more than max_steps = %ld", t_out, *n, s->o.step,
                       s->o.max_steps);
    *h = (t_out - s->t) / (double)*n;
    return MB_OK;
}

int mb_sim_step(mb_sim *s, double t_out) {
    int rc = MB_OK;
    if (!isfinite(t_out) || t_out < s->t)
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_ARG, "mb_sim_step: t_out = %g is before the current time %.10g",
                       t_out, s->t);
    if (t_out == s->t) return MB_OK;
    if (s->need_reset && (rc = restart(s))) return rc;
    if (s->al3) {
        rc = mb_al3_advance(s->al3, t_out, s->o.max_steps, s->u, s->p, &s->st, s->msg, sizeof s->msg);
        s->t = mb_al3_time(s->al3);
        memcpy(s->y, mb_al3_z(s->al3), (size_t)s->nz * sizeof(double));
        memcpy(s->y + s->nz, mb_al3_zd(s->al3), (size_t)s->nz * sizeof(double));
        if (rc) s->need_reset = 1;
        return rc;
    }
    long n;
    double t0 = s->t, h;
    if (s->mr && s->o.integrator == MB_INTEGRATOR_RK4) {
        /* One step at a time, recovering the dependent coordinates after each, so the state
         * the integrator carries never drifts from the constraints. */
        if ((rc = fixed_steps(s, t_out, &n, &h))) return rc;
        for (long k = 1; k <= n && rc == MB_OK; ++k) {
            double tk = k == n ? t_out : t0 + k * h;
            rc = mb_rk4_advance(s->rk4, ode_rhs, s, &s->t, s->y, tk, h * (1 + 1e-9), 0, &s->st, s->msg,
                                sizeof s->msg);
            if (rc == MB_OK)
                rc = mb_mr_project(s->mr, s->t, s->y, s->y + s->nz, s->p, s->msg, sizeof s->msg);
        }
        if (rc) s->need_reset = 1;
        return rc;
    }
    if (s->mrs) {
        /* Step by step: after each, the full consistent state from the independent values the rule reached, and the
         * next step's guesses from it; a re-choice of the independent coordinates begins the rule again there. */
        if ((rc = fixed_steps(s, t_out, &n, &h))) return rc;
        for (long k = 1; k <= n && rc == MB_OK; ++k) {
            double tk = k == n ? t_out : t0 + k * h;
            rc = mb_trap_advance(s->trap, &s->sys, tk, h * (1 + 1e-9), 0, &s->st, s->msg, sizeof s->msg);
            if (rc && mb_mrs_rechosen(s->mrs) && (rc = restart(s)) == MB_OK)
                rc = mb_trap_advance(s->trap, &s->sys, tk, h * (1 + 1e-9), 0, &s->st, s->msg, sizeof s->msg);
            if (rc == MB_OK)
                rc = mb_mrs_full(s->mrs, tk, mb_trap_z(s->trap), mb_trap_zd(s->trap), s->y, s->y + s->nz, s->zdd,
                                 s->msg, sizeof s->msg);
            if (rc) break;
            s->t = tk;
            if (mb_mrs_rechosen(s->mrs)) rc = restart(s);
            else mb_mrs_begin(s->mrs, tk, s->y, s->y + s->nz, s->zdd, s->zi, s->zdi);
        }
        if (rc) s->need_reset = 1;
        return name_worst(s, rc);
    }
    switch (s->o.integrator) {
    case MB_INTEGRATOR_RK4:
        /* rk4 updates (t, y) step by step, so a failure leaves the last good step. */
        rc = mb_rk4_advance(s->rk4, ode_rhs, s, &s->t, s->y, t_out, s->o.step, s->o.max_steps, &s->st, s->msg,
                            sizeof s->msg);
        break;
    case MB_INTEGRATOR_DOPRI5:
        /* dopri5 writes y only on success: on failure y keeps the previous output. */
        rc = mb_dopri5_advance(s->dp, ode_rhs, s, t_out, s->y, &s->st, s->msg, sizeof s->msg);
        if (rc == MB_OK) s->t = t_out;
        /* The output's dependent entries come from dense output: recover them exactly. The
         * integrator's own state needs no projection, since the right-hand side recovers them. */
        if (rc == MB_OK && s->mr) rc = mb_mr_project(s->mr, s->t, s->y, s->y + s->nz, s->p, s->msg, sizeof s->msg);
        break;
    case MB_INTEGRATOR_TRAPEZOIDAL:
        rc = mb_trap_advance(s->trap, &s->sys, t_out, s->o.step, s->o.max_steps, &s->st, s->msg, sizeof s->msg);
        s->t = mb_trap_time(s->trap);
        memcpy(s->y, mb_trap_z(s->trap), (size_t)s->nz * sizeof(double));
        memcpy(s->y + s->nz, mb_trap_zd(s->trap), (size_t)s->nz * sizeof(double));
        break;
    }
    /* Baumgarte's violation at the output state too (the last step's end, dopri5's outputs). */
    if (rc == MB_OK && s->bg) rc = mb_bg_record(s->bg, s->t, s->y, s->y + s->nz, s->p, s->msg, sizeof s->msg);
    if (rc) s->need_reset = 1;
    return name_worst(s, rc);
}

/* ---- reading ---- */
double mb_sim_t(const mb_sim *s) { return s->t; }
const double *mb_sim_z(const mb_sim *s) { return s->y; }
const double *mb_sim_zd(const mb_sim *s) { return s->y + s->nz; }
const double *mb_sim_params(const mb_sim *s) { return s->p; }
const double *mb_sim_inputs(const mb_sim *s) { return s->u; }
const mb_model *mb_sim_model(const mb_sim *s) { return s->m; }
const mb_sim_options *mb_sim_get_options(const mb_sim *s) { return &s->o; }
void mb_sim_stats(const mb_sim *s, mb_stats *out) { *out = s->st; }
const char *mb_sim_errmsg(const mb_sim *s) { return s->msg; }

int mb_sim_energy(mb_sim *s, double *kinetic, double *potential) {
    if (!s->m->energy)
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_MODEL, "model %s has no energy function",
                       s->m->name ? s->m->name : "?");
    mb_args a = {s->t, s->y, s->y + s->nz, NULL, s->u, s->p, NULL};
    s->m->energy(&a, s->e2, s->work);
    if (!isfinite(s->e2[0]) || !isfinite(s->e2[1]))
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_NAN, "energy is (%g, %g) at t = %.10g", s->e2[0], s->e2[1],
                       s->t);
    if (kinetic) *kinetic = s->e2[0];
    if (potential) *potential = s->e2[1];
    return MB_OK;
}

int mb_sim_power_nc(mb_sim *s, double *q_nc, double *power) {
    if (!s->m->forces_nc)
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_MODEL, "model %s has no forces_nc function",
                       s->m->name ? s->m->name : "?");
    mb_args a = {s->t, s->y, s->y + s->nz, NULL, s->u, s->p, NULL};
    s->m->forces_nc(&a, q_nc, s->work);
    double P = 0;
    for (int i = 0; i < s->nz; ++i) P += s->y[s->nz + i] * q_nc[i];
    if (!isfinite(P))
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_NAN, "power of the non-conservative forces is %g at t = %.10g", P,
                       s->t);
    *power = P;
    return MB_OK;
}

int mb_sim_points(mb_sim *s, double *xyz) {
    if (!s->m->points || s->m->npt < 1)
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_MODEL, "model %s has no points", s->m->name ? s->m->name : "?");
    mb_args a = {s->t, s->y, s->y + s->nz, NULL, s->u, s->p, NULL};
    s->m->points(&a, xyz, s->work);
    for (int i = 0; i < 3 * s->m->npt; ++i)
        if (!isfinite(xyz[i]))
            return mb_fail(s->msg, sizeof s->msg, MB_ERR_NAN, "point %s coordinate %d is %g at t = %.10g",
                           s->m->point_names ? s->m->point_names[i / 3] : "?", i % 3, xyz[i], s->t);
    return MB_OK;
}

int mb_sim_tyres(mb_sim *s, double *out) {
    const mb_model *m = s->m;
    if (!m->tyres || m->ntyre < 1)
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_MODEL, "model %s has no tyres", m->name ? m->name : "?");
    mb_args a = {s->t, s->y, s->y + s->nz, NULL, s->u, s->p, NULL};
    m->tyres(&a, out, s->work);
    for (int i = 0; i < MB_TYRE_OUTPUTS * m->ntyre; ++i)
        if (!isfinite(out[i]))
            return mb_fail(s->msg, sizeof s->msg, MB_ERR_NAN, "tyre %s output %d is %g at t = %.10g",
                           m->tyre_names ? m->tyre_names[i / MB_TYRE_OUTPUTS] : "?", i % MB_TYRE_OUTPUTS, out[i], s->t);
    return MB_OK;
}

const mb_al3 *mb_sim_al3(const mb_sim *s) { return s->al3; }

/* zdd at the current state of a closed loop, from its formulation (Matrix R: in s->f2). */
static int loop_zdd(mb_sim *s, const double **zdd) {
    if (s->al3) {
        *zdd = mb_al3_zdd(s->al3);
        return MB_OK;
    }
    int rc = s->bg ? mb_bg_rhs(s->bg, s->t, s->y, s->u, s->p, s->f2, s->msg, sizeof s->msg)
                   : mb_mr_rhs(s->mr, s->t, s->y, s->u, s->p, s->f2, s->msg, sizeof s->msg);
    *zdd = s->f2 + s->nz;
    return rc;
}

/* Ideal constraints do work only through Phi_t: zd . (-Phi_z' lambda) = Phi_t . lambda when Phi_z zd = -Phi_t.
 * lambda is taken from the constraint force r = M zdd - Q by least squares (Phi_z' lambda = -r), which also
 * drops the part of r that al3's projections leave outside the range of Phi_z'. */
int mb_sim_power_constraints(mb_sim *s, double *r, double *power) {
    const mb_model *m = s->m;
    int nz = s->nz, nc = m->nc, rc, rank;
    *power = 0;
    if (nc == 0 || (!s->mr && !s->al3 && !s->bg)) return MB_OK;
    if (!m->inverse_dynamics || !m->constraints_dz || !m->constraints_dt)
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_MODEL,
                       "model %s lacks inverse_dynamics, constraints_dz or constraints_dt, needed for the constraint power",
                       m->name ? m->name : "?");
    mb_args a = {s->t, s->y, s->y + nz, NULL, s->u, s->p, NULL};
    if ((rc = mb_fn_status(m, m->constraints_dt(&a, s->ct, s->work), "constraints_dt", s->t, s->msg, sizeof s->msg)))
        return rc;
    double tmax = 0;
    for (int i = 0; i < nc; ++i) tmax = fmax(tmax, fabs(s->ct[i]));
    if (tmax == 0) return MB_OK; /* scleronomic: the constraint forces do no work */
    const double *zdd;
    if ((rc = loop_zdd(s, &zdd))) return rc;
    a.zdd = zdd;
    if ((rc = mb_fn_status(m, m->inverse_dynamics(&a, r, s->work), "inverse_dynamics", s->t, s->msg, sizeof s->msg)))
        return rc;
    if (s->mr) {
        /* Matrix R's r is in the range of Phi_z' (R' r = 0): its dependent rows determine lambda, by the factors the
         * kinematic solves keep. */
        if ((rc = mb_kin_multipliers(mb_mr_kin(s->mr), s->t, s->y, s->p, r, s->cb, s->msg, sizeof s->msg))) return rc;
    } else {
        if ((rc = mb_fn_status(m, m->constraints_dz(&a, s->cz, s->work), "constraints_dz", s->t, s->msg,
                               sizeof s->msg)))
            return rc;
        double *at = s->cz + (size_t)nc * nz; /* Phi_z', nz x nc */
        for (int i = 0; i < nc; ++i)
            for (int j = 0; j < nz; ++j) at[j + (size_t)i * nz] = s->cz[i + (size_t)j * nc];
        for (int j = 0; j < nz; ++j) s->cb[j] = -r[j];
        if ((rc = mb_lstsq(s->cla, nz, nc, 1, at, s->cb, 1e-9, &rank, s->msg, sizeof s->msg))) return rc;
    }
    double P = 0;
    for (int i = 0; i < nc; ++i) P += s->ct[i] * s->cb[i];
    if (!isfinite(P))
        return mb_fail(s->msg, sizeof s->msg, MB_ERR_NAN, "power of the constraint forces is %g at t = %.10g", P, s->t);
    *power = P;
    return MB_OK;
}

static mb_kin *sim_kin(const mb_sim *s) {
    return s->mr ? mb_mr_kin(s->mr) : s->al3 ? mb_al3_kin(s->al3) : s->bg ? mb_bg_kin(s->bg) : NULL;
}

int mb_sim_dof(const mb_sim *s) {
    mb_kin *k = sim_kin(s);
    return k ? mb_kin_dof(k) : s->nz;
}

long mb_sim_reselections(const mb_sim *s) {
    mb_kin *k = sim_kin(s);
    return k ? mb_kin_reselections(k) : 0;
}

long mb_sim_factorizations(const mb_sim *s) {
    mb_kin *k = sim_kin(s);
    return k ? mb_kin_factorizations(k) : 0;
}

long mb_sim_generated_factorizations(const mb_sim *s) {
    mb_kin *k = sim_kin(s);
    return k ? mb_kin_generated_factorizations(k) : 0;
}

long mb_sim_paired_factorizations(const mb_sim *s) {
    mb_kin *k = sim_kin(s);
    return k ? mb_kin_paired_factorizations(k) : 0;
}

int mb_sim_blocks(const mb_sim *s, int *rows, int *cols, int max) {
    mb_kin *k = sim_kin(s);
    return k ? mb_kin_blocks(k, rows, cols, max) : 0;
}

const int *mb_sim_independent(const mb_sim *s) {
    mb_kin *k = sim_kin(s);
    return k && mb_kin_dof(k) >= 0 ? mb_kin_independent(k) : NULL;
}

const char *mb_sim_reselection_note(const mb_sim *s, long i) {
    mb_kin *k = sim_kin(s);
    return k ? mb_kin_reselection_note(k, i) : NULL;
}

long mb_sim_position_iters(const mb_sim *s) { return s->mr ? mb_mr_position_iters(s->mr) : 0; }
long mb_sim_generated_reductions(const mb_sim *s, long *evals) {
    if (evals) *evals = 0;
    return s->mr ? mb_mr_generated_evals(s->mr, evals) : 0;
}

long mb_sim_fused_evals(const mb_sim *s, long *accels) {
    if (accels) *accels = 0;
    return s->mr ? mb_mr_fused_evals(s->mr, accels) : 0;
}

int mb_sim_constraint_violation(mb_sim *s, double v[3]) {
    v[0] = v[1] = v[2] = 0;
    mb_kin *k = sim_kin(s);
    if (!k || s->m->nc == 0) return MB_OK;
    const double *zdd;
    int rc;
    if (s->al3) {
        zdd = mb_al3_zdd(s->al3);
    } else {
        /* The acceleration the formulation gives at this state (Matrix R's right-hand side re-assembles it). */
        if ((rc = loop_zdd(s, &zdd))) return rc;
    }
    return mb_kin_violation(k, s->t, s->y, s->y + s->nz, zdd, s->p, v, s->msg, sizeof s->msg);
}
