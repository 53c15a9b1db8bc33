-- emit/slots.lua: the model function slots, read from runtime/mb_slots.h (the list mb_model.h expands), so the
-- generator and the C struct cannot disagree.
local M = {}

local function runtime_dir()
  local src = debug.getinfo(1, "S").source
  local dir = src:match("^@(.*)/emit/[^/]*$") or src:match("^@(.*)/[^/]*/[^/]*$")
  return (dir or "generator") .. "/../runtime"
end

M.PATH = runtime_dir() .. "/mb_slots.h"

-- Parses "MB_SLOT(name, rows, cols, form, doc)" lines into { name =, rows =, cols =, matrix =, doc = }, in order.
function M.parse(text, path)
  local list, by = {}, {}
  local lineno = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    lineno = lineno + 1
    if line:match("^MB_SLOT%(") then
      local name, rows, cols, form, doc = line:match('^MB_SLOT%(([%w_]+),%s*([%w_*+]+),%s*([%w_*+]+),%s*(%u+),%s*"(.*)"%)%s*$')
      if not name or (form ~= "MAT" and form ~= "VEC") then
        error(string.format("%s:%d: not a slot line: %s", path or "mb_slots.h", lineno, line), 0)
      end
      local s = { name = name, rows = rows, cols = cols, matrix = form == "MAT", doc = doc, index = #list }
      list[#list + 1] = s
      by[name] = s
    end
  end
  return list, by
end

local cache
-- The slots of runtime/mb_slots.h: list in struct order, and a table by name.
function M.load()
  if not cache then
    local f = io.open(M.PATH, "rb")
    if not f then error("emit.slots: cannot read " .. M.PATH, 0) end
    local text = f:read("a")
    f:close()
    local list, by = M.parse(text, M.PATH)
    cache = { list = list, by = by }
  end
  return cache.list, cache.by
end

-- The value of a shape expression ("NZ", "3*NPT", "1", "NP+1", "NZ*NZ+NZ+NC": sums of products of integers and
-- dimensions) for the dimensions dims = { NZ =, NC =, ... }.
function M.dim(expr, dims)
  local total = 0
  for term in (expr .. "+"):gmatch("([^+]+)%+") do
    local v = 1
    for factor in (term .. "*"):gmatch("([^*]+)%*") do
      v = v * (tonumber(factor) or assert(dims[factor], "emit.slots: unknown dimension " .. factor))
    end
    total = total + v
  end
  return total
end

return M
