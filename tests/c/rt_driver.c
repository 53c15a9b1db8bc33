/* rt_driver.c: the mbrun driver compiled against a hand-written model: exit codes, summary, CSV, and clean failures. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hand_models.h"
#include "tap.h"

/* The driver itself, linked into this test with the double pendulum as its model. */
#define MB_MODEL hand_pendulum_model
#define main mbrun_main
#include "runtime/driver/mbrun.c"
#undef main

static char out[65536];
static const char *self;

/* Runs this program as the driver with the given arguments; stdout and stderr in out. */
static int drive(const char *args) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' --as-mbrun %s 2>&1", self, args);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = '\0';
    int st = p ? pclose(p) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The number after "KEY" in out, NAN when absent. */
static double after(const char *key) {
    const char *s = strstr(out, key);
    return s ? strtod(s + strlen(key), NULL) : NAN;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--as-mbrun") == 0) {
        argv[1] = argv[0];
        return mbrun_main(argc - 1, argv + 1);
    }
    self = argv[0];
    char csv[256], cmd[1024];
    snprintf(csv, sizeof csv, "/tmp/rt_driver_%ld.csv", (long)getpid());
    remove(csv);

    /* Defaults from the model (rk4, h = 1e-3, t_end 5): the digest table at t = 5. */
    is_int(drive(""), 0, "default run exits 0");
    ok(strstr(out, "model double_pendulum: 2 coordinates, integrator rk4 (step 0.001), t = 0 .. 5 s") != NULL,
       "summary names model, integrator and span");
    is_double(after("shoulder             z ="), 0.26939296, 0, 1e-6, "final shoulder angle = table value at t = 5");
    is_double(after("elbow                z ="), 0.25560588, 0, 1e-6, "final elbow angle = table value at t = 5");
    ok(strstr(out, "energy start -25.48712763") && strstr(out, "energy end   -25.48712763"),
       "energy at start and end printed and equal to 10 digits");
    is_double(after("steps "), 5000, 0, 0, "5000 steps reported");
    is_double(after("function evaluations "), 20000, 0, 0, "20000 function evaluations reported");
    ok(strstr(out, "wall time ") && strstr(out, "real-time factor "), "wall time and real-time factor reported");
    if (!strstr(out, "final state")) diag("output:\n%s", out);

    /* CSV output with dopri5. */
    snprintf(cmd, sizeof cmd, "--integrator dopri5 --tolerance 1e-9 --t-end 2 --output-step 0.1 --out %s", csv);
    is_int(drive(cmd), 0, "dopri5 run with --out exits 0");
    FILE *f = fopen(csv, "r");
    char line[4096] = "", last[4096] = "";
    int rows = 0;
    if (f) {
        if (fgets(line, sizeof line, f))
            while (fgets(last, sizeof last, f)) ++rows;
        fclose(f);
    }
    ok(strcmp(line, "t,z.shoulder,z.elbow,zd.shoulder,zd.elbow,kinetic,potential,energy,P.x,P.y,P.z,Q.x,Q.y,Q.z\n") ==
           0, "CSV header names coordinates, velocities, energy and points: %s", line);
    is_int(rows, 21, "21 rows for t = 0, 0.1, ..., 2");
    is_double(strtod(last, NULL), 2.0, 0, 1e-12, "last row at t = 2");
    ok(strstr(out, "wrote ") != NULL, "summary mentions the file");
    remove(csv);

    /* --set changes a design parameter: a heavier lower mass changes the motion. */
    is_int(drive("--t-end 1 --set mQ=2 --quiet"), 0, "--set mQ=2 --quiet exits 0");
    is_int((int)strlen(out), 0, "--quiet prints nothing");
    drive("--t-end 1 --set mQ=2");
    double zq = after("elbow                z =");
    drive("--t-end 1");
    ok(fabs(zq - after("elbow                z =")) > 1e-3, "--set mQ=2 changes the result");

    /* Trapezoidal and forward dynamics run too and agree with rk4 at t = 1. */
    double z1 = after("shoulder             z =");
    drive("--t-end 1 --integrator trapezoidal --step 1e-4");
    ok(fabs(after("shoulder             z =") - z1) < 1e-6, "trapezoidal (h = 1e-4) agrees with rk4 to 1e-6");
    ok(after("Newton iterations ") > 0 && after("Jacobian evaluations ") > 0, "Newton counts reported");
    drive("--t-end 1 --forward-dynamics");
    ok(fabs(after("shoulder             z =") - z1) < 1e-12, "forward dynamics agrees with Cholesky");

    /* Bad input: a clear message, a non-zero exit, and no file written. */
    struct {
        const char *args, *msg;
        int code;
    } bad[] = {
        {"--set mP=nan", "not a finite number", 2},
        {"--set mP=inf", "not a finite number", 2},
        {"--set nosuch=1", "no design parameter \"nosuch\" (it has: L1, L2, mP, mQ)", 2},
        {"--step -1", "--step must be positive", 2},
        {"--step 0", "--step must be positive", 2},
        {"--t-end -1", "--t-end must be >= 0", 2},
        {"--integrator euler", "unknown integrator 'euler'", 2},
        {"--tolerance abc", "'abc' is not a number", 2},
        {"--bogus", "unknown option '--bogus'", 2},
        {"--step", "--step needs a value", 2},
        {"--drift-tol 0", "--drift-tol must be positive", 2},
        {"--integrator trapezoidal --newton-max-iter 1", "Newton did not converge", 1},
        {"--integrator dopri5 --tolerance 1e-300", "fell below its limit", 1},
        {"--max-steps 3", "more than max_steps = 3", 1},
    };
    /* A bad command line writes nothing; a run that fails keeps the header and every row up to the state the
     * message names ("error at t = T"), each row complete. */
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        remove(csv);
        snprintf(cmd, sizeof cmd, "--out %s %s", csv, bad[k].args);
        int code = drive(cmd);
        int kept = 1;
        if (code == 2) {
            kept = !exists(csv);
        } else {
            const char *at = strstr(out, "error at t = ");
            double t_fail = at ? strtod(at + strlen("error at t = "), NULL) : NAN;
            FILE *g = fopen(csv, "r");
            int lines = 0, complete = 1;
            double t_last = NAN;
            if (g) {
                while (fgets(line, sizeof line, g)) {
                    int commas = 0;
                    for (const char *c = line; *c; ++c) commas += *c == ',';
                    complete = complete && commas == 13 && strchr(line, '\n');
                    if (lines++ > 0) t_last = strtod(line, NULL);
                }
                fclose(g);
            }
            kept = g && lines >= 2 && complete && t_last == t_fail;
            if (!kept) diag("CSV: %d lines, last row at t = %g, message at t = %g", lines, t_last, t_fail);
        }
        ok(code == bad[k].code && strstr(out, bad[k].msg) && kept, "%s: exit %d, \"%s\", %s", bad[k].args, code,
           strtok(out, "\n") ? out : "", code == 2 ? "no file" : "the CSV up to the last good state");
    }
    remove(csv);
    is_int(drive("--out /nonexistent_dir_rt_driver/x.csv"), 1, "an output file that cannot be opened: exit 1");
    ok(strstr(out, "mbrun: error: cannot write /nonexistent_dir_rt_driver/x.csv: No such file or directory") != NULL,
       "and says so: %s", out);

    /* The real build: gcc -DMB_MODEL=... mbrun.c MODEL.c + the runtime, as `mbgen run` does. */
    char dir[256], src[300], exe[300];
    snprintf(dir, sizeof dir, "/tmp/rt_driver_%ld", (long)getpid());
    snprintf(src, sizeof src, "%s/model.c", dir);
    snprintf(exe, sizeof exe, "%s/mbrun", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && printf '#include \"hand_models.h\"\\n' > %s", dir, src);
    int built = system(cmd) == 0;
    snprintf(cmd, sizeof cmd,
             "${CC:-cc} -std=c99 -O2 -Wall -Wextra -Werror -Iruntime -Itests/c -DMB_MODEL=hand_osc_model "
             "runtime/driver/mbrun.c %s runtime/*.c -o %s -llapack -lklu -lm 2>&1",
             src, exe);
    built = built && system(cmd) == 0;
    ok(built, "mbrun.c compiles standalone against a model with -DMB_MODEL=hand_osc_model");
    snprintf(cmd, sizeof cmd, "%s --t-end 3.14159265358979 --step 1e-3 > %s/out.txt 2>&1", exe, dir);
    int rc = built ? system(cmd) : -1;
    is_int(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0, "standalone driver exits 0");
    snprintf(cmd, sizeof cmd, "%s/out.txt", dir);
    f = fopen(cmd, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = '\0';
    if (f) fclose(f);
    /* omega = 2: after half a period... a full period (pi) x returns to 1. */
    is_double(after("x                    z ="), 1.0, 0, 1e-9, "oscillator back at x = 1 after one period");
    snprintf(cmd, sizeof cmd, "%s --integrator nope > /dev/null 2>&1", exe);
    rc = built ? system(cmd) : -1;
    is_int(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 2, "standalone driver: bad option exits 2");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
