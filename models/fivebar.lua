-- fivebar.lua: planar five-bar linkage (2 DOF) with two springs, for sensitivity analysis.
-- Topology and objectives: seeds/000.md §4.1 (the IFToMM five-bar sensitivity benchmark): five bars,
-- one of them ground, five parallel revolute joints, gravity and two springs whose natural lengths are
-- design parameters, 5 s; design parameters rho = [Ls1, Ls2, mA1, xGA1, LA1] (spring natural lengths,
-- mass, centre-of-mass x and length of the bar A0-A1); objectives psi1 = int |r2 - r20|^2,
-- psi2 = int |v2|^2, psi3 = int |a2|^2 of point 2 (vertex A2).
-- The benchmark's numbers are missing from the seed, so all data here are invented: vertices A0 = (0,0)
-- and A4 = (0.4,0) on ground; bars A0-A1 0.3 m, A1-A2 0.6 m, A2-A3 0.6 m, A3-A4 0.3 m; uniform bars of
-- 1 kg/m (mA1 = 0.3 kg, xGA1 = 0.15 m; with 0.5 m distal bars the linkage stretched into its singular
-- configuration, A1-A2-A3 aligned, at t = 0.24 s); springs from A0 and from A4 to A2, stiffness 50 N/m, natural
-- lengths 0.5 m; gravity 9.81 along -y. Initial state: bar A0-A1 at 100 deg, bar A4-A3 at 80 deg, A2
-- from the two circles (upper branch), in closed form (lib/five_bar.lua); at rest. r20 is held fixed (not a function
-- of rho). Tree: A0-A1-A2 and A4-A3-A2 branches, cut at A2 (point2d loop, 2 equations): 4 - 2 = 2 DOF,
-- independent coordinates J0 and J4 (the ground joints).
model "fivebar"
description "Planar five-bar linkage with two springs (López Varela et al. 2025; invented data)"

gravity { 0, -9.81, 0 }
use "five_bar" { t1 = 100, t4 = 80, side = 1, Ls1 = 0.5, Ls2 = 0.5 }
independent { "J0", "J4" }
simulate { t_end = 5, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
