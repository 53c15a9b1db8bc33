-- lib/coach_front.lua: the coach's independent front corners (sliding pillar, steered upright, wheel, tyre, air spring, damper) and the anti-roll bar between them.
-- coach_front {
--   name =, body = (sprung body), at = {x, y, z} (left wheel centre in the body frame at design; the right
--   one is mirrored), pillar = { mass =, inertia = }, upright = { mass =, inertia = },
--   wheel = { mass =, inertia = { Ixx, Iyy, Izz } (about the centre, Iyy the spin), tyre = { radius =,
--     stiffness =, damping =, longitudinal =, lateral =, speed_eps = } }, road = function(x, y),
--   steer_arm = { x =, y = } (the tie-rod ball joint on the upright, relative to the wheel centre, left),
--   spring = { stiffness =, length =, points = { { x =, y =, z_body =, z_pillar = } } } (left, mirrored; x
--   and y relative to the wheel centre, z relative to the wheel-centre height at design),
--   damper = { force = function(x, v), points = { same } },
--   stabilizer = { stiffness = (bar torsion, N m/rad), arm = (lever length) } }
-- Kinematics per side: a pillar slides along the body's z through the wheel centre (prismatic NAME_L_travel,
-- the wheel travel), the upright turns on it about the same vertical line (revolute NAME_L_kingpin, the steer
-- angle, held by the tie rod that the model connects to the steering), the wheel spins on the upright
-- (NAME_L_spin). A sliding pillar is the kinematic limit of a double wishbone with long, parallel, equal arms:
-- no camber or track change with travel, motion ratio 1; kingpin through the wheel centre (no caster,
-- inclination or scrub). 3 coordinates per side; the tie rod takes one, leaving travel and spin.
-- The anti-roll bar is an angular spring between its ends: its arms (length `arm`) are linked to the pillars,
-- so it twists by (s_L - s_R) / arm and pushes each pillar with k (s_L - s_R) / arm^2 (a force on the
-- prismatic coordinate, declared as a `torque` on that joint).
-- Returns { travel = {L, R}, kingpin = {L, R}, spins = {L, R}, uprights = {L, R}, wheels = {L, R},
--   tie_points = {L = {body, at}, R = ...}, tyres = {...}, springs = {...}, dampers = {...}, bar = {...} }.
return function(a)
  local n = a.name
  local out = { travel = {}, kingpin = {}, spins = {}, uprights = {}, wheels = {}, tie_points = {}, tyres = {},
    springs = {}, dampers = {}, bar = {} }
  for _, side in ipairs { { "L", 1 }, { "R", -1 } } do
    local s, sg = side[1], side[2]
    local c = n .. "_" .. s
    local centre = { a.at[1], sg * a.at[2], a.at[3] }
    body(c .. "_pillar") { mass = a.pillar.mass, inertia = a.pillar.inertia }
    prismatic(c .. "_travel") { parent = a.body, child = c .. "_pillar", origin = centre, axis = { 0, 0, 1 } }
    body(c .. "_upright") { mass = a.upright.mass, inertia = a.upright.inertia }
    revolute(c .. "_kingpin") { parent = c .. "_pillar", child = c .. "_upright", axis = { 0, 0, 1 } }
    body(c .. "_wheel") { mass = a.wheel.mass, inertia = a.wheel.inertia }
    revolute(c .. "_spin") { parent = c .. "_upright", child = c .. "_wheel", axis = { 0, 1, 0 } }
    local t = a.wheel.tyre
    tyre(c) {
      body = c .. "_wheel", axis = { 0, 1, 0 }, radius = t.radius, stiffness = t.stiffness, damping = t.damping,
      longitudinal = t.longitudinal, lateral = t.lateral, speed_eps = t.speed_eps, road = a.road,
    }
    out.travel[s], out.kingpin[s], out.spins[s] = c .. "_travel", c .. "_kingpin", c .. "_spin"
    out.uprights[s], out.wheels[s], out.tyres[#out.tyres + 1] = c .. "_upright", c .. "_wheel", c
    out.tie_points[s] = { c .. "_upright", { a.steer_arm.x, sg * a.steer_arm.y, 0 } }
    for _, kl in ipairs { { "springs", a.spring }, { "dampers", a.damper } } do
      local kind, list = kl[1], kl[2]
      for i, p in ipairs(list and list.points or {}) do
        local en = string.format("%s_%s%d", c, kind == "springs" and "air" or "damper", i)
        local fields = {
          a = { c .. "_pillar", { p.x, sg * p.y, p.z_pillar } },
          b = { a.body, { centre[1] + p.x, centre[2] + sg * p.y, centre[3] + p.z_body } },
        }
        if kind == "springs" then
          fields.stiffness, fields.length = list.stiffness, list.length
        else
          fields.force = list.force
        end
        spring(en)(fields)
        out[kind][#out[kind] + 1] = en
      end
    end
  end
  if a.stabilizer then
    local k = a.stabilizer.stiffness / a.stabilizer.arm ^ 2
    local jl, jr = out.travel.L, out.travel.R
    torque(n .. "_bar_L") { joint = jl, value = function(t, s) return -k * (s.z[jl] - s.z[jr]) end }
    torque(n .. "_bar_R") { joint = jr, value = function(t, s) return k * (s.z[jl] - s.z[jr]) end }
    out.bar = { n .. "_bar_L", n .. "_bar_R" }
  end
  return out
end
