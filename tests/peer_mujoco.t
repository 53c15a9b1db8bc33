#!/usr/bin/env lua5.4
-- peer_mujoco.t: MuJoCo computes the same mass matrix and inverse dynamics as mbgen on the same models
-- (tests/lib/mjcf_export.lua, tests/peers/mj_agree.c), so the peer benchmark never times a different answer.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local X = require "mjcf_export"

if not H.read("/usr/include/mujoco/mujoco.h") then
  print("1..0 # SKIP libmujoco-dev is not installed (make peer-deps installs it as root)")
  os.exit(0)
end

local cases = { { "chain", { N = 3 } }, { "chain", { N = 8 } }, { "tree", {} } }
for _, c in ipairs(cases) do
  local tree = H.tree(H.root .. "models/" .. c[1] .. ".lua", c[2])
  local label = c[1] .. (c[2].N and (" N = " .. c[2].N) or "")
  tree.name = c[1] .. (c[2].N or "")
  local dir = H.root .. "build/tmp/peer_mujoco/" .. tree.name
  H.generate(tree, dir, { functions = { "mass", "inverse_dynamics" } })
  H.write(dir .. "/model.xml", X.export(tree, { p = {} }))
  local ok, out = H.sh(string.format("gcc %s -I%sruntime -I%s -DMB_MODEL=%s_model %stests/peers/mj_agree.c %s/%s.c " ..
    "-lmujoco -lm -o %s/agree && %s/agree %s/model.xml", H.CFLAGS, H.root, dir, tree.name, H.root, dir, tree.name,
    dir, dir, dir))
  if not tap.ok(ok, label .. ": builds against MuJoCo and runs") then tap.diag(out) end
  local r = H.keyvals(out)
  tap.ok(r.mass_rel and r.mass_rel < 1e-12, string.format("%s: M equals MuJoCo's (mj_fullM) to %s relative", label, tostring(r.mass_rel)))
  tap.ok(r.inverse_dynamics_rel and r.inverse_dynamics_rel < 1e-12,
    string.format("%s: inverse dynamics equals MuJoCo's mj_rne to %s relative", label, tostring(r.inverse_dynamics_rel)))
end
tap.done_testing()
