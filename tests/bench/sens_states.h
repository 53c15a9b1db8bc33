/* sens_states.h: the states and the jacobian route's products shared by sens_recursive.c and sens_recursive_filed.c,
 * which must draw the same states (the filed route is compiled against another version's headers, apart). */
#ifndef SENS_STATES_H
#define SENS_STATES_H

#include <stddef.h>
#include <stdint.h>

#define NSTATE 8   /* states cycled through by every timed loop */

static uint64_t sens_rng = 0x9E3779B97F4A7C15ull;
static double uniform(double lo, double hi)
{
    sens_rng ^= sens_rng << 13; sens_rng ^= sens_rng >> 7; sens_rng ^= sens_rng << 17;   /* xorshift64 */
    return lo + (hi - lo) * ((double)(sens_rng >> 11) * 0x1.0p-53);
}

/* NSTATE states: z, zd (n each) in Z, ZD, and the sensitivities [S, Sd] (2 n np) in SSD, in this order. */
static void draw_states(int n, int np, double *Z, double *ZD, double *SSD)
{
    size_t nS = (size_t)n * np;
    for (int k = 0; k < NSTATE; ++k) {
        for (int i = 0; i < n; ++i) {
            Z[(size_t)k * n + i] = uniform(-3.14159, 3.14159);
            ZD[(size_t)k * n + i] = uniform(-2, 2);
        }
        for (size_t i = 0; i < 2 * nS; ++i) SSD[(size_t)k * 2 * nS + i] = uniform(-1, 1);
    }
}

/* Sdd = Fz S + Fzd Sd + Fp, as runtime/sens_direct.c's aug_eval forms it on the jacobian route (n x n, n x np). */
static void jacobian_products(int n, int np, const double *Fz, const double *Fzd, const double *Fp, const double *S,
                              const double *Sd, double *Sdd)
{
    for (int j = 0; j < np; ++j)
        for (int i = 0; i < n; ++i) {
            double s = Fp[i + (size_t)j * n];
            for (int l = 0; l < n; ++l)
                s += Fz[i + (size_t)l * n] * S[l + (size_t)j * n] + Fzd[i + (size_t)l * n] * Sd[l + (size_t)j * n];
            Sdd[i + (size_t)j * n] = s;
        }
}

#endif
