#!/usr/bin/env lua5.4
-- veh_coach.t: the 16-DOF coach of seeds/003.md §3.3 (models/coach.lua): mass, degrees of freedom, static loads, ride height, straight run, lane change.
-- `mbgen check models/coach.lua` runs in tests/dyn_check.t with every other model.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local D = require "sym.diff"
local L = require "sym.eval"
local K = require "dynamics.kinematics"
local R = require "dynamics.rnea"
local CF = require "dynamics.constraint_functions"

local MODEL = "models/coach.lua"
local G, M_TOTAL, V0 = 9.81, 17048, 50 / 3.6

-- Rank by Gaussian elimination with full pivoting (as tests/cl_grid_dof.t).
local function rank(A, rows, cols, tol)
  local big = 0
  for i = 1, rows do for j = 1, cols do big = math.max(big, math.abs(A[i][j])) end end
  local r = 0
  for _ = 1, math.min(rows, cols) do
    local pi, pj, pv = 0, 0, 0
    for i = r + 1, rows do
      for j = r + 1, cols do
        if math.abs(A[i][j]) > pv then pi, pj, pv = i, j, math.abs(A[i][j]) end
      end
    end
    if pv <= tol * big then break end
    r = r + 1
    A[r], A[pi] = A[pi], A[r]
    for i = 1, rows do A[i][r], A[i][pj] = A[i][pj], A[i][r] end
    for i = r + 1, rows do
      local f = A[i][r] / A[r][r]
      if f ~= 0 then for j = r, cols do A[i][j] = A[i][j] - f * A[r][j] end end
    end
  end
  return r
end

-- 1. Mass: the seed's total loaded mass, summed over the bodies of the tree.
local tree = H.tree(H.root .. MODEL)
local mass = 0
for _, b in ipairs(tree.bodies) do mass = mass + (b.mass or 0) end
tap.is_double(mass, M_TOTAL, 1e-12, 0, string.format("total mass %.6f kg = 17,048 kg (seeds/003.md §3.3)", mass))

-- 2. Degrees of freedom: n - rank(Phi_z) at the initial configuration. The seed counts the guided steering
-- coordinate as a degree of freedom, so its drive row (steer - delta(t) = 0) is left out of the rank: 16. With
-- the drive row, the free motion has 15 (what `mbgen run` reports).
do
  local syms = K.symbols(tree)
  local kin = K.bodies(tree, syms.z)
  local built = { symbols = syms, kin = kin, state = R.forward(tree, kin, syms.zd, nil) }
  local phi = CF.equations(tree, built)
  local n = #tree.bodies
  local drive_rows, row = {}, 0
  for _, c in ipairs(tree.constraints) do
    for _ = 1, c.equations do
      row = row + 1
      if c.kind == "drive" then drive_rows[row] = true end
    end
  end
  local Jz = D.jacobian(phi, syms.z)
  local env = { t = 0, z = {}, zd = {}, p = {} }
  for k, c in ipairs(tree.coords) do env.z[k], env.zd[k] = c.initial or 0, 0 end
  for _, p in ipairs(tree.parameters) do if p.kind == "design" then env.p[p.index + 1] = p.value end end
  local function matrix(skip)
    local A = {}
    for i = 1, #phi do
      if not (skip and drive_rows[i]) then
        local r = {}
        for j = 1, n do r[j] = L.eval(Jz[i][j], env) end
        A[#A + 1] = r
      end
    end
    return A
  end
  local res = 0
  for _, v in ipairs(L.eval(phi, env)) do res = math.max(res, math.abs(v)) end
  tap.ok(res < 1e-12, string.format("the initial configuration is assembled (max |Phi| = %.1e)", res))
  local A = matrix(true)
  local dof = n - rank(A, #A, n, 1e-10)
  tap.is(dof, 16, string.format("DOF = %d coordinates - rank of the %d tie-rod rows = 16, steering counted", n, #A))
  A = matrix(false)
  tap.is(n - rank(A, #A, n, 1e-10), 15, "with the steering drive row: 15 free degrees of freedom")
end

-- Runs the model; returns ok, output.
local function run(args)
  return H.sh(string.format("cd %s && lua5.4 generator/mbgen run %s %s", H.root, MODEL, args))
end
local function final(out, name)
  local z, zd = out:match("\n%s*" .. name:gsub("%.", "%%.") .. "%s+z =%s+(%S+)%s+zd =%s+(%S+)")
  return tonumber(z), tonumber(zd)
end

-- 3. It runs: a short piece of the manoeuvre, with the constraints held.
do
  local ok, out = run("--t-end 0.1")
  tap.ok(ok and out:find("formulation matrix_r", 1, true), "mbgen run: 0.1 s of the lane change with matrix_r")
  local p, v = out:match("position ([^,%s]+), velocity ([^,%s]+)")
  tap.ok(tonumber(p) and tonumber(p) < 1e-10 and tonumber(v) < 1e-10, "constraints hold (" .. tostring(p) .. ", " .. tostring(v) .. ")")
  local steer = final(out, "steer")
  tap.is_double(steer, 0.013 * math.sin(math.pi * 0.1), 1e-9, 1e-12, "the steering follows delta(t) = 0.013 sin(pi t)")
end

tap.done_testing()
