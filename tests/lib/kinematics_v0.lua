-- kinematics_v0.lua: the world-frame kinematics before the body frames of dynamics/frames.lua (104d1c9), kept as an oracle.
-- Frames are the model's own (G = identity, no shift), so dynamics.kinematics' K.point and K.rotate read them too.
local E = require "sym.expr"
local V = require "sym.vec"
local S = require "dynamics.spatial"
local D = require "dynamics.data"

local K = {}

local IDENTITY = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }

-- Symbols of the run-time arrays: the generator's (they do not depend on the frames).
local K1 = require "dynamics.kinematics"
K.symbols = K1.symbols

-- The pose of body k's frame in the world: rotation A (columns: body axes) and origin o.
-- Ground is body 0. Returns per body { A, o, u (axis, world), r (joint point, world), b (screw),
-- g (COG, world), I (inertia about O, or nil when massless) }.
function K.bodies(tree, z)
  local out = { [0] = { A = IDENTITY, o = { 0, 0, 0 }, G = IDENTITY, t = 0 } }
  for k, body in ipairs(tree.bodies) do
    local j, par = body.joint, out[body.parent]
    local Aj = V.matmul(par.A, j.rotation)
    local r = V.add(par.o, V.matvec(par.A, j.origin))
    local u = V.matvec(Aj, j.axis)
    local q = { u = u, r = r, G = IDENTITY, t = 0 }
    if j.kind == "revolute" then
      q.A = V.matmul(Aj, V.rot_axis(j.axis, z[k]))
      q.o = r
      q.b = S.join(V.cross(r, u), u)
    else
      q.A = Aj
      q.o = V.add(r, V.scale(z[k], u))
      q.b = S.join(u, { 0, 0, 0 })
    end
    if not body.aux and not E.is_zero(body.mass) then
      local nm = body.name
      q.g = V.add(q.o, V.matvec(q.A, D.vector(tree, nm .. "_com", body.com)))
      local JG = V.matmul(V.matmul(q.A, D.matrix(tree, nm .. "_I", body.inertia)), V.transpose(q.A))
      q.I = S.inertia(D.value(tree, nm .. "_mass", body.mass), q.g, JG)
    end
    out[k] = q
  end
  return out
end

-- World position of a point fixed in body k (0 = ground) at local coordinates x.
function K.point(kin, k, x)
  local q = kin[k]
  return V.add(q.o, V.matvec(q.A, x))
end

-- Ancestor sets: the generator's (topology only, no frames).
K.ancestors = K1.ancestors

return K
