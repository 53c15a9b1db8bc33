/* kin_blocks.c: the dependent block of Phi_z split by its structural pattern into blocks that are factored and solved apart. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kin_blocks.h"
#include "linalg.h"

typedef struct {
    int m, n;        /* rows, dependent columns (m >= n: the dependent columns are independent) */
    int lu;          /* square, inverted by Gauss-Jordan with partial pivoting (else factored by pivoted QR) */
    int *rows;       /* m constraint rows, ascending */
    int *cols;       /* n positions in dep, ascending */
    int *coords;     /* n: dep[cols[jj]], the coordinates themselves */
    int ncoup, *coup; /* the positions c in ind whose column has a non-zero in the block's rows */
    double *A;       /* m x n: the block, then its inverse or QR factor */
    double *A0;      /* m x n, inverted blocks: the block itself, for its conditioning figures */
    int rank;        /* of the last factorization */
    double *B;       /* m x max(dof, 1): right-hand sides, then solutions in the first n rows */
    mb_linalg *ws;   /* pivots and Householder scalars of this block's factor */
} block;

struct kin_blocks {
    int nc, nz, rank, dof, nrhs;
    int *dep, *ind;  /* rank, dof */
    int *rcolptr, *rrowind; /* R's dependent non-zeros by column (kin_blocks_R_pattern) */
    int nb, worst;   /* blocks; the least regular one at the last factorization */
    block *b;
    /* The model's generated inversions where they fit these blocks (kin_blocks_use_generated): the blocks'
     * inverses one after the other (gX, offsets xoff), their figures, a solution in dep's order; gen = the last
     * factorization is theirs. */
    const mb_dependent_blocks *g;
    double *gX, *gfig, *gx;
    int *xoff;
    int gen;
};

void kin_blocks_free(kin_blocks *kb) {
    if (!kb) return;
    for (int i = 0; i < kb->nb; ++i) {
        free(kb->b[i].rows);
        free(kb->b[i].cols);
        free(kb->b[i].coords);
        free(kb->b[i].coup);
        free(kb->b[i].A);
        free(kb->b[i].A0);
        free(kb->b[i].B);
        mb_linalg_free(kb->b[i].ws);
    }
    free(kb->b);
    free(kb->gX);
    free(kb->gfig);
    free(kb->gx);
    free(kb->xoff);
    free(kb->rcolptr);
    free(kb->rrowind);
    free(kb->dep);
    free(kb->ind);
    free(kb);
}

static int find(int *parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

/* The rows where column c of Phi_z may be non-zero: its pattern's, or all of them (iota = 0 .. nc-1). */
static int col_rows(const mb_pattern *P, const int *iota, int nc, int c, const int **rows) {
    if (!P) {
        *rows = iota;
        return nc;
    }
    *rows = P->rowind + P->colptr[c];
    return P->colptr[c + 1] - P->colptr[c];
}

kin_blocks *kin_blocks_create(const mb_pattern *P, int nc, int nz, const int *dep, int rank, const int *ind,
                              int dof, int lu, char *err, size_t errlen) {
    kin_blocks *kb = calloc(1, sizeof *kb);
    int *parent = calloc((size_t)nc + 1, sizeof(int)), *first = calloc((size_t)rank + 1, sizeof(int));
    int *blk = calloc((size_t)nc + 1, sizeof(int)), *mark = calloc((size_t)nc + rank + dof + 1, sizeof(int));
    int *iota = calloc((size_t)nc + 1, sizeof(int));
    const int *rows;
    if (!kb || !parent || !first || !blk || !mark || !iota) goto nomem;
    for (int i = 0; i < nc; ++i) iota[i] = i;
    if (P && (P->rows != nc || P->cols != nz)) P = NULL; /* a pattern of another shape says nothing */
    kb->nc = nc, kb->nz = nz, kb->rank = rank, kb->dof = dof, kb->nrhs = dof > 1 ? dof : 1;
    if (!(kb->dep = calloc((size_t)rank + 1, sizeof(int))) || !(kb->ind = calloc((size_t)dof + 1, sizeof(int))))
        goto nomem;
    memcpy(kb->dep, dep, (size_t)rank * sizeof(int));
    memcpy(kb->ind, ind, (size_t)dof * sizeof(int));
    /* Rows joined through the dependent columns; first[j] = a row of dependent column j (-1: none, a zero column,
     * which the factorization then reports as rank deficient in a block of its own). */
    for (int i = 0; i < nc; ++i) parent[i] = i;
    for (int j = 0; j < rank; ++j) {
        int cnt = col_rows(P, iota, nc, dep[j], &rows);
        first[j] = cnt > 0 ? rows[0] : -1;
        for (int q = 1; q < cnt; ++q) parent[find(parent, rows[q])] = find(parent, first[j]);
    }
    /* Blocks numbered by their smallest row; blk[root] = its block (rows of no dependent column: -1). */
    for (int i = 0; i < nc; ++i) blk[i] = -1, mark[i] = 0;
    for (int j = 0; j < rank; ++j)
        if (first[j] >= 0) mark[find(parent, first[j])] = 1;
    int nb = 0;
    for (int i = 0; i < nc; ++i)
        if (mark[find(parent, i)] && blk[find(parent, i)] < 0) blk[find(parent, i)] = nb++;
    int zero_cols = 0;
    for (int j = 0; j < rank; ++j) zero_cols += first[j] < 0;
    kb->nb = nb + zero_cols;
    if (!(kb->b = calloc((size_t)kb->nb + 1, sizeof(block)))) goto nomem;
    /* Sizes, then members. */
    for (int i = 0; i < nc; ++i)
        if (mark[find(parent, i)]) ++kb->b[blk[find(parent, i)]].m;
    for (int j = 0, z = nb; j < rank; ++j) {
        if (first[j] >= 0) ++kb->b[blk[find(parent, first[j])]].n;
        else kb->b[z++].n = 1; /* a structurally zero column: one zero row, so its factor reports rank 0 */
    }
    for (int i = 0; i < kb->nb; ++i) {
        block *b = &kb->b[i];
        if (i >= nb) b->m = 1;
        b->lu = lu && b->m == b->n;
        if (!(b->rows = calloc((size_t)b->m, sizeof(int))) || !(b->cols = calloc((size_t)b->n, sizeof(int))) ||
            !(b->coords = calloc((size_t)b->n, sizeof(int))) ||
            !(b->coup = calloc((size_t)dof + 1, sizeof(int))) || !(b->A = calloc((size_t)b->m * b->n, sizeof(double))) ||
            !(b->A0 = calloc((size_t)b->m * b->n, sizeof(double))) ||
            !(b->B = calloc((size_t)b->m * kb->nrhs, sizeof(double))))
            goto nomem;
        if (!(b->ws = mb_linalg_create(b->m, b->n, kb->nrhs, err, errlen))) {
            kin_blocks_free(kb);
            kb = NULL;
            goto done;
        }
        b->m = b->n = 0;
    }
    for (int i = 0; i < nc; ++i)
        if (mark[find(parent, i)]) {
            block *b = &kb->b[blk[find(parent, i)]];
            b->rows[b->m++] = i;
        }
    for (int j = 0, z = nb; j < rank; ++j) {
        block *b = first[j] >= 0 ? &kb->b[blk[find(parent, first[j])]] : &kb->b[z++];
        if (first[j] < 0) b->rows[b->m++] = 0;
        b->coords[b->n] = dep[j];
        b->cols[b->n++] = j;
    }
    /* The independent columns reaching each block (mark = the last c added to a block, + 1). */
    for (int i = 0; i < kb->nb; ++i) mark[i] = 0;
    for (int c = 0; c < dof; ++c) {
        int cnt = col_rows(P, iota, nc, ind[c], &rows);
        for (int q = 0; q < cnt; ++q) {
            int r = find(parent, rows[q]);
            if (blk[r] >= 0 && mark[blk[r]] != c + 1) {
                block *b = &kb->b[blk[r]];
                mark[blk[r]] = c + 1;
                b->coup[b->ncoup++] = c;
            }
        }
    }
    /* R's pattern: column c reaches the dependent coordinates of every block that lists it. */
    if (!(kb->rcolptr = calloc((size_t)dof + 1, sizeof(int)))) goto nomem;
    for (int i = 0; i < kb->nb; ++i)
        for (int q = 0; q < kb->b[i].ncoup; ++q) kb->rcolptr[kb->b[i].coup[q] + 1] += kb->b[i].n;
    for (int c = 0; c < dof; ++c) kb->rcolptr[c + 1] += kb->rcolptr[c];
    if (!(kb->rrowind = calloc((size_t)kb->rcolptr[dof] + 1, sizeof(int)))) goto nomem;
    for (int c = 0; c < dof; ++c) mark[c] = kb->rcolptr[c];
    for (int i = 0; i < kb->nb; ++i)
        for (int q = 0; q < kb->b[i].ncoup; ++q)
            for (int jj = 0; jj < kb->b[i].n; ++jj) kb->rrowind[mark[kb->b[i].coup[q]]++] = dep[kb->b[i].cols[jj]];
done:
    free(parent);
    free(first);
    free(blk);
    free(mark);
    free(iota);
    return kb;
nomem:
    kin_blocks_free(kb);
    kb = NULL;
    mb_fail(err, errlen, MB_ERR_ALLOC, "kinematics: out of memory (blocks of a %d x %d dependent block)", nc, rank);
    goto done;
}

/* Block b's m x n entries of J (nc rows) into A. */
static void gather(const kin_blocks *kb, const block *b, const double *J, double *A) {
    for (int jj = 0; jj < b->n; ++jj) {
        const double *col = J + (size_t)kb->dep[b->cols[jj]] * kb->nc;
        double *a = A + (size_t)jj * b->m;
        for (int ii = 0; ii < b->m; ++ii) a[ii] = col[b->rows[ii]];
    }
}

/* Block i's conditioning figures as pivoted QR defines them: *first = |R_11|, *last = |R_nn| (rank rd); from its
 * factorization for a QR block, and for an inverted one by QR of its copy (exact = 1; gathered from J when the
 * generated inversion made none) or bounded from the inverse (exact = 0, *last a lower bound). */
static int block_figures(kin_blocks *kb, int i, const double *J, double tol, int exact, int *rd, double *first,
                         double *last, char *err, size_t errlen) {
    block *b = &kb->b[i];
    if (kb->gen && !exact) {
        *first = kb->gfig[3 * i];
        *last = 1 / sqrt(kb->gfig[3 * i + 1] * kb->gfig[3 * i + 2]);
        return MB_OK;
    }
    if (kb->gen) gather(kb, b, J, b->A0);
    if (!b->lu || exact) {
        double *f = b->lu ? b->A0 : b->A;
        int rc = b->lu ? mb_qrp_factor_small(b->ws, b->m, b->n, f, tol, rd, err, errlen) : MB_OK;
        if (rc) return rc;
        *first = fabs(f[0]);
        *last = fabs(f[(size_t)(b->n - 1) * b->m + (b->n - 1)]);
        return MB_OK;
    }
    /* |R_11| is the largest column norm (the first pivot), and |R_nn| >= sigma_min >= 1 / sqrt(|X|_1 |X|_inf)
     * for X = A^-1 (|X|_2 <= sqrt(|X|_1 |X|_inf)). */
    *first = 0;
    for (int j = 0; j < b->n; ++j) {
        double s = 0;
        for (int i = 0; i < b->n; ++i) s += b->A0[i + (size_t)j * b->n] * b->A0[i + (size_t)j * b->n];
        *first = fmax(*first, s);
    }
    *first = sqrt(*first);
    *last = *rd == b->n ? 1 / sqrt(mb_norm1(b->n, b->n, b->A) * mb_norm_inf(b->n, b->n, b->A)) : 0;
    return MB_OK;
}

int kin_blocks_use_generated(kin_blocks *kb, const mb_dependent_blocks *g) {
    if (!g || !g->factor || !g->rhs || !g->solve || !g->R || g->count != kb->nb) return 0;
    size_t size = 0;
    for (int i = 0; i < kb->nb; ++i) {
        const block *b = &kb->b[i];
        if (!b->lu || g->ptr[i + 1] - g->ptr[i] != b->n) return 0;
        for (int q = 0; q < b->n; ++q)
            if (g->rows[g->ptr[i] + q] != b->rows[q] || g->coords[g->ptr[i] + q] != b->coords[q]) return 0;
        size += (size_t)b->n * b->n;
    }
    if (!(kb->xoff = calloc((size_t)kb->nb + 1, sizeof(int))) || !(kb->gX = calloc(size + 1, sizeof(double))) ||
        !(kb->gfig = calloc(3 * (size_t)kb->nb + 1, sizeof(double))) ||
        !(kb->gx = calloc((size_t)kb->rank + 1, sizeof(double))))
        return 0;   /* kin_blocks_free frees what was allocated; the runtime's own inversions serve */
    for (int i = 0; i < kb->nb; ++i) kb->xoff[i + 1] = kb->xoff[i] + kb->b[i].n * kb->b[i].n;
    kb->g = g;
    return 1;
}

const mb_dependent_blocks *kin_blocks_generated(const kin_blocks *kb) { return kb && kb->gen ? kb->g : NULL; }

int kin_blocks_factor(kin_blocks *kb, const double *J, double tol, double exact_below, double *ratio, char *err,
                      size_t errlen) {
    int inverted = 0;
    /* The generated inversions in their static pivot order; where a pivot fails their test, this point is
     * inverted by the runtime with partial pivoting (the next one tries the generated order again). */
    kb->gen = kb->g && kb->g->factor(J, kb->gX, kb->gfig) == MB_FN_OK;
    for (int i = 0; i < kb->nb && kb->gen; ++i) kb->b[i].rank = kb->b[i].n;
    inverted = kb->gen;
    for (int i = 0; i < kb->nb && !kb->gen; ++i) {
        block *b = &kb->b[i];
        int rc;
        gather(kb, b, J, b->A);
        if (b->lu) {
            memcpy(b->A0, b->A, (size_t)b->m * b->n * sizeof(double));
            rc = mb_inverse_small(b->ws, b->n, b->A, tol, &b->rank, NULL, NULL, err, errlen);
            inverted = 1;
        } else {
            rc = mb_qrp_factor_small(b->ws, b->m, b->n, b->A, tol, &b->rank, err, errlen);
        }
        if (rc) return rc;
    }
    /* The figures of pivoted QR, bounded where a block was inverted; only a bound below exact_below (near the
     * re-selection) costs the QR of the inverted blocks, so the test decides as if every block were factored by QR. */
    for (int exact = 0; exact <= inverted; ++exact) {
        double r11 = 0, rnn = INFINITY, least = INFINITY;
        int full = 1;
        kb->worst = 0;
        for (int i = 0; i < kb->nb; ++i) {
            block *b = &kb->b[i];
            double first, last;
            int rd = b->rank, rc = block_figures(kb, i, J, tol, exact, &rd, &first, &last, err, errlen);
            if (rc) return rc;
            double own = rd < b->n ? -1 : last / first;
            if (own < least) least = own, kb->worst = i;
            full = full && rd == b->n;
            r11 = fmax(r11, first);
            rnn = fmin(rnn, last);
        }
        *ratio = full && r11 > 0 ? rnn / r11 : 0;
        if (*ratio >= exact_below) break;
    }
    return MB_OK;
}

/* The block's nrhs right-hand sides in B (m x nrhs) replaced by its solutions (first n rows). */
static int block_solve(block *k, int nrhs, char *err, size_t errlen) {
    return k->lu ? mb_inverse_apply(k->ws, k->n, k->A, nrhs, k->B, k->m, err, errlen)
                 : mb_qrp_solve(k->ws, k->m, k->n, k->n, k->A, nrhs, k->B, err, errlen);
}

int kin_blocks_solve(kin_blocks *kb, int nrhs, double *b, int ldb, char *err, size_t errlen) {
    if (kb->gen) {
        for (int c = 0; c < nrhs; ++c) {
            kb->g->solve(kb->gX, b + (size_t)c * ldb, kb->gx);
            memcpy(b + (size_t)c * ldb, kb->gx, (size_t)kb->rank * sizeof(double));
        }
        return MB_OK;
    }
    /* In chunks of the blocks' room for right-hand sides; in each, every block reads its rows before any solution
     * overwrites them. */
    for (int c0 = 0; c0 < nrhs; c0 += kb->nrhs) {
        int nr = nrhs - c0 < kb->nrhs ? nrhs - c0 : kb->nrhs;
        double *bc = b + (size_t)c0 * ldb;
        for (int i = 0; i < kb->nb; ++i) {
            block *k = &kb->b[i];
            for (int c = 0; c < nr; ++c)
                for (int ii = 0; ii < k->m; ++ii) k->B[ii + (size_t)c * k->m] = bc[k->rows[ii] + (size_t)c * ldb];
            int rc = block_solve(k, nr, err, errlen);
            if (rc) return rc;
        }
        for (int i = 0; i < kb->nb; ++i) {
            const block *k = &kb->b[i];
            for (int c = 0; c < nr; ++c)
                for (int jj = 0; jj < k->n; ++jj) bc[k->cols[jj] + (size_t)c * ldb] = k->B[jj + (size_t)c * k->m];
        }
    }
    return MB_OK;
}

int kin_blocks_solve_transposed(kin_blocks *kb, const double *g, double *lambda, char *err, size_t errlen) {
    for (int i = 0; i < kb->nc; ++i) lambda[i] = 0;
    for (int i = 0; i < kb->nb; ++i) {
        block *k = &kb->b[i];
        if (kb->gen) {   /* lambda = X' g on the block's rows */
            const double *X = kb->gX + kb->xoff[i];
            for (int ii = 0; ii < k->n; ++ii) {
                double s = 0;
                for (int jj = 0; jj < k->n; ++jj) s += X[jj + (size_t)ii * k->n] * g[k->cols[jj]];
                lambda[k->rows[ii]] = s;
            }
            continue;
        }
        for (int jj = 0; jj < k->n; ++jj) k->B[jj] = g[k->cols[jj]];
        int rc = k->lu ? mb_inverse_apply_transposed(k->ws, k->n, k->A, k->B, err, errlen)
                       : mb_qrp_solve_transposed(k->ws, k->m, k->n, k->n, k->A, k->B, err, errlen);
        if (rc) return rc;
        for (int ii = 0; ii < k->m; ++ii) lambda[k->rows[ii]] = k->B[ii];
    }
    return MB_OK;
}

int kin_blocks_R(kin_blocks *kb, const double *J, double *R, char *err, size_t errlen) {
    if (kb->gen) {
        kb->g->R(kb->gX, J, R);
        return MB_OK;
    }
    for (int i = 0; i < kb->nb; ++i) {
        block *k = &kb->b[i];
        if (k->ncoup == 0) continue;
        for (int q = 0; q < k->ncoup; ++q) {
            const double *col = J + (size_t)kb->ind[k->coup[q]] * kb->nc;
            double *x = k->B + (size_t)q * k->m;
            for (int ii = 0; ii < k->m; ++ii) x[ii] = -col[k->rows[ii]];
        }
        int rc = block_solve(k, k->ncoup, err, errlen);
        if (rc) return rc;
        for (int q = 0; q < k->ncoup; ++q) {
            double *Rc = R + (size_t)k->coup[q] * kb->nz;
            const double *x = k->B + (size_t)q * k->m;
            for (int jj = 0; jj < k->n; ++jj) Rc[kb->dep[k->cols[jj]]] = x[jj];
        }
    }
    return MB_OK;
}

void kin_blocks_R_pattern(const kin_blocks *kb, const int **colptr, const int **rowind) {
    *colptr = kb->rcolptr;
    *rowind = kb->rrowind;
}

int kin_blocks_worst(const kin_blocks *kb) { return kb->worst; }

void kin_blocks_members(const kin_blocks *kb, int b, const int **rows, const int **coords) {
    *rows = kb->b[b].rows;
    *coords = kb->b[b].coords;
}

int kin_blocks_count(const kin_blocks *kb) { return kb ? kb->nb : 0; }

void kin_blocks_shape(const kin_blocks *kb, int b, int *rows, int *cols) {
    *rows = kb->b[b].m;
    *cols = kb->b[b].n;
}
