-- lib/pacejka.lua: Magic Formula coefficients of the tyre element from the Pacejka 2002 (.tir) coefficients.
-- The tyre element uses y = D sin(C atan(B x - E (B x - atan(B x)))) with D = mu Fz and B, C, E constant
-- (so the slip stiffnesses B C D grow linearly with the load). These are the .tir formulas (Pacejka, Tyre and
-- Vehicle Dynamics, 2nd ed., §4.3.2) evaluated at the nominal load FNOMIN (dfz = 0), with the scale factors
-- LMUX = LMUY = 1, no camber and no shifts, and the friction scaled to the road's mu as Chrono does with the
-- wrapper's "Coefficient of Friction" (mu_road / nominal mu of the .tir file is 1 unless given).
--   Cx = PCX1, mux = PDX1, Ex = PEX1, Kx = PKX1 Fz0        ->  Bx = PKX1 / (PCX1 PDX1)
--   Cy = PCY1, muy = PDY1, Ey = PEY1, Ky = PKY1 Fz0 sin(2 atan(1 / PKY2))  ->  By = |Ky| / (PCY1 PDY1 Fz0)
-- PKY1 is negative in the .tir files (the ADAMS/TYDEX sign convention of Fy); the element's convention is
-- that a positive slip angle gives a positive force, hence |Ky|.
return function(tir, mu_scale)
  mu_scale = mu_scale or 1
  local ky = math.abs(tir.PKY1 * math.sin(2 * math.atan(1 / tir.PKY2)))
  return {
    longitudinal = { B = tir.PKX1 / (tir.PCX1 * tir.PDX1), C = tir.PCX1, E = tir.PEX1, mu = tir.PDX1 * mu_scale },
    lateral = { B = ky / (tir.PCY1 * tir.PDY1), C = tir.PCY1, E = tir.PEY1, mu = tir.PDY1 * mu_scale },
  }
end
