-- dynamics/aba.lua: O(n) articulated-body forward dynamics in origin-referenced form (seed 004 §3, DERIVATIVES.md §10).
-- With every quantity referred to the global origin the articulated inertias are plain sums: no transforms.
local V = require "sym.vec"
local S = require "dynamics.spatial"
local R = require "dynamics.rnea"

local A = {}

local function mat6_zero()
  local M = {}
  for r = 1, 6 do M[r] = { 0, 0, 0, 0, 0, 0 } end
  return M
end

local function mat6_add(A6, B6)
  local C = {}
  for r = 1, 6 do
    C[r] = {}
    for c = 1, 6 do C[r][c] = A6[r][c] + B6[r][c] end
  end
  return C
end

-- zdd = M⁻¹ Q as expressions. ap = applied forces of dynamics.applied (wrenches and joint forces).
function A.forward_dynamics(tree, kin, zd, ap)
  local n = #tree.bodies
  local ch = R.children(tree)
  local st = R.forward(tree, kin, zd, nil)           -- Z, bd (and a without zdd, unused here)
  local IA, pA, c = {}, {}, {}
  for k = 1, n do
    local q, e = kin[k], st[k]
    c[k] = S.scale(zd[k], e.bd)                        -- bias acceleration across joint k
    local p = S.zero
    if q.I then
      IA[k] = S.inertia_matrix(q.I)
      p = S.crf(e.Z, e.h)
    else
      IA[k] = mat6_zero()
    end
    if ap.wrench[k] then p = S.sub(p, ap.wrench[k]) end
    pA[k] = p
  end
  local U, Dk, u = {}, {}, {}
  for k = n, 1, -1 do
    local I, p = IA[k], pA[k]
    for _, cc in ipairs(ch[k]) do
      -- child's articulated contribution Ia = I^A - U Uᵀ/D and pa = p^A + Ia c + U u/D
      local Ia = {}
      for r = 1, 6 do
        Ia[r] = {}
        for col = 1, 6 do Ia[r][col] = IA[cc][r][col] - U[cc][r] * U[cc][col] / Dk[cc] end
      end
      local pa = S.add(S.add(pA[cc], S.mat6_apply(Ia, c[cc])), S.scale(u[cc] / Dk[cc], U[cc]))
      I, p = mat6_add(I, Ia), S.add(p, pa)
    end
    IA[k], pA[k] = I, p
    local b = kin[k].b
    U[k] = S.mat6_apply(I, b)
    Dk[k] = S.dot(b, U[k])
    u[k] = (ap.tau[k] or 0) - S.dot(b, p)
  end
  local acc = { [0] = S.join(V.scale(-1, tree.gravity), { 0, 0, 0 }) }
  local zdd = {}
  for k, body in ipairs(tree.bodies) do
    local a1 = S.add(acc[body.parent], c[k])
    zdd[k] = (u[k] - S.dot(U[k], a1)) / Dk[k]
    acc[k] = S.add(a1, S.scale(zdd[k], kin[k].b))
  end
  return zdd
end

return A
