#!/usr/bin/env lua5.4
-- peer_simbody.t: Simbody 3.7 computes the same mass matrix, inverse and forward dynamics as mbgen (chain N = 3, tree)
-- (tests/lib/simbody_export.lua describes the tree, tests/peers/sb_model.cpp builds Pin/Slider mobilizers from it).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local SX = require "simbody_export"

if not H.read("/usr/include/simbody/Simbody.h") then
  print("1..0 # SKIP libsimbody-dev is not installed (make peer-deps installs it as root)")
  os.exit(0)
end
local dir = H.root .. "build/tmp/peer_simbody"
H.mkdir(dir)
local ok, out = H.sh(string.format("g++ -O0 -w -I/usr/include/simbody -I%stests/peers %stests/peers/sb_model.cpp " ..
  "%stests/peers/sb_agree.cpp -o %s/sb_agree -lSimTKsimbody -lSimTKmath -lSimTKcommon", H.root, H.root, H.root, dir))
if not tap.ok(ok, "sb_agree builds against Simbody") then tap.diag(out) end

local function parse(text)
  local v = { M = {}, r = {}, a = {} }
  for k, x in text:gmatch("([Mra]) [%d ]+ (%S+)") do v[k][#v[k] + 1] = tonumber(x) end
  return v
end

local function maxrel(a, b)
  if #a == 0 or #a ~= #b then return math.huge end
  local e, s = 0, 0
  for i = 1, #a do e = math.max(e, math.abs(a[i] - b[i])); s = math.max(s, math.abs(a[i])) end
  return e / math.max(1, s)
end

local state = 12345
local function rnd() state = (1103515245 * state + 12345) % 2147483648; return 2 * state / 2147483648 - 1 end

local WHAT = { { "M", "M equals Simbody's calcM" }, { "r", "inverse dynamics equals Simbody's residual forces" },
  { "a", "forward dynamics equals Simbody's udot" } }
for _, c in ipairs { { "chain", { N = 3 } }, { "tree", {} } } do
  local tree = H.tree(H.root .. "models/" .. c[1] .. ".lua", c[2])
  local label = c[1] .. (c[2].N and (" N = " .. c[2].N) or "")
  local desc, why = SX.export(tree)
  if not desc then
    for _, w in ipairs(WHAT) do tap.ok(true, label .. ": " .. w[2] .. " # SKIP " .. why) end
  else
    local S = {}
    for _ = 1, 3 * tree.nz do S[#S + 1] = string.format("%.17g", rnd()) end
    H.write(dir .. "/" .. c[1] .. ".in", desc .. table.concat(S, " ") .. "\n")
    H.write(dir .. "/" .. c[1] .. ".state", table.concat(S, " ") .. "\n")
    H.generate(tree, dir .. "/" .. c[1], { functions = { "mass", "inverse_dynamics", "forward_dynamics" } })
    local n = tree.name
    local ok1, mb = H.sh(string.format("gcc %s -I%sruntime -I%s/%s -DMODEL_HEADER='\"%s.h\"' -DNZ=%s_NZ -DNWORK=%s_NWORK -DMASS_FN=%s_mass " ..
      "-DID_FN=%s_inverse_dynamics -DFD_FN=%s_forward_dynamics %stests/peers/mb_eval.c %s/%s/%s.c -lm -o %s/%s.mb " ..
      "&& %s/%s.mb < %s/%s.state",
      H.CFLAGS, H.root, dir, c[1], n, n, n, n, n, n, H.root, dir, c[1], n, dir, c[1], dir, c[1], dir, c[1]))
    local ok2, sb = H.sh(string.format("%s/sb_agree < %s/%s.in", dir, dir, c[1]))
    if not (ok1 and ok2) then tap.diag(mb .. sb) end
    local A, B = parse(ok1 and mb or ""), parse(ok2 and sb or "")
    for _, w in ipairs(WHAT) do
      local e = maxrel(A[w[1]], B[w[1]])
      tap.ok(e < 1e-10, string.format("%s: %s to %.3g relative", label, w[2], e))
    end
  end
end
tap.done_testing()
