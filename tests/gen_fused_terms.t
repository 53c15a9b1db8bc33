#!/usr/bin/env lua5.4
-- gen_fused_terms.t: every closed-loop model has NAME_mass_forces_bias, the M, Q and constraint bias that a Matrix R
-- evaluation takes, in one pass, and NAME_constraints_and_dz, Phi and Phi_z in one pass for the position problem
-- (dynamics/functions.lua); each equals the functions it fuses at random states (to round-off: the fused pass shares
-- sub-expressions, so sums may associate differently), its output has the slot's size, and an open tree has neither.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local dir = H.root .. "build/tmp/gen_fused_terms"
H.sh("rm -rf '" .. dir .. "'")
-- Every model of models/: closed loops are those whose generated header declares a constraint bias.
local closed, open = {}, {}
for m in select(2, H.sh("ls '" .. H.root .. "models'")):gmatch("([%w_]+)%.lua") do
  local h = H.read(H.root .. "generated/" .. m .. ".h") or ""
  table.insert(h:find(m .. "_constraint_bias(", 1, true) and closed or open, m)
end
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

tap.ok(#closed >= 9 and #open >= 4, string.format("models/ has %d closed-loop and %d open models", #closed, #open))
for _, m in ipairs(closed) do
  local res, msg = build(m, "mass,forces,constraint_bias,mass_forces_bias,constraints,constraints_dz,constraints_and_dz")
  if not tap.ok(res, m .. ": generates and compiles with -Wall -Wextra -Werror") then tap.diag(msg) end
  local lines = {}
  for rows, expected, states, worst in (res or ""):gmatch("rows (%d+) expected (%d+) states (%d+) worst (%S+)") do
    lines[#lines + 1] = { rows = rows, expected = expected, states = states, worst = tonumber(worst) }
  end
  for i, what in ipairs {
    { "nz² + nz + nc", "M, Q and the bias equal mass, forces and constraint_bias" },
    { "nc + nc nz", "Phi and Phi_z equal constraints and constraints_dz" },
  } do
    local l = lines[i] or {}
    tap.ok(l.rows and l.rows == l.expected, string.format("%s: the output has %s = %s entries (the slot's shape: %s)",
      m, what[1], l.expected or "?", l.rows or "?"))
    tap.ok(l.states == "5" and l.worst and l.worst <= 1e-12,
      string.format("%s: %s at 5 states (worst %s of the max-norm)", m, what[2], tostring(l.worst)))
  end
end
for _, m in ipairs(open) do
  local res = build(m, "mass,forces")
  tap.is(res and res:match("%S+"), "absent", m .. ": an open tree has no fused function")
end
tap.done_testing()
