-- legged.lua: a quadruped for the benchmarks: a trunk on a free joint (3 slides, 3 turns) and 4 legs of hip
-- abduction (x), hip flexion (y) and knee (y), 18 coordinates. Invented, with the proportions and masses of a
-- 21 kg research quadruped (trunk 0.6 x 0.3 x 0.15 m, thigh and shank 0.25 m); small products of inertia keep
-- the links from being exactly symmetric. Numbering: trunk's 6 axes, then each leg hip to foot (lf, rf, lh, rh).
model "legged"
description "Quadruped: free-floating trunk carried by 6 axes, 4 legs of 3 revolute joints (18 coordinates)"

gravity { 0, 0, -9.81 }

body "trunk" { mass = 12.0, com = { 0.01, 0, 0.02 }, inertia = { 0.1125, 0.3825, 0.45, 0.001, -0.004, 0.0005 } }
free "base" { parent = "ground", child = "trunk", origin = { 0, 0, 0.45 }, sequence = "zyx" }

-- side: +1 left, -1 right; front: +1 front, -1 hind.
local function leg(name, front, side)
  local hip, thigh, shank = name .. "_hip", name .. "_thigh", name .. "_shank"
  body(hip)   { mass = 0.8, com = { -0.02 * front, 0.04 * side, 0 }, inertia = { 0.0009, 0.0011, 0.0010, 0, 0, 0.0001 * side } }
  body(thigh) { mass = 1.2, com = { 0, 0.01 * side, -0.10 }, inertia = { 0.0085, 0.0083, 0.0012, 0, 0.0003, 0 } }
  body(shank) { mass = 0.3, com = { 0.005 * front, 0, -0.12 }, inertia = { 0.0025, 0.0025, 0.0001, 0, 0.00005, 0 } }
  revolute(name .. "_haa") { parent = "trunk", child = hip, origin = { 0.3 * front, 0.1 * side, 0 }, axis = { 1, 0, 0 } }
  revolute(name .. "_hfe") { parent = hip, child = thigh, origin = { 0.05 * front, 0.08 * side, 0 }, axis = { 0, 1, 0 } }
  revolute(name .. "_kfe") { parent = thigh, child = shank, origin = { 0, 0, -0.25 }, axis = { 0, 1, 0 } }
  point(name .. "_foot") { body = shank, at = { 0, 0, -0.25 } }
end
leg("lf", 1, 1)
leg("rf", 1, -1)
leg("lh", -1, 1)
leg("rh", -1, -1)

initial { lf_hfe = 0.6, lf_kfe = -1.2, rf_hfe = 0.6, rf_kfe = -1.2, lh_hfe = -0.6, lh_kfe = 1.2, rh_hfe = -0.6, rh_kfe = 1.2 }
simulate { t_end = 1, step = 1e-3, integrator = "rk4" }
