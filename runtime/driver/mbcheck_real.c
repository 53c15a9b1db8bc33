/* mbcheck_real.c: mbcheck's door to the derivatives, which `mbgen check` builds in real arithmetic as MB_MODEL_REAL.
 * Compiled together with mbcheck.c, so with its -DMB_COMPLEX: this unit is the real one. */
#undef MB_COMPLEX
#include "mb_model.h"
#include "mbcheck_real.h"

extern const mb_model MB_MODEL_REAL;

int mbcheck_real_has(int s)
{
    return mb_slot_fn(&MB_MODEL_REAL, s) != 0;
}

int mbcheck_real_nwork(void)
{
    return MB_MODEL_REAL.nwork;
}

int mbcheck_real_call(int s, const mbcheck_real_args *r, double *out, double *work)
{
    const mb_args a = { r->t, r->z, r->zd, r->zdd, r->u, r->p, r->w };
    return mb_slot_fn(&MB_MODEL_REAL, s)(&a, out, work);
}
