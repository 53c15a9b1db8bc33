-- sedan.lua: the 15-DOF, 12-rod sedan of seeds/002.md §4 (MacPherson front, five-rod multi-link rear,
-- driven steering rack, Pacejka tyres on a flat road), built from models/lib parts.
-- Topology: seeds/002.md §4.2 (Tables 7-10): 33 relative coordinates, 18 loop equations (12 rods + 2 cut
-- spherical joints x 3), 33 moving bodies of which 19 auxiliary, 15 DOF = 14 independent + 1 driven rack.
-- Data: the paper gives none but the rod masses (Table 9); everything else is Project Chrono's sedan
-- (/work/shared/vehicle-data, every number with its file and key in models/lib/sedan_data.lua; the front
-- MacPherson geometry is Chrono's generic one translated onto the sedan's wheel centre).
-- Manoeuvre (the paper's slalom at 30 m/s; its steering law is not given, seeds/002.md §4.4 item 7):
-- the rack travel is rack_amp * (sin(w t) - w t exp(-w t)), w = 2 pi 0.5 Hz. 0.5 Hz at 30 m/s is a gate
-- every 30 m, the frequency of ISO 7401's sine steering tests. The second term starts the sine smoothly
-- (travel and rate 0 at t = 0, so the run starts from the static pose of the straight car) and has the
-- integral -1/w that cancels the sine's mean: the heading then oscillates about the initial direction
-- (a plain sine from rest leaves a mean heading rack_amp/w and the car slaloms along a slanted line).
-- It also keeps the law's derivatives well scaled at every t, which `mbgen check` samples in [-1, 1)
-- (a tanh fade-in has exponentially small tails there, where central differences cannot see it).
-- rack_amp = 4.8 mm (6 % of the rack's 81 mm travel) turns the front struts by about ±0.9 deg and gives
-- a peak lateral acceleration of about 4 m/s^2 (measured, README), the level of ISO 7401, well inside
-- the tyres' grip (mu 1.05). A positive rack travel (to the left) steers the wheels to the right: the
-- steering arms are behind the axle. rack_amp = 0 (`--set rack_amp=0`, a design name: no recompile) is
-- the straight line at 30 m/s.
-- Coasting: no drive torque. `--set conservative=1` (a parameter: its own build) leaves out the tyres and the
-- dampers: the car flies, and its energy is conserved, which is how the rod modes are checked (README).
-- Initial state: design position (all coordinates 0: every loop closed exactly), chassis at the height
-- where the tyres carry the estimated weight, forward speed 30 m/s, wheel spins 30 / R (loaded radius);
-- `mbgen run --static` replaces the pose by the static equilibrium (tyre loads = weight), keeping them.
model "sedan"
description "15-DOF 12-rod sedan: MacPherson front, multi-link rear, slalom at 30 m/s (Pan et al. 2017, Chrono sedan data)"

local D = use "sedan_data"
local pac = use "pacejka"
local roads = use "roads"

gravity { 0, 0, -D.g }

-- The manoeuvre: rack travel (m, + moves the rack to the left) as a function of time.
design { rack_amp = 0.0048 }
parameter { conservative = 0 }
local w = 2 * pi * 0.5
local function rack_position(t)
  return rack_amp * (sin(w * t) - w * t * exp(-w * t))
end

local mf = pac(D.tir, D.mu_scale)
local wheel = {
  mass = D.wheel.mass, inertia = D.wheel.inertia,
  tyre = conservative == 0 and {
    radius = D.tir.UNLOADED_RADIUS, stiffness = D.tir.VERTICAL_STIFFNESS, damping = D.tir.VERTICAL_DAMPING,
    longitudinal = mf.longitudinal, lateral = mf.lateral,
  } or nil,
}
if conservative ~= 0 then D.front.spring.damping, D.rear.spring.damping = 0, 0 end
local road = roads.flat()
local at = { 0, 0, D.chassis_height }

-- Declaration order gives the coordinate blocks RL 7, RR 7 (rooted at ground), chassis 6, rack 1, FL 6,
-- FR 6 (the paper's blocks, numbered root to leaves instead of leaves to root).
local rear = {}
for _, side in ipairs { "left", "right" } do
  rear[side] = use "multilink" {
    side = side, prefix = side == "left" and "rl" or "rr", chassis = "chassis", ground_origin = at,
    data = D.rear, rod_mass = D.rod_mass, wheel = wheel, road = road,
  }
end
local ch = use "chassis" { name = "chassis", mass = D.chassis.mass, com = D.chassis.com, inertia = D.chassis.inertia, at = at }
local rack = use "steering_rack" {
  name = "rack", chassis = "chassis", at = D.rack_location, mass = D.rack.mass, inertia = D.rack.inertia,
  position = rack_position,
}
local front = {}
for _, side in ipairs { "left", "right" } do
  front[side] = use "macpherson" {
    side = side, prefix = side == "left" and "fl" or "fr", chassis = "chassis", rack = rack.body,
    rack_origin = rack.origin, data = D.front, tierod_mass = D.rod_mass.tierod, wheel = wheel, road = road,
  }
end

point "cg" { body = "chassis", at = D.chassis.com }

-- Paper §3: one fixed set of independent coordinates, the chassis 6, the four wheel spins and one travel
-- per corner (rear: the knuckle's height; front: the control arm angle); the rack is driven.
independent {
  ch.x, ch.y, ch.z, ch.yaw, ch.pitch, ch.roll,
  rear.left.spin, rear.right.spin, front.left.spin, front.right.spin,
  rear.left.travel, rear.right.travel, front.left.travel, front.right.travel,
}

-- Wheel spin V / R with R the loaded rolling radius (unloaded radius minus the static deflection under a
-- quarter of the total mass), so the tyres start without longitudinal slip.
local V = 30.0
local spin = V / (D.tir.UNLOADED_RADIUS - D.total_mass_estimate * D.g / 4 / D.tir.VERTICAL_STIFFNESS)
initial_velocity {
  [ch.x] = V, [rear.left.float .. ".x"] = V, [rear.right.float .. ".x"] = V,
  [rear.left.spin] = spin, [rear.right.spin] = spin, [front.left.spin] = spin, [front.right.spin] = spin,
}
simulate { t_end = 5, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
