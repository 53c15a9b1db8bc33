// adolc_jac.cpp: the Jacobian [dr/dz, dr/dzd] of one generated inverse dynamics by ADOL-C (seeds/003.md): the SAME
// generated C file compiled as C++ with mb_real = adouble and taped once, then dense forward (fov_forward, 2n
// directions), dense reverse (fov_reverse, n weight vectors), sparse (jac_pat, a greedy column colouring, compressed
// fov_forward: the ADOL-C build here has no ColPack, design/FACTS.md), against mbgen's analytic derivative and
// central differences of the generated double function. Checks agreement, then prints "key value" timings (ns).
// Built by tests/bench/peers_adolc.lua / tests/peer_adolc.t (tests/lib/adolc_build.lua) with adolc_tape.cpp.
#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" {
int ref_n(void);
int ref_np(void);
int ref_nu(void);
const double *ref_p(void);
void ref_residual(const double *z, const double *zd, const double *zdd, double *r);
void ref_jacobian(const double *z, const double *zd, const double *zdd, double *J);
int ref_pattern_has(int i, int j);
}
void ad_tape(int n, const double *x, const double *zdd, const double *p, double *y);   // adolc_tape.cpp

#define _POSIX_C_SOURCE 200809L
extern "C" {
#include "bench_time.h"
}

int main(int argc, char **argv) {
    const bool timing = argc > 1;
    const int n = ref_n(), m = n, nx = 2 * n;
    std::vector<double> x(nx), zdd(n), y(m);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.3 * std::sin(1.7 * i + 0.3);
        x[n + i] = 0.8 * std::cos(0.9 * i);
        zdd[i] = 0.5 * std::sin(0.4 * i - 1);
    }
    const double *p = ref_p();
    // Tape 1: independents z and zd; zdd and p are constants of the tape.
    ad_tape(n, x.data(), zdd.data(), p, y.data());

    // mbgen analytic and central differences.
    std::vector<double> Jm((size_t)n * nx), Jc((size_t)n * nx), Jf((size_t)n * nx), Jr((size_t)n * nx), Js((size_t)n * nx);
    ref_jacobian(x.data(), x.data() + n, zdd.data(), Jm.data());
    std::vector<double> xp(x), rp(n), rm(n);
    auto central = [&]() {
        for (int j = 0; j < nx; ++j) {
            double h = 1e-6 * (1 + std::fabs(x[j]));
            xp[j] = x[j] + h; ref_residual(xp.data(), xp.data() + n, zdd.data(), rp.data());
            xp[j] = x[j] - h; ref_residual(xp.data(), xp.data() + n, zdd.data(), rm.data());
            xp[j] = x[j];
            for (int i = 0; i < n; ++i) Jc[i + (size_t)j * n] = (rp[i] - rm[i]) / (2 * h);
        }
    };
    central();
    // Dense forward: 2n directions at once.
    double **X = myalloc2(nx, nx), **Y = myalloc2(m, nx);
    for (int i = 0; i < nx; ++i) for (int j = 0; j < nx; ++j) X[i][j] = i == j;
    auto dense_forward = [&]() {
        fov_forward(1, m, nx, nx, x.data(), X, y.data(), Y);
        for (int i = 0; i < m; ++i) for (int j = 0; j < nx; ++j) Jf[i + (size_t)j * n] = Y[i][j];
    };
    dense_forward();
    // Dense reverse: a zero-order sweep that keeps the values, then n weight vectors.
    double **U = myalloc2(m, m), **Z = myalloc2(m, nx);
    for (int i = 0; i < m; ++i) for (int j = 0; j < m; ++j) U[i][j] = i == j;
    auto dense_reverse = [&]() {
        zos_forward(1, m, nx, 1, x.data(), y.data());
        fov_reverse(1, m, nx, m, U, Z);
        for (int i = 0; i < m; ++i) for (int j = 0; j < nx; ++j) Jr[i + (size_t)j * n] = Z[i][j];
    };
    dense_reverse();
    // Sparse: the pattern once, a greedy colouring of columns that share no row, compressed forward.
    std::vector<unsigned int *> JP(m);
    int options[3] = { 0, 0, 0 };
    jac_pat(1, m, nx, x.data(), JP.data(), options);
    std::vector<std::vector<char>> rowcols(m, std::vector<char>(nx, 0));
    size_t nnz = 0;
    for (int i = 0; i < m; ++i) for (unsigned k = 1; k <= JP[i][0]; ++k) { rowcols[i][JP[i][k]] = 1; ++nnz; }
    // The generation-time pattern against the tape's. An entry of jac_pat outside it (missing) must be a cancellation
    // the generator proved (ADOL-C's value is round-off), one of it outside jac_pat (extra) a cancellation the tape
    // proves (the analytic value is round-off); "# missing/extra i j" lines name them.
    size_t missing = 0, extra = 0;
    double missing_max = 0, extra_max = 0, jmax = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < nx; ++j) {
            int has = ref_pattern_has(i, j);
            double v = std::fabs(Jf[i + (size_t)j * n]);
            jmax = std::max(jmax, v);
            if (rowcols[i][j] && !has) {
                ++missing;
                missing_max = std::max(missing_max, v);
                std::printf("# missing %d %d value %.3e\n", i, j, Jf[i + (size_t)j * n]);
            }
            if (has && !rowcols[i][j]) {
                ++extra;
                extra_max = std::max(extra_max, std::fabs(Jm[i + (size_t)j * n]));
                std::printf("# extra %d %d value %.3e analytic %.3e\n", i, j, Jf[i + (size_t)j * n], Jm[i + (size_t)j * n]);
            }
        }
    std::vector<int> color(nx, -1);
    int ncolors = 0;
    for (int j = 0; j < nx; ++j) {
        std::vector<char> used(nx + 1, 0);
        for (int i = 0; i < m; ++i)
            if (rowcols[i][j])
                for (int k = 0; k < j; ++k) if (rowcols[i][k]) used[color[k]] = 1;
        int c = 0;
        while (used[c]) ++c;
        color[j] = c;
        ncolors = std::max(ncolors, c + 1);
    }
    double **S = myalloc2(nx, ncolors), **YS = myalloc2(m, ncolors);
    for (int j = 0; j < nx; ++j) for (int c = 0; c < ncolors; ++c) S[j][c] = color[j] == c;
    auto sparse = [&]() {
        fov_forward(1, m, nx, ncolors, x.data(), S, y.data(), YS);
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < nx; ++j) Js[i + (size_t)j * n] = rowcols[i][j] ? YS[i][color[j]] : 0.0;
    };
    sparse();
    auto worst = [&](const std::vector<double> &A) {
        double e = 0, s = 0;
        for (size_t k = 0; k < A.size(); ++k) { e = std::max(e, std::fabs(A[k] - Jm[k])); s = std::max(s, std::fabs(Jm[k])); }
        return e / (s > 0 ? s : 1);
    };
    std::printf("pattern_missing %zu\npattern_missing_max_rel %.3e\npattern_extra %zu\npattern_extra_max_rel %.3e\n",
                missing, missing_max / (jmax > 0 ? jmax : 1), extra, extra_max / (jmax > 0 ? jmax : 1));
    std::printf("n %d\nnnz %zu\ncolors %d\nforward_rel %.3e\nreverse_rel %.3e\nsparse_rel %.3e\ncentral_rel %.3e\n", n, nnz,
                ncolors, worst(Jf), worst(Jr), worst(Js), worst(Jc));
    if (timing) {
        double t_an, t_cd, t_fw, t_rv, t_sp, t_id;
        TIME(t_id, ref_residual(x.data(), x.data() + n, zdd.data(), rp.data()); sink = rp[0]);
        TIME(t_an, ref_jacobian(x.data(), x.data() + n, zdd.data(), Jm.data()); sink = Jm[0]);
        TIME(t_cd, central(); sink = Jc[0]);
        TIME(t_fw, dense_forward(); sink = Jf[0]);
        TIME(t_rv, dense_reverse(); sink = Jr[0]);
        TIME(t_sp, sparse(); sink = Js[0]);
        std::printf("residual_ns %.1f\nanalytic_ns %.1f\ncentral_ns %.1f\nadolc_forward_ns %.1f\nadolc_reverse_ns %.1f\n"
                    "adolc_sparse_ns %.1f\n", t_id, t_an, t_cd, t_fw, t_rv, t_sp);
    }
    myfree2(X); myfree2(Y); myfree2(U); myfree2(Z); myfree2(S); myfree2(YS);
    for (int i = 0; i < m; ++i) free(JP[i]);
    return 0;
}
