#!/usr/bin/env lua5.4
-- peer_simbody.t: Simbody 3.7 computes the same mass matrix and inverse dynamics as mbgen (chain N = 3, tree)
-- (tests/peers/sb_agree.cpp builds the tree with Pin/Slider mobilizers; conventions there).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

if not H.read("/usr/include/simbody/Simbody.h") then
  print("1..0 # SKIP libsimbody-dev is not installed (make peer-deps installs it as root)")
  os.exit(0)
end
local dir = H.root .. "build/tmp/peer_simbody"
H.mkdir(dir)
local ok, out = H.sh(string.format("g++ -O0 -w -I/usr/include/simbody %stests/peers/sb_agree.cpp -o %s/sb_agree " ..
  "-lSimTKsimbody -lSimTKmath -lSimTKcommon", H.root, dir))
if not tap.ok(ok, "sb_agree builds against Simbody") then tap.diag(out) end

local function parse(text)
  local M, r = {}, {}
  for i, j, x in text:gmatch("M (%d+) (%d+) (%S+)") do M[#M + 1] = tonumber(x) end
  for i, x in text:gmatch("r (%d+) (%S+)") do r[#r + 1] = tonumber(x) end
  return M, r
end

local function maxrel(a, b)
  if #a == 0 or #a ~= #b then return math.huge end
  local e, s = 0, 0
  for i = 1, #a do e = math.max(e, math.abs(a[i] - b[i])); s = math.max(s, math.abs(a[i])) end
  return e / math.max(1, s)
end

local state = 12345
local function rnd() state = (1103515245 * state + 12345) % 2147483648; return 2 * state / 2147483648 - 1 end

for _, c in ipairs { { "chain", { N = 3 } }, { "tree", {} } } do
  local tree = H.tree(H.root .. "models/" .. c[1] .. ".lua", c[2])
  local label = c[1] .. (c[2].N and (" N = " .. c[2].N) or "")
  local L, S = { string.format("%d %.17g %.17g %.17g", tree.nb, tree.gravity[1], tree.gravity[2], tree.gravity[3]) }, {}
  local simple = tree.nb == tree.nz
  for i, b in ipairs(tree.bodies) do
    local j, I, R = b.joint, b.inertia, b.joint.rotation
    simple = simple and not b.aux and j.coord == i and (j.kind == "revolute" or j.kind == "prismatic")
    L[#L + 1] = string.format(string.rep("%.17g ", 25):gsub("^", "%%s %%d "), j.kind, b.parent,
      j.origin[1], j.origin[2], j.origin[3], R[1][1], R[1][2], R[1][3], R[2][1], R[2][2], R[2][3], R[3][1], R[3][2], R[3][3],
      j.axis[1], j.axis[2], j.axis[3], b.mass, b.com[1], b.com[2], b.com[3], I[1][1], I[2][2], I[3][3], I[1][2], I[1][3], I[2][3])
  end
  if not simple then
    tap.ok(true, label .. " # SKIP only revolute/prismatic trees with coordinate k on body k are mapped")
    tap.ok(true, label .. " # SKIP")
  else
    for _ = 1, 3 * tree.nz do S[#S + 1] = string.format("%.17g", rnd()) end
    L[#L + 1] = table.concat(S, " ")
    H.write(dir .. "/" .. c[1] .. ".in", table.concat(L, "\n") .. "\n")
    H.write(dir .. "/" .. c[1] .. ".state", table.concat(S, " ") .. "\n")
    H.generate(tree, dir .. "/" .. c[1], { functions = { "mass", "inverse_dynamics" } })
    local n = tree.name
    local ok1, mb = H.sh(string.format("gcc %s -I%sruntime -I%s/%s -DMODEL_HEADER='\"%s.h\"' -DNZ=%s_NZ -DMASS_FN=%s_mass " ..
      "-DID_FN=%s_inverse_dynamics %stests/peers/mb_eval.c %s/%s/%s.c -lm -o %s/%s.mb && %s/%s.mb < %s/%s.state",
      H.CFLAGS, H.root, dir, c[1], n, n, n, n, H.root, dir, c[1], n, dir, c[1], dir, c[1], dir, c[1]))
    local ok2, sb = H.sh(string.format("%s/sb_agree < %s/%s.in", dir, dir, c[1]))
    if not (ok1 and ok2) then tap.diag(mb .. sb) end
    local M1, r1 = parse(ok1 and mb or "")
    local M2, r2 = parse(ok2 and sb or "")
    local em, er = maxrel(M1, M2), maxrel(r1, r2)
    tap.ok(em < 1e-10, string.format("%s: M equals Simbody's calcM to %.3g relative", label, em))
    tap.ok(er < 1e-10, string.format("%s: inverse dynamics equals Simbody's residual forces to %.3g relative", label, er))
  end
end
tap.done_testing()
