/* mb_work.c: workspaces for generated functions and the messages of their statuses. */
#include <stdlib.h>

#include "mb_work.h"

double *mb_work_alloc(const mb_model *m) {
    size_t n = m && m->nwork > 0 ? (size_t)m->nwork : 1;
    return calloc(n, sizeof(double));
}

int mb_fn_status(const mb_model *m, int rc, const char *fn, double t, char *err, size_t errlen) {
    const char *name = m && m->name ? m->name : "(unnamed)";
    if (rc == MB_FN_OK) return MB_OK;
    if (rc == MB_FN_SINGULAR)
        return mb_fail(err, errlen, MB_ERR_NOT_PD,
                       "model %s: %s: the mass matrix has a pivot that is not positive and finite at t = %.10g", name,
                       fn, t);
    return mb_fail(err, errlen, MB_ERR_MODEL, "model %s: %s returned the unknown status %d at t = %.10g", name, fn, rc,
                   t);
}
