/* cl_baumgarte.c: the multiplier form with Baumgarte's stabilisation on the quick-return mechanism (seeds/001.md
 * §7 and §11.3, tests T7 and T8): zdd and lambda at t = 0, RK4 with a = b = 10 against the digest's states, drift and
 * energy; and the drift it stabilises. */
#include <math.h>
#include <string.h>

#include "generated/quick_return.c"
#include "sim.h"
#include "tap.h"

static const double ZDD0[5] = {-3.1243834149, -12.1852520194, -114.5194507338, 6.6272515506, -3.5028681358};
/* Rows D_x, D_y, ram rotation, ram normal of the digest, +Phi_z' lambda on the left. */
static const double LAMBDA0[4] = {3.5809585372, -2.9442694309, 0.0, 31.4124412371};

/* Runs RK4 at step h to each output time with a = b = ab, recording the largest energy error at every step. */
static mb_sim *run(double h, double ab, double t_end, double *de) {
    char err[MB_ERRLEN];
    mb_sim_options o;
    mb_sim_options_default(&o, &quick_return_model);
    o.formulation = MB_FORMULATION_BAUMGARTE;
    o.integrator = MB_INTEGRATOR_RK4;
    o.step = h;
    o.baumgarte_a = o.baumgarte_b = ab;
    mb_sim *s = mb_sim_create(&quick_return_model, &o, err, sizeof err);
    if (!s) {
        diag("%s", err);
        return NULL;
    }
    double T, V, E0;
    mb_sim_energy(s, &T, &V);
    E0 = T + V;
    *de = 0;
    long n = lround(t_end / h);
    for (long k = 1; k <= n; ++k) {
        if (mb_sim_step(s, k * h)) {
            diag("%s", mb_sim_errmsg(s));
            break;
        }
        mb_sim_energy(s, &T, &V);
        *de = fmax(*de, fabs(T + V - E0));
    }
    return s;
}

int main(void) {
    char err[MB_ERRLEN];
    mb_bg *bg = mb_bg_create(&quick_return_model, 10, 10, NULL, err, sizeof err);
    double z[5], zd[5], zdd[5], lambda[4];
    memcpy(z, quick_return_model.z0, sizeof z);
    memcpy(zd, quick_return_model.zd0, sizeof zd);
    ok(bg && mb_bg_assemble(bg, 0, z, zd, quick_return_model.p_default, err, sizeof err) == MB_OK &&
           mb_bg_accel(bg, 0, z, zd, NULL, quick_return_model.p_default, zdd, lambda, err, sizeof err) == MB_OK,
       "the quick-return assembles and accelerates at t = 0");
    double ez = 0, el = 0;
    for (int i = 0; i < 5; ++i) ez = fmax(ez, fabs(zdd[i] - ZDD0[i]));
    diag("lambda0 %.10f %.10f %.10f %.10f", lambda[0], lambda[1], lambda[2], lambda[3]);
    /* The ram-normal equation is oriented against the digest's ((F - E) . n against (E - F) . n): its multiplier
     * changes sign, the constraint force Phi_z' lambda does not. */
    for (int i = 0; i < 4; ++i) el = fmax(el, fabs(lambda[i] - (i == 3 ? -1 : 1) * LAMBDA0[i]));
    ok(ez < 1e-9, "T7: zdd at t = 0 equals the digest's to %.1e (at most 1e-9)", ez);
    ok(el < 1e-9, "T7: lambda at t = 0 equals the digest's to %.1e (rows D_x, D_y, ram angle, ram normal; the last one's "
       "equation oriented the other way)", el);
    mb_bg_free(bg);

    /* T8: RK4 with a = b = 10 at the digest's step 2.5e-4: its states at t = 1 and 2 (the same integrator and step:
     * rounding only), and at h = 1e-3 its drift and energy rows within 2x. */
    static const double Z1[5] = {1.8803423314, 0.3263403130, -5.1304478151, -1.2430069231, -0.6373354082};
    static const double Z2[5] = {1.2460119903, 0.3132211310, -1.2775592740, -0.5967975287, -0.6492144616};
    static const double ZD2[5] = {0.6120683905, 0.6349333910, 6.0203835754, -1.1024620252, 0.4903936347};
    double de;
    mb_sim *s = run(2.5e-4, 10, 1, &de);
    double e1 = 0;
    for (int i = 0; s && i < 5; ++i) e1 = fmax(e1, fabs(mb_sim_z(s)[i] - Z1[i]));
    ok(s && e1 < 1e-9, "T8: h = 2.5e-4, t = 1: z equals the digest's table to %.1e (10 digits printed)", e1);
    if (s) mb_sim_step(s, 2);
    double e2 = 0, e2d = 0;
    for (int i = 0; s && i < 5; ++i) {
        e2 = fmax(e2, fabs(mb_sim_z(s)[i] - Z2[i]));
        e2d = fmax(e2d, fabs(mb_sim_zd(s)[i] - ZD2[i]));
    }
    ok(s && e2 < 1e-9 && e2d < 1e-8, "T8: t = 2: z to %.1e, zd to %.1e", e2, e2d);
    mb_sim_free(s);

    double v[2], de10, de0, v0[2];
    s = run(1e-3, 10, 2, &de10);
    mb_sim_violation_max(s, v);
    mb_sim_free(s);
    diag("h = 1e-3, a = b = 10: max|C| %.3e, max|Cdot| %.3e, max|dE| %.3e (digest 3.642e-09, 6.610e-08, 1.026e-06)", v[0],
         v[1], de10);
    /* The digest accepts 2x; the same integrator and step agree to its printed digits. */
    ok(fabs(v[0] / 3.642e-9 - 1) < 1e-2, "T8: h = 1e-3: max |C| over the run %.4e is the digest's 3.642e-9 (1 %%)", v[0]);
    ok(fabs(v[1] / 6.610e-8 - 1) < 1e-2, "T8: max |Cdot| %.4e is 6.610e-8 (1 %%)", v[1]);
    ok(fabs(de10 / 1.026e-6 - 1) < 1e-2, "T8: max |E - E0| %.4e is 1.026e-6 (1 %%)", de10);
    s = run(1e-3, 0, 2, &de0);
    mb_sim_violation_max(s, v0);
    mb_sim_free(s);
    diag("h = 1e-3, no stabilisation: max|C| %.3e, max|Cdot| %.3e, max|dE| %.3e (digest 1.010e-07, 1.452e-07, 2.967e-06)",
         v0[0], v0[1], de0);
    ok(fabs(v0[0] / 1.010e-7 - 1) < 1e-2 && fabs(de0 / 2.967e-6 - 1) < 1e-2,
       "without stabilisation (a = b = 0) the drift %.4e and energy error %.4e are the digest's 1.010e-7 and 2.967e-6", v0[0],
       de0);
    ok(v0[0] > 10 * v[0], "and a = b = 10 lowers it more than 10x (%.1fx; the digest: 28x)", v0[0] / v[0]);
    return done_testing();
}
