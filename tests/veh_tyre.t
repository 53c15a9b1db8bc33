#!/usr/bin/env lua5.4
-- veh_tyre.t: the Magic Formula tyre law of generator/dynamics/tyres.lua against its analytic properties.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local E = require "sym.expr"
local L = require "sym.eval"
local D = require "sym.diff"
local T = require "dynamics.tyres"

local x = E.symbol("z", 0, "x")
local p = { B = 10, C = 1.9, D = 4000, E = 0.97 }
local y = T.magic(x, p)
local function f(v) return L.eval(y, { z = { v } }) end

tap.ok(math.abs(f(0)) < 1e-12, "no force at zero slip")
tap.ok(math.abs(f(0.1) + f(-0.1)) < 1e-9, "odd in slip")
-- with E = 0 the peak D is reached at B x = tan(pi / (2 C))
local y0 = T.magic(x, { B = 10, C = 1.9, D = 4000, E = 0 })
local xp = math.tan(math.pi / (2 * 1.9)) / 10
tap.ok(math.abs(L.eval(y0, { z = { xp } }) - 4000) < 1e-6, "peak value D at x = tan(pi/2C)/B")
-- cornering stiffness dy/dx(0) = B C D
local dy = D.derivative(y, x)
tap.ok(math.abs(L.eval(dy, { z = { 0 } }) - 10 * 1.9 * 4000) < 1e-6, "slope at 0 is B C D")
local h = 1e-6
tap.ok(math.abs(L.eval(dy, { z = { 0.07 } }) - (f(0.07 + h) - f(0.07 - h)) / (2 * h)) < 1e-3,
  "symbolic derivative matches central difference")
-- combined slip: pure longitudinal gives no lateral force, and the resultant stays below D
local k, a = E.symbol("z", 0, "k"), E.symbol("z", 1, "a")
local fx, fy = T.combined(k, a, p, p, 1e-6)
local v = L.eval({ fx, fy }, { z = { 0.1, 0 } })
tap.ok(math.abs(v[2]) < 1e-9 and v[1] > 0, "pure longitudinal slip: Fy = 0, Fx > 0")
v = L.eval({ fx, fy }, { z = { 0.2, 0.2 } })
tap.ok(math.sqrt(v[1] ^ 2 + v[2] ^ 2) <= 4000 * (1 + 1e-12), "combined force within the friction circle")
local sa = T.smooth_abs(x, 0.1)
tap.ok(math.abs(L.eval(sa, { z = { 0 } }) - 0.1) < 1e-12, "smoothed |v| is eps at 0")
tap.done_testing()
