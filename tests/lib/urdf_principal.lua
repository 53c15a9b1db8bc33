-- urdf_principal.lua: rewrites a URDF robot for MuJoCo with every inertia given in its principal axes, unfused.
-- MuJoCo diagonalizes each inertia tensor with an iterative eigensolver that stops near 1e-8 relative (panda's
-- link2: Ixx 0.0079619995 for the file's 0.007962), and again after fusing fixed links. Handing it diagonal
-- tensors in rotated inertial frames (found here to rounding by Jacobi sweeps) and keeping fixed links as
-- bodies of their own (<compiler fusestatic="false"/>) leaves its compiler nothing to approximate, so what the
-- peer comparison sees at 1e-10 is the dynamics. Joints keep the URDF's text, under the names the
-- importer gives them (mbgen's coordinate names), so the comparison maps coordinates by name.
local vec3 = require "model.vec3"

local M = {}

-- Q, d with A = Q diag(d) Q', det Q = +1: cyclic Jacobi rotations until the off-diagonal is exactly zero or
-- below the rounding of the diagonal.
function M.eig3(A)
  local a = { { A[1][1], A[1][2], A[1][3] }, { A[2][1], A[2][2], A[2][3] }, { A[3][1], A[3][2], A[3][3] } }
  local Q = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
  for _ = 1, 60 do
    local off = math.abs(a[1][2]) + math.abs(a[1][3]) + math.abs(a[2][3])
    local diag = math.abs(a[1][1]) + math.abs(a[2][2]) + math.abs(a[3][3])
    if off == 0 or off < 1e-18 * diag then break end
    for _, pq in ipairs { { 1, 2 }, { 1, 3 }, { 2, 3 } } do
      local p, q = pq[1], pq[2]
      if a[p][q] ~= 0 then
        local theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
        local t = (theta >= 0 and 1 or -1) / (math.abs(theta) + math.sqrt(theta * theta + 1))
        local c = 1 / math.sqrt(t * t + 1)
        local s = t * c
        for k = 1, 3 do   -- a <- J' a J with J the rotation in the (p, q) plane
          local akp, akq = a[k][p], a[k][q]
          a[k][p], a[k][q] = c * akp - s * akq, s * akp + c * akq
        end
        for k = 1, 3 do
          local apk, aqk = a[p][k], a[q][k]
          a[p][k], a[q][k] = c * apk - s * aqk, s * apk + c * aqk
        end
        for k = 1, 3 do
          local qkp, qkq = Q[k][p], Q[k][q]
          Q[k][p], Q[k][q] = c * qkp - s * qkq, s * qkp + c * qkq
        end
      end
    end
  end
  return Q, { a[1][1], a[2][2], a[3][3] }
end

-- URDF's rpy of a rotation R = Rz(y) Ry(p) Rx(r).
local function rpy_of(R)
  return math.atan(R[3][2], R[3][3]), math.atan(-R[3][1], math.sqrt(R[1][1] ^ 2 + R[2][1] ^ 2)), math.atan(R[2][1], R[1][1])
end

local function g(x) return string.format("%.17g", x) end

-- rewrite(robot) -> URDF text (robot: urdf/robot.lua's result). opts.floating_base adds a world link and a
-- floating joint "root_joint" to the root, as MuJoCo needs for a free base.
function M.rewrite(robot, opts)
  opts = opts or {}
  local out = { string.format('<robot name="%s">', robot.name), '  <mujoco><compiler fusestatic="false"/></mujoco>' }
  for _, l in ipairs(robot.links) do
    if not l.has_inertial or (robot.root_is_world and l == robot.root) then
      out[#out + 1] = string.format('  <link name="%s"/>', l.name)
    else
      local i = l.inertia
      local R = vec3.rpy(l.rpy[1], l.rpy[2], l.rpy[3])
      local I = vec3.matmul(vec3.matmul(R, { { i.ixx, i.ixy, i.ixz }, { i.ixy, i.iyy, i.iyz }, { i.ixz, i.iyz, i.izz } }),
        vec3.transpose(R))
      local Q, d = M.eig3(I)
      if vec3.dot(vec3.cross({ Q[1][1], Q[2][1], Q[3][1] }, { Q[1][2], Q[2][2], Q[3][2] }), { Q[1][3], Q[2][3], Q[3][3] }) < 0 then
        for k = 1, 3 do Q[k][3] = -Q[k][3] end
      end
      local r, p, y = rpy_of(Q)
      out[#out + 1] = string.format('  <link name="%s"><inertial><origin xyz="%s" rpy="%s %s %s"/><mass value="%s"/>' ..
        '<inertia ixx="%s" iyy="%s" izz="%s" ixy="0" ixz="0" iyz="0"/></inertial></link>', l.name,
        table.concat(l.com_text, " "), g(r), g(p), g(y), l.mass_text, g(d[1]), g(d[2]), g(d[3]))
    end
  end
  if opts.floating_base then
    out[#out + 1] = '  <link name="world"/>'
    out[#out + 1] = string.format('  <joint name="root_joint" type="floating"><parent link="world"/><child link="%s"/></joint>',
      robot.root.name)
  end
  for _, j in ipairs(robot.joints) do
    local extra = ""
    if j.damping then extra = string.format('<dynamics damping="%s"/>', j.damping_text) end
    out[#out + 1] = string.format('  <joint name="%s" type="%s"><parent link="%s"/><child link="%s"/>' ..
      '<origin xyz="%s" rpy="%s"/><axis xyz="%s"/>%s</joint>', j.id, j.type, j.parent, j.child,
      table.concat(j.xyz_text, " "), table.concat(j.rpy_text, " "), table.concat(j.axis_text, " "), extra)
  end
  out[#out + 1] = "</robot>"
  return table.concat(out, "\n") .. "\n"
end

return M
