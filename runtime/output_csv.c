/* output_csv.c: CSV output of a simulation: header from the model's names, one row per output time. */
#include <stdlib.h>

#include "output_csv.h"

struct mb_csv {
    FILE *f;
    const mb_model *m;
    double *pts;  /* 3 npt */
    double *tyr;  /* MB_TYRE_OUTPUTS ntyre */
    long rows;
};

void mb_csv_free(mb_csv *c) {
    if (!c) return;
    free(c->pts);
    free(c->tyr);
    free(c);
}

static int io_error(FILE *f, char *err, size_t errlen) {
    /* stdio buffers: a full disk shows up at some later write or at fclose, so
     * check the stream's error flag after every row, not only the return codes. */
    if (f && ferror(f)) return mb_fail(err, errlen, MB_ERR_IO, "CSV output: write error");
    return MB_OK;
}

static const char *name_or(const char *const *names, int i, const char *fallback) {
    return names && names[i] ? names[i] : fallback;
}

mb_csv *mb_csv_create(FILE *f, const mb_model *m, char *err, size_t errlen) {
    if (!m) {
        mb_fail(err, errlen, MB_ERR_ARG, "CSV output: no model");
        return NULL;
    }
    mb_csv *c = calloc(1, sizeof *c);
    if (!c || (m->points && m->npt > 0 && !(c->pts = calloc(3 * (size_t)m->npt, sizeof(double)))) ||
        (m->tyres && m->ntyre > 0 && !(c->tyr = calloc(MB_TYRE_OUTPUTS * (size_t)m->ntyre, sizeof(double))))) {
        mb_csv_free(c);
        mb_fail(err, errlen, MB_ERR_ALLOC, "CSV output: out of memory");
        return NULL;
    }
    c->f = f;
    c->m = m;
    if (!f) return c;
    fputs("t", f);
    for (int i = 0; i < m->nz; ++i) fprintf(f, ",z.%s", name_or(m->z_names, i, "?"));
    for (int i = 0; i < m->nz; ++i) fprintf(f, ",zd.%s", name_or(m->z_names, i, "?"));
    if (m->energy) fputs(",kinetic,potential,energy", f);
    if (c->pts)
        for (int i = 0; i < m->npt; ++i) {
            const char *n = name_or(m->point_names, i, "?");
            fprintf(f, ",%s.x,%s.y,%s.z", n, n, n);
        }
    static const char *const tyre_cols[MB_TYRE_OUTPUTS] = {"Fx", "Fy", "Fz", "kappa", "tan_alpha", "deflection",
                                                           "x", "y", "z"};
    if (c->tyr)
        for (int i = 0; i < m->ntyre; ++i)
            for (int k = 0; k < MB_TYRE_OUTPUTS; ++k) fprintf(f, ",tyre.%s.%s", name_or(m->tyre_names, i, "?"), tyre_cols[k]);
    fputc('\n', f);
    fflush(f);
    if (io_error(f, err, errlen)) {
        mb_csv_free(c);
        return NULL;
    }
    return c;
}

int mb_csv_row(mb_csv *c, mb_sim *s, char *err, size_t errlen) {
    const mb_model *m = c->m;
    if (mb_sim_model(s) != m) return mb_fail(err, errlen, MB_ERR_ARG, "CSV output: simulation of another model");
    double T = 0, V = 0;
    int rc;
    /* Compute everything before writing, so a failing row is not half written. */
    if (m->energy && (rc = mb_sim_energy(s, &T, &V))) return mb_fail(err, errlen, rc, "%s", mb_sim_errmsg(s));
    if (c->pts && (rc = mb_sim_points(s, c->pts))) return mb_fail(err, errlen, rc, "%s", mb_sim_errmsg(s));
    if (c->tyr && (rc = mb_sim_tyres(s, c->tyr))) return mb_fail(err, errlen, rc, "%s", mb_sim_errmsg(s));
    const double *z = mb_sim_z(s), *zd = mb_sim_zd(s);
    c->rows++;
    if (!c->f) return MB_OK;
    fprintf(c->f, "%.15g", mb_sim_t(s));
    for (int i = 0; i < m->nz; ++i) fprintf(c->f, ",%.15g", z[i]);
    for (int i = 0; i < m->nz; ++i) fprintf(c->f, ",%.15g", zd[i]);
    if (m->energy) fprintf(c->f, ",%.15g,%.15g,%.15g", T, V, T + V);
    if (c->pts)
        for (int i = 0; i < 3 * m->npt; ++i) fprintf(c->f, ",%.15g", c->pts[i]);
    if (c->tyr)
        for (int i = 0; i < MB_TYRE_OUTPUTS * m->ntyre; ++i) fprintf(c->f, ",%.15g", c->tyr[i]);
    fputc('\n', c->f);
    fflush(c->f);
    return io_error(c->f, err, errlen);
}

long mb_csv_rows(const mb_csv *c) { return c->rows; }
