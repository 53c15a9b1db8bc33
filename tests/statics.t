#!/usr/bin/env lua5.4
-- statics.t: `mbgen run --static` (runtime/statics.c): equilibria of an open tree and a closed loop, the
-- neutral directions of a vehicle left where they were, and a model without equilibrium reported.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local tmp = H.root .. "build/tmp/statics"
H.sh("rm -rf '" .. tmp .. "' && mkdir -p '" .. tmp .. "'")
local function run(args) return H.sh("cd " .. H.root .. " && lua5.4 generator/mbgen run -q " .. args) end
local function first_row(path)
  local text = H.read(path) or ""
  local header, row = text:match("^([^\n]*)\n([^\n]*)")
  local names, vals, out = {}, {}, {}
  for n in (header or ""):gmatch("[^,]+") do names[#names + 1] = n end
  for v in (row or ""):gmatch("[^,]+") do vals[#vals + 1] = tonumber(v) end
  for i, n in ipairs(names) do out[n] = vals[i] end
  return out
end

-- The double pendulum from 30 degrees settles to hanging straight down (its only stable equilibrium).
local csv = tmp .. "/dp.csv"
local ok, out = run("models/double_pendulum.lua --static --t-end 0.1 --out '" .. csv .. "'")
tap.ok(ok, "double pendulum --static runs")
local r = first_row(csv)
tap.ok(math.abs(r["z.shoulder"]) < 1e-12 and math.abs(r["z.elbow"]) < 1e-12,
  string.format("static pose hangs straight down (%.3g, %.3g)", r["z.shoulder"], r["z.elbow"]))
local iters, res = out:match("static equilibrium: (%d+) Newton iterations, max|force residual| ([-+%d.e]+)")
tap.ok(tonumber(iters) and tonumber(iters) <= 10 and tonumber(res) < 1e-12, "converges in " .. tostring(iters) .. " iterations to " .. tostring(res))

-- A closed loop: the four-bar's equilibrium satisfies the constraints, and the run from it at rest stays there.
csv = tmp .. "/fb.csv"
ok, out = run("models/fourbar_planar.lua --static --t-end 0.5 --out '" .. csv .. "'")
tap.ok(ok, "fourbar_planar --static runs")
local phi = out:match("max|Phi| ([-+%d.e]+)")
tap.ok(tonumber(phi) and tonumber(phi) < 1e-12, "closed loop: the static pose satisfies Phi = 0 (" .. tostring(phi) .. ")")
res = out:match("max|force residual| ([-+%d.e]+)")
tap.ok(tonumber(res) and tonumber(res) < 1e-10, "closed loop: forces balance with the multipliers (" .. tostring(res) .. ")")

-- Matrix R with rk4 (the vehicles' run set) has no generated dr/dz or d(Phi_z' lambda)/dz: the tangent is taken by
-- central differences, and the equilibrium is the one the generated tangent finds (al3's run set has it).
tap.like(out, "tangent by central differences", "Matrix R's run set: the summary says the tangent is by central differences")
local csv_al3 = tmp .. "/fb_al3.csv"
local ok_al3, out_al3 = run("models/fourbar_planar.lua --static --formulation al3 --t-end 0 --out '" .. csv_al3 .. "'")
tap.like(ok_al3 and out_al3 or "", "tangent generated", "al3's run set: the generated tangent")
do
  local a, b, worst = first_row(csv), first_row(csv_al3), 0
  for k, v in pairs(a) do
    if k:match("^z%.") then worst = math.max(worst, math.abs(v - (b[k] or math.huge))) end
  end
  tap.ok(worst < 1e-10, string.format("both tangents find the same static pose (%.2g)", worst))
end

-- The cart on tyres: place, heading and wheel spin are neutral and keep their start values (0).
csv = tmp .. "/cart.csv"
-- At rest the slip law is a stiff damper (rate C_kappa R^2 / (I speed_eps), 1.8e4 1/s here): the implicit
-- trapezoidal rule, not RK4 at 1 ms (README, "Vehicles").
ok, out = run("tests/fixtures/tyre_cart.lua --static --set speed=0 --t-end 0.1 --integrator trapezoidal --out '" .. csv .. "'")
tap.ok(ok, "cart --static runs")
r = first_row(csv)
local neutral = 0
for _, n in ipairs { "z.cart_float.x", "z.cart_float.y", "z.cart_float.rz", "z.fl_spin", "z.rr_spin" } do
  neutral = math.max(neutral, math.abs(r[n]))
end
tap.ok(neutral < 1e-12, string.format("neutral directions keep their start values (max %.3g)", neutral))
r = first_row(csv)
local zs = r["z.cart_float.z"]
local text = H.read(csv)
local last = text:match("([^\n]+)\n?$")
local lastv = {}
for v in last:gmatch("[^,]+") do lastv[#lastv + 1] = tonumber(v) end
tap.is_double(lastv[4], zs, 0, 1e-12, "at rest from the static pose the cart does not move (z after 0.1 s)")

-- No equilibrium: the slider-crank's return spring and gravity leave a net force on the guide; reported by name.
ok, out = run("models/slider_crank.lua --static --t-end 0.1")
tap.ok(not ok, "a model without equilibrium exits non-zero")
tap.like(out, "static: no equilibrium found: the force on %S+ stays", "the message names the coordinate left unbalanced")

tap.done_testing()
