// adolc_al3_jac.cpp: the three ADOL-C providers of the al3 tangent's [dr/dz, dr/dzd] (adolc_al3.h), evaluating the
// tape of adolc_al3_tape.cpp at the state the al3 asks for. t and u are independents of the tape that no direction
// seeds (zero rows of the seed matrices; their columns of a reverse sweep are dropped), so one tape follows a run.
#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "adolc_al3.h"

// adolc_al3_tape.cpp (its mb_args is the adouble one, so it is declared here rather than in adolc_al3.h).
extern "C" void ad_al3_tape(short tag, int n, int nu, int np, const double *x, const double *p, double *y);

namespace {
const short TAG = 1;
struct {
    int n = 0, nu = 0, np = 0, nind = 0;   // nind = 2n + 1 + nu
    std::vector<double> p, x;              // the taped parameters and state
} tape;

// x = [z, zd, t, u] from the al3's arguments.
void pack(const mb_args *a, double *x) {
    const int n = tape.n;
    std::memcpy(x, a->z, n * sizeof(double));
    std::memcpy(x + n, a->zd, n * sizeof(double));
    x[2 * n] = a->t;
    for (int i = 0; i < tape.nu; ++i) x[2 * n + 1 + i] = a->u ? a->u[i] : 0.0;
}
}  // namespace

struct ad_al3 {
    ad_mode mode;
    std::vector<double> x, y;
    std::vector<int> colptr, rowind, colour;
    mb_pattern pattern;
    int ncolours = 0;
    double **seed = nullptr, **out = nullptr;   // forward: nind x dirs and n x dirs; reverse: n x n and n x nind
};

extern "C" int ad_al3_record(int n, int nu, int np, const mb_args *a, char *err, size_t errlen) {
    tape.n = n;
    tape.nu = nu;
    tape.np = np;
    tape.nind = 2 * n + 1 + nu;
    tape.p.assign(a->p ? a->p : nullptr, a->p ? a->p + np : nullptr);
    if (np > 0 && !a->p) {
        std::snprintf(err, errlen, "ad_al3_record: the model has %d parameters and none were given", np);
        return 1;
    }
    std::vector<double> y(n);
    tape.x.assign(tape.nind, 0.0);
    pack(a, tape.x.data());
    ad_al3_tape(TAG, n, nu, np, tape.x.data(), a->p, y.data());
    return 0;
}

// The greedy colouring of adolc_jac.cpp: columns in order, each the smallest colour no column sharing a row has.
static int colour_columns(int n, int ncols, const std::vector<int> &colptr, const std::vector<int> &rowind,
                          std::vector<int> &colour) {
    std::vector<std::vector<int>> rowcols(n);
    for (int j = 0; j < ncols; ++j)
        for (int k = colptr[j]; k < colptr[j + 1]; ++k) rowcols[rowind[k]].push_back(j);
    colour.assign(ncols, -1);
    std::vector<int> used(ncols + 1, -1);   // used[c] == j: colour c is taken for column j
    int ncolours = 0;
    for (int j = 0; j < ncols; ++j) {
        for (int k = colptr[j]; k < colptr[j + 1]; ++k)
            for (int other : rowcols[rowind[k]])
                if (colour[other] >= 0) used[colour[other]] = j;
        int c = 0;
        while (used[c] == j) ++c;
        colour[j] = c;
        ncolours = std::max(ncolours, c + 1);
    }
    return ncolours;
}

extern "C" ad_al3 *ad_al3_create(ad_mode mode, char *err, size_t errlen) {
    const int n = tape.n, nx = 2 * n, nind = tape.nind;
    if (n < 1) {
        std::snprintf(err, errlen, "ad_al3_create: no tape (ad_al3_record first)");
        return nullptr;
    }
    ad_al3 *ad = new ad_al3;
    ad->mode = mode;
    ad->x.assign(nind, 0.0);
    ad->y.assign(n, 0.0);
    ad->colptr.assign(nx + 1, 0);
    if (mode == AD_SPARSE) {
        // The pattern once, at the taping state: safe mode holds both sides of every recorded switch.
        std::vector<unsigned int *> JP(n);
        int options[3] = { 0, 0, 0 };
        if (jac_pat(TAG, n, nind, tape.x.data(), JP.data(), options) < 0) {
            std::snprintf(err, errlen, "ad_al3_create: jac_pat failed");
            delete ad;
            return nullptr;
        }
        std::vector<std::vector<int>> cols(nx);
        for (int i = 0; i < n; ++i) {
            for (unsigned k = 1; k <= JP[i][0]; ++k)
                if ((int)JP[i][k] < nx) cols[JP[i][k]].push_back(i);   // the t and u columns are not asked for
            std::free(JP[i]);
        }
        for (int j = 0; j < nx; ++j) {
            std::sort(cols[j].begin(), cols[j].end());
            ad->colptr[j + 1] = ad->colptr[j] + (int)cols[j].size();
            ad->rowind.insert(ad->rowind.end(), cols[j].begin(), cols[j].end());
        }
        ad->ncolours = colour_columns(n, nx, ad->colptr, ad->rowind, ad->colour);
        ad->seed = myalloc2(nind, ad->ncolours);
        ad->out = myalloc2(n, ad->ncolours);
        for (int j = 0; j < nind; ++j)
            for (int c = 0; c < ad->ncolours; ++c) ad->seed[j][c] = j < nx && ad->colour[j] == c;
    } else {
        for (int j = 0; j < nx; ++j) {
            ad->colptr[j + 1] = ad->colptr[j] + n;
            for (int i = 0; i < n; ++i) ad->rowind.push_back(i);
        }
        if (mode == AD_FORWARD) {
            ad->ncolours = nx;
            ad->seed = myalloc2(nind, nx);
            ad->out = myalloc2(n, nx);
            for (int j = 0; j < nind; ++j)
                for (int c = 0; c < nx; ++c) ad->seed[j][c] = j == c;
        } else {
            ad->ncolours = n;
            ad->seed = myalloc2(n, n);
            ad->out = myalloc2(n, nind);
            for (int i = 0; i < n; ++i)
                for (int k = 0; k < n; ++k) ad->seed[i][k] = i == k;
        }
    }
    ad->pattern = { n, nx, ad->colptr.data(), ad->rowind.data() };
    return ad;
}

extern "C" void ad_al3_free(ad_al3 *ad) {
    if (!ad) return;
    if (ad->seed) myfree2(ad->seed);
    if (ad->out) myfree2(ad->out);
    delete ad;
}

extern "C" const mb_pattern *ad_al3_pattern(const ad_al3 *ad) { return &ad->pattern; }
extern "C" int ad_al3_colours(const ad_al3 *ad) { return ad->ncolours; }

extern "C" int ad_al3_jacobian(void *ctx, const mb_args *a, double *values, char *err, size_t errlen) {
    ad_al3 *ad = static_cast<ad_al3 *>(ctx);
    const int n = tape.n, nx = 2 * n, nind = tape.nind;
    for (int i = 0; i < tape.np; ++i)
        if (!a->p || a->p[i] != tape.p[i]) {
            std::snprintf(err, errlen, "ADOL-C provider: parameter %d differs from the taped one", i);
            return 1;
        }
    if (a->zdd)
        for (int i = 0; i < n; ++i)
            if (a->zdd[i] != 0) {
                std::snprintf(err, errlen, "ADOL-C provider: zdd[%d] = %g; the tape is r at zdd = 0 (approx_tangent)", i,
                              a->zdd[i]);
                return 1;
            }
    pack(a, ad->x.data());
    int rc;
    if (ad->mode == AD_REVERSE) {
        rc = zos_forward(TAG, n, nind, 1, ad->x.data(), ad->y.data());
        if (rc >= 0) rc = fov_reverse(TAG, n, nind, n, ad->seed, ad->out);
    } else {
        rc = fov_forward(TAG, n, nind, ad->ncolours, ad->x.data(), ad->seed, ad->y.data(), ad->out);
    }
    if (rc < 0) {
        // A negative return: the evaluation left the taped control flow (the generated code has no branches on
        // adoubles, so this would be a bug of the build).
        std::snprintf(err, errlen, "ADOL-C provider: the tape is not valid at t = %.10g (return code %d)", a->t, rc);
        return 1;
    }
    if (ad->mode == AD_SPARSE) {
        for (int j = 0; j < nx; ++j)
            for (int k = ad->colptr[j]; k < ad->colptr[j + 1]; ++k) values[k] = ad->out[ad->rowind[k]][ad->colour[j]];
    } else {
        for (int j = 0; j < nx; ++j)
            for (int i = 0; i < n; ++i) values[i + (size_t)j * n] = ad->out[i][j];
    }
    return 0;
}
