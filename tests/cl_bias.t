#!/usr/bin/env lua5.4
-- cl_bias.t: the constraint bias and the sensitivity terms built from kinematic jets (constraint_functions.lua)
-- equal their node-by-node definitions, d/dt (Phi_z zd + Phi_t) at zdd = 0, Phi_z zd + Phi_t, Phi_z zdd and
-- Phi_z' w, at random states of every closed-loop model small enough for the node-by-node form.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local E = require "sym.expr"
local D = require "sym.diff"
local L = require "sym.eval"
local TF = require "dynamics.tree_functions"
local CF = require "dynamics.constraint_functions"

local rng = 12345
local function rnd()   -- uniform in [-1, 1), a small LCG so the states do not depend on Lua's math.random
  rng = (rng * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff
  return (rng >> 11) / (1 << 52) * 2 - 1
end

for _, name in ipairs { "fourbar_planar", "slider_crank", "fivebar", "quick_return", "fourbar_spatial" } do
  local tree = H.tree(H.root .. "models/" .. name .. ".lua")
  local built = TF.build(tree)
  local fns = CF.build(tree, built)
  local by = {}
  for _, f in ipairs(fns) do by[f.name] = f end
  local syms, n, nc = built.symbols, #tree.bodies, by.constraints.rows
  local phi = by.constraints.exprs
  local Jz = D.jacobian(phi, syms.z)
  local vel, acc, bias, tw = {}, {}, {}, {}
  for i = 1, nc do
    local tv, ta = { D.derivative(phi[i], syms.t) }, {}
    for j = 1, n do
      tv[#tv + 1] = Jz[i][j] * syms.zd[j]
      ta[#ta + 1] = Jz[i][j] * syms.zdd[j]
    end
    vel[i], acc[i] = E.sum(tv), E.sum(ta)
  end
  local Jg = D.jacobian(vel, syms.z)
  for i = 1, nc do
    local terms = { D.derivative(vel[i], syms.t) }
    for j = 1, n do terms[#terms + 1] = Jg[i][j] * syms.zd[j] end
    bias[i] = E.sum(terms)
  end
  for c = 1, n do
    local terms = {}
    for i = 1, nc do terms[#terms + 1] = Jz[i][c] * E.symbol("w", i - 1) end
    tw[c] = E.sum(terms)
  end
  local worst = { bias = 0, velocity = 0, acceleration = 0, reaction = 0 }
  for _ = 1, 5 do
    local env = { t = rnd(), z = {}, zd = {}, zdd = {}, w = {}, p = {}, u = {} }
    for j = 1, n do env.z[j], env.zd[j], env.zdd[j] = rnd(), 2 * rnd(), 2 * rnd() end
    for i = 1, nc do env.w[i] = rnd() end
    for i = 1, #built.psyms do env.p[i] = 1 + 0.1 * rnd() end
    for i = 1, #(tree.inputs or {}) do env.u[i] = rnd() end
    local function cmp(key, a, b)
      local va, vb = L.eval(a, env), L.eval(b, env)
      local scale = 1
      for i = 1, #vb do scale = math.max(scale, math.abs(vb[i])) end
      for i = 1, #vb do worst[key] = math.max(worst[key], math.abs(va[i] - vb[i]) / scale) end
    end
    cmp("bias", by.constraint_bias.exprs, bias)
    cmp("velocity", fns.velocity, vel)
    cmp("acceleration", fns.acceleration, acc)
    cmp("reaction", fns.reaction, tw)
  end
  for _, key in ipairs { "bias", "velocity", "acceleration", "reaction" } do
    tap.ok(worst[key] < 1e-12, string.format("%s: %s from jets equals the node-by-node form (worst %.1e)", name, key, worst[key]))
  end
end
tap.done_testing()
