-- dynamics/newton_euler.lua: inverse dynamics, bias forces and the mass matrix in body frames (classical Newton-Euler, composite inertias).
-- Every vector of body k is in its own frame (dynamics/frames.lua): its inertia never turns, a joint turns a
-- vector by Rz(q) after a constant rotation with structural zeros, and the joint axis is e_z, so a joint force
-- is one component. This is the cheap form of what dynamics/rnea.lua computes in world axes for the derivatives.
local E = require "sym.expr"
local V = require "sym.vec"
local C = require "sym.emit_c"
local S = require "dynamics.spatial"
local RN = require "dynamics.rnea"

local NE = {}

-- Vectors across joint k: into body k's frame from its parent's, and back.
local function to_child(N, v) return V.mattvec(N.Q, V.mattvec(N.R, v)) end
local function to_parent(N, v) return V.matvec(N.R, V.matvec(N.Q, v)) end
NE.to_child, NE.to_parent = to_child, to_parent

local ZERO3 = { 0, 0, 0 }

-- The acceleration of a point at x from a frame's origin, in a body turning at w with w-dot wd.
local function rigid(wd, w, x)
  return V.add(V.cross(wd, x), V.cross(w, V.cross(w, x)))
end

-- A force (f, moment m about body k's origin) in the parent's frame, about the parent's origin: the moment
-- moves along the axis in body k's frame, the force turns, the moment moves across in the parent's.
local function force_to_parent(N, f, m)
  local fp = to_parent(N, f)
  local mp = to_parent(N, V.add(m, V.cross(V.scale(N.d2, N.h), f)))
  return fp, V.add(mp, V.cross(N.d1, fp))
end
NE.force_to_parent = force_to_parent

-- R S Rᵀ for R a rotation about coordinate axis a with cosine c and sine s (numbers or expressions), in the
-- cheap form: the plane block moves by X = δ s² + σ cs and Y = δ cs - σ s² (δ = S_ii - S_jj, σ = S_ij + S_ji),
-- the axis row and column turn in the plane, S_aa stays. One triangle is formed when S is symmetric.
local function turn_axis(S, a, c, s, ss, cs, symmetric)
  local i, j = a % 3 + 1, (a + 1) % 3 + 1
  local T = { {}, {}, {} }
  local delta, sigma = S[i][i] - S[j][j], S[i][j] + S[j][i]
  local X, Y = delta * ss + sigma * cs, delta * cs - sigma * ss
  T[a][a] = S[a][a]
  T[i][i], T[j][j] = S[i][i] - X, S[j][j] + X
  T[i][j] = S[i][j] + Y
  T[i][a], T[j][a] = c * S[i][a] - s * S[j][a], s * S[i][a] + c * S[j][a]
  if symmetric then
    T[j][i], T[a][i], T[a][j] = T[i][j], T[i][a], T[j][a]
  else
    T[j][i] = S[j][i] + Y
    T[a][i], T[a][j] = c * S[a][i] - s * S[a][j], s * S[a][i] + c * S[a][j]
  end
  return T
end

-- The coordinate axis a constant rotation R turns about, with its cosine and sine, or nil.
local function axis_of(R)
  for a = 1, 3 do
    local i, j = a % 3 + 1, (a + 1) % 3 + 1
    if E.const_value(R[a][a]) == 1 and E.is_zero(R[a][i]) and E.is_zero(R[a][j]) and E.is_zero(R[i][a])
        and E.is_zero(R[j][a]) then
      return a, E.const_value(R[i][i]), E.const_value(R[j][i])
    end
  end
end

local similar = V.similar

-- X S Xᵀ for the joint's rotation X = R Q: Q a turn about z, R a constant turn about an axis when the frames
-- allow (a signed permutation costs nothing in the general form: its zeros and ones fold).
function NE.turn(N, S, symmetric)
  local T = S
  if N.cos then
    local c, s = N.cos, N.sin
    T = turn_axis(T, 3, c, s, s * s, c * s, symmetric)
  elseif N.general then
    T = similar(N.Q, T, symmetric)          -- a turn about the model's own axis (a prismatic joint has none)
  end
  local a, c, s = axis_of(N.R)
  if a and c and s then return turn_axis(T, a, c, s, s * s, c * s, symmetric) end
  return similar(N.R, T, symmetric)
end

-- A body's inertia about its frame's origin: mass, first moment mc and J_O = J_c + m (|c|² 1 - c cᵀ).
local function body_inertia(N)
  local I = S.inertia(N.m, N.c, N.J)
  return { m = I.m, h = I.c, J = I.J }
end
NE.body_inertia = body_inertia

-- Joint forces r_k of the recursion at accelerations zdd (nil: the velocity-product and gravity terms only):
-- the joint forces of M zdd + c(z, zd) + g(z), without the applied forces. Each body's inertial force is
-- formed about its centre of mass, or about_origin with its first moment (cheaper when the centre of mass has
-- no zeros in the body frame); NE.cheapest picks.
function NE.inverse_dynamics(tree, kin, zd, zdd, about_origin)
  local n = #tree.bodies
  local ch = RN.children(tree)
  local w, wd, a = { [0] = ZERO3 }, { [0] = ZERO3 }, { [0] = V.scale(-1, tree.gravity) }
  local f, m = {}, {}
  for k, body in ipairs(tree.bodies) do
    local N, p = kin[k].N, body.parent
    local hv = V.scale(zd[k], N.h)
    local wr, wdk = to_child(N, w[p]), to_child(N, wd[p])
    local ak = to_child(N, V.add(a[p], rigid(wd[p], w[p], N.d1)))
    ak = V.add(ak, rigid(wdk, wr, V.scale(N.d2, N.h)))
    if body.joint.kind == "revolute" then
      w[k] = V.add(wr, hv)
      wdk = V.add(wdk, V.cross(wr, hv))
      if zdd then wdk = V.add(wdk, V.scale(zdd[k], N.h)) end
    else
      w[k] = wr
      ak = V.add(ak, V.scale(2, V.cross(wr, hv)))
      if zdd then ak = V.add(ak, V.scale(zdd[k], N.h)) end
    end
    wd[k], a[k] = wdk, ak
    if N.m and about_origin then
      -- About the body's origin with the first moment h = m c and J_O, both constant: no centre-of-mass
      -- acceleration to form, and no moment to carry from the centre of mass.
      local I = body_inertia(N)
      f[k] = V.add(V.scale(N.m, ak), rigid(wdk, w[k], I.h))
      m[k] = V.add(V.add(V.matvec(I.J, wdk), V.cross(w[k], V.matvec(I.J, w[k]))), V.cross(I.h, ak))
    elseif N.m then
      f[k] = V.scale(N.m, V.add(ak, rigid(wdk, w[k], N.c)))
      local nc = V.add(V.matvec(N.J, wdk), V.cross(w[k], V.matvec(N.J, w[k])))
      m[k] = V.add(nc, V.cross(N.c, f[k]))
    else
      f[k], m[k] = ZERO3, ZERO3
    end
  end
  local r = {}
  for k = n, 1, -1 do
    local Fk, Mk = f[k], m[k]
    for _, c in ipairs(ch[k]) do
      local Nc = kin[c].N
      local fc, mc = force_to_parent(Nc, f[c], m[c])
      Fk, Mk = V.add(Fk, fc), V.add(Mk, mc)
    end
    f[k], m[k] = Fk, Mk
    r[k] = V.dot(kin[k].N.h, tree.bodies[k].joint.kind == "revolute" and Mk or Fk)
  end
  return r
end

-- An inertia with its reference point moved by x against the body (the old origin at x from the new one):
-- J' = J + (2 h·x + m |x|²) 1 - (h xᵀ + x hᵀ + m x xᵀ), h' = h + m x.
local function shift(I, x)
  local h, m = I.h, I.m
  local s = 2 * V.dot(h, x) + m * V.dot(x, x)
  local J = {}
  for i = 1, 3 do
    J[i] = {}
    for j = 1, 3 do
      local t = I.J[i][j] - (h[i] * x[j] + x[i] * h[j] + m * x[i] * x[j])
      if i == j then t = t + s end
      J[i][j] = t
    end
  end
  return { m = m, h = V.add(h, V.scale(m, x)), J = J }
end

-- An inertia of body c's frame seen from its parent's: moved along the axis, turned by the joint, moved across.
local function to_parent_inertia(N, I)
  I = shift(I, V.scale(N.d2, N.h))
  return shift({ m = I.m, h = to_parent(N, I.h), J = NE.turn(N, I.J, true) }, N.d1)
end

local function inertia_add(A, B)
  if not A then return B end
  return { m = A.m + B.m, h = V.add(A.h, B.h), J = V.madd(A.J, B.J) }
end

-- M(z), 1-based n x n (both triangles), by composite inertias in body frames: column j is the force
-- I^C_j s_j carried up the ancestors, M_ij = s_i · F; unrelated branches are the literal 0. A force carried more
-- than `levels` joints up goes to world axes once and meets the ancestors' world screws (kin[i].b), which is
-- cheaper on long chains; NE.mass_levels picks the count.
function NE.mass(tree, kin, levels)
  levels = levels or math.huge
  local n = #tree.bodies
  local ch = RN.children(tree)
  local IC = {}
  for k = n, 1, -1 do
    local I = kin[k].N.m and body_inertia(kin[k].N) or nil
    for _, c in ipairs(ch[k]) do
      if IC[c] then I = inertia_add(I, to_parent_inertia(kin[c].N, IC[c])) end
    end
    IC[k] = I
  end
  local M = {}
  for i = 1, n do M[i] = {}; for j = 1, n do M[i][j] = 0 end end
  local function project(k, f, m)
    return V.dot(kin[k].N.h, tree.bodies[k].joint.kind == "revolute" and m or f)
  end
  for j = 1, n do
    local I, h = IC[j], kin[j].N.h
    if I then
      local f, m
      if tree.bodies[j].joint.kind == "revolute" then
        f, m = V.cross(h, I.h), V.matvec(I.J, h)
      else
        f, m = V.scale(I.m, h), V.cross(I.h, h)
      end
      M[j][j] = project(j, f, m)
      local k, up = j, 0
      while tree.bodies[k].parent ~= 0 do
        if up == levels then
          local q = kin[k]
          local fw = V.matvec(q.A, f)
          local Fw = S.join(fw, V.add(V.matvec(q.A, m), V.cross(q.o, fw)))
          k = tree.bodies[k].parent
          while k ~= 0 do
            local v = S.dot(kin[k].b, Fw)
            M[k][j], M[j][k] = v, v
            k = tree.bodies[k].parent
          end
          break
        end
        f, m = force_to_parent(kin[k].N, f, m)
        k, up = tree.bodies[k].parent, up + 1
        local v = project(k, f, m)
        M[k][j], M[j][k] = v, v
      end
    end
  end
  return M
end

-- Operations of the run-time part of a list of expressions (nested tables are flattened).
local function ops(list)
  local flat = {}
  local function walk(t)
    for _, v in ipairs(t) do
      if type(v) == "table" and not E.is_node(v) then walk(v) else flat[#flat + 1] = E.lift(v) end
    end
  end
  walk(list)
  local o = C.count(flat)
  return o.add + o.mul + o.div
end
NE.ops = ops

-- The variant of fn(option) with the fewest operations, its option, and every option's count (by position).
function NE.cheapest(fn, options)
  local best, best_ops, best_opt
  local counts = {}
  for i, opt in ipairs(options) do
    local v = fn(opt)
    local o = ops(v)
    counts[i] = o
    if not best_ops or o < best_ops then best, best_ops, best_opt = v, o, opt end
  end
  return best, best_opt, counts
end

-- The mass matrix of the cheapest hybrid: the count of body-frame levels with the fewest operations (on large
-- trees, where each count costs a tenth of a second, of the three that won on the shipped models).
function NE.mass_cheapest(tree, kin)
  local levels = #tree.bodies < 12 and { 0, 1, 2, 3, math.huge } or { 0, 2, math.huge }
  return NE.cheapest(function(l) return NE.mass(tree, kin, l) end, levels)
end

return NE
