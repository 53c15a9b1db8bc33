-- buggy.lua: a light four-wheeled buggy on double wishbones (rack-steered front, tie rods to the chassis at
-- the rear) with Magic Formula tyres, for the two manoeuvres of seeds/000.md §4.2 (step descent, double lane
-- change) and their objectives and design parameters kf, cf, kr, cr, mc (§5.2–5.3).
-- Data: the seed gives none (§4.2 "Missing"), so the numbers are Chrono's and ours, each with its source:
--   * corners: Chrono generic/suspension/DoubleWishbone.json (vehicle-data README §4.3) scaled to a buggy by
--     S = 0.6 in length (track 2.2 m -> 1.32 m), S^3 in mass and S^5 in inertia (same shapes and density);
--   * wheelbase 2.0 m, chassis 300 kg (with driver), chassis COM 0.1 m behind mid-wheelbase (rear engine,
--     45 % of the chassis weight on the front axle) and 0.45 m above the ground, chassis inertia mc times
--     the radii of gyration of a uniform 2.4 x 1.2 x 0.8 m box (so a change of mc scales its inertia too),
--     rack 1 kg, tyre radius 0.30 m: invented for a buggy of about 420 kg;
--   * wheel (spindle + rim + tyre) from Chrono's sedan wheel + tyre (sedan/wheel/Sedan_Wheel.json, 13.2 kg;
--     sedan/tire/Sedan_Pac02Tire.json, 11.5 kg; inertias summed) scaled to the 0.30 m radius (mass by
--     (0.30/0.344)^3, inertia by ^5), plus the scaled generic spindle;
--   * tyres: sedan/tire/Sedan_Pac02Tire.tir (PAC2002, 245/40 R18) through lib/pacejka.lua, its vertical
--     stiffness and damping scaled by the buggy's nominal load over FNOMIN (1000 N / 4850 N) so the static
--     deflection ratio is the sedan's;
--   * springs and dampers (design kf, kr, cf, cr): invented for ride frequencies of about 1.6 Hz front and
--     1.8 Hz rear and 0.35 damping with the corner's motion ratio of about 0.54 (spring on the lower arm,
--     geometry above); free lengths set below so the static pose is the design position (Chrono's design
--     positions are not equilibria, vehicle-data README §8).
-- Manoeuvres, chosen by the parameter `manoeuvre` (`mbgen run models/buggy.lua --set manoeuvre=2`):
--   0 straight run on a flat road, steering locked, 3 s (for the tests: symmetry, drift, ride height);
--   1 step descent (seed §4.2): straight, steering locked, a 1 cm step down (lib/roads.lua, smoothed over
--     2 cm) 5.5 m ahead of the front axle's start, 3 m/s, 4.5 s, h = 1 ms; objective step_descent =
--     ∫ r̈_1z² dt with point "p1" at the front of the chassis (its acceleration from the generated point
--     kinematics, so the objective is exact, as in the seed's (76));
--   2 double lane change: Chrono's paths/ISO_double_lane_change.txt (4.0 m to the left between path x = -23
--     and -9.5, held to 1.5, back by 14) approximated by two tanh ramps, driven open loop at 5 m/s (the seed
--     gives no speed; this one puts the manoeuvre inside the 12 s): the front steer angle is the kinematic
--     (Ackermann) angle atan(L kappa) of the reference path's curvature at the distance travelled, v t,
--     turned into rack travel by the steering arm measured on the geometry; 12 s, h = 1 ms (rk4; the
--     seed's 15 ms is for its implicit trapezoidal rule); objective lane_change = ∫ roll_rate² dt with the
--     roll rate the rate of the chassis's roll angle (free joint sequence zyx: yaw, pitch, roll).
-- No drive or brake torque: the buggy coasts. Initial state: the static equilibrium at the nominal design
-- (recorded below), all wheels rolling at the start speed (the front wheels reach the step at t = 1.83 s,
-- the lane change starts at t = 2.4 s).
model "buggy"
description "Buggy: double-wishbone corners, rack steering, Magic Formula tyres; step descent or double lane change (the buggy benchmark of López Varela et al. 2025)"

gravity { 0, 0, -9.81 }
parameter { manoeuvre = 1, speed = 0 } -- speed 0: the manoeuvre's own (3 m/s step descent, 5 m/s lane change)

-- Design defaults as plain numbers too: the free lengths below are set at the nominal values, so a change
-- of kf moves the ride height as a stiffer spring would (not the free length along with it).
local KF, CF, KR, CR, MC = 24000.0, 1600.0, 36000.0, 2200.0, 300.0
design { kf = KF, cf = CF, kr = KR, cr = CR, mc = MC }

local g = 9.81
local S = 0.6                    -- scale of Chrono's generic double wishbone (length)
local R = 0.30                   -- tyre unloaded radius [m], invented
local L = 2.0                    -- wheelbase [m], invented
local XF, XR = L / 2, -L / 2     -- axle (suspension-frame) x in the chassis frame
assert(manoeuvre == 0 or manoeuvre == 1 or manoeuvre == 2, "manoeuvre must be 0, 1 or 2")
local V0 = speed > 0 and speed or (manoeuvre == 2 and 5.0 or 3.0)

local function sc(p) return { S * p[1], S * p[2], S * p[3] } end
local S3, S5 = S ^ 3, S ^ 5
-- generic/suspension/DoubleWishbone.json (left side, suspension frame), scaled
local D = {
  spindle = { com = sc { -0.040, 1.100, -0.026 } },
  upright = { mass = 19.450 * S3, com = sc { -0.040, 0.880, -0.026 }, inertia = { 0.1656 * S5, 0.1934 * S5, 0.04367 * S5 } },
  uca = { mass = 5.813 * S3, com = sc { -0.196, 0.645, 0.245 }, inertia = { 0.03 * S5, 0.03 * S5, 0.06276 * S5 },
    chassis_front = sc { 0.160, 0.539, 0.243 }, chassis_back = sc { -0.339, 0.587, 0.249 }, upright = sc { -0.088, 0.808, 0.243 } },
  lca = { mass = 23.965 * S3, com = sc { -0.040, 0.639, -0.224 }, inertia = { 0.4 * S5, 0.4 * S5, 0.8938 * S5 },
    chassis_front = sc { 0.199, 0.479, -0.206 }, chassis_back = sc { -0.279, 0.539, -0.200 }, upright = sc { -0.040, 0.898, -0.265 } },
  -- tie rod: Chrono's inner point (-0.279, 0.479, -0.026) S gives 0.5 deg/cm of bump steer, which made
  -- the straight run unstable (symmetric toe on droop jacks the chassis up, which droops the wheels more);
  -- its y and z are moved to (0.3525, 0.0025) m, found by a grid search on the corner's kinematics (toe
  -- below 1.6 mrad over ±37 mm of wheel travel, against 24-44 mrad before)
  tierod = { chassis = { -0.279 * S, 0.3525, 0.0025 }, upright = sc { -0.220, 0.898, -0.026 } },
  spring = { chassis = sc { -0.064, 0.659, 0.094 }, arm = sc { -0.040, 0.718, -0.206 } },
  shock = { chassis = sc { -0.088, 0.599, 0.393 }, arm = sc { -0.040, 0.718, -0.206 } },
}
-- Suspension frames: the wheel centres (z = -0.026 S in the suspension frame) at chassis z = 0, so the
-- chassis frame's origin is mid-wheelbase at wheel-centre height.
local ZS = -D.spindle.com[3]

-- Wheel = spindle (generic, scaled) + sedan rim and tyre scaled to R.
local W = (R / 0.344) ^ 3
local W5 = (R / 0.344) ^ 5
local m_wheel = 14.705 * S3 + (13.2 + 11.5) * W
local I_spin = 0.07352 * S5 + (0.42 + 0.679) * W5
-- Chrono's sedan tyre (0.156, 0.679, 0.156) breaks the triangle inequality (0.679 > 2 x 0.156); the wheel's
-- diametral moments are raised to the thin-ring limit Iyy / 2.
local I_diam = math.max(0.04117 * S5 + (0.24 + 0.156) * W5, I_spin / 2)
local I_wheel = { I_diam, I_spin, I_diam }

-- Tyre: sedan/tire/Sedan_Pac02Tire.tir coefficients (PAC2002), vertical data scaled to FNOM = 1000 N.
local pacejka = use "pacejka"
local tir = { PCX1 = 1.6411, PDX1 = 1.1739, PEX1 = 0.46403, PKX1 = 22.303,
  PCY1 = 1.3507, PDY1 = 1.0489, PEY1 = -0.0074722, PKY1 = -21.92, PKY2 = 2.0012 }
local mf = pacejka(tir)
local FNOM = 1000.0
local KT = 280835.2941 * FNOM / 4850 -- VERTICAL_STIFFNESS x load ratio [N/m]
local CT = 2000 * FNOM / 4850         -- VERTICAL_DAMPING x load ratio [N s/m]

-- Static loads (for the free lengths and the start pose): chassis and rack share by the COM position;
-- each corner's arms, knuckle and wheel sit on its own tyre.
local XC, ZC = -0.1, 0.45 - (R - 0.018) -- chassis COM: x, and z above the wheel centres (0.45 m above ground)
local m_rack = 1.0
local m_corner = m_wheel + D.upright.mass + D.uca.mass + D.lca.mass
local share_f = (XC - XR) / L
local Fz = {
  front = 0.5 * (MC * g * share_f + m_rack * g) + m_corner * g,
  rear = 0.5 * MC * g * (1 - share_f) + m_corner * g,
}
local dz = { front = Fz.front / KT, rear = Fz.rear / KT } -- static tyre deflections

-- Free length of a corner's spring for the design position to be static: the moments about the lower
-- arm's hinge of the load through the lower ball joint (tyre load less knuckle and wheel weight), of the
-- arm's weight and of the spring balance. The upper arm carries no moment about its hinge, so it is left
-- out; the residual is small and the settling run (or --static) takes it up.
local THETA = { front = 0.0409, rear = 0.0120 }
local function free_length(axle, k)
  local loc = { 0, 0, ZS }
  local function P(p) return { p[1] + loc[1], p[2] + loc[2], p[3] + loc[3] } end
  local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
  local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
  local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
  local function len(a) return math.sqrt(dot(a, a)) end
  local f, b = P(D.lca.chassis_front), P(D.lca.chassis_back)
  local h = { (f[1] + b[1]) / 2, (f[2] + b[2]) / 2, (f[3] + b[3]) / 2 }
  local ax = sub(f, b); ax = { ax[1] / len(ax), ax[2] / len(ax), ax[3] / len(ax) }
  local function moment(at, force) return dot(cross(sub(P(at), h), force), ax) end
  local W_lbj = Fz[axle] - (m_wheel + D.upright.mass) * g
  local M = moment(D.lca.upright, { 0, 0, W_lbj }) + moment(D.lca.com, { 0, 0, -D.lca.mass * g })
  local ca, ch = P(D.spring.arm), P(D.spring.chassis)
  local u = sub(ca, ch); local l = len(u); u = { u[1] / l, u[2] / l, u[3] / l }
  local F = -M / moment(D.spring.arm, u) -- compression force
  -- The estimate leaves out the knuckle's lateral ball-joint forces (the tyre load acts 0.07 m outboard
  -- of the lower ball joint) and the pitch, so with it alone `mbgen run --static` found the lower arms at
  -- +0.064 rad (front) and +0.017 rad (rear) of bump. The free length is moved by THETA dL/dtheta, THETA
  -- found by a secant step over two static solves (THETA = 0 and THETA = those angles) so that the static
  -- pose is the design position (tests/veh_buggy.t checks the arms stay within 5 mrad of it).
  return l + F / k - THETA[axle] * moment(D.spring.arm, u)
end

-- Road.
local roads = use "roads"
local road, XSTART
if manoeuvre == 0 then
  XSTART = 0
  road = roads.flat()
elseif manoeuvre == 1 then
  XSTART = -XF -- the front axle starts at x = 0, the step is 5.5 m ahead of it
  road = roads.step { height = -0.01, x = 5.5, width = 0.02 }
else
  XSTART = 0 -- ground x = path x + 35 (the path's knot at x = -35)
  road = roads.flat()
end

-- Chassis.
local chassis = use "chassis"
local kg = { (1.44 + 0.64) / 12, (5.76 + 0.64) / 12, (5.76 + 1.44) / 12 } -- box 2.4 x 1.2 x 0.8: k^2
local C = chassis { name = "chassis", mass = mc, com = { XC, 0, ZC }, inertia = { mc * kg[1], mc * kg[2], mc * kg[3] } }

-- Steering rack: slides along y on the chassis; its frame is the chassis frame at zero travel, so the front
-- tie rods' inner points are their chassis-frame points.
body "rack" { mass = m_rack, com = { XF + D.tierod.chassis[1], 0, ZS + D.tierod.chassis[3] }, inertia = { 0.05, 1e-4, 0.05 } }
prismatic "rack" { parent = "chassis", child = "rack", axis = { 0, 1, 0 } }

-- Corners.
local dw = use "double_wishbone"
local wheel = use "wheel"
local corners = {}
for _, c in ipairs {
  { "fl", "left", XF, kf, cf, "front", "rack" }, { "fr", "right", XF, kf, cf, "front", "rack" },
  { "rl", "left", XR, kr, cr, "rear", nil }, { "rr", "right", XR, kr, cr, "rear", nil },
} do
  local name, side, x, k, cdamp, axle, steer = c[1], c[2], c[3], c[4], c[5], c[6], c[7]
  local d = {}
  for key, v in pairs(D) do d[key] = v end
  d.spring = { chassis = D.spring.chassis, arm = D.spring.arm, length = free_length(axle, axle == "front" and KF or KR) }
  local corner = dw { name = name, side = side, chassis = "chassis", steering = steer, location = { x, 0, ZS },
    data = d, stiffness = k, damping = cdamp }
  wheel { name = name .. "_wheel", carrier = corner.knuckle, at = corner.wheel_at, mass = m_wheel, inertia = I_wheel,
    tyre = { radius = R, stiffness = KT, damping = CT, longitudinal = mf.longitudinal, lateral = mf.lateral },
    road = road }
  corners[name] = corner
end

-- Steering.
-- Steering arm: the tie rod's outer point behind the king-pin axis (lower to upper ball joint) at the tie
-- rod's height; a left turn (steer angle delta > 0) moves that point, and so the rack, by -arm * delta.
local arm
do
  local lo, up, tr = D.lca.upright, D.uca.upright, D.tierod.upright
  local f = (tr[3] - lo[3]) / (up[3] - lo[3])
  arm = (lo[1] + f * (up[1] - lo[1])) - tr[1]
end
if manoeuvre ~= 2 then
  drive "steering" { joint = "rack", position = 0 }
else
  -- Reference path y(x) (ground frame = path frame + (35, 125)): up 4 m at x = 18.75 (path -23 .. -9.5),
  -- back at x = 42.75 (path 1.5 .. 14); tanh widths matched to the Bezier segments' steepest slopes
  -- (0.457 -> 4.4 m, 0.5 -> 4.0 m).
  local A, X1, W1, X2, W2 = 4.0, 18.75, 4.4, 42.75, 4.0
  drive "steering" {
    joint = "rack",
    position = function(t)
      local x = XSTART + V0 * t
      local f1, f2 = tanh((x - X1) / W1), tanh((x - X2) / W2)
      local d1 = (1 - f1 * f1) / W1
      local d2 = (1 - f2 * f2) / W2
      local yp = 0.5 * A * (d1 - d2)
      local ypp = 0.5 * A * (-2 * f1 * d1 / W1 + 2 * f2 * d2 / W2)
      local kappa = ypp / ((1 + yp * yp) * sqrt(1 + yp * yp))
      return -arm * atan2(L * kappa, 1)
    end,
  }
end

-- Point "1": the front of the chassis (seed §4.2), 1.2 m ahead of mid-wheelbase, 0.2 m above the wheel centres.
point "p1" { body = "chassis", at = { 1.2, 0, 0.2 } }

if manoeuvre == 1 then
  objective "step_descent" { integrand = function(t, s) return s.point.p1.acc[3] ^ 2 end }
elseif manoeuvre == 2 then
  objective "lane_change" { integrand = function(t, s) return s.zd["chassis_float.rx"] ^ 2 end }
end

-- Start: the static equilibrium at the nominal design (`mbgen run models/buggy.lua --static`, recorded
-- here to 10 digits so that runs and `mbgen sens` start at rest on the road; the estimate above, the design
-- pose on tyres deflected by Fz / KT, was 1 mm and 3 mrad off), moving forward at V0 with the wheels
-- rolling. The start does not follow the design parameters: with other kf .. mc the run starts 1 mm or so
-- off its equilibrium, and psi includes that settling.
local STATIC = {
  ["chassis_float.z"] = 0.2820962308, ["chassis_float.ry"] = -0.001598096396,
  fl_uca = -0.003556870465, fl_lca = -0.0023136207,
  ["fl_knuckle.rx"] = 0.002035998085, ["fl_knuckle.ry"] = -0.0002555171028, ["fl_knuckle.rz"] = -1.72178903e-05,
  rl_uca = 0.004535719948, rl_lca = 0.00295004475,
  ["rl_knuckle.rx"] = -0.002593079395, ["rl_knuckle.ry"] = 0.0003257003381, ["rl_knuckle.rz"] = 2.219982963e-05,
}
local start = { ["chassis_float.x"] = XSTART }
for k, v in pairs(STATIC) do
  start[k] = v
  -- the right side mirrors the left: its arm and knuckle x and z rotations change sign
  local mirror = k:gsub("^fl_", "fr_"):gsub("^rl_", "rr_")
  if mirror ~= k then start[mirror] = (k:match("%.ry$") and 1 or -1) * v end
end
initial(start)
initial_velocity {
  ["chassis_float.x"] = V0,
  fl_wheel_spin = V0 / (R - dz.front), fr_wheel_spin = V0 / (R - dz.front),
  rl_wheel_spin = V0 / (R - dz.rear), rr_wheel_spin = V0 / (R - dz.rear),
}
-- One fixed set of independent coordinates (seeds/003.md's vehicles keep theirs for the whole run): the chassis 6,
-- each corner's upper control arm and wheel spin; the knuckles and lower arms follow. It is the set pivoting
-- chooses at the start, and declaring it lets the generator unroll Matrix R's reduced system for it.
independent {
  "chassis_float.x", "chassis_float.y", "chassis_float.z", "chassis_float.rz", "chassis_float.ry", "chassis_float.rx",
  "fl_uca", "fl_wheel_spin", "fr_uca", "fr_wheel_spin", "rl_uca", "rl_wheel_spin", "rr_uca", "rr_wheel_spin",
}
simulate { t_end = ({ [0] = 3, 4.5, 12 })[manoeuvre], step = 1e-3, integrator = "rk4" }
