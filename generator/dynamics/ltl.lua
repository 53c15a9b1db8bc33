-- dynamics/ltl.lua: the LᵀDL factorization of a tree's mass matrix with its branch-induced sparsity, on expressions.
-- Featherstone (Rigid Body Dynamics Algorithms, §6.5): with parents numbered before their children, M = Lᵀ D L
-- where L has the sparsity of M's lower triangle (row k: k's ancestors), so nothing fills in, factoring costs
-- the sum of the squared depths and a solve the sum of the depths.
local E = require "sym.expr"

local L = {}

-- names (optional): the coordinates' names, from which the factors and the solution take their labels (sym.expr's
-- E.label): a diff of the generated C then shows the entries an edit reaches, not everything computed after them.
local function labeller(names)
  if not names then return function(x) return x end end
  return function(x, prefix, ...)
    if not prefix then return x end
    local parts = { prefix }
    for _, k in ipairs { ... } do parts[#parts + 1] = names[k] end
    return E.label(x, table.concat(parts, "_"))
  end
end

-- The factors of M (1-based, both triangles) in a new table: the diagonal holds D, below it L's entries.
function L.factor(M, parent, names)
  local label = labeller(names)
  local n = #M
  local H = {}
  for i = 1, n do
    H[i] = {}
    for j = 1, n do H[i][j] = M[i][j] end
  end
  for k = n, 1, -1 do
    H[k][k] = label(H[k][k], "ltl_D", k)
    local i = parent[k]
    while i ~= 0 do
      local a = E.div(H[k][i], H[k][k])
      local j = i
      while j ~= 0 do
        H[i][j] = E.sub(H[i][j], E.mul(a, H[k][j]))
        j = parent[j]
      end
      H[k][i] = label(a, "ltl_L", k, i)
      i = parent[i]
    end
  end
  return H
end

-- x = M⁻¹ b from the factors (b is not changed); what (with names): the prefix of the labels of x and of the
-- intermediate L⁻ᵀ b.
function L.solve(H, parent, b, names, what)
  local label = labeller(names)
  local n = #H
  local x = {}
  for i = 1, n do x[i] = b[i] end
  for i = n, 1, -1 do
    x[i] = label(x[i], what and what .. "_y", i)
    local j = parent[i]
    while j ~= 0 do
      x[j] = E.sub(x[j], E.mul(H[i][j], x[i]))
      j = parent[j]
    end
  end
  for i = 1, n do x[i] = E.div(x[i], H[i][i]) end
  for i = 1, n do
    local j = parent[i]
    while j ~= 0 do
      x[i] = E.sub(x[i], E.mul(H[i][j], x[j]))
      j = parent[j]
    end
    x[i] = label(x[i], what, i)
  end
  return x
end

-- The operations of the emitted loop that factors M on the parent array (1-based, 0 = none) and solves m
-- right-hand sides (emit/model.lua's NAME_solve_ltdl), as its loops run them.
function L.loop_ops(parent, m)
  local mul, add, div = 0, 0, 0
  for k = 1, #parent do
    local i, depth = parent[k], 0
    while i ~= 0 do
      div, depth = div + 1, depth + 1
      local j = i
      while j ~= 0 do mul, add, j = mul + 1, add + 1, parent[j] end
      i = parent[i]
    end
    mul, add, div = mul + 2 * m * depth + m, add + 2 * m * depth, div + 1   -- D⁻¹: one reciprocal per row
  end
  return { add = add, mul = mul, div = div, call = 0 }
end

-- The parent array of a tree (0 = ground), checked to number parents first, which the factorization needs.
function L.parents(tree)
  local p = {}
  for k, body in ipairs(tree.bodies) do
    assert(body.parent < k, "ltl: a body is numbered before its parent")
    p[k] = body.parent
  end
  return p
end

return L
