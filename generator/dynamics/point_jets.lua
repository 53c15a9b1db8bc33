-- dynamics/point_jets.lua: jets {x, dx/dt, d²x/dt²} of body points and body-fixed directions from the recursive kinematics.
local V = require "sym.vec"
local S = require "dynamics.spatial"
local K = require "dynamics.kinematics"

-- Point accelerations come from the spatial accelerations dZ/dt of the forward recursion (DERIVATIVES.md §2):
-- v = ṡ + ω × x, a = s̈ + ω̇ × x + ω × v. With st from R.forward(..., zdd = nil) the second derivative is the
-- one at zdd = 0 (the constraint bias); with zdd symbols it is the full acceleration.
local ZERO3 = { 0, 0, 0 }

local function jets(kin, st, gravity)
  local J = {}
  -- Body k's angular velocity, angular acceleration and the acceleration of the body point at the origin
  -- (st holds a = dZ/dt with gravity as base acceleration [-g; 0]; remove it).
  local function motion(k)
    local Z, a = st[k].Z, st[k].a
    return S.ang(Z), S.lin(Z), S.ang(a), V.add(S.lin(a), gravity)
  end
  function J.point(k, at)
    local x = K.point(kin, k, at)
    if k == 0 then return { x, ZERO3, ZERO3 } end
    local w, sd, wd, sdd = motion(k)
    local v = V.add(sd, V.cross(w, x))
    return { x, v, V.add(V.add(sdd, V.cross(wd, x)), V.cross(w, v)) }
  end
  function J.rot(k, u)
    local x = K.rotate(kin, k, u)
    if k == 0 then return { x, ZERO3, ZERO3 } end
    local w, _, wd = motion(k)
    local xd = V.cross(w, x)
    return { x, xd, V.add(V.cross(wd, x), V.cross(w, xd)) }
  end
  function J.sub(a, b) return { V.sub(a[1], b[1]), V.sub(a[2], b[2]), V.sub(a[3], b[3]) } end
  function J.dot(a, b)
    return { V.dot(a[1], b[1]), V.dot(a[2], b[1]) + V.dot(a[1], b[2]),
             V.dot(a[3], b[1]) + V.dot(a[2], b[2]) * 2 + V.dot(a[1], b[3]) }
  end
  function J.cross(a, b)
    return { V.cross(a[1], b[1]), V.add(V.cross(a[2], b[1]), V.cross(a[1], b[2])),
             V.add(V.add(V.cross(a[3], b[1]), V.scale(2, V.cross(a[2], b[2]))), V.cross(a[1], b[3])) }
  end
  return J
end

return jets
