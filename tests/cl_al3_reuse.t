#!/usr/bin/env lua5.4
-- cl_al3_reuse.t: the Jacobian reuse policy of seeds/003.md §1.10 for al3 and penalty (--jacobian-reuse K: the
-- residual's derivatives every K Newton iterations, M and the factorization at every one, the last factorization
-- for the projections) and the tangent's provider (--jacobian analytic|fd): the same accuracy against a reference
-- (the projections' weight holds the reused derivatives, so the states differ well below the step's error), the
-- counters in the summary.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/cl_al3_reuse"
H.mkdir(TMP)
local function run(model, args)
  local ok, out, _, _, z = H.run_z(string.format("-q models/%s.lua --t-end 1 %s", model, args), TMP)
  local it, jac, der = out:match("Newton iterations (%d+), Jacobian evaluations (%d+) %(their derivatives evaluated (%d+) times")
  return ok, out, z, tonumber(it), tonumber(jac), tonumber(der)
end
local diff = H.max_diff

local refs = {}
for _, c in ipairs { { "fourbar_spatial", "al3" }, { "quick_return", "al3" }, { "quick_return", "penalty" } } do
  local m, f = c[1], c[2]
  if not refs[m] then _, _, refs[m] = run(m, "--formulation matrix_r --integrator dopri5 --tolerance 1e-12") end
  local ok1, _, z1, it1, jac1, der1 = run(m, "--formulation " .. f)
  local ok3, out3, z3, it3, jac3, der3 = run(m, "--formulation " .. f .. " --jacobian-reuse 3")
  tap.ok(ok1 and ok3 and it1 and der1 == it1 and jac1 == it1, string.format("%s %s: by default the derivatives and " ..
    "the factorization at every Newton iteration (%s, %s, %s)", m, f, tostring(it1), tostring(jac1), tostring(der1)))
  tap.ok(it3 and der3 < it3 and jac3 == it3 and der3 <= math.ceil(it3 / 2),
    string.format("%s %s: --jacobian-reuse 3: %s derivative evaluations for %s factorizations (%s iterations; %s " ..
      "with fresh derivatives)", m, f, tostring(der3), tostring(jac3), tostring(it3), tostring(it1)))
  local e1, e3 = diff(z1, refs[m]), diff(z3, refs[m])
  tap.ok(math.abs(e3 - e1) < 0.1 * e1, string.format("%s %s: the same accuracy against Matrix R at 1e-12: %.3e with fresh " ..
    "derivatives, %.3e reusing them (states %.1e apart)", m, f, e1, e3, diff(z1, z3)))
  tap.like(out3, "every 3 iterations, analytic", m .. " " .. f .. ": the summary says the policy")
end
local ok1, _, za, ita = run("quick_return", "--formulation al3")
local ok2, out2, zf, itf = run("quick_return", "--formulation al3 --jacobian fd")
tap.ok(ok1 and ok2 and itf == ita and diff(zf, za) < 1e-8, string.format("--jacobian fd: the same %s iterations and state " ..
  "(%.1e) as the analytic tangent", tostring(ita), diff(zf, za)))
tap.like(out2, "central differences", "and the summary says so")
local ok, out = H.sh("cd '" .. H.root .. "' && lua5.4 generator/mbgen run -q models/quick_return.lua --t-end 0.1 " ..
  "--formulation al3 --jacobian-reuse 0")
tap.ok(not ok and out:match("%-%-jacobian%-reuse must be a whole number"), "--jacobian-reuse 0 is a command-line error")
tap.done_testing()
