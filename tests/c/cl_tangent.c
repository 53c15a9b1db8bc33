/* cl_tangent.c: al3 with the exact tangent against the approximate tangent of seeds/003.md eq. (20) over the
 * same 1 s runs of the generated closed-loop models. Measured: both take 2.1-2.3 iterations per step and the
 * exact one up to 3 % more. The count is set by the multiplier update lambda += alpha Phi, a fixed-point
 * iteration that converges linearly whatever the tangent, not by Newton's rate; the test holds the exact
 * tangent to within 5 % of the approximate one and both runs to the method's O(h^2) agreement. */
#include <math.h>
#include <string.h>

#include "sim.h"
#include "tap.h"

#include "fourbar_planar.c"
#include "fourbar_spatial.c"
#include "quick_return.c"
#include "slider_crank.c"

int main(void) {
    const mb_model *models[] = { &fourbar_planar_model, &fourbar_spatial_model, &quick_return_model, &slider_crank_model };
    for (size_t k = 0; k < sizeof models / sizeof *models; ++k) {
        const mb_model *m = models[k];
        long iters[3] = { -1, -1, -1 };
        double z[3][64];
        for (int a = 0; a < 3; ++a) {   /* exact, approximate (eq. 20), exact by central differences */
            char err[MB_ERRLEN] = "";
            mb_sim_options o;
            mb_sim_options_default(&o, m);
            o.formulation = MB_FORMULATION_AL3;
            o.step = 1e-3;
            o.al3.approx_tangent = a == 1;
            o.al3.fd_tangent = a == 2;
            mb_sim *s = mb_sim_create(m, &o, err, sizeof err);
            if (!s) {
                diag("%s: %s", m->name, err);
                continue;
            }
            if (mb_sim_step(s, 1.0)) diag("%s: %s", m->name, mb_sim_errmsg(s));
            mb_stats st;
            mb_sim_stats(s, &st);
            iters[a] = st.newton_iters;
            for (int i = 0; i < m->nz && i < 64; ++i) z[a][i] = mb_sim_z(s)[i];
            mb_sim_free(s);
        }
        ok(iters[0] > 0 && iters[1] > 0 && iters[0] <= 1.05 * iters[1],
           "%s: exact tangent %ld Newton iterations over 1000 steps, approximate %ld", m->name, iters[0], iters[1]);
        double d = 0;
        for (int i = 0; i < m->nz && i < 64; ++i) d = fmax(d, fabs(z[0][i] - z[1][i]));
        /* The approximate tangent's projections leave out the constraint curvature: an O(h^2) difference. */
        ok(d < 1e-4, "%s: both tangents reach the same state at t = 1 to O(h^2) (difference %.2g)", m->name, d);
        double dfd = 0;
        for (int i = 0; i < m->nz && i < 64; ++i) dfd = fmax(dfd, fabs(z[0][i] - z[2][i]));
        ok(iters[2] == iters[0] && dfd < 1e-8,
           "%s: the tangent by central differences takes the same %ld iterations and reaches the same state (%.2g)",
           m->name, iters[2], dfd);
    }
    return done_testing();
}
