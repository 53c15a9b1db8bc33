-- dynamics/rods.lua: the mass of `rod` elements carried by their end bodies, exact transfer of seeds/002.md §2.1.
local E = require "sym.expr"
local D = require "dynamics.data"
local V = require "sym.vec"
local jets = require "dynamics.point_jets"

local M = {}

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
-- use (with zdd symbols for the residual, zdd = nil for Q). Returns { wrench = {[k] = world wrench about O},
-- kinetic =, potential = }.
function M.build(tree, kin, st)
  local g = tree.gravity or { 0, 0, 0 }
  local J = jets(kin, st, g)
  local w, T, Vp = {}, 0, 0
  for _, c in ipairs(massive(tree)) do
    local m = E.lift(D.value(tree, c.name .. "_mass", c.mass))
    local pa, pb = J.point(c.a.body, c.a.at), J.point(c.b.body, c.b.at)
    local fa = V.sub(V.add(V.scale(m / 3, pa[3]), V.scale(m / 6, pb[3])), V.scale(m / 2, g))
    local fb = V.sub(V.add(V.scale(m / 6, pa[3]), V.scale(m / 3, pb[3])), V.scale(m / 2, g))
    add_wrench(w, c.a.body, V.scale(-1, fa), pa[1])
    add_wrench(w, c.b.body, V.scale(-1, fb), pb[1])
    T = T + (V.dot(pa[2], pa[2]) + V.dot(pa[2], pb[2]) + V.dot(pb[2], pb[2])) * (m / 6)
    Vp = Vp - V.dot(g, V.add(pa[1], pb[1])) * (m / 2)
  end
  return { wrench = w, tau = {}, kinetic = T, potential = Vp }
end

return M
