/* rt_rod_history.c: the rods' acceleration history (seeds/002.md §2.4-2.5, tests T5 and T6): the Lagrange weights
 * at c = 1/2 and c = 1, exact reproduction of constant, linear and quadratic histories, start-up and reset, and
 * RK4's stage hook, through which only first stages enter the history. */
#include <math.h>
#include <string.h>

#include "integrate.h"
#include "rod_history.h"
#include "tap.h"

static double poly(int degree, double t) { return degree == 0 ? 2.5 : degree == 1 ? 2.5 - 3 * t : 2.5 - 3 * t + 7 * t * t; }

/* A toy ODE whose stage hook records the stage and whose right-hand side pushes its value into a history at the
 * first stage only, as Matrix R does; `noise` perturbs stages 2-4. */
typedef struct {
    mb_rod_history h;
    int stage;
    double noise;
    int first_calls, other_calls;
} toy;

static void toy_stage(void *ctx, int stage) { ((toy *)ctx)->stage = stage; }

static int toy_rhs(void *ctx, double t, const double *y, double *f, char *err, size_t errlen) {
    (void)err, (void)errlen;
    toy *c = ctx;
    f[0] = -y[0] + (c->stage > 1 ? c->noise : 0);
    if (c->stage == 1) {
        double a = f[0] + t;   /* what a first stage keeps: its value at an accepted point */
        mb_rod_history_push(&c->h, t, &a);
        c->first_calls++;
    } else {
        c->other_calls++;
    }
    return MB_OK;
}

int main(void) {
    double w[3];
    double ts[3] = {0.0, -1.0, -2.0};   /* samples newest first, spacing 1 */
    mb_rod_weights(ts, 3, 0.5, w);
    is_double(w[0], 15.0 / 8, 1e-15, 0, "quadratic weight 1 at c = 1/2 is 15/8 (T6)");
    is_double(w[1], -5.0 / 4, 1e-15, 0, "quadratic weight 2 at c = 1/2 is -5/4");
    is_double(w[2], 3.0 / 8, 1e-15, 0, "quadratic weight 3 at c = 1/2 is 3/8");
    mb_rod_weights(ts, 3, 1.0, w);
    ok(w[0] == 3 && w[1] == -3 && w[2] == 1, "quadratic weights at c = 1 are 3, -3, 1 (the paper's eq. 39)");
    mb_rod_weights(ts, 2, 0.5, w);
    ok(w[0] == 1.5 && w[1] == -0.5, "linear weights at c = 1/2 are 1.5, -0.5");
    mb_rod_weights(ts, 2, 1.0, w);
    ok(w[0] == 2 && w[1] == -1, "linear weights at c = 1 are 2, -1 (eq. 36)");
    mb_rod_weights(ts, 1, 0.5, w);
    ok(w[0] == 1, "point weight is 1 (eq. 33)");

    /* T5: histories of degree 0, 1, 2 are extrapolated exactly by the formulas of that degree or higher, at a
     * half step and a whole step, also with the uneven spacing of a shortened last step. */
    char err[MB_ERRLEN];
    mb_rod_history h;
    if (mb_rod_history_init(&h, 1, err, sizeof err)) return diag("%s", err), 1;
    const double times[4] = {0.0, 0.1, 0.2, 0.28};
    for (int degree = 0; degree <= 2; ++degree)
        for (int order = degree + 1; order <= 3; ++order) {
            mb_rod_history_reset(&h);
            for (int k = 0; k < 4; ++k) {
                double a = poly(degree, times[k]);
                mb_rod_history_push(&h, times[k], &a);
            }
            double worst = 0, out;
            for (int k = 0; k < 2; ++k) {
                double t = 0.28 + (k ? 0.1 : 0.05);
                int used = mb_rod_history_extrapolate(&h, order, t, &out);
                if (used != order) worst = INFINITY;
                worst = fmax(worst, fabs(out - poly(degree, t)) / fabs(poly(degree, t)));
            }
            ok(worst < 1e-13, "a degree-%d history is extrapolated exactly by order %d (relative error %.1e)", degree,
               order, worst);
        }
    mb_rod_history_reset(&h);
    double out = 0;
    is_int(mb_rod_history_extrapolate(&h, 3, 1.0, &out), 0, "no history: nothing is extrapolated (the evaluation is exact)");
    double a = 1;
    mb_rod_history_push(&h, 0.0, &a);
    is_int(mb_rod_history_extrapolate(&h, 3, 1.0, &out), 1, "one sample: at most the point formula");
    a = 5;
    mb_rod_history_push(&h, 0.0, &a);
    ok(h.count == 1 && h.a[0][0] == 5, "a sample at the time of the newest replaces it (a first stage evaluated again)");
    for (int k = 1; k <= 5; ++k) {
        a = k;
        mb_rod_history_push(&h, k, &a);
    }
    ok(h.count == 3 && h.t[0] == 5 && h.t[1] == 4 && h.t[2] == 3, "the history keeps the three newest samples");
    mb_rod_history_reset(&h);
    is_int(h.count, 0, "reset forgets every sample (after a discontinuity)");
    mb_rod_history_free(&h);

    /* T6: only k1 enters the history, and what stages 2-4 compute does not change it. */
    double hist[2][8];
    for (int run = 0; run < 2; ++run) {
        toy c;
        memset(&c, 0, sizeof c);
        if (mb_rod_history_init(&c.h, 1, err, sizeof err)) return diag("%s", err), 1;
        c.noise = run ? 1e3 : 0;
        mb_rk4 *rk = mb_rk4_create(1, err, sizeof err);
        mb_rk4_set_stage_hook(rk, toy_stage, &c);
        double t = 0, y = 1;
        mb_stats st = {0};
        for (int k = 1; k <= 4; ++k) {
            mb_rk4_advance(rk, toy_rhs, &c, &t, &y, 0.1 * k, 0.1, 0, &st, err, sizeof err);
            hist[run][2 * (k - 1)] = c.h.t[0];
            hist[run][2 * (k - 1) + 1] = c.h.a[0][0];
        }
        if (!run) {
            ok(c.first_calls == 4 && c.other_calls == 12, "4 steps: 4 first stages, 12 others (%d, %d)", c.first_calls,
               c.other_calls);
            ok(c.h.count == 3 && fabs(c.h.t[0] - 0.3) < 1e-15 && fabs(c.h.t[1] - 0.2) < 1e-15,
               "the history holds the first stages at the accepted points 0.3, 0.2, 0.1");
            is_int(c.stage, 0, "after a step the hook says 0: evaluations outside a step never enter the history");
        }
        mb_rk4_free(rk);
        mb_rod_history_free(&c.h);
    }
    ok(hist[0][0] == hist[1][0] && hist[0][1] == hist[1][1],
       "the first step's history entry is the same whatever stages 2-4 compute");
    ok(hist[0][3] != hist[1][3], "(later entries differ only through the states the perturbed stages produced)");

    /* Snapshots (the adjoint's replays): saved, changed, loaded back, the history extrapolates as before. */
    {
        mb_rod_history h;
        if (mb_rod_history_init(&h, 2, err, sizeof err)) return diag("%s", err), 1;
        double a0[2] = {1, -1}, a1[2] = {2, 0.5}, a2[2] = {4, 3}, later[2] = {9, 9}, before[2], after[2];
        mb_rod_history_push(&h, 0.0, a0);
        mb_rod_history_push(&h, 0.1, a1);
        double snap[MB_ROD_HISTORY_SNAPSHOT(2)];
        mb_rod_history_save(&h, snap);
        mb_rod_history_extrapolate(&h, 3, 0.15, before);
        mb_rod_history_push(&h, 0.2, a2);
        mb_rod_history_push(&h, 0.3, later);
        mb_rod_history_load(&h, snap);
        is_int(h.count, 2, "a loaded snapshot has its two samples back");
        mb_rod_history_extrapolate(&h, 3, 0.15, after);
        ok(before[0] == after[0] && before[1] == after[1], "and extrapolates exactly as before it was saved");
        mb_rod_history_push(&h, 0.2, a2);
        ok(h.count == 3 && h.t[0] == 0.2 && h.a[0][0] == 4 && h.t[2] == 0.0 && h.a[2][1] == -1,
           "and takes new samples in order after the load");
        mb_rod_history_free(&h);
    }
    return done_testing();
}
