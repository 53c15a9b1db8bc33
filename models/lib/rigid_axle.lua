-- lib/rigid_axle.lua: a rigid (beam) axle with bounce and roll relative to the body, dual wheels per side, air springs, dampers and an anti-roll bar.
-- rigid_axle {
--   name =, body = (the sprung body it hangs from), at = {x,y,z} (axle centre in the body frame at design),
--   axle = { mass =, inertia = { Ixx, Iyy, Izz } } (the beam, about its centre, vehicle axes),
--   wheel = { y = (hub centre, left; the right is mirrored), mass =, inertia = { Ixx, Iyy, Izz } (about the
--     hub centre, Iyy the spin), separation = (distance between the two tyres of a dual set; 0 or nil: one
--     tyre), tyre = { radius =, stiffness =, damping =, longitudinal =, lateral =, speed_eps = } },
--   road = function(x, y),
--   springs = { stiffness =, length = (free length), points = { { x =, y =, z_body =, z_axle = }, ... } },
--   dampers = { force = function(x, v) (tension, v the extension rate), points = { same as springs } },
--   stabilizer = { stiffness = (torsion of the bar, N m/rad), arm = (lever length), y = (drop-link y) },
--   torque = (drive torque on each hub, a value or function(t, s); positive drives forward) }
-- The guide: a prismatic joint NAME_bounce (along the body's z) carries a massless guide body NAME_guide, and
-- a revolute NAME_roll (about the body's x through the axle centre) carries the beam NAME. Relative to the
-- body the beam can only move vertically and roll (2 degrees of freedom), which is how Chrono's leaf-spring
-- axle templates guide their axle tube (vehicle-data/README.md §4.5); the guide takes the longitudinal and
-- lateral forces and the pitch and yaw moments that links and a Panhard rod would.
-- Dual wheels: the two wheels of a side are bolted to one hub and turn together, so one body per side
-- (NAME_L, NAME_R) carries both tyres (NAME_L_in / NAME_L_out), each `separation / 2` from the hub centre.
-- Springs and dampers: vertical lines from the beam to the body, given for the left side and mirrored, each
-- point at x (relative to the axle centre, along the body) and y (absolute), z_body and z_axle relative to
-- the axle centre's height at design. The anti-roll bar is an angular spring between its two ends: its arms
-- (length `arm`) follow the beam at y = +-`y`, so the bar twists by 2 y phi / arm when the beam rolls by
-- phi, which is the joint spring NAME_bar on NAME_roll with stiffness k (2 y / arm)^2.
-- Returns { axle, guide, bounce, roll, wheels = {L, R}, spins = {L, R}, tyres = {...}, springs = {...},
--   dampers = {...}, bar, torques = {...} }.
return function(a)
  local n, x0, y0, z0 = a.name, a.at[1], a.at[2], a.at[3]
  local out = { axle = n, guide = n .. "_guide", bounce = n .. "_bounce", roll = n .. "_roll",
    wheels = {}, spins = {}, tyres = {}, springs = {}, dampers = {}, torques = {} }
  -- A massless guide: its coordinate moves the beam, so the mass matrix stays regular.
  body(out.guide) { mass = 0, inertia = { 0, 0, 0 } }
  prismatic(out.bounce) { parent = a.body, child = out.guide, origin = { x0, y0, z0 }, axis = { 0, 0, 1 } }
  body(n) { mass = a.axle.mass, inertia = a.axle.inertia }
  revolute(out.roll) { parent = out.guide, child = n, axis = { 1, 0, 0 } }

  local w = a.wheel
  local half = (w.separation or 0) / 2
  for _, side in ipairs { { "L", 1 }, { "R", -1 } } do
    local s, sg = side[1], side[2]
    local wn = n .. "_" .. s
    body(wn) { mass = w.mass, inertia = w.inertia }
    -- Spin axis +y on both sides, so a positive spin rolls forward and a positive torque drives forward.
    revolute(wn .. "_spin") { parent = n, child = wn, origin = { 0, sg * w.y, 0 }, axis = { 0, 1, 0 } }
    out.wheels[s], out.spins[s] = wn, wn .. "_spin"
    local t = w.tyre
    local tyres = half > 0 and { { "_in", -sg * half }, { "_out", sg * half } } or { { "", 0 } }
    for _, ty in ipairs(tyres) do
      tyre(wn .. ty[1]) {
        body = wn, at = { 0, ty[2], 0 }, axis = { 0, 1, 0 }, radius = t.radius, stiffness = t.stiffness,
        damping = t.damping, longitudinal = t.longitudinal, lateral = t.lateral, speed_eps = t.speed_eps,
        road = a.road,
      }
      out.tyres[#out.tyres + 1] = wn .. ty[1]
    end
    if a.torque ~= nil then
      torque(wn .. "_torque") { joint = wn .. "_spin", value = a.torque }
      out.torques[#out.torques + 1] = wn .. "_torque"
    end
    -- Air springs (linear in the elongation: stiffness and free length) and dampers (the model's law).
    for _, kl in ipairs { { "springs", a.springs }, { "dampers", a.dampers } } do
      local kind, list = kl[1], kl[2]
      for i, p in ipairs(list and list.points or {}) do
        local en = string.format("%s_%s_%s%d", n, kind == "springs" and "air" or "damper", s, i)
        local fields = {
          a = { n, { p.x, sg * p.y, p.z_axle } },
          b = { a.body, { x0 + p.x, sg * p.y, z0 + p.z_body } },
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
    local st = a.stabilizer
    out.bar = n .. "_bar"
    joint_spring(out.bar) { joint = out.roll, stiffness = st.stiffness * (2 * st.y / st.arm) ^ 2, rest = 0 }
  end
  return out
end
