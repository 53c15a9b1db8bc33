/* sens_adjoint.h: the adjoint variable method (AVM) on the open-tree formulation, with checkpointing; see sens.h. */
#ifndef MB_SENS_ADJOINT_H
#define MB_SENS_ADJOINT_H

#include "sens.h"

/* Called by mb_sens_run after it checked the problem and the options (trapezoidal only). */
int mb_sens_avm(const mb_sens_problem *pr, const mb_sens_options *o, double *psi, double *grad,
                mb_sens_stats *st, char *err, size_t errlen);

#endif
