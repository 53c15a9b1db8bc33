-- lib/multilink.lua: one five-rod multi-link rear corner (seeds/002.md §4.2 rear subsystem).
-- multilink { side = "left"|"right", prefix =, chassis =, ground_origin = {x,y,z} (ground position of the
--   chassis frame origin at z = 0), wheel = { mass, inertia, tyre = {...} }, road =, data = { spindle,
--   upright_com, upright_mass, upright_inertia, links = { { name, chassis point, upright point }, x5 },
--   spring = { knuckle, chassis, stiffness, damping, preload } }, rod_mass = { [link name] = kg } }
-- Points: LEFT corner, vehicle (= chassis body) frame; side "right" mirrors y.
-- Tree (7 coordinates, 5 auxiliary bodies, the paper's topology, §4.2): the knuckle hangs from GROUND on a
-- 6-DOF free joint (3P + 3R, rotations z y x) and carries the wheel; it meets the chassis only through
-- its five rods (5 equations: 6 - 5 = 1 wheel travel) and the spring-damper.
-- Knuckle frame: at the wheel centre, parallel to the chassis at z = 0; the free joint's origin is the
-- wheel centre's ground position at the design pose, so z = 0 is the design position, every rod closed.
-- Returns { knuckle, wheel, spin, float, coords = { ... }, rods = { ... } }.
return function(a)
  local s = a.side == "right" and -1 or 1
  local d = a.data
  local p = a.prefix
  local function M(v) return { v[1], s * v[2], v[3] } end
  local function sub(u, v) return { u[1] - v[1], u[2] - v[2], u[3] - v[3] } end
  local function add(u, v) return { u[1] + v[1], u[2] + v[2], u[3] + v[3] } end
  local function dist(u, v) local w = sub(u, v); return math.sqrt(w[1] ^ 2 + w[2] ^ 2 + w[3] ^ 2) end

  local spindle = M(d.spindle)
  local knuckle = p .. "_knuckle"
  body(knuckle) { mass = d.upright_mass, com = sub(M(d.upright_com), spindle), inertia = d.upright_inertia }
  free(p .. "_float") { parent = "ground", child = knuckle, origin = add(a.ground_origin, spindle), sequence = "zyx" }

  local rods = {}
  for _, l in ipairs(d.links) do
    local name, pc, pu = l[1], M(l[2]), M(l[3])
    local r = p .. "_" .. name
    rod(r) { a = { a.chassis, pc }, b = { knuckle, sub(pu, spindle) }, length = dist(pc, pu), mass = a.rod_mass[name] }
    rods[#rods + 1] = r
  end

  -- Spring-damper chassis -- knuckle, preloaded like the front coil-over (free length = design length +
  -- preload / k).
  local sp = d.spring
  local kc, cc = M(sp.knuckle), M(sp.chassis)
  spring(p .. "_spring") {
    a = { a.chassis, cc }, b = { knuckle, sub(kc, spindle) },
    stiffness = sp.stiffness, damping = sp.damping, length = dist(kc, cc) + sp.preload / sp.stiffness,
  }

  local w = use "wheel" {
    name = p .. "_wheel", carrier = knuckle, at = { 0, 0, 0 }, mass = a.wheel.mass, inertia = a.wheel.inertia,
    tyre = a.wheel.tyre, road = a.road,
  }
  local f = p .. "_float"
  return {
    knuckle = knuckle, wheel = w.body, spin = w.spin, tyre = w.body, float = f, rods = rods, spring = p .. "_spring",
    travel = f .. ".z",
    coords = { f .. ".x", f .. ".y", f .. ".z", f .. ".rz", f .. ".ry", f .. ".rx", w.spin },
  }
end
