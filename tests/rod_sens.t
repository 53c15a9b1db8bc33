#!/usr/bin/env lua5.4
-- rod_sens.t: sensitivities of runs in the rod modes (seeds/002.md §2.3-2.6): the DDM carries the history of the first
-- stages' Sdd beside the motion's zdd and agrees with central differences of whole runs in the same mode; the AVM
-- carries the extrapolation's coupling backward and agrees with the DDM, across checkpoints; what is refused.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local FIX = "tests/fixtures/rods/parallelogram_sens.lua"
local NAMES = { "arm", "m_right", "mr" }
local RUN = FIX .. " --t-end 0.5 --step 0.01 "

local function worst(a, b, keys_a, keys_b)
  local e = 0
  for _, k in ipairs(NAMES) do
    local x, y = a[keys_a .. k], b[keys_b .. k]
    if type(x) ~= "number" or type(y) ~= "number" then return math.huge end
    e = math.max(e, math.abs(x - y) / math.max(1e-3, math.abs(y)))
  end
  return e
end

local exact
for _, mode in ipairs { "exact", "point", "linear", "quadratic", "quadratic --rod-partitioned", "point --rod-partitioned" } do
  local okd, outd, d = H.sens(RUN .. "--rod-inertia " .. mode .. " --fd 1e-6")
  if not tap.ok(okd and d["grad.mr"], mode .. ": the DDM runs") then tap.diag(outd) end
  tap.like(tostring(d.rod_inertia), "^" .. mode:gsub(" %-%-rod%-", " "), mode .. ": the output names the rod mode")
  local e = worst(d, d, "grad.", "fd.")
  tap.ok(e < 2e-6, string.format("%s: the DDM gradient equals central differences of whole runs in the mode (%.1e)", mode, e))
  local oka, outa, a = H.sens(RUN .. "--rod-inertia " .. mode .. " --method avm --checkpoints 4")
  if not tap.ok(oka, mode .. ": the AVM runs (4 checkpoints for 50 steps)") then tap.diag(outa) end
  local ea = worst(a, d, "grad.", "grad.")
  tap.ok(ea < 1e-11, string.format("%s: the AVM equals the DDM (%.1e)", mode, ea))
  if mode == "exact" then exact = d
  else
    -- The mode changes the motion, and its gradient with it: the checks above compare within a mode.
    local de = worst(d, exact, "grad.", "grad.")
    tap.ok(de > 1e-4, string.format("%s: its gradient differs from the exact mode's (%.1e)", mode, de))
  end
end

-- Until the history holds the order's samples the mode is exact: one step gives the exact mode's gradient.
local oks, _, s = H.sens(FIX .. " --t-end 0.01 --step 0.01 --rod-inertia quadratic")
local _, _, se = H.sens(FIX .. " --t-end 0.01 --step 0.01 --rod-inertia exact")
tap.ok(oks and worst(s, se, "grad.", "grad.") < 1e-14, "one step: the history is empty, the quadratic mode's gradient is the exact one's")

-- Refused: a rod mode off rk4, or on a model without closed loops.
local ok, out = H.sens(RUN .. "--rod-inertia linear --integrator dopri5")
tap.ok(not ok and out:find("rod inertia linear needs closed loops (Matrix R) on rk4", 1, true),
  "a rod mode with dopri5 is refused: " .. (out:match("[^\n]*rod inertia[^\n]*") or out))
ok, out = H.sens(RUN .. "--rod-inertia cubic")
tap.ok(not ok and out:find("'cubic' is not exact, point, linear or quadratic", 1, true), "an unknown mode is refused")
tap.done_testing()
