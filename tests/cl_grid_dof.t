#!/usr/bin/env lua5.4
-- cl_grid_dof.t: fourbar_grid (NY = 1, 4, 7 with 15 columns) has 45, 135, 225 bodies and mobility
-- n - rank(Phi_z) = 15 (seeds/003.md §3.2), the rank found numerically from the generated Phi_z expressions.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local D = require "sym.diff"
local L = require "sym.eval"
local K = require "dynamics.kinematics"
local R = require "dynamics.rnea"
local CF = require "dynamics.constraint_functions"


for _, case in ipairs { { 1, 45 }, { 4, 135 }, { 7, 225 } } do
  local ny, nb = case[1], case[2]
  local tree = H.tree(H.root .. "models/fourbar_grid.lua", { NY = ny })
  local syms = K.symbols(tree)
  local kin = K.bodies(tree, syms.z)
  local built = { symbols = syms, kin = kin, state = R.forward(tree, kin, syms.zd, nil) }
  local phi = CF.equations(tree, built)
  local n, nc = #tree.bodies, #phi
  tap.is(n, nb, string.format("NY = %d: %d bodies", ny, nb))
  local Jz = D.jacobian(phi, syms.z)
  local env = { t = 0, z = {}, zd = {} }
  for k, c in ipairs(tree.coords) do env.z[k], env.zd[k] = c.initial or 0, 0 end
  local flat = {}
  for i = 1, nc do for j = 1, n do flat[#flat + 1] = Jz[i][j] end end
  local vals = L.eval(flat, env)
  local A, k = {}, 0
  for i = 1, nc do
    A[i] = {}
    for j = 1, n do k = k + 1; A[i][j] = vals[k] end
  end
  local res = 0
  for _, v in ipairs(L.eval(phi, env)) do res = math.max(res, math.abs(v)) end
  tap.ok(res < 1e-9, string.format("NY = %d: the initial configuration is assembled (max |Phi| = %.1e)", ny, res))
  tap.is(n - H.rank(A, nc, n, 1e-10), 15, string.format("NY = %d: n - rank(Phi_z) = 15 (n = %d, %d equations)", ny, n, nc))
end
tap.done_testing()
