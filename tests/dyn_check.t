#!/usr/bin/env lua5.4
-- dyn_check.t: `mbgen check` passes on every model: each generated derivative against complex step (1e-12)
-- and central differences (1e-6), relative to the matrix max-norm, at seeded random states.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local _, list = H.sh("ls " .. H.root .. "models/*.lua")
for path in list:gmatch("[^\n]+") do
  local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen check -q %s", H.root, path:sub(#H.root + 1)))
  local n = tonumber(out:match("(%d+) functions checked")) or 0
  if not tap.ok(ok and n > 0, string.format("mbgen check %s: %d functions within tolerance", path:match("models/.*"), n)) then
    tap.diag(out)
  end
end

-- The check must be able to fail: a model whose generated derivative is corrupted, or whose forward dynamics
-- reports a singular M, is caught. The two halves `mbgen check` generated for the double pendulum above (the
-- functions differentiated, complex; the derivatives, real, named double_pendulum_real) are linked with
-- tests/fixtures/check_mutant.c, which wraps the real half's table.
local dir = H.root .. "build/tmp/check_mutant"
H.sh("rm -rf '" .. dir .. "'")
H.mkdir(dir)
local complex_c = H.root .. "build/check/models/double_pendulum/double_pendulum.c"
local real_c = H.root .. "build/check_real/models/double_pendulum/double_pendulum_real.c"
for mutant, what in ipairs { "a derivative off by 1e-6 relative fails the check",
                             "a function returning MB_FN_SINGULAR fails the check" } do
  local inc = string.format("-I'%sruntime' -I'%sruntime/driver'", H.root, H.root)
  local d = dir .. "/"
  local ok, out = H.sh(string.format(
    "gcc -std=c99 -O0 %s -DMB_ORIG=double_pendulum_real_model -DMUTANT=%d -c '%stests/fixtures/check_mutant.c' " ..
    "-o '%smutant%d.o' && gcc -std=c99 -O0 %s -c '%s' -o '%sreal.o' && gcc -std=c99 -O0 -fcx-limited-range -DMB_COMPLEX %s " ..
    "-DMB_MODEL=double_pendulum_model -DMB_MODEL_REAL=mutant '%sruntime/driver/mbcheck.c' '%sruntime/driver/mbcheck_real.c' " ..
    "'%s' '%sreal.o' '%smutant%d.o' -lm -o '%smbcheck%d' && '%smbcheck%d'",
    inc, mutant, H.root, d, mutant, inc, real_c, d, inc, H.root, H.root, complex_c, d, d, mutant, d, mutant, d, mutant))
  tap.ok(not ok and out:find("FAIL"), what)
  if mutant == 2 then
    tap.like(out, "forward_dynamics_dz returned status 1", "the status is reported with the function's name")
  end
end
tap.done_testing()
