-- sym/vec.lua: 3-vectors, row-major 3x3 matrices and spatial 6-vectors [linear; angular] of nodes.
local E = require "sym.expr"

local V = {}

local add, sub, mul, neg, sum = E.add, E.sub, E.mul, E.neg, E.sum

-- Entries may be numbers or nodes; results are nodes. Zeros stay literal zeros because E.mul and E.add
-- simplify them away at construction, so the structure of every result is visible to E.is_zero.

function V.add(a, b)
  local r = {}
  for i = 1, #a do r[i] = add(a[i], b[i]) end
  return r
end

function V.sub(a, b)
  local r = {}
  for i = 1, #a do r[i] = sub(a[i], b[i]) end
  return r
end

function V.neg(a)
  local r = {}
  for i = 1, #a do r[i] = neg(a[i]) end
  return r
end

function V.scale(s, a)
  local r = {}
  for i = 1, #a do r[i] = mul(s, a[i]) end
  return r
end

function V.dot(a, b)
  local t = {}
  for i = 1, #a do t[i] = mul(a[i], b[i]) end
  return sum(t)
end

function V.cross(a, b)
  return {
    sub(mul(a[2], b[3]), mul(a[3], b[2])),
    sub(mul(a[3], b[1]), mul(a[1], b[3])),
    sub(mul(a[1], b[2]), mul(a[2], b[1])),
  }
end

-- Squared Euclidean norm (no square root, so it stays polynomial).
function V.norm2(a) return V.dot(a, a) end

function V.matvec(M, v)
  local r = {}
  for i = 1, 3 do r[i] = sum({ mul(M[i][1], v[1]), mul(M[i][2], v[2]), mul(M[i][3], v[3]) }) end
  return r
end

-- M' v.
function V.mattvec(M, v)
  local r = {}
  for i = 1, 3 do r[i] = sum({ mul(M[1][i], v[1]), mul(M[2][i], v[2]), mul(M[3][i], v[3]) }) end
  return r
end

function V.matmul(A, B)
  local R = {}
  for i = 1, 3 do
    R[i] = {}
    for j = 1, 3 do
      R[i][j] = sum({ mul(A[i][1], B[1][j]), mul(A[i][2], B[2][j]), mul(A[i][3], B[3][j]) })
    end
  end
  return R
end

function V.transpose(A)
  local R = {}
  for i = 1, 3 do R[i] = { E.lift(A[1][i]), E.lift(A[2][i]), E.lift(A[3][i]) } end
  return R
end

function V.madd(A, B)
  local R = {}
  for i = 1, 3 do R[i] = V.add(A[i], B[i]) end
  return R
end

function V.msub(A, B)
  local R = {}
  for i = 1, 3 do R[i] = V.sub(A[i], B[i]) end
  return R
end

function V.mscale(s, A)
  local R = {}
  for i = 1, 3 do R[i] = V.scale(s, A[i]) end
  return R
end

function V.eye()
  local z, o = E.zero, E.one
  return { { o, z, z }, { z, o, z }, { z, z, o } }
end

-- a b'.
function V.outer(a, b)
  local R = {}
  for i = 1, 3 do R[i] = { mul(a[i], b[1]), mul(a[i], b[2]), mul(a[i], b[3]) } end
  return R
end

-- skew(v) w = v × w.
function V.skew(v)
  local z = E.zero
  return {
    { z, neg(v[3]), E.lift(v[2]) },
    { E.lift(v[3]), z, neg(v[1]) },
    { neg(v[2]), E.lift(v[1]), z },
  }
end

-- X S Xᵀ, one triangle formed when S is symmetric (the other is the same nodes, not a second sum).
function V.similar(X, S, symmetric)
  local SXt = V.matmul(S, V.transpose(X))
  local T = { {}, {}, {} }
  for i = 1, 3 do
    for j = 1, 3 do
      if symmetric and j < i then
        T[i][j] = T[j][i]
      else
        T[i][j] = sum({ mul(X[i][1], SXt[1][j]), mul(X[i][2], SXt[2][j]), mul(X[i][3], SXt[3][j]) })
      end
    end
  end
  return T
end

-- Rotation by `angle` about the unit axis u (right hand), Rodrigues: R = c I + s [u]x + (1 - c) u u'.
-- With a numeric axis each entry is written as u_i u_j + (δij - u_i u_j) c ± u_k s, so a coordinate axis
-- gives literal zeros and ones instead of c + (1 - c).
function V.rot_axis(u, angle)
  local c, s = E.cos(angle), E.sin(angle)
  local numeric = E.is_const(u[1]) and E.is_const(u[2]) and E.is_const(u[3])
  local R = { {}, {}, {} }
  -- eps[i][j] = k, sign: [u]x[i][j] = sign * u_k.
  local K = { { nil, { 3, -1 }, { 2, 1 } }, { { 3, 1 }, nil, { 1, -1 } }, { { 2, -1 }, { 1, 1 }, nil } }
  for i = 1, 3 do
    for j = 1, 3 do
      local ks = K[i][j]
      local skew_term = ks and mul(ks[2], mul(u[ks[1]], s)) or E.zero
      if numeric then
        local uu = E.const_value(u[i]) * E.const_value(u[j])
        local d = (i == j and 1 or 0) - uu
        R[i][j] = sum({ uu, mul(d, c), skew_term })
      else
        local uu = mul(u[i], u[j])
        local diag = i == j and c or E.zero
        R[i][j] = sum({ diag, mul(uu, sub(1, c)), skew_term })
      end
    end
  end
  return R
end

-- R = Rz(yaw) Ry(pitch) Rx(roll): rotate about the fixed x axis by roll, then the fixed y by pitch, then
-- the fixed z by yaw (the URDF convention).
function V.rpy(roll, pitch, yaw)
  local Rx = V.rot_axis({ 1, 0, 0 }, roll)
  local Ry = V.rot_axis({ 0, 1, 0 }, pitch)
  local Rz = V.rot_axis({ 0, 0, 1 }, yaw)
  return V.matmul(Rz, V.matmul(Ry, Rx))
end

local function split(X) return { X[1], X[2], X[3] }, { X[4], X[5], X[6] } end
local function join(a, b) return { a[1], a[2], a[3], b[1], b[2], b[3] } end

-- Spatial motion cross product V ×ₘ X for V = [v; w], X = [x; xi]: [w × x + v × xi; w × xi].
function V.crm(Vs, X)
  local v, w = split(Vs)
  local x, xi = split(X)
  return join(V.add(V.cross(w, x), V.cross(v, xi)), V.cross(w, xi))
end

-- Spatial force cross product V ×* F for V = [v; w], F = [f; n]: [w × f; w × n + v × f].
function V.crf(Vs, F)
  local v, w = split(Vs)
  local f, n = split(F)
  return join(V.cross(w, f), V.add(V.cross(w, n), V.cross(v, f)))
end

-- Power pairing of a motion X = [x; xi] and a force F = [f; n]: x·f + xi·n.
function V.sdot(X, F)
  local t = {}
  for i = 1, 6 do t[i] = mul(X[i], F[i]) end
  return sum(t)
end

return V
