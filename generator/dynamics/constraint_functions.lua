-- dynamics/constraint_functions.lua: the constraint functions of loops, rods and drives (INTERFACES.md §3).
local M = {}

-- Returns a list of { name =, rows =, cols =, exprs = (column-major), matrix = bool } like
-- dynamics.tree_functions, built on the same DAG (`built` is the result of tree_functions.build).
-- The closed-loop formulation fills this in; until then models get the open-tree functions only.
function M.build(tree, built)
  local _, _ = tree, built
  return {}
end

return M
