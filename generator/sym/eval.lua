-- sym/eval.lua: numeric evaluation of expressions in Lua, in the same operation order as the emitted C.
local E = require "sym.expr"

local L = {}

local sin, cos, tan, sqrt, exp, log, abs, atan = math.sin, math.cos, math.tan, math.sqrt, math.exp,
  math.log, math.abs, math.atan
local tanh = E.lua_tanh

-- Sums and products run left to right over the operands and powers are repeated products, exactly as
-- sym.emit_c prints them, so a correct C build agrees to the last bit except inside tanh.
local ops = {
  add = function(n, v)
    local a = n.args
    local s = v[a[1]]
    for i = 2, #a do s = s + v[a[i]] end
    return s
  end,
  mul = function(n, v)
    local a = n.args
    local s = v[a[1]]
    for i = 2, #a do s = s * v[a[i]] end
    return s
  end,
  div = function(n, v) return v[n.args[1]] / v[n.args[2]] end,
  neg = function(n, v) return -v[n.args[1]] end,
  pow = function(n, v)
    local x, k = v[n.args[1]], n.k
    local p = x
    for _ = 2, math.abs(k) do p = p * x end
    if k < 0 then return 1.0 / p end
    return p
  end,
  sin = function(n, v) return sin(v[n.args[1]]) end,
  cos = function(n, v) return cos(v[n.args[1]]) end,
  tan = function(n, v) return tan(v[n.args[1]]) end,
  sqrt = function(n, v) return sqrt(v[n.args[1]]) end,
  exp = function(n, v) return exp(v[n.args[1]]) end,
  log = function(n, v) return log(v[n.args[1]]) end,
  abs = function(n, v) return abs(v[n.args[1]]) end,
  tanh = function(n, v) return tanh(v[n.args[1]]) end,
  atan2 = function(n, v) return atan(v[n.args[1]], v[n.args[2]]) end,
  min = function(n, v)
    local a, b = v[n.args[1]], v[n.args[2]]
    if a <= b then return a end
    return b
  end,
  max = function(n, v)
    local a, b = v[n.args[1]], v[n.args[2]]
    if a >= b then return a end
    return b
  end,
  label = function(n, v) return v[n.args[1]] end,
  select = function(n, v)
    if v[n.args[1]] > 0 then return v[n.args[2]] end
    return v[n.args[3]]
  end,
}

local function input(n, env)
  if n.array == "t" then
    local t = env.t
    if type(t) ~= "number" then error("sym.eval: env.t is not set", 4) end
    return t
  end
  local arr = env[n.array]
  local x = arr and arr[n.index + 1]
  if type(x) ~= "number" then
    error(string.format("sym.eval: env.%s[%d] (C index %d) is not set", n.array, n.index + 1, n.index), 4)
  end
  return x
end

-- Values of exprs (a list of nodes or numbers, or one node) with env = { t =, z = {...}, ... } holding
-- 1-based Lua arrays: symbol z[i] reads env.z[i + 1]. Returns a list of numbers, or one number.
function L.eval(exprs, env)
  local single = E.is_node(exprs) or type(exprs) == "number"
  local list = single and { exprs } or exprs
  local roots = {}
  for i = 1, #list do roots[i] = E.lift(list[i]) end
  local v = {}
  local order = E.topo(roots)
  for k = 1, #order do
    local n = order[k]
    local op = n.op
    if op == "const" then v[n] = n.value
    elseif op == "sym" then v[n] = input(n, env)
    elseif op == "data" then v[n] = n.value
    else v[n] = ops[op](n, v) end
  end
  local out = {}
  for i = 1, #roots do out[i] = v[roots[i]] end
  if single then return out[1] end
  return out
end

return L
