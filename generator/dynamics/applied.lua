-- dynamics/applied.lua: applied forces (torques, joint springs, body forces, spring-dampers) as body wrenches and joint forces.
local E = require "sym.expr"
local V = require "sym.vec"
local S = require "dynamics.spatial"
local K = require "dynamics.kinematics"
local errors = require "model.errors"
local tyres = require "dynamics.tyres"
local D = require "dynamics.data"

local A = {}

-- The state `s` that user functions see: coordinates, velocities and inputs by name, and named
-- points with position and velocity. Accelerations are offered only where the caller has them.
function A.state(tree, kin, st, syms, zdd_state)
  local s = { z = {}, zd = {}, zdd = {}, u = {}, point = {} }
  for k, c in ipairs(tree.coords) do
    s.z[c.name], s.zd[c.name] = syms.z[k], syms.zd[k]
    if zdd_state then s.zdd[c.name] = syms.zdd[k] end
  end
  for _, inp in ipairs(tree.inputs or {}) do s.u[inp.name] = E.symbol("u", inp.index, inp.name) end
  for _, pt in ipairs(tree.points or {}) do
    local pos = K.point(kin, pt.body, pt.at)
    local vel = A.point_velocity(st, pt.body, pos)
    s.point[pt.name] = { pos = pos, vel = vel, acc = zdd_state and zdd_state(pt, pos) or nil }
  end
  return s
end

-- Velocity of the body point at world position x: ṡ + ω × x (the twist is referred to the origin).
function A.point_velocity(st, k, x)
  if k == 0 then return { 0, 0, 0 } end
  local Z = st[k].Z
  return V.add(S.lin(Z), V.cross(S.ang(Z), x))
end

-- A value is a number, a node or a function(t, s); functions are traced here.
local function value(v, t, s, tree, elem)
  if type(v) ~= "function" then return v end
  local ok, res = pcall(v, t, s)
  if not ok then
    local info = debug.getinfo(v, "S")
    errors.raise(tree.file, info.linedefined, elem, tostring(type(res) == "table" and res.message or res))
  end
  return res
end

local function add_wrench(w, k, F, x)
  if k == 0 then return end
  local Wk = S.join(F, V.cross(x, F))
  w[k] = w[k] and S.add(w[k], Wk) or Wk
end

-- The unit spin axis of a tyre in the world: its body's rotation times the axis given in the body frame.
local function spin_axis(kin, ty)
  local ax = ty.axis
  local len = E.sqrt(V.dot(ax, ax))
  return K.rotate(kin, ty.body, V.scale(E.div(1, len), ax))
end

-- Returns { wrench = {[k] = world wrench about O}, tau = {[k] = joint force}, potential = expr,
-- tyres = { outputs of each tyre (tyres.OUTPUTS) }, nc = { wrench =, tau = } }: nc holds the non-conservative part (everything without a potential: torques,
-- forces, dampers, user force laws), whose power zd·Q_nc is the rate of the work that changes T + V.
function A.build(tree, kin, st, syms)
  local s = A.state(tree, kin, st, syms)
  local t = syms.t
  local w, tau, pot = {}, {}, 0
  local nc = { wrench = {}, tau = {} }
  local function add_tau(k, v, conservative)
    tau[k] = (tau[k] or 0) + v
    if not conservative then nc.tau[k] = (nc.tau[k] or 0) + v end
  end

  for _, e in ipairs(tree.torques or {}) do
    add_tau(e.coord, value(e.value, t, s, tree, string.format('torque "%s"', e.name)))
  end
  for _, e in ipairs(tree.joint_springs or {}) do
    local k = e.coord
    local stiffness = D.value(tree, e.name .. "_stiffness", e.stiffness or 0)
    local dz = syms.z[k] - D.value(tree, e.name .. "_rest", e.rest or 0)
    add_tau(k, -stiffness * dz, true)
    add_tau(k, -D.value(tree, e.name .. "_damping", e.damping or 0) * syms.zd[k])
    pot = pot + stiffness * dz * dz * 0.5
  end
  for _, e in ipairs(tree.forces or {}) do
    local elem = string.format('force "%s"', e.name)
    local F = value(e.value, t, s, tree, elem)
    if e.frame == "body" and e.body ~= 0 then F = K.rotate(kin, e.body, F) end
    add_wrench(w, e.body, F, K.point(kin, e.body, e.at))
    add_wrench(nc.wrench, e.body, F, K.point(kin, e.body, e.at))
  end
  for _, e in ipairs(tree.springs or {}) do
    local xa, xb = K.point(kin, e.a.body, e.a.at), K.point(kin, e.b.body, e.b.at)
    local va, vb = A.point_velocity(st, e.a.body, xa), A.point_velocity(st, e.b.body, xb)
    local d = V.sub(xb, xa)
    local l = E.sqrt(V.dot(d, d))
    local dir = V.scale(1 / l, d)
    local ldot = V.dot(dir, V.sub(vb, va))
    local stretch = l - D.value(tree, e.name .. "_length", e.length or 0)
    local tension, tension_nc
    if e.force then
      tension = value(function() return e.force(stretch, ldot) end, t, s, tree, string.format('spring "%s"', e.name))
      tension_nc = tension
    else
      local stiffness = D.value(tree, e.name .. "_stiffness", e.stiffness or 0)
      tension_nc = D.value(tree, e.name .. "_damping", e.damping or 0) * ldot
      tension = stiffness * stretch + tension_nc
      pot = pot + stiffness * stretch * stretch * 0.5
    end
    local Fb = V.scale(-tension, dir)                      -- pulls b towards a when stretched
    add_wrench(w, e.b.body, Fb, xb)
    add_wrench(w, e.a.body, V.scale(-1, Fb), xa)
    local Fb_nc = V.scale(-tension_nc, dir)
    add_wrench(nc.wrench, e.b.body, Fb_nc, xb)
    add_wrench(nc.wrench, e.a.body, V.scale(-1, Fb_nc), xa)
  end
  -- Tyres are non-conservative as a whole: their radial spring acts along the road normal at a contact
  -- point that moves over the wheel, so it has no potential of the coordinates.
  local tyre_out = {}
  for i, ty in ipairs(tree.tyres or {}) do
    local k = ty.body
    local c = K.point(kin, k, ty.at)
    local F, P, out = tyres.contact(ty, c, spin_axis(kin, ty), A.point_velocity(st, k, c), S.ang(st[k].Z))
    add_wrench(w, k, F, P)
    add_wrench(nc.wrench, k, F, P)
    tyre_out[i] = out
  end
  return { wrench = w, tau = tau, potential = pot, tyres = tyre_out, nc = nc }
end

-- Generalized applied forces Q_i = τ_i + b_i · Σ_{k ⪰ i} w_k.
function A.generalized(tree, kin, ap)
  local n = #tree.bodies
  local ch = require("dynamics.rnea").children(tree)
  local W, Q = {}, {}
  for k = n, 1, -1 do
    local Wk = ap.wrench[k] or S.zero
    for _, c in ipairs(ch[k]) do Wk = S.add(Wk, W[c]) end
    W[k] = Wk
    Q[k] = S.dot(kin[k].b, Wk) + (ap.tau[k] or 0)
  end
  return Q
end

return A
