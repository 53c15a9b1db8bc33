#!/usr/bin/env lua5.4
-- dyn_solve_columns.t: the looped solve of the forward-dynamics derivatives takes only the right-hand sides that are
-- not structurally zero. On a floating base the columns of its slides (position and velocity: no generalized force
-- changes under a rigid translation or a Galilean boost) are exact zeros that the pattern leaves out; every column
-- the pattern keeps is non-zero somewhere; and the result equals -M⁻¹ ∂r/∂y by an independent dense elimination at
-- the forward dynamics' acceleration, with the split functions equal to the halves of the fused one. The solve pads
-- the right-hand sides with zero columns (emit/model.lua); the 30 of the legged robot go as 32.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/dyn_solve_columns"

-- The driver: 3 seeded states; prints the errors and, per column of forward_dynamics_dy, its pattern's count and the
-- largest magnitude seen.
local DRIVER = [[
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "MODEL.h"
#define N MODEL_NZ
#define F(x) MODEL_##x

static double draw(unsigned *s) { *s = 1664525u * *s + 1013904223u; return *s / 4294967296.0 - 0.5; }

/* Y = -A⁻¹ B (A n x n, B n x m, column-major) by Gaussian elimination with partial pivoting, on copies. */
static void minus_solve(int n, int m, const double *A0, const double *B0, double *Y)
{
    static double A[N * N];
    memcpy(A, A0, sizeof(double) * n * n);
    for (int k = 0; k < n * m; ++k) Y[k] = -B0[k];
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r) if (fabs(A[r + c * n]) > fabs(A[p + c * n])) p = r;
        for (int j = 0; j < n; ++j) { double t = A[c + j * n]; A[c + j * n] = A[p + j * n]; A[p + j * n] = t; }
        for (int j = 0; j < m; ++j) { double t = Y[c + j * n]; Y[c + j * n] = Y[p + j * n]; Y[p + j * n] = t; }
        for (int r = c + 1; r < n; ++r) {
            const double l = A[r + c * n] / A[c + c * n];
            for (int j = c; j < n; ++j) A[r + j * n] -= l * A[c + j * n];
            for (int j = 0; j < m; ++j) Y[r + j * n] -= l * Y[c + j * n];
        }
    }
    for (int j = 0; j < m; ++j)
        for (int r = n - 1; r >= 0; --r) {
            double s = Y[r + j * n];
            for (int k = r + 1; k < n; ++k) s -= A[r + k * n] * Y[k + j * n];
            Y[r + j * n] = s / A[r + r * n];
        }
}

int main(void)
{
    static mb_real z[N], zd[N], zdd[N], u[N + 1], p[MODEL_NP + 1], w[8], X[2 * N * N], Xz[N * N], Xzd[N * N],
        Mm[N * N], D[2 * N * N], Y[2 * N * N], work[1 << 17];
    double colmax[2 * N] = { 0 }, err = 0, split = 0;
    unsigned s = 7;
    int rc = 0;
    for (int k = 0; k < MODEL_NP; ++k) p[k] = MODEL_model.p_default[k];
    for (int trial = 0; trial < 3; ++trial) {
        for (int i = 0; i < N; ++i) { z[i] = 2 * draw(&s); zd[i] = 4 * draw(&s); }
        mb_args a = { 0.0, z, zd, zdd, u, p, w };
        rc |= F(forward_dynamics)(&a, zdd, work);
        rc |= F(forward_dynamics_dy)(&a, X, work);
        rc |= F(forward_dynamics_dz)(&a, Xz, work);
        rc |= F(forward_dynamics_dzd)(&a, Xzd, work);
        rc |= F(mass)(&a, Mm, work);
        rc |= F(inverse_dynamics_dy)(&a, D, work);
        minus_solve(N, 2 * N, Mm, D, Y);
        double big = 0, e = 0, sp = 0;
        for (int k = 0; k < 2 * N * N; ++k) big = fmax(big, fabs(Y[k]));
        for (int k = 0; k < 2 * N * N; ++k) {
            e = fmax(e, fabs(X[k] - Y[k]));
            sp = fmax(sp, fabs(X[k] - (k < N * N ? Xz[k] : Xzd[k - N * N])));
            colmax[k / N] = fmax(colmax[k / N], fabs(X[k]));
        }
        err = fmax(err, e / big);
        split = fmax(split, sp / big);
    }
    printf("rc %d\nerr %.3e\nsplit %.3e\n", rc, err, split);
    const mb_pattern *P = MODEL_model.forward_dynamics_dy_pattern;
    for (int c = 0; c < 2 * N; ++c) printf("col%d %d %.17g\n", c, P->colptr[c + 1] - P->colptr[c], colmax[c]);
    return 0;
}
]]

-- cases: model, overrides, the columns that must be zero (0-based), and a label.
local cases = {
  { path = "tests/bench/models/legged.lua", label = "legged 4x3 on a free joint", zero = { 0, 1, 2, 18, 19, 20 } },
  { path = "models/chain.lua", overrides = { N = 24 }, label = "chain N = 24", zero = {} },
  -- The turntable about the vertical through the root (gravity does not see it turn), the lift along it, and the
  -- lift's velocity; the turntable's velocity is in the Coriolis forces.
  { path = "models/tree.lua", label = "the tree", zero = { 0, 1, 8 } },
}

for _, c in ipairs(cases) do
  local tree = H.tree(H.root .. c.path, c.overrides)
  local dir = TMP .. "/" .. tree.name
  H.generate(tree, dir, { functions = { "mass", "inverse_dynamics_dy", "forward_dynamics", "forward_dynamics_dy",
    "forward_dynamics_dz", "forward_dynamics_dzd" } })
  H.write(dir .. "/main.c", (DRIVER:gsub("MODEL", tree.name)))
  local ok, out = H.sh(string.format("gcc %s -I'%sruntime' -I'%s' '%s/main.c' '%s/%s.c' -lm -o '%s/main' && '%s/main'",
    H.CFLAGS, H.root, dir, dir, dir, tree.name, dir, dir))
  if not tap.ok(ok, c.label .. ": the driver builds and runs") then tap.diag(out) end
  local kv = H.keyvals(out)
  tap.ok(kv.rc == 0, c.label .. ": every call returns MB_FN_OK")
  -- 1e-10: M of the 24-body chain is conditioned so that the two solves differ by some 1e-12.
  tap.ok(kv.err and kv.err < 1e-10, string.format("%s: forward_dynamics_dy equals -M⁻¹ ∂r/∂y by dense elimination to " ..
    "%s (at most 1e-10)", c.label, tostring(kv.err)))
  tap.ok(kv.split and kv.split < 1e-12, string.format("%s: forward_dynamics_dz and _dzd equal its halves to %s",
    c.label, tostring(kv.split)))
  local n, want, empty, wrong = tree.nz, {}, {}, {}
  for _, k in ipairs(c.zero) do want[k] = true end
  for k = 0, 2 * n - 1 do
    local count, big = out:match("\ncol" .. k .. " (%d+) (%S+)")
    count, big = tonumber(count), tonumber(big)
    if count == 0 then empty[#empty + 1] = k end
    if not count or (count == 0) ~= (want[k] == true) or (count == 0 and big ~= 0) or (count > 0 and big == 0) then
      wrong[#wrong + 1] = string.format("column %d: %s in the pattern, largest %s", k, tostring(count), tostring(big))
    end
  end
  tap.is(table.concat(empty, " "), table.concat(c.zero, " "), c.label .. ": the pattern leaves out exactly the " ..
    "columns that must be zero")
  if not tap.ok(#wrong == 0, c.label .. ": the columns left out are exact zeros and every column kept is non-zero") then
    tap.diag(table.concat(wrong, "\n"))
  end
end

tap.done_testing()
