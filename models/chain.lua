-- chain.lua: a spatial serial chain of N bodies on revolute joints with non-parallel axes.
-- Invented for testing (in the spirit of seeds/004.md §6.1, whose chain data is missing, and §8.1,
-- which used random axes, offsets, masses and full inertias). The data come from a fixed-seed linear
-- congruential generator written out below, so the geometry is the same on every machine and never
-- depends on math.random; body i draws the same numbers whatever N is, so the chain of N = 8 is the
-- first 8 bodies of the chain of N = 24. `mbgen info models/chain.lua --set N=24`.
model "chain"
description "Spatial serial chain of N bodies, revolute joints with pseudo-random non-parallel axes"

parameter { N = 8, NDESIGN = 0 }
gravity { 0, 0, -9.81 }

-- LCG of Numerical Recipes (a = 1664525, c = 1013904223, m = 2^32) on Lua's 64-bit integers.
local state = 20240601
local function uniform(lo, hi)
  state = (1664525 * state + 1013904223) % 4294967296
  return lo + (hi - lo) * (state / 4294967296)
end

local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function norm(a) return sqrt(a[1] ^ 2 + a[2] ^ 2 + a[3] ^ 2) end

-- A full inertia: a box of random sides, turned by a random rotation (R D R^T), so every entry is
-- non-zero and the principal moments satisfy the triangle inequality by construction.
local function box_inertia(m)
  local a, b, c = uniform(0.05, 0.3), uniform(0.05, 0.3), uniform(0.05, 0.3)
  local d = { m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12 }
  local r, p, y = uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)
  local cr, sr, cp, sp, cy, sy = cos(r), sin(r), cos(p), sin(p), cos(y), sin(y)
  local R = {
    { cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr },
    { sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr },
    { -sp, cp * sr, cp * cr },
  }
  local function I(i, j) return R[i][1] * d[1] * R[j][1] + R[i][2] * d[2] * R[j][2] + R[i][3] * d[3] * R[j][3] end
  return { I(1, 1), I(2, 2), I(3, 3), I(1, 2), I(1, 3), I(2, 3) }
end

local previous_axis = { 0, 0, 1 }
local parent, offset = "ground", { 0, 0, 0 }
local start = {}
for i = 1, N do
  -- A unit axis at least 30 degrees away from the previous one (|sin| >= 0.5), drawn again if not.
  local axis
  repeat
    axis = { uniform(-1, 1), uniform(-1, 1), uniform(-1, 1) }
    local n = norm(axis)
    if n > 0.1 then axis = { axis[1] / n, axis[2] / n, axis[3] / n } end
  until n > 0.1 and norm(cross(axis, previous_axis)) >= 0.5
  previous_axis = axis
  local m = uniform(0.5, 2.0)
  local link = { uniform(0.2, 0.5), uniform(-0.1, 0.1), uniform(-0.1, 0.1) }
  local name = "b" .. i
  local com = { link[1] / 2 + uniform(-0.05, 0.05), link[2] / 2 + uniform(-0.05, 0.05), link[3] / 2 + uniform(-0.05, 0.05) }
  local inertia = box_inertia(m)
  -- Design parameters for sensitivity runs (--set NDESIGN=p): the masses m01.. of the first bodies,
  -- then offsets c01.. added to the x of their centres of mass; defaults keep the numbers above.
  if i <= NDESIGN then
    local key = string.format("m%02d", i)
    design { [key] = m }
    local scale = _ENV[key] / m
    for c = 1, 6 do inertia[c] = inertia[c] * scale end
    m = _ENV[key]
  end
  if i + N <= NDESIGN then
    local key = string.format("c%02d", i)
    design { [key] = 0.0 }
    com[1] = com[1] + _ENV[key]
  end
  body(name) { mass = m, com = com, inertia = inertia }
  revolute("j" .. i) { parent = parent, child = name, origin = offset, axis = axis }
  start["j" .. i] = uniform(-0.5, 0.5)
  parent, offset = name, link
end
point "tip" { body = "b" .. N, at = offset }

-- For sensitivity tests: the tip's mean squared speed over the run plus its final height.
objective "tip" {
  integrand = function(t, s)
    local v = s.point.tip.vel
    return v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2
  end,
  terminal = function(s) return s.point.tip.pos[3] end,
}

initial(start)
simulate { t_end = 1, step = 1e-3, integrator = "rk4" }
