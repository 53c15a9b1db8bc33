-- lib/steering_rack.lua: a steering rack sliding along y on the chassis (seeds/002.md §4.2 body 15).
-- steering_rack { name =, chassis =, at = {x,y,z} (rack frame origin in the chassis frame), mass =,
--   inertia =, position = number or function(t) (rheonomic: a `drive`, the rack travel in m, + = left)
--   | force = value (a number, input or function(t, s): the rack force in N on its prismatic joint) }
-- Exactly one of `position` and `force`; with neither the rack is free (and needs something to hold it).
-- Names: body NAME, prismatic NAME_slide (coordinate NAME_slide), drive NAME_drive or torque NAME_force.
return function(a)
  body(a.name) { mass = a.mass, inertia = a.inertia }
  local j = a.name .. "_slide"
  prismatic(j) { parent = a.chassis, child = a.name, origin = a.at, axis = { 0, 1, 0 } }
  local out = { body = a.name, coord = j, origin = a.at }
  if a.position ~= nil and a.force ~= nil then error("steering_rack: give position or force, not both", 2) end
  if a.position ~= nil then
    drive(a.name .. "_drive") { joint = j, position = a.position }
    out.drive = a.name .. "_drive"
  elseif a.force ~= nil then
    torque(a.name .. "_force") { joint = j, value = a.force }
    out.force = a.name .. "_force"
  end
  return out
end
