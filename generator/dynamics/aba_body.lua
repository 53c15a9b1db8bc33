-- dynamics/aba_body.lua: the articulated-body forward dynamics in body frames (Featherstone, RBDA §7.3), unrolled.
-- Spatial vectors are {lin, ang} pairs about each body's origin in its own frame (dynamics/frames.lua): the joint
-- axis is e_z, so U = I^A s is a column of I^A and D one of its entries, and the articulated inertias are carried
-- to the parent by the joint's structural rotation and two sparse shifts (along the axis, across it).
-- An articulated inertia is { A, B, C } with force = A v + B w, moment = Bᵀ v + C w (A, C symmetric).
local E = require "sym.expr"
local V = require "sym.vec"
local NE = require "dynamics.newton_euler"

local ABA = {}

local to_child, turn, force_to_parent = NE.to_child, NE.turn, NE.force_to_parent

-- S - u sᵀ for symmetric S and s parallel to u, one triangle formed.
local function sym_minus_outer(S, u, s)
  local T = { {}, {}, {} }
  for i = 1, 3 do
    for j = 1, 3 do
      T[i][j] = j < i and T[j][i] or S[i][j] - u[i] * s[j]
    end
  end
  return T
end

-- An articulated inertia about an origin moved by d against the body (old origin = new origin + d):
-- B' = B - A [d]x, C' = C + [d]x B + ([d]x B)ᵀ - [d]x A [d]x.
local function shift(I, d)
  local D = V.skew(d)
  local AD = V.matmul(I.A, D)
  local B = V.msub(I.B, AD)
  local DB = V.matmul(D, I.B)
  local C = { {}, {}, {} }
  for i = 1, 3 do
    for j = 1, 3 do
      if j < i then
        C[i][j] = C[j][i]
      else
        C[i][j] = I.C[i][j] + DB[i][j] + DB[j][i] - (D[i][1] * AD[1][j] + D[i][2] * AD[2][j] + D[i][3] * AD[3][j])
      end
    end
  end
  return { A = I.A, B = B, C = C }
end

local function inertia_to_parent(N, I)
  I = shift(I, V.scale(N.d2, N.h))
  I = { A = turn(N, I.A, true), B = turn(N, I.B), C = turn(N, I.C, true) }
  return shift(I, N.d1)
end

-- A motion vector (v at the parent's origin, w) in body k's frame at its origin.
local function motion_to_child(N, v, w)
  local wc = to_child(N, w)
  local vc = to_child(N, V.add(v, V.cross(w, N.d1)))
  return V.add(vc, V.cross(wc, V.scale(N.d2, N.h))), wc
end

local function apply(I, v, w)
  return V.add(V.matvec(I.A, v), V.matvec(I.B, w)), V.add(V.mattvec(I.B, v), V.matvec(I.C, w))
end

-- The rigid-body inertia of body k about its origin in its frame, as { A, B, C }, and its first moment.
local function rigid_inertia(N)
  local I = NE.body_inertia(N)
  local m = I.m
  return { A = { { m, 0, 0 }, { 0, m, 0 }, { 0, 0, m } }, B = V.mscale(-1, V.skew(I.h)), C = I.J }, I.h
end

local ZERO3 = { 0, 0, 0 }
local ZERO33 = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }

-- zdd as expressions, and the articulated pivots D_k (all positive exactly when M is positive definite);
-- ap = the applied forces of dynamics.applied (world wrenches about O, joint forces).
-- no_gravity: the recursion without the base's gravity acceleration (ABA.solve).
function ABA.forward_dynamics(tree, kin, zd, ap, no_gravity)
  local n = #tree.bodies
  local v, w = { [0] = ZERO3 }, { [0] = ZERO3 }
  local c, IA, pf, pn = {}, {}, {}, {}
  for k, body in ipairs(tree.bodies) do
    local N, p = kin[k].N, body.parent
    local vk, wk = motion_to_child(N, v[p], w[p])
    local sv = V.scale(zd[k], N.h)
    local revolute = body.joint.kind == "revolute"
    -- The velocity-product acceleration across the joint: v_k x (s zd).
    if revolute then
      c[k] = { V.cross(vk, sv), V.cross(wk, sv) }
      wk = V.add(wk, sv)
    else
      c[k] = { V.cross(wk, sv), ZERO3 }
      vk = V.add(vk, sv)
    end
    v[k], w[k] = vk, wk
    local f, nn = ZERO3, ZERO3
    if N.m then
      local I, h = rigid_inertia(N)
      IA[k] = I
      -- v x* (I v): momentum (m v + w x h, J w + h x v), then (w x p, w x L + v x p).
      local pl = V.add(V.scale(N.m, vk), V.cross(wk, h))
      local pa = V.add(V.matvec(I.C, wk), V.cross(h, vk))
      f, nn = V.cross(wk, pl), V.add(V.cross(wk, pa), V.cross(vk, pl))
    else
      IA[k] = { A = ZERO33, B = ZERO33, C = ZERO33 }
    end
    local W = ap.wrench[k]
    if W then
      -- A world wrench about the world origin, in body k's frame about its origin.
      local q = kin[k]
      local fw = { W[1], W[2], W[3] }
      local nw = V.sub({ W[4], W[5], W[6] }, V.cross(q.o, fw))
      f = V.sub(f, V.mattvec(q.A, fw))
      nn = V.sub(nn, V.mattvec(q.A, nw))
    end
    pf[k], pn[k] = f, nn
  end
  local Ul, Ua, Dk, u = {}, {}, {}, {}
  for k = n, 1, -1 do
    local body, N, I = tree.bodies[k], kin[k].N, IA[k]
    local revolute = body.joint.kind == "revolute"
    if revolute then
      Ul[k], Ua[k] = V.matvec(I.B, N.h), V.matvec(I.C, N.h)
    else
      Ul[k], Ua[k] = V.matvec(I.A, N.h), V.mattvec(I.B, N.h)
    end
    Dk[k] = V.dot(N.h, revolute and Ua[k] or Ul[k])
    u[k] = (ap.tau[k] or 0) - V.dot(N.h, revolute and pn[k] or pf[k])
    local p = body.parent
    if p ~= 0 then
      local inv = E.div(1, Dk[k])
      local sl, sa = V.scale(inv, Ul[k]), V.scale(inv, Ua[k])
      local Ia = { A = sym_minus_outer(I.A, Ul[k], sl), B = V.msub(I.B, V.outer(Ul[k], sa)),
                   C = sym_minus_outer(I.C, Ua[k], sa) }
      -- Ia s = U - U (sᵀU)/D = 0: with s = e_z the joint's row and column vanish exactly, which the algebra
      -- would only find numerically; they are written as the zeros they are.
      if not N.general then
        for i = 1, 3 do
          if revolute then
            Ia.C[3][i], Ia.C[i][3], Ia.B[i][3] = 0, 0, 0
          else
            Ia.A[3][i], Ia.A[i][3], Ia.B[3][i] = 0, 0, 0
          end
        end
      end
      local cf, cn = apply(Ia, c[k][1], c[k][2])
      local fa = V.add(V.add(pf[k], cf), V.scale(u[k], sl))
      local na = V.add(V.add(pn[k], cn), V.scale(u[k], sa))
      local fp, np = force_to_parent(N, fa, na)
      pf[p], pn[p] = V.add(pf[p], fp), V.add(pn[p], np)
      local Ip = inertia_to_parent(N, Ia)
      IA[p] = { A = V.madd(IA[p].A, Ip.A), B = V.madd(IA[p].B, Ip.B), C = V.madd(IA[p].C, Ip.C) }
    end
  end
  local av, aw = { [0] = no_gravity and ZERO3 or V.scale(-1, tree.gravity) }, { [0] = ZERO3 }
  local zdd = {}
  for k, body in ipairs(tree.bodies) do
    local N = kin[k].N
    local al, aa = motion_to_child(N, av[body.parent], aw[body.parent])
    al, aa = V.add(al, c[k][1]), V.add(aa, c[k][2])
    zdd[k] = (u[k] - V.dot(Ul[k], al) - V.dot(Ua[k], aa)) / Dk[k]
    if body.joint.kind == "revolute" then
      aa = V.add(aa, V.scale(zdd[k], N.h))
    else
      al = V.add(al, V.scale(zdd[k], N.h))
    end
    av[k], aw[k] = al, aa
  end
  return zdd, Dk
end

-- M⁻¹ b by the same recursion at rest, without gravity or applied wrenches, b the joint forces: its articulated
-- inertias are the nodes forward_dynamics builds (hash-consed, so emitted once for both), and only the
-- force and acceleration sweeps are new, O(n) per right-hand side (Featherstone, RBDA §7.3).
function ABA.solve(tree, kin, b)
  local zero = {}
  for k = 1, #tree.bodies do zero[k] = 0 end
  return (ABA.forward_dynamics(tree, kin, zero, { tau = b, wrench = {} }, true))
end

return ABA
