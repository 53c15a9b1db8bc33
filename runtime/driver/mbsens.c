/* mbsens.c: the main program `mbgen sens` compiles per model: psi and its gradient, optionally vs finite differences. */
/* Build: cc -std=c99 -O1 -Iruntime -DMB_MODEL=NAME_model runtime/driver/mbsens.c generated/NAME.c build/libmbrt.a -llapack -lm
 * Prints "key value" lines: model, objective, method, integrator, sens_kernel (open-tree DDM), step, t_end, psi,
 * grad.NAME per design parameter, fd.NAME with --fd, and the work counters. Exit status: 0 success, 1 run error, 2 bad command line. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "mb_model.h"
#include "sens.h"
#include "sens_start.h"

#ifndef MB_MODEL
#error "compile with -DMB_MODEL=NAME_model"
#endif
extern const mb_model MB_MODEL;

static void usage(FILE *f, const char *prog) {
    fprintf(f,
            "usage: %s [options]\n"
            "  --objective NAME      the objective (default: the model's first)\n"
            "  --method M            ddm | avm (default ddm; avm: trapezoidal for trees, for closed loops rk4 or, given,\n"
            "                        trapezoidal)\n"
            "  --integrator I        rk4 | dopri5 | trapezoidal (default: the model's simulate integrator)\n"
            "  --step H              fixed step of rk4 and trapezoidal (default: the model's)\n"
            "  --t-end T             final time (default: the model's)\n"
            "  --tolerance TOL       dopri5 relative and absolute tolerance (default 1e-8)\n"
            "  --checkpoints K       avm: checkpoints kept (default 0 = ceil(sqrt(steps)); the closed loops'\n"
            "                        trapezoidal and dopri5 adjoints: every step while 64 MiB hold them)\n"
            "  --newton-tol TOL      trapezoidal Newton tolerance (default 1e-12)\n"
            "  --sens-kernel K       open-tree DDM: recursive | jacobian | auto (default auto: fewer operations)\n"
            "  --set NAME=VALUE      a design parameter (repeatable)\n"
            "  --input NAME=VALUE    a constant input (repeatable; default 0)\n"
            "  --fd REL              also central finite differences of whole simulations, step REL max(1, |p|)\n"
            "  --formulation F       tree (open trees) | matrix_r (closed loops); the default; al3 has no\n"
            "                        sensitivities and is refused\n"
            "  --rod-inertia M       massive rods: exact | point | linear | quadratic (closed loops on rk4, DDM and\n"
            "                        AVM; default: the model's)\n"
            "  --rod-partitioned     with a rod mode: a third of each rod's mass stays exact at each end\n"
            "  --start-hold NAMES    closed loops: the start holds these coordinates (comma-separated, as many as the\n"
            "                        degrees of freedom) instead of the independent ones, for every p: a general\n"
            "                        coordinate q = h(z, p) then starts at h of that pose, and the gradient includes\n"
            "                        the start's dependence on p (default: the independent coordinates are held)\n"
            "  --allow-reselection   closed loops: carry on through a re-choice of the independent coordinates\n"
            "                        (default: stop there, since psi is not differentiable across it in general)\n"
            "  --repeat N            run N times and report the mean time (benchmarks)\n"
            "  --split               DDM: time the motion alone too (one more run, psi only) and print\n"
            "                        seconds_dynamics and sensitivity_share (the AVM prints them from its forward run)\n",
            prog);
}


/* A progress bar on stderr (a terminal): from 2 s into the run, at most 10 times a second; the clock is read every
 * 64 calls, since a call comes with every right-hand side. */
typedef struct {
    double start, after, last;   /* the run's start, the seconds before a bar, the last drawing */
    const char *phase;           /* of the last drawing: a new phase draws at once */
    unsigned calls;
    int shown;
} progress_bar;

static void draw_progress(void *ctx, const char *phase, double frac) {
    progress_bar *b = ctx;
    if (phase == b->phase && b->calls++ % 64) return;
    double t = now();
    if (t - b->start < b->after || (phase == b->phase && t - b->last < 0.1)) return;
    b->last = t, b->shown = 1, b->phase = phase;
    char text[64];
    snprintf(text, sizeof text, "%-7s %.0f s", phase, t - b->start);
    draw_bar(frac, text);
}

static int parse_num(const char *opt, const char *s, double *out) {
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) {
        fprintf(stderr, "mbsens: %s: '%s' is not a finite number\n", opt, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

/* The index of the name s[0 .. len) in names, or -1. */
static int name_index(const char *const *names, int count, const char *s, size_t len) {
    for (int i = 0; i < count; ++i)
        if (names && names[i] && strlen(names[i]) == len && strncmp(names[i], s, len) == 0) return i;
    return -1;
}

/* NAME=VALUE against a name list; the index or -1 with a message. */
static int parse_assign(const char *opt, const char *s, const char *const *names, int count, double *value) {
    const char *eq = s ? strchr(s, '=') : NULL;
    if (!eq) {
        fprintf(stderr, "mbsens: %s expects NAME=VALUE, got '%s'\n", opt, s ? s : "");
        return -1;
    }
    size_t len = (size_t)(eq - s);
    int i = name_index(names, count, s, len);
    if (i >= 0) return parse_num(opt, eq + 1, value) ? -1 : i;
    fprintf(stderr, "mbsens: %s: '%.*s' is not a name of this model\n", opt, (int)len, s);
    return -1;
}

/* Everything but the arrays, which main owns so that every exit frees them. */
/* "J0,J4" -> ascending indices into z; their count, or -1 with a message. */
static int parse_hold(const mb_model *m, const char *s, int *hold) {
    int count = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        int k = name_index(m->z_names, m->nz, s, len);
        if (k < 0 || count == m->nz) {
            fprintf(stderr, "mbsens: --start-hold: %s '%.*s'\n", k < 0 ? "no coordinate" : "more names than coordinates at",
                    (int)len, s);
            return -1;
        }
        int at = count++;
        while (at > 0 && hold[at - 1] > k) hold[at] = hold[at - 1], --at;
        hold[at] = k;
        s += len + (s[len] == ',');
    }
    return count;
}

/* The start for the current p: the model's guess, assembled holding hold[] (sens_start.h). */
typedef struct {
    int count;
    int *hold;
    double *z0, *zd0, *z0_p, *zd0_p;
} held_start;

static int start_for(const mb_model *m, held_start *hs, mb_sens_problem *pr, char *err, size_t errlen) {
    if (hs->count == 0) return MB_OK;
    for (int i = 0; i < m->nz; ++i) hs->z0[i] = m->z0 ? m->z0[i] : 0, hs->zd0[i] = m->zd0 ? m->zd0[i] : 0;
    pr->z0 = hs->z0, pr->zd0 = hs->zd0, pr->z0_p = hs->z0_p, pr->zd0_p = hs->zd0_p;
    return mb_sens_start_hold(m, pr->t0, pr->p, pr->u, hs->hold, hs->count, hs->z0, hs->zd0, hs->z0_p, hs->zd0_p, err,
                              errlen);
}

static int sens_main(int argc, char **argv, double *p, double *u, double *grad, double *fd, held_start *hs) {
    const mb_model *m = &MB_MODEL;
    int np = m->np, nu = m->nu;
    for (int j = 0; j < np; ++j) p[j] = m->p_default ? m->p_default[j] : 0;
    mb_sens_problem pr;
    mb_sens_problem_default(&pr, m);
    pr.p = p;
    pr.u = u;
    mb_sens_options o;
    mb_sens_options_default(&o, m);
    o.rtol = o.atol = 1e-8;
    double fd_rel = 0, v;
    long repeat = 1;
    int integrator_given = 0, split = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, argv[0]);
            return 0;
        }
        if (!strcmp(a, "--allow-reselection")) {
            o.allow_reselection = 1;
            continue;
        }
        if (!strcmp(a, "--rod-partitioned")) {
            o.rod_partitioned = 1;
            continue;
        }
        if (!strcmp(a, "--split")) {
            split = 1;
            continue;
        }
        if (!val) {
            fprintf(stderr, "mbsens: %s needs a value (or is unknown)\n", a);
            usage(stderr, argv[0]);
            return 2;
        }
        ++i;
        if (!strcmp(a, "--start-hold")) {
            if (m->nc == 0) {
                fprintf(stderr, "mbsens: --start-hold: model %s has no closed loops; its start is its z0\n", m->name);
                return 2;
            }
            if ((hs->count = parse_hold(m, val, hs->hold)) < 0) return 2;
        } else if (!strcmp(a, "--objective")) {
            if ((pr.objective = mb_sens_objective_index(m, val)) < 0) {
                fprintf(stderr, "mbsens: model %s has no objective '%s' (it has:", m->name, val);
                for (int k = 0; k < m->nobj; ++k) fprintf(stderr, " %s", m->objectives[k].name);
                fprintf(stderr, ")\n");
                return 2;
            }
        } else if (!strcmp(a, "--method")) {
            if (mb_sens_method_parse(val, &o.method)) {
                fprintf(stderr, "mbsens: --method: '%s' is not ddm or avm\n", val);
                return 2;
            }
        } else if (!strcmp(a, "--integrator")) {
            if (mb_integrator_parse(val, &o.integrator)) {
                fprintf(stderr, "mbsens: --integrator: '%s' is not rk4, dopri5 or trapezoidal\n", val);
                return 2;
            }
            integrator_given = 1;
        } else if (!strcmp(a, "--step")) {
            if (parse_num(a, val, &o.step) || !(o.step > 0)) return 2;
        } else if (!strcmp(a, "--t-end")) {
            if (parse_num(a, val, &pr.t_end)) return 2;
        } else if (!strcmp(a, "--tolerance")) {
            if (parse_num(a, val, &o.rtol) || !(o.rtol > 0)) return 2;
            o.atol = o.rtol;
        } else if (!strcmp(a, "--checkpoints")) {
            if (parse_num(a, val, &v) || v < 0 || v != floor(v) || v > 1e9) return 2;
            o.checkpoints = (int)v;
        } else if (!strcmp(a, "--sens-kernel")) {
            if (mb_sens_kernel_parse(val, &o.kernel)) {
                fprintf(stderr, "mbsens: --sens-kernel: '%s' is not recursive, jacobian or auto\n", val);
                return 2;
            }
        } else if (!strcmp(a, "--rod-inertia")) {
            if (mb_rod_mode_parse(val, &o.rod_mode)) {
                fprintf(stderr, "mbsens: --rod-inertia: '%s' is not exact, point, linear or quadratic\n", val);
                return 2;
            }
        } else if (!strcmp(a, "--newton-tol")) {
            if (parse_num(a, val, &o.newton_tol) || !(o.newton_tol > 0)) return 2;
        } else if (!strcmp(a, "--set")) {
            int k = parse_assign(a, val, m->p_names, np, &v);
            if (k < 0) return 2;
            p[k] = v;
        } else if (!strcmp(a, "--input")) {
            int k = parse_assign(a, val, m->u_names, nu, &v);
            if (k < 0) return 2;
            u[k] = v;
        } else if (!strcmp(a, "--formulation")) {
            const char *want = m->nc > 0 ? "matrix_r" : "tree";
            if (strcmp(val, want) != 0) {
                fprintf(stderr, "mbsens: --formulation %s: %s\n", val,
                        !strcmp(val, "al3") ? "al3 has no sensitivities; closed loops take theirs on matrix_r"
                        : m->nc > 0 ? "a model with closed loops takes its sensitivities on matrix_r"
                                    : "an open tree takes its sensitivities on the tree formulation");
                return 2;
            }
        } else if (!strcmp(a, "--fd")) {
            if (parse_num(a, val, &fd_rel) || !(fd_rel > 0)) return 2;
        } else if (!strcmp(a, "--repeat")) {
            if (parse_num(a, val, &v) || v < 1 || v != floor(v)) return 2;
            repeat = (long)v;
        } else {
            fprintf(stderr, "mbsens: unknown option %s\n", a);
            usage(stderr, argv[0]);
            return 2;
        }
    }
    /* The adjoint runs on the trapezoidal rule for trees; for closed loops on rk4 unless the trapezoidal rule is asked
     * for (rk4 stays their default: a model's trapezoidal simulate would otherwise change what --method avm ran). */
    if (o.method == MB_SENS_AVM && !integrator_given)
        o.integrator = m->nc > 0 ? MB_INTEGRATOR_RK4 : MB_INTEGRATOR_TRAPEZOIDAL;

    char err[MB_ERRLEN] = "";
    double psi = 0;
    mb_sens_stats st;
    double t0 = now();
    /* MBSENS_PROGRESS_AFTER: seconds before the bar shows (default 2; the tests draw it at once). */
    const char *after = getenv("MBSENS_PROGRESS_AFTER");
    progress_bar pb = {t0, after ? atof(after) : 2, 0, NULL, 0, 0};
    if (isatty(fileno(stderr))) o.progress = draw_progress, o.progress_ctx = &pb;
    for (long r = 0; r < repeat; ++r)
        if (start_for(m, hs, &pr, err, sizeof err) || mb_sens_run(&pr, &o, &psi, grad, &st, err, sizeof err)) {
            if (pb.shown) fputs("\r\033[K", stderr);
            fprintf(stderr, "mbsens: %s\n", err);
            return 1;
        }
    double secs = (now() - t0) / repeat;
    if (pb.shown) fputs("\r\033[K", stderr); /* clear the bar's line */
    /* The cost split: the motion alone, on the same steps (the AVM's forward run; for the DDM one more run). */
    double dyn = -1;
    if (o.method == MB_SENS_AVM) dyn = st.seconds_forward;
    else if (split) {
        mb_sens_options os = o;
        os.psi_only = 1, os.progress = NULL;
        double ps, t1 = now();
        for (long r = 0; r < repeat; ++r)
            if (mb_sens_run(&pr, &os, &ps, NULL, NULL, err, sizeof err)) {
                fprintf(stderr, "mbsens: --split, the motion alone: %s\n", err);
                return 1;
            }
        dyn = (now() - t1) / repeat;
    }
    printf("model %s\nobjective %s\nmethod %s\nformulation %s\nintegrator %s\n", m->name,
           m->objectives[pr.objective].name, o.method == MB_SENS_AVM ? "avm" : "ddm", m->nc > 0 ? "matrix_r" : "tree",
           mb_integrator_name(o.integrator));
    if (st.kernel != MB_SENS_KERNEL_AUTO) printf("sens_kernel %s\n", mb_sens_kernel_name(st.kernel));
    if (m->rod_inertia) printf("rod_inertia %s%s\n", mb_rod_mode_name(o.rod_mode), o.rod_partitioned ? " partitioned" : "");
    printf("step %.17g\nt_end %.17g\npsi %.17g\n", o.step, pr.t_end, psi);
    for (int j = 0; j < np; ++j) printf("grad.%s %.17g\n", m->p_names[j], grad[j]);
    printf("steps %ld\nrecomputed_steps %ld\nfactorizations %ld\nrhs_evals %ld\nstored_states %ld\nreselections %ld\n"
           "seconds %.6g\nreal_time_factor %.4g\n",
           st.steps, st.recomputed_steps, st.factorizations, st.rhs_evals, st.stored_states, st.reselections, secs,
           secs > 0 ? (pr.t_end - pr.t0) / secs : 0.0);
    if (dyn >= 0)
        printf("seconds_dynamics %.6g\nsensitivity_share %.3f\n", dyn, secs > 0 ? fmax(0, 1 - dyn / secs) : 0.0);
    if (fd_rel > 0) {
        /* Whole simulations with the same discretization, psi alone. */
        mb_sens_options of = o;
        of.psi_only = 1;
        double t1 = now();
        for (int j = 0; j < np; ++j) {
            double pj = p[j], d = fd_rel * fmax(1.0, fabs(pj)), hi, lo;
            p[j] = pj + d;
            int rc = start_for(m, hs, &pr, err, sizeof err);
            if (!rc) rc = mb_sens_run(&pr, &of, &hi, NULL, NULL, err, sizeof err);
            p[j] = pj - d;
            if (!rc) rc = start_for(m, hs, &pr, err, sizeof err);
            if (!rc) rc = mb_sens_run(&pr, &of, &lo, NULL, NULL, err, sizeof err);
            p[j] = pj;
            if (rc) {
                fprintf(stderr, "mbsens: finite differences, parameter %s: %s\n", m->p_names[j], err);
                return 1;
            }
            fd[j] = (hi - lo) / (2 * d);
            printf("fd.%s %.17g\n", m->p_names[j], fd[j]);
        }
        printf("fd_seconds %.6g\n", now() - t1);
    }
    return 0;
}

int main(int argc, char **argv) {
    size_t np = (size_t)(MB_MODEL.np > 0 ? MB_MODEL.np : 1), nu = (size_t)(MB_MODEL.nu > 0 ? MB_MODEL.nu : 1);
    double *p = calloc(np, sizeof(double)), *u = calloc(nu, sizeof(double));
    double *grad = calloc(np, sizeof(double)), *fd = calloc(np, sizeof(double));
    int rc = 1;
    size_t nz = (size_t)MB_MODEL.nz, nS = nz * np;
    held_start hs = {0, calloc(nz + 1, sizeof(int)), calloc(nz + 1, sizeof(double)), calloc(nz + 1, sizeof(double)),
                     calloc(nS + 1, sizeof(double)), calloc(nS + 1, sizeof(double))};
    if (!p || !u || !grad || !fd || !hs.hold || !hs.z0 || !hs.zd0 || !hs.z0_p || !hs.zd0_p)
        fprintf(stderr, "mbsens: out of memory\n");
    else rc = sens_main(argc, argv, p, u, grad, fd, &hs);
    free(p);
    free(u);
    free(grad);
    free(fd);
    free(hs.hold);
    free(hs.z0);
    free(hs.zd0);
    free(hs.z0_p);
    free(hs.zd0_p);
    return rc;
}
