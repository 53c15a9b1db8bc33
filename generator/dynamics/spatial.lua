-- dynamics/spatial.lua: origin-referenced spatial algebra of DERIVATIVES.md §1 on expressions.
-- Motion and force 6-vectors are {lin1, lin2, lin3, ang1, ang2, ang3}; an inertia is
-- { m =, c = {3}, J = {{3x3}} } about the global origin (m, first moment c = m g, J_O).
local V = require "sym.vec"

local S = {}

local function lin(X) return { X[1], X[2], X[3] } end
local function ang(X) return { X[4], X[5], X[6] } end
local function join(a, b) return { a[1], a[2], a[3], b[1], b[2], b[3] } end
S.lin, S.ang, S.join = lin, ang, join

S.zero = { 0, 0, 0, 0, 0, 0 }

function S.add(X, Y) return join(V.add(lin(X), lin(Y)), V.add(ang(X), ang(Y))) end
function S.sub(X, Y) return join(V.sub(lin(X), lin(Y)), V.sub(ang(X), ang(Y))) end
function S.scale(s, X) return join(V.scale(s, lin(X)), V.scale(s, ang(X))) end

-- Power pairing X·F (also plain 6-vector dot product).
function S.dot(X, F)
  return V.dot(lin(X), lin(F)) + V.dot(ang(X), ang(F))
end

-- V ×ₘ X = [w × x + v × xi ; w × xi]
function S.crm(Vv, X)
  local v, w, x, xi = lin(Vv), ang(Vv), lin(X), ang(X)
  return join(V.add(V.cross(w, x), V.cross(v, xi)), V.cross(w, xi))
end

-- V ×* F = [w × f ; w × n + v × f]
function S.crf(Vv, F)
  local v, w, f, n = lin(Vv), ang(Vv), lin(F), ang(F)
  return join(V.cross(w, f), V.add(V.cross(w, n), V.cross(v, f)))
end

-- Inertia about the origin from mass, global COG g and inertia J_G about the COG in global axes
-- (seed 003 eq. 9): c = m g, J_O = J_G + m ((g·g) 1 - g gᵀ).
function S.inertia(m, g, JG)
  local c = V.scale(m, g)
  local gg = V.dot(g, g)
  local J = {}
  for r = 1, 3 do
    J[r] = {}
    for col = 1, 3 do
      local t = JG[r][col] - c[r] * g[col]
      if r == col then t = t + m * gg end
      J[r][col] = t
    end
  end
  return { m = m, c = c, J = J }
end

function S.inertia_add(A, B)
  local J = {}
  for r = 1, 3 do
    J[r] = {}
    for col = 1, 3 do J[r][col] = A.J[r][col] + B.J[r][col] end
  end
  return { m = A.m + B.m, c = V.add(A.c, B.c), J = J }
end

S.inertia_zero = { m = 0, c = { 0, 0, 0 }, J = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } } }

-- I [x; xi] = [m x - c × xi ; c × x + J xi]
function S.inertia_apply(I, X)
  local x, xi = lin(X), ang(X)
  return join(V.sub(V.scale(I.m, x), V.cross(I.c, xi)), V.add(V.cross(I.c, x), V.matvec(I.J, xi)))
end

-- A general 6x6 matrix (row-major, 1-based) applied to a 6-vector; used by the articulated bodies.
function S.mat6_apply(A, X)
  local y = {}
  for r = 1, 6 do
    local s = 0
    for c = 1, 6 do s = s + A[r][c] * X[c] end
    y[r] = s
  end
  return y
end

-- The 6x6 matrix of an inertia (for articulated-body sums).
function S.inertia_matrix(I)
  local m, c, J = I.m, I.c, I.J
  local cx = V.skew(c)
  local A = {}
  for r = 1, 6 do A[r] = {} end
  for r = 1, 3 do
    for col = 1, 3 do
      A[r][col] = (r == col) and m or 0
      A[r][col + 3] = -cx[r][col]
      A[r + 3][col] = cx[r][col]
      A[r + 3][col + 3] = J[r][col]
    end
  end
  return A
end

return S
