-- fivebar.lua: planar five-bar linkage (2 DOF) with two springs, for sensitivity analysis.
-- Topology and objectives: seeds/000.md §4.1 (the IFToMM five-bar sensitivity benchmark): five bars,
-- one of them ground, five parallel revolute joints, gravity and two springs whose natural lengths are
-- design parameters, 5 s; design parameters rho = [Ls1, Ls2, mA1, xGA1, LA1] (spring natural lengths,
-- mass, centre-of-mass x and length of the bar A0-A1); objectives psi1 = int |r2 - r20|^2,
-- psi2 = int |v2|^2, psi3 = int |a2|^2 of point 2 (vertex A2).
-- The benchmark's numbers are missing from the seed, so all data here are invented: vertices A0 = (0,0)
-- and A4 = (0.4,0) on ground; bars A0-A1 0.3 m, A1-A2 0.6 m, A2-A3 0.6 m, A3-A4 0.3 m; uniform bars of
-- 1 kg/m (mA1 = 0.3 kg, xGA1 = 0.15 m; with 0.5 m distal bars the linkage stretched into its singular
-- configuration, A1-A2-A3 aligned, at t = 0.24 s); springs from A0 and from A4 to A2, stiffness 50 N/m, natural
-- lengths 0.5 m; gravity 9.81 along -y. Initial state: bar A0-A1 at 100 deg, bar A4-A3 at 80 deg, A2
-- from the two circles (upper branch), in closed form below; at rest. r20 is held fixed (not a function
-- of rho). Tree: A0-A1-A2 and A4-A3-A2 branches, cut at A2 (point2d loop, 2 equations): 4 - 2 = 2 DOF,
-- independent coordinates J0 and J4 (the ground joints).
model "fivebar"
description "Planar five-bar linkage with two springs (López Varela et al. 2025; invented data)"

gravity { 0, -9.81, 0 }
local L1, L2, L3, L4, Lg = 0.3, 0.6, 0.6, 0.3, 0.4
design { Ls1 = 0.5, Ls2 = 0.5, mA1 = 0.3, xGA1 = 0.15, LA1 = L1 }
parameter { k = 50.0 }

local function bar(name, L, m, xg)
  body(name) { mass = m, com = { xg, 0, 0 }, inertia = { 0, L * L * L / 12, L * L * L / 12 } }
end
-- The inertia of bar A0-A1 stays that of the nominal bar: the benchmark varies mass, COM and length only.
body "bar1" { mass = mA1, com = { xGA1, 0, 0 }, inertia = { 0, L1 * L1 * L1 / 12, L1 * L1 * L1 / 12 } }
bar("bar2", L2, L2, L2 / 2)
bar("bar3", L3, L3, L3 / 2)
bar("bar4", L4, L4, L4 / 2)

revolute "J0" { parent = "ground", child = "bar1", axis = { 0, 0, 1 } }
revolute "J1" { parent = "bar1", child = "bar2", origin = { LA1, 0, 0 }, axis = { 0, 0, 1 } }
revolute "J4" { parent = "ground", child = "bar4", origin = { Lg, 0, 0 }, axis = { 0, 0, 1 } }
revolute "J3" { parent = "bar4", child = "bar3", origin = { L4, 0, 0 }, axis = { 0, 0, 1 } }
loop "J2" { type = "point2d", a = { "bar2", { L2, 0, 0 } }, b = { "bar3", { L3, 0, 0 } }, normal = { 0, 0, 1 } }

spring "s1" { a = { "ground", { 0, 0, 0 } }, b = { "bar2", { L2, 0, 0 } }, stiffness = k, length = Ls1 }
spring "s2" { a = { "ground", { Lg, 0, 0 } }, b = { "bar2", { L2, 0, 0 } }, stiffness = k, length = Ls2 }
point "P2" { body = "bar2", at = { L2, 0, 0 } }

-- Assembly: A1 and A3 from the ground angles, A2 where the circles (A1, L2) and (A3, L3) meet, above.
local t1, t4 = 100 * pi / 180, 80 * pi / 180
local a1x, a1y = L1 * cos(t1), L1 * sin(t1)
local a3x, a3y = Lg + L4 * cos(t4), L4 * sin(t4)
local dx, dy = a3x - a1x, a3y - a1y
local d = sqrt(dx * dx + dy * dy)
local along = (L2 * L2 - L3 * L3 + d * d) / (2 * d)
local h = sqrt(L2 * L2 - along * along)
local a2x, a2y = a1x + (along * dx - h * dy) / d, a1y + (along * dy + h * dx) / d
local t2, t3 = atan2(a2y - a1y, a2x - a1x), atan2(a2y - a3y, a2x - a3x)
initial { J0 = t1, J1 = t2 - t1, J4 = t4, J3 = t3 - t4 }
independent { "J0", "J4" }

local r20 = { a2x, a2y, 0 }
objective "psi1" { integrand = function(t, s)
  local r = s.point.P2.pos
  return (r[1] - r20[1]) ^ 2 + (r[2] - r20[2]) ^ 2 + (r[3] - r20[3]) ^ 2
end }
objective "psi2" { integrand = function(t, s)
  local v = s.point.P2.vel
  return v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2
end }
objective "psi3" { integrand = function(t, s)
  local a = s.point.P2.acc
  return a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2
end }
simulate { t_end = 5, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
