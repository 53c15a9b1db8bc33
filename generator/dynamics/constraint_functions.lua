-- dynamics/constraint_functions.lua: the constraint functions of loops, rods and drives (INTERFACES.md §3).
local E = require "sym.expr"
local V = require "sym.vec"
local D = require "sym.diff"
local K = require "dynamics.kinematics"

local M = {}

-- Largest nc · nz emitted (see M.build).
M.MAX_SIZE = 400

-- Two unit directions perpendicular to n (a numeric 3-vector), so (u, v, n) is right-handed: the
-- axis least aligned with n, its n component removed (the planar joint's rule, generator/README.md).
local function plane_basis(n)
  local nn = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2)
  local nu = { n[1] / nn, n[2] / nn, n[3] / nn }
  local best = 1
  for i = 2, 3 do if math.abs(nu[i]) < math.abs(nu[best]) then best = i end end
  local e = { 0, 0, 0 }
  e[best] = 1
  local d = nu[best]
  local u = { e[1] - d * nu[1], e[2] - d * nu[2], e[3] - d * nu[3] }
  local un = math.sqrt(u[1] ^ 2 + u[2] ^ 2 + u[3] ^ 2)
  u = { u[1] / un, u[2] / un, u[3] / un }
  local v = { nu[2] * u[3] - nu[3] * u[2], nu[3] * u[1] - nu[1] * u[3], nu[1] * u[2] - nu[2] * u[1] }
  return u, v, nu
end

local function numeric(vec)
  local out = {}
  for i = 1, 3 do
    local x = E.const_value(vec[i])
    if x == nil then x = vec[i] end
    out[i] = x
  end
  return out
end

local function rot(kin, k, x) return V.matvec(kin[k].A, x) end

-- The equations of one loop or rod, in natural coordinates of the end points (seeds/002.md §1.6).
local function loop_equations(kin, c)
  local ra, rb = K.point(kin, c.a.body, c.a.at), K.point(kin, c.b.body, c.b.at)
  local d = V.sub(ra, rb)
  local t = c.type
  if c.kind == "rod" or t == "distance" then
    local L = c.length
    if L == nil then                     -- a rod keeps the distance it has in the initial assembly
      error({ message = 'rod "' .. tostring(c.name) .. '" needs a length', line = c.line }, 0)
    end
    return { V.dot(d, d) - E.lift(L) * L }
  elseif t == "spherical" then
    return { d[1], d[2], d[3] }
  elseif t == "point2d" then
    local u, v = plane_basis(numeric(c.normal or { 0, 0, 1 }))
    return { V.dot(d, rot(kin, c.b.body, u)), V.dot(d, rot(kin, c.b.body, v)) }
  elseif t == "revolute" then
    -- Point coincidence (3) and the axis of a perpendicular to two directions fixed in b (2).
    local ua = rot(kin, c.a.body, c.axis)
    local p1, p2 = plane_basis(numeric(c.axis_b or c.axis))
    return { d[1], d[2], d[3], V.dot(ua, rot(kin, c.b.body, p1)), V.dot(ua, rot(kin, c.b.body, p2)) }
  elseif t == "prismatic2d" then
    local n = rot(kin, c.b.body, c.normal or { 0, 0, 1 })
    local ua, ub = rot(kin, c.a.body, c.axis), rot(kin, c.b.body, c.axis_b or c.axis)
    return { V.dot(V.cross(ua, ub), n), V.dot(d, V.cross(n, ub)) }
  end
  error({ message = "loop type " .. tostring(t) .. " has no constraint equations", line = c.line }, 0)
end

-- A drive's position function traced with the state by name (z, zd, zdd, u).
local function drive_equation(tree, syms, c)
  local byname = { z = {}, zd = {}, zdd = {}, u = {} }
  for k, co in ipairs(tree.coords) do
    byname.z[co.name], byname.zd[co.name], byname.zdd[co.name] = syms.z[k], syms.zd[k], syms.zdd[k]
  end
  local pos = c.position
  local f = type(pos) == "function" and pos(syms.t, byname) or pos
  return { syms.z[c.coord] - E.lift(f or 0) }
end

local function flat(J, rows, cols)
  local out = {}
  for j = 1, cols do for i = 1, rows do out[#out + 1] = J[i][j] end end
  return out
end

function M.build(tree, built)
  local cons = tree.constraints or {}
  if #cons == 0 then return {} end
  local syms, kin, ps = built.symbols, built.kin, built.psyms or {}
  local n = #tree.bodies
  -- Node-by-node bias and curvature terms grow like nc · nz · depth² (fourbar_grid NY = 1: 24 MB
  -- of C). Until they come from the point-acceleration recursion, large models get none (known gap).
  local count = 0
  for _, c in ipairs(cons) do count = count + (c.equations or 0) end
  if count * n > M.MAX_SIZE then return {} end
  local phi = {}
  for _, c in ipairs(cons) do
    local eqs = c.kind == "drive" and drive_equation(tree, syms, c) or loop_equations(kin, c)
    for _, e in ipairs(eqs) do phi[#phi + 1] = E.lift(e) end
  end
  local nc = #phi
  local fns = {}
  local function add(name, rows, cols, exprs, matrix)
    fns[#fns + 1] = { name = name, rows = rows, cols = cols, exprs = exprs, matrix = matrix }
  end
  local Jz = D.jacobian(phi, syms.z)
  local phit = {}
  for i = 1, nc do phit[i] = D.derivative(phi[i], syms.t) end
  add("constraints", nc, 1, phi, false)
  add("constraints_dz", nc, n, flat(Jz, nc, n), true)
  if #ps > 0 then add("constraints_dp", nc, #ps, flat(D.jacobian(phi, ps), nc, #ps), true) end
  add("constraints_dt", nc, 1, phit, false)
  -- bias = d/dt (Phi_z zd + Phi_t) at zdd = 0: the z-Jacobian of g times zd plus dg/dt.
  local g = {}
  for i = 1, nc do
    local terms = { phit[i] }
    for j = 1, n do terms[#terms + 1] = Jz[i][j] * syms.zd[j] end
    g[i] = E.sum(terms)
  end
  local Jg = D.jacobian(g, syms.z)
  local bias = {}
  for i = 1, nc do
    local terms = { D.derivative(g[i], syms.t) }
    for j = 1, n do terms[#terms + 1] = Jg[i][j] * syms.zd[j] end
    bias[i] = E.sum(terms)
  end
  add("constraint_bias", nc, 1, bias, false)
  add("constraint_bias_dz", nc, n, flat(D.jacobian(bias, syms.z), nc, n), true)
  add("constraint_bias_dzd", nc, n, flat(D.jacobian(bias, syms.zd), nc, n), true)
  if #ps > 0 then add("constraint_bias_dp", nc, #ps, flat(D.jacobian(bias, ps), nc, #ps), true) end
  -- d(Phi_z' w)/dz with w the run-time weights (multipliers).
  local tw = {}
  for c = 1, n do
    local terms = {}
    for i = 1, nc do terms[#terms + 1] = Jz[i][c] * E.symbol("w", i - 1, "w" .. i) end
    tw[c] = E.sum(terms)
  end
  add("constraints_dz_tw_dz", n, n, flat(D.jacobian(tw, syms.z), n, n), true)
  return fns
end

return M
