-- fourbar_planar.lua: planar crank-rocker four-bar swinging under gravity.
-- Invented for testing. Pivots O2 = (0, 0) and O4 = (0.4, 0) on ground; crank 0.1 m, coupler 0.35 m,
-- rocker 0.25 m (Grashof: 0.1 + 0.4 <= 0.35 + 0.25, so the crank turns fully). Uniform bars of
-- 2 kg/m with transverse inertia m L^2 / 12 and none about their own axis. Tree: crank and rocker on
-- ground, coupler on the crank; the coupler-rocker pin is cut (a point2d loop, 2 equations), so
-- 3 coordinates - 2 equations = 1 DOF. The initial angles are the exact assembly at crank = 60 deg
-- (open branch, coupler-rocker pin above the ground line), computed below in closed form.
model "fourbar_planar"
description "Planar four-bar linkage (crank-rocker) under gravity, coupler-rocker pin cut"

gravity { 0, -9.81, 0 }
parameter { Lc = 0.1, Lp = 0.35, Lr = 0.25, Lg = 0.4, rho = 2.0 }

-- A uniform slender bar along its body x axis, frame at its proximal pin.
local function bar(name, L)
  local m = rho * L
  body(name) { mass = m, com = { L / 2, 0, 0 }, inertia = { 0, m * L * L / 12, m * L * L / 12 } }
end
bar("crank", Lc)
bar("coupler", Lp)
bar("rocker", Lr)

revolute "O2" { parent = "ground", child = "crank", axis = { 0, 0, 1 } }
revolute "A"  { parent = "crank", child = "coupler", origin = { Lc, 0, 0 }, axis = { 0, 0, 1 } }
revolute "O4" { parent = "ground", child = "rocker", origin = { Lg, 0, 0 }, axis = { 0, 0, 1 } }
loop "B" { type = "point2d", a = { "coupler", { Lp, 0, 0 } }, b = { "rocker", { Lr, 0, 0 } }, normal = { 0, 0, 1 } }

point "coupler_mid" { body = "coupler", at = { Lp / 2, 0, 0 } }

-- Assembly: A = crank tip; B is where the circles (A, Lp) and (O4, Lr) meet, on the upper side.
local th2 = pi / 3
local ax, ay = Lc * cos(th2), Lc * sin(th2)
local dx, dy = Lg - ax, -ay
local d = sqrt(dx * dx + dy * dy)
local along = (Lp * Lp - Lr * Lr + d * d) / (2 * d)
local h = sqrt(Lp * Lp - along * along)
local bx, by = ax + (along * dx - h * dy) / d, ay + (along * dy + h * dx) / d
local th3, th4 = atan2(by - ay, bx - ax), atan2(by, bx - Lg)
initial { O2 = th2, A = th3 - th2, O4 = th4 }
simulate { t_end = 5, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
