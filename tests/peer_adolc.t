#!/usr/bin/env lua5.4
-- peer_adolc.t: ADOL-C, taping the same generated inverse dynamics compiled as C++ with mb_real = adouble, gives
-- the same Jacobian [dr/dz, dr/dzd] as mbgen's analytic derivative in dense forward, dense reverse and sparse
-- (compressed) modes, so the ADOL-C benchmark never times a different answer; and the generation-time pattern, which the
-- sparse al3 tangent relies on, holds every entry of ADOL-C's jac_pat that is not a proven cancellation.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local AB = require "adolc_build"

if not H.read("/usr/include/adolc/adolc.h") then
  print("1..0 # SKIP libadolc-dev is not installed (make peer-deps installs it as root)")
  os.exit(0)
end
for _, c in ipairs { { "chain", { N = 4 }, "chain4" }, { "tree", {}, "tree7" }, { "fourbar_grid", { NY = 1 }, "grid1" },
                     { "coach", {}, "coach" } } do
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
  -- seeds/003.md §6.3: the generation-time pattern contains ADOL-C's jac_pat, and equals it where nothing cancels:
  -- an entry on one side only must be a cancellation the other side proved, its value there round-off.
  tap.ok(r.pattern_missing and r.pattern_missing_max_rel <= 1e-14, string.format("%s: jac_pat's %s entries are in the " ..
    "generated pattern but %s, where ADOL-C's value is round-off (%s relative): cancellations the generator proved", c[3],
    tostring(r.nnz), tostring(r.pattern_missing), tostring(r.pattern_missing_max_rel)))
  tap.ok(r.pattern_extra and r.pattern_extra_max_rel <= 1e-12, string.format("%s: the generated pattern's %s entries " ..
    "beyond jac_pat are round-off in the analytic Jacobian (%s relative): cancellations the tape proves", c[3],
    tostring(r.pattern_extra), tostring(r.pattern_extra_max_rel)))
end
tap.done_testing()
