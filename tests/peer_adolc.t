#!/usr/bin/env lua5.4
-- peer_adolc.t: ADOL-C, taping the same generated inverse dynamics compiled as C++ with mb_real = adouble, gives
-- the same Jacobian [dr/dz, dr/dzd] as mbgen's analytic derivative in dense forward, dense reverse and sparse
-- (compressed) modes, so the ADOL-C benchmark never times a different answer.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local AB = require "adolc_build"

if not H.read("/usr/include/adolc/adolc.h") then
  print("1..0 # SKIP libadolc-dev is not installed (make peer-deps installs it as root)")
  os.exit(0)
end
for _, c in ipairs { { "chain", { N = 4 }, "chain4" }, { "tree", {}, "tree7" }, { "fourbar_grid", { NY = 1 }, "grid1" } } do
  local tree = H.tree(H.root .. "models/" .. c[1] .. ".lua", c[2])
  tree.name = c[3]
  local ok, out = AB.run(H, tree, H.root .. "build/tmp/peer_adolc/" .. c[3], false, "-O0")
  if not tap.ok(ok, c[3] .. ": builds against ADOL-C and runs") then tap.diag(out) end
  local r = H.keyvals(out)
  for _, k in ipairs { "forward", "reverse", "sparse" } do
    local e = r[k .. "_rel"]
    tap.ok(e and e < 1e-10, string.format("%s: ADOL-C %s Jacobian equals mbgen's analytic one (%s)", c[3], k, tostring(e)))
  end
  tap.ok(r.central_rel and r.central_rel < 1e-6, string.format("%s: central differences agree (%s)", c[3], tostring(r.central_rel)))
end
tap.done_testing()
