-- urdf_principal.lua: rewrites a URDF robot for MuJoCo with every inertia given in its principal axes, unfused.
-- MuJoCo diagonalizes each inertia tensor with an iterative eigensolver that stops near 1e-8 relative (panda's
-- link2: Ixx 0.0079619995 for the file's 0.007962), and again after fusing fixed links. Handing it diagonal
-- tensors in rotated inertial frames (found to rounding by mjcf_export's Jacobi sweeps) and keeping fixed links as
-- bodies of their own (<compiler fusestatic="false"/>) leaves its compiler nothing to approximate, so what the
-- peer comparison sees at 1e-10 is the dynamics. Joints keep the URDF's text, under the names the
-- importer gives them (mbgen's coordinate names), so the comparison maps coordinates by name.
local vec3 = require "model.vec3"
local mjcf = require "mjcf_export"

local M = {}

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
      local d, V = mjcf.eig3({ I[1][1], I[1][2], I[1][3], I[2][1], I[2][2], I[2][3], I[3][1], I[3][2], I[3][3] })
      -- I = Q diag(d) Q' with Q a proper rotation, row-major in V
      local r, p, y = rpy_of({ { V[1], V[2], V[3] }, { V[4], V[5], V[6] }, { V[7], V[8], V[9] } })
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
