-- simbody_export.lua: writes an mbgen tree as the text description tests/peers/sb_model.cpp builds Simbody from.
--
-- local SX = require "simbody_export"; SX.export(tree) -> text, or nil and why the tree is not mapped.
-- First line: nb gx gy gz; then one line per body: kind parent  origin(3)  rotation(9, row-major)  axis(3)
-- mass  com(3)  Ixx Iyy Izz Ixy Ixz Iyz (about the centre of mass, body axes). Only trees of revolute and
-- prismatic joints with coordinate k on body k are mapped (Simbody's mobilities then follow mbgen's order).
local M = {}

local LINE = "%s %d " .. string.rep("%.17g ", 24) .. "%.17g"

function M.export(tree)
  local L = { string.format("%d %.17g %.17g %.17g", tree.nb, tree.gravity[1], tree.gravity[2], tree.gravity[3]) }
  if tree.nb ~= tree.nz then return nil, "the tree has coordinates that are not joint angles or slides" end
  for i, b in ipairs(tree.bodies) do
    local j, I, R = b.joint, b.inertia, b.joint.rotation
    if b.aux or j.coord ~= i or not (j.kind == "revolute" or j.kind == "prismatic") then
      return nil, "only revolute/prismatic trees with coordinate k on body k are mapped"
    end
    L[#L + 1] = string.format(LINE, j.kind, b.parent,
      j.origin[1], j.origin[2], j.origin[3], R[1][1], R[1][2], R[1][3], R[2][1], R[2][2], R[2][3], R[3][1], R[3][2], R[3][3],
      j.axis[1], j.axis[2], j.axis[3], b.mass, b.com[1], b.com[2], b.com[3], I[1][1], I[2][2], I[3][3], I[1][2], I[1][3], I[2][3])
  end
  return table.concat(L, "\n") .. "\n"
end

return M
