#!/usr/bin/env lua5.4
-- veh_tyre_contact.t: the tyre element on a rigid four-tyre cart (tests/fixtures/tyre_cart.lua) through
-- `mbgen run --static`: static loads against the weight and the lever rule, free rolling, braking and
-- side slip against the momentum balance, the step-down road, and every derivative by `mbgen check`.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local tmp = H.root .. "build/tmp/veh_tyre_contact"
H.sh("rm -rf '" .. tmp .. "' && mkdir -p '" .. tmp .. "'")
local MODEL = "tests/fixtures/tyre_cart.lua"
local function run(args) return H.sh("cd " .. H.root .. " && lua5.4 generator/mbgen run -q " .. MODEL .. " " .. args) end

-- The CSV as columns by name.
local function read_csv(path)
  local text = H.read(path) or ""
  local names, cols = {}, {}
  for line in text:gmatch("[^\n]+") do
    if #names == 0 then
      for n in line:gmatch("[^,]+") do names[#names + 1] = n; cols[n] = {} end
    else
      local i = 0
      for v in line:gmatch("[^,]+") do i = i + 1; table.insert(cols[names[i]], tonumber(v)) end
    end
  end
  return cols
end

local g, m_cart, m_wheel, k, R = 9.81, 200, 10, 2e5, 0.3
local m_total = m_cart + 4 * m_wheel

-- Static equilibrium and a second of free rolling at 10 m/s.
local csv = tmp .. "/roll.csv"
local ok, out = run("--static --t-end 1 --out '" .. csv .. "'")
tap.ok(ok, "mbgen run --static runs the cart" .. (ok and "" or (": " .. out)))
local sum, weight, rel = out:match("tyre loads (%S+) N, weight (%S+) N %(total mass %S+ kg%), relative difference (%S+)")
tap.is_double(tonumber(weight), m_total * g, 1e-12, 0, "the reported weight is the total mass (bodies) times g")
tap.ok(tonumber(rel) and tonumber(rel) < 1e-9, "static tyre loads sum to the weight (relative " .. tostring(rel) .. ")")
local fz, defl = {}, {}
for name, f, d in out:gmatch("tyre (%a+)%s+Fz = (%S+) N, deflection (%S+) m") do fz[name], defl[name] = tonumber(f), tonumber(d) end
-- Lever rule: the cart's centre of mass is 0.1 m ahead of mid-wheelbase (axles at +-1 m); each wheel carries itself.
local front = m_wheel * g + m_cart * g * 1.1 / 2 / 2
local rear = m_wheel * g + m_cart * g * 0.9 / 2 / 2
tap.is_double(fz.fl, front, 1e-3, 0, "front tyre load by the lever rule")
tap.is_double(fz.rr, rear, 1e-3, 0, "rear tyre load by the lever rule")
tap.is_double(fz.fl, fz.fr, 1e-12, 0, "left and right loads are equal")
tap.is_double(defl.fl, fz.fl / k, 1e-5, 0, "static deflection is load / radial stiffness")
tap.like(out, "static equilibrium: %d Newton iterations", "the static report names the Newton iterations")

local c = read_csv(csv)
tap.ok(c["tyre.fl.Fz"] ~= nil and c["tyre.rr.kappa"] ~= nil and c["tyre.fr.z"] ~= nil, "the CSV has the tyre columns")
local n = #c.t
local drift, asym = 0, 0
for i = 1, n do
  drift = math.max(drift, math.abs(c["z.cart_float.y"][i]), math.abs(c["z.cart_float.rz"][i]))
  asym = math.max(asym, math.abs(c["tyre.fl.Fz"][i] - c["tyre.fr.Fz"][i]) / c["tyre.fl.Fz"][i])
end
tap.ok(drift < 1e-9, string.format("straight rolling: no lateral drift or yaw (max %.2g)", drift))
tap.ok(asym < 1e-9, string.format("straight rolling: left and right loads stay equal (max relative %.2g)", asym))
tap.ok(math.abs(c["zd.cart_float.x"][n] - 10) < 0.05, "free rolling keeps the speed (no rolling resistance): " .. c["zd.cart_float.x"][n])
local bal = out:match("balance %S+ %(relative (%S+)%)")
tap.ok(tonumber(bal) and tonumber(bal) < 1e-5, "energy balance with the tyres' work (relative " .. tostring(bal) .. ")")

-- Momentum balance: m_total a_com = sum of the tyre forces (level road: Fx, Fy horizontal, gravity and Fz
-- vertical), a_com by second differences of the point "com" (the fixture's centre of mass), after the first
-- 20 ms in which the slips build up faster than the output spacing resolves.
local function momentum(cols, x, f)
  local worst, scale = 0, 0
  for i = 2, #cols.t - 1 do
    local dt = cols.t[i + 1] - cols.t[i]
    local a = (cols[x][i + 1] - 2 * cols[x][i] + cols[x][i - 1]) / (dt * dt)
    if cols.t[i] < 0.02 then a = nil end
    local F = 0
    for _, w in ipairs { "fl", "fr", "rl", "rr" } do F = F + cols["tyre." .. w .. "." .. f][i] end
    if a then worst = math.max(worst, math.abs(m_total * a - F)) end
    scale = math.max(scale, math.abs(F))
  end
  return worst, scale
end

-- Braking with 100 N m on each wheel.
csv = tmp .. "/brake.csv"
ok, out = run("--static --set brake=100 --t-end 1 --output-step 1e-3 --out '" .. csv .. "'")
tap.ok(ok, "braking run")
c = read_csv(csv)
local worst, scale = momentum(c, "com.x", "Fx")
tap.ok(scale > 1000 and worst < 2e-3 * scale, string.format("braking: m dv/dt = sum Fx (worst %.3g N of %.4g N)", worst, scale))
local kap = c["tyre.fl.kappa"][#c.t]
tap.ok(kap < 0 and kap > -0.05, "braking: negative slip below the friction peak (kappa " .. kap .. ")")
-- Steady braking: 4 T / R_loaded = m_total a + the wheels' spin-down inertia, a ~ 4 T / (R (m + 4 I / R^2)).
local a_end = (c["zd.cart_float.x"][1] - c["zd.cart_float.x"][#c.t]) / c.t[#c.t]
tap.is_double(a_end, 4 * 100 / (R * (m_total + 4 * 0.7 / R ^ 2)), 0.03, 0, "braking deceleration by the wheel and cart balance")

-- Side slip: 1 m/s of lateral velocity dies out under the tyres' lateral forces.
csv = tmp .. "/slip.csv"
ok, out = run("--static --set lateral=1 --t-end 0.5 --output-step 1e-3 --out '" .. csv .. "'")
tap.ok(ok, "side-slip run")
c = read_csv(csv)
worst, scale = momentum(c, "com.y", "Fy")
tap.ok(scale > 100 and worst < 5e-3 * scale, string.format("side slip: m dv_y/dt = sum Fy (worst %.3g N of %.4g N)", worst, scale))
tap.ok(math.abs(c["zd.cart_float.y"][#c.t]) < 0.01, "side slip decays (v_y = " .. c["zd.cart_float.y"][#c.t] .. " m/s at 0.5 s)")

-- A 1 cm step down at x = 5.5 m (roads.step): the cart ends 1 cm lower.
csv = tmp .. "/step.csv"
ok, out = run("--static --set road_kind=1 --t-end 1.5 --out '" .. csv .. "'")
tap.ok(ok, "step-down run")
c = read_csv(csv)
local z0, zend = c["z.cart_float.z"][1], c["z.cart_float.z"][#c.t]
tap.is_double(zend - z0, -0.01, 0, 3e-4, "after the step the cart is 1 cm lower")
tap.is_double(c["tyre.rl.z"][#c.t], -0.01, 0, 1e-6, "the rear contact point is on the lower road")

-- The plot of a vehicle: trajectory, lateral acceleration, wheel loads, slip angles, energy.
local svg = tmp .. "/slip.svg"
ok, out = run("--static --set lateral=1 --t-end 0.5 --plot '" .. svg .. "' --quiet")
local text = H.read(svg) or ""
local titles = {}
for title in text:gmatch('font%-weight="bold">([^<]*)<') do titles[#titles + 1] = title end
tap.is(table.concat(titles, " | "), "Trajectory of cart: y [m] | Lateral acceleration [m/s^2] | Tyre normal loads [N] | Slip angles [deg] | Energy [J]",
  "--plot of a model with tyres: the vehicle panels")
local nlines = select(2, text:gsub("<polyline", ""))
tap.is(nlines, 1 + 1 + 4 + 4 + 3, "one line per series (trajectory, a_y, 4 loads, 4 slips, 3 energies)")

-- Every derivative, near the static pose (tyres on the road) and everywhere (tyres in and out of contact).
ok, out = H.sh("cd " .. H.root .. " && lua5.4 generator/mbgen check -q " .. MODEL .. " --spread 0.002")
tap.ok(ok and out:find("checked at 5 random states: ok"), "mbgen check near the pose" .. (ok and "" or (": " .. out)))
ok, out = H.sh("cd " .. H.root .. " && lua5.4 generator/mbgen check -q " .. MODEL)
tap.ok(ok and out:find("checked at 5 random states: ok"), "mbgen check at random states" .. (ok and "" or (": " .. out)))

tap.done_testing()
