-- peers_pinocchio.lua: `make bench` against Pinocchio 3.7: M, inverse and forward dynamics and the Jacobians of both
-- on models/chain.lua (N = 8, 24, 64), a random tree and a legged robot, checked equal, then ns per call as ratios.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/peers_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
local PX = require "pinocchio_export"
local RX = require "ref_export"
local RM = require "random_model"
package.path = root .. "tests/bench/?.lua;" .. package.path
local BD = require "bench_data"
local P = require "parallel"

local _, abs = H.sh("cd '" .. root .. "' && pwd")
local R = abs:gsub("%s+$", "") .. "/"
-- Pinocchio is header-only here and not the project's: its include folder comes from outside (/work/shared/peers/README.md).
local PIN = os.getenv("PINOCCHIO_INCLUDE") or (R .. "../shared/peers/pinocchio-3.7.0/include")
for _, need in ipairs { { PIN .. "/pinocchio/multibody/model.hpp", "Pinocchio's headers (PINOCCHIO_INCLUDE=" .. PIN .. ")" },
    { "/usr/include/eigen3/Eigen/Core", "libeigen3-dev" }, { "/usr/include/boost/variant.hpp", "libboost-dev" } } do
  if not H.read(need[1]) then
    io.stderr:write("peers_pinocchio: " .. need[2] .. " not found (make peer-deps installs the Debian packages as root); skipped\n")
    os.exit(0)
  end
end
if not H.sh("command -v g++ >/dev/null") then io.stderr:write("peers_pinocchio: no g++; skipped\n"); os.exit(0) end

-- The timed functions; generating only these keeps the compile of the 64-chain to a minute or two.
local FUNCTIONS = { "mass", "inverse_dynamics", "forward_dynamics", "inverse_dynamics_dz", "inverse_dynamics_dzd",
  "forward_dynamics_dz", "forward_dynamics_dzd", "inverse_dynamics_dy", "forward_dynamics_dy" }
-- Pinocchio as its authors advise (without NDEBUG its checks dominate; at -O2 its crba is several times slower);
-- -w: its headers warn by the page under g++ 12. mbgen's side is gcc -O2, as in the other benchmarks.
local PINFLAGS = string.format("-O3 -march=native -DNDEBUG -std=c++17 -w -I'%s' -I/usr/include/eigen3 -I'%sruntime' -I'%stests/bench'", PIN, R, R)
local tmp = R .. "build/bench/peers_pinocchio"
H.mkdir(tmp)
H.mkdir(root .. "tests/bench/results")
local t_start = H.now()

-- Every build goes through one pool, one per core at a time, the heaviest first; a weight is the size of the C a
-- command compiles, or for C++ the C that gcc -O2 compiles in the same time (about 64 KB a second).
local builds, weights = {}, {}
local function build(cmd, weight) builds[#builds + 1] = cmd; weights[#builds] = weight end

-- pinocchio_bench.cpp takes minutes of g++ (Pinocchio's joint variant times every algorithm), the same for every
-- model, so it compiles in 5 parts (their g++ seconds below). Each part's object is named by a checksum of the flags,
-- the compiler and its preprocessed source, so a later run reuses what did not change. Part 4, the longest, starts
-- at once in the background, while this process generates the models on the other core; the rest join the pool.
local SRC = R .. "tests/bench/pinocchio_bench.cpp"
local PART_SECS = { 45, 42, 61, 92, 15 }
local sums = { "set -u" }
for part = 1, 5 do
  sums[#sums + 1] = string.format("( s=$({ echo \"%s\"; g++ --version; g++ %s -DPIN_PART=%d -E '%s'; } | cksum); echo %d $s ) &",
    (PINFLAGS:gsub('"', '\\"')), PINFLAGS, part, SRC, part)
end
sums[#sums + 1] = "wait"
local _, listing = H.sh(table.concat(sums, "\n"))
local parts, keep = {}, {}
for part, sum in ("\n" .. listing):gmatch("\n(%d) (%d+) %d+") do
  parts[tonumber(part)] = string.format("%s/pin_part%s-%s.o", tmp, part, sum)
  keep[parts[tonumber(part)]] = true
end
local _, old = H.sh("ls '" .. tmp .. "'/pin_part*.o 2>/dev/null")
for f in old:gmatch("[^\n]+") do if not keep[f] then os.remove(f) end end   -- objects of earlier sources
local done = tmp .. "/pin_part4.done"
H.sh("rm -f '" .. done .. "'")
for part = 1, 5 do
  local o = parts[part]
  if not o then io.stderr:write("peers_pinocchio: cannot preprocess pinocchio_bench.cpp:\n" .. listing); os.exit(1) end
  local cmd = string.format("g++ %s -DPIN_PART=%d -c '%s' -o '%s.$$.tmp' && mv '%s.$$.tmp' '%s'", PINFLAGS, part, SRC, o, o, o)
  if H.sh("test -e '" .. o .. "'") then
    if part == 4 then H.write(done, "") end
  elseif part == 4 then
    H.write(tmp .. "/pin_part4.sh", string.format("%s > '%s.log' 2>&1\ntouch '%s'\n", cmd, o, done))
    H.sh("(nohup bash '" .. tmp .. "/pin_part4.sh' > /dev/null 2>&1 &)")
  else
    build(cmd, PART_SECS[part] * 64000)
  end
end

local cases = {}
for s in (os.getenv("BENCH_N") or "8 24 64"):gmatch("%d+") do
  cases[#cases + 1] = { label = "chain N=" .. s, model = "chain", file = R .. "models/chain.lua", set = { N = tonumber(s) }, dir = "chain" .. s }
end
-- Seed 11: two roots, branches up to 5 deep, 2 sliders among the 10 joints, all axes and frames oblique.
H.write(tmp .. "/tree_random.lua", RM.source("tree_random", 10, 11))
cases[#cases + 1] = { label = "random tree", model = "tree_random", file = tmp .. "/tree_random.lua", set = {}, dir = "tree_random" }
cases[#cases + 1] = { label = "legged 4×3, 6-axis base", model = "legged", file = R .. "tests/bench/models/legged.lua", set = {}, dir = "legged" }
for _, c in ipairs(require("bench_robots").cases(H, R, tmp, "peers_pinocchio")) do
  c.set, c.dir = {}, c.model
  cases[#cases + 1] = c
end

-- Generated one after another (the generator runs here, in this process), then compiled in the pool: the model
-- section by section (-DMB_PART), the textbook RNEA and the Pinocchio model; then linked and timed alone.
for _, c in ipairs(cases) do
  local tree = H.tree(c.file, c.set)
  tree.name = "peer"
  c.n = tree.nz
  c.sliders = 0
  for _, b in ipairs(tree.bodies) do if b.joint.kind == "prismatic" then c.sliders = c.sliders + 1 end end
  c.dir = tmp .. "/" .. c.dir
  H.sh("rm -f '" .. c.dir .. "'/*.o '" .. c.dir .. "/bench'")
  c.ops = {}
  -- lenient: a generator from before the fused forms (a before/after run from an older checkout) has no _dy.
  for _, st in ipairs(H.generate(tree, c.dir, { functions = FUNCTIONS, lenient = true })) do
    c.ops[st.name:gsub("^peer_", "")] = st.ops.add + st.ops.mul + st.ops.div
  end
  local pin, why = PX.export(tree)
  if not pin then io.stderr:write("peers_pinocchio: " .. c.label .. ": " .. why .. "\n"); os.exit(1) end
  H.write(c.dir .. "/pin_model.cpp", pin)
  H.write(c.dir .. "/textbook.c", "/* textbook.c: the textbook RNEA of tests/c/ref_tree.h on this model, for pinocchio_bench.cpp. */\n" ..
    "#include \"ref_tree.h\"\n" .. RX.export(tree, { p = {} }, "ref_model") ..
    "void tb_inverse_dynamics(const double *z, const double *zd, const double *zdd, double *out);\n" ..
    "void tb_inverse_dynamics(const double *z, const double *zd, const double *zdd, double *out)\n" ..
    "{\n    ref_inverse_dynamics(&ref_model, z, zd, zdd, out);\n}\n")
  local text = H.read(c.dir .. "/peer.c")
  c.kb = #text / 1024
  c.objs = { "pin_model.o", "textbook.o" }
  -- Each section weighs the C of its blocks (up to the first #endif: near enough to start the longest first).
  local size = {}
  for k, body in text:gmatch("\n#if MB_SECTION%((%d+)%)\n(.-)\n#endif") do size[k + 0] = (size[k + 0] or 0) + #body end
  for k = 1, tonumber((H.read(c.dir .. "/peer.h") or ""):match("#define peer_NSECTIONS (%d+)") or 0) do
    build(string.format("cd '%s' && gcc -std=c99 -O2 -I'%sruntime' -DMB_PART=%d -c peer.c -o peer.p%d.o", c.dir, R, k, k), size[k] or 0)
    c.objs[#c.objs + 1] = "peer.p" .. k .. ".o"
  end
  if #c.objs == 2 then io.stderr:write("peers_pinocchio: " .. c.label .. ": peer.h names no sections\n"); os.exit(1) end
  build(string.format("cd '%s' && gcc -std=c99 -O2 -I'%stests/c' -c textbook.c -o textbook.o", c.dir, R), 20000)
  build(string.format("cd '%s' && g++ %s -c pin_model.cpp -o pin_model.o", c.dir, PINFLAGS), 8 * 64000)
  io.stderr:write(string.format("%s: generated (%d coordinates, %.0f KiB of C) at %.0f s\n", c.label, c.n, c.kb, H.now() - t_start))
end
P.all(H, builds, tmp .. "/jobs", weights)
H.sh(string.format("while [ ! -e '%s' ]; do sleep 1; done", done))
if not H.sh("test -e '" .. parts[4] .. "'") then
  io.stderr:write((H.read(parts[4] .. ".log") or "") .. "peers_pinocchio: pinocchio_bench.cpp part 4 did not compile\n")
  os.exit(1)
end
local links = {}
for _, c in ipairs(cases) do
  links[#links + 1] = string.format("cd '%s' && g++ %s %s -lm -o bench", c.dir, table.concat(parts, " "), table.concat(c.objs, " "))
end
P.all(H, links, tmp .. "/links")

-- Agreement first (1e-10 of each result's largest entry), then the times.
local CHECKS = { { "mass_rel", "mass (M)" }, { "id_rel", "inverse_dynamics (rnea)" }, { "fd_rel", "forward_dynamics (aba)" },
  { "id_dz_rel", "inverse_dynamics_dz (computeRNEADerivatives dtau_dq)" }, { "id_dzd_rel", "inverse_dynamics_dzd (computeRNEADerivatives dtau_dv)" },
  { "fd_dz_rel", "forward_dynamics_dz (computeABADerivatives ddq_dq)" }, { "fd_dzd_rel", "forward_dynamics_dzd (computeABADerivatives ddq_dv)" },
  { "id_dy_rel", "inverse_dynamics_dy (computeRNEADerivatives)" }, { "fd_dy_rel", "forward_dynamics_dy (computeABADerivatives)" },
  { "textbook_id_rel", "inverse_dynamics (textbook RNEA of tests/c/ref_tree.h)" } }
local failed = false
for _, c in ipairs(cases) do
  local ok, out = H.sh(string.format("cd '%s' && ./bench", c.dir))
  if not ok then io.stderr:write(out); os.exit(1) end
  c.r = H.keyvals(out)
  c.worst = 0
  for _, k in ipairs(CHECKS) do
    local e = c.r[k[1]]
    if not (type(e) == "number" and e <= 1e-10) then
      io.stderr:write(string.format("peers_pinocchio: %s: %s disagrees with Pinocchio: relative error %s\n", c.label, k[2], tostring(e)))
      failed = true
    else
      c.worst = math.max(c.worst, e)
    end
  end
  io.stderr:write(string.format("%s done at %.0f s\n", c.label, H.now() - t_start))
end
if failed then os.exit(1) end

local function ratio(a, b) return (a and b) and string.format("%.0f / %.0f (%.2f)", a, b, a / b) or "–" end
local L = { "| model | n | M: Pinocchio / mbgen ns (ratio) | ID: Pinocchio / mbgen | ID: textbook / mbgen | FD: Pinocchio / mbgen | " ..
  "∂ID/∂[q, q̇]: Pinocchio / mbgen fused (separate) | ∂FD/∂[q, q̇]: Pinocchio / mbgen fused (separate) | " ..
  "mbgen ops: M / ID / FD / ∂ID / ∂FD (fused) | largest disagreement |",
  "|---|---|---|---|---|---|---|---|---|---|" }
local data = {}
for _, c in ipairs(cases) do
  local r, o = c.r, c.ops
  local label = c.label .. (c.model == "tree_random" and string.format(" (%d sliders)", c.sliders) or "")
  L[#L + 1] = string.format("| %s | %d | %s | %s | %s | %s | %s | %s | %d / %d / %d / %d / %d | %.1e |", label, c.n,
    ratio(r.pin_mass_ns, r.mass_ns), ratio(r.pin_id_ns, r.id_ns), ratio(r.textbook_id_ns, r.id_ns), ratio(r.pin_fd_ns, r.fd_ns),
    ratio(r.pin_id_jac_ns, r.id_dy_ns) .. string.format(" (%.2f)", r.pin_id_jac_ns / r.id_jac_ns),
    ratio(r.pin_fd_jac_ns, r.fd_dy_ns) .. string.format(" (%.2f)", r.pin_fd_jac_ns / r.fd_jac_ns),
    o.mass, o.inverse_dynamics, o.forward_dynamics, o.inverse_dynamics_dy or (o.inverse_dynamics_dz + o.inverse_dynamics_dzd),
    o.forward_dynamics_dy or (o.forward_dynamics_dz + o.forward_dynamics_dzd), c.worst)
  for _, d in ipairs {
    { "mass", "mbgen", r.mass_ns, o.mass }, { "mass", "pinocchio", r.pin_mass_ns },
    { "inverse_dynamics", "mbgen", r.id_ns, o.inverse_dynamics }, { "inverse_dynamics", "pinocchio", r.pin_id_ns },
    { "inverse_dynamics", "textbook", r.textbook_id_ns },
    { "forward_dynamics", "mbgen", r.fd_ns, o.forward_dynamics }, { "forward_dynamics", "pinocchio", r.pin_fd_ns },
    { "id_jacobian", "mbgen", r.id_jac_ns, o.inverse_dynamics_dz + o.inverse_dynamics_dzd }, { "id_jacobian", "pinocchio", r.pin_id_jac_ns },
    { "fd_derivatives", "mbgen", r.fd_jac_ns, o.forward_dynamics_dz + o.forward_dynamics_dzd }, { "fd_derivatives", "pinocchio", r.pin_fd_jac_ns },
    { "id_jacobian_fused", "mbgen", r.id_dy_ns, o.inverse_dynamics_dy }, { "fd_derivatives_fused", "mbgen", r.fd_dy_ns, o.forward_dynamics_dy } } do
    data[#data + 1] = { model = c.model, n = c.n, fn = d[1], tool = d[2], ns = d[3], ops = d[4] }
  end
end
BD.write(H, root .. "tests/bench/results/peers_pinocchio.tsv", data)
local text = "# mbgen against Pinocchio 3.7.0\n\nMachine: " .. BD.machine(H) .. ". One core; mbgen's C at gcc -O2, Pinocchio " ..
  "(header-only, Eigen 3 of libeigen3-dev) at g++ -O3 -march=native -DNDEBUG; ns per call, the least of 3 medians of 15 " ..
  "batches, one run of `make bench`; ratio > 1: mbgen is faster. The same tree is built in Pinocchio by " ..
  "tests/lib/pinocchio_export.lua, one 1-DOF joint per coordinate (JointModelRX..PZ on coordinate axes, the " ..
  "*Unaligned joints otherwise), so coordinates map 1:1; legged 4×3: a trunk on a free joint (3 slides, 3 turns, as " ..
  "mbgen expands it) and 4 legs of hip abduction, hip flexion and knee (tests/bench/models/legged.lua); random tree: " ..
  "tests/lib/random_model.lua, seed 11; robots: models/robots imported by mbgen (tests/bench/bench_robots.lua; Talos " ..
  "from ../shared/robots when it is there), without joint damping (Pinocchio's rnea and aba have none), legged robots " ..
  "and the humanoid on a free joint expanded as for legged 4×3. Pinocchio's calls: M = crba (upper triangle; the faster of its LOCAL and " ..
  "WORLD conventions), ID = rnea, FD = aba at tau = 0 (faster convention), ∂ID = computeRNEADerivatives (dtau/dq, " ..
  "dtau/dv and M together) against mbgen's inverse_dynamics_dy (both Jacobians in one call; in parentheses the ratio " ..
  "against the two calls inverse_dynamics_dz + _dzd), ∂FD = computeABADerivatives (ddq/dq, ddq/dv " ..
  "and M⁻¹) against forward_dynamics_dy (and _dz + _dzd). Textbook = tests/c/ref_tree.h's looped RNEA at gcc -O2. Before " ..
  "timing, all nine results (M symmetrized) were checked equal at 3 random states to 1e-10 of their largest entry; " ..
  "the largest disagreement is in the last column. mbgen ops: additions, multiplications and divisions of the " ..
  "generated code (∂: both Jacobians). No instruction counts: valgrind cannot run -march=native (AVX-512) code. " ..
  "Raw numbers: peers_pinocchio.tsv.\n\n" .. table.concat(L, "\n") .. "\n"
H.write(root .. "tests/bench/results/peers_pinocchio.md", text)
io.write(text)
io.stderr:write(string.format("peers_pinocchio: %.0f s\n", H.now() - t_start))
