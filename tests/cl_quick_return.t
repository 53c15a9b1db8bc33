#!/usr/bin/env lua5.4
-- cl_quick_return.t: models/quick_return.lua under `mbgen run` (matrix_r, the default for closed loops,
-- Dormand-Prince at 1e-12) reproduces the converged reference states of seeds/001.md §11.3 at t = 0.5, 1, 2 s.
-- The digest estimates its own error (Richardson, 1/15 of the h = 5e-4 differences) at about 1e-9 in z at t = 1,
-- 5e-9 in z and 1e-7 in zd at t = 2: the tolerances are 5e-9 (z, t <= 1), 1e-8 (z, t = 2) and 3e-7 (zd).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local REF = {
  { 0.5, z = { 1.5055704324, 0.2012924703, -2.9447856608, -0.9770538188, -0.5285166136 } },
  { 1.0, z = { 1.8803423314, 0.3263403130, -5.1304478151, -1.2430069231, -0.6373354082 },
    zd = { -0.3836761607, 0.2818459169, -2.7003863242, 0.0928210428, 0.2908551179 } },
  { 2.0, z = { 1.2460119903, 0.3132211310, -1.2775592740, -0.5967975287, -0.6492144616 },
    zd = { 0.6120683905, 0.6349333910, 6.0203835754, -1.1024620252, 0.4903936347 } },
}
local E0 = 38.880050163999
for _, ref in ipairs(REF) do
  local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen run -q models/quick_return.lua --integrator dopri5 " ..
    "--tolerance 1e-12 --t-end %g", H.root, ref[1]))
  tap.ok(ok and out:find("formulation matrix_r", 1, true), string.format("t = %g: runs with matrix_r by default", ref[1]))
  for i = 1, 5 do
    local z, zd = out:match("J" .. i .. "%s+z =%s+(%S+)%s+zd =%s+(%S+)")
    tap.is_double(tonumber(z), ref.z[i], 0, ref[1] < 2 and 5e-9 or 1e-8, string.format("t = %g: z%d matches seeds/001.md §11.3", ref[1], i))
    if ref.zd then
      tap.is_double(tonumber(zd), ref.zd[i], 0, 3e-7, string.format("t = %g: zd%d matches seeds/001.md §11.3", ref[1], i))
    end
  end
  local e1 = tonumber(out:match("energy end%s+(%S+)"))
  tap.is_double(e1, E0, 0, 1e-8, string.format("t = %g: energy %s equals E0 of the digest", ref[1], tostring(e1)))
  local p, v, a = out:match("position (%S+), velocity (%S+), acceleration (%S+)")
  tap.ok(tonumber(p) < 1e-10 and tonumber(v) < 1e-10 and tonumber(a) < 1e-10,
    string.format("t = %g: constraints hold at position, velocity, acceleration (%s %s %s)", ref[1], p, v, a))
end
tap.done_testing()
