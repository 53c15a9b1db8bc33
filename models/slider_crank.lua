-- slider_crank.lua: planar slider-crank (engine-like) with a motor torque input and a return spring.
-- Invented for testing. Crank 0.1 m on a ground pivot at the origin, connecting rod 0.4 m, slider on a
-- ground prismatic joint along x through the pivot (no offset). The rod-slider pin is cut (point2d loop,
-- 2 equations): 3 coordinates - 2 = 1 DOF. A spring pulls the slider towards a ground anchor at
-- x = 0.8 m. Initial angles: exact assembly at crank = 30 deg, rod angle -asin(r sin(th) / l), slider at
-- r cos(th) + l cos(rod angle).
model "slider_crank"
description "Planar slider-crank with crank torque input and a slider return spring"

gravity { 0, -9.81, 0 }
parameter { r = 0.1, l = 0.4 }
input { "T" }

body "crank"  { mass = 0.5, com = { 0.05, 0, 0 }, inertia = { 0.0001, 0.0006, 0.0006 } }
body "rod"    { mass = 0.8, com = { 0.2, 0, 0 }, inertia = { 0.0001, 0.0107, 0.0107 } }
body "slider" { mass = 1.2, com = { 0, 0, 0 }, inertia = { 0.001, 0.001, 0.001 } }

revolute  "crank_pin" { parent = "ground", child = "crank", axis = { 0, 0, 1 } }
revolute  "rod_pin"   { parent = "crank", child = "rod", origin = { r, 0, 0 }, axis = { 0, 0, 1 } }
prismatic "guide"     { parent = "ground", child = "slider", axis = { 1, 0, 0 } }
loop "wrist_pin" { type = "point2d", a = { "rod", { l, 0, 0 } }, b = { "slider", { 0, 0, 0 } }, normal = { 0, 0, 1 } }

torque "motor" { joint = "crank_pin", value = T }
spring "return" { a = { "ground", { 0.8, 0, 0 } }, b = { "slider", { 0, 0, 0 } }, stiffness = 200, length = 0.3, damping = 2 }
point "piston" { body = "slider", at = { 0, 0, 0 } }

local th = pi / 6
local beta = atan2(-r * sin(th), sqrt(l * l - (r * sin(th)) ^ 2))
initial { crank_pin = th, rod_pin = beta - th, guide = r * cos(th) + l * cos(beta) }
simulate { t_end = 2, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
