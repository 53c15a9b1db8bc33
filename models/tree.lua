-- tree.lua: a branched spatial tree (a turntable carrying a lifting trunk with two arms and a head).
-- Invented for testing: revolute and prismatic joints, joint frames with origins and rotations, two
-- branches of different depth, full inertias. Numbering (depth first, children in declaration order):
-- 1 base, 2 trunk, 3 upper_l, 4 lower_l, 5 upper_r, 6 lower_r, 7 head.
model "tree"
description "Branched spatial tree: turntable, lifting trunk, two arms (one telescopic) and a head"

gravity { 0, 0, -9.81 }

body "base"    { mass = 8.0, com = { 0, 0, 0.05 }, inertia = { 0.10, 0.10, 0.16 } }
body "trunk"   { mass = 5.0, com = { 0, 0, 0.30 }, inertia = { 0.16, 0.15, 0.03, 0.002, 0.001, -0.003 } }
body "upper_l" { mass = 1.5, com = { 0.15, 0, 0 }, inertia = { 0.002, 0.012, 0.012 } }
body "lower_l" { mass = 1.0, com = { 0.12, 0, 0 }, inertia = { 0.001, 0.006, 0.006, 0.0002, 0, 0 } }
body "upper_r" { mass = 1.5, com = { 0.15, 0, 0 }, inertia = { 0.002, 0.012, 0.012 } }
body "lower_r" { mass = 0.8, com = { 0.10, 0, 0 }, inertia = { 0.0008, 0.004, 0.004 } }
body "head"    { mass = 2.0, com = { 0, 0, 0.10 }, inertia = { 0.008, 0.008, 0.006 } }

revolute  "turn"     { parent = "ground", child = "base", axis = { 0, 0, 1 } }
prismatic "lift"     { parent = "base", child = "trunk", origin = { 0, 0, 0.10 }, axis = { 0, 0, 1 } }
revolute  "shoulder_l" { parent = "trunk", child = "upper_l", origin = { 0, 0.25, 0.55 },
                         rotation = { 0, 0, pi / 2 }, axis = { 0, 1, 0 } }
revolute  "elbow_l"  { parent = "upper_l", child = "lower_l", origin = { 0.30, 0, 0 }, axis = { 0, 0.6, 0.8 } }
revolute  "shoulder_r" { parent = "trunk", child = "upper_r", origin = { 0, -0.25, 0.55 },
                         rotation = { 0, 0, -pi / 2 }, axis = { 0, 1, 0 } }
prismatic "telescope_r" { parent = "upper_r", child = "lower_r", origin = { 0.30, 0, 0 }, axis = { 1, 0, 0 } }
revolute  "neck"     { parent = "trunk", child = "head", origin = { 0, 0, 0.65 }, rotation = { 0.1, 0, 0 },
                       axis = { 1, 0, 0 } }

point "hand_l" { body = "lower_l", at = { 0.25, 0, 0 } }
point "hand_r" { body = "lower_r", at = { 0.20, 0, 0 } }

initial  { turn = 0.3, lift = 0.05, shoulder_l = 0.4, elbow_l = -0.6, shoulder_r = -0.2, telescope_r = 0.02, neck = 0.1 }
simulate { t_end = 2, step = 1e-3, integrator = "rk4" }
