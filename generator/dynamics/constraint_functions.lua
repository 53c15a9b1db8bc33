-- dynamics/constraint_functions.lua: the constraint functions of loops, rods and drives (INTERFACES.md §3).
local E = require "sym.expr"
local D = require "sym.diff"
local R = require "dynamics.rnea"
local jets = require "dynamics.point_jets"
local K = require "dynamics.kinematics"
local EV = require "sym.eval"

local M = {}

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

-- Loop equations are built on jets {value, d/dt, d²/dt²} of points and body-fixed directions
-- (dynamics/point_jets.lua), so the bias comes from the recursive kinematics instead of differentiating
-- Phi_z zd node by node, which grows like nc · nz · depth² (fourbar_grid NY = 1: 24 MB of C).
local ZERO3 = { 0, 0, 0 }

-- The equations of one loop or rod, in natural coordinates of the end points (seeds/002.md §1.6), as
-- scalar jets {Phi_i, dPhi_i/dt, d²Phi_i/dt² at zdd = 0}.
local function loop_equations(J, c)
  local d = J.sub(J.point(c.a.body, c.a.at), J.point(c.b.body, c.b.at))
  local t = c.type
  local function comp(i) return { d[1][i], d[2][i], d[3][i] } end
  if c.kind == "rod" or t == "distance" then
    local L = c.length
    if L == nil then                     -- a rod keeps the distance it has in the initial assembly
      error({ message = 'rod "' .. tostring(c.name) .. '" needs a length', line = c.line }, 0)
    end
    local dd = J.dot(d, d)
    return { { dd[1] - E.lift(L) * L, dd[2], dd[3] } }
  elseif t == "spherical" then
    return { comp(1), comp(2), comp(3) }
  elseif t == "point2d" then
    local u, v = plane_basis(numeric(c.normal or { 0, 0, 1 }))
    return { J.dot(d, J.rot(c.b.body, u)), J.dot(d, J.rot(c.b.body, v)) }
  elseif t == "revolute" then
    -- Point coincidence (3) and the axis of a perpendicular to two directions fixed in b (2).
    local ua = J.rot(c.a.body, c.axis)
    local p1, p2 = plane_basis(numeric(c.axis_b or c.axis))
    return { comp(1), comp(2), comp(3), J.dot(ua, J.rot(c.b.body, p1)), J.dot(ua, J.rot(c.b.body, p2)) }
  elseif t == "prismatic2d" then
    local n = J.rot(c.b.body, c.normal or { 0, 0, 1 })
    local ua, ub = J.rot(c.a.body, c.axis), J.rot(c.b.body, c.axis_b or c.axis)
    return { J.dot(J.cross(ua, ub), n), J.dot(d, J.cross(n, ub)) }
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

-- A general independent coordinate's row h(z, rho) - q (topology.lua), h traced with the coordinates and the
-- named points' positions.
local function coordinate_equation(tree, built, c)
  local syms, s = built.symbols, { z = {}, point = {} }
  for k, co in ipairs(tree.coords) do s.z[co.name] = syms.z[k] end
  for _, pt in ipairs(tree.points or {}) do s.point[pt.name] = { pos = K.point(built.kin, pt.body, pt.at) } end
  return { E.lift(c.h(s)) - syms.z[c.coord] }
end

-- The rows of a drive or a general coordinate: functions of the coordinates by name, whose bias is small node
-- by node; nil for a loop or rod.
local function named_rows(tree, built, c)
  if c.kind == "drive" then return drive_equation(tree, built.symbols, c) end
  if c.kind == "coordinate" then return coordinate_equation(tree, built, c) end
end

-- Start values of the general coordinates the model gives none for: q0 = h(z0, rho) and qd0 = h_z zd0 at the
-- other coordinates' start values and the design parameters' defaults, from their rows h - q and h_z zd - qd.
-- Returns { z = { [k] = q0 }, zd = { [k] = qd0 } }.
local function initial_h(tree, phi, vel)
  local out = { z = {}, zd = {} }
  local env = { t = 0, z = {}, zd = {}, p = {} }
  for k, co in ipairs(tree.coords) do
    local h = co.independent_h
    env.z[k] = not h and tree.initial[k] or 0
    env.zd[k] = not h and tree.initial_velocity[k] or 0
  end
  for _, prm in ipairs(tree.parameters or {}) do
    if prm.kind == "design" then env.p[prm.index + 1] = prm.value end
  end
  for _, c in ipairs(tree.constraints or {}) do
    if c.kind == "coordinate" then
      if tree.initial[c.coord] == nil then out.z[c.coord] = EV.eval(phi[c.row], env) end
      if tree.initial_velocity[c.coord] == nil then out.zd[c.coord] = EV.eval(vel[c.row], env) end
    end
  end
  return out
end

local function flat(J, rows, cols)
  local out = {}
  for j = 1, cols do for i = 1, rows do out[#out + 1] = J[i][j] end end
  return out
end

-- The constraint equations alone (1-based list of expressions), for callers that need no derivatives.
function M.equations(tree, built)
  local J = jets(built.kin, built.state, tree.gravity or ZERO3)
  local phi = {}
  for _, c in ipairs(tree.constraints or {}) do
    local rows = named_rows(tree, built, c)
    if rows then
      for _, e in ipairs(rows) do phi[#phi + 1] = E.lift(e) end
    else
      for _, e in ipairs(loop_equations(J, c)) do phi[#phi + 1] = E.lift(e[1]) end
    end
  end
  return phi
end

function M.build(tree, built)
  local want = built.want
  local cons = tree.constraints or {}
  if #cons == 0 then return {} end
  local syms, kin, ps = built.symbols, built.kin, built.psyms or {}
  local n = #tree.bodies
  -- The jets of a forward pass without gravity: the loop ends' accelerations need not carry -g from the base only
  -- to have it added back, as -9.81 + (9.81 + x), which the compiler does not fold.
  local J = jets(kin, R.forward(tree, kin, syms.zd, nil, true), ZERO3)
  -- The same jets with the accelerations zdd: their second derivative is Phi_z zdd + bias.
  local Ja = jets(kin, R.forward(tree, kin, syms.zd, syms.zdd, true), ZERO3)
  local phi, vel, bias, accz, named = {}, {}, {}, {}, {}
  for _, c in ipairs(cons) do
    local rows = named_rows(tree, built, c)
    if rows then
      for _, e in ipairs(rows) do
        phi[#phi + 1] = E.lift(e)
        named[#phi] = true
      end
    else
      local ea = loop_equations(Ja, c)
      for k, e in ipairs(loop_equations(J, c)) do
        phi[#phi + 1] = E.lift(e[1])
        vel[#phi], bias[#phi] = E.lift(e[2]), E.lift(e[3])
        accz[#phi] = ea[k][3] - e[3]
      end
    end
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
  if #ps > 0 and want("constraints_dp") then add("constraints_dp", nc, #ps, flat(D.jacobian(phi, ps), nc, #ps), true) end
  add("constraints_dt", nc, 1, phit, false)
  -- A drive row z_k - f(t, ...) and a general coordinate's row h(z, rho) - q: the bias d/dt (Phi_z zd + Phi_t)
  -- at zdd = 0 is small node by node.
  for i = 1, nc do
    if named[i] then
      local terms, ta = { phit[i] }, {}
      for j = 1, n do
        terms[#terms + 1] = Jz[i][j] * syms.zd[j]
        ta[j] = Jz[i][j] * syms.zdd[j]
      end
      local g = E.sum(terms)
      vel[i], accz[i] = g, E.sum(ta)
      local Jg = D.jacobian({ g }, syms.z)
      terms = { D.derivative(g, syms.t) }
      for j = 1, n do terms[#terms + 1] = Jg[1][j] * syms.zd[j] end
      bias[i] = E.sum(terms)
    end
  end
  add("constraint_bias", nc, 1, bias, false)
  if want("constraint_bias_dz") then add("constraint_bias_dz", nc, n, flat(D.jacobian(bias, syms.z), nc, n), true) end
  if want("constraint_bias_dzd") then add("constraint_bias_dzd", nc, n, flat(D.jacobian(bias, syms.zd), nc, n), true) end
  if #ps > 0 and want("constraint_bias_dp") then
    add("constraint_bias_dp", nc, #ps, flat(D.jacobian(bias, ps), nc, #ps), true)
  end
  -- d(Phi_z' w)/dz with w the run-time weights (multipliers); Phi_z' w is the gradient of w . Phi, which
  -- reverse mode builds with the kinematics shared instead of nc rows of Phi_z.
  local wphi = {}
  for i = 1, nc do wphi[i] = phi[i] * E.symbol("w", i - 1, "w" .. i) end
  local tw = D.gradient(E.sum(wphi), syms.z)
  if want("constraints_dz_tw_dz") then add("constraints_dz_tw_dz", n, n, flat(D.jacobian(tw, syms.z), n, n), true) end
  -- For the sensitivity functions (constraint_sensitivity.lua): Phi_z zd + Phi_t, Phi_z zdd and Phi_z' w.
  fns.velocity, fns.acceleration, fns.reaction = vel, accz, tw
  fns.initial_h = initial_h(tree, phi, vel)
  return fns
end

return M
