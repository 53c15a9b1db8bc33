-- coach.lua: the 16-DOF coach of seeds/003.md §3.3 (two-part body with torsion, independent steered front, rigid rear axle with dual wheels, air springs, bilinear dampers, anti-roll bars, Pacejka tyres) in a guided 2-s lane change at 50 km/h.
-- Data: seeds/003.md §3.3 gives the topology, the loaded mass 17,048 kg, the steering law and the speed; no other
-- number. Everything else starts from Chrono's city bus (/work/shared/vehicle-data/chrono/citybus/*, cited as
-- FILE: key) adapted to the seed's topology; numbers marked "invented" are our engineering choices.
--
-- Degrees of freedom (16, counted as the seed counts them): 24 coordinates
--   body_front_float (6), torsion (1), front per side travel, kingpin, spin (6), steer (1),
--   rear bounce, roll (2), rear spins (2)
-- minus the 2 tie rods (rank 2) = 16 with the steering actuator `steer` counted as a degree of freedom that is
-- kinematically guided; the drive row steer - delta(t) = 0 then leaves 15 free ones. The split matches the
-- seed's: 6 front body + 1 torsion + 2 front travel + 2 front spin + 2 rear bounce/roll + 2 rear spin + 1 steering.
--
-- Initial state: the design pose is the static equilibrium of a level body at rest by construction: the air
-- springs' free lengths carry the static axle loads of the sprung mass at the design lengths, and the body and
-- rear axle heights put every wheel centre at the loaded radius R - F/k of its tyre; everything moves forward at
-- 50 km/h with the wheels rolling (spin = v / loaded radius). No rolling resistance or air drag is modelled, so
-- the speed control has nothing to hold against but the tyres' slip in the manoeuvre.
model "coach"
description "16-DOF coach (seeds/003.md §3.3): two-part body, independent front, rigid dual-wheel rear axle, lane change at 50 km/h"

local g = 9.81
gravity { 0, 0, -g }

-- Run-time settings (design symbols, so tests switch them without regenerating): the steering amplitude
-- (seeds/003.md §3.3: 0.013 rad) and the gain of the speed control in N per m/s of speed error.
design { steer_amp = 0.013, speed_gain = 17048.0 }

local V0 = 50 / 3.6                     -- seeds/003.md §3.3: the speed control holds 50 km/h

-- Tyre: CityBus_Pac02Tire.tir (315/80 R22.5) through lib/pacejka.lua; friction as in the .tir (scale 1).
local tir = {                           -- CityBus_Pac02Tire.tir: [LONGITUDINAL_COEFFICIENTS], [LATERAL_...]
  PCX1 = 1.7204, PDX1 = 0.77751, PEX1 = 0.46659, PKX1 = 14.848,
  PCY1 = 1.5874, PDY1 = 0.73957, PEY1 = 0.37562, PKY1 = -10.289, PKY2 = 3.3343,
}
local mf = use "pacejka" (tir)
local R_TYRE = 0.548                    -- CityBus_Pac02Tire.tir: UNLOADED_RADIUS
local K_TYRE = 1.0e6                    -- CityBus_Pac02Tire.tir: VERTICAL_STIFFNESS
local C_TYRE = 5000                     -- CityBus_Pac02Tire.tir: VERTICAL_DAMPING
local tyre_data = { radius = R_TYRE, stiffness = K_TYRE, damping = C_TYRE, longitudinal = mf.longitudinal,
  lateral = mf.lateral, speed_eps = 0.1 }
local road = (use "roads").flat()

-- Geometry (vehicle frame: x forward, y left, z up, origin on the front axle line at the height where
-- CityBus_Vehicle.json puts its origin, so the wheel centres are at z = 0.545 by design).
local WB = 7.184                        -- CityBus_Vehicle.json: Wheelbase (rear Suspension Location x)
local Z_WC = 0.545                      -- CityBus_Vehicle.json: Suspension Location z (wheel-centre height)
local Y_FRONT = 1.0075                  -- CityBus_ToeLeafspringAxle.json: Spindle COM y (front half track)
local Y_REAR = 0.93986                  -- CityBus_LeafspringAxle.json: Spindle COM y (rear hub)
local DUAL = 0.33528                    -- CityBus_Vehicle.json: Wheel Separation (rear dual tyres)

-- Rotating and unsprung masses (Chrono lumps spindle + rim + tyre into one body, README §3.4).
local spindle = { m = 60.2905, I = { 0.2700752, 0.4822912, 0.2700752 } }   -- CityBus_*Axle.json: Spindle
local rim = { m = 30.0, I = { 0.6, 0.63, 0.6 } }                           -- CityBus_Wheel.json
local tyre_b = { m = 68.6, I = { 6.104, 11.144, 6.104 } }                 -- CityBus_Pac02Tire.json
local SHAFT = 2.624                     -- CityBus_LeafspringAxle.json: Axle Inertia (driveline, rear spin)
local front_wheel = {
  mass = spindle.m + rim.m + tyre_b.m,
  inertia = { spindle.I[1] + rim.I[1] + tyre_b.I[1], spindle.I[2] + rim.I[2] + tyre_b.I[2],
    spindle.I[3] + rim.I[3] + tyre_b.I[3] },
  tyre = tyre_data,
}
-- Rear hub: spindle, two rims and two tyres at +-DUAL/2 (parallel axes for Ixx, Izz), the shaft on the spin.
local off = 2 * (rim.m + tyre_b.m) * (DUAL / 2) ^ 2
local rear_wheel = {
  y = Y_REAR, separation = DUAL, tyre = tyre_data,
  mass = spindle.m + 2 * (rim.m + tyre_b.m),
  inertia = { spindle.I[1] + 2 * (rim.I[1] + tyre_b.I[1]) + off, spindle.I[2] + 2 * (rim.I[2] + tyre_b.I[2]) + SHAFT,
    spindle.I[3] + 2 * (rim.I[3] + tyre_b.I[3]) + off },
}
local upright = { mass = 41.0, inertia = { 0.656, 0.656, 0.656 } }       -- CityBus_ToeLeafspringAxle.json: Knuckle
local pillar = { mass = 60.0, inertia = { 2.0, 2.0, 0.5 } }              -- invented: the arms of an independent corner
local axle = { mass = 508.4, inertia = { 145.6976, 0.5084, 145.6976 } }  -- CityBus_LeafspringAxle.json: Axle Tube
local crank = { mass = 1.605, inertia = { 0.00638, 0.00756, 0.00150 } }  -- CityBus_RotaryArm.json: Pitman Arm

local M_TOTAL = 17048                   -- seeds/003.md §3.3: total loaded mass
local m_front_unsprung = 2 * (pillar.mass + upright.mass + front_wheel.mass)
local m_rear_unsprung = axle.mass + 2 * rear_wheel.mass
-- The load (passengers, luggage) is sprung: the body takes what the components leave of 17,048 kg.
local M_BODY = M_TOTAL - m_front_unsprung - m_rear_unsprung - crank.mass

-- Body: 12 m long (x from +2.7 to -9.3, invented: 2.7 m front overhang, 7.184 m wheelbase), split at
-- x = -3.3 into two 6 m parts joined by the torsion revolute. The whole body's COM is Chrono's (x = -4,
-- z = 0.86, CityBus_Chassis.json: Centroidal Frame Location), which puts 61.7 % of the body in the rear part
-- (a rear-engined coach). Each part's inertia is a uniform block 6 m x 2.55 m x H about its centre, H chosen
-- so that the whole body's roll inertia is Chrono's Ixx scaled by mass (13.5e3 kg m^2 for 13 t); Chrono's
-- Iyy (13.5e3) and Izz (115.1e3) are too small for a 12 m body (vehicle-data/README.md §8) and are not used.
local X_SPLIT, Z_COM = -3.3, 0.86
local XF, XR = -0.3, -6.3               -- centres of the two parts
local frac_r = (-4 - XF) / (XR - XF)    -- COM at x = -4
local m_bf, m_br = M_BODY * (1 - frac_r), M_BODY * frac_r
local W_BODY = 2.55                     -- invented: coach width
local H_BODY = math.sqrt(12 * 13.5e3 / 13000 - W_BODY ^ 2)
local function block(m) return { m * (W_BODY ^ 2 + H_BODY ^ 2) / 12, m * (36 + H_BODY ^ 2) / 12, m * (36 + W_BODY ^ 2) / 12 } end

-- Static loads: the sprung mass (body parts and steering crank) on the air springs by moment balance
-- about the axles (the torsion revolute passes vertical force and pitch moment, so for a level symmetric
-- pose the two parts act as one), every tyre carries its axle's share plus its unsprung mass.
local X_CRANK = 0
local m_sprung = M_BODY + crank.mass
local x_sprung = (m_bf * XF + m_br * XR + crank.mass * X_CRANK) / m_sprung
local F_spring_front = m_sprung * g * (x_sprung + WB) / WB / 2          -- per side
local F_spring_rear = m_sprung * g * (-x_sprung) / WB / 2               -- per side (two springs)
local Fz_front = F_spring_front + (pillar.mass + upright.mass + front_wheel.mass) * g
local Fz_rear = (F_spring_rear + (axle.mass / 2 + rear_wheel.mass) * g) / 2   -- per tyre (dual)
local D_FRONT, D_REAR = Fz_front / K_TYRE, Fz_rear / K_TYRE             -- static tyre deflections

-- Air springs: linear in elongation (seeds/003.md §3.3). Rates from ride frequencies (invented, usual for
-- air-sprung coaches, front below rear): k = m_corner (2 pi f)^2 with f = 1.1 Hz front, 1.2 Hz rear, the
-- sprung mass per corner from the static load (the tyre in series lowers f by about 5 %). Design lengths
-- 0.30 m (CityBus_*Axle.json: Spring Location Chassis z 0.3476 - Location Axle z 0.0476); free lengths so that
-- the static force acts at the design length.
local F_RIDE_FRONT, F_RIDE_REAR = 1.1, 1.2
local L_AIR = 0.30
local k_air_front = F_spring_front / g * (2 * math.pi * F_RIDE_FRONT) ^ 2
local k_air_rear = F_spring_rear / g * (2 * math.pi * F_RIDE_REAR) ^ 2 / 2    -- two springs per side
local L0_front = L_AIR + F_spring_front / k_air_front
local L0_rear = L_AIR + F_spring_rear / 2 / k_air_rear

-- Dampers: piecewise bilinear in the extension rate v (seeds/003.md §3.3): slope c_reb in rebound (v > 0),
-- c_comp in compression (v < 0), 3:1 (invented, usual for vehicle dampers), their mean giving a damping ratio
-- of 0.3 at the ride frequency: c = 2 * 0.3 * sqrt(k m_corner). Written with abs so that the law is one
-- expression: F = (c_reb + c_comp)/2 v + (c_reb - c_comp)/2 |v|; the force resists the motion (tension > 0
-- in rebound). Chrono's degressive dampers (CityBus_*Axle.json: Shock, 60.6 and 76.1 kN s/m) belong to
-- leaf-spring axles with 565 and 710 kN/m springs and are not used.
local ZETA = 0.3
local function bilinear(c)
  local c_reb, c_comp = 1.5 * c, 0.5 * c
  return function(x, v) return 0.5 * (c_reb + c_comp) * v + 0.5 * (c_reb - c_comp) * abs(v) end
end
local c_front = 2 * ZETA * math.sqrt(k_air_front * F_spring_front / g)
local c_rear = 2 * ZETA * math.sqrt(2 * k_air_rear * F_spring_rear / g) / 2   -- two dampers per side

-- Bodies and the torsion joint: the front part on the free joint (lib/chassis.lua), the rear part on a
-- longitudinal revolute at the split (axis at the COM height, invented) with a torsion spring of 3.0e6
-- N m/rad (invented: about 52 kN m/deg, the order of published coach body torsional stiffnesses).
local Z0 = (R_TYRE - D_FRONT) - Z_WC                                     -- body height: front tyres loaded
local ch = use "chassis" { name = "body_front", mass = m_bf, com = { XF, 0, Z_COM }, inertia = block(m_bf), at = { 0, 0, Z0 } }
body "body_rear" { mass = m_br, com = { XR - X_SPLIT, 0, 0 }, inertia = block(m_br) }
revolute "torsion" { parent = "body_front", child = "body_rear", origin = { X_SPLIT, 0, Z_COM }, axis = { 1, 0, 0 } }
joint_spring "torsion_spring" { joint = "torsion", stiffness = 3.0e6, rest = 0 }

-- Front corners (lib/coach_front.lua): wheel centres at (0, +-1.0075, 0.545). Air spring and damper on the
-- pillar, vertical, 0.25 m inboard of the wheel centre (invented); damper length 0.48 m
-- (CityBus_ToeLeafspringAxle.json: Shock Location Chassis z 0.4298, Location Axle z -0.0507). Steering arm:
-- the tie-rod joint 0.25 m behind and 0.10 m inboard of the wheel centre (invented; the Chrono knuckle's
-- tierod point is 0.50 m behind). Anti-roll bar: 7,800 N m/rad on 0.3 m arms (invented, a 35 mm steel bar
-- about 1.5 m long), which adds k (2 * 1.0075 / 0.3)^2 = 0.35 MN m/rad of roll stiffness.
local ARM_X, ARM_Y = -0.25, -0.10
local front = use "coach_front" {
  name = "front", body = "body_front", at = { 0, Y_FRONT, Z_WC }, pillar = pillar, upright = upright,
  wheel = front_wheel, road = road, steer_arm = { x = ARM_X, y = ARM_Y },
  spring = { stiffness = k_air_front, length = L0_front,
    points = { { x = 0, y = -0.25, z_pillar = 0.0476, z_body = 0.0476 + L_AIR } } },
  damper = { force = bilinear(c_front), points = { { x = -0.125, y = -0.30, z_pillar = -0.0507, z_body = 0.4298 } } },
  stabilizer = { stiffness = 7800, arm = 0.3 },
}

-- Steering (seeds/003.md §3.3: delta is the rotation of the steering actuator, which drives the rods). The
-- actuator is a central bell crank (CityBus_RotaryArm.json: Pitman Arm mass and inertia) turning about z on
-- the front body at the front axle line; its two arms reach back as far as the uprights' steering arms, so the
-- crank, tie rods and uprights form parallelograms and the wheels steer by delta (ratio 1, as Chrono's rotary
-- arm, whose +-27 deg gives the bus's 27 deg maximum steer, CityBus_Vehicle.json). Tie rods: massless rods.
-- delta(t) = 0.013 sin(pi t) for t in [0, 2] s and 0 after: sin(pi min(t, 2)) with min(t, 2) = (t + 2 - |t - 2|)/2.
body "steer_crank" { mass = crank.mass, inertia = crank.inertia }
revolute "steer" { parent = "body_front", child = "steer_crank", origin = { X_CRANK, 0, Z_WC }, axis = { 0, 0, 1 } }
local Y_CRANK = 0.35                    -- invented: crank arm half-width
for _, side in ipairs { { "L", 1 }, { "R", -1 } } do
  local s, sg = side[1], side[2]
  local tp = front.tie_points[s]
  local yo = sg * (Y_FRONT + ARM_Y)
  rod("tie_rod_" .. s) { a = { "steer_crank", { ARM_X, sg * Y_CRANK, 0 } }, b = tp, length = math.abs(yo - sg * Y_CRANK) }
end
drive "steering" { joint = "steer", position = function(t) return steer_amp * sin(pi * 0.5 * (t + 2 - abs(t - 2))) end }

-- Rear axle (lib/rigid_axle.lua) on the rear body part at x = -7.184, its centre lowered by the difference of
-- the static tyre deflections so that the body is level at rest. Four air springs, two per side 0.40 m ahead
-- of and behind the axle (invented, the usual coach layout) at y = 0.5142 (CityBus_LeafspringAxle.json: Spring
-- y); four dampers 0.25 m ahead and behind at y = 0.441, 0.38 m long (same file: Shock Location Axle y, z and
-- Location Chassis z). Anti-roll bar 31,500 N m/rad on 0.3 m arms with drop links at y = +-0.5 (invented, a
-- 50 mm bar), which adds k (2 * 0.5 / 0.3)^2 = 0.35 MN m/rad of roll stiffness. Drive: the speed control,
-- a proportional law on the front body's forward speed (ground x velocity; the heading changes by under
-- 0.02 rad in the manoeuvre) toward 50 km/h, the force speed_gain (V0 - vx) (17,048 N per m/s: a 1 s time
-- constant) shared by the two rear hubs at the loaded radius.
local Z_REAR = Z_WC + D_FRONT - D_REAR
local R_LOADED_REAR = R_TYRE - D_REAR
local rear = use "rigid_axle" {
  name = "rear", body = "body_rear", at = { -WB - X_SPLIT, 0, Z_REAR - Z_COM }, axle = axle, wheel = rear_wheel,
  road = road,
  springs = { stiffness = k_air_rear, length = L0_rear, points = {
    { x = 0.40, y = 0.5142, z_axle = 0.0476, z_body = 0.0476 + L_AIR },
    { x = -0.40, y = 0.5142, z_axle = 0.0476, z_body = 0.0476 + L_AIR } } },
  dampers = { force = bilinear(c_rear), points = {
    { x = 0.25, y = 0.441, z_axle = -0.0507, z_body = 0.3298 },
    { x = -0.25, y = 0.441, z_axle = -0.0507, z_body = 0.3298 } } },
  stabilizer = { stiffness = 31500, arm = 0.3, y = 0.5 },
  torque = function(t, s) return 0.5 * speed_gain * (V0 - s.zd[ch.x]) * R_LOADED_REAR end,
}

point "cog_front" { body = "body_front", at = { XF, 0, Z_COM } }
point "driver" { body = "body_front", at = { 1.8, 0.5, 1.2 } }     -- invented, for lateral acceleration

initial_velocity {
  [ch.x] = V0,
  front_L_spin = V0 / (R_TYRE - D_FRONT), front_R_spin = V0 / (R_TYRE - D_FRONT),
  rear_L_spin = V0 / R_LOADED_REAR, rear_R_spin = V0 / R_LOADED_REAR,
}
simulate { t_end = 4, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
