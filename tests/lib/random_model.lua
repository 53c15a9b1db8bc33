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
  return { J[1][1], J[2][2], J[3][3], J[1][2], J[1][3], J[2][3] }
end

local function inertia_text(J)
  return string.format("{ %s, %s, %s, %s, %s, %s }", num(J[1]), num(J[2]), num(J[3]), num(J[4]), num(J[5]), num(J[6]))
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
      vec({ r(-0.3, 0.3), r(-0.3, 0.3), r(-0.3, 0.3) }), inertia_text(inertia(r)))
    L[#L + 1] = string.format('%s "j%d" { parent = "%s", child = "b%d", origin = %s, rotation = %s, axis = %s }',
      kind, k, parent, k, vec({ r(-0.5, 0.5), r(-0.5, 0.5), r(-0.5, 0.5) }),
      vec({ r(-math.pi, math.pi), r(-1.5, 1.5), r(-math.pi, math.pi) }), vec(unit(r)))
  end
  return table.concat(L, "\n") .. "\n"
end

local SEQUENCES = { "xyz", "zyx", "yzx", "zxy", "xzy", "yxz" }

-- Model source of an n-body tree with design parameters. opts.chain: a serial chain; opts.parents: the parent of each
-- body (0: ground);
-- else random parents, ground included, so several roots and branches; opts.kinds: joint kinds by body, cycled
-- (else revolute, prismatic with probability 0.3);
-- opts.mass, opts.com, opts.inertia: bodies whose mass, centre-of-mass x or inertia Ixx is a design parameter
-- (m01, c01, i01); opts.origin: joints whose origin x (the parent's link length) is one (o01).
function M.design_source(name, n, seed, opts)
  local r = rng(seed)
  local set = function(list)
    local s = {}
    for _, k in ipairs(list or {}) do s[k] = true end
    return s
  end
  local dm, dc, di, dorig = set(opts.mass), set(opts.com), set(opts.inertia), set(opts.origin)
  local design, lines = {}, {}
  for k = 1, n do
    local parent = "ground"
    local p = opts.parents and opts.parents[k] or (k == 1 and 0) or (opts.chain and k - 1) or math.floor(r(0, k))
    if p > 0 then parent = "b" .. p end
    local kind = opts.kinds and opts.kinds[(k - 1) % #opts.kinds + 1] or (r(0, 1) < 0.3 and "prismatic" or "revolute")
    local mass, com, J = r(0.5, 2), { r(-0.3, 0.3), r(-0.3, 0.3), r(-0.3, 0.3) }, inertia(r)
    local origin = { r(-0.5, 0.5), r(-0.5, 0.5), r(-0.5, 0.5) }
    local rot = { r(-math.pi, math.pi), r(-1.5, 1.5), r(-math.pi, math.pi) }
    local mass_s, com_s, origin_s = num(mass), vec(com), vec(origin)
    local J_s = inertia_text(J)
    if dm[k] then
      local d = string.format("m%02d", k)
      design[#design + 1], mass_s = string.format("%s = %s", d, num(mass)), d
    end
    if dc[k] then
      local d = string.format("c%02d", k)
      design[#design + 1] = string.format("%s = %s", d, num(com[1]))
      com_s = string.format("{ %s, %s, %s }", d, num(com[2]), num(com[3]))
    end
    if di[k] then   -- a rounder body, so the design value may move by 10 % and keep the inertia positive
      local d = string.format("i%02d", k)
      design[#design + 1] = d .. " = 0.11"
      J_s = string.format("{ %s, 0.1, 0.12, 0.01, -0.005, 0.003 }", d)
    end
    if dorig[k] then
      local d = string.format("o%02d", k)
      design[#design + 1] = string.format("%s = %s", d, num(origin[1]))
      origin_s = string.format("{ %s, %s, %s }", d, num(origin[2]), num(origin[3]))
    end
    local extra
    if kind == "universal" then
      local a1, a2 = unit(r), nil
      repeat
        a2 = unit(r)
        local c = { a1[2] * a2[3] - a1[3] * a2[2], a1[3] * a2[1] - a1[1] * a2[3], a1[1] * a2[2] - a1[2] * a2[1] }
      until c[1] ^ 2 + c[2] ^ 2 + c[3] ^ 2 > 0.25
      extra = "axes = { " .. vec(a1) .. ", " .. vec(a2) .. " }"
    elseif kind == "spherical" or kind == "free" then
      extra = string.format('sequence = "%s"', SEQUENCES[math.floor(r(0, 6)) + 1])
    elseif kind == "planar" then
      extra = "normal = " .. vec(unit(r))
    else
      extra = "axis = " .. vec(unit(r))
    end
    lines[#lines + 1] = string.format('body "b%d" { mass = %s, com = %s, inertia = %s }', k, mass_s, com_s, J_s)
    lines[#lines + 1] = string.format('%s "j%d" { parent = "%s", child = "b%d", origin = %s, rotation = %s, %s }',
      kind, k, parent, k, origin_s, vec(rot), extra)
  end
  return table.concat({
    string.format("-- Random spatial tree (seed %d, %d bodies) with design parameters, for tests.", seed, n),
    string.format('model "%s"', name), "gravity { 0, 0, -9.81 }", "design { " .. table.concat(design, ", ") .. " }",
    table.concat(lines, "\n") }, "\n") .. "\n"
end

return M
