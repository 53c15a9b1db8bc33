-- random_model.lua: seeded random spatial trees written as model files, for tests against the reference dynamics.
local M = {}

-- A 32-bit LCG (Numerical Recipes), so a seed gives the same model on every machine and Lua build.
local function rng(seed)
  local s = seed % 4294967296
  return function(lo, hi)
    s = (1664525 * s + 1013904223) % 4294967296
    return lo + (hi - lo) * (s / 4294967296)
  end
end

local function unit(r)
  while true do
    local v = { r(-1, 1), r(-1, 1), r(-1, 1) }
    local n = math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2)
    if n > 0.3 then return { v[1] / n, v[2] / n, v[3] / n } end
  end
end

local function rot(axis, a)
  local c, s, t = math.cos(a), math.sin(a), 1 - math.cos(a)
  local x, y, z = axis[1], axis[2], axis[3]
  return {
    { t * x * x + c, t * x * y - s * z, t * x * z + s * y },
    { t * x * y + s * z, t * y * y + c, t * y * z - s * x },
    { t * x * z - s * y, t * y * z + s * x, t * z * z + c },
  }
end

local function num(x) return string.format("%.17g", x) end
local function vec(v) return "{ " .. num(v[1]) .. ", " .. num(v[2]) .. ", " .. num(v[3]) .. " }" end

-- Inertia about the COM: principal moments satisfying the triangle inequality, rotated.
local function inertia(r)
  local a, b = r(0.02, 0.2), r(0.02, 0.2)
  local c = r(math.abs(a - b) + 0.01, a + b - 0.005)
  local R = rot(unit(r), r(0, math.pi))
  local P = { a, b, c }
  local J = {}
  for i = 1, 3 do
    J[i] = {}
    for j = 1, 3 do
      local s = 0
      for k = 1, 3 do s = s + R[i][k] * P[k] * R[j][k] end
      J[i][j] = s
    end
  end
  return string.format("{ %s, %s, %s, %s, %s, %s }", num(J[1][1]), num(J[2][2]), num(J[3][3]),
    num(J[1][2]), num(J[1][3]), num(J[2][3]))
end

-- Model source of an n-body tree. opts.chain: a serial chain; opts.prismatic: fraction of sliders.
function M.source(name, n, seed, opts)
  opts = opts or {}
  local r = rng(seed)
  local L = { string.format('-- Random spatial tree (seed %d, %d bodies), generated for tests.', seed, n),
    string.format('model "%s"', name), "gravity { 0, 0, -9.81 }" }
  for k = 1, n do
    local parent = "ground"
    if k > 1 then
      local p = opts.chain and k - 1 or math.floor(r(0, k))     -- 0 = ground: several roots and branches
      parent = p == 0 and "ground" or ("b" .. p)
    end
    local kind = r(0, 1) < (opts.prismatic or 0.3) and "prismatic" or "revolute"
    L[#L + 1] = string.format('body "b%d" { mass = %s, com = %s, inertia = %s }', k, num(r(0.5, 2)),
      vec({ r(-0.3, 0.3), r(-0.3, 0.3), r(-0.3, 0.3) }), inertia(r))
    L[#L + 1] = string.format('%s "j%d" { parent = "%s", child = "b%d", origin = %s, rotation = %s, axis = %s }',
      kind, k, parent, k, vec({ r(-0.5, 0.5), r(-0.5, 0.5), r(-0.5, 0.5) }),
      vec({ r(-math.pi, math.pi), r(-1.5, 1.5), r(-math.pi, math.pi) }), vec(unit(r)))
  end
  return table.concat(L, "\n") .. "\n"
end

return M
