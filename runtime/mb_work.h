/* mb_work.h: the runtime's side of the generated functions' contract: one workspace per object, statuses turned into messages. */
#ifndef MB_WORK_H
#define MB_WORK_H

#include <stddef.h>

#include "mb_model.h"
#include "mb_status.h"

/* A zeroed workspace for any function of m (m->nwork doubles, at least one), or NULL when out of memory.
 * Every runtime object that calls model functions allocates one at create and frees it with free(). */
double *mb_work_alloc(const mb_model *m);

/* MB_OK when rc is MB_FN_OK; otherwise a runtime status (MB_ERR_NOT_PD for MB_FN_SINGULAR) with a message
 * naming the model, the function and the time. */
int mb_fn_status(const mb_model *m, int rc, const char *fn, double t, char *err, size_t errlen);

#endif
