-- lib/chassis.lua: the chassis (sprung mass) on a free joint to ground, rotations yaw-pitch-roll.
-- chassis { name =, mass =, com = {x,y,z}, inertia = { Ixx, Iyy, Izz[, Ixy, Ixz, Iyz] }, at = {x,y,z} }
-- The body frame is the vehicle frame (ISO: x forward, y left, z up); `at` places it at z = 0 of the free joint.
-- Coordinates NAME_float.x .y .z (translations in ground axes) then .rz .ry .rx (yaw, pitch, roll): the
-- sequence zyx keeps the yaw free of the pitch/roll singularity, which a manoeuvre never reaches.
return function(a)
  body(a.name) { mass = a.mass, com = a.com, inertia = a.inertia }
  free(a.name .. "_float") { parent = "ground", child = a.name, origin = a.at or { 0, 0, 0 }, sequence = "zyx" }
  local j = a.name .. "_float"
  return { body = a.name, x = j .. ".x", y = j .. ".y", z = j .. ".z", yaw = j .. ".rz", pitch = j .. ".ry", roll = j .. ".rx" }
end
