/* rod_history.c: first-stage accelerations kept for the rods' extrapolated inertia forces, and their extrapolation. */
#include <stdlib.h>
#include <string.h>

#include "mb_status.h"
#include "rod_history.h"

static const char *const mode_names[] = {"exact", "point", "linear", "quadratic"};

int mb_rod_mode_parse(const char *name, mb_rod_mode *out) {
    for (int i = 0; i < 4; ++i)
        if (name && strcmp(name, mode_names[i]) == 0) {
            *out = (mb_rod_mode)i;
            return MB_OK;
        }
    return MB_ERR_ARG;
}

const char *mb_rod_mode_name(mb_rod_mode m) { return (unsigned)m < 4 ? mode_names[m] : "unknown"; }

int mb_rod_history_init(mb_rod_history *h, int n, char *err, size_t errlen) {
    memset(h, 0, sizeof *h);
    h->n = n;
    h->store = calloc((size_t)(n > 0 ? n : 1) * MB_ROD_HISTORY_MAX, sizeof(double));
    if (!h->store) return mb_fail(err, errlen, MB_ERR_ALLOC, "rod history: out of memory (n = %d)", n);
    for (int k = 0; k < MB_ROD_HISTORY_MAX; ++k) h->a[k] = h->store + (size_t)k * n;
    return MB_OK;
}

void mb_rod_history_free(mb_rod_history *h) {
    if (!h) return;
    free(h->store);
    memset(h, 0, sizeof *h);
}

void mb_rod_history_reset(mb_rod_history *h) { h->count = 0; }

void mb_rod_history_push(mb_rod_history *h, double t, const double *a) {
    if (h->count > 0 && h->t[0] == t) {
        memcpy(h->a[0], a, (size_t)h->n * sizeof(double));
        return;
    }
    /* The oldest buffer becomes the newest: no copies of the others. */
    double *oldest = h->a[MB_ROD_HISTORY_MAX - 1];
    for (int k = MB_ROD_HISTORY_MAX - 1; k > 0; --k) {
        h->a[k] = h->a[k - 1];
        h->t[k] = h->t[k - 1];
    }
    h->a[0] = oldest;
    h->t[0] = t;
    memcpy(oldest, a, (size_t)h->n * sizeof(double));
    if (h->count < MB_ROD_HISTORY_MAX) h->count++;
}

void mb_rod_weights(const double *ts, int k, double t, double *w) {
    for (int i = 0; i < k; ++i) {
        double v = 1;
        for (int j = 0; j < k; ++j)
            if (j != i) v *= (t - ts[j]) / (ts[i] - ts[j]);
        w[i] = v;
    }
}

int mb_rod_history_extrapolate(const mb_rod_history *h, int order, double t, double *out) {
    int k = order < h->count ? order : h->count;
    if (k <= 0) return 0;
    double w[MB_ROD_HISTORY_MAX];
    mb_rod_weights(h->t, k, t, w);
    for (int i = 0; i < h->n; ++i) {
        double s = 0;
        for (int j = 0; j < k; ++j) s += w[j] * h->a[j][i];
        out[i] = s;
    }
    return k;
}

void mb_rod_history_save(const mb_rod_history *h, double *buf) {
    buf[0] = h->count;
    for (int k = 0; k < h->count; ++k) {
        double *b = buf + 1 + (size_t)k * (1 + (size_t)h->n);
        b[0] = h->t[k];
        memcpy(b + 1, h->a[k], (size_t)h->n * sizeof(double));
    }
}

void mb_rod_history_load(mb_rod_history *h, const double *buf) {
    h->count = (int)buf[0];
    for (int k = 0; k < h->count; ++k) {
        const double *b = buf + 1 + (size_t)k * (1 + (size_t)h->n);
        h->t[k] = b[0];
        memcpy(h->a[k], b + 1, (size_t)h->n * sizeof(double));
    }
}
