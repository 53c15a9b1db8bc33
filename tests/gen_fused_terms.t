#!/usr/bin/env lua5.4
-- gen_fused_terms.t: every closed-loop model has NAME_mass_forces_bias, the M, Q and constraint bias that a Matrix R
-- evaluation takes, in one pass (dynamics/functions.lua); it equals the three functions it fuses at random states (to
-- round-off: the fused pass shares sub-expressions, so sums may associate differently), its output has the slot's
-- size, and an open tree has none.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local dir = H.root .. "build/tmp/gen_fused_terms"
H.sh("rm -rf '" .. dir .. "'")
local CLOSED = { "fourbar_planar", "fourbar_spatial", "fivebar", "quick_return", "slider_crank", "fourbar_grid", "coach",
  "buggy", "sedan" }
local function build(m, functions)
  local out = dir .. "/" .. m
  local ok, msg = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen generate models/%s.lua -o '%s' --functions %s",
    H.root, m, out, functions))
  if ok then
    ok, msg = H.sh(string.format("gcc -std=c99 -O0 -Wall -Wextra -Werror -I'%sruntime' -I'%s' -DMB_MODEL=%s_model " ..
      "'%stests/fixtures/fused_terms_check.c' '%s/%s.c' -lm -o '%s/check'", H.root, out, m, H.root, out, m, out))
  end
  if not ok then return nil, msg end
  return select(2, H.sh("'" .. out .. "/check'"))
end

for _, m in ipairs(CLOSED) do
  local res, msg = build(m, "mass,forces,constraint_bias,mass_forces_bias")
  if not tap.ok(res, m .. ": generates and compiles with -Wall -Wextra -Werror") then tap.diag(msg) end
  local rows, expected, states, worst = (res or ""):match("rows (%d+) expected (%d+) states (%d+) worst (%S+)")
  tap.ok(rows and rows == expected, string.format("%s: the output has nz² + nz + nc = %s entries (the slot's shape: %s)",
    m, expected or "?", rows or "?"))
  tap.ok(states == "5" and tonumber(worst) and tonumber(worst) <= 1e-12,
    string.format("%s: M, Q and the bias equal mass, forces and constraint_bias at 5 states (worst %s of the max-norm)",
      m, worst or "?"))
end
local res = build("double_pendulum", "mass,forces")
tap.is(res and res:match("%S+"), "absent", "an open tree (double_pendulum) has no fused function")
tap.done_testing()
