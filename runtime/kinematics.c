/* kinematics.c: position/velocity/acceleration problems, choice and re-choice of the independent coordinates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinematics.h"
#include "kin_blocks.h"
#include "mb_work.h"
#include "linalg.h"

struct mb_kin {
    const mb_model *m;
    mb_kin_options o;
    int nz, nc;
    int rank, dof;        /* -1 until the first choice */
    int user;             /* the current choice is the model's `independent` */
    int *ind, *dep;       /* dof and rank indices, ascending */
    int *is_ind;          /* nz flags */
    double *J;            /* nc x nz: Phi_z where the block was factored (velocity, R use it), at Jbuf + nc */
    double *Jbuf;         /* nc + nc x nz: J, after the Phi it came with when it came from constraints_and_dz */
    double *Jv;           /* nc x nz: scratch for mb_kin_violation and the full QR */
    kin_blocks *blocks;   /* the dependent block by its structure, for the current choice (NULL: to be made) */
    double *phi, *vec;    /* nc */
    double *b;            /* nc x (nz + 1): right-hand sides; solutions in the first rank rows */
    double *zt;           /* nz: Newton trial point */
    double *pair;         /* nc + nc x nz: Phi, then Phi_z, at one point (constraints_and_dz); NULL without it */
    int pair_ready;       /* pair holds them at (pair_t, pair_z), an iterate the position problem has accepted */
    double pair_t, *pair_z;
    double guess_rate;    /* how often position problems are solved at their guess (a moving average over ~10) */
    long paired;          /* factorizations that took Phi_z from the pair (it becomes Jbuf, Jbuf the pair) */
    mb_linalg *ws;
    double *prefer;       /* nz column weights of the first automatic choice, or NULL */
    int keep_prefer;      /* until the first velocity solve: keep the preferred choice while it is regular */
    long reselections;
    char notes[MB_KIN_NOTES][192]; /* the first re-selections: time, reason, old and new choice */
    int *before;          /* nz: the choice before a re-selection, to say what changed */
    long factorizations;  /* of the dependent block (mb_kin_factor calls that did the work) */
    long generated;       /* of them, those by the model's generated inversions */
    long choice;          /* counts the choices of the independent coordinates (mb_kin_choice) */
    int factored;         /* J and the blocks hold Phi_z and its factors at (tf, zf, pf) */
    int have_factors;     /* the blocks hold factors for the current choice (from some point) */
    double tf, *zf, *pf;  /* nz, np */
    double *work;         /* the model functions' workspace */
};

void mb_kin_options_default(mb_kin_options *o) {
    o->pos_tol = 1e-12;
    o->pos_max_iter = 50;
    o->rank_tol = 1e-9;
    o->reselect_tol = 1e-2;
    o->reselect = 1;
    o->blocks = 1;
    o->simplified = 1;
    o->lu = 1;
    o->generated = 1;
}

void mb_kin_free(mb_kin *k) {
    if (!k) return;
    free(k->ind);
    free(k->dep);
    free(k->is_ind);
    free(k->Jbuf);
    free(k->Jv);
    kin_blocks_free(k->blocks);
    free(k->phi);
    free(k->vec);
    free(k->b);
    free(k->zt);
    free(k->pair);
    free(k->pair_z);
    free(k->zf);
    free(k->pf);
    free(k->prefer);
    free(k->before);
    free(k->work);
    mb_linalg_free(k->ws);
    free(k);
}

static const char *mname(const mb_model *m) { return m->name ? m->name : "(unnamed)"; }
/* Equation i as the model names it ("fl_ubj.2"), else its number. */
static const char *ename(const mb_model *m, int i, char *buf, size_t len) {
    if (m->c_names && m->c_names[i]) return m->c_names[i];
    snprintf(buf, len, "%d", i);
    return buf;
}
static const char *zname(const mb_model *m, int i) {
    return m->z_names && m->z_names[i] ? m->z_names[i] : "?";
}

mb_kin *mb_kin_create(const mb_model *m, const mb_kin_options *o, char *err, size_t errlen) {
    if (!m || m->nz < 1 || m->nc < 0) {
        mb_fail(err, errlen, MB_ERR_ARG, "kinematics: %s", m ? "the model has no coordinates" : "no model");
        return NULL;
    }
    if (m->nc > 0 && (!m->constraints || !m->constraints_dz || !m->constraint_bias)) {
        mb_fail(err, errlen, MB_ERR_MODEL,
                "model %s has %d constraint equations but lacks constraints, constraints_dz or constraint_bias",
                mname(m), m->nc);
        return NULL;
    }
    mb_kin_options d;
    mb_kin_options_default(&d);
    if (!o) o = &d;
    if (!(o->pos_tol > 0) || o->pos_max_iter < 1 || !(o->rank_tol > 0) || !(o->reselect_tol >= 0)) {
        mb_fail(err, errlen, MB_ERR_ARG,
                "kinematics: options need pos_tol > 0, pos_max_iter >= 1, rank_tol > 0, reselect_tol >= 0");
        return NULL;
    }
    mb_kin *k = calloc(1, sizeof *k);
    if (!k) goto nomem;
    k->m = m;
    k->o = *o;
    k->nz = m->nz;
    k->nc = m->nc;
    k->rank = k->dof = -1;
    size_t nz = (size_t)m->nz, nc = (size_t)(m->nc > 0 ? m->nc : 1);
    if (!(k->ind = calloc(nz, sizeof *k->ind)) || !(k->dep = calloc(nz, sizeof *k->dep)) ||
        !(k->is_ind = calloc(nz, sizeof *k->is_ind)) ||
        !(k->Jbuf = calloc(nc * (nz + 1), sizeof *k->Jbuf)) || !(k->Jv = calloc(nc * nz, sizeof *k->Jv)) ||
        !(k->phi = calloc(nc, sizeof *k->phi)) ||
        !(k->vec = calloc(nc, sizeof *k->vec)) || !(k->b = calloc(nc * (nz + 1), sizeof *k->b)) ||
        !(k->zt = calloc(nz, sizeof *k->zt)) || !(k->before = calloc(nz, sizeof *k->before)) || !(k->zf = calloc(nz, sizeof *k->zf)) ||
        !(k->pf = calloc((size_t)m->np + 1, sizeof *k->pf)) || !(k->work = mb_work_alloc(m)))
        goto nomem;
    k->J = k->Jbuf + nc;
    if (m->nc > 0 && m->constraints_and_dz &&
        (!(k->pair = calloc(nc * (nz + 1), sizeof *k->pair)) || !(k->pair_z = calloc(nz, sizeof *k->pair_z))))
        goto nomem;
    if (m->nc > 0 && !(k->ws = mb_linalg_create(m->nc, m->nz, m->nz + 1, err, errlen))) {
        mb_kin_free(k);
        return NULL;
    }
    if (m->independent && m->n_independent > 0) {
        for (int j = 0; j < m->n_independent; ++j) {
            int c = m->independent[j];
            if (c < 0 || c >= m->nz || k->is_ind[c]) {
                mb_fail(err, errlen, MB_ERR_ARG, "model %s: independent coordinate %d is out of range or repeated",
                        mname(m), c);
                mb_kin_free(k);
                return NULL;
            }
            k->is_ind[c] = 1;
        }
        k->user = 1;
    }
    return k;
nomem:
    mb_kin_free(k);
    mb_fail(err, errlen, MB_ERR_ALLOC, "kinematics: out of memory (nz = %d, nc = %d)", m->nz, m->nc);
    return NULL;
}

static void eval(const mb_kin *k, mb_fn *f, double t, const double *z, const double *zd, const double *p,
                 double *out) {
    mb_args a = {t, z, zd, NULL, NULL, p, NULL};
    f(&a, out, k->work);
}

static int check_finite(const mb_kin *k, const double *v, int rows, int cols, const char *what, double t,
                        char *err, size_t errlen) {
    if (mb_all_finite(v, (size_t)rows * cols)) return MB_OK;
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) {
            double x = v[i + (size_t)j * rows];
            if (!isfinite(x)) {
                if (cols == 1)
                    return mb_fail(err, errlen, MB_ERR_NAN, "model %s: %s[%d] is %g at t = %.10g", mname(k->m), what,
                                   i, x, t);
                return mb_fail(err, errlen, MB_ERR_NAN, "model %s: %s(%d, %d) (coordinate %s) is %g at t = %.10g",
                               mname(k->m), what, i, j, zname(k->m, j), x, t);
            }
        }
    return MB_OK;
}

/* Rebuilds ind/dep from the flags; the blocks of the old choice go. */
static void lists_from_flags(mb_kin *k) {
    ++k->choice;
    kin_blocks_free(k->blocks);
    k->blocks = NULL;
    k->have_factors = 0;
    int ni = 0, nd = 0;
    for (int c = 0; c < k->nz; ++c) {
        if (k->is_ind[c]) k->ind[ni++] = c;
        else k->dep[nd++] = c;
    }
}

/* Rank of Phi_z (k->J) by pivoted QR; the first `rank` pivots become the
 * dependent coordinates: they are the best-conditioned columns the greedy
 * pivoting finds, and the rest are the degrees of freedom. */
static int choose_auto(mb_kin *k, double t, char *err, size_t errlen) {
    int r = 0, rc;
    size_t n = (size_t)k->nc * k->nz;
    int preferred = k->rank < 0 && k->prefer;
    if (preferred) {
        /* First choice with coordinates the user set moving: keep them all independent when the other
         * columns alone reach the full rank (their columns zeroed); else only shrink them (prefer weights),
         * because pivoting can still pick a shrunk column when the rest are already spanned. */
        int rfull = 0, rrest = 0;
        memcpy(k->Jv, k->J, n * sizeof(double));
        if ((rc = mb_qrp_factor(k->ws, k->nc, k->nz, k->Jv, k->o.rank_tol, &rfull, err, errlen))) return rc;
        memcpy(k->Jv, k->J, n * sizeof(double));
        for (int c = 0; c < k->nz; ++c)
            if (k->prefer[c] != 1)
                for (int i = 0; i < k->nc; ++i) k->Jv[(size_t)c * k->nc + i] = 0;
        if ((rc = mb_qrp_factor(k->ws, k->nc, k->nz, k->Jv, k->o.rank_tol, &rrest, err, errlen))) return rc;
        if (rrest == rfull) r = rrest;
        else preferred = 0;
        if (!preferred) {
            memcpy(k->Jv, k->J, n * sizeof(double));
            for (int c = 0; c < k->nz; ++c)
                for (int i = 0; i < k->nc; ++i) k->Jv[(size_t)c * k->nc + i] *= k->prefer[c];
            if ((rc = mb_qrp_factor(k->ws, k->nc, k->nz, k->Jv, k->o.rank_tol, &r, err, errlen))) return rc;
        }
    } else {
        memcpy(k->Jv, k->J, n * sizeof(double));
        if ((rc = mb_qrp_factor(k->ws, k->nc, k->nz, k->Jv, k->o.rank_tol, &r, err, errlen))) return rc;
    }
    if (k->rank >= 0 && r != k->rank)
        return mb_fail(err, errlen, MB_ERR_SINGULAR,
                       "model %s: at t = %.10g the rank of Phi_z is %d, not %d as at the start: a singular "
                       "configuration, where the number of degrees of freedom changes",
                       mname(k->m), t, r, k->rank);
    if (r == 0)
        return mb_fail(err, errlen, MB_ERR_SINGULAR, "model %s: Phi_z is zero at t = %.10g", mname(k->m), t);
    const int *piv = mb_linalg_pivots(k->ws);
    for (int c = 0; c < k->nz; ++c) k->is_ind[c] = 1;
    for (int j = 0; j < r; ++j) k->is_ind[piv[j]] = 0;
    k->rank = r;
    k->dof = k->nz - r;
    k->user = 0;
    lists_from_flags(k);
    return MB_OK;
}

/* Factors the dependent block, block by block (kin_blocks.h); *ok says whether it has full rank and
 * |R_rr| / |R_11| >= reselect_tol. */
static int factor_dep(mb_kin *k, int *ok, double *ratio, char *err, size_t errlen) {
    int rc;
    if (!k->blocks) {
        if (!(k->blocks = kin_blocks_create(k->o.blocks ? k->m->constraints_dz_pattern : NULL, k->nc, k->nz, k->dep,
                                            k->rank, k->ind, k->dof, k->o.lu, err, errlen)))
            return MB_ERR_ALLOC;
        /* The generated inversions fit only the declared choice's blocks; kin_blocks checks them one by one. */
        if (k->o.generated && k->m->matrix_r && k->m->matrix_r->blocks)
            kin_blocks_use_generated(k->blocks, k->m->matrix_r->blocks);
    }
    if ((rc = kin_blocks_factor(k->blocks, k->J, k->o.rank_tol, k->o.reselect_tol, ratio, err, errlen))) return rc;
    *ok = *ratio > 0 && *ratio >= k->o.reselect_tol;
    return MB_OK;
}

static void list_names(const mb_kin *k, const int *idx, int n, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    for (int j = 0; j < n && used + 1 < len; ++j)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", j ? ", " : "", zname(k->m, idx[j]));
}

/* Notes a re-selection: "t = 0.512: |R_rr/R_11| = 0.0031 < 0.01; independent J2 -> J1" (the coordinates that left
 * the independent set, then those that joined it). */
static void note_reselection(mb_kin *k, double t, double ratio) {
    long i = k->reselections++;
    if (i >= MB_KIN_NOTES) return;
    char *buf = k->notes[i];
    size_t len = sizeof k->notes[i], used = 0;
    used += (size_t)snprintf(buf, len, "t = %.10g: |R_rr/R_11| = %.3g < %g; independent ", t, ratio, k->o.reselect_tol);
    for (int pass = 0; pass < 2; ++pass) {
        const int *from = pass ? k->ind : k->before, *other = pass ? k->before : k->ind;
        int shown = 0;
        for (int a = 0; a < k->dof && used + 1 < len; ++a) {
            int c = from[a], in = 0;
            for (int b = 0; b < k->dof; ++b) in = in || other[b] == c;
            if (!in) used += (size_t)snprintf(buf + used, len - used, "%s%s", shown++ ? ", " : "", zname(k->m, c));
        }
        if (!pass && used + 1 < len) used += (size_t)snprintf(buf + used, len - used, " -> ");
    }
}

static int factor_at(mb_kin *k, double t, const double *z, const double *p, char *err, size_t errlen) {
    int rc, ok = 0;
    double ratio = 0;
    if (k->nc == 0) {
        k->rank = 0;
        k->dof = k->nz;
        for (int c = 0; c < k->nz; ++c) k->is_ind[c] = 1;
        lists_from_flags(k);
        return MB_OK;
    }
    if (k->pair_ready && t == k->pair_t && memcmp(z, k->pair_z, (size_t)k->nz * sizeof(double)) == 0) {
        double *was = k->Jbuf;
        k->Jbuf = k->pair;
        k->pair = was;
        k->J = k->Jbuf + k->nc;
        ++k->paired;
    } else {
        eval(k, k->m->constraints_dz, t, z, NULL, p, k->J);
    }
    k->pair_ready = 0;
    const mb_pattern *P = k->m->constraints_dz_pattern;
    int clean = P && P->rows == k->nc && P->cols == k->nz &&
                mb_all_finite_pattern(k->J, k->nc, k->nz, P->colptr, P->rowind);
    if (!clean && (rc = check_finite(k, k->J, k->nc, k->nz, "Phi_z", t, err, errlen))) return rc;
    if (k->rank < 0) {
        if (k->user) {
            /* The user's choice must match the number of degrees of freedom. */
            int r = 0;
            memcpy(k->Jv, k->J, (size_t)k->nc * k->nz * sizeof(double));
            if ((rc = mb_qrp_factor(k->ws, k->nc, k->nz, k->Jv, k->o.rank_tol, &r, err, errlen))) return rc;
            if (k->m->n_independent != k->nz - r)
                return mb_fail(err, errlen, MB_ERR_ARG,
                               "model %s declares %d independent coordinates, but the mechanism has %d degrees of "
                               "freedom at t = %.10g (%d coordinates, rank of Phi_z %d)",
                               mname(k->m), k->m->n_independent, k->nz - r, t, k->nz, r);
            k->rank = r;
            k->dof = k->nz - r;
            lists_from_flags(k);
        } else if ((rc = choose_auto(k, t, err, errlen))) {
            return rc;
        }
    }
    if (k->rank == 0) return MB_OK;
    if ((rc = factor_dep(k, &ok, &ratio, err, errlen))) return rc;
    /* The start (assembly and the initial velocities) honours the coordinates the user set moving while
     * their dependent block stays regular, even below reselect_tol (e.g. fourbar_grid's squares); from the
     * first step on, re-selection works as usual. */
    if (ok || (k->keep_prefer && ratio > 1e-8)) return MB_OK;
    char names[MB_ERRLEN / 2];
    list_names(k, k->ind, k->dof, names, sizeof names);
    if (k->user && ratio == 0 && k->factorizations == 0) {
        /* The model's own choice is redundant where the run starts: say which loop cannot be solved for which
         * coordinates instead of replacing the choice behind the user's back. */
        int b = kin_blocks_worst(k->blocks), m_b, n_b;
        const int *rows, *coords;
        kin_blocks_shape(k->blocks, b, &m_b, &n_b);
        kin_blocks_members(k->blocks, b, &rows, &coords);
        char eqs[MB_ERRLEN / 4], deps[MB_ERRLEN / 4], num[16];
        size_t ue = 0, ud = 0;
        eqs[0] = deps[0] = '\0';
        for (int i = 0; i < m_b && ue + 1 < sizeof eqs; ++i)
            ue += (size_t)snprintf(eqs + ue, sizeof eqs - ue, "%s%s", i ? ", " : "", ename(k->m, rows[i], num, sizeof num));
        for (int j = 0; j < n_b && ud + 1 < sizeof deps; ++j)
            ud += (size_t)snprintf(deps + ud, sizeof deps - ud, "%s%s", j ? ", " : "", zname(k->m, coords[j]));
        return mb_fail(err, errlen, MB_ERR_SINGULAR,
                       "model %s: the declared independent coordinates (%s) are redundant at t = %.10g: constraint "
                       "equations %s cannot be solved for %s (their block of Phi_z is singular); declare other "
                       "independent coordinates or none",
                       mname(k->m), names, t, eqs, deps);
    }
    if (!k->o.reselect)
        return mb_fail(err, errlen, MB_ERR_SINGULAR,
                       "model %s: at t = %.10g the independent coordinates (%s) no longer determine the others "
                       "(conditioning |R_rr/R_11| = %.3g of the dependent block); re-selection is off",
                       mname(k->m), t, names, ratio);
    memcpy(k->before, k->ind, (size_t)k->dof * sizeof(int));
    if ((rc = choose_auto(k, t, err, errlen))) return rc;
    /* Counted (and noted) only when the choice changes: the best choice may itself sit below reselect_tol. */
    if (memcmp(k->before, k->ind, (size_t)k->dof * sizeof(int)) != 0) note_reselection(k, t, ratio);
    if ((rc = factor_dep(k, &ok, &ratio, err, errlen))) return rc;
    if (ratio == 0)
        return mb_fail(err, errlen, MB_ERR_SINGULAR,
                       "model %s: at t = %.10g no choice of independent coordinates is regular (was: %s)",
                       mname(k->m), t, names);
    /* The fresh choice is the best pivoting finds, even when below reselect_tol. */
    return MB_OK;
}

/* Phi_z and the factors of its dependent block are functions of (t, z, p): at the point of the current ones there
 * is nothing to redo (the first Newton step after the projection's own factorization, the last one when the guess
 * already assembles), so a factorization is never repeated at the same point; the result is the same bit for bit. */
int mb_kin_factor(mb_kin *k, double t, const double *z, const double *p, char *err, size_t errlen) {
    size_t zbytes = (size_t)k->nz * sizeof(double), pbytes = (size_t)k->m->np * sizeof(double);
    if (k->factored && t == k->tf && memcmp(z, k->zf, zbytes) == 0 &&
        (pbytes == 0 || (p && memcmp(p, k->pf, pbytes) == 0)))
        return MB_OK;
    k->factored = 0;
    int rc = factor_at(k, t, z, p, err, errlen);
    if (rc) return rc;
    k->have_factors = k->blocks != NULL;
    if (k->nc == 0 || (pbytes > 0 && !p)) return rc;
    k->factored = 1;
    k->tf = t;
    memcpy(k->zf, z, zbytes);
    if (pbytes > 0) memcpy(k->pf, p, pbytes);
    ++k->factorizations;
    k->generated += kin_blocks_generated(k->blocks) != NULL;
    return MB_OK;
}

/* x (dependent entries) from the factored block: A x = b in the least-squares sense, b nc x nrhs in k->b. */
static int solve(mb_kin *k, int nrhs, char *err, size_t errlen) {
    return kin_blocks_solve(k->blocks, nrhs, k->b, k->nc, err, errlen);
}

int mb_kin_solve_dependent(mb_kin *k, int nrhs, double *b, int ldb, char *err, size_t errlen) {
    if (k->rank < 0) return mb_fail(err, errlen, MB_ERR_ARG, "mb_kin_solve_dependent: call mb_kin_factor first");
    if (k->nc == 0 || k->rank == 0) return MB_OK;
    return kin_blocks_solve(k->blocks, nrhs, b, ldb, err, errlen);
}

static double maxabs(const double *v, int n) {
    double m = 0;
    for (int i = 0; i < n; ++i) m = fmax(m, fabs(v[i]));
    return m;
}

static double norm2(const double *v, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += v[i] * v[i];
    return sqrt(s);
}

/* "equations 0 (|Phi| = 1e-3), 1 (...)": the violated ones, largest first, up to six. */
static void violated(const mb_kin *k, const double *phi, double tol, char *buf, size_t len) {
    size_t used = 0;
    int shown = 0, count = 0;
    double last = INFINITY;
    buf[0] = '\0';
    for (int i = 0; i < k->nc; ++i) count += fabs(phi[i]) > tol;
    while (shown < 6 && shown < count) {
        int best = -1;
        for (int i = 0; i < k->nc; ++i)
            if (fabs(phi[i]) > tol && fabs(phi[i]) < last && (best < 0 || fabs(phi[i]) > fabs(phi[best]))) best = i;
        if (best < 0) break;
        last = fabs(phi[best]);
        char num[16];
        if (used + 1 < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s (|Phi| = %.3g)", shown ? ", " : "",
                                     ename(k->m, best, num, sizeof num), fabs(phi[best]));
        ++shown;
    }
    if (count > shown && used + 1 < len) snprintf(buf + used, len - used, " and %d more", count - shown);
}

/* Phi and Phi_z together (constraints_and_dz, where the model has it) at the point a solve is likely to end at: a
 * Newton step's full step, and the guess while most problems are solved at their guess (the buggy's: all; the
 * sedan's: a quarter, where the pair at the guess would mostly be thrown away: Phi_z costs about twice Phi). Where the
 * problem is solved there, the factorization takes Phi_z from that pass instead of computing the kinematics again. */
static void hold_pair(mb_kin *k, double t, const double *z) {
    k->pair_ready = 1;
    k->pair_t = t;
    memcpy(k->pair_z, z, (size_t)k->nz * sizeof(double));
}

static int position(mb_kin *k, double t, double *z, const double *p, int *iters, char *err, size_t errlen) {
    int rc, it, have_phi = 0;
    if (iters) *iters = 0;
    if (k->nc == 0) return mb_kin_factor(k, t, z, p, err, errlen);
    const char *why = "the iteration limit was reached";
    /* fresh: factor at every iterate (full Newton); else the last factors, until a step with them falls short. */
    int fresh = !k->o.simplified || !k->have_factors;
    for (it = 0;; ++it) {
        if (!have_phi) {   /* the guess */
            if (k->pair && k->guess_rate > 0.5) {
                eval(k, k->m->constraints_and_dz, t, z, NULL, p, k->pair);
                memcpy(k->phi, k->pair, (size_t)k->nc * sizeof(double));
                hold_pair(k, t, z);
            } else {
                eval(k, k->m->constraints, t, z, NULL, p, k->phi);
            }
            if ((rc = check_finite(k, k->phi, k->nc, 1, "Phi", t, err, errlen))) return rc;
        }
        if (maxabs(k->phi, k->nc) <= k->o.pos_tol) {
            if (iters) *iters = it;
            k->guess_rate = 0.9 * k->guess_rate + (it == 0 ? 0.1 : 0.0);
            return mb_kin_factor(k, t, z, p, err, errlen);
        }
        if (it == k->o.pos_max_iter) break;
        if (fresh && (rc = mb_kin_factor(k, t, z, p, err, errlen))) return rc;
        for (int i = 0; i < k->nc; ++i) k->b[i] = -k->phi[i];
        if ((rc = solve(k, 1, err, errlen))) return rc;
        /* Damped step: halve until ||Phi|| decreases (Armijo on the Gauss-Newton direction), so a
         * poor initial guess does not jump to another assembly branch or diverge. */
        double n0 = norm2(k->phi, k->nc), n1 = INFINITY, s = 1;
        int accepted = 0, paired = 0;
        double *v = k->vec;
        for (int ls = 0; ls < 12 && !accepted; ++ls, s *= 0.5) {
            memcpy(k->zt, z, (size_t)k->nz * sizeof(double));
            for (int j = 0; j < k->rank; ++j) k->zt[k->dep[j]] += s * k->b[j];
            paired = ls == 0 && k->pair;
            v = paired ? k->pair : k->vec;
            if (paired) k->pair_ready = 0;   /* the pair is being overwritten */
            eval(k, paired ? k->m->constraints_and_dz : k->m->constraints, t, k->zt, NULL, p, v);
            n1 = norm2(v, k->nc);
            if (isfinite(n1) && n1 <= (1 - 1e-4 * s) * n0) accepted = 1;
            else if (isfinite(n1) && n0 < 1e3 * k->o.pos_tol && n1 <= n0) accepted = 1; /* roundoff floor */
        }
        s *= 2; /* the step taken */
        if (!fresh && (!accepted || s < 1 || n1 > 0.25 * n0)) {
            /* The old factors fell short: full Newton from here (this iterate again if nothing was gained). */
            fresh = 1;
            if (!accepted) {
                have_phi = 1;
                continue;
            }
        }
        if (!accepted) {
            why = "no step along the Newton direction reduces ||Phi|| (a least-squares minimum that is not zero)";
            break;
        }
        memcpy(z, k->zt, (size_t)k->nz * sizeof(double));
        memcpy(k->phi, v, (size_t)k->nc * sizeof(double));   /* Phi at the new iterate, already evaluated */
        have_phi = 1;
        if (paired) hold_pair(k, t, z);
    }
    if (iters) *iters = it;
    char list[MB_ERRLEN / 2];
    violated(k, k->phi, k->o.pos_tol, list, sizeof list);
    return mb_fail(err, errlen, MB_ERR_NEWTON,
                   "model %s does not assemble at t = %.10g: after %d Newton iterations constraint equations %s "
                   "stay violated (tolerance %g; %s)",
                   mname(k->m), t, it, list, k->o.pos_tol, why);
}

int mb_kin_position(mb_kin *k, double t, double *z, const double *p, int *iters, char *err, size_t errlen) {
    int rc = position(k, t, z, p, iters, err, errlen);
    k->pair_ready = 0;   /* only position's own factorization takes the pair: a later one may be at another p */
    return rc;
}

/* b = -(v + Phi_z[:, ind] x_ind), solved for the dependent entries of x. */
static int dependent_rhs(mb_kin *k, const double *v, double *x, char *err, size_t errlen) {
    const mb_pattern *P = k->m->constraints_dz_pattern;
    if (P && (P->rows != k->nc || P->cols != k->nz)) P = NULL;
    const mb_dependent_blocks *generated = kin_blocks_generated(k->blocks);   /* the declared choice's */
    if (generated) {
        if (!v) memset(k->vec, 0, (size_t)k->nc * sizeof(double));
        generated->rhs(k->J, v ? v : k->vec, x, k->b);
    } else {
        for (int i = 0; i < k->nc; ++i) k->b[i] = v ? -v[i] : 0;
    }
    for (int j = 0; j < k->dof && !generated; ++j) {
        int c = k->ind[j];
        const double *col = k->J + (size_t)c * k->nc;
        if (x[c] == 0) continue;
        if (P) {   /* the column's structural non-zeros only */
            for (int q = P->colptr[c]; q < P->colptr[c + 1]; ++q) k->b[P->rowind[q]] -= col[P->rowind[q]] * x[c];
        } else {
            for (int i = 0; i < k->nc; ++i) k->b[i] -= col[i] * x[c];
        }
    }
    int rc = solve(k, 1, err, errlen);
    if (rc) return rc;
    for (int j = 0; j < k->rank; ++j) x[k->dep[j]] = k->b[j];
    return MB_OK;
}

int mb_kin_velocity(mb_kin *k, double t, const double *z, double *zd, const double *p, char *err, size_t errlen) {
    if (k->nc == 0 || k->rank == 0) return MB_OK;
    if (k->rank < 0) return mb_fail(err, errlen, MB_ERR_ARG, "mb_kin_velocity: call mb_kin_factor first");
    const double *phit = NULL;
    if (k->m->constraints_dt) {
        eval(k, k->m->constraints_dt, t, z, NULL, p, k->vec);
        int rc = check_finite(k, k->vec, k->nc, 1, "Phi_t", t, err, errlen);
        if (rc) return rc;
        phit = k->vec;
    }
    k->keep_prefer = 0;
    return dependent_rhs(k, phit, zd, err, errlen);
}

int mb_kin_acceleration(mb_kin *k, double t, const double *z, const double *zd, double *zdd, const double *p,
                        char *err, size_t errlen) {
    if (k->nc == 0 || k->rank == 0) return MB_OK;
    if (k->rank < 0) return mb_fail(err, errlen, MB_ERR_ARG, "mb_kin_acceleration: call mb_kin_factor first");
    eval(k, k->m->constraint_bias, t, z, zd, p, k->vec);
    return mb_kin_acceleration_bias(k, t, k->vec, zdd, err, errlen);
}

int mb_kin_acceleration_bias(mb_kin *k, double t, const double *bias, double *zdd, char *err, size_t errlen) {
    if (k->nc == 0 || k->rank == 0) return MB_OK;
    if (k->rank < 0) return mb_fail(err, errlen, MB_ERR_ARG, "mb_kin_acceleration: call mb_kin_factor first");
    int rc = check_finite(k, bias, k->nc, 1, "constraint bias", t, err, errlen);
    if (rc) return rc;
    return dependent_rhs(k, bias, zdd, err, errlen);
}

int mb_kin_R_values(mb_kin *k, double *R, char *err, size_t errlen) {
    if (k->rank < 0) return mb_fail(err, errlen, MB_ERR_ARG, "mb_kin_R_values: call mb_kin_factor first");
    if (k->rank == 0 || k->dof == 0) return MB_OK;
    return kin_blocks_R(k->blocks, k->J, R, err, errlen);
}

int mb_kin_R(mb_kin *k, double *R, char *err, size_t errlen) {
    if (k->rank < 0) return mb_fail(err, errlen, MB_ERR_ARG, "mb_kin_R: call mb_kin_factor first");
    memset(R, 0, (size_t)k->nz * k->dof * sizeof(double));
    for (int c = 0; c < k->dof; ++c) R[(size_t)c * k->nz + k->ind[c]] = 1;
    return mb_kin_R_values(k, R, err, errlen);
}

long mb_kin_choice(const mb_kin *k) { return k->choice; }

int mb_kin_multipliers(mb_kin *k, double t, const double *z, const double *p, const double *r, double *lambda,
                       char *err, size_t errlen) {
    int rc = mb_kin_factor(k, t, z, p, err, errlen);
    if (rc || k->nc == 0) return rc;
    if (k->rank == 0) {
        memset(lambda, 0, (size_t)k->nc * sizeof(double));
        return MB_OK;
    }
    for (int j = 0; j < k->rank; ++j) k->vec[j] = -r[k->dep[j]];
    return kin_blocks_solve_transposed(k->blocks, k->vec, lambda, err, errlen);
}

int mb_kin_violation(mb_kin *k, double t, const double *z, const double *zd, const double *zdd, const double *p,
                     double v[3], char *err, size_t errlen) {
    v[0] = v[1] = v[2] = 0;
    if (k->nc == 0) return MB_OK;
    int nc = k->nc, rc;
    eval(k, k->m->constraints, t, z, NULL, p, k->vec);
    if ((rc = check_finite(k, k->vec, nc, 1, "Phi", t, err, errlen))) return rc;
    v[0] = maxabs(k->vec, nc);
    if (!zd) return MB_OK;
    eval(k, k->m->constraints_dz, t, z, NULL, p, k->Jv);
    if ((rc = check_finite(k, k->Jv, nc, k->nz, "Phi_z", t, err, errlen))) return rc;
    for (int i = 0; i < nc; ++i) k->vec[i] = 0;
    if (k->m->constraints_dt) eval(k, k->m->constraints_dt, t, z, NULL, p, k->vec);
    for (int c = 0; c < k->nz; ++c)
        for (int i = 0; i < nc; ++i) k->vec[i] += k->Jv[(size_t)c * nc + i] * zd[c];
    v[1] = maxabs(k->vec, nc);
    if (!zdd) return MB_OK;
    eval(k, k->m->constraint_bias, t, z, zd, p, k->vec);
    for (int c = 0; c < k->nz; ++c)
        for (int i = 0; i < nc; ++i) k->vec[i] += k->Jv[(size_t)c * nc + i] * zdd[c];
    v[2] = maxabs(k->vec, nc);
    if (!isfinite(v[1]) || !isfinite(v[2]))
        return mb_fail(err, errlen, MB_ERR_NAN, "model %s: constraint violation is not finite at t = %.10g",
                       mname(k->m), t);
    return MB_OK;
}

int mb_kin_prefer(mb_kin *k, const double *v) {
    if (k->user || k->rank >= 0 || !v) return MB_OK;
    if (!k->prefer && !(k->prefer = calloc((size_t)k->nz, sizeof(double)))) return MB_ERR_ALLOC;
    /* Pivoting takes large columns first as dependent: shrink the preferred ones so they stay
     * independent unless the constraints need them (a shrunk column still counts for the rank,
     * whose tolerance is far below 1e-3). */
    for (int c = 0; c < k->nz; ++c) k->prefer[c] = v[c] != 0 ? 1e-3 : 1;
    k->keep_prefer = 1;
    k->factored = 0;
    return MB_OK;
}

int mb_kin_set_independent(mb_kin *k, const int *ind, int count) {
    if (k->dof < 0 || count != k->dof) return MB_ERR_ARG;
    /* The choice in force: its blocks and factors stay (a replay restores the same choice at most steps). */
    if (count > 0 && memcmp(ind, k->ind, (size_t)count * sizeof(int)) == 0) return MB_OK;
    for (int c = 0; c < k->nz; ++c) k->is_ind[c] = 0;
    for (int j = 0; j < count; ++j) {
        if (ind[j] < 0 || ind[j] >= k->nz || k->is_ind[ind[j]]) return MB_ERR_ARG;
        k->is_ind[ind[j]] = 1;
    }
    lists_from_flags(k);
    k->factored = 0;
    return MB_OK;
}

int mb_kin_dof(const mb_kin *k) { return k->dof; }
int mb_kin_rank(const mb_kin *k) { return k->rank; }
const int *mb_kin_independent(const mb_kin *k) { return k->ind; }
const int *mb_kin_dependent(const mb_kin *k) { return k->dep; }
long mb_kin_reselections(const mb_kin *k) { return k->reselections; }
const char *mb_kin_reselection_note(const mb_kin *k, long i) {
    return i >= 0 && i < k->reselections && i < MB_KIN_NOTES ? k->notes[i] : NULL;
}
long mb_kin_factorizations(const mb_kin *k) { return k->factorizations; }
long mb_kin_generated_factorizations(const mb_kin *k) { return k->generated; }
long mb_kin_paired_factorizations(const mb_kin *k) { return k->paired; }

int mb_kin_R_pattern(const mb_kin *k, const int **colptr, const int **rowind) {
    *colptr = *rowind = NULL;
    if (!k->blocks) return 0;
    kin_blocks_R_pattern(k->blocks, colptr, rowind);
    return 1;
}

int mb_kin_blocks(const mb_kin *k, int *rows, int *cols, int max) {
    int nb = kin_blocks_count(k->blocks);
    for (int b = 0; b < nb && b < max; ++b) kin_blocks_shape(k->blocks, b, rows + b, cols + b);
    return nb;
}
const mb_kin_options *mb_kin_get_options(const mb_kin *k) { return &k->o; }
