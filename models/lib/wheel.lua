-- lib/wheel.lua: a wheel: its body, the spin joint on its carrier (knuckle, axle), its tyre, and an optional
-- drive/brake torque on the spin joint.
-- wheel { name =, carrier =, at = {x,y,z} (wheel centre in the carrier frame), axis = spin axis in the carrier
--   frame (default {0,1,0}: y left), mass =, inertia = { Ixx, Iyy, Izz } (about the centre, Iyy the spin
--   moment when axis is y), tyre = { radius =, stiffness =, damping =, longitudinal =, lateral =,
--   speed_eps = } (nil: no tyre), road = function(x, y), torque = value (drive positive forward) }
-- Names: body NAME, revolute NAME_spin (coordinate NAME_spin), tyre NAME, torque NAME_torque.
return function(a)
  local axis = a.axis or { 0, 1, 0 }
  body(a.name) { mass = a.mass, inertia = a.inertia }
  revolute(a.name .. "_spin") { parent = a.carrier, child = a.name, origin = a.at, axis = axis }
  local t = a.tyre
  if t then
    tyre(a.name) {
      body = a.name, axis = axis, radius = t.radius, stiffness = t.stiffness, damping = t.damping,
      longitudinal = t.longitudinal, lateral = t.lateral, speed_eps = t.speed_eps, road = a.road,
    }
  end
  if a.torque ~= nil then torque(a.name .. "_torque") { joint = a.name .. "_spin", value = a.torque } end
  return { body = a.name, spin = a.name .. "_spin" }
end
