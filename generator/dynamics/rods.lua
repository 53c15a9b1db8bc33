-- dynamics/rods.lua: the mass of `rod` elements carried by their end bodies, exact transfer of seeds/002.md §2.1.
local E = require "sym.expr"
local D = require "dynamics.data"
local V = require "sym.vec"
local jets = require "dynamics.point_jets"

local M = {}

local IDENTITY = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
local ZERO33 = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }

local function massive(tree)
  local list = {}
  for _, c in ipairs(tree.constraints or {}) do
    if c.kind == "rod" and not E.is_zero(c.mass or 0) then list[#list + 1] = c end
  end
  return list
end

function M.any(tree) return #massive(tree) > 0 end

local function add_wrench(w, k, F, x)
  if k == 0 then return end
  local Wk = { F[1], F[2], F[3], table.unpack(V.cross(x, F)) }
  if w[k] then for i = 1, 6 do Wk[i] = w[k][i] + Wk[i] end end
  w[k] = Wk
end

-- A uniform slender rod of mass m between points a and b: T = (m/6)(va² + va·vb + vb²) (the bar's exact kinetic
-- energy with zero spin inertia), V = -m g·(xa + xb)/2. Its ends need the forces
--   fa = (m/3) acc_a + (m/6) acc_b - (m/2) g,   fb = (m/6) acc_a + (m/3) acc_b - (m/2) g,
-- so the end bodies feel -fa at xa and -fb at xb. st: the forward recursion whose accelerations the forces
-- use (with zdd symbols for the residual, zdd = nil for Q). part: nil for the whole rod; "inertia" for its
-- inertia forces alone (no gravity), "cross" for their m/6 coupling of the two ends (the m/3 of each end on its
-- own acceleration is a point mass there: lumped_tree). Returns { wrench = {[k] = world wrench about O},
-- kinetic =, potential = }.
function M.build(tree, kin, st, part)
  local g = tree.gravity or { 0, 0, 0 }
  local J = jets(kin, st, g)
  local w, T, Vp = {}, 0, 0
  for _, c in ipairs(massive(tree)) do
    local m = E.lift(D.value(tree, c.name .. "_mass", c.mass))
    local pa, pb = J.point(c.a.body, c.a.at), J.point(c.b.body, c.b.at)
    local fa, fb
    if part == "cross" then
      fa, fb = V.scale(m / 6, pb[3]), V.scale(m / 6, pa[3])
    else
      fa = V.add(V.scale(m / 3, pa[3]), V.scale(m / 6, pb[3]))
      fb = V.add(V.scale(m / 6, pa[3]), V.scale(m / 3, pb[3]))
      if not part then fa, fb = V.sub(fa, V.scale(m / 2, g)), V.sub(fb, V.scale(m / 2, g)) end
    end
    add_wrench(w, c.a.body, V.scale(-1, fa), pa[1])
    add_wrench(w, c.b.body, V.scale(-1, fb), pb[1])
    T = T + (V.dot(pa[2], pa[2]) + V.dot(pa[2], pb[2]) + V.dot(pb[2], pb[2])) * (m / 6)
    Vp = Vp - V.dot(g, V.add(pa[1], pb[1])) * (m / 2)
  end
  return { wrench = w, tau = {}, kinetic = T, potential = Vp }
end

-- The tree with a third of every massive rod's mass lumped at each of its ends, as point masses of the end
-- bodies (seeds/002.md §2.6): its composite-inertia M is the partitioned modes' mass matrix, no costlier than
-- the tree's own. Everything but the bodies is shared with tree (its data table too).
function M.lumped_tree(tree)
  local topology = require "model.topology"
  local extra = {}
  for _, c in ipairs(massive(tree)) do
    for _, e in ipairs { c.a, c.b } do
      if e.body > 0 then
        extra[e.body] = extra[e.body] or {}
        table.insert(extra[e.body], { mass = c.mass / 3, com = e.at, inertia = ZERO33, rotation = IDENTITY })
      end
    end
  end
  local t = {}
  for k, v in pairs(tree) do t[k] = v end
  t.bodies = {}
  for k, b in ipairs(tree.bodies) do
    local nb = b
    if extra[k] then
      nb = {}
      for key, v in pairs(b) do nb[key] = v end
      local parts = { { mass = b.mass, com = b.com, inertia = b.inertia, rotation = IDENTITY } }
      for _, p in ipairs(extra[k]) do parts[#parts + 1] = p end
      nb.mass, nb.com, nb.inertia = topology.combine(parts)
    end
    t.bodies[k] = nb
  end
  return t
end

return M
