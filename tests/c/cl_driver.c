/* cl_driver.c: the mbrun driver on the hand-written four-bar: --formulation, and the constraint violation in the summary. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cl_models.h"
#include "tap.h"

#define MB_MODEL cl_fourbar_model
#define main mbrun_main
#include "runtime/driver/mbrun.c"
#undef main

static char out[65536];
static const char *self;

static int drive(const char *args) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' --as-mbrun %s 2>&1", self, args);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = '\0';
    int st = p ? pclose(p) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static double after(const char *key) {
    const char *s = strstr(out, key);
    return s ? strtod(s + strlen(key), NULL) : NAN;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--as-mbrun") == 0) {
        argv[1] = argv[0];
        return mbrun_main(argc - 1, argv + 1);
    }
    self = argv[0];
    is_int(drive("--t-end 0.5"), 0, "default run of a closed loop");
    ok(strstr(out, "formulation matrix_r") != NULL, "defaults to matrix_r for a closed loop");
    ok(after("constraint violation at t = 0.5: position ") < 1e-10, "summary reports the violation: %.3g",
       after("constraint violation at t = 0.5: position "));
    ok(strstr(out, "1 degrees of freedom") != NULL, "and the degrees of freedom");
    is_int(drive("--t-end 0.5 --formulation al3 --step 1e-3"), 0, "al3 run");
    ok(strstr(out, "formulation al3") && strstr(out, "integrator trapezoidal"), "al3 steps with the trapezoidal rule");
    ok(after("position ") < 1e-9, "al3 position violation %.3g", after("position "));
    is_int(drive("--formulation euler"), 2, "unknown formulation: exit 2");
    ok(strstr(out, "choose tree, matrix_r, al3, baumgarte or penalty") != NULL, "\"%s\"", out);
    is_int(drive("--formulation tree"), 1, "tree on a closed loop: exit 1");
    ok(strstr(out, "use matrix_r, al3, penalty or baumgarte") != NULL, "\"%s\"", out);
    is_int(drive("--set Lg=1.0 --t-end 0.1"), 1, "a mechanism that does not assemble: exit 1");
    ok(strstr(out, "does not assemble") != NULL, "\"%s\"", out);
    return done_testing();
}
