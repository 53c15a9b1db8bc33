-- tyres.lua: the tyre element: contact with the road surface and the Magic Formula forces, as sym expressions.
local E = require "sym.expr"
local V = require "sym.vec"
local D = require "sym.diff"

local T = {}

-- |v| smoothed as sqrt(v^2 + eps^2): the slip denominators divide by |vx|, which is not differentiable
-- at 0; eps (m/s) keeps every derivative finite and changes |v| by at most eps.
function T.smooth_abs(v, eps)
  return E.sqrt(E.add(E.mul(v, v), eps * eps))
end

local function atan(x) return E.atan2(x, 1) end

-- Magic Formula y = D sin(C atan(B x - E (B x - atan(B x)))) (Pacejka, Tyre and Vehicle Dynamics,
-- eq. 4.49). p = { B =, C =, D =, E = } numbers or sym expressions.
function T.magic(x, p)
  local bx = E.mul(p.B, x)
  local inner = E.sub(bx, E.mul(p.E, E.sub(bx, atan(bx))))
  return E.mul(p.D, E.sin(E.mul(p.C, atan(inner))))
end

-- Combined slip by the friction-ellipse scaling of the theoretical slips sigma_x = kappa/(1+kappa),
-- sigma_y = tan(alpha)/(1+kappa) (Pacejka 2006 §4.3.2): Fx = Fx0(sigma) sigma_x/sigma,
-- Fy = Fy0(sigma) sigma_y/sigma with sigma smoothed at 0. px, py: Magic Formula parameters whose D is the
-- peak force (mu * Fz). Returns Fx, Fy.
function T.combined(kappa, tan_alpha, px, py, eps)
  local one_k = E.add(1, kappa)
  local sx, sy = E.div(kappa, one_k), E.div(tan_alpha, one_k)
  local s = E.sqrt(E.add(E.add(E.mul(sx, sx), E.mul(sy, sy)), eps * eps))
  return E.mul(T.magic(s, px), E.div(sx, s)), E.mul(T.magic(s, py), E.div(sy, s))
end

-- The road under the point (x, y): height h and the unit normal n = (-h_x, -h_y, 1)/|.|. The road function
-- is traced once on two placeholder symbols, differentiated there, and the placeholders replaced by x, y.
local function road_at(road, x, y, name)
  if not road then return 0, { 0, 0, 1 } end
  local X, Y = E.symbol("w", 999996, name .. ".x"), E.symbol("w", 999997, name .. ".y")
  local h = E.lift(road(X, Y))
  local hx, hy = D.derivative(h, X), D.derivative(h, Y)
  local at = E.substitute({ h, hx, hy }, { [X] = x, [Y] = y })
  local s = E.sqrt(E.add(1, E.add(E.mul(at[2], at[2]), E.mul(at[3], at[3]))))
  return at[1], { E.div(E.neg(at[2]), s), E.div(E.neg(at[3]), s), E.div(1, s) }, at[2], at[3]
end

-- One tyre on its wheel body. c: wheel centre (world), a: unit spin axis (world), vc: velocity of the
-- centre, omega: angular velocity of the wheel, both world. Single contact point on the road's tangent plane
-- under the centre (Pacejka 2006 §9.2 "contact on the plane through the point below the wheel centre"):
--   m = n - (n.a) a            the normal projected on the wheel plane; |m| = sin(angle between a and n)
--   d = -m/|m|                 from the centre to the contact point, in the wheel plane
--   rho = (c_z - h) n_z / |m|  loaded radius: distance from the centre to the plane along d
--   P = c + rho d, deflection = R0 - rho
--   e_x = a x n / |m| (forward), e_y = n x e_x (lateral, in the road plane)
-- The deflection rate is the rate of the centre's height above the road, (v_z - h_x v_x - h_y v_y) n_z/|m|,
-- with the slope and camber of the instant (they change slowly next to the tyre's radial motion).
-- Normal load Fz = max(0, k deflection - c rate); the slips are those of the wheel's material point at P,
-- kappa = -V_sx/|V_x|, tan(alpha) = -V_sy/|V_x| with |V_x| of the centre smoothed by speed_eps; Fx, Fy by
-- the combined-slip Magic Formula with D = mu Fz. Returns the world force at P, P, and the outputs
-- { Fx, Fy, Fz, kappa, tan alpha, deflection, P_x, P_y, P_z }.
function T.contact(ty, c, a, vc, omega)
  local h, n, hx, hy = road_at(ty.road, c[1], c[2], ty.name)
  hx, hy = hx or 0, hy or 0
  local na = V.dot(n, a)
  local m = V.sub(n, V.scale(na, a))
  local mlen = E.sqrt(V.dot(m, m))
  local d = V.scale(E.div(-1, mlen), m)
  local height = E.mul(E.sub(c[3], h), n[3])
  local rho = E.div(height, mlen)
  local P = V.add(c, V.scale(rho, d))
  local deflection = E.sub(ty.radius, rho)
  local height_rate = E.mul(E.sub(vc[3], E.add(E.mul(hx, vc[1]), E.mul(hy, vc[2]))), n[3])
  local fz = E.max(0, E.sub(E.mul(ty.stiffness, deflection), E.mul(ty.damping, E.div(height_rate, mlen))))
  local ex = V.scale(E.div(1, mlen), V.cross(a, n))
  local ey = V.cross(n, ex)
  local vp = V.add(vc, V.cross(omega, V.sub(P, c)))
  local vx = T.smooth_abs(V.dot(vc, ex), ty.speed_eps)
  local kappa = E.div(E.neg(V.dot(vp, ex)), vx)
  local tana = E.div(E.neg(V.dot(vp, ey)), vx)
  local lo, la = ty.longitudinal, ty.lateral
  local fx, fy = T.combined(kappa, tana,
    { B = lo.B, C = lo.C, E = lo.E, D = E.mul(lo.mu, fz) },
    { B = la.B, C = la.C, E = la.E, D = E.mul(la.mu, fz) }, 1e-6)
  local F = V.add(V.add(V.scale(fz, n), V.scale(fx, ex)), V.scale(fy, ey))
  return F, P, { fx, fy, fz, kappa, tana, deflection, P[1], P[2], P[3] }
end

T.OUTPUTS = { "Fx", "Fy", "Fz", "kappa", "tan_alpha", "deflection", "x", "y", "z" }

return T
