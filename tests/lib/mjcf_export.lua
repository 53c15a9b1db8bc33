-- mjcf_export.lua: writes an mbgen tree (generator/README.md) as MuJoCo MJCF, for the peer checks and benchmarks.
--
-- local X = require "mjcf_export"; X.export(tree, env) -> XML text
-- Frames: MuJoCo's body frame is mbgen's body frame at z = 0: `pos` = the joint origin in the parent frame,
-- `quat` = the joint rotation; the hinge/slide axis is given in that frame, as mbgen's joint axis is. Joints
-- are named after mbgen's coordinates (MuJoCo orders dofs depth-first; map by name). Inertias go in as
-- `diaginertia` + `quat` of their principal axes: MuJoCo's own `fullinertia` eigen-solver stops near 1e-9
-- (design/FACTS.md). Nodes (design parameters) are evaluated with sym.eval in env, as ref_export does.
local M = {}
local RX = require "ref_export"

local function g(x) return string.format("%.17g", x) end

-- Unit quaternion (w, x, y, z) of a proper rotation matrix R (row-major flat 9), Shepperd's method.
local function quat(R)
  local m00, m01, m02, m10, m11, m12, m20, m21, m22 = table.unpack(R)
  local tr = m00 + m11 + m22
  local w, x, y, z
  if tr > 0 then
    local s = math.sqrt(tr + 1) * 2
    w, x, y, z = s / 4, (m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s
  elseif m00 > m11 and m00 > m22 then
    local s = math.sqrt(1 + m00 - m11 - m22) * 2
    w, x, y, z = (m21 - m12) / s, s / 4, (m01 + m10) / s, (m02 + m20) / s
  elseif m11 > m22 then
    local s = math.sqrt(1 + m11 - m00 - m22) * 2
    w, x, y, z = (m02 - m20) / s, (m01 + m10) / s, s / 4, (m12 + m21) / s
  else
    local s = math.sqrt(1 + m22 - m00 - m11) * 2
    w, x, y, z = (m10 - m01) / s, (m02 + m20) / s, (m12 + m21) / s, s / 4
  end
  local n = math.sqrt(w * w + x * x + y * y + z * z)
  return { w / n, x / n, y / n, z / n }
end
M.quat = quat

-- Eigenvalues and eigenvectors (columns of V, row-major) of a symmetric 3x3 by cyclic Jacobi rotations.
local function eig3(A)
  local a = { { A[1], A[2], A[3] }, { A[4], A[5], A[6] }, { A[7], A[8], A[9] } }
  local V = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
  for _ = 1, 50 do
    local off = math.abs(a[1][2]) + math.abs(a[1][3]) + math.abs(a[2][3])
    if off < 1e-300 then break end
    for p = 1, 2 do
      for q = p + 1, 3 do
        if a[p][q] ~= 0 then
          local theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
          local t = (theta >= 0 and 1 or -1) / (math.abs(theta) + math.sqrt(theta * theta + 1))
          local c = 1 / math.sqrt(t * t + 1)
          local s = t * c
          for k = 1, 3 do
            local akp, akq = a[k][p], a[k][q]
            a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
          end
          for k = 1, 3 do
            local apk, aqk = a[p][k], a[q][k]
            a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
          end
          for k = 1, 3 do
            local vkp, vkq = V[k][p], V[k][q]
            V[k][p], V[k][q] = c * vkp - s * vkq, s * vkp + c * vkq
          end
        end
      end
    end
  end
  -- A proper rotation: flip the last column if needed.
  local det = V[1][1] * (V[2][2] * V[3][3] - V[2][3] * V[3][2]) - V[1][2] * (V[2][1] * V[3][3] - V[2][3] * V[3][1])
    + V[1][3] * (V[2][1] * V[3][2] - V[2][2] * V[3][1])
  if det < 0 then for k = 1, 3 do V[k][3] = -V[k][3] end end
  return { a[1][1], a[2][2], a[3][3] }, { V[1][1], V[1][2], V[1][3], V[2][1], V[2][2], V[2][3], V[3][1], V[3][2], V[3][3] }
end
M.eig3 = eig3

function M.export(tree, env)
  local t = RX.values(tree, env)
  local kids = {}
  for k = 0, t.n do kids[k] = {} end
  for k = 1, t.n do local p = t.parent[k] + 1; kids[p][#kids[p] + 1] = k end
  local out = {
    string.format('<mujoco model="%s">', tree.name or "mbgen"),
    '  <compiler angle="radian" inertiafromgeom="false" autolimits="true"/>',
    string.format('  <option gravity="%s %s %s" integrator="RK4">', g(t.gravity[1]), g(t.gravity[2]), g(t.gravity[3])),
    '    <flag contact="disable" constraint="disable" passive="disable"/>',
    '  </option>',
    '  <worldbody>',
  }
  local function body(k, depth)
    local ind = string.rep("  ", depth)
    local q = quat(t.rotation[k])
    out[#out + 1] = string.format('%s<body name="b%d" pos="%s %s %s" quat="%s %s %s %s">', ind, k,
      g(t.origin[k][1]), g(t.origin[k][2]), g(t.origin[k][3]), g(q[1]), g(q[2]), g(q[3]), g(q[4]))
    local ev, V = eig3(t.inertia[k])
    local iq = quat(V)
    out[#out + 1] = string.format('%s  <inertial pos="%s %s %s" mass="%s" diaginertia="%s %s %s" quat="%s %s %s %s"/>', ind,
      g(t.com[k][1]), g(t.com[k][2]), g(t.com[k][3]), g(t.mass[k]), g(ev[1]), g(ev[2]), g(ev[3]),
      g(iq[1]), g(iq[2]), g(iq[3]), g(iq[4]))
    out[#out + 1] = string.format('%s  <joint name="%s" type="%s" axis="%s %s %s" pos="0 0 0"/>', ind,
      tree.coords and tree.coords[k] and tree.coords[k].name or ("q" .. k), t.kind[k] == 0 and "hinge" or "slide",
      g(t.axis[k][1]), g(t.axis[k][2]), g(t.axis[k][3]))
    for _, c in ipairs(kids[k]) do body(c, depth + 1) end
    out[#out + 1] = ind .. "</body>"
  end
  for _, c in ipairs(kids[0]) do body(c, 2) end
  out[#out + 1] = "  </worldbody>"
  out[#out + 1] = "</mujoco>"
  return table.concat(out, "\n") .. "\n"
end

return M
