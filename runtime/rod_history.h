/* rod_history.h: the history of first-stage accelerations and its Lagrange extrapolation, for the rods' inertia
 * forces taken from earlier steps (seeds/002.md §2.3-2.5). */
#ifndef MB_ROD_HISTORY_H
#define MB_ROD_HISTORY_H

#include <stddef.h>

/* How the rods' second-derivative inertia forces (SDIF) enter: exactly (their mass in M), or from accelerations
 * extrapolated from the last 1, 2 or 3 accepted first stages (point, linear or quadratic Lagrange). */
typedef enum { MB_ROD_EXACT, MB_ROD_POINT, MB_ROD_LINEAR, MB_ROD_QUADRATIC } mb_rod_mode;

/* "exact", "point", "linear", "quadratic" -> *out; MB_ERR_ARG for another name. */
int mb_rod_mode_parse(const char *name, mb_rod_mode *out);
const char *mb_rod_mode_name(mb_rod_mode m);

#define MB_ROD_HISTORY_MAX 3

/* Samples (t_k, a_k), newest first, at most MB_ROD_HISTORY_MAX, each of n accelerations. */
typedef struct {
    int n, count;
    double t[MB_ROD_HISTORY_MAX];
    double *a[MB_ROD_HISTORY_MAX];
    double *store;            /* n * MB_ROD_HISTORY_MAX */
} mb_rod_history;

/* Allocates the samples of n values; 0 or MB_ERR_ALLOC with a message. */
int mb_rod_history_init(mb_rod_history *h, int n, char *err, size_t errlen);
void mb_rod_history_free(mb_rod_history *h);
/* Forgets every sample: after a discontinuity (a road step, new inputs, a restart), the extrapolation starts over. */
void mb_rod_history_reset(mb_rod_history *h);
/* Adds the sample (t, a) as the newest; the oldest beyond MB_ROD_HISTORY_MAX is dropped. A sample at the time of the
 * newest (the first stage evaluated again at the same point) replaces it. */
void mb_rod_history_push(mb_rod_history *h, double t, const double *a);
/* The Lagrange weights w[0..k-1] of the k newest samples (k = 1, 2, 3) for the value at t: the polynomial through
 * them, evaluated at t. With equal spacing h and t = t_0 + c h: point (1), linear (1 + c, -c), quadratic
 * ((1 + c)(2 + c)/2, -c (2 + c), c (1 + c)/2). */
void mb_rod_weights(const double *ts, int k, double t, double *w);
/* The extrapolated accelerations at t into out (n): from min(order, count) samples, order 1 point, 2 linear,
 * 3 quadratic. Returns the number of samples used (0: no history, out untouched). */
int mb_rod_history_extrapolate(const mb_rod_history *h, int order, double t, double *out);

/* A copy of h's samples in MB_ROD_HISTORY_SNAPSHOT(n) doubles, and h set back to such a copy (of the same n): the
 * adjoint replays steps from the history they started with. */
#define MB_ROD_HISTORY_SNAPSHOT(n) (1 + (size_t)MB_ROD_HISTORY_MAX * (1 + (size_t)(n)))
void mb_rod_history_save(const mb_rod_history *h, double *buf);
void mb_rod_history_load(mb_rod_history *h, const double *buf);

#endif
