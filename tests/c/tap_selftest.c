/* tap_selftest.c: the C TAP harness reports failures with both values and a non-zero exit. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "tap.h"

/* Run as a sub-test with --fail: one pass, two deliberate failures. */
static int failing_subtest(void) {
    ok(1, "passes");
    is_double(1.5, 2.5, 1e-12, 0.0, "deliberately wrong double");
    is_int(3, 4, "deliberately wrong int");
    return done_testing();
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--fail") == 0) return failing_subtest();

    char cmd[4096], out[8192] = "";
    snprintf(cmd, sizeof cmd, "'%s' --fail", argv[0]);
    FILE *f = popen(cmd, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = '\0';
    int status = f ? pclose(f) : -1;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

    ok(strstr(out, "ok 1 - passes\n") != NULL, "passing check reports ok");
    ok(strstr(out, "not ok 2 - deliberately wrong double") != NULL, "failing double reports not ok");
    ok(strstr(out, "got: 1.5") != NULL && strstr(out, "expected: 2.5") != NULL,
       "failing double prints both values");
    ok(strstr(out, "not ok 3 - deliberately wrong int") != NULL && strstr(out, "got: 3") != NULL &&
       strstr(out, "expected: 4") != NULL, "failing int reports not ok with both values");
    ok(strstr(out, "1..3\n") != NULL, "done_testing prints the plan");
    is_int(code, 2, "exit status is the number of failures");
    is_double(1.0 + 1e-13, 1.0, 1e-12, 0.0, "relative tolerance accepts a close value");
    is_double(1e-20, 0.0, 1e-12, 1e-15, "absolute tolerance accepts a tiny value near zero");
    ok(!isnan(NAN) ? 0 : 1, "NaN is detected");
    if (code != 2) diag("sub-test output:\n%s", out);
    return done_testing();
}
