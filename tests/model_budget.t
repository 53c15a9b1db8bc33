#!/usr/bin/env lua5.4
-- model_budget.t: model code runs under an instruction and a memory budget: a loop that never ends, a string
-- or table that grows without end and deep recursion stop with FILE:LINE, exit status 2 and no file written,
-- in the model file, in a library it uses and in a model function; the flags raise the budgets.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local budget = require "model.budget"

local dir = H.root .. "build/tmp/model_budget"
H.sh("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "/lib'")
local REL = "build/tmp/model_budget/"

-- A valid one-body model, then the statements of the case.
local HEAD = 'model "m"\nbody "b" { mass = 1 }\nrevolute "j" { parent = "ground", child = "b" }\n'
H.write(dir .. "/lib/spin.lua", "-- a library that never returns\nlocal n = 0\nwhile true do n = n + 1 end\n")

local INSTR = "model did not finish within %d instructions"
local MEM = "model used more than %d MB of memory"
local cases = {
  -- name, statements after HEAD, flags, file:line expected (relative to the repository), message pattern
  { "hang", "local n = 0\nwhile true do n = n + 1 end\n", "", "hang.lua:5", INSTR:format(budget.DEFAULT_INSTRUCTIONS) },
  { "string_growth", 'local s = "x"\nfor i = 1, 100 do s = s .. s end\n', "", "string_growth.lua:5",
    MEM:format(budget.DEFAULT_MEMORY_MB) },
  { "table_growth", "local t = {}\nlocal i = 0\nwhile true do i = i + 1; t[i] = { i } end\n", "", "table_growth.lua:6",
    MEM:format(budget.DEFAULT_MEMORY_MB) },
  { "recursion", "local function f(n) return 1 + f(n + 1) end\nbody \"c\" { mass = f(1) }\n", "", "recursion.lua:4",
    "stack overflow" },
  { "rep", 'local s = string.rep("ab", 2^40)\n', "", "rep.lua:4", MEM:format(budget.DEFAULT_MEMORY_MB) },
  { "rep_method", 'local s = ("ab"):rep(2^36)\n', "", "rep_method.lua:4", MEM:format(budget.DEFAULT_MEMORY_MB) },
  { "move", "local t = table.move({ 1 }, 1, 2^40, 1, {})\n", "", "move.lua:4", MEM:format(budget.DEFAULT_MEMORY_MB) },
  { "library", 'use "spin"\n', "--max-instructions 1000000", "lib/spin.lua:3", INSTR:format(1000000) },
  { "function", 'torque "t" { joint = "j", value = function(t, s)\n  while true do end\nend }\n', "--max-instructions 1000000",
    "function.lua:5", INSTR:format(1000000) },
  { "small_memory", 'local t = {}\nfor i = 1, 1e6 do t[i] = i end\n', "--max-memory 4", "small_memory.lua:5", MEM:format(4) },
  -- Lua's allocation failure skips every message handler and arrives as the bare string "not enough memory";
  -- a model function that raises that string stands in for one (a real one needs the machine's memory).
  { "allocation_failure", 'torque "t" { joint = "j", value = function(t, s) error("not enough memory", 0) end }\n', "",
    "allocation_failure.lua:4", "model ran out of memory (not enough memory below the --max-memory budget of 128 MB)" },
}

for _, c in ipairs(cases) do
  local name, body, flags, where, message = c[1], c[2], c[3], c[4], c[5]
  H.write(dir .. "/" .. name .. ".lua", HEAD .. body)
  local out = dir .. "/out_" .. name
  local t0 = H.now()
  local ok, text, code = H.sh(string.format("cd %s && timeout 120 lua5.4 generator/mbgen generate %s%s.lua -o %s %s", H.root, REL,
    name, out, flags))
  local secs = H.now() - t0
  local want = REL .. where .. ": "
  tap.ok(not ok and code == 2, string.format("%s: exit status 2 (got %s, %.1f s)", name, tostring(code), secs))
  tap.is(text:sub(1, #want), want, name .. ": the message starts with FILE:LINE")
  tap.ok(text:find(message, 1, true) and not text:find("traceback", 1, true), name .. ": says " .. message)
  tap.ok(H.read(out .. "/m.c") == nil and H.read(out .. "/m.md") == nil, name .. ": writes nothing")
end

-- A finite loop that needs more than the budget runs when the flag raises it; the default is ample.
H.write(dir .. "/long.lua", HEAD .. "local n = 0\nfor i = 1, 200000 do n = n + i end\n")
local ok, text = H.sh(string.format("cd %s && lua5.4 generator/mbgen info %slong.lua --no-functions --max-instructions 100000", H.root, REL))
tap.ok(not ok and text:find("long.lua:5: " .. INSTR:format(100000), 1, true), "200000 turns do not fit in 100000 instructions")
ok = H.sh(string.format("cd %s && lua5.4 generator/mbgen info %slong.lua --no-functions --max-instructions 10000000", H.root, REL))
tap.ok(ok, "--max-instructions 10000000 lets them run")
ok, text = H.sh(string.format("cd %s && lua5.4 generator/mbgen info %slong.lua --max-memory 0", H.root, REL))
tap.ok(not ok and text:find("--max-memory needs a positive whole number", 1, true), "--max-memory 0 is refused")

-- The budget covers every shipped model many times over: the instructions each needs, summed over every run
-- of model code while it loads (model/budget.lua's default leaves a factor of 500 on the largest).
local worst = 0
for _, f in ipairs { "models/sedan.lua", "models/buggy.lua", "models/coach.lua", "models/fourbar_grid.lua" } do
  budget.total = 0
  require("model.topology").build(require("model.load").load(H.root .. f, {}))
  worst = math.max(worst, budget.total)
end
tap.ok(worst > 0 and worst * 500 < budget.DEFAULT_INSTRUCTIONS,
  string.format("the largest vehicle needs %d instructions, under 1/500 of the default budget", worst))
tap.done_testing()
