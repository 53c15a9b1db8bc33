-- emit/model.lua: turns a tree into the generated C files of a model (NAME.c, NAME.h).
local M = {}

-- Returns files = { ["NAME.c"] = text, ["NAME.h"] = text } and stats = list of
-- { name =, rows =, cols =, nnz =, ops = { add =, mul =, div =, call = } } per generated function.
-- Placeholder until the dynamics formulation lands: no C yet.
function M.generate(tree)
  local _ = tree
  return {}, {}
end

return M
