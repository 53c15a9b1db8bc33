-- models_cost.lua: what each model in models/ costs to generate and compile (all functions), and its size;
-- results in tests/bench/results/models_cost.md.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/models_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
root = H.root
package.path = root .. "tests/bench/?.lua;" .. package.path
local P = require "parallel"
local BD = require "bench_data"

local dir = root .. "build/bench/models_cost"
H.mkdir(dir)
H.mkdir(root .. "tests/bench/results")
-- MODELS="chain tree" measures those only.
local _, list = H.sh("ls '" .. root .. "models'/*.lua")
local only = os.getenv("MODELS")
local names, gens = {}, {}
for path in list:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.lua$")
  if not only or (" " .. only .. " "):find(" " .. name .. " ", 1, true) then
    names[#names + 1] = name
    gens[#gens + 1] = string.format("lua5.4 '%sgenerator/mbgen' generate '%s' -o '%s'", root, path, dir)
  end
end
-- Every step is one process on one core; they run one per core at a time, each timed by its wall clock.
local gen = P.all(H, gens, dir .. "/jobs-generate")
local builds, weights, rows = {}, {}, {}
for k, name in ipairs(names) do
  local c, h = H.read(dir .. "/" .. name .. ".c"), H.read(dir .. "/" .. name .. ".h")
  local a, m, d = c:match("all functions: (%d+) additions, (%d+) multiplications, (%d+) divisions")
  rows[k] = { name = name, gen = gen[k], kb = #c // 1024, ops = a + m + d,
    nz = h:match("#define " .. name .. "_NZ (%d+)"), nc = h:match("#define " .. name .. "_NC (%d+)") }
  builds[k] = string.format("gcc -std=c99 -O1 -I'%sruntime' -c '%s/%s.c' -o '%s/%s.o'", root, dir, name, dir, name)
  weights[k] = #c
end
local cc = P.all(H, builds, dir .. "/jobs-compile", weights)
local L = { "| model | nz | nc | operations | C KiB | generate s | gcc -O1 s |", "|---|---|---|---|---|---|---|" }
for k, x in ipairs(rows) do
  L[#L + 1] = string.format("| %s | %s | %s | %d | %d | %.1f | %.1f |", x.name, x.nz, x.nc, x.ops, x.kb, x.gen, cc[k])
end
local text = "# Generation and compilation cost of every model\n\nMachine: " .. BD.machine(H) .. ", gcc 12; one run of " ..
  "`make bench` on " .. os.date("!%Y-%m-%d") .. ". All functions of each model at its default settings, one C file; " ..
  "wall seconds of `mbgen generate` and of `gcc -O1 -c` (the default of `mbgen run`), each a single process on one " ..
  "core (they run one per core at a time, which made some big compiles up to 1.4 times slower than alone). -O2 " ..
  "took 1.5–1.8 times as long on the models over 200 KiB (this benchmark's earlier version, same machine, " ..
  "2026-11-23); dyn_chain.md times -O2 on the chain.\n\n" .. table.concat(L, "\n") .. "\n"
H.write(root .. "tests/bench/results/models_cost.md", text)
io.write(text)
