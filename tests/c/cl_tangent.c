/* cl_tangent.c: issue 7's acceptance item: al3 with the exact tangent needs no more Newton iterations than with
 * the approximate tangent of seeds/003.md eq. (20) over the same run, on every generated closed-loop model, with
 * the options a user gets (mb_sim_options_default; only the formulation and the tangent chosen). Two runs each:
 * 1 s at h = 1 ms (the step of mb_sim's defaults and of most models' simulate elements), and the model's own
 * simulate element where that picks al3 (fourbar_spatial, fourbar_grid: h = 10 ms over 5 s). Also: both tangents
 * reach the same state to O(h^2), and the tangent by central differences takes the same iterations to the same
 * state. Measured at h = 1 ms: 2.00 iterations per step exact, 2.00-2.05 approximate. */
#include <math.h>
#include <string.h>

#include "sim.h"
#include "tap.h"

#include "fivebar.c"
#include "fourbar_grid.c"
#include "fourbar_planar.c"
#include "fourbar_spatial.c"
#include "quick_return.c"
#include "slider_crank.c"

enum { EXACT, APPROX, FD };

/* One run of m with the default options, al3 and the given tangent; step <= 0: the model's own step and t_end.
 * Returns the Newton iterations (-1 on failure) and the final z in z (nz). */
static long run(const mb_model *m, int tangent, double step, double t_end, double *z) {
    char err[MB_ERRLEN] = "";
    mb_sim_options o;
    mb_sim_options_default(&o, m);
    o.formulation = MB_FORMULATION_AL3;
    if (step > 0) o.step = step;
    o.al3.approx_tangent = tangent == APPROX;
    o.al3.fd_tangent = tangent == FD;
    mb_sim *s = mb_sim_create(m, &o, err, sizeof err);
    if (!s) {
        diag("%s: %s", m->name, err);
        return -1;
    }
    long iters = -1;
    if (mb_sim_step(s, step > 0 ? t_end : m->simulate.t_end)) {
        diag("%s: %s", m->name, mb_sim_errmsg(s));
    } else {
        mb_stats st;
        mb_sim_stats(s, &st);
        iters = st.newton_iters;
        memcpy(z, mb_sim_z(s), (size_t)m->nz * sizeof(double));
    }
    mb_sim_free(s);
    return iters;
}

static double zdiff(int n, const double *a, const double *b) {
    double d = 0;
    for (int i = 0; i < n; ++i) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

int main(void) {
    const mb_model *models[] = { &fourbar_planar_model, &slider_crank_model, &fourbar_spatial_model,
                                 &quick_return_model, &fivebar_model, &fourbar_grid_model };
    double z[3][64];
    for (size_t k = 0; k < sizeof models / sizeof *models; ++k) {
        const mb_model *m = models[k];
        if (m->nz > 64) {
            ok(0, "%s: nz = %d, more than the test holds", m->name, m->nz);
            continue;
        }
        long it[3];
        for (int a = EXACT; a <= FD; ++a) it[a] = run(m, a, 1e-3, 1.0, z[a]);
        ok(it[EXACT] > 0 && it[APPROX] > 0 && it[EXACT] <= it[APPROX],
           "%s, h = 1 ms, 1 s: exact tangent %ld Newton iterations (%.3f per step) <= eq. (20) %ld (%.3f)", m->name,
           it[EXACT], it[EXACT] / 1000.0, it[APPROX], it[APPROX] / 1000.0);
        /* The approximate tangent's projections leave out the constraint curvature: an O(h^2) difference. */
        double d = zdiff(m->nz, z[EXACT], z[APPROX]);
        ok(it[EXACT] > 0 && it[APPROX] > 0 && d < 1e-4,
           "%s: both tangents reach the same state at t = 1 to O(h^2) (difference %.2g)", m->name, d);
        double dfd = zdiff(m->nz, z[EXACT], z[FD]);
        ok(it[FD] > 0 && it[FD] == it[EXACT] && dfd < 1e-8,
           "%s: the tangent by central differences takes the same %ld iterations and reaches the same state (%.2g)",
           m->name, it[FD], dfd);
        if (!m->simulate.formulation || strcmp(m->simulate.formulation, "al3")) continue;
        for (int a = EXACT; a <= APPROX; ++a) it[a] = run(m, a, 0, 0, z[a]);
        ok(it[EXACT] > 0 && it[APPROX] > 0 && it[EXACT] <= it[APPROX],
           "%s, its own run (h = %g, %g s): exact tangent %ld Newton iterations <= eq. (20) %ld", m->name,
           m->simulate.step, m->simulate.t_end, it[EXACT], it[APPROX]);
    }
    return done_testing();
}
