-- fivebar_point.lua: the five-bar of models/fivebar.lua hanging, with the position of vertex A2 as its degrees
-- of freedom: the general independent coordinates q = h(z, rho) of seeds/000.md §1.4 (form b).
-- The seed runs its five-bar benchmark for 5 s. Standing up (models/fivebar.lua) the linkage swings through
-- configurations where every fixed set of coordinates, joint angles or A2's position, degenerates (each branch
-- folds and stretches), so no set stays valid and the gradient of a run is not defined across the re-choices.
-- Here the same linkage (invented data, lib/five_bar.lua) hangs: bar A0-A1 at -100 deg, bar A4-A3 at -80 deg,
-- A2 below (each branch 0.86 m long from its ground pivot to A2, short of stretched at 0.9 m), at rest, natural
-- lengths Ls1 = 0.5 m and Ls2 = 0.6 m so that A2 swings sideways as well as down. Over 5 s A2 stays 0.41-0.89 m
-- from each pivot and away from both branches' folded (0.3 m) and stretched (0.9 m) configurations, where x2, y2
-- stop determining the joint angles.
-- x2, y2 start where the initial angles put A2 (h of the start values); a design parameter that moves A2
-- (LA1) leaves x2, y2 where they are and moves the angles instead. --set POINT=0 takes the ground joints
-- J0, J4 as the degrees of freedom, the same motion (DoF-choice invariance, seeds/000.md §7.2 item 6).
-- --set NHARM=K adds motors on J0 and J4 whose torques are Fourier series over the 5 s, K harmonics each with
-- design amplitudes a0_k, b0_k (J0) and a4_k, b4_k (J4), all 0 by default (the same motion): 4 K more design
-- parameters, the case of an adjoint (tests/bench/sens_many_parameters.sh takes K = 12, 53 parameters).
model "fivebar_point"
description "Five-bar linkage hanging, with a point's coordinates as degrees of freedom (invented data)"

parameter { POINT = 1, NHARM = 0 }
gravity { 0, -9.81, 0 }
use "five_bar" { t1 = -100, t4 = -80, side = -1, Ls1 = 0.5, Ls2 = 0.6 }
for _, j in ipairs(NHARM > 0 and { "0", "4" } or {}) do
  local amp = {}
  for k = 1, NHARM do amp["a" .. j .. "_" .. k], amp["b" .. j .. "_" .. k] = 0, 0 end
  design(amp)
  torque("motor" .. j) { joint = "J" .. j, value = function(t, s)
    local sum = 0
    for k = 1, NHARM do
      local w = 2 * pi * k / 5
      sum = sum + _ENV["a" .. j .. "_" .. k] * sin(w * t) + _ENV["b" .. j .. "_" .. k] * cos(w * t)
    end
    return sum
  end }
end
if POINT == 1 then
  independent {
    x2 = function(s) return s.point.P2.pos[1] end,
    y2 = function(s) return s.point.P2.pos[2] end,
  }
else
  independent { "J0", "J4" }
end
simulate { t_end = 5, step = 1e-3, integrator = "trapezoidal", formulation = "matrix_r" }
