-- ref_export.lua: writes an mbgen tree (generator/README.md) as a C initializer of the oracle's struct ref_tree.
--
-- local R = require "ref_export"            -- with tests/lib/ on package.path
-- R.export(tree, env, name) -> C text:  static const struct ref_tree NAME = { ... };
--     (NAME defaults to "ref_model"; include tests/c/ref_tree.h before it)
-- R.values(tree, env) -> the same data as plain Lua numbers (0-based parents, kinds 0/1, row-major 3x3s)
--
-- Entries may be numbers or sym nodes; nodes are evaluated with require("sym.eval").eval({node}, env)[1],
-- env = { p = { ... } } (1-based arrays, as sym.eval documents). sym.eval is required only when a node is
-- met, so plain-number trees export without the symbolic engine.

local M = {}

local REF_MAX = 128  -- must match tests/c/ref_tree.h

local evaluator

local function is_node(v)
  return type(v) == "table" and v.op ~= nil
end

-- A finite number from a number or a node; `what` names the entry in errors.
local function number(v, env, what)
  local x = v
  if is_node(v) then
    evaluator = evaluator or require("sym.eval")
    x = evaluator.eval({ v }, env or {})[1]
  end
  if type(x) ~= "number" then
    error(string.format("ref_export: %s is a %s, not a number or a sym node", what, type(v)), 2)
  end
  if x ~= x or x == math.huge or x == -math.huge then
    error(string.format("ref_export: %s is not finite (%s)", what, tostring(x)), 2)
  end
  return x
end

local function vec3(v, default, env, what)
  v = v or default
  local out = {}
  for k = 1, 3 do out[k] = number(v[k], env, what .. "[" .. k .. "]") end
  return out
end

-- 3x3 given as rows {{...},{...},{...}} -> row-major flat array of 9.
local function mat3(m, default, env, what)
  m = m or default
  local out = {}
  for r = 1, 3 do
    for c = 1, 3 do out[#out + 1] = number(m[r][c], env, string.format("%s[%d][%d]", what, r, c)) end
  end
  return out
end

local IDENTITY = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
local ZERO3 = { 0, 0, 0 }
local ZERO33 = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }
local KIND = { revolute = 0, prismatic = 1 }

-- The tree's numbers in the oracle's layout. Missing optional fields take the documented defaults
-- (origin 0, rotation identity, axis z) or zero (mass, com and inertia of massless auxiliary bodies).
function M.values(tree, env)
  local bodies = tree.bodies or {}
  local n = #bodies
  if n > REF_MAX then error(string.format("ref_export: %d bodies, the oracle holds %d", n, REF_MAX), 2) end
  local t = { n = n, parent = {}, kind = {}, origin = {}, rotation = {}, axis = {}, mass = {}, com = {},
              inertia = {}, gravity = vec3(tree.gravity, ZERO3, env, "gravity") }
  for k, b in ipairs(bodies) do
    local j = b.joint or {}
    local what = string.format("body %d (%s)", k, tostring(b.name))
    if type(b.parent) ~= "number" or b.parent < 0 or b.parent >= k or b.parent % 1 ~= 0 then
      error(string.format("ref_export: %s: parent %s is not in 0..%d", what, tostring(b.parent), k - 1), 2)
    end
    if j.coord ~= nil and j.coord ~= k then
      error(string.format("ref_export: %s: joint coord %s, expected %d", what, tostring(j.coord), k), 2)
    end
    local kind = KIND[j.kind]
    if not kind then error(string.format("ref_export: %s: joint kind %s", what, tostring(j.kind)), 2) end
    t.parent[k] = b.parent - 1
    t.kind[k] = kind
    t.origin[k] = vec3(j.origin, ZERO3, env, what .. " origin")
    t.rotation[k] = mat3(j.rotation, IDENTITY, env, what .. " rotation")
    t.axis[k] = vec3(j.axis, { 0, 0, 1 }, env, what .. " axis")
    t.mass[k] = number(b.mass or 0, env, what .. " mass")
    t.com[k] = vec3(b.com, ZERO3, env, what .. " com")
    t.inertia[k] = mat3(b.inertia, ZERO33, env, what .. " inertia")
  end
  return t
end

local function g17(x) return string.format("%.17g", x) end
local function int(x) return string.format("%d", x) end

local function list(xs, fmt)
  local out = {}
  for i, x in ipairs(xs) do out[i] = fmt(x) end
  return "{ " .. table.concat(out, ", ") .. " }"
end

-- Designated initializers: arrays stay zero past n, and the text does not depend on REF_MAX.
function M.export(tree, env, name)
  name = name or "ref_model"
  local t = M.values(tree, env)
  local nums = function(v) return list(v, g17) end
  local function field(key, fmt)
    if t.n == 0 then return string.format("    .%s = { 0 },\n", key) end
    return string.format("    .%s = %s,\n", key, list(t[key], fmt))
  end
  return table.concat({
    string.format("/* %s: exported by tests/lib/ref_export.lua from tree \"%s\" */\n", name, tostring(tree.name)),
    string.format("static const struct ref_tree %s = {\n", name),
    string.format("    .n = %d,\n", t.n),
    field("parent", int),
    field("kind", int),
    field("origin", nums),
    field("rotation", nums),
    field("axis", nums),
    field("mass", g17),
    field("com", nums),
    field("inertia", nums),
    string.format("    .gravity = %s,\n", nums(t.gravity)),
    "};\n",
  })
end

return M
