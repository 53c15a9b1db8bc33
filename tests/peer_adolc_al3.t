#!/usr/bin/env lua5.4
-- peer_adolc_al3.t: the providers of the al3 tangent's [dr/dz, dr/dzd] of the whole-run benchmark
-- (tests/peers/adolc_al3.c: analytic dense and sparse, central differences, ADOL-C forward, reverse and sparse, the
-- last also on the dense LU)
-- give the analytic Jacobian at one state and the same short runs: the same Newton iterations, and final states
-- equal to the Newton tolerance. So tests/bench/al3_providers.sh times the same runs, whichever provider.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
package.path = H.root .. "tests/bench/?.lua;" .. package.path
local P = require "parallel"
local B = require "al3_providers_build"

if not H.read("/usr/include/adolc/adolc.h") then
  print("1..0 # SKIP libadolc-dev is not installed (make peer-deps installs it as root)")
  os.exit(0)
end
local PROVIDERS = { "analytic_dense", "analytic_sparse", "central", "adolc_forward", "adolc_reverse", "adolc_sparse",
  "adolc_sparse_dense_lu" }
local T_END, H_MS = 0.2, 10
-- Final states: z to 1e-8 (the Newton tolerance 1e-10 relative to the coordinates, over 20 steps), zd to 1e-6
-- (zd = 2/h z + const amplifies z's differences by 2/h = 200).
local TOL_Z, TOL_ZD = 1e-8, 1e-6
local cases = { { model = "fourbar_spatial", name = "fourbar" }, { model = "fourbar_grid", set = { NY = 1 }, name = "grid1" } }
-- -O0: the values are checked, not timed.
B.build(H, P, cases, H.root .. "build/tmp/peer_adolc_al3", "-O0")
local hk = B.hkey(H_MS)
for _, c in ipairs(cases) do
  if not tap.ok(not c.failed, c.name .. ": builds") then tap.diag(c.failed) end
  local ok, out, r = false, "", {}
  if not c.failed then ok, out, r = B.run(H, c, T_END, { H_MS }) end
  if not tap.ok(ok, c.name .. ": runs every provider") then tap.diag(out) end
  local steps = r["analytic_dense_" .. hk .. "_steps"]
  local newton = r["analytic_dense_" .. hk .. "_newton"]
  tap.ok(steps == math.floor(T_END / (H_MS * 1e-3) + 0.5), string.format("%s: analytic dense ran %s steps", c.name, tostring(steps)))
  for _, p in ipairs(PROVIDERS) do
    local e, tol = r["check_" .. p .. "_rel"], p == "central" and 1e-6 or 1e-10
    tap.ok(type(e) == "number" and e <= tol, string.format("%s: %s Jacobian equals the analytic one at the check state (%s <= %g)",
      c.name, p, tostring(e), tol))
    local k = p .. "_" .. hk .. "_"
    if r[k .. "failed"] then tap.diag(p .. ": " .. r[k .. "failed"]) end
    -- Which derivatives each run called: the hook's (ADOL-C), the compressed ones (analytic sparse), the dense ones.
    local hook, dense, csc, derivs = r[k .. "hook_calls"], r[k .. "dense_calls"], r[k .. "csc_calls"], r[k .. "deriv_evals"]
    local used = p:match("^adolc") and hook == derivs and dense == 0 and csc == 0
      or p == "analytic_sparse" and hook == 0 and dense == 0 and (csc or 0) > 0
      or p == "analytic_dense" and hook == 0 and csc == 0 and (dense or 0) > 0
      or p == "central" and hook == 0 and dense == 0 and csc == 0 and r[k .. "fd_calls"] == 4 * r.n * (derivs or -1)
    tap.ok(used, string.format("%s: %s's run took its derivatives from it (hook %s, dense %s, compressed %s calls, %s evaluations)",
      c.name, p, tostring(hook), tostring(dense), tostring(csc), tostring(derivs)))
    if p ~= "analytic_dense" then
      -- Central differences may take another iteration on a rare step (seeds/003.md §6.3): at most 1 in 10 steps.
      local it, bound = r[k .. "newton"], p == "central" and math.floor((steps or 0) / 10) or 0
      tap.ok(type(it) == "number" and newton and math.abs(it - newton) <= bound,
        string.format("%s: %s takes %s Newton iterations, analytic dense %s (bound %d)", c.name, p, tostring(it), tostring(newton), bound))
      local dz, dzd = r[k .. "zdiff"], r[k .. "zddiff"]
      tap.ok(type(dz) == "number" and dz <= TOL_Z and dzd <= TOL_ZD,
        string.format("%s: %s ends where analytic dense does (z %s, zd %s)", c.name, p, tostring(dz), tostring(dzd)))
    end
  end
end
tap.done_testing()
