-- scaling.lua: `make bench`'s summary of the raw numbers the earlier benchmarks of the same run wrote
-- (results/dyn_chain.tsv, peers_mujoco.tsv, peers_simbody.tsv, peers_adolc.tsv): log-log slopes of cost against N
-- on the chain for every generated function and every peer, achieved operations and instructions per cycle of the
-- generated functions, and log-log SVG plots of time and instructions against N.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/scaling_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
package.path = root .. "tests/bench/?.lua;" .. package.path
local BD = require "bench_data"
local P = require "run.plot_svg"

local RES = root .. "tests/bench/results/"
local SOURCES = { "dyn_chain", "peers_mujoco", "peers_simbody", "peers_adolc" }
local data, missing = {}, {}
for _, src in ipairs(SOURCES) do
  local rows = BD.read(H, RES .. src .. ".tsv")
  if rows then
    for _, r in ipairs(rows) do r.src = src; data[#data + 1] = r end
  else
    missing[#missing + 1] = src .. ".tsv"
  end
end
if #data == 0 then io.stderr:write("scaling: no raw numbers in " .. RES .. "; run the other benchmarks first\n"); os.exit(1) end

local FN_NAME = { mass = "mass matrix", inverse_dynamics = "inverse dynamics", forward_dynamics = "forward dynamics",
  fd_derivatives = "forward-dynamics derivatives", id_jacobian = "inverse-dynamics Jacobian [dr/dz, dr/dzd]",
  id_tangent = "inverse-dynamics tangent (c_z dr/dz + c_v dr/dzd + c_a M)" }
local TOOL_NAME = { mbgen = "mbgen", mujoco = "MuJoCo", simbody = "Simbody", textbook = "textbook C (ref_tree.h)",
  central_differences = "central differences of mbgen's r", adolc_forward = "ADOL-C dense forward",
  adolc_reverse = "ADOL-C dense reverse", adolc_sparse = "ADOL-C sparse" }
local SHORT = { mbgen = "mbgen", mujoco = "MuJoCo", simbody = "Simbody", textbook = "textbook C",
  central_differences = "CD of mbgen's r", adolc_forward = "ADOL-C forward", adolc_reverse = "ADOL-C reverse",
  adolc_sparse = "ADOL-C sparse" }
local FN_ORDER = { "mass", "inverse_dynamics", "forward_dynamics", "id_jacobian", "id_tangent", "fd_derivatives" }
local SRC_OF_MBGEN = { dyn_chain = "dyn_chain", peers_mujoco = "peers_mujoco", peers_simbody = "peers_simbody", peers_adolc = "peers_adolc" }

-- Chain series: one per (source, function, tool), points sorted by N.
local series, order = {}, {}
for _, r in ipairs(data) do
  if r.model == "chain" and r.ns then
    local key = r.src .. "|" .. r.fn .. "|" .. r.tool
    if not series[key] then
      series[key] = { src = r.src, fn = r.fn, tool = r.tool, pts = {} }
      order[#order + 1] = key
    end
    table.insert(series[key].pts, r)
  end
end
for _, k in ipairs(order) do table.sort(series[k].pts, function(a, b) return a.n < b.n end) end

-- Least-squares slope of log y on log N over the points with N >= nmin (nil under two points).
local function slope(pts, field, nmin)
  local xs, ys = {}, {}
  for _, p in ipairs(pts) do
    if p.n >= (nmin or 0) and p[field] and p[field] > 0 then xs[#xs + 1] = math.log(p.n); ys[#ys + 1] = math.log(p[field]) end
  end
  if #xs < 2 then return nil end
  local mx, my = 0, 0
  for i = 1, #xs do mx, my = mx + xs[i] / #xs, my + ys[i] / #ys end
  local sxy, sxx = 0, 0
  for i = 1, #xs do sxy, sxx = sxy + (xs[i] - mx) * (ys[i] - my), sxx + (xs[i] - mx) ^ 2 end
  return sxy / sxx
end
local function f2(x) return x and string.format("%.2f", x) or "–" end

local fn_rank = {}
for i, f in ipairs(FN_ORDER) do fn_rank[f] = i end
local src_rank = {}
for i, s in ipairs(SOURCES) do src_rank[s] = i end
table.sort(order, function(a, b)
  local x, y = series[a], series[b]
  if x.fn ~= y.fn then return (fn_rank[x.fn] or 99) < (fn_rank[y.fn] or 99) end
  if (x.tool == "mbgen") ~= (y.tool == "mbgen") then return x.tool == "mbgen" end
  if x.src ~= y.src then return src_rank[x.src] < src_rank[y.src] end
  return x.tool < y.tool
end)

local S = { "| function | tool | run | N | slope of time | slope of time, N ≥ 16 | slope of instructions |", "|---|---|---|---|---|---|---|" }
for _, k in ipairs(order) do
  local s = series[k]
  local ns = {}
  for _, p in ipairs(s.pts) do ns[#ns + 1] = tostring(p.n) end
  S[#S + 1] = string.format("| %s | %s | %s | %s | %s | %s | %s |", FN_NAME[s.fn] or s.fn, TOOL_NAME[s.tool] or s.tool, s.src,
    table.concat(ns, ", "), f2(slope(s.pts, "ns")), f2(slope(s.pts, "ns", 16)), f2(slope(s.pts, "instr")))
end

-- Achieved operations per cycle of the generated functions: ops / (ns * clock); instructions per cycle alike.
local machine, hz = BD.machine(H)
local nominal_mhz = hz and hz / 1e6
H.mkdir(root .. "build/bench")
local okc, cout = H.sh(string.format("gcc -std=c99 -O2 -I'%stests/bench' '%stests/bench/clock.c' -o '%sbuild/bench/clock' && '%sbuild/bench/clock'",
  root, root, root, root))
local clk = okc and H.keyvals(cout) or {}
local clock_note
if clk.ghz_max then
  hz = clk.ghz_max * 1e9
  clock_note = string.format("the clock measured by tests/bench/clock.c, %.2f GHz (a chain of dependent additions, one " ..
    "per cycle, fastest of 31 batches; median batch %.2f GHz; /proc/cpuinfo reports a nominal %.0f MHz)", clk.ghz_max,
    clk.ghz_median, nominal_mhz or 0)
else
  clock_note = string.format("the nominal clock from /proc/cpuinfo, %.0f MHz (tests/bench/clock.c could not measure it here)", nominal_mhz or 0)
end
local cols, colset = {}, {}
local opc = {}
for _, r in ipairs(data) do
  if r.tool == "mbgen" and r.ops and r.ns and (r.src == "dyn_chain" or r.fn == "fd_derivatives" or r.model ~= "chain") then
    local col = r.model == "chain" and ("N=" .. r.n) or (r.model .. (r.model == "fourbar_grid" and (" n=" .. r.n) or ""))
    if not colset[col] then colset[col] = true; cols[#cols + 1] = { col = col, chain = r.model == "chain", n = r.n, model = r.model } end
    local key = r.fn
    opc[key] = opc[key] or {}
    if not opc[key][col] or r.src == "dyn_chain" then opc[key][col] = r end
  end
end
table.sort(cols, function(a, b)
  if a.chain ~= b.chain then return a.chain end
  if a.model ~= b.model then return a.model < b.model end
  return a.n < b.n
end)
local O = { "| function | " }
local head = {}
for i, c in ipairs(cols) do head[i] = c.col end
O[1] = "| function | " .. table.concat(head, " | ") .. " |"
O[2] = "|---|" .. string.rep("---|", #cols)
local function cells(r)
  if not r then return "–" end
  local cyc = r.ns * 1e-9 * hz
  return string.format("%.2f / %s", r.ops / cyc, r.instr and string.format("%.2f", r.instr / cyc) or "–")
end
for _, f in ipairs(FN_ORDER) do
  if opc[f] then
    local c = {}
    for i, col in ipairs(cols) do c[i] = cells(opc[f][col.col]) end
    O[#O + 1] = string.format("| %s | %s |", FN_NAME[f], table.concat(c, " | "))
  end
end

-- Plots: per function, time and instructions against N, log-log.
local PLOTS = {
  { file = "scaling_mass.svg", title = "Mass matrix, chain N = 2..64", fns = { mass = true } },
  { file = "scaling_inverse_dynamics.svg", title = "Inverse dynamics, chain N = 2..64", fns = { inverse_dynamics = true } },
  { file = "scaling_forward_dynamics.svg", title = "Forward dynamics, chain N = 2..64", fns = { forward_dynamics = true } },
  { file = "scaling_derivatives.svg", title = "Derivatives, chain N = 2..64", fns = { id_jacobian = true, id_tangent = true, fd_derivatives = true } },
}
local written = {}
for _, pl in ipairs(PLOTS) do
  local st, si = {}, {}
  for _, k in ipairs(order) do
    local s = series[k]
    -- mbgen's mass / inverse / forward dynamics appear once, from dyn_chain's run; the peers' runs time them again.
    -- (peers_adolc's mbgen and central differences of the chain repeat dyn_chain's.)
    local dup = (s.tool == "mbgen" or s.tool == "central_differences") and s.src ~= "dyn_chain" and s.fn ~= "fd_derivatives"
    if pl.fns[s.fn] and not dup and #s.pts >= 2 then
      local name = SHORT[s.tool] or s.tool
      if pl.fns.id_jacobian then
        name = s.fn == "id_tangent" and "mbgen tangent" or s.fn == "fd_derivatives" and name .. " dFD" or name .. " dr"
      end
      local x, yt, yi = {}, {}, {}
      for _, p in ipairs(s.pts) do
        x[#x + 1] = p.n; yt[#yt + 1] = p.ns
        if p.instr then yi[#yi + 1] = p.instr end
      end
      local dash = s.tool ~= "mbgen" and "6,3" or nil
      st[#st + 1] = { name = name, x = x, values = yt, dash = dash }
      if #yi == #x then si[#si + 1] = { name = name, x = x, values = yi, dash = dash } end
    end
  end
  if #st > 0 then
    local xt, seen = {}, {}
    for _, s in ipairs(st) do for _, n in ipairs(s.x) do if not seen[n] then seen[n] = true; xt[#xt + 1] = n end end end
    table.sort(xt)
    local function panel(title, sr)
      return { title = title, xlabel = "N (bodies of the chain)", logx = true, logy = true, markers = true, xticks = xt, series = sr }
    end
    local panels = { panel("ns per call (median)", st) }
    if #si > 0 then panels[2] = panel("instructions per call (callgrind)", si) end
    H.write(RES .. pl.file, P.xy_svg(pl.title .. " (" .. (machine:gsub(", [%d?]+ MHz$", "")) .. ")", panels))
    written[#written + 1] = pl.file
  end
end

local text = "# Scaling and operations per cycle\n\nMachine: " .. machine .. ", one core, gcc/g++ 12 -O2. Summary of the raw " ..
  "numbers (" .. table.concat(SOURCES, ".tsv, ") .. ".tsv) written by the earlier benchmarks of the same `make bench` run" ..
  (#missing > 0 and (" (missing: " .. table.concat(missing, ", ") .. ")") or "") .. ".\n\n" ..
  "## Log-log slopes on the chain\n\nLeast-squares slope of log(cost) against log(N) over the sizes listed (1: linear, 2: " ..
  "quadratic); the N ≥ 16 column is the asymptotic regime, where the generated code leaves the first-level caches. " ..
  "Instructions (valgrind --tool=callgrind) are deterministic; times are medians on a shared machine.\n\n" ..
  table.concat(S, "\n") .. "\n\n" ..
  "## Achieved operations per cycle of the generated functions\n\nEach cell: operations per cycle / instructions per cycle. " ..
  "Operations = additions, multiplications and divisions of the generated code as the generator counts them " ..
  "(sym.emit_c count; calls such as sin and cos not included); cycles = measured median ns × " .. clock_note .. ". " ..
  "This virtual machine has no hardware counters (`perf stat -e cycles` reports <not supported>). " ..
"Instructions: callgrind counts of the same call. Chain columns from dyn_chain's run (forward-dynamics derivatives from " ..
  "peers_mujoco's), other models from the run that timed them.\n\n" .. table.concat(O, "\n") .. "\n\n" ..
  "## Plots\n\n" .. (#written > 0 and ("Time and instructions per call against N, log-log (mbgen solid, peers dashed; " ..
  "in the derivatives plot dr = the inverse-dynamics Jacobian [dr/dz, dr/dzd], dFD = forward-dynamics derivatives, " ..
  "MuJoCo's being mjd_transitionFD): " ..
  table.concat((function() local t = {} for i, w in ipairs(written) do t[i] = "[" .. w .. "](" .. w .. ")" end return t end)(), ", ") .. ".\n") or "None (no chain data).\n")
H.write(RES .. "scaling.md", text)
io.write(text)
