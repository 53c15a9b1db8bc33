-- dynamics/kinematics.lua: body frames, poses, joint screws and origin-referenced inertias of every tree body (seed 003 §1.3).
local E = require "sym.expr"
local V = require "sym.vec"
local S = require "dynamics.spatial"
local D = require "dynamics.data"
local FR = require "dynamics.frames"

local K = {}

local IDENTITY = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }

-- Symbols of the run-time arrays, 1-based: z[k] is E.symbol("z", k - 1).
function K.symbols(tree)
  local n = #tree.bodies
  local s = { t = E.symbol("t", nil, "t"), z = {}, zd = {}, zdd = {}, p = {}, u = {} }
  for k = 1, n do
    local name = tree.coords[k].name
    s.z[k] = E.symbol("z", k - 1, name)
    s.zd[k] = E.symbol("zd", k - 1, name)
    s.zdd[k] = E.symbol("zdd", k - 1, name)
  end
  return s
end

-- The joint of body k in its parent's body frame (dynamics/frames.lua): X = R Q turns body k's frame into its
-- parent's, a constant R (structural) times the joint's rotation Q = Rz(q + beta); body k's origin sits at
-- d1 + X (d2 h) in the parent's frame, d1 across the joint axis (a x for a common normal) and d2 along it (the
-- shift of a prismatic joint included); h = the joint axis in body k's frame ({0, 0, 1}, or the model's axis when
-- a design parameter turns it); m, c, J = mass, centre of mass and inertia about it in body k's frame.
local function joint_in_parent(tree, k, fr, zk)
  local body, j = tree.bodies[k], tree.bodies[k].joint
  local f, fp = fr[k], fr[body.parent]
  local N = { G = f.G, t = f.t, general = f.general }
  -- The joint point from the parent's origin, in the parent's frame.
  local off = V.sub(V.mattvec(fp.G, j.origin), { 0, 0, fp.t })
  local R, h
  if f.general then
    h, R = j.axis, V.matmul(V.transpose(fp.G), j.rotation)
  else
    h, R = { 0, 0, 1 }, f.P
  end
  N.h, N.R = h, R
  N.d1, N.d2 = off, f.t
  local Dn = {}
  for i = 1, 3 do Dn[i] = E.const_value(off[i]) end
  if f.w and Dn[1] and Dn[2] and Dn[3] then
    -- Split the offset into its part along the axis w and the rest, with the rest's round-off snapped.
    local w = f.w
    local s = Dn[1] * w[1] + Dn[2] * w[2] + Dn[3] * w[3]
    local d1 = {}
    for i = 1, 3 do
      d1[i] = Dn[i] - s * w[i]
      if math.abs(d1[i]) < 1e-14 * (1 + math.abs(s)) then d1[i] = 0 end
    end
    N.d1, N.d2 = d1, f.t + s
    if math.abs(N.d2) < 1e-14 then N.d2 = 0 end
  end
  if j.kind == "revolute" then
    if f.general then
      N.Q = V.rot_axis(h, zk)
    else
      local theta = f.beta ~= 0 and E.add(zk, f.beta) or zk
      local c, s = E.cos(theta), E.sin(theta)
      N.Q = { { c, E.neg(s), 0 }, { s, c, 0 }, { 0, 0, 1 } }
      N.cos, N.sin = c, s
    end
  else
    N.Q = IDENTITY
    N.d2 = E.add(N.d2, zk)
  end
  N.X = V.matmul(R, N.Q)
  if not body.aux and not E.is_zero(body.mass) then
    local nm = body.name
    N.m = D.value(tree, nm .. "_mass", body.mass)
    N.c = V.sub(V.mattvec(f.G, D.vector(tree, nm .. "_com", body.com)), V.scale(f.t, h))
    N.J = V.matmul(V.transpose(f.G), V.matmul(D.matrix(tree, nm .. "_I", body.inertia), f.G))
  end
  return N
end

-- The pose of body k's frame in the world: rotation A (columns: the body frame's axes) and origin o.
-- Ground is body 0. Returns per body { A, o, u (axis, world), b (screw), g (COG, world), I (inertia about O,
-- or nil when massless), N (the joint in the parent's frame, above) }.
function K.bodies(tree, z)
  local fr = FR.choose(tree)
  local out = { [0] = { A = IDENTITY, o = { 0, 0, 0 }, G = IDENTITY, t = 0, N = { h = { 0, 0, 1 } } } }
  for k, body in ipairs(tree.bodies) do
    local par = out[body.parent]
    local N = joint_in_parent(tree, k, fr, z[k])
    local q = { N = N, G = N.G, t = N.t }
    q.A = V.matmul(par.A, N.X)
    q.u = V.matvec(q.A, N.h)
    q.o = V.add(V.add(par.o, V.matvec(par.A, N.d1)), V.scale(N.d2, q.u))
    if body.joint.kind == "revolute" then
      q.b = S.join(V.cross(q.o, q.u), q.u)
    else
      q.b = S.join(q.u, { 0, 0, 0 })
    end
    if N.m then
      q.g = V.add(q.o, V.matvec(q.A, N.c))
      local JG = V.similar(q.A, N.J, true)
      q.I = S.inertia(N.m, q.g, JG)
    end
    out[k] = q
  end
  return out
end

-- A vector given in body k's model frame (0 = ground), in world axes.
function K.rotate(kin, k, v)
  local q = kin[k]
  return V.matvec(q.A, V.mattvec(q.G, v))
end

-- World position of a point fixed in body k (0 = ground) at model-frame coordinates x.
function K.point(kin, k, x)
  local q = kin[k]
  return V.add(q.o, V.matvec(q.A, V.sub(V.mattvec(q.G, x), { 0, 0, q.t })))
end

-- True when j is k or an ancestor of k (j ⪯ k); ground (0) is everyone's ancestor.
function K.ancestors(tree)
  local anc = {}
  for k, body in ipairs(tree.bodies) do
    local set = { [k] = true }
    local p = body.parent
    while p ~= 0 do set[p] = true; p = tree.bodies[p].parent end
    anc[k] = set
  end
  return anc
end

return K
