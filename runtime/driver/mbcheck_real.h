/* mbcheck_real.h: what mbcheck.c (complex arithmetic) calls in mbcheck_real.c (the derivatives, real arithmetic). */
#ifndef MBCHECK_REAL_H
#define MBCHECK_REAL_H

/* The arguments of a real model function, in doubles: mb_args differs between the two builds. */
typedef struct {
    double t;
    const double *z, *zd, *zdd, *u, *p, *w;
} mbcheck_real_args;

/* 1 when the real build has slot s (enum mb_slot). */
int mbcheck_real_has(int s);
/* The workspace, in doubles, the real build's functions need. */
int mbcheck_real_nwork(void);
/* Calls slot s of the real build: its status. */
int mbcheck_real_call(int s, const mbcheck_real_args *a, double *out, double *work);

#endif
