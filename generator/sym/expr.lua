-- sym/expr.lua: expression nodes, hash-consed and simplified at construction, with operator overloading.
local E = {}

local Node = {}
Node.__index = Node
Node.__name = "sym.node"

-- Weak values: a node nobody holds may go, and a later identical construction makes a fresh one. Identity
-- (the key) is rebuilt the same way, and operand order uses structural hashes, so the output of a
-- deterministic construction never depends on when the collector ran.
local intern = setmetatable({}, { __mode = "v" })
local serial = 0

-- Sums and products flatten only up to this many operands: flattening s = s + x in a loop would otherwise
-- copy O(n^2) operands. Past the cap the nested node stays as one operand; the first factor always
-- flattens, so neg(c*x) -> (-c)*x cannot bounce back to a neg.
local FLATTEN_CAP = 16

-- A nested sum is flattened only when its operands are all leaves. Flattening a sum of computed terms
-- copies its additions into every sum that uses it while the nested node is still emitted for its other
-- uses: the recursion F_k = f_k + F_child would then cost O(depth) additions per body instead of one
-- (measured on chain N = 24: 18,948 instead of 11,564 operations for the inverse dynamics).
local function leaf_sum(x)
  local xa = x.args
  for j = 1, #xa do
    if xa[j].args then return false end
  end
  return true
end

local ARRAYS = { t = 1, z = 2, zd = 3, zdd = 4, u = 5, p = 6, w = 7 }

local tointeger = math.tointeger
local spack, sunpack = string.pack, string.unpack
local concat, sort = table.concat, table.sort

-- 64-bit FNV-style mixing; Lua integer arithmetic wraps, which is what a hash wants.
local function mix(h, x)
  h = (h ~ x) * 1099511628211
  return h ~ (h >> 29)
end

local function str_hash(s)
  local h = 1469598103934665603
  for i = 1, #s do h = mix(h, s:byte(i)) end
  return h
end

local OPH = setmetatable({}, { __index = function(t, op) local h = str_hash(op); t[op] = h; return h end })

-- Two hashes per node: h covers the whole expression, s only its shape (every constant hashes alike), so
-- that a model whose numbers change but not its structure orders its operands, and so schedules and names
-- its generated temporaries, exactly as before: the diff of the generated C shows the numbers alone.
local function make(key, op, args, value)
  local n = intern[key]
  if n then return n end
  local h, mask = OPH[op], 0
  local s = h
  if args then
    for i = 1, #args do
      local a = args[i]
      h = mix(h, a.h)
      s = mix(s, a.s)
      mask = mask | a.mask
    end
  end
  serial = serial + 1
  n = setmetatable({ op = op, args = args, value = value, id = serial, key = key, h = h, s = s, mask = mask }, Node)
  intern[key] = n
  return n
end

-- Canonical operand order of commutative operations: constant operands (model data, mask 0) first, so that
-- the compiler, which folds them, sees them as one constant (c*m*l*x is ((c*m)*l)*x); then by shape, then
-- by the full hash (so it does not depend on which of two inputs was created first), the serial only
-- breaking (astronomically rare) hash ties.
local function before(x, y)
  local cx, cy = x.mask == 0, y.mask == 0
  if cx ~= cy then return cx end
  if x.s ~= y.s then return x.s < y.s end
  if x.h ~= y.h then return x.h < y.h end
  return x.id < y.id
end

local function is_node(x) return getmetatable(x) == Node end
E.is_node = is_node

local function const(v)
  if type(v) ~= "number" then error("sym.const: number expected, got " .. type(v), 2) end
  v = v + 0.0
  if v == 0 then v = 0.0 end -- -0 and 0 are one node
  local key = spack("<d", v)
  local n = intern[key]
  if n then return n end
  n = make(key, "const", nil, v)
  n.h = mix(OPH.const, (sunpack("<i8", key)))
  n.s = OPH.const
  return n
end
E.const = const

local ZERO, ONE = const(0), const(1)
E.zero, E.one = ZERO, ONE

local function lift(x)
  if getmetatable(x) == Node then return x end
  if type(x) == "number" then return const(x) end
  error("sym: number or node expected, got " .. type(x), 3)
end
E.lift = lift

function E.is_const(x)
  return type(x) == "number" or (getmetatable(x) == Node and x.op == "const")
end

function E.const_value(x)
  if type(x) == "number" then return x end
  if getmetatable(x) == Node and x.op == "const" then return x.value end
  return nil
end

function E.is_zero(x)
  if type(x) == "number" then return x == 0 end
  return x == ZERO
end

function E.symbol(array, index, name)
  local code = ARRAYS[array]
  if not code then error("sym.symbol: unknown input array " .. tostring(array), 2) end
  if array == "t" then
    index = nil
  elseif not (tointeger(index) and index >= 0) then
    error("sym.symbol: " .. array .. " needs a 0-based integer index, got " .. tostring(index), 2)
  else
    index = tointeger(index)
  end
  local key = "sym " .. array .. " " .. (index or "")
  local n = intern[key]
  if n then return n end
  n = make(key, "sym", nil, nil)
  n.array, n.index, n.name = array, index, name
  local h = mix(mix(OPH.sym, code), index or -1)
  n.h, n.s = h, h
  -- One of 62 bits per symbol: a node whose mask misses a symbol's bit cannot depend on it, which lets
  -- differentiation skip independent subgraphs without visiting them.
  n.mask = 1 << ((code * 40503 + (index or 0) * 2654435761) % 62)
  return n
end

-- A number of the model kept by name: a leaf printed as `text` (a member of the generated file's table
-- of data), which the compiler folds like a literal. It depends on no run-time input (mask 0), so its
-- derivatives are zero, and its shape leaves the value out, so another value changes nothing but its line.
function E.data(text, value)
  if type(value) ~= "number" then error("sym.data: number expected, got " .. type(value), 2) end
  local v = value + 0.0
  local vkey = spack("<d", v)
  local key = "data " .. text .. " " .. vkey
  local n = intern[key]
  if n then return n end
  n = make(key, "data", nil, v)
  n.text = text
  -- Its value is left out of both hashes: in one model a name has one value, and the operand order (which the
  -- full hash breaks ties of) must not depend on it, so that another value changes its line and nothing else
  -- (run/fingerprint.lua, tests/gen_data_patch.t).
  n.s = mix(OPH.data, str_hash(text))
  n.h = n.s
  return n
end

local function key_of(op, args)
  local ids = {}
  for i = 1, #args do ids[i] = args[i].id end
  return op .. " " .. concat(ids, " ")
end

local neg, mul_list

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end

-- Sum of a list. Flattens nested sums, folds the constants, and collects like terms c*x so that x - x
-- and 2*x - x*2 vanish.
local function add_list(list)
  local terms, c = {}, 0.0
  for i = 1, #list do
    local x = lift(list[i])
    if x.op == "const" then
      c = c + x.value
    elseif x.op == "add" and #terms + #x.args <= FLATTEN_CAP and leaf_sum(x) then
      local xa = x.args
      for j = 1, #xa do
        local y = xa[j]
        if y.op == "const" then c = c + y.value else terms[#terms + 1] = y end
      end
    else
      terms[#terms + 1] = x
    end
  end
  -- Group terms by their non-constant factor; the group key is that factor's intern key, computed without
  -- building the factor.
  local groups, order, merged = {}, {}, false
  for i = 1, #terms do
    local t = terms[i]
    local coef, gkey, base, rest, dcoef = 1.0, nil, nil, nil, nil
    local ta = t.args
    -- A product whose leading factors are model data (sorted first) has a constant coefficient too:
    -- m1*x + m2*x is (m1 + m2)*x, which the compiler folds to one constant times x.
    local nd, sign = 0, 1.0
    if t.op == "neg" and t.args[1].op == "mul" then
      ta, sign = t.args[1].args, -1.0
    end
    if (t.op == "mul" or sign < 0) and t.mask ~= 0 then
      local j = ta[1].op == "const" and 2 or 1
      while ta[j + nd].mask == 0 do nd = nd + 1 end
    end
    if nd == 0 then ta = t.args end
    if nd > 0 then
      local j = ta[1].op == "const" and 2 or 1
      local cf, ids = {}, {}
      coef = sign * (j == 2 and ta[1].value or 1.0)
      for q = j, j + nd - 1 do cf[#cf + 1] = ta[q] end
      dcoef = #cf == 1 and cf[1] or make(key_of("mul", cf), "mul", cf)
      rest = {}
      for q = j + nd, #ta do rest[#rest + 1] = ta[q]; ids[#ids + 1] = ta[q].id end
      if #rest == 1 then base, rest, gkey = rest[1], nil, rest[1].key else gkey = "mul " .. concat(ids, " ") end
    elseif t.op == "neg" then
      coef, base = -1.0, ta[1]
      gkey = base.key
    elseif t.op == "mul" and ta[1].op == "const" then
      coef = ta[1].value
      if #ta == 2 then
        base = ta[2]
        gkey = base.key
      else
        rest = {}
        local ids = {}
        for j = 2, #ta do rest[j - 1] = ta[j]; ids[j - 1] = ta[j].id end
        gkey = "mul " .. concat(ids, " ")
      end
    else
      base, gkey = t, t.key
    end
    local g = groups[gkey]
    local cnode = dcoef and (coef == 1 and dcoef or mul_list({ coef, dcoef })) or nil
    if g then
      g.coef = g.coef + coef
      g.count = g.count + 1
      g.cnodes[#g.cnodes + 1] = cnode or const(coef)
      g.data = g.data or dcoef ~= nil
      merged = true
    else
      g = { coef = coef, count = 1, term = t, base = base, rest = rest, cnodes = { cnode or const(coef) },
        data = dcoef ~= nil }
      groups[gkey] = g
      order[#order + 1] = g
    end
  end
  if merged then
    terms = {}
    for i = 1, #order do
      local g = order[i]
      if g.count == 1 then
        terms[#terms + 1] = g.term
      elseif g.data or g.coef ~= 0 then
        local base = g.base or mul_list(g.rest)
        local t = mul_list({ g.data and add_list(g.cnodes) or const(g.coef), base })
        if t.op == "add" then -- a product that folded into a sum cannot happen; keep it safe anyway
          for _, y in ipairs(t.args) do terms[#terms + 1] = y end
        elseif t.op == "const" then
          c = c + t.value
        else
          terms[#terms + 1] = t
        end
      end
    end
  end
  if #terms == 0 then return const(c) end
  if #terms == 1 and c == 0 then return terms[1] end
  sort(terms, before)
  if c ~= 0 then table.insert(terms, 1, const(c)) end
  return make(key_of("add", terms), "add", terms)
end

-- Product of a list. Flattens, folds constants, pulls negations out, and a literal zero factor makes the
-- whole product the zero node.
mul_list = function(list)
  local factors, c = {}, 1.0
  local function take(x)
    if x.op == "const" then
      c = c * x.value
    elseif x.op == "neg" then
      c = -c
      take(x.args[1])
    elseif x.op == "mul" and (#factors == 0 or #factors + #x.args <= FLATTEN_CAP) then
      local xa = x.args
      for j = 1, #xa do take(xa[j]) end
    else
      factors[#factors + 1] = x
    end
  end
  for i = 1, #list do take(lift(list[i])) end
  if c == 0 then return ZERO end
  if #factors == 0 then return const(c) end
  sort(factors, before)
  if c == -1 then
    local m = #factors == 1 and factors[1] or make(key_of("mul", factors), "mul", factors)
    return neg(m)
  end
  if c ~= 1 then table.insert(factors, 1, const(c)) end
  if #factors == 1 then return factors[1] end
  return make(key_of("mul", factors), "mul", factors)
end

neg = function(x)
  x = lift(x)
  local op = x.op
  if op == "const" then return const(-x.value) end
  if op == "neg" then return x.args[1] end
  if op == "mul" and x.args[1].op == "const" then return mul_list({ -1, x }) end
  return make("neg " .. x.id, "neg", { x })
end

function E.add(a, b) return add_list({ a, b }) end
function E.sub(a, b) return add_list({ a, neg(b) }) end
function E.mul(a, b) return mul_list({ a, b }) end
E.neg = neg
E.sum = add_list
E.product = mul_list

-- A value with a name from its provenance (a body's, joint's or coordinate's quantity, `zdd_neck`): the identity
-- on its argument, but a barrier to shapes. Its shape is its name's, so the shapes of everything computed from
-- it, and with them the operand order and the names of their temporaries, stay the same whatever the argument
-- becomes: an element added upstream changes the lines that define the label and not the ones that read it.
-- Leaves and expressions of model data only need no name (they print as themselves or fold).
function E.label(x, text)
  x = lift(x)
  if type(text) ~= "string" or text == "" then error("sym.label: a name is expected", 2) end
  if not x.args or x.mask == 0 then return x end
  if x.op == "label" and x.text == text then return x end
  local key = "label " .. text .. " " .. x.id
  local n = intern[key]
  if n then return n end
  n = make(key, "label", { x })
  n.text = text
  n.s = mix(OPH.label, str_hash(text))
  n.h = mix(n.s, x.h)
  return n
end

local function is_pow2(v)
  return v ~= 0 and finite(v) and string.format("%a", v):find("^%-?0x1p") ~= nil
end

function E.div(a, b)
  a, b = lift(a), lift(b)
  if b.op == "const" then
    local v = b.value
    if v == 1 then return a end
    if v == -1 then return neg(a) end
    if a.op == "const" and v ~= 0 then
      local r = a.value / v
      if finite(r) then return const(r) end
    end
    -- Multiplying by the reciprocal is exact only for powers of two.
    if is_pow2(v) then return mul_list({ 1 / v, a }) end
  end
  if a == ZERO then return ZERO end
  if a.op == "neg" then return neg(E.div(a.args[1], b)) end
  if b.op == "neg" then return neg(E.div(a, b.args[1])) end
  return make("div " .. a.id .. " " .. b.id, "div", { a, b })
end

function E.pow(a, k)
  local ki = tointeger(k)
  if ki == nil then error("sym: ^ takes an integer exponent, got " .. tostring(k), 2) end
  a = lift(a)
  if ki == 0 then return ONE end
  if ki == 1 then return a end
  if a.op == "const" then
    local r = a.value ^ ki
    if finite(r) then return const(r) end
  end
  if a == ZERO and ki > 0 then return ZERO end
  if a.op == "pow" then return E.pow(a.args[1], a.k * ki) end
  if a.op == "neg" then
    local p = E.pow(a.args[1], ki)
    return ki % 2 == 0 and p or neg(p)
  end
  local n = make("pow " .. a.id .. " " .. ki, "pow", { a, const(ki) })
  n.k = ki
  n.s = mix(mix(OPH.pow, a.s), ki) -- the exponent is part of the shape
  return n
end

local function unary(op, fold, odd, even)
  return function(x)
    x = lift(x)
    if x.op == "const" then
      local r = fold(x.value)
      if finite(r) then return const(r) end
    end
    if x.op == "neg" then
      if odd then return neg(E[op](x.args[1])) end
      if even then return E[op](x.args[1]) end
    end
    return make(op .. " " .. x.id, op, { x })
  end
end

local function lua_tanh(x)
  -- Lua has no math.tanh; this is also the evaluator's, see sym/eval.lua.
  local ax = math.abs(x)
  local r
  if ax < 1 then
    local x2, term, s = ax * ax, ax, ax
    for k = 1, 12 do
      term = term * x2 / ((2 * k) * (2 * k + 1))
      s = s + term
    end
    r = s / math.sqrt(1 + s * s)
  else
    r = 1 - 2 / (math.exp(2 * ax) + 1)
  end
  return x < 0 and -r or r
end
E.lua_tanh = lua_tanh

E.sin = unary("sin", math.sin, true)
E.cos = unary("cos", math.cos, false, true)
E.tan = unary("tan", math.tan, true)
E.sqrt = unary("sqrt", math.sqrt)
E.exp = unary("exp", math.exp)
E.log = unary("log", math.log)
E.tanh = unary("tanh", lua_tanh, true)
local abs_plain = unary("abs", math.abs, false, true)
function E.abs(x)
  x = lift(x)
  if x.op == "abs" then return x end
  return abs_plain(x)
end

function E.atan2(y, x)
  y, x = lift(y), lift(x)
  if y.op == "const" and x.op == "const" then return const(math.atan(y.value, x.value)) end
  return make("atan2 " .. y.id .. " " .. x.id, "atan2", { y, x })
end

-- min and max keep their operand order: at a tie they return the first operand, and their one-sided
-- derivative follows it (as MB_MIN / MB_MAX do).
function E.min(a, b)
  a, b = lift(a), lift(b)
  if a.op == "const" and b.op == "const" then return a.value <= b.value and a or b end
  if a == b then return a end
  return make("min " .. a.id .. " " .. b.id, "min", { a, b })
end

function E.max(a, b)
  a, b = lift(a), lift(b)
  if a.op == "const" and b.op == "const" then return a.value >= b.value and a or b end
  if a == b then return a end
  return make("max " .. a.id .. " " .. b.id, "max", { a, b })
end

function E.select(c, a, b)
  c, a, b = lift(c), lift(a), lift(b)
  if c.op == "const" then return c.value > 0 and a or b end
  if a == b then return a end
  return make("select " .. c.id .. " " .. a.id .. " " .. b.id, "select", { c, a, b })
end

Node.__add = E.add
Node.__sub = E.sub
Node.__mul = E.mul
Node.__div = E.div
Node.__unm = function(x) return neg(x) end
Node.__pow = function(a, k)
  if is_node(k) then
    local v = k.op == "const" and k.value
    if not v then error("sym: ^ takes an integer exponent, not an expression", 2) end
    k = v
  end
  return E.pow(a, k)
end

-- Post-order (arguments before users) of every node reachable from roots: a list of nodes, or one node.
-- Iterative, since unrolled recursions make DAGs far deeper than Lua's call stack; the order follows the
-- roots and each node's argument order only, never table iteration.
-- `seen` (optional, updated) lets a caller take the new nodes of one root after another.
function E.topo(roots, seen)
  if is_node(roots) then roots = { roots } end
  seen = seen or {}
  local order = {}
  local stack, pos = {}, {}
  for r = 1, #roots do
    local root = roots[r]
    if is_node(root) and not seen[root] then
      seen[root] = true
      local sp = 1
      stack[1], pos[1] = root, 1
      while sp > 0 do
        local n = stack[sp]
        local args = n.args
        local i = pos[sp]
        if args and i <= #args then
          pos[sp] = i + 1
          local a = args[i]
          if not seen[a] then
            seen[a] = true
            sp = sp + 1
            stack[sp], pos[sp] = a, 1
          end
        else
          order[#order + 1] = n
          stack[sp] = nil
          sp = sp - 1
        end
      end
    end
  end
  return order
end

-- Rebuilders of each operation from new arguments (unary functions: E[op]).
local REBUILD = {
  add = function(_, a) return add_list(a) end,
  mul = function(_, a) return mul_list(a) end,
  div = function(_, a) return E.div(a[1], a[2]) end,
  neg = function(_, a) return neg(a[1]) end,
  pow = function(n, a) return E.pow(a[1], n.k) end,
  atan2 = function(_, a) return E.atan2(a[1], a[2]) end,
  min = function(_, a) return E.min(a[1], a[2]) end,
  max = function(_, a) return E.max(a[1], a[2]) end,
  select = function(_, a) return E.select(a[1], a[2], a[3]) end,
  label = function(n, a) return E.label(a[1], n.text) end,
}

-- The expressions `roots` (a node or a list) with the nodes that are keys of `map` replaced by its values,
-- rebuilt through the constructors so that they fold and share as if written directly. Returns a list.
function E.substitute(roots, map)
  if is_node(roots) or type(roots) == "number" then roots = { roots } end
  local lifted = {}
  for i, r in ipairs(roots) do lifted[i] = lift(r) end
  local new = {}
  for _, n in ipairs(E.topo(lifted)) do
    if map[n] ~= nil then
      new[n] = lift(map[n])
    elseif not n.args then
      new[n] = n
    else
      local a, changed = {}, false
      for i, x in ipairs(n.args) do
        a[i] = new[x]
        changed = changed or a[i] ~= x
      end
      if changed then new[n] = (REBUILD[n.op] or function(_, b) return E[n.op](b[1]) end)(n, a) else new[n] = n end
    end
  end
  local out = {}
  for i, r in ipairs(lifted) do out[i] = new[r] end
  return out
end

-- Number of distinct nodes reachable from roots.
function E.count_nodes(roots) return #E.topo(roots) end

-- Nodes created so far (a serial, not the live count).
function E.serial() return serial end

local PREC = { add = 1, neg = 3, mul = 2, div = 2 }

-- A readable infix form, for messages and debugging only (the emitter has its own printer).
function E.tostring(n, depth)
  depth = depth or 12
  if not is_node(n) then return tostring(n) end
  local op = n.op
  if op == "const" then return string.format("%.17g", n.value) end
  if op == "sym" then return n.array == "t" and "t" or (n.array .. "[" .. n.index .. "]") end
  if op == "data" then return n.text end
  if op == "label" then return n.text end
  if depth <= 0 then return "..." end
  local function sub(x, p)
    local s = E.tostring(x, depth - 1)
    if (PREC[x.op] or 4) < p then s = "(" .. s .. ")" end
    return s
  end
  local a = n.args
  if op == "add" then
    local parts = { sub(a[1], 1) }
    for i = 2, #a do
      if a[i].op == "neg" then parts[#parts + 1] = " - " .. sub(a[i].args[1], 2)
      else parts[#parts + 1] = " + " .. sub(a[i], 2) end
    end
    return concat(parts)
  elseif op == "mul" then
    local parts = { sub(a[1], 2) }
    for i = 2, #a do parts[#parts + 1] = "*" .. sub(a[i], 3) end
    return concat(parts)
  elseif op == "div" then return sub(a[1], 2) .. "/" .. sub(a[2], 3)
  elseif op == "neg" then return "-" .. sub(a[1], 3)
  elseif op == "pow" then return sub(a[1], 4) .. "^" .. n.k end
  local parts = {}
  for i = 1, #a do parts[i] = E.tostring(a[i], depth - 1) end
  return op .. "(" .. concat(parts, ", ") .. ")"
end
Node.__tostring = function(n) return E.tostring(n) end

return E
