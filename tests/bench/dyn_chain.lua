-- dyn_chain.lua: `make bench` for the open-tree functions: models/chain.lua for N = 2..64, generated code
-- against the textbook oracle and central differences, as same-run ratios, with operation counts.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/dyn_chain_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
local RX = require "ref_export"
local C = require "sym.emit_c"
local TF = require "dynamics.tree_functions"
package.path = root .. "tests/bench/?.lua;" .. package.path
local CG = require "callgrind"
local BD = require "bench_data"
local P = require "parallel"

-- The functions the benchmark times; the rest of a model would only lengthen the compile.
local FUNCTIONS = { "mass", "inverse_dynamics", "inverse_dynamics_dz", "inverse_dynamics_dzd",
  "inverse_dynamics_tangent", "forward_dynamics" }

-- Operations of r and both Jacobians computed together (shared kinematics counted once): the measure of
-- docs/derivatives.md, per entry = (ops(r, dr/dz, dr/dzd) - ops(r)) / 2N².
local function fused_ops(tree)
  local by = {}
  for _, f in ipairs(TF.build(tree).functions) do by[f.name] = f.exprs end
  local function ops(lists)
    local u = {}
    for _, l in ipairs(lists) do for _, e in ipairs(l) do u[#u + 1] = e end end
    local c = C.count(u)
    return c.add + c.mul + c.div
  end
  return ops { by.inverse_dynamics, by.inverse_dynamics_dz, by.inverse_dynamics_dzd }
end

local sizes = {}
for s in (os.getenv("BENCH_N") or "2 4 8 16 24 32 64"):gmatch("%d+") do sizes[#sizes + 1] = tonumber(s) end
local tmp = root .. "build/bench/dyn_chain"
H.mkdir(tmp)
H.mkdir(root .. "tests/bench/results")

local function ops_total(o) return (o.add or 0) + (o.mul or 0) + (o.div or 0) end

-- Generated one size after another (the generation times are results), compiled one per core, then timed alone.
local rows, builds = {}, {}
for _, n in ipairs(sizes) do
  local name = "chain" .. n
  local t0 = os.clock()
  local tree = H.tree(root .. "models/chain.lua", { N = n })
  tree.name = name
  local dir = tmp .. "/" .. name
  local stats = H.generate(tree, dir, { functions = FUNCTIONS })
  local gen_s = os.clock() - t0
  local fused = fused_ops(tree)
  H.write(dir .. "/" .. name .. "_ref.h", RX.export(tree, { p = {} }, "ref_model"))
  local ops = {}
  for _, s in ipairs(stats) do ops[s.name:gsub("^" .. name .. "_", "")] = ops_total(s.ops) end
  builds[#builds + 1] = string.format(
    "gcc -std=c99 -O2 -I'%s' -I'%sruntime' -I'%stests/c' -DMODEL_HEADER='\"%s.h\"' -DREF_HEADER='\"%s_ref.h\"' " ..
    "-DMODEL=%s_model '%stests/bench/dyn_bench.c' '%s/%s.c' -lm -o '%s/bench'",
    dir, root, root, name, name, name, root, dir, name, dir)
  rows[#rows + 1] = {
    n = n, dir = dir, gen = gen_s, kb = #(H.read(dir .. "/" .. name .. ".c") or "") / 1024, ops = ops, fused = fused,
    per_entry = (fused - ops.inverse_dynamics) / (2 * n * n),
    tangent_entry = (ops.inverse_dynamics_tangent - ops.inverse_dynamics) / (n * n),
  }
end
local weights = {}
for k, x in ipairs(rows) do weights[k] = x.kb end
for k, secs in ipairs(P.all(H, builds, tmp .. "/jobs", weights)) do rows[k].cc = secs end
for _, x in ipairs(rows) do
  local _, res = H.sh("'" .. x.dir .. "/bench'")
  x.r = H.keyvals(res)
  local ic, why = CG.count(H, x.dir, "./bench")
  if not ic then io.stderr:write("dyn_chain: no instruction counts: " .. why .. "\n"); ic = {} end
  x.ic = ic
  io.stderr:write(string.format("chain N=%d done\n", x.n))
end

local L = {}
L[#L + 1] = "| N | mass ns (ratio textbook/mbgen) | inverse dynamics ns (ratio) | forward dynamics ns (ratio) | dr/dz + dr/dzd ns | central differences ns (ratio CD/mbgen) | tangent ns | ops: ID / dz / dzd / fused ID+dz+dzd / tangent | ops per Jacobian entry (tangent) | generate s | gcc -O2 s | C size KiB |"
L[#L + 1] = "|---|---|---|---|---|---|---|---|---|---|---|---|"
for _, x in ipairs(rows) do
  local r = x.r
  L[#L + 1] = string.format("| %d | %.0f (%.2f) | %.0f (%.2f) | %.0f (%.2f) | %.0f | %.0f (%.1f) | %.0f | %d / %d / %d / %d / %d | %.1f (%.1f) | %.2f | %.1f | %.0f |",
    x.n, r.mass_ns, r.ref_mass_ns / r.mass_ns, r.id_ns, r.ref_id_ns / r.id_ns, r.fd_ns, r.ref_fd_ns / r.fd_ns,
    r.jac_ns, r.cd_jac_ns, r.cd_jac_ns / r.jac_ns, r.tangent_ns, x.ops.inverse_dynamics or 0, x.ops.inverse_dynamics_dz or 0,
    x.ops.inverse_dynamics_dzd or 0, x.fused, x.ops.inverse_dynamics_tangent or 0, x.per_entry, x.tangent_entry, x.gen, x.cc, x.kb)
end
-- The raw numbers (ns, callgrind instructions per call, operations) for scaling.lua.
local data = {}
for _, x in ipairs(rows) do
  local r, ic, o = x.r, x.ic, x.ops
  local jac_ops = o.inverse_dynamics_dz and o.inverse_dynamics_dzd and o.inverse_dynamics_dz + o.inverse_dynamics_dzd
  for _, d in ipairs {
    { "mass", "mbgen", r.mass_ns, ic.t_mass, o.mass }, { "mass", "textbook", r.ref_mass_ns, ic.r_mass },
    { "inverse_dynamics", "mbgen", r.id_ns, ic.t_id, o.inverse_dynamics }, { "inverse_dynamics", "textbook", r.ref_id_ns, ic.r_id },
    { "forward_dynamics", "mbgen", r.fd_ns, ic.t_fd, o.forward_dynamics }, { "forward_dynamics", "textbook", r.ref_fd_ns, ic.r_fd },
    { "id_jacobian", "mbgen", r.jac_ns, ic.t_jac, jac_ops }, { "id_jacobian", "central_differences", r.cd_jac_ns, ic.t_cd },
    { "id_tangent", "mbgen", r.tangent_ns, ic.t_tan, o.inverse_dynamics_tangent } } do
    data[#data + 1] = { model = "chain", n = x.n, fn = d[1], tool = d[2], ns = d[3], instr = d[4], ops = d[5] }
  end
end
BD.write(H, root .. "tests/bench/results/dyn_chain.tsv", data)
local text = "# Open-tree functions of models/chain.lua\n\nMachine: " .. BD.machine(H) .. ". " ..
  "Ratios > 1 mean mbgen is faster; all from one run of `make bench`. Textbook = tests/c/ref_tree.h " ..
  "(Featherstone RNEA/CRBA/ABA in body frames). Ops per Jacobian entry = (ops(ID, dz, dzd together) - ops(ID)) / 2N² " ..
  "(docs/derivatives.md); tangent: (ops(tangent) - ops(ID)) / N², the fused c_z dr/dz + c_v dr/dzd + c_a M. " ..
  "The benchmark generates only the timed functions (`mbgen generate --functions`); gcc s is the wall time of " ..
  "one compile of the model and its driver, one compile per core at a time. Callgrind instruction counts of every " ..
  "timed call and the raw numbers: dyn_chain.tsv.\n\n" ..
  table.concat(L, "\n") .. "\n"
H.write(root .. "tests/bench/results/dyn_chain.md", text)
io.write(text)
