-- pinocchio_export.lua: writes an mbgen tree as C++ that builds the same pinocchio::Model (Pinocchio 3.x API).
--
-- local PX = require "pinocchio_export"; PX.export(tree, env) -> C++ text defining
--     void pin_build(pinocchio::Model &m);
-- or nil and why the tree is not mapped. Body k becomes Pinocchio joint k (0 = universe = ground) carrying
-- velocity index k - 1, so coordinates map 1:1. The numbers are those of ref_export.values (the textbook
-- oracle's), so Pinocchio, the oracle and the generated code are built from one reading of the tree.
-- A joint along a positive coordinate axis becomes Pinocchio's specialised JointModelRX..PZ, as its URDF
-- parser makes it; any other axis JointModelRevoluteUnaligned / JointModelPrismaticUnaligned.
local RX = require "ref_export"

local M = {}

local function g(x) return string.format("%.17g", x) end
local function v3(v) return string.format("Eigen::Vector3d(%s, %s, %s)", g(v[1]), g(v[2]), g(v[3])) end
local function m3(a)   -- a row-major 9-array as an Eigen expression (comma initializer is row by row)
  local t = {}
  for i = 1, 9 do t[i] = g(a[i]) end
  return "(Eigen::Matrix3d() << " .. table.concat(t, ", ") .. ").finished()"
end

local ALIGNED = { "X", "Y", "Z" }
local function joint_model(kind, axis)
  for i = 1, 3 do
    local e = { 0, 0, 0 }
    e[i] = 1
    if axis[1] == e[1] and axis[2] == e[2] and axis[3] == e[3] then
      return (kind == 0 and "JointModelR" or "JointModelP") .. ALIGNED[i] .. "()"
    end
  end
  return (kind == 0 and "JointModelRevoluteUnaligned(" or "JointModelPrismaticUnaligned(") .. v3(axis) .. ")"
end

-- Pinocchio needs its joints depth-first (a parent before its children, every subtree contiguous): in any
-- other order crba and the derivatives are silently wrong. topology.lua numbers the tree so; checked here:
-- with parents before children (ref_export checks that), every subtree must fill the block of indices from
-- its root to its largest descendant.
local function depth_first(t)
  local last = {}   -- last[k]: the largest index in the subtree of k (0-based parents, -1 = ground)
  for k = t.n, 1, -1 do
    last[k] = math.max(last[k] or k, k)
    local p = t.parent[k] + 1
    if p > 0 then last[p] = math.max(last[p] or p, last[k]) end
  end
  for k = 1, t.n do
    for j = k + 1, last[k] do
      local a = j
      while a > k do a = t.parent[a] + 1 end
      if a ~= k then return false end   -- j inside k's index block but not k's descendant
    end
  end
  return true
end

function M.export(tree, env)
  local ok, t = pcall(RX.values, tree, env or { p = {} })
  if not ok then return nil, tostring(t) end
  if t.n ~= tree.nz then return nil, "the tree has coordinates that are not joint angles or slides" end
  if not depth_first(t) then return nil, "the bodies are not numbered depth-first" end
  local L = {
    string.format("// pin_model.cpp: exported by tests/lib/pinocchio_export.lua from tree \"%s\" (%d bodies)", tostring(tree.name), t.n),
    "#include <pinocchio/multibody/model.hpp>",
    "",
    "void pin_build(pinocchio::Model &m)",
    "{",
    "    using namespace pinocchio;",
    "    m.gravity.linear(" .. v3(t.gravity) .. ");",
    "    m.gravity.angular().setZero();",
  }
  for k = 1, t.n do
    local b = tree.bodies[k]
    L[#L + 1] = string.format("    // body %d \"%s\" <- %s \"%s\"", k, b.name, b.joint.kind, b.joint.name)
    L[#L + 1] = string.format("    m.addJoint(%d, %s, SE3(%s, %s), \"%s\");", t.parent[k] + 1, joint_model(t.kind[k], t.axis[k]),
      m3(t.rotation[k]), v3(t.origin[k]), b.name)
    L[#L + 1] = string.format("    m.appendBodyToJoint(%d, Inertia(%s, %s, %s), SE3::Identity());", k, g(t.mass[k]), v3(t.com[k]),
      m3(t.inertia[k]))
  end
  L[#L + 1] = "}"
  return table.concat(L, "\n") .. "\n"
end

return M
