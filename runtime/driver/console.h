/* console.h: the wall clock and the progress bar the drivers (mbrun.c, mbsens.c) show on a terminal. */
#ifndef MB_DRIVER_CONSOLE_H
#define MB_DRIVER_CONSOLE_H

#include <math.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* "[####....]  42%" and the caller's text on stderr's current line (frac clamped to [0, 1]). */
static void draw_bar(double frac, const char *text) {
    enum { WIDTH = 40 };
    double f = fmin(fmax(frac, 0), 1);
    int full = (int)(f * WIDTH);
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; ++i) bar[i] = i < full ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %3d%%  %s", bar, (int)(100 * f), text);
    fflush(stderr);
}

#endif
