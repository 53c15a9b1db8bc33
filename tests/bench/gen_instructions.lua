-- gen_instructions.lua: instructions per call of every generated function (callgrind, gcc -O2), generated/ of this
-- checkout against generated/ of an earlier revision, BASE (default: 5d9918a, where issue 19 was filed: numbered
-- temporaries, literals, no workspace); results in tests/bench/results/gen_instructions.md. MODELS="chain tree"
-- measures those models only.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/gen_instructions_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
package.path = H.root .. "tests/bench/?.lua;" .. package.path
local P = require "parallel"
local CG = require "callgrind"

root = select(2, H.sh("cd '" .. H.root .. "' && pwd")):gsub("\n$", "") .. "/"
local BASE = os.getenv("BASE") or "5d9918a"
local REPS = 20
local dir = root .. "build/bench/gen_instructions"
H.sh("rm -rf '" .. dir .. "'")
H.mkdir(dir)
local function must(cmd)
  local ok, out = H.sh(cmd)
  if not ok then io.stderr:write(cmd, "\n", out); os.exit(1) end
  return out
end
if not CG.available(H) then
  print("gen_instructions: valgrind is not installed; nothing measured")
  os.exit(0)
end
local rev = must("git -C '" .. root .. "' describe --always --dirty"):gsub("%s+$", "")
local base_rev = must("git -C '" .. root .. "' rev-parse --short " .. BASE):gsub("%s+$", "")

-- The models of both revisions, and the earlier runtime headers its files include.
local base = dir .. "/base"
H.mkdir(base)
must(string.format("git -C '%s' archive %s generated runtime | tar -x -C '%s'", root, BASE, base))
local models = {}
local wanted = os.getenv("MODELS")
for path in must("ls '" .. root .. "generated/'"):gmatch("[^\n]+") do
  local m = path:match("^([%w_]+)%.c$")
  if m and H.read(base .. "/generated/" .. m .. ".c") and (not wanted or (" " .. wanted .. " "):find(" " .. m .. " ", 1, true)) then
    models[#models + 1] = m
  end
end

-- A driver calls every function once (the first call binds libm's symbols), then REPS times between two dumps of
-- callgrind's counters. A function's signature is read from its header: `void f(a, out)` before the workspace,
-- `int f(a, out, work)` after.
local function driver(m, header, fns)
  local L = { "#include <stdio.h>", '#include "' .. m .. '.h"', "#include <valgrind/callgrind.h>",
    "static mb_real z[64], zd[64], zdd[64], u[64], p[64], w[65536], out[1 << 17], work[1 << 17];",
    "int main(void)", "{",
    "    for (int i = 0; i < 64; i++) { z[i] = 0.1 * i + 0.3; zd[i] = 0.2 - 0.05 * i; zdd[i] = 0.1; u[i] = 0.5;"
      .. " p[i] = 1.0 + 0.01 * i; }",
    "    for (int i = 0; i < 65536; i++) w[i] = 0.01 * (i % 17);",
    "    mb_args a = { 0.1, z, zd, zdd, u, p, w };", "    (void)work;" }
  local calls = {}
  for _, f in ipairs(fns) do
    if header:find("\nint " .. f .. "%(const mb_args") then
      calls[#calls + 1] = { f, f .. "(&a, out, work)" }
    elseif header:find("\nvoid " .. f .. "%(const mb_args") then
      calls[#calls + 1] = { f, f .. "(&a, out)" }
    end
  end
  for _, c in ipairs(calls) do L[#L + 1] = "    " .. c[2] .. ";" end
  L[#L + 1] = '    CALLGRIND_DUMP_STATS_AT("warm-up");'
  for _, c in ipairs(calls) do
    L[#L + 1] = string.format('    for (int r = 0; r < %d; r++) %s; CALLGRIND_DUMP_STATS_AT("%s/%d");', REPS, c[2], c[1],
      REPS)
  end
  L[#L + 1] = '    printf("%g\\n", out[0]);'
  L[#L + 1] = "    return 0;"
  L[#L + 1] = "}"
  return table.concat(L, "\n") .. "\n"
end

local cmds, weights, jobs = {}, {}, {}
for _, m in ipairs(models) do
  local header = "\n" .. H.read(root .. "generated/" .. m .. ".h")
  local fns = {}
  for f in header:gmatch("\nint (" .. m .. "_[%w_]+)%(const mb_args") do
    if not f:match("_csc$") then fns[#fns + 1] = f end
  end
  for _, side in ipairs { "before", "after" } do
    local d = string.format("%s/%s/%s", dir, m, side)
    H.mkdir(d)
    local src = side == "before" and base .. "/generated/" or root .. "generated/"
    local inc = side == "before" and base .. "/runtime" or root .. "runtime"
    must(string.format("cp '%s%s.c' '%s%s.h' '%s/'", src, m, src, m, d))
    H.write(d .. "/main.c", driver(m, "\n" .. H.read(d .. "/" .. m .. ".h"), fns))
    cmds[#cmds + 1] = string.format("cd '%s' && gcc -std=c99 -O2 -I'%s' -I. main.c %s.c -o main -lm -Wl,-z,now"
      .. " && valgrind --tool=callgrind --callgrind-out-file=cg.out ./main > /dev/null 2> valgrind.log", d, inc, m)
    weights[#weights + 1] = #(H.read(d .. "/" .. m .. ".c") or "")
    jobs[#jobs + 1] = { m = m, side = side, dir = d, fns = fns }
  end
end
P.all(H, cmds, dir .. "/jobs", weights)

local counts = {}   -- counts[m][side][f]
for _, j in ipairs(jobs) do
  counts[j.m] = counts[j.m] or {}
  counts[j.m][j.side] = CG.read(H, j.dir)
  counts[j.m].fns = j.fns
end

-- The workspace argument and the status return (issue 19's ABI) cost two instructions a call, one in the caller
-- and one in the function: a function slower by no more than that is counted apart.
local ABI = 2.5   -- per call, the counts carry a fraction of the dumps themselves
local rows, slower_rows = {}, {}
local all_b, all_a, nall, nslower, nfaster, nabi = 0, 0, 0, 0, 0, 0
for _, m in ipairs(models) do
  local c = counts[m]
  local b_sum, a_sum, n, slower, worst = 0, 0, 0, 0, nil
  for _, f in ipairs(c.fns) do
    local b, a = c.before[f], c.after[f]
    if b and a then
      n, b_sum, a_sum = n + 1, b_sum + b, a_sum + a
      if a > b + ABI then
        slower = slower + 1
        slower_rows[#slower_rows + 1] = { f = f, b = b, a = a }
        worst = math.max(worst or 0, (a - b) / b)
      elseif a > b then
        nabi = nabi + 1
      elseif a < b then
        nfaster = nfaster + 1
      end
    end
  end
  nall, all_b, all_a, nslower = nall + n, all_b + b_sum, all_a + a_sum, nslower + slower
  rows[#rows + 1] = string.format("| %s | %d | %.0f | %.0f | %+.1f %% | %d | %s |", m, n, b_sum, a_sum,
    100 * (a_sum - b_sum) / math.max(b_sum, 1), slower, worst and string.format("%+.1f %%", 100 * worst) or "")
end
table.sort(slower_rows, function(x, y) return (x.a - x.b) / x.b > (y.a - y.b) / y.b end)

local L = { "# Instructions per call of every generated function, before and after", "",
  string.format("Before: `generated/` at %s (`BASE`, with the runtime headers of that revision); after: %s. Each model's", base_rev, rev),
  "functions are called once, then " .. REPS .. " times each between two dumps of callgrind's counters (`gcc -O2`, libm",
  "bound at load time); a call's count includes the libm calls it makes. Functions the earlier revision did not",
  "have are not listed. Machine-independent: instruction counts do not depend on the load.", "",
  string.format("%d functions: %.0f → %.0f instructions (%+.1f %%); %d faster, %d the same, %d slower by at most the",
    nall, all_b, all_a, 100 * (all_a - all_b) / math.max(all_b, 1), nfaster, nall - nfaster - nslower - nabi, nabi),
  string.format("two instructions of the workspace argument and the status return, %d slower by more.", nslower), "",
  "| model | functions | before | after | change | slower by more than 2 | the largest such increase |",
  "|---|--:|--:|--:|--:|--:|--:|" }
for _, r in ipairs(rows) do L[#L + 1] = r end
L[#L + 1] = ""
L[#L + 1] = "Every function slower than before by more than 2 instructions, the largest increase first:"
L[#L + 1] = ""
L[#L + 1] = "| function | before | after | change |"
L[#L + 1] = "|---|--:|--:|--:|"
for _, s in ipairs(slower_rows) do
  L[#L + 1] = string.format("| %s | %.0f | %.0f | %+.0f (%+.1f %%) |", s.f, s.b, s.a, s.a - s.b, 100 * (s.a - s.b) / s.b)
end
H.mkdir(root .. "tests/bench/results")
H.write(root .. "tests/bench/results/gen_instructions.md", table.concat(L, "\n") .. "\n")
print(table.concat(L, "\n"))
