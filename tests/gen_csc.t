#!/usr/bin/env lua5.4
-- gen_csc.t: `mbgen generate --csc` gives every matrix function a compressed-column form whose values are the dense
-- form's structural non-zeros, bit for bit, in the order of the exported pattern, with exact zeros elsewhere.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local dir = H.root .. "build/tmp/gen_csc"
H.sh("rm -rf '" .. dir .. "'")
-- Every model; the large ones (vehicles, the grid) with the functions the sparse al3 tangent reads, compiled without
-- optimization (their full --csc build takes minutes).
local LARGE = { sedan = true, buggy = true, coach = true, fourbar_grid = true }
local AL3 = "mass,inverse_dynamics_tangent,constraints_dz,constraints_dz_tw_dz"
local models, _, listing = {}, H.sh("ls '" .. H.root .. "models'")
for f in listing:gmatch("([%w_]+)%.lua") do models[#models + 1] = f end
for _, m in ipairs(models) do
  local out = dir .. "/" .. m
  local ok, msg = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen generate models/%s.lua -o '%s' --csc%s", H.root, m, out,
    LARGE[m] and " --functions " .. AL3 or ""))
  if not tap.ok(ok, m .. ": generates with --csc") then tap.diag(msg) end
  ok, msg = H.sh(string.format("gcc -std=c99 %s -Wall -Wextra -Werror -I'%sruntime' -I'%s' -DMB_MODEL=%s_model " ..
    "'%stests/fixtures/csc_check.c' '%s/%s.c' -lm -o '%s/check'", LARGE[m] and "-O0" or "-O1", H.root, out, m, H.root, out, m, out))
  if not tap.ok(ok, m .. ": the dense and compressed forms compile with -Wall -Wextra -Werror") then tap.diag(msg) end
  local okr, res = H.sh("'" .. out .. "/check'")
  local slots = tonumber(res:match("slots (%d+)")) or 0
  tap.ok(okr and slots >= 3, string.format("%s: %d matrix functions have a compressed form", m, slots))
  local bad, nnz = {}, 0
  for name, n, differ, outside in res:gmatch("slot ([%w_]+) nnz (%d+) differ (%d+) nonzero_outside (%d+)") do
    nnz = nnz + tonumber(n)
    if differ ~= "0" or outside ~= "0" then bad[#bad + 1] = string.format("%s: %s differ, %s outside", name, differ, outside) end
  end
  if not tap.ok(okr and #bad == 0 and nnz > 0,
    string.format("%s: at 3 random states every value equals the dense entry and the rest is exactly 0 (%d non-zeros)", m, nnz)) then
    for _, b in ipairs(bad) do tap.diag(b) end
  end
end
-- Without --csc the members stay NULL: the committed generated/ files compile only the dense forms.
tap.ok(not (H.read(H.root .. "generated/tree.h") or ""):find("_csc%("), "generated/tree.h declares no compressed form")
tap.done_testing()
