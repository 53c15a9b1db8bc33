-- dynamics/data.lua: the model's numbers that the generated C keeps by name (masses, centres of mass, inertias, spring and damper rates).
local E = require "sym.expr"

local M = {}

-- A C identifier from a model name: other characters become _, and a leading digit gets one.
local function ident(s)
  s = tostring(s):gsub("[^%w_]", "_")
  if s:match("^%d") then s = "_" .. s end
  return s
end

-- The table of a tree: { list = { { member =, value = } ... } in first-use order, by = member -> entry }.
local function table_of(tree)
  local t = tree.data_table
  if not t then
    t = { list = {}, by = {}, cname = tree.name .. "_data" }
    tree.data_table = t
  end
  return t
end

-- v as the leaf `NAME_data.MEMBER` when it is a plain non-zero number; zeros stay literal zeros (they are
-- the structure the simplifier prunes), and nodes (design parameters, expressions) and functions stay as
-- they are. One member per element and field; two elements whose names meet once made C identifiers get
-- MEMBER_2, MEMBER_3 for their other values.
function M.value(tree, member, v)
  if type(v) ~= "number" or v == 0 then return v end
  local t = table_of(tree)
  member = ident(member)
  local e = t.by[member]
  if e and e.value ~= v then
    local k = 2
    while t.by[member .. "_" .. k] and t.by[member .. "_" .. k].value ~= v do k = k + 1 end
    member = member .. "_" .. k
    e = t.by[member]
  end
  if not e then
    e = { member = member, value = v }
    t.by[member] = e
    t.list[#t.list + 1] = e
  end
  return E.data(t.cname .. "." .. member, v)
end

-- A 3-vector or 3x3 matrix of values, members NAME_x, NAME_y, NAME_z or NAME_xx, NAME_xy, ...
local AXES = { "x", "y", "z" }
function M.vector(tree, member, v)
  local out = {}
  for i = 1, 3 do out[i] = M.value(tree, member .. "_" .. AXES[i], v[i]) end
  return out
end

function M.matrix(tree, member, m)
  local out = {}
  for i = 1, 3 do
    out[i] = {}
    for j = 1, 3 do
      -- An inertia is symmetric: the lower triangle reads the upper one's member (a merged fixed joint's
      -- rotated inertia can differ between the two by a rounding).
      local a, b = math.min(i, j), math.max(i, j)
      out[i][j] = M.value(tree, member .. "_" .. AXES[a] .. AXES[b], m[a][b])
    end
  end
  return out
end

-- The entries of the table, in first-use order: what emit/model.lua writes as NAME_data.
function M.entries(tree)
  return tree.data_table and tree.data_table.list or {}
end

return M
