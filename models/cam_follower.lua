-- cam_follower.lua: a disc cam lifting a spring-loaded flat-faced follower. The cam-follower pair of Yu et al.
-- (seeds/001.md Fig. B.10) is a joint whose geometry depends on a coordinate: here the follower's slide is tied to the
-- cam angle by the profile s(theta), a symbolic expression of the angle that the generator differentiates (a
-- `drive` whose position reads the state), so the pair is one constraint equation and every derivative is the
-- generated one. Invented for testing: a 2 kg disc cam, a 0.3 kg follower on a vertical guide, lift h0 + e cos(theta) +
-- e2 cos(2 theta) (10 mm and 3 mm), a 2 kN/m return spring preloaded by 63 mm; no damping, so the energy is kept.
model "cam_follower"
description "Disc cam and spring-loaded follower: the follower's lift is the cam profile s(theta)"

gravity { 0, -9.81, 0 }
parameter { h0 = 0.05, e = 0.01, e2 = 0.003 }

body "cam"      { mass = 2.0, inertia = { 0.002, 0.002, 0.004 } }
body "follower" { mass = 0.3, inertia = { 1e-4, 1e-4, 1e-4 } }
revolute  "theta" { parent = "ground", child = "cam", axis = { 0, 0, 1 } }
prismatic "lift"  { parent = "ground", child = "follower", axis = { 0, 1, 0 } }

local function profile(th) return h0 + e * cos(th) + e2 * cos(2 * th) end
drive "contact" { joint = "lift", position = function(t, s) return profile(s.z.theta) end }
spring "return" { a = { "ground", { 0, 0.2, 0 } }, b = { "follower" }, stiffness = 2000, length = 0.2 }

initial { theta = 0, lift = h0 + e + e2 }
initial_velocity { theta = 10 }
simulate { t_end = 2, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
