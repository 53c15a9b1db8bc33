/* mbrun.c: the main program `mbgen run` compiles per model: options, simulation, CSV output, summary. */
/* Build: cc -std=c99 -O2 -Iruntime -DMB_MODEL=NAME_model runtime/driver/mbrun.c generated/NAME.c build/libmbrt.a -llapack -lm
 * Exit status: 0 success, 1 simulation or output error, 2 bad command line. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* isatty, fileno, clock_gettime */
#endif
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "mb_model.h"
#include "mb_work.h"
#include "output_csv.h"
#include "sim.h"
#include "statics.h"

#ifndef MB_MODEL
#error "compile with -DMB_MODEL=NAME_model"
#endif
extern const mb_model MB_MODEL;

#define MAX_SETS 64

typedef struct {
    double t_end, output_step;
    const char *out;
    const char *set_name[MAX_SETS];
    double set_value[MAX_SETS];
    int nset, quiet, statics, allow_drift;
    double drift_tol;
    mb_sim_options o;
} run_args;

static void usage(FILE *f, const char *prog) {
    fprintf(f,
            "usage: %s [options]\n"
            "  --t-end T             simulated time (default from the model's simulate element)\n"
            "  --step H              fixed step of rk4 and trapezoidal\n"
            "  --integrator I        rk4 | dopri5 | trapezoidal\n"
            "  --formulation F       tree | matrix_r | al3 | baumgarte | penalty (default: the model's, else tree for\n"
            "                        open trees, matrix_r for closed loops; al3 and penalty (al3 without its\n"
            "                        multipliers) always step with the trapezoidal rule; baumgarte: multipliers and\n"
            "                        Baumgarte's stabilisation, rk4 or dopri5)\n"
            "  --baumgarte-a A       baumgarte: damping of the constraint drift, 1/s (default 10)\n"
            "  --baumgarte-b B       baumgarte: stiffness of the constraint drift, 1/s (default 10)\n"
            "  --alpha A             al3, penalty: penalty (default automatic, --alpha-rel relative to M and h)\n"
            "  --alpha-rel R         al3, penalty: the automatic penalty relative to M and h (default 1e5)\n"
            "  --alpha-raise F       al3: the largest factor the penalty may rise by where the multiplier update\n"
            "                        stalls, near a singular configuration (default 1e4; 1: fixed penalty)\n"
            "  --jacobian-reuse K    al3, penalty: the residual's derivatives evaluated every K Newton iterations\n"
            "                        (default 1; M, the penalty term and the factorization at every iteration)\n"
            "  --jacobian J          al3, penalty: the tangent from the generated derivatives, factored dense\n"
            "                        (analytic) or in their compressed patterns by KLU (analytic-sparse: the model\n"
            "                        needs the compressed forms, `mbgen generate --csc`), or fd (central differences\n"
            "                        of the generated residual and Phi_z, dense); default auto: analytic-sparse when\n"
            "                        the model has the compressed forms and 40 or more coordinates, else analytic\n"
            "  --tolerance TOL       dopri5 relative and absolute tolerance\n"
            "  --max-steps N         steps allowed per output interval\n"
            "  --newton-tol TOL      trapezoidal, al3: Newton tolerance on the correction\n"
            "  --newton-max-iter N   trapezoidal, al3: Newton iterations per step\n"
            "  --forward-dynamics    rk4, dopri5: use the model's O(n) forward dynamics\n"
            "  --dense-kinematics    matrix_r, al3: factor the dependent block of Phi_z as one dense block, not\n"
            "                        split into the blocks of its pattern (the reference the split is checked\n"
            "                        against)\n"
            "  --runtime-reduction   matrix_r: invert Phi_z's dependent blocks, form R'M R and solve the reduced\n"
            "                        system in the runtime's loops, not in the model's generated code for its\n"
            "                        declared independent coordinates (the reference it is checked against)\n"
            "  --qr-kinematics       matrix_r, al3: factor every dependent block by pivoted QR, not square ones\n"
            "                        by Gauss-Jordan inverses (the reference the inverses are checked against)\n"
            "  --rod-inertia M       massive rods: exact (their mass in M), or point | linear | quadratic (their\n"
            "                        inertia forces from accelerations extrapolated from RK4's first stages,\n"
            "                        M without the rods; matrix_r with rk4). Default: the model's rods\n"
            "  --rod-partitioned     with a rod mode: a third of each rod's mass stays exact at each end, only\n"
            "                        the cross part is extrapolated\n"
            "  --out FILE.csv        write time, coordinates, velocities, energy, points, tyres; one row per\n"
            "                        output time, flushed as it is written\n"
            "  --output-step DT      spacing of the CSV rows (default about t_end / 1000)\n"
            "  --set NAME=VALUE      a design parameter (repeatable)\n"
            "  --static              start from the static equilibrium (zd = 0) found from the initial pose,\n"
            "                        with the model's initial velocities; prints the tyre loads\n"
            "  --drift-tol REL       energy balance threshold (default 5e-2): |E - E_start - W| over the largest\n"
            "                        T + |V| and |W| of the run, checked at every output time\n"
            "  --allow-drift         a balance beyond the threshold warns and exits 0 instead of 4\n"
            "  --quiet               no summary, no progress bar\n"
            "Exit status: 0 success, 1 the run failed (the message names the time, the step, the cause and what to\n"
            "try; the CSV keeps every row up to the last good state), 2 bad command line, 4 energy balance off.\n",
            prog);
}

/* --static: the static equilibrium from the assembled initial pose replaces the initial coordinates (the
 * initial velocities stay); prints the tyre loads against the weight. Returns 0 or 1 after a message. */
static int static_start(mb_sim *s, int quiet) {
    const mb_model *m = mb_sim_model(s);
    char err[MB_ERRLEN] = "";
    int rc = 1, iters = 0;
    double res[2] = {0, 0};
    size_t nz = (size_t)m->nz;
    double *z = malloc(2 * nz * sizeof *z), *tyr = NULL;
    mb_static *st = mb_static_create(m, NULL, err, sizeof err);
    if (!z || !st) {
        fprintf(stderr, "mbrun: error: %s\n", z ? err : "out of memory");
        goto done;
    }
    memcpy(z, mb_sim_z(s), nz * sizeof *z);
    memcpy(z + nz, mb_sim_zd(s), nz * sizeof *z);
    if (mb_static_solve(st, mb_sim_t(s), z, NULL, mb_sim_inputs(s), mb_sim_params(s), &iters, res, err, sizeof err)) {
        fprintf(stderr, "mbrun: error: %s\n", err);
        goto done;
    }
    if (mb_sim_set_state(s, mb_sim_t(s), z, z + nz) || mb_sim_assemble(s)) {
        fprintf(stderr, "mbrun: error: --static: %s\n", mb_sim_errmsg(s));
        goto done;
    }
    if (!quiet) {
        printf("static equilibrium: %d Newton iterations, max|force residual| %.3g, max|Phi| %.3g, tangent %s\n", iters,
               res[0], res[1], mb_static_fd_tangent(st) ? "by central differences" : "generated");
        double mass = NAN, g = sqrt(m->gravity[0] * m->gravity[0] + m->gravity[1] * m->gravity[1] +
                                    m->gravity[2] * m->gravity[2]);
        if (m->total_mass) {
            mb_args a = {mb_sim_t(s), z, NULL, NULL, mb_sim_inputs(s), mb_sim_params(s), NULL};
            double *work = mb_work_alloc(m);
            if (!work || m->total_mass(&a, &mass, work)) mass = NAN;
            free(work);
        }
        if (m->ntyre > 0) {
            if (!(tyr = malloc(MB_TYRE_OUTPUTS * (size_t)m->ntyre * sizeof *tyr))) goto done;
            if (mb_sim_tyres(s, tyr)) {
                fprintf(stderr, "mbrun: error: %s\n", mb_sim_errmsg(s));
                goto done;
            }
            double sum = 0;
            for (int i = 0; i < m->ntyre; ++i) {
                const double *o = tyr + MB_TYRE_OUTPUTS * i;
                printf("  tyre %-16s Fz = %.10g N, deflection %.6g m\n", m->tyre_names[i], o[2], o[5]);
                sum += o[2];
            }
            printf("tyre loads %.12g N, weight %.12g N (total mass %.10g kg), relative difference %.3g\n", sum, mass * g,
                   mass, fabs(sum - mass * g) / (mass * g));
        }
    }
    rc = 0;
done:
    free(z);
    free(tyr);
    mb_static_free(st);
    return rc;
}

/* A finite number, or a message and -1. */
static int parse_num(const char *opt, const char *s, double *out) {
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end != '\0' || errno == ERANGE) {
        fprintf(stderr, "mbrun: %s: '%s' is not a number\n", opt, s ? s : "");
        return -1;
    }
    if (!isfinite(v)) {
        fprintf(stderr, "mbrun: %s: %s is not a finite number\n", opt, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int takes_value(const char *opt) {
    static const char *const names[] = {"--t-end", "--step", "--integrator", "--formulation", "--alpha", "--alpha-rel",
                                        "--alpha-raise", "--tolerance", "--max-steps",
                                        "--newton-tol", "--newton-max-iter", "--out", "--output-step", "--set", "--drift-tol",
                                        "--rod-inertia", "--baumgarte-a", "--baumgarte-b", "--jacobian-reuse",
                                        "--jacobian"};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
        if (!strcmp(opt, names[i])) return 1;
    return 0;
}

/* Returns 0, or 2 after printing a message (the exit status for a bad command line). */
static int parse_args(int argc, char **argv, run_args *a) {
    const mb_model *m = &MB_MODEL;
    mb_sim_options_default(&a->o, m);
    a->t_end = m->simulate.t_end > 0 ? m->simulate.t_end : 10;
    a->drift_tol = 5e-2;
    for (int i = 1; i < argc; ++i) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        double v;
        int takes = 1;
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            usage(stdout, argv[0]);
            exit(0);
        } else if (!strcmp(opt, "--static")) {
            a->statics = 1;
            takes = 0;
        } else if (!strcmp(opt, "--quiet")) {
            a->quiet = 1;
            takes = 0;
        } else if (!strcmp(opt, "--allow-drift")) {
            a->allow_drift = 1;
            takes = 0;
        } else if (!strcmp(opt, "--forward-dynamics")) {
            a->o.use_forward_dynamics = 1;
            takes = 0;
        } else if (!strcmp(opt, "--dense-kinematics")) {
            a->o.kin.blocks = 0;
            takes = 0;
        } else if (!strcmp(opt, "--runtime-reduction")) {
            a->o.generated_reduction = 0;
            a->o.kin.generated = 0;
            takes = 0;
        } else if (!strcmp(opt, "--qr-kinematics")) {
            a->o.kin.lu = 0;
            takes = 0;
        } else if (!strcmp(opt, "--rod-partitioned")) {
            a->o.rod_partitioned = 1;
            takes = 0;
        } else if (!takes_value(opt)) {
            fprintf(stderr, "mbrun: unknown option '%s' (see --help)\n", opt);
            return 2;
        } else if (!val) {
            fprintf(stderr, "mbrun: %s needs a value (see --help)\n", opt);
            return 2;
        } else if (!strcmp(opt, "--t-end")) {
            if (parse_num(opt, val, &v)) return 2;
            if (v < 0) {
                fprintf(stderr, "mbrun: --t-end must be >= 0 (got %g)\n", v);
                return 2;
            }
            a->t_end = v;
        } else if (!strcmp(opt, "--step")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v > 0)) {
                fprintf(stderr, "mbrun: --step must be positive (got %g)\n", v);
                return 2;
            }
            a->o.step = v;
        } else if (!strcmp(opt, "--integrator")) {
            if (mb_integrator_parse(val, &a->o.integrator)) {
                fprintf(stderr, "mbrun: unknown integrator '%s' (choose rk4, dopri5 or trapezoidal)\n", val);
                return 2;
            }
        } else if (!strcmp(opt, "--baumgarte-a") || !strcmp(opt, "--baumgarte-b")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v >= 0)) {
                fprintf(stderr, "mbrun: %s must be >= 0 (got %g)\n", opt, v);
                return 2;
            }
            if (!strcmp(opt, "--baumgarte-a")) a->o.baumgarte_a = v;
            else a->o.baumgarte_b = v;
        } else if (!strcmp(opt, "--jacobian-reuse")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v >= 1) || v != floor(v) || v > 1000) {
                fprintf(stderr, "mbrun: --jacobian-reuse must be a whole number from 1 to 1000 (got %g)\n", v);
                return 2;
            }
            a->o.al3.jacobian_reuse = (int)v;
        } else if (!strcmp(opt, "--jacobian")) {
            static const char *const names[] = {"auto", "analytic", "analytic-sparse", "fd"};
            static const int sparse[] = {MB_AL3_SPARSE_AUTO, 0, 1, 0};
            int k = 0;
            while (k < 4 && strcmp(val, names[k])) ++k;
            if (k == 4) {
                fprintf(stderr, "mbrun: --jacobian takes auto, analytic, analytic-sparse or fd (got '%s')\n", val);
                return 2;
            }
            a->o.al3.sparse = sparse[k];
            a->o.al3.fd_tangent = k == 3;
        } else if (!strcmp(opt, "--rod-inertia")) {
            if (mb_rod_mode_parse(val, &a->o.rod_mode)) {
                fprintf(stderr, "mbrun: unknown rod inertia '%s' (choose exact, point, linear or quadratic)\n", val);
                return 2;
            }
        } else if (!strcmp(opt, "--formulation")) {
            if (mb_formulation_parse(val, &a->o.formulation)) {
                fprintf(stderr, "mbrun: unknown formulation '%s' (choose tree, matrix_r, al3, baumgarte or penalty)\n",
                        val);
                return 2;
            }
        } else if (!strcmp(opt, "--alpha")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v > 0)) {
                fprintf(stderr, "mbrun: --alpha must be positive (got %g)\n", v);
                return 2;
            }
            a->o.al3.alpha = v;
        } else if (!strcmp(opt, "--alpha-rel")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v > 0)) {
                fprintf(stderr, "mbrun: --alpha-rel must be positive (got %g)\n", v);
                return 2;
            }
            a->o.al3.alpha_rel = v;
        } else if (!strcmp(opt, "--alpha-raise")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v >= 1)) {
                fprintf(stderr, "mbrun: --alpha-raise must be 1 or more (got %g)\n", v);
                return 2;
            }
            a->o.al3.alpha_raise = v;
        } else if (!strcmp(opt, "--tolerance")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v > 0)) {
                fprintf(stderr, "mbrun: --tolerance must be positive (got %g)\n", v);
                return 2;
            }
            a->o.rtol = a->o.atol = v;
        } else if (!strcmp(opt, "--max-steps")) {
            if (parse_num(opt, val, &v)) return 2;
            if (v < 1 || v > 1e18 || v != floor(v)) {
                fprintf(stderr, "mbrun: --max-steps must be a positive integer (got %s)\n", val);
                return 2;
            }
            a->o.max_steps = (long)v;
        } else if (!strcmp(opt, "--newton-tol")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v > 0)) {
                fprintf(stderr, "mbrun: --newton-tol must be positive (got %g)\n", v);
                return 2;
            }
            a->o.newton_tol = v;
            a->o.al3.newton_tol = v;   /* al3 holds its own Newton options */
        } else if (!strcmp(opt, "--newton-max-iter")) {
            if (parse_num(opt, val, &v)) return 2;
            if (v < 1 || v > 1e6 || v != floor(v)) {
                fprintf(stderr, "mbrun: --newton-max-iter must be a positive integer (got %s)\n", val);
                return 2;
            }
            a->o.newton_max_iter = (int)v;
            a->o.al3.max_iter = (int)v;
        } else if (!strcmp(opt, "--out")) {
            a->out = val;
        } else if (!strcmp(opt, "--drift-tol")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v > 0)) {
                fprintf(stderr, "mbrun: --drift-tol must be positive (got %g)\n", v);
                return 2;
            }
            a->drift_tol = v;
        } else if (!strcmp(opt, "--output-step")) {
            if (parse_num(opt, val, &v)) return 2;
            if (!(v > 0)) {
                fprintf(stderr, "mbrun: --output-step must be positive (got %g)\n", v);
                return 2;
            }
            a->output_step = v;
        } else if (!strcmp(opt, "--set")) {
            const char *eq = strchr(val, '=');
            if (!eq || eq == val) {
                fprintf(stderr, "mbrun: --set expects NAME=VALUE (got '%s')\n", val);
                return 2;
            }
            if (a->nset == MAX_SETS) {
                fprintf(stderr, "mbrun: more than %d --set options\n", MAX_SETS);
                return 2;
            }
            if (parse_num("--set", eq + 1, &v)) return 2;
            /* Kept whole (argv memory); run() cuts the name at the first =. */
            a->set_name[a->nset] = val;
            a->set_value[a->nset++] = v;
        } else {
            fprintf(stderr, "mbrun: unknown option '%s' (see --help)\n", opt);
            return 2;
        }
        i += takes;
    }
    return 0;
}

/* Output times: for fixed steps a whole number of steps apart, so rows do not change the step. */
static double output_interval(const run_args *a) {
    double target = a->output_step > 0 ? a->output_step : a->t_end / 1000;
    if (a->o.integrator == MB_INTEGRATOR_DOPRI5 || a->output_step > 0) return target > 0 ? target : 1;
    double k = floor(target / a->o.step + 0.5);
    return (k < 1 ? 1 : k) * a->o.step;
}

static void progress(double frac, double t, double t_end) {
    char text[64];
    snprintf(text, sizeof text, "t = %.4g / %.4g s", t, t_end);
    draw_bar(frac, text);
}

/* What to try after a failure of the given status, in terms of this driver's options (NULL: nothing);
 * step 0: before the first step (assembly, initial state). */
static const char *hint(int status, long step, const mb_sim_options *o) {
    int closed = o->formulation != MB_FORMULATION_TREE;
    switch (status) {
    case MB_ERR_NAN:
        if (o->integrator == MB_INTEGRATOR_RK4)
            return closed ? "try a smaller --step, --integrator dopri5 (adaptive), or --formulation al3 (implicit) for a "
                            "stiff model"
                          : "try a smaller --step, --integrator dopri5 (adaptive), or --integrator trapezoidal (implicit) "
                            "for a stiff model";
        if (o->integrator == MB_INTEGRATOR_DOPRI5)
            return closed ? "try a smaller --tolerance, or --formulation al3 (implicit) for a stiff model"
                          : "try a smaller --tolerance, or --integrator trapezoidal (implicit) for a stiff model";
        return "try a smaller --step or more --newton-max-iter";
    case MB_ERR_NEWTON:
        if (step == 0) return "the mechanism does not close: check its initial coordinates and its dimensions (--set)";
        return o->formulation == MB_FORMULATION_AL3
                   ? "try a stiffer penalty (--alpha-rel 1e7, or a larger --alpha-raise), more --newton-max-iter, or a "
                     "smaller --step"
                   : "try a smaller --step or more --newton-max-iter";
    case MB_ERR_STEP_UNDERFLOW:
        return closed ? "the model is stiff or not smooth there: try --formulation al3 (implicit) or a larger --tolerance"
                      : "the model is stiff or not smooth there: try --integrator trapezoidal (implicit) or a larger "
                        "--tolerance";
    case MB_ERR_MAX_STEPS: return "raise --max-steps, or take larger steps";
    case MB_ERR_SINGULAR:
        return "the mechanism reached a singular configuration (a dead point, or its degrees of freedom changed): "
               "check its dimensions and its initial state";
    case MB_ERR_NOT_PD:
        return "the mass matrix is not positive definite: check the masses and inertias (a coordinate that moves no "
               "mass) and the configuration";
    default: return NULL;
    }
}

/* The one message of a failed run, the same with and without --out: the time and the step of the last good
 * state, the cause (naming the coordinate), and what to try. `step` is the step that failed (the last good
 * one when a check of the state after it failed). A non-finite value after the energies grew by orders of
 * magnitude is a divergence; otherwise a model function left its domain, or the step was too large. */
static void fail_run(const mb_sim *s, long step, int status, const char *cause, int diverged) {
    const char *h = hint(status, step, mb_sim_get_options(s)), *what = "";
    if (status == MB_ERR_NAN)
        what = diverged ? "; the run diverged" : "; a model function may have left its domain (sqrt or log of a negative "
                                             "number, a division by zero), or the run diverged";
    fprintf(stderr, "%smbrun: error at t = %.10g (step %ld): %s%s%s%s\n", isatty(fileno(stderr)) ? "\r\033[K" : "",
            mb_sim_t(s), step, cause, what, h ? ": " : "", h ? h : "");
}

/* The energy balance E - E_start - W over a run, W the work of the non-conservative forces and of the
 * constraints (drives): trapezoidal quadrature of their power over the output times, second order in the
 * output interval (--output-step refines it). */
typedef struct {
    int track;                  /* the model has energy and forces_nc */
    double T0, V0, T, V;        /* energy at the start and now */
    double work, work_c;        /* non-conservative forces, constraints */
    double p_prev, pc_prev;     /* their power at the last sample */
    double scale;               /* largest T + |V| and |W| so far */
    double worst;               /* largest |balance| / scale at a sample */
    double t_worst, t_first;    /* where it was largest, where it first exceeded the threshold (NAN: never) */
    long step_first;
} balance;

static double bal_value(const balance *b) { return b->T + b->V - b->T0 - b->V0 - b->work - b->work_c; }
/* The last good state is far beyond any physical one (SI units): a blow-up, not a model function outside
 * its domain. */
static int grew(const mb_sim *s) {
    const mb_model *m = mb_sim_model(s);
    for (int i = 0; i < m->nz; ++i)
        if (!(fabs(mb_sim_z(s)[i]) < 1e20 && fabs(mb_sim_zd(s)[i]) < 1e20)) return 1;
    return 0;
}

/* Checks the state after a step (or at the start: first, dt = 0) and samples the energy balance; returns a
 * status with the cause in msg. Every check runs whether or not rows are written (csv with a NULL file). */
static int sample(mb_sim *s, mb_csv *csv, balance *b, double *q, int first, double dt, double tol, char *msg,
                  size_t len) {
    const mb_model *m = mb_sim_model(s);
    const double *z = mb_sim_z(s), *zd = mb_sim_zd(s);
    int rc;
    for (int i = 0; i < 2 * m->nz; ++i) {
        double v = i < m->nz ? z[i] : zd[i - m->nz];
        if (!isfinite(v))
            return mb_fail(msg, len, MB_ERR_NAN, "%s[%d] (%s) is %g", i < m->nz ? "coordinate z" : "velocity zd", i % m->nz,
                           m->z_names ? m->z_names[i % m->nz] : "?", v);
    }
    if (m->energy && (rc = mb_sim_energy(s, &b->T, &b->V))) {
        /* Finite state, infinite energy: name the fastest coordinate. */
        int k = 0;
        for (int i = 1; i < m->nz; ++i)
            if (fabs(zd[i]) > fabs(zd[k])) k = i;
        return mb_fail(msg, len, rc, "%s; the largest velocity is zd[%d] (%s) = %.3g", mb_sim_errmsg(s), k,
                       m->z_names ? m->z_names[k] : "?", zd[k]);
    }
    if (first) {
        b->T0 = b->T;
        b->V0 = b->V;
    }
    if (b->track) {
        double p, pc = 0;
        if ((rc = mb_sim_power_nc(s, q, &p))) return mb_fail(msg, len, rc, "%s", mb_sim_errmsg(s));
        if (m->nc > 0 && (rc = mb_sim_power_constraints(s, q, &pc))) return mb_fail(msg, len, rc, "%s", mb_sim_errmsg(s));
        b->work += 0.5 * (b->p_prev + p) * dt;
        b->work_c += 0.5 * (b->pc_prev + pc) * dt;
        b->p_prev = p;
        b->pc_prev = pc;
        b->scale = fmax(b->scale, fmax(fabs(b->T) + fabs(b->V), fmax(fabs(b->work), fabs(b->work_c))));
        double rel = fabs(bal_value(b)) / fmax(b->scale, 1e-300);
        if (!(rel <= b->worst)) {
            b->worst = rel;
            b->t_worst = mb_sim_t(s);
        }
        if (rel > tol && isnan(b->t_first)) {
            mb_stats st;
            mb_sim_stats(s, &st);
            b->t_first = mb_sim_t(s);
            b->step_first = st.steps;
        }
    }
    if ((rc = mb_csv_row(csv, s, msg, len))) return rc;
    return MB_OK;
}

static int run(const run_args *a) {
    const mb_model *m = &MB_MODEL;
    char err[MB_ERRLEN] = "";
    FILE *f = NULL;
    mb_csv *csv = NULL;
    double *q = NULL;
    int status = 1, rc = MB_OK;
    balance b;
    memset(&b, 0, sizeof b);
    b.t_first = b.t_worst = NAN;

    mb_sim *s = mb_sim_create(m, &a->o, err, sizeof err);
    if (!s) { /* the initial state is evaluated (and a closed loop assembled) at create */
        fprintf(stderr, "mbrun: error at t = 0 (step 0): %s\n", err);
        return 1;
    }
    for (int k = 0; k < a->nset; ++k) {
        char name[256];
        size_t len = (size_t)(strchr(a->set_name[k], '=') - a->set_name[k]);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, a->set_name[k], len);
        name[len] = '\0';
        if (mb_sim_set_param(s, name, a->set_value[k])) {
            fprintf(stderr, "mbrun: error: --set: %s\n", mb_sim_errmsg(s));
            mb_sim_free(s);
            return 2;
        }
    }
    /* The initial state as the integration will start from it (closed loops assembled with the --set values). */
    if (a->nset && (rc = mb_sim_assemble(s))) {
        fail_run(s, 0, rc, mb_sim_errmsg(s), 0);
        goto done;
    }
    if (a->statics && (rc = static_start(s, a->quiet))) {
        mb_sim_free(s);
        return 1;
    }
    if (!(q = malloc((size_t)m->nz * sizeof *q))) {
        fprintf(stderr, "mbrun: error: out of memory\n");
        goto done;
    }
    /* The rows go straight to the file, flushed one by one: a run that fails keeps every good row. */
    if (a->out && !(f = fopen(a->out, "w"))) {
        fprintf(stderr, "mbrun: error: cannot write %s: %s\n", a->out, strerror(errno));
        goto done;
    }
    /* A buffer larger than a row (fourbar_grid: 10 KB), so a row reaches the file in one write. */
    if (f) setvbuf(f, NULL, _IOFBF, 1 << 18);
    if (!(csv = mb_csv_create(f, m, err, sizeof err))) goto out_error;
    b.track = m->energy && m->forces_nc;
    if ((rc = sample(s, csv, &b, q, 1, 0, a->drift_tol, err, sizeof err))) {
        if (rc == MB_ERR_IO) goto out_error;
        fail_run(s, 0, rc, err, 0);
        goto done;
    }

    int bar = !a->quiet && isatty(fileno(stderr)), shown = 0;
    double dt = output_interval(a), w0 = now();
    long nout = a->t_end > 0 ? (long)ceil(a->t_end / dt * (1 - 1e-12)) : 0;
    for (long k = 1; k <= nout; ++k) {
        double t = k == nout ? a->t_end : k * dt;
        double t_prev = mb_sim_t(s);
        mb_stats st;
        if ((rc = mb_sim_step(s, t))) {
            mb_sim_stats(s, &st);
            fail_run(s, st.steps + 1, rc, mb_sim_errmsg(s), grew(s));
            goto done;
        }
        if ((rc = sample(s, csv, &b, q, 0, mb_sim_t(s) - t_prev, a->drift_tol, err, sizeof err))) {
            if (rc == MB_ERR_IO) goto out_error;
            mb_sim_stats(s, &st);
            fail_run(s, st.steps, rc, err, grew(s) || rc == MB_ERR_NAN);
            goto done;
        }
        if (bar && now() - w0 > 2.0) {
            progress((double)k / nout, t, a->t_end);
            shown = 1;
        }
    }
    double wall = now() - w0;
    if (shown) fputs("\r\033[K", stderr); /* clear the bar line */
    if (f) {
        FILE *g = f;
        f = NULL;
        if (fclose(g) != 0) {
            fprintf(stderr, "mbrun: error: writing %s: %s\n", a->out, strerror(errno));
            goto done;
        }
    }

    mb_stats st;
    mb_sim_stats(s, &st);
    const mb_sim_options *o = mb_sim_get_options(s);
    if (!a->quiet) {
        printf("model %s: %d coordinates, integrator %s", m->name ? m->name : "?", m->nz,
               mb_integrator_name(o->integrator));
        if (o->integrator == MB_INTEGRATOR_DOPRI5) printf(" (rtol %g, atol %g)", o->rtol, o->atol);
        else printf(" (step %g)", o->step);
        printf(", t = 0 .. %g s\n", a->t_end);
        if (o->formulation == MB_FORMULATION_BAUMGARTE) {
            double vm[2];
            long nv = mb_sim_violation_max(s, vm);
            printf("formulation baumgarte (a = %g, b = %g): largest constraint violation over the run (%ld accepted "
                   "states): position %.3g, velocity %.3g\n", o->baumgarte_a, o->baumgarte_b, nv, vm[0], vm[1]);
        } else if (o->formulation != MB_FORMULATION_TREE) {
            printf("formulation %s\n", mb_formulation_name(o->formulation));
        }
        if (m->rod_inertia) {
            if (o->rod_mode == MB_ROD_EXACT)
                printf("rod inertia exact (the rods' mass in M)\n");
            else
                printf("rod inertia %s%s (extrapolated from RK4's first stages; %ld evaluations exact for lack of "
                       "history; the energy balance below is its price)\n", mb_rod_mode_name(o->rod_mode),
                       o->rod_partitioned ? ", partitioned (a third of each rod's mass exact at each end)" : "",
                       mb_sim_rod_exact_evals(s));
        }
        for (int k = 0; k < a->nset; ++k) printf("set %s\n", a->set_name[k]);
        printf("final state at t = %.10g:\n", mb_sim_t(s));
        for (int i = 0; i < m->nz; ++i)
            printf("  %-20s z = % .10f   zd = % .10f\n", m->z_names ? m->z_names[i] : "?", mb_sim_z(s)[i],
                   mb_sim_zd(s)[i]);
        if (m->energy) {
            printf("energy start %.10g (kinetic %.10g, potential %.10g)\n", b.T0 + b.V0, b.T0, b.V0);
            printf("energy end   %.10g (kinetic %.10g, potential %.10g)\n", b.T + b.V, b.T, b.V);
            if (b.track) {
                printf("energy change %.6g, work of non-conservative forces %.6g", b.T + b.V - b.T0 - b.V0, b.work);
                if (m->nc > 0) printf(", work of the constraints %.6g", b.work_c);
                printf(", balance %.3g (relative %.3g)\n", bal_value(&b), bal_value(&b) / fmax(b.scale, 1e-300));
            } else {
                printf("energy change %.3g (relative %.3g); non-conservative work is not tracked\n",
                       b.T + b.V - b.T0 - b.V0, (b.T + b.V - b.T0 - b.V0) / fmax(fabs(b.T0 + b.V0), 1e-300));
            }
        }
        if (m->nc > 0) {
            double v[3];
            if (mb_sim_constraint_violation(s, v) == MB_OK)
                printf("constraint violation at t = %.10g: position %.3g, velocity %.3g, acceleration %.3g "
                       "(%d equations, %d degrees of freedom, %ld re-selections of the independent coordinates)\n",
                       mb_sim_t(s), v[0], v[1], v[2], m->nc, mb_sim_dof(s), mb_sim_reselections(s));
            else
                printf("constraint violation: %s\n", mb_sim_errmsg(s));
        }
        printf("steps %ld, function evaluations %ld, rejected %ld, Newton iterations %ld, Jacobian evaluations %ld",
               st.steps, st.rhs_evals, st.rejected, st.newton_iters, st.jac_evals);
        if (st.deriv_evals > 0)
            printf(" (their derivatives evaluated %ld times: every %d iterations, %s)", st.deriv_evals,
                   o->al3.jacobian_reuse, o->al3.fd_tangent ? "central differences" : "analytic");
        printf("\n");
        if (mb_sim_al3(s)) {
            mb_al3_tangent_stats ts;
            mb_al3_tangent_info(mb_sim_al3(s), &ts);
            if (ts.sparse)
                printf("tangent: sparse, %d x %d with %ld structural non-zeros (%.3g %%), L + U %ld; KLU: %ld full "
                       "factorizations, %ld refactorizations\n", m->nz, m->nz, ts.nnz,
                       100.0 * ts.nnz / ((double)m->nz * m->nz), ts.lu_nnz, ts.full, ts.refactor);
            else
                printf("tangent: dense, %d x %d, LAPACK LU\n", m->nz, m->nz);
            mb_al3_penalty_stats ps;
            mb_al3_penalty_info(mb_sim_al3(s), &ps);
            if (m->nc > 0)
                printf("penalty: alpha %.3g at the start, raised %ld times where the multiplier update stalled (to "
                       "%g times at most, %g allowed)\n", ps.alpha0, ps.raises, ps.max_factor,
                       o->formulation == MB_FORMULATION_AL3 ? o->al3.alpha_raise : 1.0);
        }
        if (m->nc > 0) {
            int rows[8], cols[8], nb = mb_sim_blocks(s, rows, cols, 8);
            printf("dependent block of Phi_z: %ld factorizations (%.3g per function evaluation)",
                   mb_sim_factorizations(s), st.rhs_evals > 0 ? (double)mb_sim_factorizations(s) / st.rhs_evals : 0.0);
            if (nb > 0) printf(", in %d block%s (", nb, nb == 1 ? "" : "s");
            for (int b = 0; b < nb && b < 8; ++b) printf("%s%d x %d", b ? ", " : "", rows[b], cols[b]);
            if (nb > 0) printf("%s), %s", nb > 8 ? ", ..." : "", a->o.kin.lu ? "square ones inverted" : "all by pivoted QR");
            long gf = mb_sim_generated_factorizations(s);
            if (gf > 0)
                printf("; %ld of %ld by %s_matrix_r_dependent_factor", gf, mb_sim_factorizations(s),
                       m->name ? m->name : "?");
            long pf = mb_sim_paired_factorizations(s);
            if (pf > 0)
                printf("; Phi_z of %ld from the position problem's own pass (%s_constraints_and_dz)", pf,
                       m->name ? m->name : "?");
            printf("\n");
            const int *ind = mb_sim_independent(s);
            if (ind) {
                printf("independent coordinates (%d):", mb_sim_dof(s));
                for (int c = 0; c < mb_sim_dof(s); ++c)
                    printf("%s %s", c ? "," : "", m->z_names ? m->z_names[ind[c]] : "?");
                printf("\n");
            }
            for (long i = 0; mb_sim_reselection_note(s, i); ++i)
                printf("re-selection %ld: %s\n", i + 1, mb_sim_reselection_note(s, i));
            if (a->o.formulation == MB_FORMULATION_MATRIX_R) {
                printf("position problems: %ld Newton iterations (%.3g per function evaluation)\n",
                       mb_sim_position_iters(s), st.rhs_evals > 0 ? (double)mb_sim_position_iters(s) / st.rhs_evals : 0.0);
                long acc = 0, fused = mb_sim_fused_evals(s, &acc);
                printf("M, Q and constraint bias: %s (%ld of %ld evaluations in %s_mass_forces_bias)\n",
                       fused == acc && acc > 0 ? "one pass" : fused > 0 ? "one pass, in part" : "three functions", fused,
                       acc, m->name ? m->name : "?");
                long red = 0, gen = mb_sim_generated_reductions(s, &red);
                printf("reduced system R'M R: %s (%ld of %ld evaluations in %s_matrix_r_reduce)\n",
                       gen == red && red > 0 ? "generated" : gen > 0 ? "generated, in part" : "runtime loops", gen, red,
                       m->name ? m->name : "?");
            }
        }
        printf("wall time %.4g s, real-time factor %.4g\n", wall, wall > 0 ? a->t_end / wall : INFINITY);
        if (a->out) printf("wrote %s (%ld rows)\n", a->out, mb_csv_rows(csv));
        fflush(stdout);
    }
    status = 0;
    /* The energy balance: off by more than the threshold relative to the energies of the run, the run is
     * suspect (diverged when the balance is of the order of the energies themselves). */
    if (b.track && !isnan(b.t_first)) {
        fprintf(stderr,
                "mbrun: %s: energy balance off by %.3g relative to the run's energy scale %.3g J (threshold %g, first "
                "exceeded at t = %.10g, step %ld; largest at t = %.10g): %s: %s%s\n",
                a->allow_drift ? "warning" : "error", b.worst, b.scale, a->drift_tol, b.t_first, b.step_first,
                b.t_worst, b.worst > 0.5 ? "the run diverged" : "the energy drifted", hint(MB_ERR_NAN, 1, o),
                a->allow_drift ? "" : "; --allow-drift accepts the run");
        if (!a->allow_drift) status = 4;
    }
    goto done;

out_error:
    fprintf(stderr, "mbrun: error: %s: %s\n", a->out ? a->out : "output", err);
done:
    if (f) fclose(f);
    mb_csv_free(csv);
    mb_sim_free(s);
    free(q);
    return status;
}

int main(int argc, char **argv) {
    run_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    return run(&a);
}
