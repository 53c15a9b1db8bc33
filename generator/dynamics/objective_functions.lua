-- dynamics/objective_functions.lua: the integrand and terminal term of every objective, with their partials.
local E = require "sym.expr"
local D = require "sym.diff"
local C = require "sym.emit_c"
local AP = require "dynamics.applied"
local errors = require "model.errors"

local M = {}

local function ops(list)
  local o = C.count(list)
  return o.add + o.mul + o.div + o.call
end

-- The state `s` objectives see: z, zd, zdd, u by name and every named point with its position,
-- velocity and acceleration. The acceleration is the time derivative of the velocity expression
-- (chain rule through z and zd), so it is exact and shares the DAG of the velocity.
local function state(tree, built)
  local syms, kin, st = built.symbols, built.kin, built.state
  local n = #tree.bodies
  -- d/dt along (zd, zdd), the cheaper counted of one tangent sweep of the velocity's DAG and a derivative
  -- per coordinate (which folds more where few coordinates reach the point).
  local along = {}
  for j = 1, n do along[syms.z[j]], along[syms.zd[j]] = syms.zd[j], syms.zdd[j] end
  local function acc(pt, pos)
    local vel = AP.point_velocity(st, pt.body, pos)
    local per = {}
    for c = 1, 3 do
      local terms = {}
      local vc = E.lift(vel[c])
      for j = 1, n do
        terms[#terms + 1] = D.derivative(vc, syms.z[j]) * syms.zd[j]
        terms[#terms + 1] = D.derivative(vc, syms.zd[j]) * syms.zdd[j]
      end
      per[c] = E.sum(terms)
    end
    local swept = D.tangents(vel, { along })[1]
    return ops(swept) < ops(per) and swept or per
  end
  local s = AP.state(tree, kin, st, syms, acc)
  for _, pt in ipairs(tree.points or {}) do
    local e = s.point[pt.name]
    e.pos = { E.lift(e.pos[1]), E.lift(e.pos[2]), E.lift(e.pos[3]) }
  end
  return s
end

-- One piece (integrand or terminal) traced and differentiated: { g, g_z (n), g_zd (n), g_zdd (n), g_p (np) }.
local function piece(tree, built, o, fn, args, what)
  local ok, res = pcall(fn, table.unpack(args))
  if not ok then
    errors.raise(tree.file, o.line, string.format('objective "%s"', o.name),
      string.format('field "%s": %s', what, tostring(type(res) == "table" and res.message or res)))
  end
  if type(res) ~= "number" and not E.is_node(res) then
    errors.raise(tree.file, o.line, string.format('objective "%s"', o.name),
      string.format('field "%s" must return a number (got %s)', what, type(res)))
  end
  local g = E.lift(res)
  local syms = built.symbols
  local xs = {}
  for _, list in ipairs { syms.z, syms.zd, syms.zdd, built.psyms } do
    for _, x in ipairs(list) do xs[#xs + 1] = x end
  end
  -- The 3n + np partials by the cheaper, counted, of a derivative per symbol (few symbols reach g, or each
  -- reaches a small part of it) and one reverse sweep (O(size of g's DAG) for all: a chain's tip velocity
  -- reads every joint, where the derivatives per symbol cost that size n times over).
  local forward, reverse = { g }, { g }
  for _, x in ipairs(xs) do forward[#forward + 1] = D.derivative(g, x) end
  for _, d in ipairs(D.gradient(g, xs)) do reverse[#reverse + 1] = d end
  return ops(reverse) < ops(forward) and reverse or forward
end

-- Returns the generated functions (`objective_NAME_integrand`, `objective_NAME_terminal`, each
-- 1 + 3 nz + np values) and the list { name, integrand = fname|nil, terminal = fname|nil }.
function M.build(tree, built)
  local fns, list = {}, {}
  local objs = tree.objectives or {}
  if #objs == 0 then return fns, list end
  local s = state(tree, built)
  local n, np = #tree.bodies, #built.psyms
  for _, o in ipairs(objs) do
    local entry = { name = o.name }
    if o.integrand then
      local f = { name = "objective_" .. o.name .. "_integrand", rows = 1 + 3 * n + np, cols = 1,
                  exprs = piece(tree, built, o, o.integrand, { built.symbols.t, s }, "integrand") }
      fns[#fns + 1] = f
      entry.integrand = f.name
    end
    if o.terminal then
      local f = { name = "objective_" .. o.name .. "_terminal", rows = 1 + 3 * n + np, cols = 1,
                  exprs = piece(tree, built, o, o.terminal, { s }, "terminal") }
      fns[#fns + 1] = f
      entry.terminal = f.name
    end
    list[#list + 1] = entry
  end
  return fns, list
end

return M
