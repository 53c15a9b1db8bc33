#!/usr/bin/env lua5.4
-- cl_rods.t: a massive rod (seeds/002.md §2.1, exact transfer to the end bodies) moves like the uniform slender
-- bar it stands for: tests/fixtures/fourbar_rod.lua (coupler as a rod of mass rho Lp) against
-- models/fourbar_planar.lua (coupler as a body with the bar's inertia), through mbgen run; mbgen check passes
-- on the rod model; a rod's mass shows in M and in the energy.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local function run(model, t)
  local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen run -q %s --integrator dopri5 --tolerance 1e-11 " ..
    "--formulation matrix_r --t-end %g", H.root, model, t))
  local r = { ok = ok }
  for _, q in ipairs { "O2", "O4" } do
    local z, zd = out:match("\n  " .. q .. "%s+z =%s+(%S+)%s+zd =%s+(%S+)")
    r[q], r[q .. "d"] = tonumber(z), tonumber(zd)
  end
  r.E = tonumber(out:match("energy end%s+(%S+)"))
  r.T = tonumber(out:match("energy end%s+%S+ %(kinetic (%S+),"))
  return r
end

for _, t in ipairs { 1, 2 } do
  local a, b = run("tests/fixtures/fourbar_rod.lua", t), run("models/fourbar_planar.lua", t)
  tap.ok(a.ok and b.ok, string.format("t = %g: both models run", t))
  for _, q in ipairs { "O2", "O4" } do
    tap.is_double(a[q], b[q], 0, 1e-7, string.format("t = %g: %s of the rod model equals the bar model's", t, q))
    tap.is_double(a[q .. "d"], b[q .. "d"], 1e-7, 1e-7, string.format("t = %g: %s velocity too", t, q))
  end
  tap.is_double(a.T, b.T, 1e-8, 1e-10, string.format("t = %g: kinetic energy %s (rod) vs %s (bar)", t, tostring(a.T), tostring(b.T)))
  tap.is_double(a.E, b.E, 1e-9, 1e-10, string.format("t = %g: total energy, conserved alike", t))
end

local ok, out = H.sh("cd " .. H.root .. " && lua5.4 generator/mbgen check -q tests/fixtures/fourbar_rod.lua")
tap.ok(ok and out:find("mass (d inverse_dynamics / d zdd)", 1, true),
  "mbgen check on the rod model: M (with the rod's mass) is d(inverse dynamics)/d zdd, and every derivative passes")
if not ok then tap.diag(out) end

-- Without mass the rod adds nothing: M is that of crank and rocker alone.
local tree = H.tree(H.root .. "tests/fixtures/fourbar_rod.lua", { mrod = 0 })
local TF = require "dynamics.tree_functions"
local L = require "sym.eval"
local function mass_of(tr, mrod)
  for _, f in ipairs(TF.build(tr).functions) do
    if f.name == "mass" then return L.eval(f.exprs, { t = 0, z = { 0.3, 1.1 }, zd = { 0, 0 }, p = { mrod } }) end
  end
end
local m0 = mass_of(tree, 0)
local m1 = mass_of(tree, 0.7)
tap.ok(m0 and m1 and m0[2] == 0 and m1[2] ~= 0,
  "a massless rod leaves M diagonal; a massive one couples crank and rocker (M_12 = " .. tostring(m1 and m1[2]) .. ")")
tap.done_testing()
