/* sens_optimize.c: the optimization example: tune the quarter car's spring and damper by BFGS on DDM gradients. */
#include <string.h>

#include "quarter_car.c"
#include "sens.h"
#include "tap.h"

/* Minimizes psi(ks, cs) of models/quarter_car.lua ("comfort") over x = log(p), so both parameters have
 * the same scale: BFGS with an Armijo backtracking line search, gradients dpsi/dx = p dpsi/dp from the
 * DDM (rk4, h = 1e-3, 2 s). Stops when max|dpsi/dx| <= 1e-6 psi. Documented result (README,
 * "Sensitivity analysis"): converges in ITER_DOC iterations or fewer from ks = 20000, cs = 1500. */
#define ITER_DOC 15

static const mb_model *M_ = &quarter_car_model;
static long evals = 0;

static int eval(const double x[2], double *psi, double gx[2]) {
    double p[2] = {exp(x[0]), exp(x[1])}, g[2];
    mb_sens_problem pr;
    mb_sens_problem_default(&pr, M_);
    pr.p = p;
    mb_sens_options o;
    mb_sens_options_default(&o, M_);
    char err[MB_ERRLEN];
    int rc = mb_sens_run(&pr, &o, psi, g, NULL, err, sizeof err);
    if (rc) diag("%s", err);
    gx[0] = p[0] * g[0];
    gx[1] = p[1] * g[1];
    ++evals;
    return rc;
}

int main(void) {
    /* p in byte order: cs, ks. */
    ok(!strcmp(M_->p_names[0], "cs") && !strcmp(M_->p_names[1], "ks"), "design parameters cs, ks");
    double x[2] = {log(M_->p_default[0]), log(M_->p_default[1])}, f, g[2];
    double H[4] = {1e-2, 0, 0, 1e-2}; /* inverse Hessian estimate, column-major */
    int rc = eval(x, &f, g);
    is_int(rc, MB_OK, "psi and gradient at the start");
    double f0 = f;
    int it, monotone = 1, converged = 0;
    for (it = 0; it < 100; ++it) {
        if (fmax(fabs(g[0]), fabs(g[1])) <= 1e-6 * f) {
            converged = 1;
            break;
        }
        double d[2] = {-(H[0] * g[0] + H[2] * g[1]), -(H[1] * g[0] + H[3] * g[1])};
        double slope = d[0] * g[0] + d[1] * g[1];
        if (slope >= 0) { /* not a descent direction: restart from steepest descent */
            H[0] = H[3] = 1e-2, H[1] = H[2] = 0;
            d[0] = -1e-2 * g[0], d[1] = -1e-2 * g[1];
            slope = d[0] * g[0] + d[1] * g[1];
        }
        double a = 1, xn[2], fn, gn[2];
        for (int ls = 0; ls < 40; ++ls, a *= 0.5) {
            xn[0] = x[0] + a * d[0], xn[1] = x[1] + a * d[1];
            if (eval(xn, &fn, gn) == MB_OK && fn <= f + 1e-4 * a * slope) break;
        }
        if (fn > f) monotone = 0;
        double s[2] = {xn[0] - x[0], xn[1] - x[1]}, y[2] = {gn[0] - g[0], gn[1] - g[1]};
        double sy = s[0] * y[0] + s[1] * y[1];
        if (sy > 1e-12) { /* BFGS update of the inverse Hessian */
            double Hy[2] = {H[0] * y[0] + H[2] * y[1], H[1] * y[0] + H[3] * y[1]};
            double yHy = y[0] * Hy[0] + y[1] * Hy[1];
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j)
                    H[i + 2 * j] += (sy + yHy) * s[i] * s[j] / (sy * sy) - (Hy[i] * s[j] + s[i] * Hy[j]) / sy;
        }
        x[0] = xn[0], x[1] = xn[1], f = fn, g[0] = gn[0], g[1] = gn[1];
    }
    diag("optimum cs = %.6g, ks = %.6g, psi %.6g -> %.6g, %d iterations, %ld evaluations", exp(x[0]), exp(x[1]), f0,
         f, it, evals);
    ok(converged, "BFGS converged: max|dpsi/dlog p| <= 1e-6 psi");
    ok(it <= ITER_DOC, "in %d iterations (documented: at most %d)", it, ITER_DOC);
    ok(monotone && f < 0.9 * f0, "psi decreased monotonically, by more than 10%% (%.6g -> %.6g)", f0, f);
    /* A minimum, checked without gradients: psi alone at +-2% around the optimum is not lower. */
    int lowest = 1;
    for (int k = 0; k < 4; ++k) {
        double xp[2] = {x[0], x[1]}, fp, gp[2];
        xp[k / 2] += (k % 2 ? -1 : 1) * 0.02;
        eval(xp, &fp, gp);
        if (fp < f) lowest = 0;
    }
    ok(lowest, "psi at +-2%% in cs and in ks is not below the optimum");
    ok(exp(x[0]) > 100 && exp(x[0]) < 1e5 && exp(x[1]) > 100 && exp(x[1]) < 1e6, "the optimum is inside the box");
    return done_testing();
}
