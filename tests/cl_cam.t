#!/usr/bin/env lua5.4
-- cl_cam.t: models/cam_follower.lua (a follower whose lift is the cam profile s(theta), a drive that reads the state)
-- against its one-coordinate Lagrange equation (I + m s'²) theta'' + m s' s'' theta'² + (k s + m g) s' = 0 integrated
-- here, keeps its energy without damping, holds the profile, and passes `mbgen check`.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/cl_cam"
H.mkdir(TMP)
local h0, e, e2, I, m, k, g = 0.05, 0.01, 0.003, 0.004, 0.3, 2000, 9.81
local function s(th) return h0 + e * math.cos(th) + e2 * math.cos(2 * th) end
local function s1(th) return -e * math.sin(th) - 2 * e2 * math.sin(2 * th) end
local function s2(th) return -e * math.cos(th) - 4 * e2 * math.cos(2 * th) end
local function f(y)
  local th, w = y[1], y[2]
  return { w, -(m * s1(th) * s2(th) * w * w + (k * s(th) + m * g) * s1(th)) / (I + m * s1(th) ^ 2) }
end
-- The oracle: RK4 at 1e-5 s to t = 1 (its error far below the comparison's).
local y, hh = { 0, 10 }, 1e-5
for _ = 1, 100000 do
  local k1 = f(y)
  local k2 = f { y[1] + hh / 2 * k1[1], y[2] + hh / 2 * k1[2] }
  local k3 = f { y[1] + hh / 2 * k2[1], y[2] + hh / 2 * k2[2] }
  local k4 = f { y[1] + hh * k3[1], y[2] + hh * k3[2] }
  for i = 1, 2 do y[i] = y[i] + hh / 6 * (k1[i] + 2 * (k2[i] + k3[i]) + k4[i]) end
end

local csv = TMP .. "/run.csv"
local ok, out, err = H.mbgen("run -q models/cam_follower.lua --t-end 1 --integrator dopri5 --tolerance 1e-12 --out '" ..
  csv .. "'", TMP)
if not ok then tap.diag(out .. err) end
local last = H.csv_last(csv)
tap.ok(ok and math.abs(last["z.theta"] - y[1]) < 1e-8 and math.abs(last["zd.theta"] - y[2]) < 1e-7,
  string.format("theta and its rate at t = 1 equal the one-coordinate Lagrange equation's: %.1e, %.1e",
    math.abs((last["z.theta"] or 0) - y[1]), math.abs((last["zd.theta"] or 0) - y[2])))
tap.ok(math.abs(last["z.lift"] - s(last["z.theta"])) < 1e-12 and
  math.abs(last["zd.lift"] - s1(last["z.theta"]) * last["zd.theta"]) < 1e-10, "the follower holds the profile and its rate")
local ok2, out2 = H.mbgen("run -q models/cam_follower.lua --t-end 2", TMP)
local rel = tonumber(out2:match("balance [^%(]*%(relative ([^%)]+)%)"))
tap.ok(ok2 and rel and math.abs(rel) < 1e-8, string.format("RK4 at 1 ms over 2 s keeps the energy to %s relative", tostring(rel)))
local ok3, out3 = H.mbgen("check -q models/cam_follower.lua", TMP)
tap.ok(ok3 and out3:match("checked at 5 random states: ok"), "mbgen check: the profile's derivatives against complex step")
tap.done_testing()
