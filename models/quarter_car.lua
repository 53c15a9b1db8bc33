-- quarter_car.lua: a quarter-car suspension (car body on a spring-damper over a wheel on a stiff tire) for
-- the sensitivity and optimization tests. Invented for testing: 300 kg quarter body, 40 kg wheel, tire
-- 2e5 N/m with 100 N s/m, no gravity (motion about the static equilibrium); a bump starts the wheel at
-- 1 m/s upward. Design: suspension stiffness ks and damping cs. Objective "comfort": the squared absolute
-- acceleration of the body plus a weighted squared suspension travel, integrated over 2 s, so soft and
-- hard settings both cost and the optimum lies inside (tests/c/sens_optimize.c finds it).
model "quarter_car"
description "Quarter-car suspension: tune spring and damper for comfort against travel (invented data)"

-- Zero gravity: the coordinates are measured from the static equilibrium, where gravity and the static
-- spring forces cancel.
gravity { 0, 0, 0 }

design { ks = 20000.0, cs = 1500.0 }
parameter { W = 2000.0 }

body "wheel" { mass = 40, inertia = { 1, 1, 1 } }
body "car"   { mass = 300, inertia = { 10, 10, 10 } }

prismatic "tire" { parent = "ground", child = "wheel", axis = { 0, 0, 1 } }
prismatic "susp" { parent = "wheel", child = "car", axis = { 0, 0, 1 } }
joint_spring "tire_spring" { joint = "tire", stiffness = 2.0e5, rest = 0, damping = 100 }
joint_spring "suspension"  { joint = "susp", stiffness = ks, rest = 0, damping = cs }

objective "comfort" {
  integrand = function(t, s)
    local a = s.zdd.tire + s.zdd.susp
    return a ^ 2 + W * s.z.susp ^ 2
  end,
}

initial_velocity { tire = 1.0 }
simulate { t_end = 2, step = 1e-3, integrator = "rk4" }
