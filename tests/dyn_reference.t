#!/usr/bin/env lua5.4
-- dyn_reference.t: generated M, r, Q, energies and forward dynamics against the textbook oracle (tests/c/ref_tree.h)
-- on seeded random spatial trees and on models/chain.lua.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local DC = require "dyn_compare"
local RM = require "random_model"
local RX = require "ref_export"

local tmp = H.root .. "build/tmp/dyn_reference"
H.mkdir(tmp)

-- The functions tests/lib/dyn_compare.c calls, alone: the derivatives, most of a model's C, are checked elsewhere
-- (dyn_check.t, dyn_kernels.t) and here would only be generated and compiled.
local FUNCTIONS = { "mass", "inverse_dynamics", "forces", "energy", "forward_dynamics" }

local function check(label, tree)
  local dir = tmp .. "/" .. tree.name
  H.generate(tree, dir, { functions = FUNCTIONS })
  H.write(dir .. "/" .. tree.name .. "_ref.h", RX.export(tree, { p = {} }, "ref_model"))
  local exe = dir .. "/compare"
  local ok, out = H.sh(string.format(
    "gcc %s -I'%s' -I'%sruntime' -I'%stests/c' -DMODEL_HEADER='\"%s.h\"' -DREF_HEADER='\"%s_ref.h\"' " ..
    "-DMODEL=%s_model '%stests/lib/dyn_compare.c' '%s/%s.c' -lm -o '%s'",
    H.CFLAGS, dir, H.root, H.root, tree.name, tree.name, tree.name, H.root, dir, tree.name, exe))
  if not tap.ok(ok, label .. ": generated code compiles with -Werror") then tap.diag(out); return end
  local ok2, res = H.sh("'" .. exe .. "'")
  tap.ok(ok2, label .. ": comparison runs")
  local r = H.keyvals(res)
  DC.check(tap, label, r)
end

for _, case in ipairs { { 6, 11 }, { 9, 23 }, { 13, 5 }, { 17, 77 } } do
  local n, seed = case[1], case[2]
  local name = string.format("rtree%d_%d", n, seed)
  local path = tmp .. "/" .. name .. ".lua"
  H.write(path, RM.source(name, n, seed))
  check(string.format("random tree n=%d seed=%d", n, seed), H.tree(path))
end

for _, n in ipairs { 2, 3, 5, 8, 13, 24 } do
  local tree = H.tree(H.root .. "models/chain.lua", { N = n })
  tree.name = "chain" .. n
  check(string.format("models/chain.lua N=%d", n), tree)
end

tap.done_testing()
