#!/usr/bin/env lua5.4
-- cl_baumgarte_run.t: `mbgen run --formulation baumgarte` (multipliers with Baumgarte's stabilisation) follows Matrix R
-- on closed loops (one with redundant equations), says its largest drift, and is refused where it does not apply.
-- Its numbers against seeds/001.md §11.3 are tests/c/cl_baumgarte.c.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/cl_baumgarte_run"
H.mkdir(TMP)
local function run(args)
  return H.sh(string.format("cd '%s' && lua5.4 generator/mbgen run -q %s", H.root, args))
end

-- fourbar_planar with its pin cut as a spatial revolute joint: 5 equations of which 3 are redundant (the loop is
-- planar), so the multipliers are the least-norm ones.
local redundant = TMP .. "/fourbar_redundant.lua"
H.write(redundant, (H.read(H.root .. "models/fourbar_planar.lua"):gsub('type = "point2d"', 'type = "revolute", axis = { 0, 0, 1 }')))
for _, m in ipairs { "models/slider_crank.lua", "models/fivebar.lua", redundant } do
  local name = m:match("([%w_]+)%.lua$")
  local a, b = TMP .. "/" .. name .. "_bg.csv", TMP .. "/" .. name .. "_mr.csv"
  local ok1, out = run(string.format("'%s' --t-end 0.5 --formulation baumgarte --integrator dopri5 " ..
    "--tolerance 1e-10 --out '%s'", m, a))
  local ok2 = run(string.format("'%s' --t-end 0.5 --formulation matrix_r --integrator dopri5 --tolerance 1e-10 " ..
    "--out '%s'", m, b))
  local e = H.max_diff(H.csv_z(b), H.csv_z(a))
  tap.ok(ok1 and ok2 and e < 1e-8, string.format("%s: baumgarte follows matrix_r to %.1e over 0.5 s (dopri5 at 1e-10)", name, e))
  local p, v = out:match("largest constraint violation over the run %(%d+ accepted states%): position (%S+), velocity (%S+)")
  tap.ok(tonumber(p) and tonumber(p) < 1e-9 and tonumber(v) < 1e-7,
    string.format("%s: the summary gives the largest drift over the run (%s, %s)", name, tostring(p), tostring(v)))
end
local _, out = run("models/quick_return.lua --t-end 2 --step 1e-3 --formulation baumgarte --baumgarte-a 0 --baumgarte-b 0")
tap.like(out, "baumgarte %(a = 0, b = 0%)[^\n]*position 1%.01e%-07", "--baumgarte-a/-b 0: the drift without stabilisation " ..
  "(the digest's 1.010e-7)")
local ok, o2 = run("models/quick_return.lua --t-end 0.1 --formulation baumgarte --integrator trapezoidal")
tap.ok(not ok and o2:match("baumgarte is an ODE for rk4 or dopri5"), "with the trapezoidal rule it is refused")
ok, o2 = run("models/tree.lua --t-end 0.1 --formulation baumgarte")
tap.ok(not ok and o2:match("no constraints"), "on an open tree it is refused")
ok, o2 = run("models/quick_return.lua --t-end 0.1 --formulation baumgarte --baumgarte-a -1")
tap.ok(not ok and o2:match("%-%-baumgarte%-a must be >= 0"), "a negative coefficient is a command-line error")
tap.done_testing()
