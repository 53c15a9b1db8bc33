-- fourbar_grid.lua: a grid of NY x NZ concatenated planar four-bar loops hanging from the top row.
-- Data: seeds/003.md §3.2 (models 2-4 of the AD-tools paper, with the digest's reconstruction): every
-- joint a revolute parallel to x, every bar in the yz plane, 1 m long, 1 kg, uniform (transverse inertia
-- 1/12 kg m^2 about the COM, none about its own axis); only the top joints are fixed; gravity -z
-- (9.81 assumed); zd_1(0) = pi/3 rad/s; 5 s. Nodes sit at (y, z) = (k, -l), k = 0..NY, l = 0..NZ.
-- Vertical bar v_k_l runs (k, l-1)-(k, l); horizontal bar h_k_l runs (k-1, l)-(k, l), l >= 1.
-- Bodies (2 NY + 1) NZ: 45, 135, 225 for NY = 1, 4, 7 and NZ = 15 (`--set NY=4`).
-- Spanning tree (our choice; the paper's is in a missing figure): each column k is a chain of vertical
-- bars hanging from ground; h_k_l hangs on the lower end of v_(k-1)_l and is cut from v_k_l at node (k, l)
-- by a point2d loop (normal x): NY NZ loops, 2 NY NZ equations, DOF = NZ = 15.
-- Initial configuration: all squares (z = 0), exactly assembled; z_1 is the top bar of column 0.
model "fourbar_grid"
description "Grid of NY x NZ four-bar loops (Callejo et al. 2014), revolute joints parallel to x"

gravity { 0, 0, -9.81 }
parameter { NY = 1, NZ = 15 }

local function vname(k, l) return "v_" .. k .. "_" .. l end
local function hname(k, l) return "h_" .. k .. "_" .. l end
local I = 1 / 12

for k = 0, NY do
  for l = 1, NZ do
    body(vname(k, l)) { mass = 1, com = { 0, 0, -0.5 }, inertia = { I, I, 0 } }
    revolute("jv_" .. k .. "_" .. l) {
      parent = l == 1 and "ground" or vname(k, l - 1), child = vname(k, l),
      origin = l == 1 and { 0, k, 0 } or { 0, 0, -1 }, axis = { 1, 0, 0 },
    }
  end
end
for k = 1, NY do
  for l = 1, NZ do
    body(hname(k, l)) { mass = 1, com = { 0, 0.5, 0 }, inertia = { I, 0, I } }
    revolute("jh_" .. k .. "_" .. l) { parent = vname(k - 1, l), child = hname(k, l), origin = { 0, 0, -1 }, axis = { 1, 0, 0 } }
    loop("c_" .. k .. "_" .. l) { type = "point2d", a = { hname(k, l), { 0, 1, 0 } }, b = { vname(k, l), { 0, 0, -1 } },
      normal = { 1, 0, 0 } }
  end
end
point "corner" { body = vname(NY, NZ), at = { 0, 0, -1 } }

initial_velocity { jv_0_1 = pi / 3 }
simulate { t_end = 5, step = 1e-2, integrator = "trapezoidal", formulation = "al3" }
