#!/usr/bin/env lua5.4
-- veh_lib.t: models/lib/double_wishbone.lua on tests/fixtures/dw_axle.lua (two corners on a fixed chassis,
-- the left one steered by a rack): topology counts of a corner, mirroring of the right side, design assembly.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local load = require "model.load"
local topology = require "model.topology"

local model = load.load(root .. "tests/fixtures/dw_axle.lua")
local t = topology.build(model.numeric, { no_trace = true })
local byname = {}
for k, b in ipairs(t.bodies) do byname[b.name] = k end
local function body(n) return t.bodies[byname[n]] end

-- Counts: rack (1 coordinate) + per corner uca, lca (1 each), knuckle (3, two auxiliary bodies), wheel (1).
tap.is(t.nz, 1 + 2 * 6, "13 coordinates: rack + 2 x (uca, lca, knuckle x3, spin)")
tap.is(t.nc, 2 * 4 + 1, "9 constraint equations: 2 x (upper ball joint 3 + tie rod 1) + steering drive")
tap.is(t.nz - t.nc, 4, "4 degrees of freedom: two wheel travels, two spins")
local real = 0
for _, b in ipairs(t.bodies) do if not b.aux then real = real + 1 end end
tap.is(real, 1 + 2 * 4, "9 bodies with mass: rack + 2 x (uca, lca, knuckle, wheel)")
tap.is(#t.springs, 4, "spring and shock on each side")
local kinds = {}
for _, c in ipairs(t.constraints) do kinds[c.name] = c.kind .. "/" .. tostring(c.type) .. "/" .. c.equations end
tap.is(kinds.fl_ubj, "loop/spherical/3", "upper ball joint is a spherical loop")
tap.is(kinds.fl_tierod, "rod/distance/1", "tie rod is a rod")
tap.is(t.bodies[t.constraints[3].a.body].name, "rack", "steered tie rod ends on the rack")
tap.is(t.constraints[4].a.body, 0, "unsteered tie rod ends on the chassis (here ground)")

-- Mirroring: the right corner is the left one with y negated.
local function mirrored(u, v, tol) return math.abs(u[1] - v[1]) < tol and math.abs(u[2] + v[2]) < tol and math.abs(u[3] - v[3]) < tol end
local ok = true
for _, part in ipairs { "uca", "lca", "knuckle" } do
  local l, r = body("fl_" .. part), body("fr_" .. part)
  ok = ok and l.mass == r.mass and mirrored(l.com, r.com, 1e-12)
  -- a reflection in y flips the signs of Ixy and Iyz and keeps the rest
  local I, J = l.inertia, r.inertia
  ok = ok and math.abs(I[1][1] - J[1][1]) < 1e-12 and math.abs(I[1][2] + J[1][2]) < 1e-12
    and math.abs(I[1][3] - J[1][3]) < 1e-12 and math.abs(I[2][3] + J[2][3]) < 1e-12
end
tap.ok(ok, "right bodies mirror the left ones (mass, com, inertia)")
ok = true
for _, j in ipairs { "uca", "lca" } do
  local l, r = body("fl_" .. j).joint, body("fr_" .. j).joint
  ok = ok and mirrored(l.origin, r.origin, 1e-12) and mirrored(l.axis, r.axis, 1e-12)
end
tap.ok(ok, "hinge points and axes mirror")
local sl, sr = t.springs[1], t.springs[3]
tap.ok(mirrored(sl.a.at, sr.a.at, 1e-12) and mirrored(sl.b.at, sr.b.at, 1e-12) and sl.stiffness == sr.stiffness,
  "spring attachment points mirror")
-- The arms' principal moments survive the rotation into chassis axes (the trace is invariant), after the
-- triangle-inequality cut of Chrono's UCA moments 0.03, 0.03, 0.06276 -> 0.03, 0.03, 0.06.
local I = body("fl_uca").inertia
tap.ok(math.abs(I[1][1] + I[2][2] + I[3][3] - 0.12) < 1e-12, "UCA inertia: trace 0.12 after the cut")

-- Assembly at zero: the upper ball joint's two ends coincide, the tie rod has its length.
local function world(bk, at)
  -- all frames are parallel to the chassis at z = 0: add the joint origins up the tree
  local p = { at[1], at[2], at[3] }
  while bk ~= 0 do
    local b = t.bodies[bk]
    for i = 1, 3 do p[i] = p[i] + b.joint.origin[i] end
    bk = b.parent
  end
  return p
end
for _, c in ipairs(t.constraints) do
  if c.kind == "loop" or c.kind == "rod" then
    local pa, pb = world(c.a.body, c.a.at), world(c.b.body, c.b.at)
    local d = math.sqrt((pa[1] - pb[1]) ^ 2 + (pa[2] - pb[2]) ^ 2 + (pa[3] - pb[3]) ^ 2)
    local want = c.kind == "rod" and c.length or 0
    tap.ok(math.abs(d - want) < 1e-12, c.name .. " assembled at the design position")
  end
end
tap.done_testing()
