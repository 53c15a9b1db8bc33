-- dynamics/frames.lua: a body frame per tree body chosen at generation time so that its joint axis is its z axis.
-- The model's body frame B_k is kept for the user (points, com, inertia are given in it); the frame N_k = B_k G_k
-- the recursions use has z along the joint axis, so a joint moves its body by Rz(q) (or a shift along z), and the
-- constant rotation from the parent's frame is P_k Rz(beta_k): P_k is built from the axis alone with structural
-- zeros and ones, and the rest of the rotation, a turn about the joint axis, goes into the joint angle as q + beta.
-- Each body's x axis is the common normal to its first child's axis (Denavit-Hartenberg-like), so that child's P
-- is a rotation about x (five structural entries); coordinate axes give signed permutations.
local E = require "sym.expr"
local V3 = require "model.vec3"

local F = {}

-- Round-off below this is snapped to an exact zero or one: the rotations of the model (cos(pi/2) is 6e-17) and
-- the products of unit vectors carry nothing else there.
local SNAP = 1e-14
-- Axes closer to parallel than this (sin of the angle) have no usable common normal.
local PARALLEL = 1e-6

local function numeric3(v)
  local out = {}
  for i = 1, 3 do
    out[i] = E.const_value(v[i])
    if out[i] == nil then return nil end
  end
  return out
end

local function numeric33(A)
  local out = {}
  for i = 1, 3 do
    out[i] = numeric3(A[i])
    if not out[i] then return nil end
  end
  return out
end

local function snap(x)
  if math.abs(x) < SNAP then return 0 end
  if math.abs(x - 1) < SNAP then return 1 end
  if math.abs(x + 1) < SNAP then return -1 end
  return x
end

local dot, cross, matvec, mattvec = V3.dot, V3.cross, V3.matvec, V3.mattvec
local columns, matmul, transpose = V3.columns, V3.matmul, V3.transpose
local function norm(a) return math.sqrt(dot(a, a)) end
local function unit(a)
  local n = norm(a)
  return { snap(a[1] / n), snap(a[2] / n), snap(a[3] / n) }
end
local function snap33(A)
  for i = 1, 3 do for j = 1, 3 do A[i][j] = snap(A[i][j]) end end
  return A
end

-- The coordinate axis index of a unit vector along ±e_i, or nil.
local function coordinate_axis(w)
  for i = 1, 3 do
    if w[i] ~= 0 and w[(i % 3) + 1] == 0 and w[((i + 1) % 3) + 1] == 0 then return i end
  end
end

-- A rotation whose third column is the unit vector w, with as many structural zeros and ones as w allows:
-- a signed permutation for ±e_i, a rotation about x (or y, z) when w has a zero component.
function F.structural_rotation(w)
  local i = coordinate_axis(w)
  local x
  if i then
    x = { 0, 0, 0 }
    x[(i % 3) + 1] = 1
  elseif w[1] == 0 then
    x = { 1, 0, 0 }
  elseif w[2] == 0 then
    x = { 0, 1, 0 }
  elseif w[3] == 0 then
    x = { 0, 0, 1 }
  else
    x = unit { -w[2], w[1], 0 }
  end
  local y = cross(w, x)
  for c = 1, 3 do y[c] = snap(y[c]) end
  return columns(x, y, w)
end

-- The first child's axis and the foot of the common normal on body k's axis (a distance t along the unit axis a
-- from the joint point, model coordinates), when the two axes are skew enough for the foot to lie near the
-- mechanism: within twice the distance to the child's joint. Nearly parallel axes have their foot far away
-- (0.2 / angle), where moving the origin would cost round-off of (0.2 / angle)²; they count as parallel.
local function skew_child(tree, k, a, axes_in_model)
  local first = tree.bodies[k].children and tree.bodies[k].children[1]
  local ca = first and axes_in_model[first]
  local o = first and numeric3(tree.bodies[first].joint.origin)
  if not (ca and o) or norm(cross(a, ca)) < PARALLEL then return nil end
  -- Closest points of the lines t a and o + s ca: t = (a·o - b (ca·o)) / (1 - b²) with b = a·ca.
  local b = dot(a, ca)
  local t = (dot(a, o) - b * dot(ca, o)) / (1 - b * b)
  if math.abs(t) > 2 * norm(o) then return nil end
  return ca, snap(t)
end

local function after(a)
  local x = { 0, 0, 0 }
  x[(coordinate_axis(a) % 3) + 1] = 1
  return x
end

-- The x axis of body k's frame, in its model frame, perpendicular to its unit joint axis a: a coordinate axis
-- when a is one and its child gains nothing from a common normal, else the common normal to the child's axis.
local function choose_x(tree, k, a, axes_in_model)
  local body = tree.bodies[k]
  local first = body.children and body.children[1]
  local ca = skew_child(tree, k, a, axes_in_model)
  if coordinate_axis(a) and (not ca or coordinate_axis(ca)) then return after(a) end
  if ca then return unit(cross(a, ca)) end
  -- Parallel to the child (or a leaf): along the part of the child's offset (or the centre of mass) across the
  -- axis, so that it has a zero; else any direction across the axis.
  local o = first and numeric3(tree.bodies[first].joint.origin) or numeric3(body.com or { 0, 0, 0 })
  if o then
    local across = { o[1] - dot(o, a) * a[1], o[2] - dot(o, a) * a[2], o[3] - dot(o, a) * a[3] }
    if norm(across) > PARALLEL then return unit(across) end
  end
  local best = 1
  for c = 2, 3 do if math.abs(a[c]) < math.abs(a[best]) then best = c end end
  local e = { 0, 0, 0 }
  e[best] = 1
  return unit(cross(a, e))
end

-- Where body k's frame origin sits on its joint axis, as a distance t from the joint point along the unit axis a
-- (model coordinates): at the foot of the common normal to the first child's axis (the child's offset is then
-- a x + s z_child), on the child's level when the axes are parallel, on the centre of mass's level for a leaf.
local function choose_shift(tree, k, a, axes_in_model)
  local body = tree.bodies[k]
  local first = body.children and body.children[1]
  local _, t = skew_child(tree, k, a, axes_in_model)
  if t then return t end
  local o = first and numeric3(tree.bodies[first].joint.origin) or (not first and numeric3(body.com or { 0, 0, 0 }))
  if not o then return 0 end
  return snap(dot(a, o))
end

-- Per body k: { G = model frame -> body frame (columns: the body axes in model coordinates), P, w = P's z
-- column (the axis in the parent's frame), beta, t (the origin's shift along the axis), structural = true }
-- when the joint's axis and rotation are numbers; otherwise { G = identity, t = 0, general = true }, and the
-- recursions use the joint's own axis and rotation (a design parameter that turns an axis).
function F.choose(tree)
  local n = #tree.bodies
  local axes_in_model, rot = {}, {}
  for k = 1, n do
    local j = tree.bodies[k].joint
    local a, R = numeric3(j.axis), numeric33(j.rotation)
    if a and R then
      rot[k] = R
      axes_in_model[k] = unit(matvec(R, a))       -- the child's axis in its parent's model frame
    end
  end
  local out = { [0] = { G = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }, t = 0 } }
  for k = 1, n do
    local body, j = tree.bodies[k], tree.bodies[k].joint
    local a, R = numeric3(j.axis), rot[k]
    local Gp = out[body.parent].G
    if not (a and R) then
      out[k] = { G = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }, t = 0, general = true }
    else
      a = unit(a)
      local w = unit(mattvec(Gp, matvec(R, a)))     -- the axis in the parent's body frame
      local P = F.structural_rotation(w)
      local G, beta
      if j.kind == "revolute" then
        local x = choose_x(tree, k, a, axes_in_model)
        G = columns(x, cross(a, x), a)
        -- P_full = Gpᵀ R G = P Rz(beta)
        local Pt = matmul(transpose(P), matmul(transpose(Gp), matmul(R, G)))
        beta = math.atan(Pt[2][1], Pt[1][1])
        if math.abs(beta) < SNAP then beta = 0 end
      else
        -- A shift has no angle to absorb the turn: the frame is the one that makes P structural.
        G = matmul(transpose(R), matmul(Gp, P))
        beta = 0
      end
      out[k] = { G = snap33(G), P = P, w = w, beta = beta, t = choose_shift(tree, k, a, axes_in_model),
        structural = true }
    end
  end
  tree.body_frames = out
  return out
end

return F
