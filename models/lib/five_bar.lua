-- lib/five_bar.lua: the planar five-bar of seeds/000.md §4.1 with invented data (models/fivebar.lua says which):
-- bars, joints, the loop cut at A2, the two springs, point P2 (vertex A2), the assembly and the objectives.
-- five_bar { t1 =, t4 = (angles of the ground bars A0-A1 and A4-A3, degrees), side = 1 (A2 on the left of
--   A1 -> A3) or -1, Ls1 =, Ls2 = (the springs' natural lengths) }
-- Names: bodies bar1..bar4, joints J0, J1 (on bar1 at LA1), J4, J3, loop J2, springs s1, s2, point P2;
-- design parameters Ls1, Ls2, mA1, xGA1, LA1; objectives psi1, psi2, psi3. Returns { r20 = A2 at the start }.
return function(a)
  local L1, L2, L3, L4, Lg = 0.3, 0.6, 0.6, 0.3, 0.4
  design { Ls1 = a.Ls1, Ls2 = a.Ls2, mA1 = 0.3, xGA1 = 0.15, LA1 = L1 }
  parameter { k = 50.0 }

  local function bar(name, L, m, xg)
    body(name) { mass = m, com = { xg, 0, 0 }, inertia = { 0, L * L * L / 12, L * L * L / 12 } }
  end
  -- The inertia of bar A0-A1 stays that of the nominal bar: the benchmark varies mass, COM and length only.
  body "bar1" { mass = mA1, com = { xGA1, 0, 0 }, inertia = { 0, L1 * L1 * L1 / 12, L1 * L1 * L1 / 12 } }
  bar("bar2", L2, L2, L2 / 2)
  bar("bar3", L3, L3, L3 / 2)
  bar("bar4", L4, L4, L4 / 2)

  revolute "J0" { parent = "ground", child = "bar1", axis = { 0, 0, 1 } }
  revolute "J1" { parent = "bar1", child = "bar2", origin = { LA1, 0, 0 }, axis = { 0, 0, 1 } }
  revolute "J4" { parent = "ground", child = "bar4", origin = { Lg, 0, 0 }, axis = { 0, 0, 1 } }
  revolute "J3" { parent = "bar4", child = "bar3", origin = { L4, 0, 0 }, axis = { 0, 0, 1 } }
  loop "J2" { type = "point2d", a = { "bar2", { L2, 0, 0 } }, b = { "bar3", { L3, 0, 0 } }, normal = { 0, 0, 1 } }

  spring "s1" { a = { "ground", { 0, 0, 0 } }, b = { "bar2", { L2, 0, 0 } }, stiffness = k, length = Ls1 }
  spring "s2" { a = { "ground", { Lg, 0, 0 } }, b = { "bar2", { L2, 0, 0 } }, stiffness = k, length = Ls2 }
  point "P2" { body = "bar2", at = { L2, 0, 0 } }

  -- Assembly: A1 and A3 from the ground angles, A2 where the circles (A1, L2) and (A3, L3) meet, on the side
  -- `side` of the line A1 -> A3.
  local t1, t4 = a.t1 * pi / 180, a.t4 * pi / 180
  local a1x, a1y = L1 * cos(t1), L1 * sin(t1)
  local a3x, a3y = Lg + L4 * cos(t4), L4 * sin(t4)
  local dx, dy = a3x - a1x, a3y - a1y
  local d = sqrt(dx * dx + dy * dy)
  local along = (L2 * L2 - L3 * L3 + d * d) / (2 * d)
  local h = (a.side or 1) * sqrt(L2 * L2 - along * along)
  local a2x, a2y = a1x + (along * dx - h * dy) / d, a1y + (along * dy + h * dx) / d
  local t2, t3 = atan2(a2y - a1y, a2x - a1x), atan2(a2y - a3y, a2x - a3x)
  initial { J0 = t1, J1 = t2 - t1, J4 = t4, J3 = t3 - t4 }

  local r20 = { a2x, a2y, 0 }
  objective "psi1" { integrand = function(t, s)
    local r = s.point.P2.pos
    return (r[1] - r20[1]) ^ 2 + (r[2] - r20[2]) ^ 2 + (r[3] - r20[3]) ^ 2
  end }
  objective "psi2" { integrand = function(t, s)
    local v = s.point.P2.vel
    return v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2
  end }
  objective "psi3" { integrand = function(t, s)
    local acc = s.point.P2.acc
    return acc[1] ^ 2 + acc[2] ^ 2 + acc[3] ^ 2
  end }
  return { r20 = r20 }
end
