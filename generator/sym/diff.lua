-- sym/diff.lua: derivatives on the DAG: forward (memoized per symbol), Jacobians, reverse-mode gradients.
local E = require "sym.expr"

local D = {}

local ZERO, ONE = E.zero, E.one
local sum, product, neg, div, mul, sub = E.sum, E.product, E.neg, E.div, E.mul, E.sub
local select_ = E.select

-- Forward rules: n is the node, d[i] the derivative of its i-th argument (the zero node where it does not
-- depend on the symbol). min, max, abs and select are piecewise: their derivatives are the one-sided ones,
-- taken on the branch the function itself takes (at a tie min/max take their first operand, abs(0) takes
-- +x), the same branches MB_MIN, MB_MAX, MB_ABS and MB_SELECT pick under -DMB_COMPLEX.
local fwd = {}

fwd.add = function(_, d) return sum(d) end

fwd.mul = function(n, d)
  local a, terms = n.args, {}
  for i = 1, #a do
    if d[i] ~= ZERO then
      local f = { d[i] }
      for j = 1, #a do
        if j ~= i then f[#f + 1] = a[j] end
      end
      terms[#terms + 1] = product(f)
    end
  end
  return sum(terms)
end

-- (a/b)' = (a' - (a/b) b') / b reuses the quotient node itself.
fwd.div = function(n, d)
  local b = n.args[2]
  if d[2] == ZERO then return div(d[1], b) end
  return div(sub(d[1], mul(n, d[2])), b)
end

fwd.neg = function(_, d) return neg(d[1]) end
fwd.pow = function(n, d) return product({ n.k, E.pow(n.args[1], n.k - 1), d[1] }) end
fwd.sin = function(n, d) return mul(E.cos(n.args[1]), d[1]) end
fwd.cos = function(n, d) return neg(mul(E.sin(n.args[1]), d[1])) end
fwd.tan = function(n, d) return mul(E.add(1, mul(n, n)), d[1]) end
fwd.sqrt = function(n, d) return div(d[1], mul(2, n)) end
fwd.exp = function(n, d) return mul(n, d[1]) end
fwd.log = function(n, d) return div(d[1], n.args[1]) end
fwd.tanh = function(n, d) return mul(sub(1, mul(n, n)), d[1]) end

fwd.atan2 = function(n, d)
  local y, x = n.args[1], n.args[2]
  return div(sub(mul(x, d[1]), mul(y, d[2])), E.add(mul(x, x), mul(y, y)))
end

fwd.abs = function(n, d)
  local x = n.args[1]
  return select_(neg(x), neg(d[1]), d[1])
end

fwd.min = function(n, d)
  local a, b = n.args[1], n.args[2]
  return select_(sub(a, b), d[2], d[1])
end

fwd.max = function(n, d)
  local a, b = n.args[1], n.args[2]
  return select_(sub(b, a), d[2], d[1])
end

fwd.select = function(n, d) return select_(n.args[1], d[2], d[3]) end

-- A label's derivative is labelled after it and the direction (`zdd_neck_dz_turn`), so that the derivative
-- functions keep the barriers, and the stable names, of the expressions they differentiate.
fwd.label = function(n, d, wrt) return E.label(d[1], n.text .. "_d" .. wrt) end

-- The name a symbol gives a derivative's labels.
local function direction(s)
  return s.array .. "_" .. (s.name and tostring(s.name):gsub("[^%w_]", "_") or tostring(s.index))
end

-- Per symbol: node -> derivative. Weak keys, so the memo dies with the nodes.
local memos = setmetatable({}, { __mode = "k" })

local function check_symbol(s)
  if not (E.is_node(s) and s.op == "sym") then error("sym.diff: a symbol node is expected", 3) end
end

-- d node / d s. Iterative post-order, since DAGs of unrolled recursions are deeper than the call stack;
-- a node whose dependency mask misses the symbol's bit is zero without being visited, so the work and the
-- nodes added are proportional to the part of the DAG that depends on s.
function D.derivative(root, s)
  check_symbol(s)
  root = E.lift(root)
  local smask = s.mask
  if root.mask & smask == 0 then return ZERO end
  local memo = memos[s]
  if not memo then
    memo = setmetatable({}, { __mode = "k" })
    memos[s] = memo
  end
  if memo[root] then return memo[root] end
  local wrt = direction(s)
  local stack, pos, sp = { root }, { 1 }, 1
  while sp > 0 do
    local n = stack[sp]
    local args = n.args
    if not args then
      memo[n] = (n == s) and ONE or ZERO
      stack[sp] = nil
      sp = sp - 1
    else
      local i, na = pos[sp], #args
      while i <= na do
        local a = args[i]
        if a.mask & smask ~= 0 and not memo[a] then break end
        i = i + 1
      end
      if i <= na then
        pos[sp] = i + 1
        sp = sp + 1
        stack[sp], pos[sp] = args[i], 1
      else
        local d, any = {}, false
        for j = 1, na do
          local a = args[j]
          local dj = (a.mask & smask ~= 0) and memo[a] or ZERO
          d[j] = dj
          if dj ~= ZERO then any = true end
        end
        memo[n] = any and fwd[n.op](n, d, wrt) or ZERO
        stack[sp] = nil
        sp = sp - 1
      end
    end
  end
  return memo[root]
end

-- Directional derivatives (forward mode, one sweep): for each seed (a table symbol node -> its tangent, an
-- expression; symbols not listed have tangent zero), the tangents of roots along it. The DAG is ordered once
-- for all seeds; a node whose mask misses every seeded symbol is zero without a rule, so the structural
-- zeros of the nominal expressions stay zeros and each tangent costs a bounded multiple of the nominal.
-- Returns one list per seed, in the roots' order.
function D.tangents(roots, seeds)
  local lifted = {}
  for i, r in ipairs(roots) do lifted[i] = E.lift(r) end
  local order = E.topo(lifted)
  local out = {}
  for k, seed in ipairs(seeds) do
    local want, lifted_seed = 0, {}
    for s, v in pairs(seed) do
      check_symbol(s)
      want = want | s.mask
      lifted_seed[s] = E.lift(v)
    end
    local t = {}
    for _, n in ipairs(order) do
      local v = ZERO
      if n.mask & want ~= 0 then
        local args = n.args
        if not args then
          v = lifted_seed[n] or ZERO
        else
          local d, any = {}, false
          for j = 1, #args do
            local dj = t[args[j]]
            d[j] = dj
            if dj ~= ZERO then any = true end
          end
          if any then v = fwd[n.op](n, d, "t" .. k) end
        end
      end
      t[n] = v
    end
    local list = {}
    for i, r in ipairs(lifted) do list[i] = t[r] end
    out[k] = list
  end
  return out
end

-- J[i][j] = d exprs[i] / d syms[j]; structural zeros are the zero node.
function D.jacobian(exprs, syms)
  for j = 1, #syms do check_symbol(syms[j]) end
  local J = {}
  for i = 1, #exprs do
    local row = {}
    for j = 1, #syms do row[j] = D.derivative(exprs[i], syms[j]) end
    J[i] = row
  end
  return J
end

-- Reverse rules: n the node, g its adjoint, give(i, v) adds v to the adjoint of argument i.
local rev = {}

rev.add = function(n, g, give)
  for i = 1, #n.args do give(i, g) end
end

rev.mul = function(n, g, give)
  local a = n.args
  for i = 1, #a do
    if a[i].op ~= "const" then
      local f = { g }
      for j = 1, #a do
        if j ~= i then f[#f + 1] = a[j] end
      end
      give(i, product(f))
    end
  end
end

rev.div = function(n, g, give)
  local b = n.args[2]
  give(1, div(g, b))
  give(2, neg(div(mul(g, n), b)))
end

rev.neg = function(_, g, give) give(1, neg(g)) end
rev.pow = function(n, g, give) give(1, product({ n.k, E.pow(n.args[1], n.k - 1), g })) end
rev.sin = function(n, g, give) give(1, mul(E.cos(n.args[1]), g)) end
rev.cos = function(n, g, give) give(1, neg(mul(E.sin(n.args[1]), g))) end
rev.tan = function(n, g, give) give(1, mul(E.add(1, mul(n, n)), g)) end
rev.sqrt = function(n, g, give) give(1, div(g, mul(2, n))) end
rev.exp = function(n, g, give) give(1, mul(n, g)) end
rev.log = function(n, g, give) give(1, div(g, n.args[1])) end
rev.tanh = function(n, g, give) give(1, mul(sub(1, mul(n, n)), g)) end

rev.atan2 = function(n, g, give)
  local y, x = n.args[1], n.args[2]
  local r2 = E.add(mul(x, x), mul(y, y))
  give(1, div(mul(x, g), r2))
  give(2, neg(div(mul(y, g), r2)))
end

rev.abs = function(n, g, give) give(1, select_(neg(n.args[1]), neg(g), g)) end

rev.min = function(n, g, give)
  local c = sub(n.args[1], n.args[2])
  give(1, select_(c, 0, g))
  give(2, select_(c, g, 0))
end

rev.max = function(n, g, give)
  local c = sub(n.args[2], n.args[1])
  give(1, select_(c, 0, g))
  give(2, select_(c, g, 0))
end

rev.label = function(_, g, give) give(1, g) end

rev.select = function(n, g, give)
  local c = n.args[1]
  give(2, select_(c, g, 0))
  give(3, select_(c, 0, g))
end

-- Gradient of a scalar with respect to syms, by adjoint accumulation in reverse topological order: one
-- sweep for all symbols. Each node's adjoint is the sum of its users' contributions, built once.
function D.gradient(root, syms)
  root = E.lift(root)
  local want = 0
  for j = 1, #syms do
    check_symbol(syms[j])
    want = want | syms[j].mask
  end
  local order = E.topo(root)
  local contrib = { [root] = { ONE } }
  local cur
  local function give(i, v)
    local a = cur.args[i]
    if v ~= ZERO and a.mask & want ~= 0 then
      local list = contrib[a]
      if list then list[#list + 1] = v else contrib[a] = { v } end
    end
  end
  local adj = {}
  for k = #order, 1, -1 do
    local n = order[k]
    local list = contrib[n]
    if list then
      local g = #list == 1 and list[1] or sum(list)
      contrib[n] = nil
      if n.op == "sym" then
        adj[n] = g
      elseif g ~= ZERO then
        cur = n
        rev[n.op](n, g, give)
      end
    end
  end
  local grad = {}
  for j = 1, #syms do grad[j] = adj[syms[j]] or ZERO end
  return grad
end

return D
