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
-- reports a singular M, is caught (tests/fixtures/check_mutant.c wraps the generated functions).
local dir = H.root .. "build/tmp/check_mutant"
local tree = H.tree(H.root .. "models/double_pendulum.lua")
H.generate(tree, dir)
for mutant, what in ipairs { "a derivative off by 1e-6 relative fails the check",
                             "a function returning MB_FN_SINGULAR fails the check" } do
  local ok, out = H.sh(string.format("gcc -std=c99 -O0 -DMB_COMPLEX -DMB_MODEL=mutant -DMB_ORIG=double_pendulum_orig " ..
    "-DMUTANT=%d -Ddouble_pendulum_model=double_pendulum_orig -I%sruntime -I%s %sruntime/driver/mbcheck.c " ..
    "%s/double_pendulum.c %stests/fixtures/check_mutant.c -lm -o %s/mbcheck%d && %s/mbcheck%d",
    mutant, H.root, dir, H.root, dir, H.root, dir, mutant, dir, mutant))
  tap.ok(not ok and out:find("FAIL"), what)
  if mutant == 2 then
    tap.like(out, "forward_dynamics_dz returned status 1", "the status is reported with the function's name")
  end
end
tap.done_testing()
