-- lib/double_wishbone.lua: one double-wishbone corner (Chrono's DoubleWishbone template, vehicle-data README §4.3).
-- double_wishbone { name =, side = "left"|"right", chassis = "chassis", steering = body or nil,
--   steering_origin = {x,y,z}, location = {x,y,z}, data = D, stiffness =, damping = }
-- Bodies NAME_uca and NAME_lca (upper and lower control arms) turn on revolutes NAME_uca, NAME_lca about
-- the hinge axis through their two chassis pivots; the knuckle NAME_knuckle (Chrono's upright) sits on the
-- lower arm's ball joint by a spherical joint NAME_knuckle (coordinates .rx .ry .rz); the upper ball joint
-- is the cut joint: loop NAME_ubj (spherical, 3 equations) between the upper arm and the knuckle; the tie
-- rod is a massless rod NAME_tierod (1 equation) from the steering body (or the chassis when `steering` is
-- nil) to the knuckle; spring NAME_spring and damper NAME_shock run from the chassis to the lower arm.
-- One corner: 3 bodies, 5 coordinates, 4 constraint equations, so 1 degree of freedom (the wheel travel),
-- plus the steering travel when the tie rod ends on a moving steering body.
--
-- D holds the LEFT side in the suspension frame (Chrono's layout: points relative to the axle's
-- "Suspension Location", which is `location` in the chassis frame); side = "right" mirrors y. Keys:
--   D.spindle  = { com }                                 wheel centre (Chrono "Spindle.COM")
--   D.upright  = { mass, com, inertia = {Ixx,Iyy,Izz} } knuckle, inertia in chassis-parallel axes
--   D.uca, D.lca = { mass, com, inertia = {Ixx,Iyy,Izz}, chassis_front, chassis_back, upright }
--                  inertia in the arm's axes (Chrono, README §3.4): x from the back pivot to the front one,
--                  z normal to the plane of the three pivots; rotated here into chassis-parallel axes
--   D.tierod   = { chassis, upright }                    inner point (on `steering` when given) and ball joint
--   D.spring   = { chassis, arm, stiffness, length }     arm point on the lower arm; length = free length
--   D.shock    = { chassis, arm, damping }
-- `stiffness`/`damping` (numbers or design symbols) override D.spring.stiffness and D.shock.damping;
-- `shock_force = function(x, v)` gives the damper a nonlinear law instead (the spring element's `force`).
-- `steering_origin`: where the steering body's frame sits in the chassis frame at zero steering travel
-- (default the chassis origin), so the tie rod's inner point can be put in that body's frame.
-- At all coordinates 0 every body is at its design position (frames parallel to the chassis), so the
-- corner is assembled there. Returns { knuckle =, uca =, lca =, wheel_at = wheel centre in the knuckle
-- frame, coordinates = { the five names }, joints = {...}, points = { hardpoints in the chassis frame },
-- spring_length =, shock_length = (design lengths, for free lengths set from a static load) }.

local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function scale(s, a) return { s * a[1], s * a[2], s * a[3] } end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function norm(a) return math.sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2) end
local function unit(a) return scale(1 / norm(a), a) end

-- Inertia {Ixx,Iyy,Izz} about the principal axes ex, ey, ez (chassis components) -> the six entries
-- {Ixx,Iyy,Izz,Ixy,Ixz,Iyz} of the tensor R diag R^T in chassis axes (off-diagonals are tensor entries).
-- Chrono's arm inertias break the triangle inequality (generic DoubleWishbone.json: UCA 0.03 + 0.03 <
-- 0.06276, LCA 0.4 + 0.4 < 0.8938), which no rigid body can have and the model validator refuses; the
-- largest moment is cut to the sum of the other two (a thin plate, the limit a flat arm approaches).
local function physical(I)
  local J = { I[1], I[2], I[3] }
  for k = 1, 3 do
    local o1, o2 = J[k % 3 + 1], J[(k + 1) % 3 + 1]
    if J[k] > o1 + o2 then J[k] = o1 + o2 end
  end
  return J
end

local function rotate_inertia(I, ex, ey, ez)
  I = physical(I)
  local R = { { ex[1], ey[1], ez[1] }, { ex[2], ey[2], ez[2] }, { ex[3], ey[3], ez[3] } }
  local function T(i, j) return R[i][1] * I[1] * R[j][1] + R[i][2] * I[2] * R[j][2] + R[i][3] * I[3] * R[j][3] end
  return { T(1, 1), T(2, 2), T(3, 3), T(1, 2), T(1, 3), T(2, 3) }
end

return function(a)
  local name, D = a.name, a.data
  assert(type(name) == "string", "double_wishbone: needs a name")
  assert(type(D) == "table", 'double_wishbone "' .. name .. '": needs a data table')
  local side = a.side or "left"
  assert(side == "left" or side == "right", 'double_wishbone "' .. name .. '": side must be "left" or "right"')
  local sy = side == "left" and 1 or -1
  local loc = a.location or { 0, 0, 0 }
  local chassis = a.chassis or "chassis"
  -- A suspension-frame point of the left side -> the chassis frame, mirrored for the right side.
  local function P(p)
    assert(type(p) == "table" and #p == 3, 'double_wishbone "' .. name .. '": a hardpoint is missing in the data')
    return { loc[1] + p[1], loc[2] + sy * p[2], loc[3] + p[3] }
  end

  local pts = {
    wheel = P(D.spindle.com), knuckle_com = P(D.upright.com),
    uca_front = P(D.uca.chassis_front), uca_back = P(D.uca.chassis_back), ubj = P(D.uca.upright), uca_com = P(D.uca.com),
    lca_front = P(D.lca.chassis_front), lca_back = P(D.lca.chassis_back), lbj = P(D.lca.upright), lca_com = P(D.lca.com),
    tierod_in = P(D.tierod.chassis), tierod_out = P(D.tierod.upright),
    spring_chassis = P(D.spring.chassis), spring_arm = P(D.spring.arm),
    shock_chassis = P(D.shock.chassis), shock_arm = P(D.shock.arm),
  }

  -- A control arm: body frame parallel to the chassis with its origin at the hinge (midpoint of the
  -- pivots), so every arm point is its chassis-frame point minus the hinge point.
  local function arm(tag, front, back, ball, com, d)
    local hinge = scale(0.5, add(front, back))
    local ex = unit(sub(front, back))
    local ez = unit(cross(sub(front, back), sub(ball, back)))
    if ez[3] < 0 then ez = scale(-1, ez) end -- the normal points up on both sides
    local ey = cross(ez, ex)
    local body_name = name .. "_" .. tag
    body(body_name) { mass = d.mass, com = sub(com, hinge), inertia = rotate_inertia(d.inertia, ex, ey, ez) }
    -- axis from the back pivot to the front one on both sides: a positive angle lifts the left
    -- wheel and lowers the right one (the y of the ball joint changes sign)
    revolute(body_name) { parent = chassis, child = body_name, origin = hinge, axis = ex }
    return body_name, hinge
  end
  local uca, uca_hinge = arm("uca", pts.uca_front, pts.uca_back, pts.ubj, pts.uca_com, D.uca)
  local lca, lca_hinge = arm("lca", pts.lca_front, pts.lca_back, pts.lbj, pts.lca_com, D.lca)

  -- Knuckle: origin at the lower ball joint, frame parallel to the chassis.
  local knuckle = name .. "_knuckle"
  local I = D.upright.inertia
  body(knuckle) { mass = D.upright.mass, com = sub(pts.knuckle_com, pts.lbj), inertia = physical(I) }
  spherical(knuckle) { parent = lca, child = knuckle, origin = sub(pts.lbj, lca_hinge) }
  -- Upper ball joint: the loop is cut here.
  loop(name .. "_ubj") { type = "spherical", a = { uca, sub(pts.ubj, uca_hinge) }, b = { knuckle, sub(pts.ubj, pts.lbj) } }
  -- Tie rod: a fixed-length massless link (Chrono's file gives the tierod no mass).
  local inner
  if a.steering then
    inner = { a.steering, sub(pts.tierod_in, a.steering_origin or { 0, 0, 0 }) }
  else
    inner = { chassis, pts.tierod_in }
  end
  rod(name .. "_tierod") { a = inner, b = { knuckle, sub(pts.tierod_out, pts.lbj) }, length = norm(sub(pts.tierod_out, pts.tierod_in)) }
  -- Spring and damper: chassis -> lower arm (Chrono: "Location Arm" is on the lower control arm).
  spring(name .. "_spring") {
    a = { chassis, pts.spring_chassis }, b = { lca, sub(pts.spring_arm, lca_hinge) },
    stiffness = a.stiffness or D.spring.stiffness, length = D.spring.length,
  }
  spring(name .. "_shock") {
    a = { chassis, pts.shock_chassis }, b = { lca, sub(pts.shock_arm, lca_hinge) },
    damping = a.damping or D.shock.damping, force = a.shock_force,
  }

  return {
    knuckle = knuckle, uca = uca, lca = lca,
    wheel_at = sub(pts.wheel, pts.lbj),
    coordinates = { uca, lca, knuckle .. ".rx", knuckle .. ".ry", knuckle .. ".rz" },
    joints = { uca = uca, lca = lca, knuckle = knuckle, ubj = name .. "_ubj", tierod = name .. "_tierod",
      spring = name .. "_spring", shock = name .. "_shock" },
    points = pts,
    -- design lengths, for callers that set free lengths for a static load
    spring_length = norm(sub(pts.spring_arm, pts.spring_chassis)),
    shock_length = norm(sub(pts.shock_arm, pts.shock_chassis)),
  }
end
