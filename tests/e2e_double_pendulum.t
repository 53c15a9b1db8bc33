#!/usr/bin/env lua5.4
-- e2e_double_pendulum.t: models/double_pendulum.lua generated, compiled with the runtime driver and simulated
-- reproduces the reference trajectory of seeds/004.md §8.2 (RK4, h = 1e-3; values integrator-converged to ~1e-8).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local dir = H.root .. "build/tmp/e2e_double_pendulum"
H.generate(H.tree(H.root .. "models/double_pendulum.lua"), dir)
local exe = dir .. "/run"
local ok, out = H.sh(string.format("gcc -std=c99 -O2 -Wall -Wextra -Werror -I%sruntime -I%s -DMB_MODEL=double_pendulum_model " ..
  "%sruntime/driver/mbrun.c %s/double_pendulum.c %sbuild/libmbrt.a " .. H.LIBS .. " -o %s",
  H.root, dir, H.root, dir, H.root, exe))
if not tap.ok(ok, "double pendulum compiles with the runtime driver") then tap.diag(out) end

-- t, theta1, theta2, theta1', theta2', KE from the digest's table
local REF = {
  { 5, 0.26939296, 0.25560588, 1.04819123, -0.43162469, 1.914064215 },
  { 10, 0.01792090, -0.01960597, 0.58415708, 1.57734820, 3.939707958 },
  { 15, -0.27533405, -0.20840905, 1.14606537, -0.59794247, 2.078276756 },
  { 20, -0.51876956, -0.01170865, -0.08083350, 0.30283089, 0.013231880 },
}
for _, ref in ipairs(REF) do
  local okr, res = H.sh(string.format("%s --t-end %g --integrator rk4 --step 1e-3", exe, ref[1]))
  tap.ok(okr, string.format("runs to t = %g", ref[1]))
  local z1, zd1 = res:match("shoulder%s+z =%s+(%S+)%s+zd =%s+(%S+)")
  local z2, zd2 = res:match("elbow%s+z =%s+(%S+)%s+zd =%s+(%S+)")
  local ke = res:match("energy end.-kinetic (%S+),")
  local got = { tonumber(z1), tonumber(z2), tonumber(zd1), tonumber(zd2), tonumber(ke) }
  local names = { "theta1", "theta2", "theta1'", "theta2'", "kinetic energy" }
  for i = 1, 5 do
    tap.is_double(got[i], ref[i + 1], 0, 2e-8, string.format("t = %g: %s matches seeds/004.md §8.2", ref[1], names[i]))
  end
  local rel = tonumber(res:match("relative (%S+)%)"))
  tap.ok(rel and math.abs(rel) < 1e-9, string.format("t = %g: energy conserved (relative change %s)", ref[1], tostring(rel)))
end
tap.done_testing()
