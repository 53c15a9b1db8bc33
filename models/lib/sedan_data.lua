-- lib/sedan_data.lua: every number of the 15-DOF sedan (seeds/002.md §4) with its source, in the vehicle frame.
-- Frames (vehicle-data/README.md §3.1): ISO vehicle frame, x forward, y left, z up, origin mid-wheelbase;
-- a suspension-file point p is at `Suspension Location + p`; files give the LEFT corner, the right one is
-- the mirror y -> -y (done by the part libraries). All Chrono files are under
-- /work/shared/vehicle-data/chrono/ (commit 7689fbc0 of projectchrono/chrono, BSD-3).
-- Returned: a table of plain numbers and 3-vectors (left side, vehicle frame) and a few helpers.
local D = {}

local function add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function norm(a) return math.sqrt(dot(a, a)) end
D.vec = { add = add, sub = sub, dot = dot, norm = norm }

D.g = 9.81                       -- seeds/002.md §4.4 item 6: not stated, "assume 9.81"

-- Vehicle assembly: sedan/vehicle/Sedan_Vehicle.json
D.front_location = { 1.388, 0, 0.25 }   -- Axles[0]."Suspension Location"
D.rear_location = { -1.388, 0, 0.125 }  -- Axles[1]."Suspension Location"
D.rack_location = { 1.2, 0, 0.14 }      -- "Steering Subsystems"[0].Location (orientation identity)

-- Chassis: sedan/chassis/Sedan_Chassis.json, Components[0]
D.chassis = {
  mass = 1550,                           -- "Mass"
  com = { 0, 0, 0.7 },                   -- "Centroidal Frame".Location
  inertia = { 222.8, 944.1, 1053.5 },    -- "Moments of Inertia" (products 0, centroidal axes = chassis axes)
}

-- Rotating corner mass = spindle + rim + tyre in one body (README §3.4, as Chrono lumps them):
-- spindle sedan/suspension/Sedan_DoubleWishbone.json Spindle (1.103 kg, I = 0.000478, 0.000496, 0.000478,
-- Iyy the spin axis), rim sedan/wheel/Sedan_Wheel.json (13.2 kg, 0.24, 0.42, 0.24), tyre
-- sedan/tire/Sedan_Pac02Tire.json (11.5 kg, 0.156, 0.679, 0.156). The "Axle" inertia of the suspension
-- files is the driveline shaft: no driveline here (coasting), so it is left out. The tyre file's
-- transverse moments 0.156 violate the triangle inequality with its spin moment 0.679 (a body needs
-- Ixx + Izz >= Iyy; mbgen refuses it): they are raised to 0.679 / 2 = 0.3395, the thin-ring value.
D.wheel = {
  mass = 1.103 + 13.2 + 11.5,                                   -- 25.803 kg
  inertia = { 0.000478 + 0.24 + 0.679 / 2, 0.000496 + 0.42 + 0.679, 0.000478 + 0.24 + 0.679 / 2 },
}

-- Tyre: sedan/tire/Sedan_Pac02Tire.tir (PAC2002, 245/40 R18) through lib/pacejka.lua.
D.tir = {
  UNLOADED_RADIUS = 0.344, VERTICAL_STIFFNESS = 280835.2941, VERTICAL_DAMPING = 2000, FNOMIN = 4850,
  PCX1 = 1.6411, PDX1 = 1.1739, PEX1 = 0.46403, PKX1 = 22.303,
  PCY1 = 1.3507, PDY1 = 1.0489, PEY1 = -0.0074722, PKY1 = -21.92, PKY2 = 2.0012,
}
-- Friction: Sedan_Pac02Tire.json "Coefficient of Friction" 0.8 is Chrono's reference road; our flat road
-- is that road, so the .tir friction PDX1/PDY1 is used unscaled (mu_scale 1).
D.mu_scale = 1

-- Rods: seeds/002.md Table 9 (masses in kg). The table does not name the rear links; they are matched
-- to Chrono's five links by rank of mass (Sedan_MultiLink.json: trailing link 15.2 kg the heaviest ->
-- 4.0, lateral 1.91 kg -> 3.0, the upper A-arm 4.744 kg split in its two branches -> 2.0 + 2.0, the toe
-- link (massless in Chrono) -> 1.0). Tie rods (rods 1, 2: "stabilization bar" = steering bar) 2.0 each.
D.rod_mass = { tierod = 2.0, upper_front = 2.0, upper_back = 2.0, trailing = 4.0, toe = 1.0, lateral = 3.0 }

-- Steering rack: sedan/steering/Sedan_RackPinion.json "Steering Link" (slides along y on the chassis,
-- README §4.6). Rack travel per unit steering input = 15.5 deg * 0.3 m = 0.0812 m ("Pinion").
D.rack = { mass = 1.889, inertia = { 0.138, 0.00009, 0.138 }, max_travel = 15.5 * math.pi / 180 * 0.3 }

--------------------------------------------------------------------------------------------------------
-- Front MacPherson corner. Chrono has no sedan MacPherson (README §8): the geometry is
-- generic/suspension/MacPhersonStrut.json (HMMWV-sized, track 2.2 m), TRANSLATED rigidly by `shift` so
-- that its spindle lands on the sedan's wheel centre (Sedan_DoubleWishbone.json Spindle.COM
-- (0, 0.7979, -0.1199), track 1.596 m, wheel centre 0.130 m above the chassis origin). A translation keeps
-- every length and angle of the linkage (the same adaptation Chrono made for Sedan_MultiLink.json, the
-- generic multi-link moved 0.15 m inboard, README §8). Chassis pivots end up at y = 0.205..0.218 m.
local mp_spindle = { -0.04000403, 1.09999965, -0.02602507 }     -- MacPhersonStrut.json Spindle.COM
local shift = sub({ 0, 0.7979, -0.1199 }, mp_spindle)         -- (0.0400, -0.3021, -0.0939)
D.front_shift = shift
local function F(p) return add(add(p, shift), D.front_location) end
D.front = {
  spindle = F(mp_spindle),                                     -- wheel centre
  upright_com = F { -0.04000015, 0.90999965, -0.0260268 },     -- Upright.COM
  upright_mass = 20.0,                                         -- Upright.Mass (HMMWV-sized, kept)
  upright_inertia = { 0.0138, 0.0146, 0.00283 },               -- Upright.Inertia (chassis-parallel axes)
  arm_front = F { 0.220, 0.520, -0.156 },                      -- "Control Arm"."Location Chassis Front"
  arm_back = F { -0.300, 0.507, -0.137 },                      -- "Control Arm"."Location Chassis Back"
  ball = F { -0.02165371, 0.94057703, -0.17402826 },           -- "Control Arm"."Location Upright"
  arm_com = F { -0.031, 0.646, -0.156 },                       -- "Control Arm".COM
  arm_mass = 5.091,                                            -- "Control Arm".Mass
  arm_inertia = { 0.0269, 0.06058, 0.03377 },                  -- "Control Arm".Inertia (arm axes, §3.4)
  tierod_inner = F { -0.300, 0.520, -0.059 },                  -- Tierod."Location Chassis" (on the rack)
  tierod_outer = F { -0.2373756, 0.89495045, -0.01605418 },    -- Tierod."Location Upright"
  top = F { -0.115, 0.785, 0.579 },                            -- Spring/Shock."Location Chassis" = top mount
  low = F { -0.07402507, 0.8532915, 0.2484536 },               -- Spring/Shock."Location Upright"
  strut_mass = 5.0,                                            -- Strut.Mass
  strut_inertia = { 0.01, 0.01, 0.005 },                       -- Strut.Inertia (chassis-parallel axes)
}
-- The strut's COM is not in the file: the middle of the strut line at design [inferred, as drawn by Chrono].
D.front.strut_com = { (D.front.top[1] + D.front.low[1]) / 2, (D.front.top[2] + D.front.low[2]) / 2,
  (D.front.top[3] + D.front.low[3]) / 2 }

--------------------------------------------------------------------------------------------------------
-- Rear multi-link corner: sedan/suspension/Sedan_MultiLink.json (left), at the rear Suspension Location.
-- Its upper A-arm's two chassis pivots become two rods to the A-arm's upright point; with the lateral,
-- trailing and toe (Tierod) links that is the paper's five rods per corner.
local function R(p) return add(p, D.rear_location) end
D.rear = {
  spindle = R { 0.000, 0.80, 0.000 },                          -- Spindle.COM = wheel centre
  upright_com = R { 0.000, 0.760, 0.000 },                     -- Upright.COM
  upright_mass = 3.201,                                        -- Upright.Mass
  upright_inertia = { 0.0250, 0.00653, 0.0284 },               -- Upright.Inertia (chassis-parallel axes)
  links = {                                                    -- { name, chassis point, upright point }
    { "upper_front", R { 0.060, 0.397, 0.082 }, R { 0.056, 0.714, 0.151 } },   -- "Upper Arm" Chassis Front / Upright
    { "upper_back", R { -0.157, 0.358, 0.062 }, R { 0.056, 0.714, 0.151 } },   -- "Upper Arm" Chassis Back / Upright
    { "lateral", R { 0.036, 0.188, -0.133 }, R { 0.029, 0.692, -0.093 } },     -- Lateral
    { "trailing", R { 0.723, 0.449, -0.072 }, R { -0.000, 0.714, -0.156 } },   -- "Trailing Link"
    { "toe", R { -0.257, 0.170, -0.116 }, R { -0.144, 0.712, -0.056 } },       -- Tierod
  },
}

--------------------------------------------------------------------------------------------------------
-- Springs and dampers. Our topology has no lower arm at the front and no trailing-link body at the rear,
-- so Chrono's spring lines cannot be used as they are; we keep Chrono's WHEEL rates (spring rate times
-- motion ratio squared) and put the coil-overs where our bodies are.
-- Rear: Sedan_MultiLink.json Spring 167062 N/m and Shock 15000 N s/m act on the trailing link at
-- x = 0.181 between its chassis pivot x = 0.723 and its upright end x = 0: motion ratio
-- (0.723 - 0.181) / 0.723 = 0.7497, wheel rate 93.9 kN/m, wheel damping 8.43 kN s/m. Here a vertical
-- coil-over (motion ratio 1) from the knuckle at Trailing Link."Location Upright" (x, z), moved 0.064 m
-- inboard to y = 0.65 so it clears the tyre, up to the chassis at Spring."Location Chassis" z = 0.110.
local mr_rear = (0.723 - 0.181) / 0.723
D.rear.spring = {
  knuckle = R { 0.0, 0.65, -0.156 }, chassis = R { 0.0, 0.65, 0.110 },
  stiffness = 167062 * mr_rear ^ 2, damping = 15000 * mr_rear ^ 2,
}
-- Front: the sedan's own front suspension (Sedan_DoubleWishbone.json, the one Sedan_Vehicle.json uses):
-- Spring 500000 N/m, Shock 10000 N s/m from the chassis (-0.04, 0.52, 0.23) to the lower arm at
-- (0, 0.62, -0.27); the arm turns about its chassis pivots (0.2, 0.42, -0.27), (-0.2, 0.47, -0.265) and
-- carries the upright at (0, 0.77, -0.32). Motion ratio = (arm lever of the spring point / lever of the
-- ball joint) * cos(spring line to the arm's plane normal) [computed below, about 0.48]; the MacPherson
-- coil-over runs along the strut (a slide of the knuckle), its motion ratio is the cosine of the strut
-- to the vertical (0.97): k_strut = wheel rate / cos^2.
do
  local pf, pb = { 0.2, 0.42, -0.27 }, { -0.2, 0.47, -0.265 }
  local ps, pu, pc = { 0.0, 0.62, -0.27 }, { 0.0, 0.77, -0.32 }, { -0.04, 0.52, 0.23 }
  local ax = sub(pf, pb)
  ax = { ax[1] / norm(ax), ax[2] / norm(ax), ax[3] / norm(ax) }
  local function lever(p)               -- distance of p from the arm axis and the tangent of its circle
    local r = sub(p, pb)
    local along = dot(r, ax)
    local perp = sub(r, { along * ax[1], along * ax[2], along * ax[3] })
    local t = { ax[2] * perp[3] - ax[3] * perp[2], ax[3] * perp[1] - ax[1] * perp[3], ax[1] * perp[2] - ax[2] * perp[1] }
    return norm(perp), { t[1] / norm(t), t[2] / norm(t), t[3] / norm(t) }
  end
  local ls, ts = lever(ps)
  local lu, tu = lever(pu)
  local line = sub(pc, ps)
  line = { line[1] / norm(line), line[2] / norm(line), line[3] / norm(line) }
  -- spring length rate per vertical wheel-point rate: (ls/lu) |cos(spring line, tangent at the spring)|
  -- / |tangent at the ball joint . z|
  local mr = (ls / lu) * math.abs(dot(line, ts)) / math.abs(tu[3])
  local s = sub(D.front.low, D.front.top)
  local cos_strut = math.abs(s[3]) / norm(s)
  D.front.mr_dw = mr
  D.front.cos_strut = cos_strut
  D.front.wheel_rate = 500000 * mr ^ 2
  D.front.wheel_damping = 10000 * mr ^ 2
  D.front.spring = { stiffness = D.front.wheel_rate / cos_strut ^ 2, damping = D.front.wheel_damping / cos_strut ^ 2 }
end

-- Static corner loads used to PRELOAD the springs (invented, our choice): each spring's free length is
-- set so that at the design position it carries a quarter of the chassis weight (the chassis COM is at
-- x = 0, mid-wheelbase: 50/50), divided by its motion ratio. The design position then is nearly the
-- static ride height (the chassis settles by a few mm; the static pose is solved, not assumed).
D.corner_sprung_load = D.chassis.mass * D.g / 4
D.front.spring.preload = D.corner_sprung_load / D.front.cos_strut
D.rear.spring.preload = D.corner_sprung_load

-- Initial chassis height: wheel centres (0.130 front, 0.125 rear above the chassis origin) one loaded
-- tyre radius above the road: radius 0.344 minus the static deflection of the total mass / 4 on
-- 280835 N/m (about 15 mm). Used as the free joint's origin; the static solver moves it.
D.total_mass_estimate = 1749.7
D.chassis_height = D.tir.UNLOADED_RADIUS - D.total_mass_estimate * D.g / 4 / D.tir.VERTICAL_STIFFNESS
  - (D.front.spindle[3] + D.rear.spindle[3]) / 2

return D
