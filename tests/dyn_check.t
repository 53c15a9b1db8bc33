#!/usr/bin/env lua5.4
-- dyn_check.t: `mbgen check` passes on every model: each generated derivative against complex step (1e-12)
-- and central differences (1e-6), relative to the matrix max-norm, at seeded random states.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local _, list = H.sh("ls " .. H.root .. "models/*.lua")
for path in list:gmatch("[^\n]+") do
  local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen check %s", H.root, path:sub(#H.root + 1)))
  local n = tonumber(out:match("(%d+) functions checked")) or 0
  if not tap.ok(ok and n > 0, string.format("mbgen check %s: %d functions within tolerance", path:match("models/.*"), n)) then
    tap.diag(out)
  end
end

-- The check must be able to fail: a model whose generated derivative is corrupted is caught.
local dir = H.root .. "build/tmp/check_mutant"
local tree = H.tree(H.root .. "models/double_pendulum.lua")
H.generate(tree, dir)
local c = H.read(dir .. "/double_pendulum.c")
local mutated, hits = c:gsub("(void double_pendulum_inverse_dynamics_dz%(const mb_args %*a, mb_real %*out%)\n{.-out%[0%] = )", "%11.000001 * ", 1)
tap.is(hits, 1, "mutation applied to inverse_dynamics_dz")
H.write(dir .. "/double_pendulum.c", mutated)
local ok = H.sh(string.format("gcc -std=c99 -O0 -DMB_COMPLEX -DMB_MODEL=double_pendulum_model -I%sruntime -I%s %sruntime/driver/mbcheck.c %s/double_pendulum.c -lm -o %s/mbcheck && %s/mbcheck",
  H.root, dir, H.root, dir, dir, dir))
tap.ok(not ok, "a derivative off by 1e-6 relative fails the check")
tap.done_testing()
