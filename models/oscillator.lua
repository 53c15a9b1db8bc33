-- oscillator.lua: one mass on a prismatic joint held by a linear joint spring, undamped.
-- Invented for testing, because its motion is known in closed form: with x(0) = x0 and xd(0) = 0,
--   x(t) = x0 cos(w t),  w = sqrt(k / m) = 10 rad/s,  period 2 pi / w = 0.6283 s,
--   energy 1/2 k x0^2 = 0.5 J, and the sensitivities dx/dk = -x0 sin(w t) t / (2 m w),
--   dx/dm = x0 sin(w t) t w / (2 m).
-- Gravity acts along -z, across the slide, so it does no work on the coordinate.
model "oscillator"
description "Mass on a prismatic joint with a linear spring: x(t) = x0 cos(sqrt(k/m) t)"

gravity { 0, 0, -9.81 }
parameter { x0 = 0.1 }
design { k = 100.0, m = 1.0 }

body "mass" { mass = m, inertia = { 0.001, 0.001, 0.001 } }
prismatic "slide" { parent = "ground", child = "mass", axis = { 1, 0, 0 } }
joint_spring "spring" { joint = "slide", stiffness = k, rest = 0, damping = 0 }
point "centre" { body = "mass", at = { 0, 0, 0 } }

-- For the sensitivity tests (closed form): psi = integral of x^2 dt + xd(t_end).
objective "wobble" {
  integrand = function(t, s) return s.z.slide ^ 2 end,
  terminal = function(s) return s.zd.slide end,
}

initial  { slide = x0 }
simulate { t_end = 2, step = 1e-3, integrator = "rk4" }
