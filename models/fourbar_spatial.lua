-- fourbar_spatial.lua: 1-DOF spatial four-bar (crank, connecting rod, follower) under gravity -z.
-- Data: seeds/003.md §3.1 (model 1 of the AD-tools paper): crank 1.5 m, connecting rod 4 m, follower 2 m,
-- ground 5 m, 1 kg per metre of bar (1.5, 4, 2 kg), negligible inertia about each bar's own axis
-- (transverse m L^2 / 12), gravity along -z (9.81 assumed), 5 s, zd_4(0) = -0.1 rad/s.
-- The spatial layout is missing from the seed and invented here: the crank turns about the ground
-- x axis at A = (0, 0, 0); the follower turns about the ground y axis at B = (5, 0, 0) (|AB| = 5, the
-- ground length); the rod hangs on the crank tip by a universal joint (axes: crank axis, then the
-- crank's y) and meets the follower tip in a spherical loop (3 equations). 4 coordinates (crank,
-- rod.1, rod.2, follower) - 3 = 1 DOF; z_4 is the follower angle. The crank turns fully: for every
-- crank angle some follower angle puts the follower tip 4 m from the crank tip.
-- Initial configuration: crank at 0; the follower angle solves |C - D| = 4 by bisection on
-- [pi/2, pi] below; the universal angles point the rod from C to D.
model "fourbar_spatial"
description "Spatial four-bar: crank (R), rod (U at the crank, S loop at the follower), follower (R)"

gravity { 0, 0, -9.81 }
parameter { Lc = 1.5, Lr = 4.0, Lf = 2.0, Lg = 5.0 }

-- Bar masses are design parameters (1 kg per metre by default) for the sensitivity tests; the lengths
-- stay constants because the initial assembly below is computed from them in closed form.
design { m_crank = Lc, m_rod = Lr, m_follower = Lf }
local function bar(name, L, m)
  body(name) { mass = m, com = { L / 2, 0, 0 }, inertia = { 0, m * L * L / 12, m * L * L / 12 } }
end
bar("crank", Lc, m_crank)
bar("rod", Lr, m_rod)
bar("follower", Lf, m_follower)

-- Joint frames: crank joint z = ground x (rows of R: ground axes in joint coordinates' columns);
-- follower joint z = ground y, joint x = ground x.
local Rc = { { 0, 0, 1 }, { 1, 0, 0 }, { 0, 1, 0 } }
local Rf = { { 1, 0, 0 }, { 0, 0, 1 }, { 0, -1, 0 } }
revolute  "crank"    { parent = "ground", child = "crank", rotation = Rc, axis = { 0, 0, 1 } }
universal "rod"      { parent = "crank", child = "rod", origin = { Lc, 0, 0 }, axes = { { 0, 0, 1 }, { 0, 1, 0 } } }
revolute  "follower" { parent = "ground", child = "follower", origin = { Lg, 0, 0 }, rotation = Rf, axis = { 0, 0, 1 } }
loop "ball" { type = "spherical", a = { "rod", { Lr, 0, 0 } }, b = { "follower", { Lf, 0, 0 } } }

point "rod_mid" { body = "rod", at = { Lr / 2, 0, 0 } }

-- For the sensitivity tests: the rod's mid-point height and the follower's final rate.
objective "sway" {
  integrand = function(t, s) return s.point.rod_mid.pos[3] ^ 2 end,
  terminal = function(s) return s.zd.follower ^ 2 end,
}

-- Assembly at crank angle th: C = (0, Lc cos th, Lc sin th), D(phi) = (Lg + Lf cos phi, 0, -Lf sin phi).
local th = 0
local C = { 0, Lc * cos(th), Lc * sin(th) }
local function D(phi) return { Lg + Lf * cos(phi), 0, -Lf * sin(phi) } end
local function gap(phi)
  local d = D(phi)
  return (d[1] - C[1]) ^ 2 + (d[2] - C[2]) ^ 2 + (d[3] - C[3]) ^ 2 - Lr * Lr
end
local lo, hi = pi / 2, pi          -- gap(lo) > 0 > gap(hi)
for _ = 1, 200 do
  local mid = (lo + hi) / 2
  if gap(mid) > 0 then lo = mid else hi = mid end
end
local phi = (lo + hi) / 2
local Dp = D(phi)
-- Rod direction in the crank frame: ground = Rc Rz(th) crank, so crank = Rz(-th) Rc^T ground.
local g = { (Dp[1] - C[1]) / Lr, (Dp[2] - C[2]) / Lr, (Dp[3] - C[3]) / Lr }
local j = { Rc[1][1] * g[1] + Rc[2][1] * g[2] + Rc[3][1] * g[3],
            Rc[1][2] * g[1] + Rc[2][2] * g[2] + Rc[3][2] * g[3],
            Rc[1][3] * g[1] + Rc[2][3] * g[2] + Rc[3][3] * g[3] }
local d = { cos(th) * j[1] + sin(th) * j[2], -sin(th) * j[1] + cos(th) * j[2], j[3] }
-- Rz(a) Ry(b) e_x = (cos a cos b, sin a cos b, -sin b).
initial { crank = th, ["rod.1"] = atan2(d[2], d[1]), ["rod.2"] = atan2(-d[3], sqrt(d[1] ^ 2 + d[2] ^ 2)), follower = phi }
initial_velocity { follower = -0.1 }
simulate { t_end = 5, step = 1e-2, integrator = "trapezoidal", formulation = "al3" }
