#!/usr/bin/env lua5.4
-- cl_penalty.t: `--formulation penalty` (seeds/003.md eq. 14: al3 without its multipliers) follows al3 on the same
-- trapezoidal steps to the accuracy the penalty allows, leaves the constraints violated by about |lambda| / alpha,
-- and converges to al3 as alpha grows.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/cl_penalty"
H.mkdir(TMP)
local function run(model, args)
  local ok, out, _, _, z = H.run_z(string.format("-q models/%s.lua --t-end 1 --step 1e-3 %s", model, args), TMP)
  return ok, out, z
end
local diff = H.max_diff
local function violation(out) return tonumber(out:match("constraint violation at t = %S+: position (%S+),")) end

for _, m in ipairs { "quick_return", "slider_crank", "fourbar_spatial" } do
  local ok1, out1, zal = run(m, "--formulation al3")
  local ok2, out2, zp = run(m, "--formulation penalty")
  local e, pv, av = diff(zp, zal), violation(out2), violation(out1)
  tap.ok(ok1 and ok2 and e < 1e-6, string.format("%s: penalty follows al3 to %.1e over 1 s at h = 1 ms", m, e))
  tap.ok(pv and av and pv < 1e-9 and pv > av, string.format("%s: the penalty leaves |Phi| = %s (al3: %s): the constraint " ..
    "forces without multipliers", m, tostring(pv), tostring(av)))
  tap.like(out2, "formulation penalty", m .. ": the summary names the formulation")
end
-- |Phi| about |lambda| / alpha: ten times the penalty, a tenth of the violation; the motion converges to al3's.
local _, o7, z7 = run("quick_return", "--formulation penalty --alpha 1e7")
local _, o8, z8 = run("quick_return", "--formulation penalty --alpha 1e8")
local _, _, zal = run("quick_return", "--formulation al3")
local v7, v8 = violation(o7), violation(o8)
tap.ok(v7 and v8 and v7 / v8 > 8 and v7 / v8 < 12, string.format("quick_return: |Phi| %s at alpha 1e7, %s at 1e8: about 1/alpha",
  tostring(v7), tostring(v8)))
local e7, e8 = diff(z7, zal), diff(z8, zal)
tap.ok(e8 < e7 / 5, string.format("quick_return: the motion approaches al3's as alpha grows (%.1e -> %.1e)", e7, e8))
tap.done_testing()
