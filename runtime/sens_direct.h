/* sens_direct.h: the direct differentiation method (DDM) on the open-tree formulation; see sens.h. */
#ifndef MB_SENS_DIRECT_H
#define MB_SENS_DIRECT_H

#include "sens.h"

/* Called by mb_sens_run after it checked the problem and the options. */
int mb_sens_ddm(const mb_sens_problem *pr, const mb_sens_options *o, double *psi, double *grad,
                mb_sens_stats *st, char *err, size_t errlen);

#endif
