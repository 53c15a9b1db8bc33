-- coach.lua: the 16-DOF coach of seeds/003.md §3.3 (two-part body with torsion, independent steered front, rigid rear axle with dual wheels, air springs, bilinear dampers, anti-roll bars, Pacejka tyres) in a guided 2-s lane change at 50 km/h.
-- Data: seeds/003.md §3.3 gives the topology, the loaded mass 17,048 kg, the steering law and the speed; no other
-- number. Everything else starts from Chrono's city bus (/work/shared/vehicle-data/chrono/citybus/*, cited as
-- FILE: key) adapted to the seed's topology; numbers marked "invented" are our engineering choices.
--
-- Degrees of freedom (16, counted as the seed counts them): 24 coordinates
--   body_front_float (6), torsion (1), per front corner the two arms, the knuckle's ball joint (3) and the
--   spin (12), steer (1), rear bounce and roll (2), rear spins (2)
-- minus the rank (8) of the loop equations (per front corner the upper ball joint, 3, and the tie rod, 1) = 16,
-- with the steering actuator `steer` counted as a degree of freedom that is kinematically guided; the drive row
-- steer - delta(t) = 0 then leaves 15 free ones. The split matches the seed's: 6 front body + 1 torsion +
-- 2 front travel + 2 front spin + 2 rear bounce/roll + 2 rear spin + 1 steering.
--
-- Initial state: the design pose is the static equilibrium of a level body at rest by construction (`--static`
-- moves it by 0.03 mm): the air springs' free lengths carry the static loads at the design lengths, and the
-- body and rear axle heights put every wheel centre at the loaded radius R - F/k of its tyre; everything moves
-- forward at 50 km/h with the wheels rolling (spin = v / loaded radius). No rolling resistance or air drag is
-- modelled, so the speed control has nothing to hold against but the tyres' slip in the manoeuvre.
model "coach"
description "16-DOF coach (Callejo et al. 2014): two-part body, independent front, rigid dual-wheel rear axle, lane change at 50 km/h"

local g = 9.81
gravity { 0, 0, -g }

-- Run-time settings (design symbols, so tests switch them without regenerating): the steering amplitude
-- (seeds/003.md §3.3: 0.013 rad), the gain of the speed control in N per m/s of speed error, and the height of
-- a Gaussian bump across the road 6 m ahead of the front axle (0.25 m wide; 0: a flat road) for ride tests.
design { steer_amp = 0.013, speed_gain = 17048.0, bump_height = 0.0 }

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
local road = (use "roads").bumps { { x = 6, height = bump_height, width = 0.25 } }

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
}
-- Rear hub: spindle, two rims and two tyres at +-DUAL/2 (parallel axes for Ixx, Izz), the shaft on the spin.
local off = 2 * (rim.m + tyre_b.m) * (DUAL / 2) ^ 2
local rear_wheel = {
  y = Y_REAR, separation = DUAL, tyre = tyre_data,
  mass = spindle.m + 2 * (rim.m + tyre_b.m),
  inertia = { spindle.I[1] + 2 * (rim.I[1] + tyre_b.I[1]) + off, spindle.I[2] + 2 * (rim.I[2] + tyre_b.I[2]) + SHAFT,
    spindle.I[3] + 2 * (rim.I[3] + tyre_b.I[3]) + off },
}
local axle = { mass = 508.4, inertia = { 145.6976, 0.5084, 145.6976 } }  -- CityBus_LeafspringAxle.json: Axle Tube
local crank = { mass = 1.605, inertia = { 0.00638, 0.00756, 0.00150 } }  -- CityBus_RotaryArm.json: Pitman Arm

-- Front corners: lib/double_wishbone.lua with Chrono's generic/suspension/DoubleWishbone.json hardpoints (left,
-- suspension frame) scaled by S = 1.0075 / 1.100 so that the wheel centre lands at the bus's front half track
-- (Chrono has no independent bus suspension). Knuckle: the bus's (CityBus_ToeLeafspringAxle.json: Knuckle
-- mass 41 kg, inertia 0.656); arms 20 kg (upper) and 40 kg (lower), invented for a 7-t axle (the generic
-- 5.8 and 24 kg belong to a HMMWV corner), their inertias the generic ones times mass ratio times S^2.
local S = Y_FRONT / 1.100
local function sc(p) return { S * p[1], S * p[2], S * p[3] } end
local function arm_inertia(I, m, m0) return { I[1] * m / m0 * S * S, I[2] * m / m0 * S * S, I[3] * m / m0 * S * S } end
local DW = {                            -- generic/suspension/DoubleWishbone.json, scaled
  spindle = { com = sc { -0.040, 1.100, -0.026 } },
  upright = { mass = 41.0, com = sc { -0.040, 0.880, -0.026 }, inertia = { 0.656, 0.656, 0.656 } },
  uca = { mass = 20.0, com = sc { -0.196, 0.645, 0.245 }, inertia = arm_inertia({ 0.03, 0.03, 0.06276 }, 20.0, 5.813),
    chassis_front = sc { 0.160, 0.539, 0.243 }, chassis_back = sc { -0.339, 0.587, 0.249 }, upright = sc { -0.088, 0.808, 0.243 } },
  lca = { mass = 40.0, com = sc { -0.040, 0.639, -0.224 }, inertia = arm_inertia({ 0.4, 0.4, 0.8938 }, 40.0, 23.965),
    chassis_front = sc { 0.199, 0.479, -0.206 }, chassis_back = sc { -0.279, 0.539, -0.200 }, upright = sc { -0.040, 0.898, -0.265 } },
  tierod = { chassis = sc { -0.279, 0.479, -0.026 }, upright = sc { -0.220, 0.898, -0.026 } },
  spring = { chassis = sc { -0.064, 0.659, 0.094 }, arm = sc { -0.040, 0.718, -0.206 } },
  shock = { chassis = sc { -0.088, 0.599, 0.393 }, arm = sc { -0.040, 0.718, -0.206 } },
}
-- Suspension location: the wheel centre at (0, +-1.0075, 0.545) in the vehicle frame.
local LOC = { -DW.spindle.com[1], 0, Z_WC - DW.spindle.com[3] }
local function V(p) return { LOC[1] + p[1], LOC[2] + p[2], LOC[3] + p[3] } end
local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function unit(a) local l = math.sqrt(dot(a, a)); return { a[1] / l, a[2] / l, a[3] / l }, l end

-- Steering crank (seeds/003.md §3.3: delta is the rotation of the steering actuator, which drives the rods):
-- a central bell crank (CityBus_RotaryArm.json: Pitman Arm mass and inertia) turning about z on the front
-- body. Its arms end at the generic tie rods' inner points and reach back from the crank axis as far as the
-- steering arms reach back from the king-pin axis (lower to upper ball joint) at the tie rods' height, so
-- crank, tie rods and knuckles form parallelograms: the wheels steer by about delta (ratio 1, as Chrono's
-- rotary arm, whose +-27 deg gives the bus's 27 deg maximum steer, CityBus_Vehicle.json).
local STEER_ARM
do
  local lo, up, tr = DW.lca.upright, DW.uca.upright, DW.tierod.upright
  local f = (tr[3] - lo[3]) / (up[3] - lo[3])
  STEER_ARM = (lo[1] + f * (up[1] - lo[1])) - tr[1]
end
local CRANK_AT = V { DW.tierod.chassis[1] + STEER_ARM, 0, DW.tierod.chassis[3] }

local M_TOTAL = 17048                   -- seeds/003.md §3.3: total loaded mass
local m_corner = DW.uca.mass + DW.lca.mass + DW.upright.mass + front_wheel.mass
local m_front_unsprung = 2 * m_corner
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

-- Static loads: the sprung mass (body parts and steering crank) on the suspensions by moment balance about
-- the axles (the torsion revolute passes vertical force and pitch moment, so for a level symmetric pose the
-- two parts act as one); every tyre carries its axle's share plus its unsprung mass.
local m_sprung = M_BODY + crank.mass
local x_sprung = (m_bf * XF + m_br * XR + crank.mass * CRANK_AT[1]) / m_sprung
local F_susp_front = m_sprung * g * (x_sprung + WB) / WB / 2            -- per side
local F_susp_rear = m_sprung * g * (-x_sprung) / WB / 2                 -- per side (two springs)
local Fz_front = F_susp_front + m_corner * g
local Fz_rear = (F_susp_rear + (axle.mass / 2 + rear_wheel.mass) * g) / 2   -- per tyre (dual)
local D_FRONT, D_REAR = Fz_front / K_TYRE, Fz_rear / K_TYRE             -- static tyre deflections

-- Air springs: linear in elongation (seeds/003.md §3.3). Wheel rates from ride frequencies (invented, usual
-- for air-sprung coaches, front below rear): k = m (2 pi f)^2 with f = 1.1 Hz front, 1.2 Hz rear and m the
-- sprung mass per corner (the tyre in series lowers f by about 5 %).
local F_RIDE_FRONT, F_RIDE_REAR = 1.1, 1.2
local kw_front = F_susp_front / g * (2 * math.pi * F_RIDE_FRONT) ^ 2
local kw_rear = F_susp_rear / g * (2 * math.pi * F_RIDE_REAR) ^ 2       -- per side
-- Front: spring and damper on the lower arm (generic DoubleWishbone.json lines). Their rates follow from the
-- motion ratios (lever arms about the lower arm's hinge of the line and of the lower ball joint). The spring's
-- free length puts the static spring force in it at the design pose, found from the corner's statics: the
-- knuckle in equilibrium under the tyre load at the contact point, the wheel's and its own weight, the ball
-- joint forces (3 + 3) and the tie rod's pull (1), with the upper arm free of moment about its hinge (7
-- equations); then the lower arm's moment about its hinge gives the spring force. So the design pose is the
-- static pose (`--static` moves it by micrometres).
local front_spring, front_shock, K_AIR_FRONT, C_FRONT, R_LBJ
local ZETA = 0.3
do
  local function hinge(a) local f, b = V(a.chassis_front), V(a.chassis_back)
    return { (f[1] + b[1]) / 2, (f[2] + b[2]) / 2, (f[3] + b[3]) / 2 }, (unit(sub(f, b))) end
  local hl, axl = hinge(DW.lca)
  local hu, axu = hinge(DW.uca)
  local function moment(p, force) return dot(cross(sub(V(p), hl), force), axl) end
  R_LBJ = moment(DW.lca.upright, { 0, 0, 1 })                         -- m of wheel lift per rad of arm
  local function line(d)
    local u, l = unit(sub(V(d.arm), V(d.chassis)))
    return u, l, moment(d.arm, u) / R_LBJ                              -- direction, length, motion ratio
  end
  local us, ls, mrs = line(DW.spring)
  local _, _, mrd = line(DW.shock)
  K_AIR_FRONT = kw_front / (mrs * mrs)
  -- Knuckle statics: unknowns F_L (force of the lower arm on the knuckle), F_U (upper arm), T (tie rod).
  local rL, rU, rT = V(DW.lca.upright), V(DW.uca.upright), V(DW.tierod.upright)
  local ut = unit(sub(V(DW.tierod.chassis), rT))                       -- pull of a tie rod in tension
  local wc = V(DW.spindle.com)
  local loads = {                                                      -- { point, force }
    { { wc[1], wc[2], wc[3] - (R_TYRE - D_FRONT) }, { 0, 0, Fz_front } },
    { wc, { 0, 0, -front_wheel.mass * g } },
    { V(DW.upright.com), { 0, 0, -DW.upright.mass * g } },
  }
  local A, rhs = {}, {}
  for i = 1, 7 do A[i] = { 0, 0, 0, 0, 0, 0, 0 }; rhs[i] = 0 end
  local function col_force(j, at, dir)                                 -- unknown j: force along dir at `at`
    local m = cross(sub(at, rL), dir)
    for k = 1, 3 do A[k][j] = A[k][j] + dir[k]; A[3 + k][j] = A[3 + k][j] + m[k] end
  end
  for k = 1, 3 do
    local e = { 0, 0, 0 }; e[k] = 1
    col_force(k, rL, e)
    col_force(3 + k, rU, e)
    A[7][3 + k] = -dot(cross(sub(rU, hu), e), axu)                     -- the upper arm feels -F_U
  end
  col_force(7, rT, ut)
  for _, l in ipairs(loads) do
    local m = cross(sub(l[1], rL), l[2])
    for k = 1, 3 do rhs[k] = rhs[k] - l[2][k]; rhs[3 + k] = rhs[3 + k] - m[k] end
  end
  rhs[7] = -dot(cross(sub(V(DW.uca.com), hu), { 0, 0, -DW.uca.mass * g }), axu)
  for c = 1, 7 do                                                      -- Gauss with partial pivoting
    local piv = c
    for r = c + 1, 7 do if math.abs(A[r][c]) > math.abs(A[piv][c]) then piv = r end end
    A[c], A[piv], rhs[c], rhs[piv] = A[piv], A[c], rhs[piv], rhs[c]
    for r = c + 1, 7 do
      local f = A[r][c] / A[c][c]
      for k = c, 7 do A[r][k] = A[r][k] - f * A[c][k] end
      rhs[r] = rhs[r] - f * rhs[c]
    end
  end
  local x = {}
  for r = 7, 1, -1 do
    local v = rhs[r]
    for k = r + 1, 7 do v = v - A[r][k] * x[k] end
    x[r] = v / A[r][r]
  end
  local M = moment(DW.lca.upright, { -x[1], -x[2], -x[3] }) + moment(DW.lca.com, { 0, 0, -DW.lca.mass * g })
  local F = -M / moment(DW.spring.arm, us)                             -- compression
  front_spring = { chassis = DW.spring.chassis, arm = DW.spring.arm, length = ls + F / K_AIR_FRONT }
  front_shock = DW.shock
  C_FRONT = 2 * ZETA * math.sqrt(kw_front * F_susp_front / g) / (mrd * mrd)
end
-- Rear: four air springs, two per side, design length 0.30 m (CityBus_LeafspringAxle.json: Spring Location
-- Chassis z 0.3476 - Location Axle z 0.0476), free length for the static force at the design length.
local L_AIR = 0.30
local K_AIR_REAR = kw_rear / 2
local L0_rear = L_AIR + F_susp_rear / 2 / K_AIR_REAR
local C_REAR = 2 * ZETA * math.sqrt(kw_rear * F_susp_rear / g) / 2     -- two dampers per side

-- Dampers: piecewise bilinear in the extension rate v (seeds/003.md §3.3): slope c_reb in rebound (v > 0),
-- c_comp in compression (v < 0), 3:1 (invented, usual for vehicle dampers), their mean giving a damping ratio
-- of 0.3 at the ride frequency. Written with abs so that the law is one expression:
-- F = (c_reb + c_comp)/2 v + (c_reb - c_comp)/2 |v|, a tension (resisting) in rebound. Chrono's degressive
-- dampers (CityBus_*Axle.json: Shock, 60.6 and 76.1 kN s/m) belong to leaf-spring axles with 565 and 710
-- kN/m springs and are not used.
local function bilinear(c)
  local c_reb, c_comp = 1.5 * c, 0.5 * c
  return function(x, v) return 0.5 * (c_reb + c_comp) * v + 0.5 * (c_reb - c_comp) * abs(v) end
end

-- Bodies and the torsion joint: the front part on the free joint (lib/chassis.lua), the rear part on a
-- longitudinal revolute at the split (axis at the COM height, invented) with a torsion spring of 3.0e6
-- N m/rad (invented: about 52 kN m/deg, the order of published coach body torsional stiffnesses).
local Z0 = (R_TYRE - D_FRONT) - Z_WC                                     -- body height: front tyres loaded
local ch = use "chassis" { name = "body_front", mass = m_bf, com = { XF, 0, Z_COM }, inertia = block(m_bf), at = { 0, 0, Z0 } }
body "body_rear" { mass = m_br, com = { XR - X_SPLIT, 0, 0 }, inertia = block(m_br) }
revolute "torsion" { parent = "body_front", child = "body_rear", origin = { X_SPLIT, 0, Z_COM }, axis = { 1, 0, 0 } }
joint_spring "torsion_spring" { joint = "torsion", stiffness = 3.0e6, rest = 0 }

body "steer_crank" { mass = crank.mass, inertia = crank.inertia }
revolute "steer" { parent = "body_front", child = "steer_crank", origin = CRANK_AT, axis = { 0, 0, 1 } }
-- delta(t) = 0.013 sin(pi t) for t in [0, 2] s and 0 after: sin(pi min(t, 2)), min(t, 2) = (t + 2 - |t - 2|)/2.
drive "steering" { joint = "steer", position = function(t) return steer_amp * sin(pi * 0.5 * (t + 2 - abs(t - 2))) end }

local dw, wheel = use "double_wishbone", use "wheel"
local front = {}
for _, c in ipairs { { "L", "left" }, { "R", "right" } } do
  local d = {}
  for _, key in ipairs { "spindle", "upright", "uca", "lca", "tierod", "shock" } do d[key] = DW[key] end
  d.spring = front_spring
  local corner = dw { name = "front_" .. c[1], side = c[2], chassis = "body_front", steering = "steer_crank",
    steering_origin = CRANK_AT, location = LOC, data = d, stiffness = K_AIR_FRONT, shock_force = bilinear(C_FRONT) }
  wheel { name = "front_" .. c[1] .. "_wheel", carrier = corner.knuckle, at = corner.wheel_at, mass = front_wheel.mass,
    inertia = front_wheel.inertia, tyre = tyre_data, road = road }
  front[c[1]] = corner
end
-- Front anti-roll bar: an angular spring between its ends, 7,800 N m/rad on 0.3 m arms (invented: a 35 mm
-- steel bar about 1.5 m long), the drop links following the wheel travel (R_LBJ per rad of lower arm). The
-- lower arms' angles lift the left wheel and lower the right one when positive (lib/double_wishbone.lua), so
-- the bar twists by R_LBJ (a_L + a_R) / 0.3 and each arm feels -k R_LBJ^2 / 0.3^2 (a_L + a_R). Roll
-- stiffness added: 7,800 (2 * 1.0075 / 0.3)^2 = 0.35 MN m/rad.
do
  local k = 7800 * R_LBJ ^ 2 / 0.3 ^ 2
  local jl, jr = front.L.lca, front.R.lca
  torque "front_bar_L" { joint = jl, value = function(t, s) return -k * (s.z[jl] + s.z[jr]) end }
  torque "front_bar_R" { joint = jr, value = function(t, s) return -k * (s.z[jl] + s.z[jr]) end }
end

-- Rear axle (lib/rigid_axle.lua) on the rear body part at x = -7.184, its centre lowered by the difference of
-- the static tyre deflections so that the body is level at rest. Four air springs, two per side 0.40 m ahead
-- of and behind the axle (invented, the usual coach layout) at y = 0.5142 (CityBus_LeafspringAxle.json: Spring
-- y); four dampers 0.25 m ahead and behind at y = 0.441, 0.38 m long (same file: Shock Location Axle y, z and
-- Location Chassis z). Anti-roll bar 31,500 N m/rad on 0.3 m arms with drop links at y = +-0.5 (invented, a
-- 50 mm bar), which adds k (2 * 0.5 / 0.3)^2 = 0.35 MN m/rad of roll stiffness. Drive: the speed control,
-- a proportional law on the front body's forward speed (ground x velocity; the heading changes by under
-- 0.02 rad in the manoeuvre) toward 50 km/h, the force speed_gain (V0 - vx) (17,048 N per m/s: a 1 s time
-- constant) shared by the two rear hubs at the loaded radius. The law is faded in over the first m/s of speed
-- (factor tanh(vx / 1 m/s), 1 - 2e-12 at 50 km/h) as a cruise control engages only when moving, so that the
-- vehicle at rest (the static equilibrium, zd = 0) feels no drive torque.
local Z_REAR = Z_WC + D_FRONT - D_REAR
local R_LOADED_REAR = R_TYRE - D_REAR
local rear = use "rigid_axle" {
  name = "rear", body = "body_rear", at = { -WB - X_SPLIT, 0, Z_REAR - Z_COM }, axle = axle, wheel = rear_wheel,
  road = road,
  springs = { stiffness = K_AIR_REAR, length = L0_rear, points = {
    { x = 0.40, y = 0.5142, z_axle = 0.0476, z_body = 0.0476 + L_AIR },
    { x = -0.40, y = 0.5142, z_axle = 0.0476, z_body = 0.0476 + L_AIR } } },
  dampers = { force = bilinear(C_REAR), points = {
    { x = 0.25, y = 0.441, z_axle = -0.0507, z_body = 0.3298 },
    { x = -0.25, y = 0.441, z_axle = -0.0507, z_body = 0.3298 } } },
  stabilizer = { stiffness = 31500, arm = 0.3, y = 0.5 },
  torque = function(t, s)
    local vx = s.zd[ch.x]
    return 0.5 * speed_gain * (V0 - vx) * tanh(vx / 1.0) * R_LOADED_REAR
  end,
}

point "cog_front" { body = "body_front", at = { XF, 0, Z_COM } }
point "cog" { body = "body_front", at = { -4, 0, Z_COM } }          -- the body's COM (rigid body approximation)
point "driver" { body = "body_front", at = { 1.8, 0.5, 1.2 } }     -- invented, for lateral acceleration

initial_velocity {
  [ch.x] = V0,
  front_L_wheel_spin = V0 / (R_TYRE - D_FRONT), front_R_wheel_spin = V0 / (R_TYRE - D_FRONT),
  rear_L_spin = V0 / R_LOADED_REAR, rear_R_spin = V0 / R_LOADED_REAR,
}
-- One fixed set of independent coordinates, as the paper's vehicles keep: the front body's 6, the torsion, the rear
-- axle's bounce, roll and wheel spins, each front corner's upper arm and wheel spin. It is the set pivoting chooses
-- at the start, and declaring it lets the generator unroll Matrix R's reduced system for it.
independent {
  ch.x, ch.y, ch.z, ch.yaw, ch.pitch, ch.roll, "torsion", "rear_bounce", "rear_roll", "rear_L_spin", "rear_R_spin",
  "front_L_uca", "front_L_wheel_spin", "front_R_uca", "front_R_wheel_spin",
}
simulate { t_end = 4, step = 1e-3, integrator = "rk4", formulation = "matrix_r" }
