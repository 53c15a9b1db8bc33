#!/usr/bin/env lua5.4
-- sym_vec.t: vector, rotation and spatial algebra of sym.vec against plain numeric formulas.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local E = require "sym.expr"
local V = require "sym.vec"
local L = require "sym.eval"

local q = { E.symbol("z", 0), E.symbol("z", 1), E.symbol("z", 2) }
local env = { z = { 0.3, -1.1, 2.2 } }
local ev = function(x) return L.eval(E.lift(x), env) end

-- coordinate axes give literal zeros and ones
local expect = {
  { { 1, 0, 0 }, { 0, "c", "-s" }, { 0, "s", "c" } },
  { { "c", 0, "s" }, { 0, 1, 0 }, { "-s", 0, "c" } },
  { { "c", "-s", 0 }, { "s", "c", 0 }, { 0, 0, 1 } },
}
for k = 1, 3 do
  local axis = { 0, 0, 0 }
  axis[k] = 1
  local R = V.rot_axis(axis, q[1])
  local good = true
  for i = 1, 3 do
    for j = 1, 3 do
      local e, r = expect[k][i][j], R[i][j]
      local want = (e == "c" and E.cos(q[1])) or (e == "s" and E.sin(q[1])) or (e == "-s" and -E.sin(q[1]))
        or E.const(e)
      if r ~= want then good = false end
    end
  end
  tap.ok(good, "rot_axis about axis " .. k .. " has literal zeros and ones")
end
local Rm = V.rot_axis({ 0, -1, 0 }, q[1])
tap.ok(Rm[2][2] == E.one and Rm[1][3] == -E.sin(q[1]), "negative coordinate axis")

-- a general axis: orthogonal, fixes the axis, rotates by the angle
local u = { 2 / 7, 3 / 7, 6 / 7 }
local R = V.rot_axis(u, q[2])
local RtR = V.matmul(V.transpose(R), R)
local maxerr = 0
for i = 1, 3 do
  for j = 1, 3 do maxerr = math.max(maxerr, math.abs(ev(RtR[i][j]) - (i == j and 1 or 0))) end
end
tap.ok(maxerr < 1e-15, "rot_axis is orthogonal")
local Ru = V.matvec(R, u)
tap.ok(math.abs(ev(Ru[1]) - u[1]) + math.abs(ev(Ru[2]) - u[2]) + math.abs(ev(Ru[3]) - u[3]) < 1e-15, "axis is fixed")
local perp = V.cross(u, { 1, 0, 0 })
local cosang = ev(V.dot(perp, V.matvec(R, perp))) / ev(V.norm2(perp))
tap.is_double(cosang, math.cos(env.z[2]), 1e-14, 1e-15, "rotates by the angle")
local symaxis = V.rot_axis({ q[3], 0, 0 }, q[2])
tap.is_double(ev(symaxis[2][3]), -math.sin(env.z[2]) * env.z[3], 1e-14, 0, "symbolic axis entries")

-- rpy = Rz(yaw) Ry(pitch) Rx(roll), checked on a numeric composition
local function rz(a) return { { math.cos(a), -math.sin(a), 0 }, { math.sin(a), math.cos(a), 0 }, { 0, 0, 1 } } end
local function ry(a) return { { math.cos(a), 0, math.sin(a) }, { 0, 1, 0 }, { -math.sin(a), 0, math.cos(a) } } end
local function rx(a) return { { 1, 0, 0 }, { 0, math.cos(a), -math.sin(a) }, { 0, math.sin(a), math.cos(a) } } end
local mm = require("model.vec3").matmul   -- numbers only: the reference, not sym.vec under test
local Rn = mm(rz(env.z[3]), mm(ry(env.z[2]), rx(env.z[1])))
local Rs = V.rpy(q[1], q[2], q[3])
maxerr = 0
for i = 1, 3 do for j = 1, 3 do maxerr = math.max(maxerr, math.abs(ev(Rs[i][j]) - Rn[i][j])) end end
tap.ok(maxerr < 1e-15, "rpy is Rz(yaw) Ry(pitch) Rx(roll)")
local R0 = V.rpy(0, 0, 0)
tap.ok(R0[1][1] == E.one and E.is_zero(R0[1][2]), "rpy(0,0,0) is the literal identity")

-- products
local a, b = { q[1], 2, q[3] }, { -1, q[2], 0.5 }
local axb = V.cross(a, b)
local an, bn = { env.z[1], 2, env.z[3] }, { -1, env.z[2], 0.5 }
local cn = { an[2] * bn[3] - an[3] * bn[2], an[3] * bn[1] - an[1] * bn[3], an[1] * bn[2] - an[2] * bn[1] }
tap.ok(math.abs(ev(axb[1]) - cn[1]) + math.abs(ev(axb[2]) - cn[2]) + math.abs(ev(axb[3]) - cn[3]) < 1e-15, "cross")
local sk = V.matvec(V.skew(a), b)
tap.ok(sk[1] == axb[1] and sk[2] == axb[2] and sk[3] == axb[3], "skew(a) b is the same node as a x b")
local Mt = V.mattvec(R, a)
local Mt2 = V.matvec(V.transpose(R), a)
tap.ok(Mt[1] == Mt2[1] and Mt[3] == Mt2[3], "mattvec = matvec of transpose")
tap.ok(E.is_zero(V.cross({ q[1], 0, 0 }, { q[2], 0, 0 })[3]), "parallel coordinate vectors cross to literal zero")
tap.ok(V.dot({ 0, 0, q[1] }, { q[2], q[3], 0 }) == E.zero, "dot of disjoint supports is the zero node")
tap.ok(V.scale(0, a)[2] == E.zero, "scale by 0")
tap.ok(V.sub(a, a)[1] == E.zero, "a - a = 0")

-- spatial algebra: crm(V, .) and crf(V, .) are dual, sdot(crm(V, X), F) = -sdot(X, crf(V, F))
local S = { q[1], q[2], 0.3, -0.2, q[3], 1.1 }
local X = { 0.5, q[3], -0.4, q[1] * q[2], 0.7, -1.3 }
local F = { 1.5, -0.25, q[2], 0.9, E.sin(q[1]), 0.1 }
local lhs = V.sdot(V.crm(S, X), F)
local rhs = V.sdot(X, V.crf(S, F))
tap.is_double(ev(lhs), -ev(rhs), 1e-14, 1e-14, "crm and crf are dual under sdot")
tap.is_double(ev(V.sdot(V.crm(S, S), F)), 0, 0, 1e-15, "crm(V, V) = 0")
local m = V.crm({ 0, 0, 0, 0, 0, q[1] }, { 0, 0, 0, 0, 0, q[2] })
local allzero = true
for i = 1, 6 do allzero = allzero and m[i] == E.zero end
tap.ok(allzero, "crm of parallel pure rotations is the literal zero 6-vector")
local cm = V.crm({ 1, 2, 3, 4, 5, 6 }, { 7, 8, 9, 10, 11, 12 })
-- [w x x + v x xi; w x xi] with v=(1,2,3), w=(4,5,6), x=(7,8,9), xi=(10,11,12)
local want = { (5 * 9 - 6 * 8) + (2 * 12 - 3 * 11), (6 * 7 - 4 * 9) + (3 * 10 - 1 * 12), (4 * 8 - 5 * 7) + (1 * 11 - 2 * 10),
  5 * 12 - 6 * 11, 6 * 10 - 4 * 12, 4 * 11 - 5 * 10 }
local good = true
for i = 1, 6 do good = good and E.const_value(cm[i]) == want[i] end
tap.ok(good, "crm layout [w x x + v x xi; w x xi]")
local cf = V.crf({ 1, 2, 3, 4, 5, 6 }, { 7, 8, 9, 10, 11, 12 })
want = { 5 * 9 - 6 * 8, 6 * 7 - 4 * 9, 4 * 8 - 5 * 7,
  (5 * 12 - 6 * 11) + (2 * 9 - 3 * 8), (6 * 10 - 4 * 12) + (3 * 7 - 1 * 9), (4 * 11 - 5 * 10) + (1 * 8 - 2 * 7) }
good = true
for i = 1, 6 do good = good and E.const_value(cf[i]) == want[i] end
tap.ok(good, "crf layout [w x f; w x n + v x f]")

tap.done_testing()
