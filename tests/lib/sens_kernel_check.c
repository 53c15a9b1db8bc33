/* sens_kernel_check.c: the recursive sensitivity kernels of one generated open-tree model (forward_dynamics_sens,
 * inverse_dynamics_sens) at seeded random states and random directions w = [S, Sd].
 * Built by tests/sens_recursive.t as
 *   gcc -DMODEL_HEADER='"NAME.h"' -DMODEL=NAME_model sens_kernel_check.c NAME.c -lm              (real build)
 *   gcc -DMB_COMPLEX -DMODEL_HEADER='"NAME.h"' -DMODEL=NAME_model sens_kernel_check.c NAME.c -lm (complex build)
 * Argument: the number of states (default 4).
 *
 * Column 0 of each kernel is compared with the base function (forward_dynamics, inverse_dynamics at the same zdd);
 * column j (1..np) with an oracle computed here from other functions:
 *   complex build: the complex step (h = 1e-30) of the base function moving z by S_j, zd by Sd_j and p_j by 1
 *     together (the total derivative along the DDM's tangent, seeds/004.md §4.1); the controls "_nosd" and "_nop"
 *     compare the kernel with the complex step along (S_j, 0, e_j) and (S_j, Sd_j, 0) instead, which must differ
 *     wherever zd and p matter (else the comparison could not see those parts of the direction);
 *   real build: the dense Jacobian route, Fz S_j + Fzd Sd_j + Fp_j from forward_dynamics_dy (or _dz and _dzd) and
 *     forward_dynamics_dp, and K S_j + C Sd_j + dr/dp_j from inverse_dynamics_dz, _dzd and _dp.
 * Prints "key value" lines: the worst error over the states, relative to the max-norm of the oracle (column 0:
 * of the base output; columns 1..np: of all of them at once, as mbgen check does), and bad_status (calls that
 * returned non-zero or a missing function); the real build also cond_M, a lower bound of cond(M) over the states
 * (1 without a mass function). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "relerr.h"
#include MODEL_HEADER

#ifdef MB_COMPLEX
#define RE(x) creal(x)
#define IM(x) cimag(x)
#else
#define RE(x) (x)
#endif

static unsigned long long rng = 0x2545f4914f6cdd1dULL;
static double rnd(void) /* uniform in [-1, 1), xorshift64* */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

static int bad_status;
static mb_real *work;
static void call(mb_fn *f, const mb_args *a, mb_real *out)
{
    if (!f || f(a, out, work) != MB_FN_OK) bad_status++;
}

static void worst(double *w, double e) { if (e > *w || e != e) *w = e; }

#ifndef MB_COMPLEX
/* A lower bound of cond(M) from its Cholesky pivots, (max L_ii / min L_ii)^2, as mbcheck.c takes it: the dense
 * Jacobian route solves with M, so its rounding grows with cond(M). M is destroyed. */
static double cond_estimate(double *M, int n)
{
    double lo = INFINITY, hi = 0;
    for (int j = 0; j < n; ++j) {
        double d = M[j + j * n];
        for (int k = 0; k < j; ++k) d -= M[j + k * n] * M[j + k * n];
        if (!(d > 0)) return INFINITY;
        d = sqrt(d);
        M[j + j * n] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = M[i + j * n];
            for (int k = 0; k < j; ++k) s -= M[i + k * n] * M[j + k * n];
            M[i + j * n] = s / d;
        }
        if (d < lo) lo = d;
        if (d > hi) hi = d;
    }
    return (hi / lo) * (hi / lo);
}
#endif

int main(int argc, char **argv)
{
    const mb_model *m = &MODEL;
    int nstates = argc > 1 ? atoi(argv[1]) : 4;
    int n = m->nz, np = m->np, nu = m->nu;
    size_t nn = (size_t)n, cols = (size_t)np + 1;
    mb_real *z = calloc(nn + 1, sizeof *z), *zd = calloc(nn + 1, sizeof *zd), *zdd = calloc(nn + 1, sizeof *zdd);
    mb_real *u = calloc((size_t)nu + 1, sizeof *u), *p = calloc((size_t)np + 1, sizeof *p);
    mb_real *w = calloc(2 * nn * (size_t)np + 1, sizeof *w);
    mb_real *sens = calloc(nn * cols, sizeof *sens), *base = calloc(nn, sizeof *base);
    double *got = calloc(nn * cols, sizeof *got), *ref = calloc(nn * cols, sizeof *ref);
    double *ref2 = calloc(nn * cols, sizeof *ref2);
    work = calloc(m->nwork > 0 ? (size_t)m->nwork : 1, sizeof *work);
#ifndef MB_COMPLEX
    mb_real *Fy = calloc(2 * nn * nn, sizeof *Fy), *Fp = calloc(nn * (size_t)np + 1, sizeof *Fp);
    mb_real *K = calloc(nn * nn, sizeof *K), *C = calloc(nn * nn, sizeof *C);
#endif
    if (!z || !zd || !zdd || !u || !p || !w || !sens || !base || !got || !ref || !ref2 || !work) return 2;
    double e_fd0 = 0, e_fd = 0, e_id0 = 0, e_id = 0, cond = 1;
#ifdef MB_COMPLEX
    double e_fd_nosd = 0, e_id_nosd = 0, e_fd_nop = 0, e_id_nop = 0;
#endif
    if (!m->forward_dynamics_sens || !m->inverse_dynamics_sens) bad_status++;

    for (int k = 0; k < nstates && !bad_status; ++k) {
        mb_real t = rnd();
        for (int i = 0; i < n; ++i) {
            z[i] = (m->z0 ? m->z0[i] : 0.0) + rnd();
            zd[i] = 2 * rnd();
            zdd[i] = 2 * rnd();
        }
        for (int i = 0; i < nu; ++i) u[i] = rnd();
        /* Design values about the defaults; a zero default (an offset) moves a little either way. */
        for (int j = 0; j < np; ++j) p[j] = m->p_default[j] != 0 ? m->p_default[j] * (1 + 0.1 * rnd()) : 0.01 * rnd();
        for (size_t i = 0; i < 2 * nn * (size_t)np; ++i) w[i] = rnd();
#ifndef MB_COMPLEX
        if (m->mass) {
            mb_args a = {t, z, zd, zdd, u, p, NULL};
            call(m->mass, &a, K);
            double c = cond_estimate(K, n);
            if (c > cond || c != c) cond = c;
        }
#endif
        for (int f = 0; f < 2; ++f) {       /* 0: forward dynamics, 1: inverse dynamics at zdd */
            mb_fn *bf = f ? m->inverse_dynamics : m->forward_dynamics;
            mb_fn *sf = f ? m->inverse_dynamics_sens : m->forward_dynamics_sens;
            mb_args a = {t, z, zd, f ? zdd : NULL, u, p, w};
            call(sf, &a, sens);
            a.w = NULL;
            call(bf, &a, base);
            for (size_t i = 0; i < nn * cols; ++i) got[i] = RE(sens[i]);
            for (size_t i = 0; i < nn; ++i) ref[i] = RE(base[i]);
            worst(f ? &e_id0 : &e_fd0, relerr(got, ref, n));
            if (np == 0) continue;
#ifdef MB_COMPLEX
            const double h = 1e-30;
            for (int ctl = 0; ctl < 3; ++ctl) {   /* 0: the direction; 1: without Sd; 2: without e_j */
                double *r = ctl ? ref2 : ref;
                for (int j = 0; j < np; ++j) {
                    const mb_real *S = w + (size_t)j * nn, *Sd = w + nn * (size_t)np + (size_t)j * nn;
                    for (int i = 0; i < n; ++i) {
                        z[i] += h * I * RE(S[i]);
                        if (ctl != 1) zd[i] += h * I * RE(Sd[i]);
                    }
                    if (ctl != 2) p[j] += h * I;
                    call(bf, &a, base);
                    for (int i = 0; i < n; ++i) r[i + (size_t)j * nn] = IM(base[i]) / h;
                    for (int i = 0; i < n; ++i) { z[i] = RE(z[i]); zd[i] = RE(zd[i]); }
                    p[j] = RE(p[j]);
                }
                if (ctl) worst(ctl == 1 ? (f ? &e_id_nosd : &e_fd_nosd) : (f ? &e_id_nop : &e_fd_nop),
                               relerr(got + nn, ref2, n * np));
            }
#else
            /* The Jacobian route: D y = [Dz, Dzd] (n x 2n), Dp (n x np). */
            if (f == 0) {
                if (m->forward_dynamics_dy) {
                    call(m->forward_dynamics_dy, &a, Fy);
                } else {
                    call(m->forward_dynamics_dz, &a, Fy);
                    call(m->forward_dynamics_dzd, &a, Fy + nn * nn);
                }
                call(m->forward_dynamics_dp, &a, Fp);
            } else {
                call(m->inverse_dynamics_dz, &a, K);
                call(m->inverse_dynamics_dzd, &a, C);
                memcpy(Fy, K, nn * nn * sizeof *K);
                memcpy(Fy + nn * nn, C, nn * nn * sizeof *C);
                call(m->inverse_dynamics_dp, &a, Fp);
            }
            for (int j = 0; j < np; ++j) {
                const mb_real *S = w + (size_t)j * nn, *Sd = w + nn * (size_t)np + (size_t)j * nn;
                for (int i = 0; i < n; ++i) {
                    double s = Fp[i + (size_t)j * nn];
                    for (int l = 0; l < n; ++l)
                        s += Fy[i + (size_t)l * nn] * S[l] + Fy[i + (nn + (size_t)l) * nn] * Sd[l];
                    ref[i + (size_t)j * nn] = s;
                }
            }
#endif
            worst(f ? &e_id : &e_fd, relerr(got + nn, ref, n * np));
        }
    }
    printf("nz %d\nnp %d\nstates %d\nbad_status %d\n", n, np, nstates, bad_status);
    printf("cond_M %.3e\n", cond);
    printf("fd_col0 %.3e\nfd_cols %.3e\nid_col0 %.3e\nid_cols %.3e\n", e_fd0, e_fd, e_id0, e_id);
#ifdef MB_COMPLEX
    printf("fd_cols_nosd %.3e\nid_cols_nosd %.3e\n", e_fd_nosd, e_id_nosd);
    printf("fd_cols_nop %.3e\nid_cols_nop %.3e\n", e_fd_nop, e_id_nop);
#else
    free(Fy); free(Fp); free(K); free(C);
#endif
    free(z); free(zd); free(zdd); free(u); free(p); free(w); free(sens); free(base);
    free(got); free(ref); free(ref2); free(work);
    return 0;
}
