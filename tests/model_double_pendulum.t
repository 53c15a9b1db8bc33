#!/usr/bin/env lua5.4
-- model_double_pendulum.t: the roadmap of models/double_pendulum.lua, field by field, against the data of
-- seeds/004.md §8.2 (L1 = L2 = 1 m, M_P = M_Q = 1 kg, g = 9.81 along -y, axes z, theta1(0) = pi/6).
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"

local p = io.popen("cd '" .. root .. "' && lua5.4 generator/mbgen info models/double_pendulum.lua")
local text = p:read("a")
local _, _, code = p:close()
tap.is(code, 0, "mbgen info exits 0")

-- The rows of the markdown table under `## title`, as lists of cells.
local function table_rows(title)
  local section = text:match("\n## " .. title .. "\n(.-)\n## ") or text:match("\n## " .. title .. "\n(.*)$")
  local rows = {}
  if not section then return rows end
  for line in section:gmatch("[^\n]+") do
    if line:match("^| ") and not line:match("^| %-%-%-") then
      local cells = {}
      for c in (line:sub(3, -3) .. " | "):gmatch("(.-) | ") do cells[#cells + 1] = c end
      rows[#rows + 1] = cells
    end
  end
  table.remove(rows, 1) -- header
  return rows
end
-- "(0, -1 (-p[0]), 0)" -> { 0, -1, 0 }: the numeric values, whatever follows them.
local function numbers(cell)
  local out = {}
  for part in (cell:gsub("^%(", ""):gsub("%)$", "") .. ","):gmatch("%s*(.-),") do
    out[#out + 1] = tonumber(part:match("^(%S+)"))
  end
  return out
end

local L1, L2, mP, mQ, g = 1.0, 1.0, 1.0, 1.0, 9.81

local sizes = table_rows("Sizes")[1]
tap.is(#sizes, 6, "sizes row has six cells")
tap.is(tonumber(sizes[1]), 2, "NZ = 2 (two revolute joints)")
tap.is(tonumber(sizes[2]), 0, "NC = 0 (open chain)")
tap.is(tonumber(sizes[3]), 4, "NP = 4 (L1, L2, mP, mQ are design names)")
tap.is(tonumber(sizes[4]), 1, "NU = 1 (tau)")
tap.is(tonumber(sizes[5]), 2, "NB = 2")
tap.is(tonumber(sizes[6]), 2, "two points, P and Q")
local grav = numbers(text:match("Gravity: (%b())"))
tap.is(grav[1], 0, "gravity x")
tap.is(grav[2], -g, "gravity y = -9.81")
tap.is(grav[3], 0, "gravity z")

local bodies = table_rows("Bodies")
tap.is(#bodies, 2, "two bodies")
local want_bodies = {
  { "1", "upper", "ground", "shoulder", "revolute", mP, { 0, -L1, 0 } },
  { "2", "lower", "upper", "elbow", "revolute", mQ, { 0, -L2, 0 } },
}
for i, w in ipairs(want_bodies) do
  local r = bodies[i] or {}
  tap.is(r[1], w[1], "body " .. i .. ": index")
  tap.is(r[2], w[2], "body " .. i .. ": name")
  tap.is(r[3], w[3], "body " .. i .. ": parent")
  tap.is(r[4], w[4], "body " .. i .. ": joint")
  tap.is(r[5], w[5], "body " .. i .. ": joint kind")
  tap.is(tonumber((r[6] or ""):match("^(%S+)")), w[6], "body " .. i .. ": mass")
  local com = numbers(r[7] or "()")
  for a = 1, 3 do tap.is(com[a], w[7][a], "body " .. i .. ": com " .. a) end
end

local coords = table_rows("Coordinates")
tap.is(#coords, 2, "two coordinates")
local want_coords = { { "1", "shoulder", "shoulder", "revolute", math.pi / 6 }, { "2", "elbow", "elbow", "revolute", 0 } }
for i, w in ipairs(want_coords) do
  local r = coords[i] or {}
  tap.is(r[1], w[1], "coordinate " .. i .. ": index")
  tap.is(r[2], w[2], "coordinate " .. i .. ": name")
  tap.is(r[3], w[3], "coordinate " .. i .. ": joint")
  tap.is(r[4], w[4], "coordinate " .. i .. ": axis kind")
  local axis = numbers(r[5] or "()")
  tap.ok(axis[1] == 0 and axis[2] == 0 and axis[3] == 1, "coordinate " .. i .. ": axis z")
  tap.is_double(tonumber(r[6]), w[5], 1e-9, 0, "coordinate " .. i .. ": initial value")
  tap.is(tonumber(r[7]), 0, "coordinate " .. i .. ": initial velocity 0")
end

tap.like(text, "\n## Constraints\n\nNone: an open tree%.\n", "no constraints")

local params = table_rows("Parameters")
local want_params = { { "L1", L1, 1 }, { "L2", L2, 2 }, { "mP", mP, 3 }, { "mQ", mQ, 4 } }
tap.is(#params, 4, "four parameters")
for i, w in ipairs(want_params) do
  local r = params[i] or {}
  tap.is(r[1], w[1], "parameter " .. i .. ": name (p is sorted by name)")
  tap.is(r[2], "design", "parameter " .. i .. ": kind design")
  tap.is(tonumber(r[3]), w[2], "parameter " .. i .. ": value")
  tap.is(tonumber(r[4]), w[3], "parameter " .. i .. ": p index")
end

local inputs = table_rows("Inputs")
tap.is(#inputs, 1, "one input")
tap.is(inputs[1] and inputs[1][2], "tau", "input 1 is tau")

local points = table_rows("Points")
local want_points = { { "P", "upper", { 0, -L1, 0 } }, { "Q", "lower", { 0, -L2, 0 } } }
tap.is(#points, 2, "two points")
for i, w in ipairs(want_points) do
  local r = points[i] or {}
  tap.is(r[2], w[1], "point " .. i .. ": name")
  tap.is(r[3], w[2], "point " .. i .. ": body")
  local at = numbers(r[4] or "()")
  for a = 1, 3 do tap.is(at[a], w[3][a], "point " .. i .. ": at " .. a) end
end
tap.like(text, "\n%- t_end = 20\n", "simulate: 20 s")
tap.like(text, "\n%- step = 0%.001\n", "simulate: h = 1e-3")
tap.like(text, "\n%- integrator = rk4\n", "simulate: rk4")

-- The tree itself: design names are p symbols in sorted order, inputs u symbols.
local E = require "sym.expr"
local model = require("model.load").load(root .. "models/double_pendulum.lua")
local tree = require("model.topology").build(model)
tap.ok(tree.bodies[1].mass == E.symbol("p", 2, "mP"), "upper's mass is p[2] (mP)")
tap.ok(tree.bodies[2].mass == E.symbol("p", 3, "mQ"), "lower's mass is p[3] (mQ)")
tap.ok(tree.bodies[2].joint.origin[2] == -E.symbol("p", 0, "L1"), "elbow origin y is -p[0] (-L1)")
tap.ok(tree.torques[1].value == E.symbol("u", 0, "tau") and tree.torques[1].coord == 1, "motor torque: u[0] on coordinate 1")
tap.is(#tree.objectives, 1, "one objective")
tap.ok(type(tree.objectives[1].terminal) == "function", "objective kept as a function for the formulations")

tap.done_testing()
