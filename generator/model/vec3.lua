-- model/vec3.lua: 3-vectors and row-major 3x3 matrices by Lua's operators, for the stages that work on the model's
-- values (topology, frames): on numbers they stay numbers, and nodes mix in through the operators (sym/vec.lua
-- builds nodes always).
local V3 = {}

function V3.add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
function V3.sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
function V3.scale(s, a) return { s * a[1], s * a[2], s * a[3] } end
function V3.dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

function V3.cross(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end

function V3.matvec(A, v) return { V3.dot(A[1], v), V3.dot(A[2], v), V3.dot(A[3], v) } end

-- Aᵀ v.
function V3.mattvec(A, v)
  return { A[1][1] * v[1] + A[2][1] * v[2] + A[3][1] * v[3], A[1][2] * v[1] + A[2][2] * v[2] + A[3][2] * v[3],
           A[1][3] * v[1] + A[2][3] * v[2] + A[3][3] * v[3] }
end

function V3.matmul(A, B)
  local C = {}
  for i = 1, 3 do
    C[i] = {}
    for j = 1, 3 do C[i][j] = A[i][1] * B[1][j] + A[i][2] * B[2][j] + A[i][3] * B[3][j] end
  end
  return C
end

function V3.transpose(A)
  return { { A[1][1], A[2][1], A[3][1] }, { A[1][2], A[2][2], A[3][2] }, { A[1][3], A[2][3], A[3][3] } }
end

-- The matrix with columns x, y, z.
function V3.columns(x, y, z)
  return { { x[1], y[1], z[1] }, { x[2], y[2], z[2] }, { x[3], y[3], z[3] } }
end

-- R = Rz(yaw) Ry(pitch) Rx(roll), the `rotation` of the model language and URDF's rpy; cs(a) returns cos a, sin a
-- (default: of numbers; the loader passes one that also takes symbols).
function V3.rpy(r, p, y, cs)
  cs = cs or function(a) return math.cos(a), math.sin(a) end
  local cr, sr = cs(r)
  local cp, sp = cs(p)
  local cy, sy = cs(y)
  return {
    { cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr },
    { sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr },
    { -sp, cp * sr, cp * cr },
  }
end

return V3
