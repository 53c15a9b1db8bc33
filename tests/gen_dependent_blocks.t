#!/usr/bin/env lua5.4
-- gen_dependent_blocks.t: the vehicles' unrolled inversions of Phi_z's dependent blocks (emit/dependent_blocks.lua)
-- against their definitions at perturbed poses: X A = A X = I, b = -(v + Phi_z[:, ind] y), A x = b, Phi_z[:, dep] R_dep = -Phi_z[:, ind], the
-- figures recomputed from A and X; a zero static pivot refused; the C built as double, float and complex.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local E = require "sym.expr"
local EV = require "sym.eval"
local DEP = require "emit.dependent_blocks"

local dir = H.root .. "build/tmp/gen_dependent_blocks"
H.mkdir(dir)

-- The test's main: J0 (Phi_z at the initial pose) perturbed entry by entry by up to 15 % at 200 draws; per draw
-- the generated factor, solve and R against the blocks' definitions. Prints "key value" lines.
local MAIN = [==[
#include <math.h>
#include <stdio.h>
static unsigned long long seed = 11;
static double rnd(void) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}
int main(void) {
    static double J[NC * NZ], X[NX], fig[3 * NB], x[RANK], b[NC], v[NC], y[NZ], R[NZ * DOF];
    double eX = 0, eF = 0, eB = 0, eS = 0, eR = 0;
    int taken = 0;
    for (int draw = 0; draw < 200; ++draw) {
        for (int q = 0; q < NC * NZ; ++q) J[q] = J0[q] * (1 + 0.3 * rnd());
        if (NAME_factor(J, X, fig) != MB_FN_OK) continue;
        ++taken;
        for (int blk = 0, off = 0; blk < NB; off += (ptr[blk + 1] - ptr[blk]) * (ptr[blk + 1] - ptr[blk]), ++blk) {
            int n = ptr[blk + 1] - ptr[blk];
            const int *r = rows + ptr[blk], *c = coords + ptr[blk];
            const double *Xb = X + off;
            double colmax = 0, n1 = 0, ninf = 0, scale = 0;
            for (int k = 0; k < n; ++k) {
                double s = 0, s1 = 0, si = 0;
                for (int l = 0; l < n; ++l) {
                    s += J[r[l] + NC * c[k]] * J[r[l] + NC * c[k]];
                    s1 += fabs(Xb[l + n * k]);
                    si += fabs(Xb[k + n * l]);
                }
                colmax = fmax(colmax, sqrt(s)), n1 = fmax(n1, s1), ninf = fmax(ninf, si);
            }
            scale = colmax * n1;
            eF = fmax(eF, fabs(fig[3 * blk] - colmax) / colmax);
            eF = fmax(eF, fmax(fabs(fig[3 * blk + 1] - n1) / n1, fabs(fig[3 * blk + 2] - ninf) / ninf));
            for (int i = 0; i < n; ++i)   /* (X A)[i, j] and (A X)[i, j] */
                for (int j = 0; j < n; ++j) {
                    double xa = 0, ax = 0;
                    for (int k = 0; k < n; ++k) {
                        xa += Xb[i + n * k] * J[r[k] + NC * c[j]];
                        ax += J[r[i] + NC * c[k]] * Xb[k + n * j];
                    }
                    eX = fmax(eX, fmax(fabs(xa - (i == j)), fabs(ax - (i == j))) / scale);
                }
        }
        for (int i = 0; i < NC; ++i) v[i] = rnd();
        for (int q = 0; q < NZ; ++q) y[q] = rnd();
        NAME_rhs(J, v, y, b);
        for (int q = 0; q < ptr[NB]; ++q) {   /* b = -(v + Phi_z[:, ind] y) on the blocks' equations */
            int i = rows[q];
            double s = v[i], m = fabs(v[i]);
            for (int e = 0; e < DOF; ++e) s += J[i + NC * ind[e]] * y[ind[e]], m = fmax(m, fabs(J[i + NC * ind[e]] * y[ind[e]]));
            eB = fmax(eB, fabs(b[i] + s) / m);
        }
        NAME_solve(X, b, x);
        for (int i = 0; i < NC; ++i) {   /* every equation of a block: its row of Phi_z[:, dep] x = b */
            double s = 0, m = fabs(b[i]);
            int in = 0;
            for (int q = 0; q < RANK; ++q) s += J[i + NC * dep[q]] * x[q], m = fmax(m, fabs(J[i + NC * dep[q]] * x[q]));
            for (int q = 0; q < ptr[NB]; ++q) in = in || rows[q] == i;
            if (in) eS = fmax(eS, fabs(s - b[i]) / m);
        }
        for (int q = 0; q < NZ * DOF; ++q) R[q] = 0;
        NAME_R(X, J, R);
        for (int cc = 0; cc < DOF; ++cc)   /* Phi_z[:, dep] R[dep, c] + Phi_z[:, ind[c]] = 0 on the blocks' rows */
            for (int q = 0; q < ptr[NB]; ++q) {
                int i = rows[q];
                double s = J[i + NC * ind[cc]], m = fabs(s);
                for (int e = 0; e < RANK; ++e) {
                    double t = J[i + NC * dep[e]] * R[dep[e] + NZ * cc];
                    s += t, m = fmax(m, fabs(t));
                }
                if (m > 0) eR = fmax(eR, fabs(s) / m);
            }
    }
    printf("taken %d\nerr_inverse %.3g\nerr_figures %.3g\nerr_rhs %.3g\nerr_solve %.3g\nerr_R %.3g\n", taken, eX, eF, eB,
           eS, eR);
    /* The first pivot of each block set to zero: refused. */
    int refused = 0;
    for (int blk = 0; blk < NB; ++blk) {
        for (int q = 0; q < NC * NZ; ++q) J[q] = J0[q];
        J[first_pivot[blk]] = 0;
        refused += NAME_factor(J, X, fig) == MB_FN_SINGULAR;
    }
    for (int q = 0; q < NC * NZ; ++q) J[q] = J0[q];
    printf("refused %d\ninitial %d\n", refused, NAME_factor(J, X, fig) == MB_FN_OK);
    return 0;
}
]==]

local function ints(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = tostring(v) end
  return "{ " .. table.concat(out, ", ") .. " }"
end

for _, m in ipairs { "sedan", "buggy", "coach" } do
  local tree = H.tree(H.root .. "models/" .. m .. ".lua")
  local spec = require("dynamics.functions").build(tree, { functions = { "mass", "constraints_dz" }, lenient = true })
  local plan, phiz = spec.reduction, spec.byname.constraints_dz
  if not tap.ok(plan and plan.dependent, m .. ": its declared independent coordinates give square dependent blocks "
      .. "with a pivot order") then goto next end
  do
    local nc, nz = phiz.rows, phiz.cols
    local env = { t = 0, z = {}, zd = {}, p = {}, u = {} }
    for k = 1, nz do env.z[k], env.zd[k] = tree.initial[k] or 0, 0 end
    for _, prm in ipairs(tree.parameters or {}) do if prm.kind == "design" then env.p[prm.index + 1] = prm.value end end
    local J0 = EV.eval(phiz.exprs, env)
    for q = 1, #J0 do if E.is_zero(phiz.exprs[q]) then J0[q] = 0 end end
    local ptr, rows, coords, first, nx = { 0 }, {}, {}, {}, 0
    for _, blk in ipairs(plan.dependent.blocks) do
      for q = 1, blk.n do rows[#rows + 1], coords[#coords + 1] = blk.rows[q] - 1, blk.coords[q] - 1 end
      ptr[#ptr + 1] = #rows
      local st = blk.steps[1]
      first[#first + 1] = (blk.coords[st.c] - 1) * nc + blk.rows[st.r] - 1
      nx = nx + blk.n * blk.n
    end
    local dep, ind = {}, {}
    for i, j in ipairs(plan.dep) do dep[i] = j - 1 end
    for i, k in ipairs(plan.ind) do ind[i] = k - 1 end
    local j0 = {}
    for q, v in ipairs(J0) do j0[q] = string.format("%.17g", v) end
    local cnames = {}
    for i = 1, nc do cnames[i] = "eq" .. (i - 1) end
    local text = DEP.text(m, plan, cnames)
    local src = table.concat({ '#include "mb_model.h"', text,
      string.format("#define NC %d\n#define NZ %d\n#define RANK %d\n#define DOF %d\n#define NB %d\n#define NX %d",
        nc, nz, #dep, #ind, #plan.dependent.blocks, nx),
      "#define NAME_factor " .. m .. "_matrix_r_dependent_factor",
      "#define NAME_rhs " .. m .. "_matrix_r_dependent_rhs",
      "#define NAME_solve " .. m .. "_matrix_r_dependent_solve",
      "#define NAME_R " .. m .. "_matrix_r_dependent_R",
      "static const double J0[] = { " .. table.concat(j0, ", ") .. " };",
      "static const int ptr[] = " .. ints(ptr) .. ", rows[] = " .. ints(rows) .. ", coords[] = " .. ints(coords)
        .. ", dep[] = " .. ints(dep) .. ", ind[] = " .. ints(ind) .. ", first_pivot[] = " .. ints(first) .. ";",
      "static const mb_dependent_blocks *table MB_UNUSED = &" .. m .. "_matrix_r_blocks;",
      MAIN }, "\n")
    local c = dir .. "/" .. m .. ".c"
    H.write(c, src)
    local flags = "-std=c99 -O1 -Wall -Wextra -Werror -I'" .. H.root .. "runtime'"
    local okc, out = H.sh(string.format("gcc %s '%s' -o '%s/%s' -lm", flags, c, dir, m))
    tap.ok(okc, m .. ": the emitted inversions and the test compile with -Wall -Wextra -Werror" .. (okc and "" or ("\n" .. out)))
    local alone = dir .. "/" .. m .. "_alone.c"
    H.write(alone, '#include "mb_model.h"\n' .. text .. '\nconst mb_dependent_blocks *' .. m .. '_table = &' .. m
      .. "_matrix_r_blocks;\n")
    for _, variant in ipairs { "-DMB_REAL=float", "-DMB_COMPLEX" } do
      local okv, outv = H.sh(string.format("gcc %s %s -c '%s' -o '%s/%s.o'", flags, variant, alone, dir, m))
      tap.ok(okv, m .. ": and with " .. variant .. (okv and "" or ("\n" .. outv)))
    end
    local _, res = H.sh("'" .. dir .. "/" .. m .. "'")
    local v = H.keyvals(res)
    tap.ok(v.initial == 1, m .. ": the static pivots pass their test at the initial pose")
    tap.ok((v.taken or 0) >= 190, string.format("%s: and at %s of 200 poses with every entry perturbed by up to 15 %%",
      m, tostring(v.taken)))
    tap.ok((v.err_inverse or 1) < 1e-13, string.format("%s: X A = A X = I to %.3g (relative to |A| |X|)", m,
      v.err_inverse or -1))
    tap.ok((v.err_figures or 1) < 1e-13, string.format("%s: the figures (largest column norm, |X|_1, |X|_inf) to %.3g",
      m, v.err_figures or -1))
    tap.ok((v.err_rhs or 1) < 1e-14, string.format("%s: b = -(v + Phi_z[:, ind] y) to %.3g", m, v.err_rhs or -1))
    tap.ok((v.err_solve or 1) < 1e-12, string.format("%s: Phi_z[:, dep] x = b on the blocks' equations to %.3g", m,
      v.err_solve or -1))
    tap.ok((v.err_R or 1) < 1e-12, string.format("%s: Phi_z[:, dep] R_dep = -Phi_z[:, ind] to %.3g", m, v.err_R or -1))
    tap.ok(v.refused == #plan.dependent.blocks, string.format("%s: a zero first pivot refused in each of the %d "
      .. "blocks (%s)", m, #plan.dependent.blocks, tostring(v.refused)))
  end
  ::next::
end
-- The operations the roadmap lists for the factor (the plan's count) are those of the C in generated/ (H.c_operators;
-- a square root per block); and a model has the four functions exactly when it has a generated reduction.
for _, m in ipairs { "sedan", "buggy", "coach", "fivebar", "fivebar_point" } do
  local c = H.read(H.root .. "generated/" .. m .. ".c") or ""
  local md = H.read(H.root .. "generated/" .. m .. ".md") or ""
  local o = H.c_operators(c, "int " .. m .. "_matrix_r_dependent_factor") or {}
  local mul, add, div, sqrt = o.mul or -1, o.add or -1, o.div or -1, o.sqrt or -1
  local radd, rmul, rdiv, rcall = md:match("| " .. m .. "_matrix_r_dependent_factor | %d+ | %d+ | %d+ | (%d+) | (%d+) | (%d+) | (%d+) |")
  tap.ok(tonumber(radd) == add and tonumber(rmul) == mul and tonumber(rdiv) == div and tonumber(rcall) == sqrt,
    string.format("%s: the roadmap's %s additions, %s multiplications, %s divisions, %s square roots of the factor are "
      .. "the C's (%d, %d, %d, %d)", m, tostring(radd), tostring(rmul), tostring(rdiv), tostring(rcall), add, mul, div, sqrt))
  tap.ok(c:find("int " .. m .. "_matrix_r_dependent_factor(", 1, true) and c:find("void " .. m .. "_matrix_r_dependent_rhs(", 1, true)
    and c:find("void " .. m .. "_matrix_r_dependent_solve(", 1, true) and c:find("void " .. m .. "_matrix_r_dependent_R(", 1, true)
    and c:find("&" .. m .. "_matrix_r_blocks };", 1, true) and md:find("Phi_z's dependent part for them", 1, true),
    m .. ": the four functions, in the reduction's table, and the roadmap's line")
end
local chain = H.read(H.root .. "generated/fourbar_planar.c") or ""
tap.ok(#chain > 0 and not chain:find("matrix_r_dependent", 1, true),
  "fourbar_planar (no declared independent coordinates): no generated dependent blocks")
tap.done_testing()
