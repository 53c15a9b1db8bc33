/* integrate_rk4.c: the classical 4th-order Runge-Kutta method with a fixed step, on y' = f(t, y). */
#include <stdlib.h>

#include "integrate.h"

struct mb_rk4 {
    int n;
    double *k1, *k2, *k3, *k4, *ys; /* n each: stages and the stage argument */
    mb_stage_hook *hook;            /* told each stage before its evaluation, 0 after the step (may be NULL) */
    void *hook_ctx;
};

void mb_rk4_set_stage_hook(mb_rk4 *rk, mb_stage_hook *hook, void *ctx) {
    rk->hook = hook;
    rk->hook_ctx = ctx;
}

void mb_rk4_free(mb_rk4 *rk) {
    if (!rk) return;
    free(rk->k1);
    free(rk->k2);
    free(rk->k3);
    free(rk->k4);
    free(rk->ys);
    free(rk);
}

mb_rk4 *mb_rk4_create(int n, char *err, size_t errlen) {
    if (n < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "rk4: system size %d", n);
        return NULL;
    }
    mb_rk4 *rk = calloc(1, sizeof *rk);
    if (rk) {
        rk->n = n;
        rk->k1 = calloc((size_t)n, sizeof(double));
        rk->k2 = calloc((size_t)n, sizeof(double));
        rk->k3 = calloc((size_t)n, sizeof(double));
        rk->k4 = calloc((size_t)n, sizeof(double));
        rk->ys = calloc((size_t)n, sizeof(double));
    }
    if (!rk || !rk->k1 || !rk->k2 || !rk->k3 || !rk->k4 || !rk->ys) {
        mb_rk4_free(rk);
        mb_fail(err, errlen, MB_ERR_ALLOC, "rk4: out of memory (n = %d)", n);
        return NULL;
    }
    return rk;
}

static void stage(mb_rk4 *rk, int s) {
    if (rk->hook) rk->hook(rk->hook_ctx, s);
}

/* The four stages; y is written only after all of them succeeded. */
static int rk4_stages(mb_rk4 *rk, mb_ode_fn *f, void *ctx, double t, double h, double *y, char *err, size_t errlen) {
    int n = rk->n, rc;
    double *k1 = rk->k1, *k2 = rk->k2, *k3 = rk->k3, *ys = rk->ys;
    stage(rk, 1);
    if ((rc = f(ctx, t, y, k1, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) ys[i] = y[i] + 0.5 * h * k1[i];
    stage(rk, 2);
    if ((rc = f(ctx, t + 0.5 * h, ys, k2, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) ys[i] = y[i] + 0.5 * h * k2[i];
    stage(rk, 3);
    if ((rc = f(ctx, t + 0.5 * h, ys, k3, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) ys[i] = y[i] + h * k3[i];
    stage(rk, 4);
    return f(ctx, t + h, ys, rk->k4, err, errlen);
}

static int rk4_step(mb_rk4 *rk, mb_ode_fn *f, void *ctx, double t, double h, double *y, mb_stats *st,
                    char *err, size_t errlen) {
    int n = rk->n;
    double *k1 = rk->k1, *k2 = rk->k2, *k3 = rk->k3, *k4 = rk->k4;
    int rc = rk4_stages(rk, f, ctx, t, h, y, err, errlen);
    stage(rk, 0);
    if (rc) return rc;
    st->rhs_evals += 4;
    for (int i = 0; i < n; ++i) y[i] += h / 6 * (k1[i] + 2 * (k2[i] + k3[i]) + k4[i]);
    return MB_OK;
}

int mb_rk4_advance(mb_rk4 *rk, mb_ode_fn *f, void *ctx, double *t, double *y, double t_out, double h,
                   long max_steps, mb_stats *st, char *err, size_t errlen) {
    double t0 = *t;
    if (!(h > 0) || !isfinite(h)) return mb_fail(err, errlen, MB_ERR_ARG, "rk4: step %g must be positive", h);
    if (!isfinite(t_out) || t_out < t0)
        return mb_fail(err, errlen, MB_ERR_ARG, "rk4: output time %g is before the current time %.10g", t_out, t0);
    if (t_out == t0) return MB_OK;
    long n = mb_fixed_step_count(t0, t_out, h);
    if (max_steps > 0 && n > max_steps)
        return mb_fail(err, errlen, MB_ERR_MAX_STEPS,
                       "rk4: reaching t = %g from t = %g takes %ld steps of %g, more than max_steps = %ld", t_out,
                       t0, n, h, max_steps);
    double he = (t_out - t0) / n;
    for (long k = 0; k < n; ++k) {
        /* Times from t0 + k he, not t += he, so n steps land on t_out exactly. */
        int rc = rk4_step(rk, f, ctx, *t, he, y, st, err, errlen);
        if (rc) return rc;
        *t = k + 1 == n ? t_out : t0 + (k + 1) * he;
        st->steps++;
    }
    return MB_OK;
}
