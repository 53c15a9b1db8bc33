#!/usr/bin/env lua5.4
-- sens_closed.t: `mbgen sens` on closed loops (Matrix R DDM): fivebar's three objectives and fourbar_spatial
-- against central differences of whole simulations, rk4 against dopri5.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local function sens(args)
  local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen sens %s", H.root, args))
  local kv, names = {}, {}
  for k, v in out:gmatch("([%w_%.]+) ([^\n]+)") do
    kv[k] = tonumber(v) or v
    local n = k:match("^grad%.(.+)$")
    if n then names[#names + 1] = n end
  end
  return ok, out, kv, names
end

-- Relative to the largest gradient component, as in sens_tree.t.
local function worst(a, b, pa, pb, names)
  local w, at, scale = 0, nil, 0
  for _, n in ipairs(names) do scale = math.max(scale, math.abs(b[pb .. n])) end
  for _, n in ipairs(names) do
    local e = math.abs(a[pa .. n] - b[pb .. n]) / scale
    if not (e <= w) then w, at = e, n end
  end
  return w, at
end

-- fivebar: 0.1 s, before the first change of independent coordinates (the run re-selects them later,
-- which makes the discrete trajectory non-smooth in p, and finite differences meaningless).
for _, obj in ipairs { "psi1", "psi2", "psi3" } do
  local ok, out, kv, names = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --fd 1e-6 --objective " .. obj)
  if not tap.ok(ok and kv.psi and #names == 5, "fivebar " .. obj .. ": DDM rk4 runs, five gradients") then tap.diag(out) end
  if ok then
    local w, at = worst(kv, kv, "grad.", "fd.", names)
    tap.ok(w < 1e-6, string.format("fivebar %s: DDM = central differences of whole runs (worst %.2g at %s)", obj, w, tostring(at)))
  end
end
local ok, out, rk, names = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --objective psi3")
local ok2, out2, dp = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --objective psi3 --integrator dopri5 --tolerance 1e-10")
if not tap.ok(ok and ok2, "fivebar psi3: rk4 and dopri5 run") then tap.diag(out .. out2) end
if ok and ok2 then
  local w, at = worst(dp, rk, "grad.", "grad.", names)
  tap.ok(w < 1e-5, string.format("fivebar psi3: dopri5 = rk4 to the rk4 error (worst %.2g at %s)", w, tostring(at)))
end

-- fourbar_spatial: a universal joint and a spherical loop, three mass parameters, 2 s.
local ok3, out3, fb, fnames = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 2 --fd 1e-6")
if not tap.ok(ok3 and #fnames == 3 and fb.integrator == "rk4", "fourbar_spatial: DDM on rk4 (the model's trapezoidal is replaced)") then tap.diag(out3) end
if ok3 then
  local w, at = worst(fb, fb, "grad.", "fd.", fnames)
  tap.ok(w < 1e-6, string.format("fourbar_spatial: DDM = central differences of whole runs (worst %.2g at %s)", w, tostring(at)))
end
tap.done_testing()
