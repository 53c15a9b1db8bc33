#!/usr/bin/env lua5.4
-- ctl_computed_torque.t: the embedding example of tests/examples/computed_torque: generated/chain.c built in
-- single precision (-DMB_REAL=float) as a computed-torque controller tracks a reference on a double plant.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local ex = H.root .. "tests/examples/computed_torque"
local dir = H.root .. "build/tmp/ctl_computed_torque"
local tree = H.tree(H.root .. "models/chain.lua")          -- the committed generated/chain.c is N = 8
tree.name = "plant"
H.generate(tree, dir)

-- The controller sees only what README.md tells an embedder to copy: chain.c, chain.h, mb_model.h. A controller's
-- task has a small stack (issue 19): with -Werror, -Wstack-usage fails the build on any frame over 4 KiB, so the
-- generated functions keep their intermediates in the caller's `work`, and so does the controller.
local FLOAT = "gcc -std=c99 -O1 -Wall -Wextra -Werror -Wstack-usage=4096 -DMB_REAL=float"
local ok, out = H.sh(string.format("%s -I%sgenerated -I%sruntime -c %s/controller.c -o %s/controller.o && " ..
  "%s -I%sruntime -c %sgenerated/chain.c -o %s/chain_float.o",
  FLOAT, H.root, H.root, ex, dir, FLOAT, H.root, H.root, dir))
if not tap.ok(ok, "generated/chain.c and the controller compile with -DMB_REAL=float -Wall -Wextra -Werror " ..
  "-Wstack-usage=4096") then tap.diag(out) end
-- The workspace form of docs/generated-c.md: one caller-owned array of chain_NWORK values, not a frame per call.
tap.like(H.read(ex .. "/controller.c"), "static mb_real work%[chain_NWORK",
  "the controller passes the generated functions a static workspace of chain_NWORK mb_reals")
-- The plant's own copy of the model only simulates: -O0 keeps the test fast.
ok, out = H.sh(string.format("gcc %s -I%sruntime -c %s/plant.c -o %s/plant_model.o && " ..
  "gcc -std=c99 -O1 -Wall -Wextra -Werror -I%s -I%sruntime -I%s %s/plant.c %s/plant_model.o " ..
  "%s/controller.o %s/chain_float.o -lm -o %s/ctl", H.CFLAGS, H.root, dir, dir, dir, H.root, ex, ex, dir, dir, dir, dir))
if not tap.ok(ok, "the double-precision plant links with the float controller") then tap.diag(out) end

local okr, res = H.sh(dir .. "/ctl")
tap.ok(okr, "the closed loop runs")
local r = H.keyvals(res)
local ct1, ct5, pd = r.ct_err_1khz or -1, r.ct_err_5khz or -1, r.pd_err_1khz or -1
tap.diag(string.format("worst tracking error over t = 2..4 s: computed torque %.3g rad at 1 kHz, %.3g rad at 5 kHz; " ..
  "independent-joint PD %.3g rad; float model vs double %.3g", ct1, ct5, pd, r.float_rel or -1))
tap.ok(ct1 >= 0 and ct1 < 1e-2, "computed torque at 1 kHz tracks the reference to 1e-2 rad")
-- An inexact model would leave an error floor; the hold's error falls with the control period.
tap.ok(ct5 >= 0 and ct5 < ct1 / 3, "five times the control rate: at least three times less error")
tap.ok(pd < 0 or pd > 20 * ct1, "without the model's feedforward the same gains track at least 20 times worse")
tap.ok(r.float_rel and r.float_rel > 0 and r.float_rel < 1e-5,
  "the float build's inverse dynamics agree with the double build to single precision")
tap.done_testing()
