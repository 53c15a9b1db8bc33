/* formulation_matrix_r.c: the Matrix R reduced ODE of a closed-loop model; knows no integrator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formulation_matrix_r.h"
#include "linalg.h"
#include "mb_work.h"
#include "rod_history.h"

/* The mass matrices a run may take: M, M without the rods' inertia, M with a third of each rod's mass at each end. */
enum { MASS_FULL, MASS_TREE, MASS_LUMPED, MASS_FORMS };

struct mb_mr {
    const mb_model *m;
    mb_kin *kin;
    int nz;
    double *M, *Q, *R, *MR, *Mb;  /* nz x nz each (R, MR: nz x dof; Mb: dof x dof); M has room for
                                   * NAME_mass_forces_bias's Q and bias after it */
    double *x, *zw, *zdw, *zlast, *tmp;  /* nz */
    double *work;                 /* the model functions' workspace */
    int *colptr, *rowind;         /* the structural non-zeros by column of the mass matrix in use (form) */
    int *pcol[MASS_FORMS], *prow[MASS_FORMS];  /* those of each form: its pattern, or every row */
    int *empty;                   /* nz + 1 zeros: R's pattern when no coordinate is dependent */
    int *mark;                    /* nz + 1 flags, zero between uses */
    int have_last;
    int reduced;                  /* R, MR's factor Mb: of the last mb_mr_accel (0: none) */
    long r_choice;                /* the choice R was filled under (mb_kin_choice; -1: none) */
    int allow_generated;          /* the model's generated reduction may be used (mb_mr_set_generated) */
    int generated;                /* it holds for the current choice (checked when the choice changes) */
    long evals, generated_evals;  /* mb_mr_accel calls that reduced, and those that did it in generated code */
    long accels, fused_evals;     /* mb_mr_accel calls, and those that took M, Q, bias from NAME_mass_forces_bias */
    long pos_iters;
    /* Massive rods' inertia forces (seeds/002.md §2.3-2.6): the mode, the history of first-stage accelerations,
     * the integrator's stage (1: the first, at an accepted point; 0: outside a step), the extrapolated zdd and
     * the forces M_rod zdd (or their cross part); exact_evals counts evaluations with too little history. */
    mb_rod_mode rod_mode;
    int rod_partitioned, stage, form;   /* form: MASS_FULL, _TREE or _LUMPED at the last mb_mr_accel */
    mb_rod_history hist;
    double *zhat, *sdif;
    long exact_evals;
};

void mb_mr_free(mb_mr *mr) {
    if (!mr) return;
    mb_kin_free(mr->kin);
    free(mr->M);
    free(mr->Q);
    free(mr->R);
    free(mr->MR);
    free(mr->Mb);
    free(mr->x);
    free(mr->zw);
    free(mr->zdw);
    free(mr->zlast);
    free(mr->tmp);
    free(mr->work);
    for (int f = 0; f < MASS_FORMS; ++f) {
        free(mr->pcol[f]);
        free(mr->prow[f]);
    }
    free(mr->empty);
    free(mr->mark);
    mb_rod_history_free(&mr->hist);
    free(mr->zhat);
    free(mr->sdif);
    free(mr);
}

mb_mr *mb_mr_create(const mb_model *m, const mb_kin_options *o, char *err, size_t errlen) {
    if (!m || m->nz < 1) {
        mb_fail(err, errlen, MB_ERR_ARG, "matrix_r: %s", m ? "the model has no coordinates" : "no model");
        return NULL;
    }
    if (!m->mass || !m->forces) {
        mb_fail(err, errlen, MB_ERR_MODEL, "model %s lacks mass or forces, needed by matrix_r",
                m->name ? m->name : "?");
        return NULL;
    }
    mb_mr *mr = calloc(1, sizeof *mr);
    if (!mr) goto nomem;
    mr->m = m;
    mr->nz = m->nz;
    if (!(mr->kin = mb_kin_create(m, o, err, errlen))) {
        mb_mr_free(mr);
        return NULL;
    }
    size_t n = (size_t)m->nz;
    if (!(mr->M = calloc(n * n + n + (size_t)m->nc, sizeof(double))) || !(mr->Q = calloc(n, sizeof(double))) ||
        !(mr->R = calloc(n * n, sizeof(double))) || !(mr->MR = calloc(n * n, sizeof(double))) ||
        !(mr->Mb = calloc(n * n, sizeof(double))) || !(mr->x = calloc(n, sizeof(double))) ||
        !(mr->zw = calloc(n, sizeof(double))) || !(mr->zdw = calloc(n, sizeof(double))) ||
        !(mr->zlast = calloc(n, sizeof(double))) || !(mr->tmp = calloc(n, sizeof(double))) ||
        !(mr->work = mb_work_alloc(m)))
        goto nomem;
    const mb_pattern *pats[MASS_FORMS] = {m->mass_pattern, m->mass_tree_pattern, m->mass_lumped_pattern};
    for (int f = 0; f < MASS_FORMS; ++f) {
        const mb_pattern *pat = pats[f];
        size_t nnz = pat ? (size_t)pat->colptr[n] : n * n;
        if (!(mr->pcol[f] = calloc(n + 1, sizeof(int))) || !(mr->prow[f] = calloc(nnz + 1, sizeof(int)))) goto nomem;
        for (size_t j = 0; j <= n; ++j) mr->pcol[f][j] = pat ? pat->colptr[j] : (int)(j * n);
        for (size_t q = 0; q < nnz; ++q) mr->prow[f][q] = pat ? pat->rowind[q] : (int)(q % n);
    }
    mr->r_choice = -1;
    mr->allow_generated = 1;
    mr->colptr = mr->pcol[MASS_FULL];
    mr->rowind = mr->prow[MASS_FULL];
    if (!(mr->empty = calloc(n + 1, sizeof(int))) || !(mr->mark = calloc(n + 1, sizeof(int)))) goto nomem;
    return mr;
nomem:
    mb_mr_free(mr);
    mb_fail(err, errlen, MB_ERR_ALLOC, "matrix_r: out of memory (nz = %d)", m->nz);
    return NULL;
}

mb_kin *mb_mr_kin(mb_mr *mr) { return mr->kin; }

int mb_mr_set_rods(mb_mr *mr, mb_rod_mode mode, int partitioned, char *err, size_t errlen) {
    const mb_model *m = mr->m;
    if (mode != MB_ROD_EXACT) {
        if (!m->rod_inertia)
            return mb_fail(err, errlen, MB_ERR_MODEL, "rod inertia %s: model %s has no rod with mass (or was generated "
                           "without the functions rod_inertia, mass_tree)", mb_rod_mode_name(mode), m->name ? m->name : "?");
        if (partitioned ? !m->mass_lumped || !m->rod_inertia_cross : !m->mass_tree)
            return mb_fail(err, errlen, MB_ERR_MODEL, "rod inertia %s%s: model %s lacks %s", mb_rod_mode_name(mode),
                           partitioned ? " partitioned" : "", m->name ? m->name : "?",
                           partitioned ? "mass_lumped or rod_inertia_cross" : "mass_tree");
        if (!mr->zhat) {
            int rc = mb_rod_history_init(&mr->hist, mr->nz, err, errlen);
            if (rc) return rc;
            if (!(mr->zhat = calloc((size_t)mr->nz, sizeof(double))) || !(mr->sdif = calloc((size_t)mr->nz, sizeof(double))))
                return mb_fail(err, errlen, MB_ERR_ALLOC, "matrix_r: out of memory (rod history)");
        }
        mb_rod_history_reset(&mr->hist);
    }
    mr->rod_mode = mode;
    mr->rod_partitioned = partitioned;
    return MB_OK;
}

void mb_mr_set_stage(mb_mr *mr, int stage) { mr->stage = stage; }

void mb_mr_rod_reset(mb_mr *mr) {
    if (mr->zhat) mb_rod_history_reset(&mr->hist);
}

long mb_mr_rod_exact_evals(const mb_mr *mr) { return mr->exact_evals; }
int mb_mr_rod_form(const mb_mr *mr, const double **zhat) {
    if (zhat) *zhat = mr->form != MASS_FULL ? mr->zhat : NULL;
    return mr->form;
}
int mb_mr_rod_order(const mb_mr *mr) { return (int)mr->rod_mode; }
int mb_mr_stage(const mb_mr *mr) { return mr->stage; }
mb_rod_history *mb_mr_rod_history(mb_mr *mr) { return mr->rod_mode != MB_ROD_EXACT ? &mr->hist : NULL; }

int mb_mr_reduced(const mb_mr *mr, const double **M, const double **R, const double **L) {
    int d = mr->reduced ? mb_kin_dof(mr->kin) : 0;
    *M = d ? mr->M : NULL, *R = d ? mr->R : NULL, *L = d ? mr->Mb : NULL;
    return d;
}
long mb_mr_position_iters(const mb_mr *mr) { return mr->pos_iters; }

void mb_mr_set_generated(mb_mr *mr, int on) {
    mr->allow_generated = on;
    mr->r_choice = -1;   /* decided again at the next evaluation */
}

long mb_mr_fused_evals(const mb_mr *mr, long *accels) {
    if (accels) *accels = mr->accels;
    return mr->fused_evals;
}

long mb_mr_generated_evals(const mb_mr *mr, long *evals) {
    if (evals) *evals = mr->evals;
    return mr->generated_evals;
}

/* Whether the model's generated reduction fits the current choice: the same independent coordinates and, column
 * by column, the same dependent non-zeros of R (kin_blocks.c and formulation/matrix_r.lua group Phi_z's pattern
 * alike; a dense block, --dense-kinematics, reaches more). */
static int generated_fits(const mb_mr *mr) {
    const mb_reduction *g = mr->m->matrix_r;
    int n = mr->nz, d = mb_kin_dof(mr->kin);
    if (!mr->allow_generated || !g || !g->solve || !g->R_pattern || g->R_pattern->rows != n ||
        g->R_pattern->cols != d || mr->m->n_independent != d)
        return 0;
    const int *ind = mb_kin_independent(mr->kin), *rp, *ri;
    int *mark = mr->mark;
    for (int c = 0; c < d; ++c) mark[mr->m->independent[c]] = 1;
    int same = 1;
    for (int c = 0; c < d && same; ++c) same = mark[ind[c]] == 1;
    for (int c = 0; c < d; ++c) mark[mr->m->independent[c]] = 0;
    if (!same || !mb_kin_R_pattern(mr->kin, &rp, &ri)) return 0;
    const int *gp = g->R_pattern->colptr, *gi = g->R_pattern->rowind;
    for (int c = 0; c < d && same; ++c) {
        if (rp[c + 1] - rp[c] != gp[c + 1] - gp[c]) same = 0;
        for (int e = rp[c]; e < rp[c + 1] && same; ++e) mark[ri[e]] = 1;
        for (int e = gp[c]; e < gp[c + 1] && same; ++e) same = mark[gi[e]] == 1;
        for (int e = rp[c]; e < rp[c + 1]; ++e) mark[ri[e]] = 0;
    }
    return same;
}

int mb_mr_project(mb_mr *mr, double t, double *z, double *zd, const double *p, char *err, size_t errlen) {
    int it = 0, rc;
    size_t bytes = (size_t)mr->nz * sizeof(double);
    /* The position problem factors where it needs to (at the guess before a full Newton step, at the solution in
     * any case), and its factorization checks the choice's conditioning there. */
    memcpy(mr->tmp, z, bytes);
    rc = mb_kin_position(mr->kin, t, z, p, &it, err, errlen);
    mr->pos_iters += it;
    if (rc == MB_ERR_NEWTON && mr->have_last) {
        /* The guess may sit in another basin (a stage far from the last step): retry from the
         * last assembled configuration with the same independent values. */
        const int *ind = mb_kin_independent(mr->kin);
        memcpy(z, mr->zlast, bytes);
        for (int j = 0; j < mb_kin_dof(mr->kin); ++j) z[ind[j]] = mr->tmp[ind[j]];
        rc = mb_kin_position(mr->kin, t, z, p, &it, err, errlen);
        mr->pos_iters += it;
    }
    if (rc) return rc;
    memcpy(mr->zlast, z, bytes);
    mr->have_last = 1;
    return zd ? mb_kin_velocity(mr->kin, t, z, zd, p, err, errlen) : MB_OK;
}

/* M is checked only when a result built on it is not finite (a non-finite entry the products never read does not
 * matter): 1, with the entry named in err, when it holds one. */
static int mass_nan(const mb_mr *mr, double t, char *err, size_t errlen) {
    int n = mr->nz;
    const char *const *zn = mr->m->z_names;
    for (int i = 0; i < n * n; ++i)
        if (!isfinite(mr->M[i])) {
            mb_fail(err, errlen, MB_ERR_NAN, "mass matrix M(%d, %d) (%s, %s) is %g at t = %.10g", i % n, i / n,
                    zn ? zn[i % n] : "?", zn ? zn[i / n] : "?", mr->M[i], t);
            return 1;
        }
    return 0;
}

/* zdd = x + R zdd_i with R'M R zdd_i = R'(Q - M x), by the runtime's loops over M's and R's patterns. */
static int reduce(mb_mr *mr, double t, double *zdd, char *err, size_t errlen) {
    /* tmp = Q - M x; MR = M R; Mb = R' M R; zdd_i from Mb zdd_i = R' tmp. Column c of R is e_ind[c] plus the
     * dependent coordinates its pattern lists (those of the blocks of Phi_z's dependent block that coordinate
     * ind[c] reaches), and x is zero in the independent rows: the products run over those entries, over M's
     * structural non-zeros (its pattern), and over one triangle of the symmetric Mb. */
    int n = mr->nz, d = mb_kin_dof(mr->kin), r = n - d, rc;
    const int *ind = mb_kin_independent(mr->kin), *dep = mb_kin_dependent(mr->kin), *rows = mr->rowind;
    const int *rp, *ri;
    if (!mb_kin_R_pattern(mr->kin, &rp, &ri)) rp = ri = mr->empty;
    const double *restrict M = mr->M, *restrict R = mr->R, *restrict x = mr->x;
    const int *restrict cp = mr->colptr;
    double *restrict MR = mr->MR, *restrict tmp = mr->tmp, *restrict Mb = mr->Mb;
    memcpy(tmp, mr->Q, (size_t)n * sizeof(double));
    for (int k = 0; k < r; ++k) {
        int j = dep[k];
        double xj = x[j];
        if (xj == 0) continue;
        const double *Mj = M + (size_t)j * n;
        for (int q = cp[j], q1 = cp[j + 1]; q < q1; ++q) tmp[rows[q]] -= Mj[rows[q]] * xj;
    }
    for (int c = 0; c < d; ++c) {
        double *restrict MRc = MR + (size_t)c * n;
        const double *Mj = M + (size_t)ind[c] * n;
        memset(MRc, 0, (size_t)n * sizeof(double));
        for (int q = cp[ind[c]], q1 = cp[ind[c] + 1]; q < q1; ++q) MRc[rows[q]] = Mj[rows[q]];
        for (int e = rp[c]; e < rp[c + 1]; ++e) {
            int j = ri[e];
            double rjc = R[j + (size_t)c * n];
            Mj = M + (size_t)j * n;
            for (int q = cp[j], q1 = cp[j + 1]; q < q1; ++q) MRc[rows[q]] += Mj[rows[q]] * rjc;
        }
    }
    double *zi = mr->zw;
    for (int a_ = 0; a_ < d; ++a_) {
        const double *Ra = R + (size_t)a_ * n;
        const int *ra = ri + rp[a_];
        int na = rp[a_ + 1] - rp[a_];
        double s = tmp[ind[a_]];
        for (int e = 0; e < na; ++e) s += Ra[ra[e]] * tmp[ra[e]];
        zi[a_] = s;
        for (int c = a_; c < d; ++c) {
            const double *MRc = MR + (size_t)c * n;
            double v = MRc[ind[a_]];
            for (int e = 0; e < na; ++e) v += Ra[ra[e]] * MRc[ra[e]];
            Mb[a_ + (size_t)c * d] = Mb[c + (size_t)a_ * d] = v;
        }
    }
    if ((rc = mb_chol_factor(d, mr->Mb, err, errlen))) return mass_nan(mr, t, err, errlen) ? MB_ERR_NAN : rc;
    if ((rc = mb_chol_solve(d, mr->Mb, 1, zi, err, errlen))) return rc;
    for (int i = 0; i < n; ++i) zdd[i] = x[i];
    for (int c = 0; c < d; ++c) {
        zdd[ind[c]] += zi[c];
        for (int e = rp[c]; e < rp[c + 1]; ++e) zdd[ri[e]] += R[ri[e] + (size_t)c * n] * zi[c];
    }
    return MB_OK;
}

int mb_mr_accel(mb_mr *mr, double t, const double *z, const double *zd, const double *u, const double *p,
                double *zdd, char *err, size_t errlen) {
    int n = mr->nz, d = mb_kin_dof(mr->kin), rc;
    mb_args a = {t, z, zd, NULL, u, p, NULL};
    mr->reduced = 0;
    /* The rod modes: M without the rods (or with their ends' thirds) and Q less M_rod zhat, zhat extrapolated from
     * the history; until the history holds the order's samples (the start, or after a reset) the evaluation is exact:
     * a lower order there would leave its start-up error in the run (the quadratic mode's became O(h²)). */
    int form = MASS_FULL;
    if (mr->rod_mode != MB_ROD_EXACT) {
        if (mb_rod_history_extrapolate(&mr->hist, (int)mr->rod_mode, t, mr->zhat) >= (int)mr->rod_mode)
            form = mr->rod_partitioned ? MASS_LUMPED : MASS_TREE;
        else
            mr->exact_evals++;
    }
    mr->form = form;
    mb_fn *mass = form == MASS_TREE ? mr->m->mass_tree : form == MASS_LUMPED ? mr->m->mass_lumped : mr->m->mass;
    mr->colptr = mr->pcol[form];
    mr->rowind = mr->prow[form];
    /* M, Q and the bias in one pass where the model has it (their kinematics, sines and cosines computed once). */
    const double *bias = NULL;
    ++mr->accels;
    if (form == MASS_FULL && mr->m->mass_forces_bias) {
        ++mr->fused_evals;
        mr->m->mass_forces_bias(&a, mr->M, mr->work);
        memcpy(mr->Q, mr->M + (size_t)n * n, (size_t)n * sizeof(double));
        bias = mr->M + (size_t)n * n + n;
    } else {
        mass(&a, mr->M, mr->work);
        mr->m->forces(&a, mr->Q, mr->work);
    }
    if (form != MASS_FULL) {
        mb_args ah = {t, z, zd, mr->zhat, u, p, NULL};
        (form == MASS_LUMPED ? mr->m->rod_inertia_cross : mr->m->rod_inertia)(&ah, mr->sdif, mr->work);
        for (int i = 0; i < n; ++i) mr->Q[i] -= mr->sdif[i];
    }
    const char *const *zn = mr->m->z_names;
    for (int i = 0; i < n; ++i)
        if (!isfinite(mr->Q[i]))
            return mb_fail(err, errlen, MB_ERR_NAN, "forces Q[%d] (%s) is %g at t = %.10g", i, zn ? zn[i] : "?", mr->Q[i], t);
    /* x: the acceleration problem with zdd_i = 0. */
    memset(mr->x, 0, (size_t)n * sizeof(double));
    if ((rc = bias ? mb_kin_acceleration_bias(mr->kin, t, bias, mr->x, err, errlen)
                   : mb_kin_acceleration(mr->kin, t, z, zd, mr->x, p, err, errlen)))
        return rc;
    if (d == 0) { /* fully driven: the motion is kinematic */
        memcpy(zdd, mr->x, (size_t)n * sizeof(double));
        return MB_OK;
    }
    /* R's zeros and identity rows are fixed by the choice: under the same one only its dependent entries change,
     * and the generated reduction fits it or not. */
    int fresh = mr->r_choice != mb_kin_choice(mr->kin);
    if (!fresh) rc = mb_kin_R_values(mr->kin, mr->R, err, errlen);
    else rc = mb_kin_R(mr->kin, mr->R, err, errlen), mr->r_choice = rc ? -1 : mb_kin_choice(mr->kin);
    if (rc) return rc;
    if (fresh) mr->generated = generated_fits(mr);
    ++mr->evals;
    /* A pivot that is not positive (or not finite) sends the evaluation to the runtime's loops, which name it. */
    if (mr->generated && mr->m->matrix_r->solve(mr->M, mr->Q, mr->x, mr->R, mr->Mb, zdd) == MB_FN_OK)
        ++mr->generated_evals;
    else if ((rc = reduce(mr, t, zdd, err, errlen)))
        return rc;
    mr->reduced = 1;
    for (int i = 0; i < n; ++i)
        if (!isfinite(zdd[i]))
            return mass_nan(mr, t, err, errlen) ? MB_ERR_NAN
                 : mb_fail(err, errlen, MB_ERR_NAN, "acceleration zdd[%d] (%s) is %g at t = %.10g", i, zn ? zn[i] : "?",
                           zdd[i], t);
    /* Only the first stage, at an accepted point, enters the history (seeds/002.md §2.5). */
    if (mr->rod_mode != MB_ROD_EXACT && mr->stage == 1) mb_rod_history_push(&mr->hist, t, zdd);
    return MB_OK;
}

int mb_mr_rhs(mb_mr *mr, double t, const double *y, const double *u, const double *p, double *f, char *err,
              size_t errlen) {
    int n = mr->nz, rc;
    /* Project in f's halves (zw and tmp are mb_mr_accel's scratch). */
    double *z = f + n, *zd = f;
    memcpy(z, y, (size_t)n * sizeof(double));
    memcpy(zd, y + n, (size_t)n * sizeof(double));
    if ((rc = mb_mr_project(mr, t, z, zd, p, err, errlen))) return rc;
    memcpy(mr->zdw, zd, (size_t)n * sizeof(double));
    /* f = [zd; zdd]: zd stays in the first half; zdd overwrites z, whose copy is zlast. */
    return mb_mr_accel(mr, t, mr->zlast, mr->zdw, u, p, f + n, err, errlen);
}
