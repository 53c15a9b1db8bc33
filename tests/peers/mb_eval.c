/* mb_eval.c: reads z, zd, zdd (NZ each) from stdin and prints mbgen's M, inverse dynamics r = M zdd - Q and,
 * with -DFD_FN, forward dynamics a = M^-1 Q. */
#include <stdio.h>
#include MODEL_HEADER

int main(void)
{
    double z[NZ], zd[NZ], zdd[NZ], M[NZ * NZ], r[NZ], acc[NZ], work[NWORK + 1];
    double *v[3] = { z, zd, zdd };
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < NZ; i++)
            if (scanf("%lf", &v[k][i]) != 1) return 1;
    mb_args a = { 0 };
    a.z = z; a.zd = zd; a.zdd = zdd;
    MASS_FN(&a, M, work);
    ID_FN(&a, r, work);
    for (int i = 0; i < NZ; i++) for (int j = 0; j < NZ; j++) printf("M %d %d %.17g\n", i, j, M[i * NZ + j]);
    for (int i = 0; i < NZ; i++) printf("r %d %.17g\n", i, r[i]);
#ifdef FD_FN
    if (FD_FN(&a, acc, work)) return 1;
    for (int i = 0; i < NZ; i++) printf("a %d %.17g\n", i, acc[i]);
#else
    (void)acc;
#endif
    return 0;
}
