-- quick_return.lua: planar quick-return (crank-shaper) mechanism with two cut joints.
-- Data: seeds/001.md §11.3 (the invented closed-loop benchmark of the digest; tree of Fig. 8b, §5):
-- 1 lever (ground R at (0,0), 0.6 m, 2 kg, I_G 0.06, G at (0.3,0)); 2 slider block (P along the lever's
-- x, 0.5 kg, I_G 0.001); 3 crank (R on the block, 1 kg, I_G 1/1200); 4 link (R at the lever's end,
-- 1 kg, I_G 0.0075, G at (0.15,0)); 5 ram (R at the link's end (0.3,0), 3 kg, I_G 0.05).
-- Cut joints: revolute D (crank point to ground (0, 0.3)) as a point2d loop, and the ram's prismatic
-- guide (ram point F to the ground line through E = (0, 0.75) along (1,0), ram angle 0) as a
-- prismatic2d loop: 5 coordinates - 4 equations = 1 DOF.
-- Frames: the digest puts the crank's pin to the block at (0.1, 0) in the crank frame; a joint here sits
-- at the child's frame origin, so the crank frame is moved to that pin (no rotation): G (0.05,0) ->
-- (-0.05,0), D (0,0) -> (-0.1,0). Relative angles are unchanged. The seed gives only I_G about z; the
-- other principal moments are a slender bar (0, I_G, I_G) or a thin plate (I_G/2, I_G/2, I_G): they do
-- not enter a planar motion.
-- Initial state: the digest's z0 and zd0, exactly consistent (E0 = 38.880050163999 J; z at t = 1 s:
-- 1.8803423314, 0.3263403130, -5.1304478151, -1.2430069231, -0.6373354082).
model "quick_return"
description "Quick-return (crank-shaper) mechanism of Yu et al.: cut revolute D and cut ram guide"

gravity { 0, -9.81, 0 }

body "lever" { mass = 2.0, com = { 0.3, 0, 0 }, inertia = { 0, 0.06, 0.06 } }
body "block" { mass = 0.5, com = { 0, 0, 0 }, inertia = { 0.0005, 0.0005, 0.001 } }
body "crank" { mass = 1.0, com = { -0.05, 0, 0 }, inertia = { 0, 1 / 1200, 1 / 1200 } }
body "link"  { mass = 1.0, com = { 0.15, 0, 0 }, inertia = { 0, 0.0075, 0.0075 } }
body "ram"   { mass = 3.0, com = { 0, 0, 0 }, inertia = { 0.025, 0.025, 0.05 } }

revolute  "J1" { parent = "ground", child = "lever", axis = { 0, 0, 1 } }
prismatic "J2" { parent = "lever", child = "block", axis = { 1, 0, 0 } }
revolute  "J3" { parent = "block", child = "crank", axis = { 0, 0, 1 } }
revolute  "J4" { parent = "lever", child = "link", origin = { 0.6, 0, 0 }, axis = { 0, 0, 1 } }
revolute  "J5" { parent = "link", child = "ram", origin = { 0.3, 0, 0 }, axis = { 0, 0, 1 } }

loop "D"     { type = "point2d", a = { "crank", { -0.1, 0, 0 } }, b = { "ground", { 0, 0.3, 0 } }, normal = { 0, 0, 1 } }
loop "guide" { type = "prismatic2d", a = { "ram", { 0, 0, 0 } }, b = { "ground", { 0, 0.75, 0 } },
               axis = { 1, 0, 0 }, normal = { 0, 0, 1 } }

point "F" { body = "ram", at = { 0, 0, 0 } }

initial { J1 = 1.249045772398, J2 = 0.316227766017, J3 = -1.249045772398, J4 = -0.602248829322, J5 = -0.646796943077 }
initial_velocity { J1 = 0.6, J2 = 0.569209978830, J3 = 5.4, J4 = -1.075519655053, J5 = 0.475519655053 }
simulate { t_end = 2, step = 1e-3, integrator = "rk4" }
