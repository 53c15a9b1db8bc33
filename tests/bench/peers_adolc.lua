-- peers_adolc.lua: `make bench` against ADOL-C (as in Callejo et al. 2014): the Jacobian [dr/dz, dr/dzd] of the inverse
-- dynamics by mbgen's analytic recursion, by central differences of the generated function, and by ADOL-C
-- (dense forward, dense reverse, sparse) taping the same generated function; same-run ratios.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/peers_bench.t"
local H = dofile(root .. "tests/lib/harness.lua")
local AB = require "adolc_build"
package.path = root .. "tests/bench/?.lua;" .. package.path
local CG = require "callgrind"
local BD = require "bench_data"
local P = require "parallel"

if not H.read("/usr/include/adolc/adolc.h") then
  io.stderr:write("peers_adolc: libadolc-dev is not installed (make peer-deps installs it as root); skipped\n")
  os.exit(0)
end
local cases = {}
for ny in (os.getenv("GRID_NY") or "1 4 7"):gmatch("%d+") do
  cases[#cases + 1] = { label = "fourbar_grid NY=" .. ny, model = "fourbar_grid", set = { NY = tonumber(ny) }, name = "grid" .. ny }
end
for n in (os.getenv("CHAIN_N") or "8 24"):gmatch("%d+") do
  cases[#cases + 1] = { label = "chain N=" .. n, model = "chain", set = { N = tonumber(n) }, name = "chain" .. n }
end
-- The vehicles (the sedan and the coach) are timed when their model files exist; a problem with one of
-- them is a note in the table, not a failed benchmark.
local notes = {}
for v in (os.getenv("VEHICLES") or "sedan coach"):gmatch("%w+") do
  if H.read(root .. "models/" .. v .. ".lua") then
    cases[#cases + 1] = { label = v, model = v, set = {}, name = v, optional = true }
  else
    notes[#notes + 1] = "models/" .. v .. ".lua does not exist yet: " .. v .. " skipped."
    io.stderr:write("peers_adolc: " .. notes[#notes] .. "\n")
  end
end
-- Generated one after another, built one per core at a time, then timed alone.
local builds, weights, built = {}, {}, {}
local g0 = H.now()
for _, c in ipairs(cases) do
  c.dir = root .. "build/bench/peers_adolc/" .. c.name
  local okt, tree = pcall(H.tree, root .. "models/" .. c.model .. ".lua", c.set)
  if okt then
    tree.name = c.name
    local cmd
    cmd, c.stats = AB.build_command(H, tree, c.dir)
    builds[#builds + 1], weights[#builds + 1], built[#builds + 1] = cmd, #(H.read(c.dir .. "/" .. c.name .. ".c") or ""), c
  else
    c.failed = type(tree) == "table" and tostring(tree.message) or tostring(tree)
  end
end
io.stderr:write(string.format("peers_adolc: %d models generated in %.0f s\n", #cases, H.now() - g0))
for k, b in ipairs(P.run(H, builds, root .. "build/bench/peers_adolc/jobs", weights)) do
  if not b.ok then built[k].failed = b.out end
end
local rows = {}
for _, c in ipairs(cases) do
  local ok, out = not c.failed, c.failed
  local t0 = H.now()
  if ok then ok, out = H.sh("cd '" .. c.dir .. "' && ./jac time") end
  local t1 = H.now()
  local r = ok and H.keyvals(out) or {}
  if ok then
    for _, k in ipairs { "forward_rel", "reverse_rel", "sparse_rel" } do
      if not (r[k] and r[k] < 1e-10) then ok, out = false, "ADOL-C disagrees: " .. k .. " " .. tostring(r[k]) end
    end
  end
  if not ok and not c.optional then io.stderr:write(c.label .. ": " .. out .. "\n"); os.exit(1) end
  if not ok then
    notes[#notes + 1] = c.label .. " failed: " .. (out:match("[^\n]*[%w][^\n]*") or "?")
    io.stderr:write("peers_adolc: " .. c.label .. " failed:\n" .. out .. "\n")
  else
    local ops = 0
    for _, st in ipairs(c.stats) do
      if st.name:match("_dzd?$") then ops = ops + st.ops.add + st.ops.mul + st.ops.div end
    end
    local ic, why = CG.count(H, c.dir, "./jac", "time")
    if not ic then io.stderr:write("peers_adolc: no instruction counts: " .. why .. "\n"); ic = {} end
    rows[#rows + 1] = { label = c.label, model = c.model, r = r, ic = ic, ops = ops }
    io.stderr:write(string.format("%s done: timed in %.0f s, counted in %.0f s\n", c.label, t1 - t0, H.now() - t1))
  end
end
local L = { "| model | n | Jacobian nnz / 2n² | colours | mbgen analytic ns | central differences (ratio) | ADOL-C dense forward (ratio) | dense reverse (ratio) | sparse (ratio) | residual ns |",
  "|---|---|---|---|---|---|---|---|---|---|" }
for _, x in ipairs(rows) do
  local r = x.r
  local function q(v) return string.format("%.0f (%.1f)", v, v / r.analytic_ns) end
  L[#L + 1] = string.format("| %s | %d | %d / %d | %d | %.0f | %s | %s | %s | %s | %.0f |", x.label, r.n, r.nnz, 2 * r.n * r.n,
    r.colors, r.analytic_ns, q(r.central_ns), q(r.adolc_forward_ns), q(r.adolc_reverse_ns), q(r.adolc_sparse_ns), r.residual_ns)
end
-- Instructions per call (callgrind) and the raw numbers.
local TOOLS = { { "mbgen", "analytic_ns", "t_an" }, { "central_differences", "central_ns", "t_cd" },
  { "adolc_forward", "adolc_forward_ns", "t_fw" }, { "adolc_reverse", "adolc_reverse_ns", "t_rv" },
  { "adolc_sparse", "adolc_sparse_ns", "t_sp" } }
local I = { "| model | mbgen analytic instructions | central differences (ratio) | ADOL-C dense forward (ratio) | dense reverse (ratio) | sparse (ratio) |",
  "|---|---|---|---|---|---|" }
local data = {}
for _, x in ipairs(rows) do
  local base, cells = x.ic.t_an, {}
  for k, t in ipairs(TOOLS) do
    local v = x.ic[t[3]]
    cells[k] = not v and "–" or (k == 1 and string.format("%.0f", v) or string.format("%.0f (%.1f)", v, v / base))
    data[#data + 1] = { model = x.model, n = x.r.n, fn = "id_jacobian", tool = t[1], ns = x.r[t[2]], instr = v, ops = k == 1 and x.ops or nil }
  end
  I[#I + 1] = string.format("| %s | %s |", x.label, table.concat(cells, " | "))
end
BD.write(H, root .. "tests/bench/results/peers_adolc.tsv", data)
local text = "# Jacobian of the inverse dynamics: mbgen against ADOL-C 2.7.2 (libadolc-dev)\n\nMachine: " .. BD.machine(H) ..
  ". One core, gcc/g++ 12 -O2, medians of 15 batches, one run of `make bench`; ratio = time / mbgen's analytic time. " ..
  "ADOL-C tapes the same generated function compiled as C++ with mb_real = adouble, once; the times are evaluations " ..
  "from the tape (fov_forward with 2n directions; zos_forward + fov_reverse with n weights; compressed fov_forward " ..
  "with a greedy colouring of jac_pat's pattern, as this ADOL-C has no ColPack). Every Jacobian was checked against " ..
  "mbgen's to 1e-10 before timing.\n\n" .. table.concat(L, "\n") .. "\n" ..
  (#notes > 0 and ("\n" .. table.concat(notes, "\n\n") .. "\n") or "") ..
  "\n## Instructions per call (valgrind --tool=callgrind)\n\nMean of a few calls after a warm-up (tests/bench/bench_time.h); " ..
  "ratio = instructions / mbgen's analytic instructions. Raw numbers: peers_adolc.tsv.\n\n" .. table.concat(I, "\n") .. "\n"
H.write(root .. "tests/bench/results/peers_adolc.md", text)
io.write(text)
