-- sens_recursive_filed.lua: issue 21's target compares the recursive kernel with "today's Jacobian DDM", the route
-- of the commit it was filed against, which the body-frame kernels and the gathering solve have made faster since.
-- This times that route itself: the generator and runtime of BASE (default 104d1c9, the last commit before the
-- body-frame kernels, whose chain N = 24 ratios the issues quote) from `git archive`, its forward_dynamics, _dz,
-- _dzd, _dp and products (tests/bench/sens_recursive_filed.c) at n = 24, p = 1 and 4, on the states of
-- tests/bench/sens_recursive.c, against today's recursive kernel and jacobian route from sens_recursive.sh's builds.
-- Each harness runs alone, three times in turn (the least of their minima), and under callgrind; before anything is
-- timed, both routes' zdd and Sdd of the first state must agree to 1e-10. Results: results/sens_recursive_filed.md.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/sens_recursive_filed.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
package.path = root .. "tests/bench/?.lua;" .. package.path
local CG = require "callgrind"
local BD = require "bench_data"

-- Absolute: the filed generator runs from inside its own tree.
root = select(2, H.sh("cd '" .. root .. "' && pwd")):gsub("\n$", "") .. "/"
local BASE = os.getenv("BASE") or "104d1c9"
local CASES = { { n = 24, p = 1 }, { n = 24, p = 4 } }
local dir = root .. "build/bench/sens_recursive_filed"
local function q(s) return "'" .. s .. "'" end
local function die(msg) io.stderr:write("sens_recursive_filed: ", msg, "\n"); os.exit(1) end

if not H.sh("cd " .. q(root) .. " && git cat-file -e " .. BASE .. "^{commit} 2>/dev/null") then
  io.stderr:write("sens_recursive_filed: commit " .. BASE .. " is not in this clone's history; skipped\n")
  os.exit(0)
end
local src = dir .. "/src-" .. BASE
if not H.read(src .. "/generator/mbgen") then
  H.sh("rm -rf " .. q(src) .. " && mkdir -p " .. q(src))
  local ok, out = H.sh(string.format("cd %s && git archive %s | tar -x -C %s", q(root), BASE, q(src)))
  if not ok then die("git archive " .. BASE .. ": " .. out) end
end

local function keyvals(text)
  local r = H.keyvals(text)
  r.check = {}
  for v in (text:match("\ncheck ([^\n]*)") or text:match("^check ([^\n]*)") or ""):gmatch("%S+") do r.check[#r.check + 1] = tonumber(v) end
  return r
end

local rows = {}
for _, c in ipairs(CASES) do
  local d = string.format("%s/n%d-p%d", dir, c.n, c.p)
  local cur = string.format("%sbuild/bench/sens_recursive/n%d-p%d", root, c.n, c.p)
  if not H.read(cur .. "/bench") then die(cur .. "/bench is missing: run tests/bench/sens_recursive.sh first") end
  -- The filed route, generated and compiled once per BASE at the same flags as today's; the harness linked each run.
  if not H.read(d .. "/chain.o") then
    H.mkdir(d)
    local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen generate models/chain.lua --set N=%d --set NDESIGN=%d "
      .. "-o %s --functions forward_dynamics,forward_dynamics_dz,forward_dynamics_dzd,forward_dynamics_dp", q(src), c.n, c.p, q(d)))
    if not ok then die("generating with " .. BASE .. ": " .. out) end
    ok, out = H.sh(string.format("gcc -std=c99 -O2 -I%s -c %s -o %s", q(src .. "/runtime"), q(d .. "/chain.c"), q(d .. "/chain.o.tmp"))
      .. " && mv " .. q(d .. "/chain.o.tmp") .. " " .. q(d .. "/chain.o"))
    if not ok then die("compiling the filed route: " .. out) end
  end
  local okl, outl = H.sh(string.format("gcc -std=c99 -O2 -I%s -I%s -I%s -DMODEL_HEADER='\"chain.h\"' -DMODEL=chain_model %s %s -lm -o %s",
    q(d), q(src .. "/runtime"), q(root .. "tests/bench"), q(root .. "tests/bench/sens_recursive_filed.c"), q(d .. "/chain.o"),
    q(d .. "/bench")))
  if not okl then die("linking the filed route's harness: " .. outl) end
  -- The guard, then three turns of both harnesses.
  local best = { filed = math.huge, rec = math.huge, jac = math.huge }
  local guard
  for turn = 1, 3 do
    local okf, outf = H.sh(q(d .. "/bench"))
    local okr, outr = H.sh(q(cur .. "/bench"))
    if not (okf and okr) then die("a harness failed: " .. outf .. outr) end
    local f, r = keyvals(outf), keyvals(outr)
    if turn == 1 then
      if #f.check ~= #r.check or #f.check ~= c.n * (1 + c.p) then die("the two routes' outputs differ in size") end
      local w = 0
      for col = 0, c.p do
        local scale, diff = 0, 0
        for i = 1, c.n do
          local a, b = f.check[col * c.n + i], r.check[col * c.n + i]
          scale, diff = math.max(scale, math.abs(a)), math.max(diff, math.abs(a - b))
        end
        w = math.max(w, diff / math.max(scale, 1e-300))
      end
      if not (w <= 1e-10) then die(string.format("GUARD FAILED: the filed route and the recursive kernel differ by %.3g", w)) end
      guard = w
    end
    best.filed, best.rec, best.jac = math.min(best.filed, f.ns_filed), math.min(best.rec, r.ns_rec), math.min(best.jac, r.ns_jac)
  end
  local ins = {}
  if CG.available(H) then
    local cf = CG.count(H, d, "./bench") or {}
    local cr = CG.count(H, cur, "./bench") or {}
    ins = { filed = cf.t_filed, rec = cr.t_rec, jac = cr.t_jac }
  end
  rows[#rows + 1] = { n = c.n, p = c.p, ns = best, ins = ins, guard = guard }
end

local function f0(x) return x and string.format("%.0f", x) or "-" end
local function ratio(a, b) return (a and b and b > 0) and string.format("%.2f", a / b) or "-" end
local L = {}
local function line(x) L[#L + 1] = x or "" end
line("# The recursive kernel against the jacobian route of issue 21's filing")
line()
line(string.format("Generated by tests/bench/sens_recursive_filed.sh on %s: %s, gcc -O2. The filed route: the generator "
  .. "and runtime of commit %s (forward_dynamics, _dz, _dzd, _dp, world-frame, a dense Cholesky solve each, and "
  .. "Sdd = Fz S + Fzd Sd + Fp as its sens_direct.c formed it); today's: tests/bench/sens_recursive.sh's builds "
  .. "(the recursive kernel forward_dynamics_sens, and the jacobian route with forward_dynamics_dy and the gathering "
  .. "solve). models/chain.lua, the states of tests/bench/sens_recursive.c; time: the least over three turns of each "
  .. "harness's minimum of 5 medians; instructions: callgrind, per evaluation.", os.date("!%Y-%m-%d"), (BD.machine(H)), BASE))
line()
line("| n | p | filed route ns | jacobian route now ns | recursive ns | filed / recursive | now / recursive | "
  .. "filed route instructions | jacobian now | recursive | filed / recursive | now / recursive | zdd, Sdd agree to |")
line("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for _, r in ipairs(rows) do
  line(string.format("| %d | %d | %s | %s | %s | **%s** | %s | %s | %s | %s | **%s** | %s | %.1e |", r.n, r.p, f0(r.ns.filed),
    f0(r.ns.jac), f0(r.ns.rec), ratio(r.ns.filed, r.ns.rec), ratio(r.ns.jac, r.ns.rec), f0(r.ins.filed), f0(r.ins.jac),
    f0(r.ins.rec), ratio(r.ins.filed, r.ins.rec), ratio(r.ins.jac, r.ins.rec), r.guard))
end
line()
line("Issue 21's target at n = 24, p = 1: the recursive kernel at least 10 times cheaper than the jacobian DDM of the "
  .. "filing, in instructions and in time (bold).")
H.write(root .. "tests/bench/results/sens_recursive_filed.md", table.concat(L, "\n") .. "\n")
io.write(table.concat(L, "\n"), "\n")
