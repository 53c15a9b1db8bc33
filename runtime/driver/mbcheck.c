/* mbcheck.c: checks every generated derivative of one model against complex step and central differences.
 *
 * Built by `mbgen check` as: cc -DMB_COMPLEX -DMB_MODEL=NAME_model -DMB_MODEL_REAL=NAME_real_model mbcheck.c
 * mbcheck_real.c NAME.o NAME_real.o, where NAME.o holds the functions differentiated, compiled with -DMB_COMPLEX, and
 * NAME_real.o the derivatives, compiled without (complex arithmetic takes three times as long to compile).
 * The analytic derivatives (real) are compared with the complex-step reference (imaginary parts with h = 1e-30)
 * and central differences, all on seeded random states.
 * Arguments (all optional, in order): states (5), complex-step and central-difference tolerances (1e-12, 1e-6),
 * seed (0), spread of the coordinates about z0 (1), -q (no progress lines on stderr).
 * Output: one line per function with the worst errors, relative to the matrix max-norm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mb_model.h"
#include "mbcheck_real.h"

#ifndef MB_COMPLEX
#error "mbcheck is built with -DMB_COMPLEX"
#endif

extern const mb_model MB_MODEL;

/* The most inputs one column's direction moves: z, zd and one p (ARR_SENS). */
#define MB_CHECK_NX (2 * 512 + 1)

/* Model calls with the workspace; a non-zero status (a singular M at a random state) fails the check. */
static mb_real *work;
static double *work_real;
static int failed_calls;
static void failed(const char *name, int rc)
{
    if (failed_calls++ < 5) fprintf(stderr, "mbcheck: %s returned status %d\n", name, rc);
}

static void call(mb_fn *f, const char *name, const mb_args *a, mb_real *out)
{
    int rc = f(a, out, work);
    if (rc) { failed(name, rc); out[0] = NAN; }
}

static void call_real(int slot, const mbcheck_real_args *a, double *out)
{
    int rc = mbcheck_real_call(slot, a, out, work_real);
    if (rc) { failed(mb_slot_name(slot), rc); out[0] = NAN; }
}

/* ARR_TANGENT: column j moves z_j, zd_j and zdd_j together by (c_z, c_v, c_a) = w[0..2], so the complex
 * step of the residual along it is column j of the fused tangent. */
/* ARR_SENS: the output is [f, df_1 .. df_np] with df_j the derivative of f along (S_j, Sd_j, e_j), S and Sd
 * (nz x np each) in w: column j + 1 is the complex step of f moving z, zd and p_j together. */
enum { ARR_Z, ARR_ZD, ARR_ZDD, ARR_P, ARR_T, ARR_TANGENT, ARR_Y, ARR_SENS };

typedef struct {
    const char *name;      /* derivative function */
    mb_fn *base;
    int deriv;             /* slot of the derivative in the real build */
    const char *bname;     /* base function */
    int rows, arr, cols;   /* base output size, differentiated array, its size */
    int solves;            /* the function solves with M: its rounding grows with cond(M) */
    int contract;          /* the base is nc x nz Phi_z; compare with Phi_z' w (constraints_dz_tw_dz) */
} check_item;

/* A lower bound of cond(M) from its Cholesky pivots, (max L_ii / min L_ii)^2: enough to tell a rounding
 * error amplified by an ill-conditioned M (e.g. a light link of an opened loop) from a wrong formula. */
static double cond_estimate(const double *M, int n, double *L)
{
    for (int i = 0; i < n * n; ++i) L[i] = M[i];
    double lo = INFINITY, hi = 0;
    for (int j = 0; j < n; ++j) {
        double d = L[j + j * n];
        for (int k = 0; k < j; ++k) d -= L[j + k * n] * L[j + k * n];
        if (!(d > 0)) return INFINITY;
        d = sqrt(d);
        L[j + j * n] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = L[i + j * n];
            for (int k = 0; k < j; ++k) s -= L[i + k * n] * L[j + k * n];
            L[i + j * n] = s / d;
        }
        if (d < lo) lo = d;
        if (d > hi) hi = d;
    }
    return (hi / lo) * (hi / lo);
}

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static double rnd(void) /* uniform in [-1, 1), xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    unsigned long long r = rng_state * 2685821657736338717ULL;
    return (double)(r >> 11) / 4503599627370496.0 - 1.0;
}

typedef struct {
    mb_real t;
    mb_real *z, *zd, *zdd, *u, *p, *w;
} state;

static void to_args(const state *s, mb_args *a)
{
    a->t = s->t;
    a->z = s->z; a->zd = s->zd; a->zdd = s->zdd; a->u = s->u; a->p = s->p; a->w = s->w;
}

/* The real parts of the state, for the derivatives: r holds 3 nz + nu + np + nw doubles. */
static void to_real_args(const state *s, int nz, int nu, int np, int nw, double *r, mbcheck_real_args *a)
{
    const mb_real *from[6] = { s->z, s->zd, s->zdd, s->u, s->p, s->w };
    const double **to[6] = { &a->z, &a->zd, &a->zdd, &a->u, &a->p, &a->w };
    int len[6] = { nz, nz, nz, nu, np, nw };
    a->t = creal(s->t);
    for (int k = 0; k < 6; ++k) {
        for (int i = 0; i < len[k]; ++i) r[i] = creal(from[k][i]);
        *to[k] = r;
        r += len[k];
    }
}

static mb_real *array_of(state *s, int arr)
{
    switch (arr) {
    case ARR_Z: return s->z;
    case ARR_ZD: return s->zd;
    case ARR_ZDD: return s->zdd;
    case ARR_P: return s->p;
    default: return &s->t;
    }
}

int main(int argc, char **argv)
{
    const mb_model *m = &MB_MODEL;
    int nstates = argc > 1 ? atoi(argv[1]) : 5;
    double cs_tol = argc > 2 ? atof(argv[2]) : 1e-12, cd_tol = argc > 3 ? atof(argv[3]) : 1e-6;
    if (argc > 4) rng_state ^= strtoull(argv[4], NULL, 10) * 0x9e3779b97f4a7c15ULL;
    /* Coordinates are z0 + spread * U[-1, 1): a vehicle is checked near its pose with the tyres on the road. */
    double spread = argc > 5 ? atof(argv[5]) : 1.0;
    /* A check that takes more than a second says on stderr how far it is, state by state; -q: never. */
    int quiet = argc > 6 && strcmp(argv[6], "-q") == 0;
    clock_t started = clock();
    int nz = m->nz, np = m->np, nu = m->nu, nc = m->nc, npt = m->npt;

    check_item items[32];
    int ni = 0;
#define ITEM(dname, b, d, r, ar, c) \
    if (m->b && mbcheck_real_has(MB_SLOT_##d) && (c) > 0 && (r) > 0) \
        items[ni++] = (check_item){ dname, m->b, MB_SLOT_##d, #b, r, ar, c, strncmp(#d, "forward_dynamics", 16) == 0, 0 }
    ITEM("mass (d inverse_dynamics / d zdd)", inverse_dynamics, mass, nz, ARR_ZDD, nz);
    ITEM("inverse_dynamics_dz", inverse_dynamics, inverse_dynamics_dz, nz, ARR_Z, nz);
    ITEM("inverse_dynamics_dzd", inverse_dynamics, inverse_dynamics_dzd, nz, ARR_ZD, nz);
    ITEM("inverse_dynamics_dp", inverse_dynamics, inverse_dynamics_dp, nz, ARR_P, np);
    ITEM("inverse_dynamics_tangent", inverse_dynamics, inverse_dynamics_tangent, nz, ARR_TANGENT, nz);
    ITEM("forward_dynamics_dz", forward_dynamics, forward_dynamics_dz, nz, ARR_Z, nz);
    ITEM("forward_dynamics_dzd", forward_dynamics, forward_dynamics_dzd, nz, ARR_ZD, nz);
    ITEM("forward_dynamics_dp", forward_dynamics, forward_dynamics_dp, nz, ARR_P, np);
    ITEM("inverse_dynamics_dy", inverse_dynamics, inverse_dynamics_dy, nz, ARR_Y, 2 * nz);
    ITEM("forward_dynamics_dy", forward_dynamics, forward_dynamics_dy, nz, ARR_Y, 2 * nz);
    ITEM("inverse_dynamics_sens", inverse_dynamics, inverse_dynamics_sens, nz, ARR_SENS, 2 * nz < MB_CHECK_NX ? np : 0);
    ITEM("forward_dynamics_sens", forward_dynamics, forward_dynamics_sens, nz, ARR_SENS, 2 * nz < MB_CHECK_NX ? np : 0);
    ITEM("points_dz", points, points_dz, 3 * npt, ARR_Z, nz);
    ITEM("constraints_dz", constraints, constraints_dz, nc, ARR_Z, nz);
    ITEM("constraints_dp", constraints, constraints_dp, nc, ARR_P, np);
    ITEM("constraints_dt", constraints, constraints_dt, nc, ARR_T, 1);
    ITEM("constraint_bias_dz", constraint_bias, constraint_bias_dz, nc, ARR_Z, nz);
    ITEM("constraint_bias_dzd", constraint_bias, constraint_bias_dzd, nc, ARR_ZD, nz);
    ITEM("constraint_bias_dp", constraint_bias, constraint_bias_dp, nc, ARR_P, np);
    ITEM("rod_inertia_dz", rod_inertia, rod_inertia_dz, nz, ARR_Z, nz);
    ITEM("rod_inertia_dp", rod_inertia, rod_inertia_dp, nz, ARR_P, np);
    ITEM("rod_inertia_cross_dz", rod_inertia_cross, rod_inertia_cross_dz, nz, ARR_Z, nz);
    ITEM("rod_inertia_cross_dp", rod_inertia_cross, rod_inertia_cross_dp, nz, ARR_P, np);
#undef ITEM
    if (m->constraints_dz && mbcheck_real_has(MB_SLOT_constraints_dz_tw_dz) && nc > 0)
        items[ni++] = (check_item){ "constraints_dz_tw_dz", m->constraints_dz, MB_SLOT_constraints_dz_tw_dz,
                                    "constraints_dz", nz, ARR_Z, nz, 0, 1 };

    size_t big = (size_t)(nz + np + nc + 3 * npt + 4) * (size_t)(2 * nz + np + 4);
    int nw = nc + 3 > 2 * nz * np ? nc + 3 : 2 * nz * np;
    mb_real *buf = calloc(6 * (size_t)(nz + nu + np + nw + 4) + 3 * big, sizeof *buf);
    double *rbuf = calloc(3 * (size_t)nz + nu + np + nw + 2 * big, sizeof *rbuf);
    work = calloc(m->nwork > 0 ? (size_t)m->nwork : 1, sizeof *work);
    work_real = calloc(mbcheck_real_nwork() > 0 ? (size_t)mbcheck_real_nwork() : 1, sizeof *work_real);
    if (!buf || !rbuf || !work || !work_real) { fprintf(stderr, "mbcheck: out of memory\n"); return 2; }
    state s;
    mb_real *q = buf;
    s.z = q; q += nz + 1; s.zd = q; q += nz + 1; s.zdd = q; q += nz + 1;
    s.u = q; q += nu + 1; s.p = q; q += np + 1; s.w = q; q += nw;
    double *J = rbuf, *L = rbuf + big, *real_state = rbuf + 2 * big;
    mb_real *f0 = q; q += big;
    mb_real *fp = q; q += big;
    mb_real *fm = q;

    double worst_cs[32] = { 0 }, worst_cd[32] = { 0 }, cond = 1;
    for (int k = 0; k < nstates; ++k) {
        s.t = rnd();
        for (int i = 0; i < nz; ++i) {
            s.z[i] = (m->z0 ? m->z0[i] : 0.0) + spread * rnd();
            s.zd[i] = 2 * rnd();
            s.zdd[i] = 2 * rnd();
        }
        for (int i = 0; i < nu; ++i) s.u[i] = rnd();
        for (int i = 0; i < np; ++i) s.p[i] = (m->p_default ? m->p_default[i] : 1.0) * (1.0 + 0.2 * rnd());
        for (int i = 0; i < nw; ++i) s.w[i] = rnd();
        mbcheck_real_args ra;
        to_real_args(&s, nz, nu, np, nw, real_state, &ra);
        if (mbcheck_real_has(MB_SLOT_mass)) {
            call_real(MB_SLOT_mass, &ra, J);
            double c = cond_estimate(J, nz, L);
            if (c > cond) cond = c;
        }
        for (int it = 0; it < ni; ++it) {
            const check_item *c = &items[it];
            mb_args a;
            to_args(&s, &a);
            call_real(c->deriv, &ra, J);
            double jmax = 0, ecs = 0, ecd = 0;
            const double *Jd = J;
            if (c->arr == ARR_SENS) {   /* column 0 is the function itself, the derivatives follow */
                call(c->base, c->bname, &a, f0);
                for (int i = 0; i < c->rows; ++i) {
                    double e = cabs(J[i] - f0[i]);
                    if (e > ecs || e != e) ecs = e != e ? INFINITY : e;
                }
                Jd = J + c->rows;
            }
            for (int j = 0; j < c->cols; ++j) {
                mb_real *x[MB_CHECK_NX], x0[MB_CHECK_NX];
                double dir[MB_CHECK_NX] = { 1, 0, 0 };
                int nx = 1;
                if (c->arr == ARR_SENS) {
                    nx = 0;
                    for (int i = 0; i < nz; ++i) {
                        x[nx] = s.z + i; dir[nx++] = creal(s.w[i + (size_t)j * nz]);
                        x[nx] = s.zd + i; dir[nx++] = creal(s.w[(size_t)nz * np + i + (size_t)j * nz]);
                    }
                    x[nx] = s.p + j; dir[nx++] = 1;
                } else if (c->arr == ARR_TANGENT) {
                    x[0] = s.z + j; x[1] = s.zd + j; x[2] = s.zdd + j;
                    for (int k = 0; k < 3; ++k) dir[k] = creal(s.w[k]);
                    nx = 3;
                } else if (c->arr == ARR_Y) {  /* y = [z, zd]: the first nz columns move z, the rest zd */
                    x[0] = j < nz ? s.z + j : s.zd + (j - nz);
                } else {
                    x[0] = array_of(&s, c->arr) + (c->arr == ARR_T ? 0 : j);
                }
                for (int k = 0; k < nx; ++k) x0[k] = *x[k];
                double h = 1e-30;
                for (int k = 0; k < nx; ++k) *x[k] = x0[k] + dir[k] * h * I;
                to_args(&s, &a);
                call(c->base, c->bname, &a, f0);
                double hd = 1e-6 * (1.0 + fabs(creal(x0[0])));
                for (int k = 0; k < nx; ++k) *x[k] = x0[k] + dir[k] * hd;
                to_args(&s, &a); call(c->base, c->bname, &a, fp);
                for (int k = 0; k < nx; ++k) *x[k] = x0[k] - dir[k] * hd;
                to_args(&s, &a); call(c->base, c->bname, &a, fm);
                for (int k = 0; k < nx; ++k) *x[k] = x0[k];
                if (c->contract) {   /* Phi_z (nc x nz) -> Phi_z' w (nz), in place: column r only reads ahead */
                    mb_real *fs[3] = { f0, fp, fm };
                    for (int q = 0; q < 3; ++q)
                        for (int r = 0; r < nz; ++r) {
                            mb_real acc = 0;
                            for (int i = 0; i < nc; ++i) acc += fs[q][i + (size_t)r * nc] * s.w[i];
                            fs[q][r] = acc;
                        }
                }
                for (int i = 0; i < c->rows; ++i) {
                    double an = Jd[i + (size_t)j * c->rows];
                    double cs = cimag(f0[i]) / h;
                    double cd = creal(fp[i] - fm[i]) / (2 * hd);
                    if (fabs(cs) > jmax) jmax = fabs(cs);
                    if (fabs(an - cs) > ecs || an != an) ecs = an != an ? INFINITY : fabs(an - cs);
                    if (fabs(an - cd) > ecd || an != an) ecd = an != an ? INFINITY : fabs(an - cd);
                }
            }
            double scale = jmax > 1e-300 ? jmax : 1.0;   /* columns can be zero by invariance */
            if (ecs / scale > worst_cs[it]) worst_cs[it] = ecs / scale;
            if (ecd / scale > worst_cd[it]) worst_cd[it] = ecd / scale;
        }
        double secs = (double)(clock() - started) / CLOCKS_PER_SEC;
        if (!quiet && secs > 1.0)
            fprintf(stderr, "mbcheck: %d of %d states checked (%d functions, %.0f s)\n", k + 1, nstates, ni, secs);
    }
    int bad = 0;
    /* Functions that solve with M are held to eps cond(M) where that is looser than the tolerance. */
    double solve_tol = fmax(cs_tol, 1e-15 * cond), solve_cd = fmax(cd_tol, 1e-9 * cond);
    printf("cond(M) >= %.2e at the states checked (forward-dynamics tolerance %.1e)\n", cond, solve_tol);
    printf("%-36s %12s %12s\n", "function", "complex step", "central diff");
    for (int it = 0; it < ni; ++it) {
        double tcs = items[it].solves ? solve_tol : cs_tol, tcd = items[it].solves ? solve_cd : cd_tol;
        int fail = !(worst_cs[it] <= tcs) || !(worst_cd[it] <= tcd);
        bad += fail;
        printf("%-36s %12.2e %12.2e%s\n", items[it].name, worst_cs[it], worst_cd[it], fail ? "  FAIL" : "");
    }
    if (failed_calls) {
        printf("%d calls returned a non-zero status\n", failed_calls);
        bad++;
    }
    printf("%d functions checked at %d random states: %s\n", ni, nstates, bad ? "FAIL" : "ok");
    free(buf);
    free(rbuf);
    free(work);
    free(work_real);
    return bad ? 1 : 0;
}
