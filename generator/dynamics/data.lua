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
    t = { list = {}, by = {}, by_text = {}, cname = tree.name .. "_data" }
    tree.data_table = t
  end
  return t
end

-- The member of a plain non-zero number v named `member`: one per element and field; two elements whose names
-- meet once made C identifiers get MEMBER_2, MEMBER_3 for their other values.
local function member_of(t, member, v)
  member = ident(member)
  local e = t.by[member]
  if e and e.value ~= v then
    local k = 2
    while t.by[member .. "_" .. k] and t.by[member .. "_" .. k].value ~= v do k = k + 1 end
    member = member .. "_" .. k
    e = t.by[member]
  end
  if not e then
    e = { member = member, value = v, node = E.data(t.cname .. "." .. member, v) }
    t.by[member] = e
    t.by_text[e.node.text] = e
  end
  return e
end

-- Enters e in the table's list at its first use: the order the generated file declares the members in.
local function use(t, e)
  if not e.listed then
    e.listed = true
    t.list[#t.list + 1] = e
  end
  return e.node
end

-- v as the leaf `NAME_data.MEMBER` when it is a plain non-zero number; zeros stay literal zeros (they are
-- the structure the simplifier prunes), a member that M.bind made is entered in the table, and other nodes
-- (design parameters, expressions) and functions stay as they are.
function M.value(tree, member, v)
  local t = table_of(tree)
  if E.is_node(v) and v.op == "data" and t.by_text[v.text] then return use(t, t.by_text[v.text]) end
  if type(v) ~= "number" or v == 0 then return v end
  return use(t, member_of(t, member, v))
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

-- The fields of the tree whose numbers reach the generated code only as members of the table, so that another
-- value of one changes that member's line and nothing else (a body's mass and inertia, the rates, rest and free
-- lengths of springs and joint springs, a rod's mass): M.bind makes their non-zero numbers the table's nodes
-- before the dynamics reads them, and the build cache (run/build.lua) takes a model whose only edits are
-- there for one whose code it has, with new values in the table. The centre of mass is not one: the body
-- frames are chosen from it (dynamics/frames.lua). Calls f(holder, key, member) in a fixed order.
local AXES2 = { { "xx", "xy", "xz" }, { "xy", "yy", "yz" }, { "xz", "yz", "zz" } }
local function soft_fields(tree, f)
  for _, b in ipairs(tree.bodies or {}) do
    f(b, "mass", b.name .. "_mass")
    if type(b.inertia) == "table" then
      for i = 1, 3 do
        for j = i, 3 do
          if type(b.inertia[i]) == "table" then f(b.inertia[i], j, b.name .. "_I_" .. AXES2[i][j]) end
        end
      end
    end
  end
  for _, e in ipairs(tree.joint_springs or {}) do
    for _, key in ipairs { "stiffness", "rest", "damping" } do f(e, key, e.name .. "_" .. key) end
  end
  for _, e in ipairs(tree.springs or {}) do
    f(e, "length", e.name .. "_length")
    for _, key in ipairs { "stiffness", "damping" } do f(e, key, e.name .. "_" .. key) end
  end
  for _, c in ipairs(tree.constraints or {}) do
    if c.kind == "rod" then f(c, "mass", c.name .. "_mass") end
  end
end

M.soft_fields = soft_fields

-- Makes every non-zero number of those fields its member's node (once: a bound tree is left as it is); the
-- lower triangle of an inertia reads the upper one's member. Returns { member = value } of the bound ones.
function M.bind(tree)
  local t = table_of(tree)
  if not t.bound then
    t.bound = {}
    -- Each body's own symmetric copy of its inertia (from the upper triangle, which D.matrix reads): a table given
    -- once and used by two bodies (both wheels) is bound for each under its own name.
    for _, b in ipairs(tree.bodies or {}) do
      local I = b.inertia
      if type(I) == "table" and type(I[1]) == "table" and type(I[2]) == "table" and type(I[3]) == "table" then
        b.inertia = { { I[1][1], I[1][2], I[1][3] }, { I[1][2], I[2][2], I[2][3] }, { I[1][3], I[2][3], I[3][3] } }
      end
    end
    soft_fields(tree, function(holder, key, member)
      local v = holder[key]
      if type(v) == "number" and v ~= 0 and v == v and v ~= math.huge and v ~= -math.huge then
        local e = member_of(t, member, v)
        holder[key] = e.node
        t.bound[e.member] = v
      end
    end)
    for _, b in ipairs(tree.bodies or {}) do
      local I = b.inertia
      if type(I) == "table" and type(I[1]) == "table" then
        I[2][1], I[3][1], I[3][2] = I[1][2], I[1][3], I[2][3]
      end
    end
  end
  return t.bound
end

-- The entries of the table, in first-use order: what emit/model.lua writes as NAME_data.
function M.entries(tree)
  return tree.data_table and tree.data_table.list or {}
end

return M
