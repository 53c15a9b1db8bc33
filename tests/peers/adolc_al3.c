/* adolc_al3.c: one model's whole al3 runs (seeds/003.md §6.2), the tangent's Jacobian from each provider in turn. */
/* The same trapezoidal index-3 augmented-Lagrangian run (approx_tangent, jacobian_reuse 3, else the defaults) with
 * [dr/dz, dr/dzd] from the generated derivatives on the dense LU and on the sparse KLU path, central differences,
 * and ADOL-C dense forward, dense reverse (dense LU) and sparse (KLU, and the dense LU of the paper), each at every
 * step h given, after a check at one state that each provider's Jacobian is the analytic one; prints "key value"
 * lines. Built per model by tests/lib/al3_providers_build.lua.
 * Usage: al3prov T_END H_MS[,H_MS...] [PROVIDER,...]; BENCH_REPS runs of each (the fastest is reported), AL3_ALPHA_REL
 * and AL3_MAX_ITER the al3's alpha_rel and max_iter. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adolc_al3.h"
#include "bench_time.h"
#include "mb_work.h"
#include "sim.h"

#ifndef MB_MODEL
#error "compile with -DMB_MODEL=NAME_model"
#endif
extern const mb_model MB_MODEL;

typedef struct {
    const char *name;
    int sparse, fd, ad; /* ad: an ad_mode, or -1 */
} provider;
static const provider PROVIDERS[] = {
    {"analytic_dense", 0, 0, -1}, {"analytic_sparse", 1, 0, -1}, {"central", 0, 1, -1},
    {"adolc_forward", 0, 0, AD_FORWARD}, {"adolc_reverse", 0, 0, AD_REVERSE}, {"adolc_sparse", 1, 0, AD_SPARSE},
    /* The compressed Jacobian on the dense LU, as the paper factored every tangent: what sparse AD saves there. */
    {"adolc_sparse_dense_lu", 0, 0, AD_SPARSE},
};
#define NPROV (int)(sizeof PROVIDERS / sizeof *PROVIDERS)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- the model with its derivative slots timed ----
 * Only inside mb_sim_step (in_advance), so the start-up and the energy samples do not count. An analytic
 * provider's Jacobian time is its calls of the residual's derivative slots. The differences' calls of the residual
 * (those after the first of each Newton iteration, which follows M) are too cheap to time one by one (a residual of
 * the four-bar costs two clock reads), so they are counted and one in FD_SAMPLE is timed, less a clock read's cost. */
#define FD_SAMPLE 16
static mb_model wm;
static double clock_cost; /* seconds the timing of an empty body measures */
static struct {
    int in_advance, after_mass;
    double jac;      /* seconds in the derivative slots or the hook */
    long dense_calls, csc_calls; /* calls of the derivative slots' dense and compressed forms */
    long fd_calls;   /* residual calls of the differences */
    long fd_sampled; /* of which timed */
    double fd_sampled_s;
    long hook_calls;
} g;

#define TIMED(slot, counter)                                                         \
    static mb_fn *orig_##slot;                                                       \
    static int timed_##slot(const mb_args *a, double *out, double *work) {           \
        if (!g.in_advance) return orig_##slot(a, out, work);                         \
        double t0 = now();                                                           \
        int rc = orig_##slot(a, out, work);                                          \
        g.jac += now() - t0;                                                         \
        g.counter++;                                                                 \
        return rc;                                                                   \
    }
TIMED(inverse_dynamics_dz, dense_calls)
TIMED(inverse_dynamics_dz_csc, csc_calls)
TIMED(inverse_dynamics_dzd, dense_calls)
TIMED(inverse_dynamics_dzd_csc, csc_calls)
TIMED(inverse_dynamics_tangent, dense_calls)
TIMED(inverse_dynamics_tangent_csc, csc_calls)
TIMED(inverse_dynamics_dy, dense_calls)
TIMED(inverse_dynamics_dy_csc, csc_calls)

static mb_fn *orig_mass, *orig_mass_csc, *orig_inverse_dynamics;
static int counted_mass(const mb_args *a, double *out, double *work) {
    g.after_mass = 1;
    return orig_mass(a, out, work);
}
static int counted_mass_csc(const mb_args *a, double *out, double *work) {
    g.after_mass = 1;
    return orig_mass_csc(a, out, work);
}
static int counted_inverse_dynamics(const mb_args *a, double *out, double *work) {
    if (g.in_advance) {
        if (g.after_mass) {
            g.after_mass = 0;
        } else if (++g.fd_calls % FD_SAMPLE == 0) {
            double t0 = now();
            int rc = orig_inverse_dynamics(a, out, work);
            g.fd_sampled_s += now() - t0 - clock_cost;
            g.fd_sampled++;
            return rc;
        }
    }
    return orig_inverse_dynamics(a, out, work);
}

static void measure_clock_cost(void) {
    double d[1001];
    for (int i = 0; i < 1001; ++i) {
        double t0 = now();
        d[i] = now() - t0;
    }
    qsort(d, 1001, sizeof *d, bench_cmp);
    clock_cost = d[500];
}

#define WRAP(slot, with)                   \
    do {                                   \
        orig_##slot = MB_MODEL.slot;       \
        if (orig_##slot) wm.slot = with##_##slot; \
    } while (0)
static void wrap_model(void) {
    wm = MB_MODEL;
    WRAP(inverse_dynamics_dz, timed);
    WRAP(inverse_dynamics_dz_csc, timed);
    WRAP(inverse_dynamics_dzd, timed);
    WRAP(inverse_dynamics_dzd_csc, timed);
    WRAP(inverse_dynamics_tangent, timed);
    WRAP(inverse_dynamics_tangent_csc, timed);
    WRAP(inverse_dynamics_dy, timed);
    WRAP(inverse_dynamics_dy_csc, timed);
    WRAP(mass, counted);
    WRAP(mass_csc, counted);
    WRAP(inverse_dynamics, counted);
}

static int timed_hook(void *ctx, const mb_args *a, double *values, char *err, size_t errlen) {
    double t0 = now();
    int rc = ad_al3_jacobian(ctx, a, values, err, errlen);
    g.jac += now() - t0;
    g.hook_calls++;
    return rc;
}

/* ---- one run ---- */
void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a, const int *lda, double *s,
             double *u, const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *info);

/* Phi_z's smallest singular value over its largest at (t, z): how near the loops are to a singular configuration,
 * for the message of a failed run. NAN when it cannot be computed. */
static double phi_z_sv_ratio(double t, const double *z) {
    int nc = wm.nc, n = wm.nz, k = nc < n ? nc : n, lwork = -1, info = 0;
    if (nc < 1 || !wm.constraints_dz) return NAN;
    double q, r = NAN, *J = malloc((size_t)nc * n * sizeof *J), *s = malloc((size_t)k * sizeof *s), *w = mb_work_alloc(&wm);
    mb_args a = {t, z, NULL, NULL, NULL, wm.p_default, NULL};
    if (J && s && w && wm.constraints_dz(&a, J, w) == MB_FN_OK) {
        dgesvd_("N", "N", &nc, &n, J, &nc, s, NULL, &nc, NULL, &n, &q, &lwork, &info);
        double *wk = malloc((size_t)(lwork = (int)q) * sizeof *wk);
        if (wk) dgesvd_("N", "N", &nc, &n, J, &nc, s, NULL, &nc, NULL, &n, wk, &lwork, &info);
        if (wk && info == 0 && s[0] > 0) r = s[k - 1] / s[0];
        free(wk);
    }
    free(J);
    free(s);
    free(w);
    return r;
}

typedef struct {
    int ok;
    char msg[MB_ERRLEN];
    double time, jac, drift, scale, phi;
    long steps, newton, derivs, fd_calls, hook_calls, dense_calls, csc_calls;
    double fd_jac; /* the differences' residual calls: the sampled time scaled to all of them */
    double *z, *zd; /* final state, nz each */
} result;

/* The largest |E - E0 - W| over the run, sampled after every step as mbrun's balance does at its output times
 * (W: trapezoidal quadrature of the non-conservative and the constraint power). */
typedef struct {
    double T0, V0, work, p_prev, pc_prev, worst, scale;
    double *q;
} balance;

static int sample(mb_sim *s, balance *b, int first, double dt) {
    double T, V, p = 0, pc = 0;
    if (!wm.energy || !wm.forces_nc) return MB_OK;
    int rc = mb_sim_energy(s, &T, &V);
    if (!rc) rc = mb_sim_power_nc(s, b->q, &p);
    if (!rc) rc = mb_sim_power_constraints(s, b->q, &pc);
    if (rc) return rc;
    if (first) {
        b->T0 = T;
        b->V0 = V;
    } else {
        b->work += 0.5 * (b->p_prev + p + b->pc_prev + pc) * dt;
    }
    b->p_prev = p;
    b->pc_prev = pc;
    b->worst = fmax(b->worst, fabs(T + V - b->T0 - b->V0 - b->work));
    b->scale = fmax(b->scale, fmax(fabs(T) + fabs(V), fabs(b->work)));
    return MB_OK;
}

/* The paper's setting (seeds/003.md eq. 20, J every 3 Newton iterations), otherwise the defaults; AL3_ALPHA_REL and
 * AL3_MAX_ITER replace the automatic penalty's alpha_rel and the Newton iterations allowed per step (the benchmark's
 * second try where the defaults fail). */
static void options(const provider *pv, ad_al3 *ad, double h, mb_sim_options *o) {
    memset(o, 0, sizeof *o);
    mb_sim_options_default(o, &wm);
    if (getenv("AL3_ALPHA_REL")) o->al3.alpha_rel = atof(getenv("AL3_ALPHA_REL"));
    if (getenv("AL3_MAX_ITER")) o->al3.max_iter = atoi(getenv("AL3_MAX_ITER"));
    o->formulation = MB_FORMULATION_AL3;
    o->integrator = MB_INTEGRATOR_TRAPEZOIDAL;
    o->step = h;
    o->al3.approx_tangent = 1;
    o->al3.jacobian_reuse = 3;
    o->al3.sparse = pv->sparse;
    o->al3.fd_tangent = pv->fd;
    if (ad) {
        o->al3.jacobian.fn = timed_hook;
        o->al3.jacobian.ctx = ad;
        o->al3.jacobian.pattern = ad_al3_pattern(ad);
    }
}

static void run(const provider *pv, ad_al3 *ad, double h, double t_end, result *r) {
    mb_sim_options o;
    options(pv, ad, h, &o);
    balance b;
    memset(&b, 0, sizeof b);
    r->ok = 0;
    memset(&g, 0, sizeof g);
    mb_sim *s = mb_sim_create(&wm, &o, r->msg, sizeof r->msg);
    if (!s) return;
    if (!(b.q = malloc((size_t)wm.nz * sizeof *b.q))) {
        snprintf(r->msg, sizeof r->msg, "out of memory");
        goto done;
    }
    if (sample(s, &b, 1, 0)) goto sim_error;
    long n = lround(t_end / h);
    double total = 0;
    memset(&g, 0, sizeof g);
    for (long k = 1; k <= n; ++k) {
        double t_prev = mb_sim_t(s), tk = k == n ? t_end : k * h;
        g.in_advance = 1;
        double t0 = now();
        int rc = mb_sim_step(s, tk);
        total += now() - t0;
        g.in_advance = 0;
        if (rc || sample(s, &b, 0, mb_sim_t(s) - t_prev)) goto sim_error;
    }
    mb_stats st;
    mb_sim_stats(s, &st);
    double v[3];
    if (mb_sim_constraint_violation(s, v)) goto sim_error;
    r->ok = 1;
    r->time = total;
    r->jac = g.jac;
    r->fd_calls = g.fd_calls;
    r->fd_jac = g.fd_sampled > 0 ? g.fd_sampled_s * g.fd_calls / g.fd_sampled : 0;
    r->hook_calls = g.hook_calls;
    r->dense_calls = g.dense_calls;
    r->csc_calls = g.csc_calls;
    r->steps = st.steps;
    r->newton = st.newton_iters;
    r->derivs = st.deriv_evals;
    r->drift = b.worst;
    r->scale = b.scale;
    r->phi = v[0];
    memcpy(r->z, mb_sim_z(s), (size_t)wm.nz * sizeof(double));
    memcpy(r->zd, mb_sim_zd(s), (size_t)wm.nz * sizeof(double));
    goto done;
sim_error:
    snprintf(r->msg, sizeof r->msg, "at t = %.6g: %s; there Phi_z's smallest singular value is %.2g of its largest",
             mb_sim_t(s), mb_sim_errmsg(s), phi_z_sv_ratio(mb_sim_t(s), mb_sim_z(s)));
done:
    free(b.q);
    mb_sim_free(s);
}

/* ---- the check at one state ---- */
static double rel_diff(const double *A, const double *B, size_t count) {
    double e = 0, s = 0;
    for (size_t k = 0; k < count; ++k) {
        e = fmax(e, fabs(A[k] - B[k]));
        s = fmax(s, fabs(B[k]));
    }
    return isfinite(e) ? e / (s > 0 ? s : 1) : INFINITY;
}

/* values in pattern pt (an nz x cols block starting at column c0 of the nz x 2nz J) into dense J. */
static void scatter(const mb_pattern *pt, const double *values, int c0, double *J) {
    for (int j = 0; j < pt->cols; ++j)
        for (int k = pt->colptr[j]; k < pt->colptr[j + 1]; ++k)
            J[pt->rowind[k] + (size_t)(c0 + j) * pt->rows] = values[k];
}

/* The analytic [dr/dz at zdd = 0, dr/dzd] at a, dense, into J (nz x 2nz). */
static void analytic(const mb_args *a, double *J, double *work) {
    size_t n = (size_t)wm.nz;
    orig_inverse_dynamics_dz(a, J, work);
    orig_inverse_dynamics_dzd(a, J + n * n, work);
}

/* The sparse path's generated forms against the dense ones: the compressed dr/dz and dr/dzd, and the compressed
 * tangent with weights (1, 0, 0) and (0, 1, 0). -1 when the model has none of them. */
static double check_sparse(const mb_args *a, const double *Ja, double *J, double *v, double *work) {
    size_t n = (size_t)wm.nz, nn = n * n;
    double worst = -1;
    memset(J, 0, 2 * nn * sizeof *J);
    if (orig_inverse_dynamics_dz_csc && orig_inverse_dynamics_dzd_csc) {
        orig_inverse_dynamics_dz_csc(a, v, work);
        scatter(MB_MODEL.inverse_dynamics_dz_pattern, v, 0, J);
        orig_inverse_dynamics_dzd_csc(a, v, work);
        scatter(MB_MODEL.inverse_dynamics_dzd_pattern, v, 0, J + nn);
        worst = rel_diff(J, Ja, 2 * nn);
    }
    if (orig_inverse_dynamics_tangent_csc) {
        for (int which = 0; which < 2; ++which) {
            double w[3] = {which == 0, which == 1, 0};
            mb_args b = *a;
            b.w = w;
            memset(J, 0, nn * sizeof *J);
            orig_inverse_dynamics_tangent_csc(&b, v, work);
            scatter(MB_MODEL.inverse_dynamics_tangent_pattern, v, 0, J);
            worst = fmax(worst, rel_diff(J, Ja + which * nn, nn));
        }
    }
    return worst;
}

/* Central differences of the generated residual with fd_tangent's steps, 1e-6 (1 + |y_j|). */
static void central(const mb_args *a, double *J, double *work) {
    int n = wm.nz;
    double *y = malloc(2 * (size_t)n * sizeof *y), *r1 = malloc((size_t)n * sizeof *r1),
           *r2 = malloc((size_t)n * sizeof *r2);
    memcpy(y, a->z, (size_t)n * sizeof *y);
    memcpy(y + n, a->zd, (size_t)n * sizeof *y);
    mb_args b = *a;
    b.z = y;
    b.zd = y + n;
    for (int j = 0; j < 2 * n; ++j) {
        double y0 = y[j], step = 1e-6 * (1 + fabs(y0));
        y[j] = y0 + step;
        orig_inverse_dynamics(&b, r1, work);
        y[j] = y0 - step;
        orig_inverse_dynamics(&b, r2, work);
        y[j] = y0;
        for (int i = 0; i < n; ++i) J[i + (size_t)j * n] = (r1[i] - r2[i]) / (2 * step);
    }
    free(y);
    free(r1);
    free(r2);
}

static int parse_list(const char *s, double *v, int max) {
    int k = 0;
    char *end;
    while (*s && k < max) {
        v[k] = strtod(s, &end);
        if (end == s || !(v[k] > 0)) return -1;
        ++k;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return k;
}

static int wanted(const char *list, const char *name) {
    if (!list) return 1;
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
    return 0;
}

int main(int argc, char **argv) {
    double hs[16], t_end = argc > 1 ? atof(argv[1]) : 0;
    int nh = argc > 2 ? parse_list(argv[2], hs, 16) : -1;
    if (argc < 3 || !(t_end > 0) || nh < 1) {
        fprintf(stderr, "usage: %s T_END H_MS[,H_MS...] [PROVIDER,...]\n", argv[0]);
        return 2;
    }
    const char *only = argc > 3 ? argv[3] : NULL;
    int reps_given = getenv("BENCH_REPS") != NULL, reps = reps_given ? atoi(getenv("BENCH_REPS")) : 1;
    if (reps < 1) reps = 1;
    wrap_model();
    measure_clock_cost();
    const int n = wm.nz;
    const size_t nn = (size_t)n * n;
    char err[MB_ERRLEN] = "";
    printf("model %s\nn %d\nnc %d\nt_end %g\n", wm.name, n, wm.nc, t_end);

    /* The check's state: the assembled start moved off it (every term of r alive, the constraints need not hold),
     * with t and u not zero; the tape is recorded there too. */
    mb_sim_options o0;
    options(&PROVIDERS[0], NULL, hs[0] * 1e-3, &o0);
    printf("alpha_rel %g\nmax_iter %d\n", o0.al3.alpha_rel, o0.al3.max_iter);
    mb_sim *s0 = mb_sim_create(&MB_MODEL, &o0, err, sizeof err);
    if (!s0) {
        fprintf(stderr, "al3prov: the model does not start: %s\n", err);
        return 1;
    }
    double *x = calloc(4 * nn + 4 * (size_t)n + (size_t)wm.nu + 1, sizeof *x);
    double *Ja = x, *J = x + 2 * nn, *z = J + 2 * nn, *zd = z + n, *zdd = zd + n, *u = zdd + n, *v = u + wm.nu + 1;
    double *work = mb_work_alloc(&wm), *Jv = malloc(2 * nn * sizeof *Jv);
    for (int i = 0; i < n; ++i) {
        z[i] = mb_sim_z(s0)[i] + 1e-2 * sin(1.7 * i + 0.3);
        zd[i] = mb_sim_zd(s0)[i] + 0.5 * cos(0.9 * i);
    }
    for (int i = 0; i < wm.nu; ++i) u[i] = 0.1 * sin(i + 1.0);
    mb_sim_free(s0);
    mb_args a = {0.37, z, zd, zdd, u, wm.p_default, NULL};
    analytic(&a, Ja, work);
    double res_ns;
    TIME(res_ns, orig_inverse_dynamics(&a, v, work); sink = v[0]);
    printf("residual_ns %.1f\nclock_ns %.1f\n", res_ns, clock_cost * 1e9);
    if (ad_al3_record(n, wm.nu, wm.np, &a, err, sizeof err)) {
        fprintf(stderr, "al3prov: %s\n", err);
        return 1;
    }
    ad_al3 *ads[NPROV] = {0};
    for (int k = 0; k < NPROV; ++k) {
        const provider *pv = &PROVIDERS[k];
        double e = -1, tol = pv->fd ? 1e-6 : 1e-10;
        if (pv->ad >= 0) {
            if (!(ads[k] = ad_al3_create((ad_mode)pv->ad, err, sizeof err))) {
                printf("check_%s_failed %s\n", pv->name, err);
                continue;
            }
            const mb_pattern *pt = ad_al3_pattern(ads[k]);
            memset(J, 0, 2 * nn * sizeof *J);
            if (ad_al3_jacobian(ads[k], &a, Jv, err, sizeof err)) {
                printf("check_%s_failed %s\n", pv->name, err);
                continue;
            }
            scatter(pt, Jv, 0, J);
            e = rel_diff(J, Ja, 2 * nn);
            printf("%s_nnz %d\n%s_directions %d\n", pv->name, pt->colptr[pt->cols], pv->name, ad_al3_colours(ads[k]));
        } else if (pv->sparse) {
            e = check_sparse(&a, Ja, J, Jv, work);
            if (wm.inverse_dynamics_tangent_pattern)
                printf("%s_nnz %d\n", pv->name, wm.inverse_dynamics_tangent_pattern->colptr[n]);
        } else if (pv->fd) {
            central(&a, J, work);
            e = rel_diff(J, Ja, 2 * nn);
        } else {
            e = 0;
        }
        if (e < 0) printf("check_%s_rel -\ncheck_%s_ok 0 (no compressed forms: generate with --csc)\n", pv->name, pv->name);
        else printf("check_%s_rel %.3e\ncheck_%s_ok %d\n", pv->name, e, pv->name, e <= tol);
    }
    printf("check_state the assembled start + 1e-2 sin(1.7 i + 0.3) in z, + 0.5 cos(0.9 i) in zd, t = 0.37, zdd = 0\n");
    fflush(stdout);

    result res[NPROV];
    for (int k = 0; k < NPROV; ++k) {
        res[k].z = malloc((size_t)n * sizeof(double));
        res[k].zd = malloc((size_t)n * sizeof(double));
    }
    for (int ih = 0; ih < nh; ++ih) {
        double h = hs[ih] * 1e-3;
        char hk[32];
        snprintf(hk, sizeof hk, "h%g", hs[ih]);
        for (char *c = hk; *c; ++c)
            if (*c == '.') *c = 'p';
        for (int k = 0; k < NPROV; ++k) {
            const provider *pv = &PROVIDERS[k];
            result *r = &res[k];
            r->ok = 0;
            if (!wanted(only, pv->name)) continue;
            if (pv->ad >= 0 && !ads[k]) {
                printf("%s_%s_failed no provider (see check_%s_failed)\n", pv->name, hk, pv->name);
                continue;
            }
            /* The fastest of BENCH_REPS runs; without it, of as many as make about a second (at most 20): a run
             * of the four-bar takes milliseconds. */
            double best = INFINITY, best_jac = 0, best_fd = 0;
            int nrep = reps;
            for (int rep = 0; rep < nrep; ++rep) {
                run(pv, pv->ad >= 0 ? ads[k] : NULL, h, t_end, r);
                if (!r->ok) break;
                if (r->time < best) {
                    best = r->time;
                    best_jac = r->jac;
                    best_fd = r->fd_jac;
                }
                if (!reps_given && rep == 0 && r->time < 0.2) nrep = (int)fmin(20, ceil(1.0 / fmax(r->time, 1e-6)));
            }
            if (!r->ok) {
                printf("%s_%s_failed %s\n", pv->name, hk, r->msg);
                fflush(stdout);
                continue;
            }
            r->time = best;
            r->jac = best_jac;
            r->fd_jac = best_fd;
            printf("%s_%s_reps %d\n", pv->name, hk, nrep);
            printf("%s_%s_time_s %.6f\n%s_%s_steps %ld\n%s_%s_newton %ld\n%s_%s_deriv_evals %ld\n", pv->name, hk, r->time,
                   pv->name, hk, r->steps, pv->name, hk, r->newton, pv->name, hk, r->derivs);
            if (pv->fd) {
                /* Sampled (see FD_SAMPLE), and only when the calls counted are the 4n per evaluation (2 per column of
                 * dr/dz and dr/dzd) the differences make: the count tells the calls apart from the Newton residuals. */
                printf("%s_%s_fd_calls %ld\n", pv->name, hk, r->fd_calls);
                if (r->fd_calls == 4L * n * r->derivs)
                    printf("%s_%s_jac_s %.6f\n%s_%s_jac_sampled 1 in %d\n", pv->name, hk, r->fd_jac, pv->name, hk, FD_SAMPLE);
            } else {
                printf("%s_%s_jac_s %.6f\n", pv->name, hk, r->jac);
            }
            /* Which derivatives the run called: the hook's, the generated dense or compressed ones. */
            printf("%s_%s_hook_calls %ld\n%s_%s_dense_calls %ld\n%s_%s_csc_calls %ld\n", pv->name, hk, r->hook_calls,
                   pv->name, hk, r->dense_calls, pv->name, hk, r->csc_calls);
            printf("%s_%s_drift %.6e\n%s_%s_energy_scale %.6e\n%s_%s_phi %.3e\n", pv->name, hk, r->drift, pv->name, hk,
                   r->scale, pv->name, hk, r->phi);
            if (k > 0 && res[0].ok) {
                double dz = 0, dzd = 0;
                for (int i = 0; i < n; ++i) {
                    dz = fmax(dz, fabs(r->z[i] - res[0].z[i]));
                    dzd = fmax(dzd, fabs(r->zd[i] - res[0].zd[i]));
                }
                printf("%s_%s_zdiff %.3e\n%s_%s_zddiff %.3e\n", pv->name, hk, dz, pv->name, hk, dzd);
            }
            fflush(stdout);
        }
    }
    for (int k = 0; k < NPROV; ++k) {
        ad_al3_free(ads[k]);
        free(res[k].z);
        free(res[k].zd);
    }
    free(x);
    free(Jv);
    free(work);
    return 0;
}
