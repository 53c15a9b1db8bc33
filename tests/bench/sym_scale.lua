-- sym_scale.lua: times building and emitting a ~200,000-node DAG and the node growth of a forward derivative.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
package.path = root .. "generator/?.lua;" .. package.path
local E = require "sym.expr"
local D = require "sym.diff"
local C = require "sym.emit_c"

local clock = os.clock

local function random_dag(n, seed)
  math.randomseed(seed)
  local syms = {}
  for i = 1, 24 do syms[i] = E.symbol("z", i - 1) end
  local pool = {}
  for i = 1, #syms do pool[i] = syms[i] end
  for _ = 1, n do
    -- a from the recent nodes keeps almost the whole DAG reachable from the last outputs
    local a, b = pool[#pool - math.random(math.min(#pool, 40)) + 1], pool[math.random(#pool)]
    local r = math.random(5)
    local v
    if r == 1 then v = a + b elseif r == 2 then v = a * b elseif r == 3 then v = E.sin(a) + 0.5 * b
    elseif r == 4 then v = a - 1.5 * b else v = a / (2 + b * b) end
    pool[#pool + 1] = v
  end
  local outs = {}
  for i = 1, 200 do outs[i] = pool[#pool - i + 1] end
  return outs, syms
end

local t0 = clock()
local outs, syms = random_dag(220000, 1)
local t1 = clock()
local nodes = E.count_nodes(outs)
local t2 = clock()
local text = C.emit_function { name = "big", exprs = outs }
local t3 = clock()
local _, nstmt = text:gsub(";\n", "")
print(string.format("build: %d nodes reachable (%d created) in %.2f s", nodes, E.serial(), t1 - t0))
print(string.format("emit:  %d statements, %d bytes, %d parts in %.2f s", nstmt, #text,
  select(2, text:gsub("static void", "")), t3 - t2))

print("forward derivative d/dz[0] of every output, node growth:")
local prev
for _, n in ipairs { 12500, 25000, 50000 } do
  local o, s = random_dag(n, 2)
  local before = E.count_nodes(o)
  local ta = clock()
  local ds = {}
  for i = 1, #o do ds[i] = D.derivative(o[i], s[1]) end
  local tb = clock()
  local all = {}
  for i = 1, #o do all[#all + 1] = o[i]; all[#all + 1] = ds[i] end
  local after = E.count_nodes(all)
  local ratio = after / before
  print(string.format("  N = %6d: +%6d nodes, ratio %.2f%s, %.2f s", before, after - before, ratio,
    prev and string.format(" (vs %.2f at half size)", prev) or "", tb - ta))
  prev = ratio
end
