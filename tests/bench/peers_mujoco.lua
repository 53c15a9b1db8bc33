-- peers_mujoco.lua: `make bench` against MuJoCo: models/chain.lua for N = 2..64, models/tree.lua and the real robots
-- (bench_robots.lua), ns per call of M, inverse dynamics, forward dynamics and forward-dynamics derivatives, as
-- same-run ratios MuJoCo / mbgen.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/peers_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
local X = require "mjcf_export"
package.path = root .. "tests/bench/?.lua;" .. package.path
local CG = require "callgrind"
local BD = require "bench_data"
local P = require "parallel"

if not H.read("/usr/include/mujoco/mujoco.h") then
  io.stderr:write("peers_mujoco: libmujoco-dev is not installed (make peer-deps installs it as root); skipped\n")
  os.exit(0)
end
local sizes = {}
for s in (os.getenv("BENCH_N") or "2 4 8 16 24 32 64"):gmatch("%d+") do sizes[#sizes + 1] = tonumber(s) end
-- The forward-dynamics derivatives of the big chains take minutes of gcc; they are timed up to DERIV_MAX.
local DERIV_MAX = tonumber(os.getenv("DERIV_MAX") or 24)
local tmp = root .. "build/bench/peers_mujoco"
H.mkdir(tmp)
H.mkdir(root .. "tests/bench/results")

local cases = {}
for _, n in ipairs(sizes) do cases[#cases + 1] = { label = "chain N=" .. n, model = "chain", set = { N = n }, name = "chain" .. n } end
cases[#cases + 1] = { label = "tree (7 bodies)", model = "tree", set = {}, name = "tree7" }
for _, c in ipairs(require("bench_robots").cases(H, root, tmp, "peers_mujoco", true)) do
  c.set, c.name = {}, c.model
  cases[#cases + 1] = c
end

-- Generated one after another, compiled one per core at a time, then timed alone.
local builds, weights = {}, {}
for _, c in ipairs(cases) do
  local tree = H.tree(c.file or (root .. "models/" .. c.model .. ".lua"), c.set)
  tree.name = c.name
  c.n = #tree.bodies
  local deriv = c.n <= DERIV_MAX
  local fns = { "mass", "inverse_dynamics", "forward_dynamics" }
  if deriv then fns[#fns + 1] = "forward_dynamics_dz"; fns[#fns + 1] = "forward_dynamics_dzd" end
  c.dir = tmp .. "/" .. c.name
  c.ops = {}
  for _, st in ipairs(H.generate(tree, c.dir, { functions = fns })) do
    c.ops[st.name:gsub("^" .. c.name .. "_", "")] = st.ops.add + st.ops.mul + st.ops.div
  end
  H.write(c.dir .. "/model.xml", X.export(tree, { p = {} }))
  builds[#builds + 1] = string.format("gcc -std=c99 -O2 -I'%sruntime' -I'%s' -I'%stests/bench' -DMB_MODEL=%s_model %s " ..
    "'%stests/peers/mj_bench.c' '%s/%s.c' -lmujoco -lm -o '%s/bench'", root, c.dir, root, c.name,
    deriv and "-DWITH_DERIVATIVES" or "", root, c.dir, c.name, c.dir)
  weights[#builds] = #(H.read(c.dir .. "/" .. c.name .. ".c") or "")
end
P.all(H, builds, tmp .. "/jobs", weights)
local rows = {}
for _, c in ipairs(cases) do
  local ok, out = H.sh(string.format("'%s/bench' '%s/model.xml'", c.dir, c.dir))
  if not ok then io.stderr:write(out); os.exit(1) end
  local ic, why = CG.count(H, c.dir, "./bench", "model.xml")
  if not ic then io.stderr:write("peers_mujoco: no instruction counts: " .. why .. "\n"); ic = {} end
  rows[#rows + 1] = { label = c.label, model = c.model, n = c.n, r = H.keyvals(out), ic = ic, ops = c.ops }
  io.stderr:write(c.label .. " done\n")
end

local function ratio(a, b) return (a and b) and string.format("%.0f / %.0f (%.2f)", a, b, a / b) or "–" end
local L = { "| model | M: MuJoCo / mbgen ns (ratio) | inverse dynamics | forward dynamics | derivatives: mjd_transitionFD / mbgen dFD/d[z, zd] |",
  "|---|---|---|---|---|" }
for _, x in ipairs(rows) do
  local r = x.r
  L[#L + 1] = string.format("| %s | %s | %s | %s | %s |", x.label, ratio(r.mj_mass_ns, r.mass_ns), ratio(r.mj_id_ns, r.id_ns),
    ratio(r.mj_fd_ns, r.fd_ns), ratio(r.mj_transition_fd_ns, r.fd_deriv_ns))
end
-- Instructions per call (callgrind, BENCH_COUNT_REPS calls after a warm-up) and the raw numbers for scaling.lua.
local FNS = { { "mass", "mass", "j_mass", "t_mass", "mj_mass_ns", "mass_ns" },
  { "inverse_dynamics", "inverse_dynamics", "j_id", "t_id", "mj_id_ns", "id_ns" },
  { "forward_dynamics", "forward_dynamics", "j_fd", "t_fd", "mj_fd_ns", "fd_ns" },
  { "fd_derivatives", nil, "j_d", "t_d", "mj_transition_fd_ns", "fd_deriv_ns" } }
local I = { "| model | M: MuJoCo / mbgen instructions (ratio) | inverse dynamics | forward dynamics | derivatives |", "|---|---|---|---|---|" }
local data = {}
for _, x in ipairs(rows) do
  local cells = {}
  for k, f in ipairs(FNS) do
    local a, b = x.ic[f[3]], x.ic[f[4]]
    cells[k] = (a and b) and string.format("%.0f / %.0f (%.2f)", a, b, a / b) or "–"
    local ops = f[2] and x.ops[f[2]] or (x.ops.forward_dynamics_dz and x.ops.forward_dynamics_dz + x.ops.forward_dynamics_dzd)
    if x.r[f[6]] then
      data[#data + 1] = { model = x.model, n = x.n, fn = f[1], tool = "mbgen", ns = x.r[f[6]], instr = b, ops = ops }
      data[#data + 1] = { model = x.model, n = x.n, fn = f[1], tool = "mujoco", ns = x.r[f[5]], instr = a }
    end
  end
  I[#I + 1] = string.format("| %s | %s |", x.label, table.concat(cells, " | "))
end
BD.write(H, root .. "tests/bench/results/peers_mujoco.tsv", data)
local cpu = BD.machine(H)
local text = "# mbgen against MuJoCo 2.2.2 (libmujoco-dev)\n\nMachine: " .. cpu .. ". One core, gcc 12 -O2, medians of 15 " ..
  "batches, one run of `make bench`; ratio > 1: mbgen is faster. MuJoCo's mass = mj_kinematics + mj_comPos + mj_crb + " ..
  "mj_fullM; inverse dynamics = mj_kinematics + mj_comPos + mj_comVel + mj_rne; forward dynamics = mj_forward with " ..
  "contacts, constraints and passive forces disabled; derivatives = mjd_transitionFD (centred differences of one RK4 " ..
  "step, 2nv x 2nv) against mbgen's analytic forward_dynamics_dz + _dzd (nv x 2nv): related, not the same matrix. " ..
  "tests/peer_mujoco.t checks that both compute the same M and inverse dynamics (1e-15). The robots are the fixed-base " ..
  "arms of models/robots, imported and given to MuJoCo as the same tree in MJCF (tests/lib/mjcf_export.lua; the " ..
  "floating robots' free joint, expanded into six with massless bodies between, is refused by MuJoCo's compiler); " ..
  "tests/urdf_import.t checks the imports against MuJoCo reading the URDF itself.\n\n" .. table.concat(L, "\n") .. "\n" ..
  "\n## Instructions per call (valgrind --tool=callgrind)\n\nDeterministic counts of the same calls (mean of a few calls " ..
  "after a warm-up, tests/bench/bench_time.h); ratio > 1: mbgen executes fewer instructions. Raw numbers: peers_mujoco.tsv.\n\n" ..
  table.concat(I, "\n") .. "\n"
H.write(root .. "tests/bench/results/peers_mujoco.md", text)
io.write(text)
