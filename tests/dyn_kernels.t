#!/usr/bin/env lua5.4
-- dyn_kernels.t: the body-frame kernels (M, inverse dynamics, every forward-dynamics form) and the derivative
-- recursion on the new frames against the world-frame implementation they replaced (tests/lib/kinematics_v0.lua with dynamics/rnea.lua and dynamics/aba.lua), on every
-- shipped model's tree, the chain at N = 8 and 24, random trees and the degenerate fixtures, at random states.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local RM = require "random_model"
local EV = require "sym.eval"
local K = require "dynamics.kinematics"
local K0 = require "kinematics_v0"
local R = require "dynamics.rnea"
local NE = require "dynamics.newton_euler"
local LTL = require "dynamics.ltl"
local ABA0 = require "dynamics.aba"
local ABA = require "dynamics.aba_body"
local AP = require "dynamics.applied"
local RD = require "dynamics.rnea_derivatives"

local TOL = 1e-12

-- A 32-bit LCG, so every run draws the same states.
local seed = 12345
local function uniform(lo, hi)
  seed = (1664525 * seed + 1013904223) % 4294967296
  return lo + (hi - lo) * seed / 4294967296
end

local function flatten(M)
  local out = {}
  for i = 1, #M do for j = 1, #M do out[#out + 1] = M[i][j] end end
  return out
end

-- max |a - b| / max(1, max |b|)
local function rel(a, b)
  local err, big = 0, 0
  for i = 1, #b do
    err = math.max(err, math.abs(a[i] - b[i]))
    big = math.max(big, math.abs(b[i]))
  end
  return err / math.max(1, big)
end

local function backward_error(Mv, Q, x)
  local n = #x
  local res, mM, mx, mQ = 0, 0, 0, 0
  for i = 1, n do
    local s = -Q[i]
    for j = 1, n do
      s = s + Mv[(i - 1) * n + j] * x[j]
      mM = math.max(mM, math.abs(Mv[(i - 1) * n + j]))
    end
    res, mx, mQ = math.max(res, math.abs(s)), math.max(mx, math.abs(x[i])), math.max(mQ, math.abs(Q[i]))
  end
  return res / (mM * mx + mQ)
end

local function check(label, tree)
  local n = #tree.bodies
  local syms = K.symbols(tree)
  local kin, kin0 = K.bodies(tree, syms.z), K0.bodies(tree, syms.z)
  local st0 = R.forward(tree, kin0, syms.zd, syms.zdd)
  local _, r0 = R.backward(tree, kin0, st0)
  local IC0 = R.composite_inertias(tree, kin0)
  local M0 = R.mass(tree, kin0, IC0, K0.ancestors(tree))
  -- The analytic Jacobians of the inertial residual on the old kinematics and on the new frames.
  local F0 = R.backward(tree, kin0, st0)
  local dz0, dzd0 = RD.jacobians(tree, kin0, st0, F0, IC0, K0.ancestors(tree))
  local ap0 = AP.build(tree, kin0, R.forward(tree, kin0, syms.zd, nil), syms)
  -- Forward dynamics is checked by its backward error in the old equations, |M0 x - Q0| / (|M0| |x| + |Q0|):
  -- its forward error carries M's condition number (chain N = 24 differs from itself by 2e-12 in world form).
  local st00 = R.forward(tree, kin0, syms.zd, nil)
  local _, b0 = R.backward(tree, kin0, st00)
  local Q0 = AP.generalized(tree, kin0, ap0)
  for k = 1, n do Q0[k] = Q0[k] - b0[k] end

  local M = NE.mass_cheapest(tree, kin)
  local st = R.forward(tree, kin, syms.zd, syms.zdd)
  local dz, dzd = RD.jacobians(tree, kin, st, R.backward(tree, kin, st), R.composite_inertias(tree, kin),
    K.ancestors(tree))
  local ap = AP.build(tree, kin, R.forward(tree, kin, syms.zd, nil), syms)
  local bias = NE.inverse_dynamics(tree, kin, syms.zd, nil, false)
  local Qv = AP.generalized(tree, kin, ap)
  for k = 1, n do Qv[k] = Qv[k] - bias[k] end
  local parent = LTL.parents(tree)
  local forms = {
    { "mass matrix", flatten(M), flatten(M0) },
    { "mass matrix, all body-frame levels", flatten(NE.mass(tree, kin)), flatten(M0) },
    { "inverse dynamics about the centres of mass", NE.inverse_dynamics(tree, kin, syms.zd, syms.zdd, false), r0 },
    { "inverse dynamics about the body origins", NE.inverse_dynamics(tree, kin, syms.zd, syms.zdd, true), r0 },
    { "dr/dz of the analytic recursion", flatten(dz), flatten(dz0) },
    { "dr/dzd of the analytic recursion", flatten(dzd), flatten(dzd0) },
    { "forward dynamics, body-frame ABA", ABA.forward_dynamics(tree, kin, syms.zd, ap), "fd" },
    { "forward dynamics, world ABA on the new kinematics", ABA0.forward_dynamics(tree, kin, syms.zd, ap), "fd" },
    { "forward dynamics, LTDL of M", LTL.solve(LTL.factor(M, parent), parent, Qv), "fd" },
  }
  local M0flat = flatten(M0)
  local worst = {}
  for trial = 1, 3 do
    local env = { t = uniform(0, 1), z = {}, zd = {}, zdd = {}, u = {}, p = {} }
    for k = 1, n do env.z[k], env.zd[k], env.zdd[k] = uniform(-1, 1), uniform(-1, 1), uniform(-1, 1) end
    for k = 1, 64 do env.u[k] = uniform(-1, 1) end
    for _, par in ipairs(tree.parameters) do
      if par.kind == "design" then env.p[par.index + 1] = par.value end
    end
    for i, f in ipairs(forms) do
      local e
      if f[3] == "fd" then
        e = backward_error(EV.eval(M0flat, env), EV.eval(Q0, env), EV.eval(f[2], env))
      else
        e = rel(EV.eval(f[2], env), EV.eval(f[3], env))
      end
      worst[i] = math.max(worst[i] or 0, e)
    end
  end
  for i, f in ipairs(forms) do
    local what = f[3] == "fd" and "solves the world-frame equations (backward error %.1e)" or
      "equals the world-frame implementation (%.1e)"
    tap.ok(worst[i] <= TOL, string.format("%s: %s " .. what, label, f[1], worst[i]))
  end
end

local _, list = H.sh("ls " .. H.root .. "models/*.lua " .. H.root .. "tests/fixtures/degenerate/*.lua")
for path in list:gmatch("[^\n]+") do
  check(path:match("[^/]+/[^/]+$"), H.tree(path))
end
for _, N in ipairs { 8, 24 } do check("chain N=" .. N, H.tree(H.root .. "models/chain.lua", { N = N })) end
local tmp = H.root .. "build/tmp/dyn_kernels"
H.mkdir(tmp)
for s = 1, 4 do
  local path = tmp .. "/random" .. s .. ".lua"
  H.write(path, RM.source("random" .. s, 6 + 2 * s, 500 + s, { prismatic = s % 2 == 0 and 0.3 or 0 }))
  check("random tree " .. s, H.tree(path))
end
tap.done_testing()
