-- peers_simbody.lua: `make bench` against Simbody 3.7: models/chain.lua for N = 2..64 and models/tree.lua, ns and
-- instructions per call of M, inverse dynamics and forward dynamics, as same-run ratios Simbody / mbgen.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/peers_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
local SX = require "simbody_export"
package.path = root .. "tests/bench/?.lua;" .. package.path
local CG = require "callgrind"
local BD = require "bench_data"
local P = require "parallel"

if not H.read("/usr/include/simbody/Simbody.h") then
  io.stderr:write("peers_simbody: libsimbody-dev is not installed (make peer-deps installs it as root); skipped\n")
  os.exit(0)
end
local sizes = {}
for s in (os.getenv("BENCH_N") or "2 4 8 16 24 32 64"):gmatch("%d+") do sizes[#sizes + 1] = tonumber(s) end
local _, abs = H.sh("cd '" .. root .. "' && pwd")
local R = abs:gsub("%s+$", "") .. "/"
local tmp = R .. "build/bench/peers_simbody"
H.mkdir(tmp)
H.mkdir(root .. "tests/bench/results")

-- Every model is generated under the name "peer", so Simbody's side and the driver are compiled once.
local SB = "-I/usr/include/simbody -I'" .. R .. "tests/peers' -I'" .. R .. "tests/bench' -I'" .. R .. "runtime'"
P.all(H, {
    string.format("cd '%s' && g++ -O2 -w %s -c '%stests/peers/sb_model.cpp' -o sb_model.o", tmp, SB, R),
    string.format("cd '%s' && g++ -O2 -w %s -DMB_MODEL=peer_model -c '%stests/peers/sb_bench.cpp' -o sb_bench.o", tmp, SB, R) },
    tmp .. "/jobs-driver")

local cases = {}
for _, n in ipairs(sizes) do cases[#cases + 1] = { label = "chain N=" .. n, model = "chain", set = { N = n }, dir = "chain" .. n } end
cases[#cases + 1] = { label = "tree (7 bodies)", model = "tree", set = {}, dir = "tree7" }

-- Generated one after another, compiled one per core at a time, then checked and timed alone.
local builds, weights = {}, {}
for _, c in ipairs(cases) do
  local tree = H.tree(root .. "models/" .. c.model .. ".lua", c.set)
  tree.name = "peer"
  local desc = assert(SX.export(tree))
  c.dir = tmp .. "/" .. c.dir
  c.ops = {}
  for _, st in ipairs(H.generate(tree, c.dir, { functions = { "mass", "inverse_dynamics", "forward_dynamics" } })) do
    c.ops[st.name:gsub("^peer_", "")] = st.ops.add + st.ops.mul + st.ops.div
  end
  H.write(c.dir .. "/model.txt", desc)
  builds[#builds + 1] = string.format("cd '%s' && gcc -std=c99 -O2 -I'%sruntime' -c peer.c -o peer.o && g++ ../sb_bench.o " ..
    "../sb_model.o peer.o -lSimTKsimbody -lSimTKmath -lSimTKcommon -lm -o bench", c.dir, R)
  weights[#builds] = #(H.read(c.dir .. "/peer.c") or "")
end
P.all(H, builds, tmp .. "/jobs", weights)
local rows = {}
for _, c in ipairs(cases) do
  local ok2, res = H.sh(string.format("cd '%s' && ./bench model.txt", c.dir))
  if not ok2 then io.stderr:write(res); os.exit(1) end
  local r = H.keyvals(res)
  for _, k in ipairs { "mass_rel", "id_rel", "fd_rel" } do
    if not (r[k] and r[k] < 1e-10) then io.stderr:write(c.label .. ": Simbody disagrees: " .. k .. " " .. tostring(r[k]) .. "\n"); os.exit(1) end
  end
  local ic, why = CG.count(H, c.dir, "./bench", "model.txt")
  if not ic then io.stderr:write("peers_simbody: no instruction counts: " .. why .. "\n"); ic = {} end
  rows[#rows + 1] = { label = c.label, model = c.model, n = r.n, r = r, ic = ic, ops = c.ops }
  io.stderr:write(c.label .. " done\n")
end

local FNS = { { "mass", "s_mass", "t_mass", "sb_mass_ns", "mass_ns" },
  { "inverse_dynamics", "s_id", "t_id", "sb_id_ns", "id_ns" },
  { "forward_dynamics", "s_fd", "t_fd", "sb_fd_ns", "fd_ns" } }
local L = { "| model | M: Simbody / mbgen ns (ratio) | inverse dynamics | forward dynamics | M: Simbody / mbgen instructions (ratio) | inverse dynamics | forward dynamics |",
  "|---|---|---|---|---|---|---|" }
local data = {}
local function ratio(a, b, f) return (a and b) and string.format("%.0f / %.0f (%." .. f .. "f)", a, b, a / b) or "–" end
for _, x in ipairs(rows) do
  local t, i = {}, {}
  for k, f in ipairs(FNS) do
    t[k] = ratio(x.r[f[4]], x.r[f[5]], 2)
    i[k] = ratio(x.ic[f[2]], x.ic[f[3]], 2)
    data[#data + 1] = { model = x.model, n = x.n, fn = f[1], tool = "mbgen", ns = x.r[f[5]], instr = x.ic[f[3]], ops = x.ops[f[1]] }
    data[#data + 1] = { model = x.model, n = x.n, fn = f[1], tool = "simbody", ns = x.r[f[4]], instr = x.ic[f[2]] }
  end
  L[#L + 1] = string.format("| %s | %s | %s |", x.label, table.concat(t, " | "), table.concat(i, " | "))
end
BD.write(H, root .. "tests/bench/results/peers_simbody.tsv", data)
local text = "# mbgen against Simbody 3.7 (libsimbody-dev)\n\nMachine: " .. BD.machine(H) .. ". One core, gcc/g++ 12 -O2, " ..
  "medians of 15 batches, one run of `make bench`; ratio > 1: mbgen is faster. Simbody's mass = updQ + realize(Position) + " ..
  "calcM; inverse dynamics = updQ, updU + realize(Dynamics) + calcResidualForceIgnoringConstraints with gravity's applied " ..
  "forces; forward dynamics = updQ, updU + realize(Acceleration). Before timing, each model's M, inverse and forward " ..
  "dynamics were checked equal to Simbody's to 1e-10 at the timed state (tests/peer_simbody.t does the same in `make test`). " ..
  "Instructions per call: valgrind --tool=callgrind, mean of a few calls after a warm-up (tests/bench/bench_time.h). " ..
  "Raw numbers: peers_simbody.tsv.\n\n" .. table.concat(L, "\n") .. "\n"
H.write(root .. "tests/bench/results/peers_simbody.md", text)
io.write(text)
