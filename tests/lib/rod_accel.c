/* rod_accel.c: accelerations of one generated closed-loop model in every rod mode (exact; point, linear, quadratic;
 * plain and partitioned) at one state after three first stages of history, for tests/rod_modes.t (T3). Prints the
 * largest difference from the exact mode relative to max |zdd|: "max_rel X". argv: the design values. The history
 * is of four different states (z, zd moved along a line), so no mode is exact by accident. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formulation_matrix_r.h"

extern const mb_model MB_MODEL;

int main(int argc, char **argv) {
    const mb_model *m = &MB_MODEL;
    int n = m->nz;
    double p[16] = {0}, ref[64], zdd[64], z[64], zd[64];
    if (n > 64 || m->np > 16) return 2;
    for (int i = 0; i < m->np; ++i) p[i] = i + 1 < argc ? atof(argv[i + 1]) : m->p_default[i];
    mb_kin_options ko;
    mb_kin_options_default(&ko);
    char err[512];
    double worst = 0, scale = 0;
    for (int mode = MB_ROD_EXACT; mode <= MB_ROD_QUADRATIC; ++mode)
        for (int part = 0; part < 2; ++part) {
            mb_mr *mr = mb_mr_create(m, &ko, err, sizeof err);
            if (!mr || mb_mr_set_rods(mr, (mb_rod_mode)mode, part, err, sizeof err)) {
                fprintf(stderr, "rod_accel: %s\n", err);
                return 1;
            }
            for (int k = 0; k <= 3; ++k) {
                double t = k < 3 ? 1e-3 * k : 2.5e-3;
                /* A history of different states, so the extrapolation is not exact by accident. */
                for (int i = 0; i < n; ++i) {
                    z[i] = m->z0[i] + 0.01 * k;
                    zd[i] = m->zd0[i] + 0.3 * k;
                }
                mb_mr_set_stage(mr, k < 3 ? 1 : 2);
                if (mb_mr_project(mr, t, z, zd, p, err, sizeof err) ||
                    mb_mr_accel(mr, t, z, zd, NULL, p, zdd, err, sizeof err)) {
                    fprintf(stderr, "rod_accel: %s\n", err);
                    return 1;
                }
            }
            mb_mr_free(mr);
            if (mode == MB_ROD_EXACT && part == 0) {
                memcpy(ref, zdd, sizeof(double) * (size_t)n);
                for (int i = 0; i < n; ++i) scale = fmax(scale, fabs(ref[i]));
            }
            for (int i = 0; i < n; ++i) worst = fmax(worst, fabs(zdd[i] - ref[i]) / scale);
        }
    printf("max_rel %.3e\nscale %.6g\n", worst, scale);
    return 0;
}
