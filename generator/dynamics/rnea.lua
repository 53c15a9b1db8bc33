-- dynamics/rnea.lua: the origin-referenced recursive inverse dynamics, mass matrix and energy (DERIVATIVES.md §3, §8).
local V = require "sym.vec"
local S = require "dynamics.spatial"

local R = {}

-- Children lists from the parent indices (ground is 0).
function R.children(tree)
  local ch = { [0] = {} }
  for k = 1, #tree.bodies do ch[k] = {} end
  for k, body in ipairs(tree.bodies) do table.insert(ch[body.parent], k) end
  return ch
end

-- Forward pass, root to leaves (steps F2-F6): twist Z, screw rate bd, spatial acceleration a
-- (gravity as the base acceleration a0 = [-g; 0]), momentum h and inertial wrench f.
-- zdd may be nil: then the accelerations hold the velocity-product and gravity terms only. no_gravity: the base at
-- rest, for the motion alone (the kinematics of points, point_jets.lua).
function R.forward(tree, kin, zd, zdd, no_gravity)
  local g = no_gravity and { 0, 0, 0 } or tree.gravity
  local st = { [0] = { Z = S.zero, a = S.join(V.scale(-1, g), { 0, 0, 0 }) } }
  for k, body in ipairs(tree.bodies) do
    local q, par = kin[k], st[body.parent]
    local e = {}
    e.Z = S.add(par.Z, S.scale(zd[k], q.b))                         -- F2
    e.bd = S.crm(par.Z, q.b)                                         -- F3
    e.a = S.add(par.a, S.scale(zd[k], e.bd))                         -- F4
    if zdd then e.a = S.add(e.a, S.scale(zdd[k], q.b)) end
    if q.I then
      e.h = S.inertia_apply(q.I, e.Z)                                -- F5
      e.f = S.add(S.inertia_apply(q.I, e.a), S.crf(e.Z, e.h))        -- F6
    end
    st[k] = e
  end
  return st
end

-- Backward pass (B1): composite wrenches F and the residual r_k = b_k · F_k.
function R.backward(tree, kin, st)
  local ch = R.children(tree)
  local F, r = {}, {}
  for k = #tree.bodies, 1, -1 do
    local Fk = st[k].f or S.zero
    for _, c in ipairs(ch[k]) do Fk = S.add(Fk, F[c]) end
    F[k] = Fk
    r[k] = S.dot(kin[k].b, Fk)
  end
  return F, r
end

-- Composite inertias I^C (B2), leaves to root.
function R.composite_inertias(tree, kin)
  local ch = R.children(tree)
  local IC = {}
  for k = #tree.bodies, 1, -1 do
    local I = kin[k].I or S.inertia_zero
    for _, c in ipairs(ch[k]) do I = S.inertia_add(I, IC[c]) end
    IC[k] = I
  end
  return IC
end

-- M(z) as a 1-based n x n table (both triangles): M_ij = b_i · α_j for i ⪯ j, α_j = I^C_j b_j
-- (seed 003 §1.5 step 4); entries of unrelated branches are the literal 0.
function R.mass(tree, kin, IC, anc)
  local n = #tree.bodies
  local M = {}
  for i = 1, n do M[i] = {} ; for j = 1, n do M[i][j] = 0 end end
  for j = 1, n do
    local alpha = S.inertia_apply(IC[j], kin[j].b)
    for i = 1, j do
      if anc[j][i] then
        local v = S.dot(kin[i].b, alpha)
        M[i][j], M[j][i] = v, v
      end
    end
  end
  return M
end

-- Kinetic energy ½ Σ Z·(I Z) and gravitational potential -g·Σ c_k (c_k = m_k g_k).
function R.energy(tree, kin, st)
  local T, Vg = 0, 0
  for k = 1, #tree.bodies do
    local q = kin[k]
    if q.I then
      T = T + S.dot(st[k].Z, st[k].h) * 0.5
      Vg = Vg - V.dot(tree.gravity, q.I.c)
    end
  end
  return T, Vg
end

return R
