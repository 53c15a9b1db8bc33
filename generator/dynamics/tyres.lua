-- tyres.lua: smooth Pacejka Magic Formula tyre forces (pure and combined slip) as sym expressions.
-- Not yet hooked into applied.lua: this is the force law only (issue 9, item 1, first part).
local E = require "sym.expr"

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

-- Longitudinal slip kappa = -(vx - omega R) / |vx| and slip angle tan(alpha) = -vy / |vx| (SAE-like,
-- Pacejka sign convention), both with the smoothed |vx|.
function T.slips(vx, vy, omega_r, eps)
  local ax = T.smooth_abs(vx, eps)
  return E.div(E.sub(omega_r, vx), ax), E.div(E.neg(vy), ax)
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

return T
