-- double_pendulum.lua: planar double pendulum with massless links and point masses P and Q.
-- Data: seeds/004.md §8.2 (the substitute dataset for Anderson & Hsu's Figs. 3-7): L1 = L2 = 1 m,
-- M_P = M_Q = 1 kg, g = 9.81 m/s^2 along -y, revolute axes along z, relative angles with 0 hanging
-- straight down, theta1(0) = pi/6, theta2(0) = 0, zero rates; RK4 with h = 1e-3 over 20 s.
-- The four design variables of the paper, [L1, L2, M_P, M_Q], are `design` names, so p[] = L1 L2 mP mQ.
-- The input tau (a shoulder motor, as in INTERFACES.md §1) is not in the seed: with u = 0 the motion is
-- the seed's, whose table gives theta1(5) = 0.26939296 and KE(5) = 1.914064215.
model "double_pendulum"
description "Planar double pendulum: point masses on massless links (Anderson and Hsu 2002)"

gravity { 0, -9.81, 0 }

design { L1 = 1.0, L2 = 1.0, mP = 1.0, mQ = 1.0 }
input  { "tau" }

body "upper" { mass = mP, com = { 0, -L1, 0 }, inertia = { 0, 0, 0 } }
body "lower" { mass = mQ, com = { 0, -L2, 0 }, inertia = { 0, 0, 0 } }

revolute "shoulder" { parent = "ground", child = "upper", axis = { 0, 0, 1 } }
revolute "elbow"    { parent = "upper", child = "lower", origin = { 0, -L1, 0 }, axis = { 0, 0, 1 } }

torque "motor" { joint = "shoulder", value = tau }
point  "P"     { body = "upper", at = { 0, -L1, 0 } }
point  "Q"     { body = "lower", at = { 0, -L2, 0 } }

-- The paper's performance measure (P-71): KE = 1/2 (M_P vP.vP + M_Q vQ.vQ), read at the final time.
objective "kinetic_energy" {
  terminal = function(s)
    local vP, vQ = s.point.P.vel, s.point.Q.vel
    return 0.5 * (mP * (vP[1]^2 + vP[2]^2 + vP[3]^2) + mQ * (vQ[1]^2 + vQ[2]^2 + vQ[3]^2))
  end,
}

initial  { shoulder = pi / 6, elbow = 0 }
simulate { t_end = 20, step = 1e-3, integrator = "rk4" }
