-- model/budget.lua: runs model code (model files, the libraries they use, their functions) under an instruction and a memory budget.
local errors = require "model.errors"

local M = {}

-- Defaults, documented in `mbgen help` and docs/command-line.md; `--max-instructions` and `--max-memory`
-- raise them. The largest shipped model (the sedan, with its libraries and traced functions) runs in about
-- 2e5 instructions and 1 MB, so the defaults leave a factor of 500 and more.
M.DEFAULT_INSTRUCTIONS = 100000000
M.DEFAULT_MEMORY_MB = 128

local limit = { instructions = M.DEFAULT_INSTRUCTIONS, memory_mb = M.DEFAULT_MEMORY_MB }

-- Sets the budgets (nil keeps the current value).
function M.configure(t)
  if t.instructions then limit.instructions = t.instructions end
  if t.memory_mb then limit.memory_mb = t.memory_mb end
end
function M.limits() return { instructions = limit.instructions, memory_mb = limit.memory_mb } end

-- Chunk names ("@models/x.lua") of model files and libraries, so a budget error names the line of model
-- code that was running rather than a line of the generator it called.
local sources = {}
function M.register(chunkname, file) sources[chunkname] = file end

-- The hook fires every PERIOD instructions. A loop that doubles a string takes 5 instructions a turn, so
-- the memory check comes at most two doublings after the limit; a period of 8 costs about 1 s per 1e8
-- instructions, a period of 100 let such a loop grow past the machine's memory before it was seen.
local PERIOD = 8

local depth, used, cap_kb, tripped, events, limit_instructions = 0, 0, 0, false, 1, 0
local last_file, last_line

-- The innermost frame of model code on the stack.
local function model_frame()
  for level = 2, 200 do
    local info = debug.getinfo(level, "Sl")
    if not info then break end
    local file = sources[info.source]
    if file and info.currentline and info.currentline > 0 then return file, info.currentline end
  end
  return last_file, last_line
end

-- Raises the budget error once per budget: the message handlers and the code that unwinds after it
-- run with the hook still set, and must not trip it again.
local function raise(kind)
  tripped = true
  local file, line = model_frame()
  local msg
  if kind == "instructions" then
    msg = string.format("model did not finish within %d instructions (a loop that never ends? --max-instructions N raises the budget)",
      limit.instructions)
  else
    msg = string.format("model used more than %d MB of memory (a string or table that grows without end? --max-memory MB raises the budget)",
      limit.memory_mb)
  end
  error(errors.new(file, line, nil, msg), 0)
end

local gc = collectgarbage

-- Called every PERIOD instructions: kept to two comparisons on the common path.
local function hook()
  used = used + PERIOD
  if used <= limit_instructions and gc("count") <= cap_kb then
    events = events - 1
    if events > 0 then return end
    events = 4096                     -- where model code was, for an allocation failure that unwinds past every handler
    local info = debug.getinfo(2, "Sl")
    if info and sources[info.source] then last_file, last_line = sources[info.source], info.currentline end
    return
  end
  if tripped then return end
  if used > limit_instructions then raise("instructions") end
  gc("collect")                       -- garbage the collector has not reached yet does not count
  if gc("count") > cap_kb then raise("memory") end
end

-- Bytes left under the memory budget.
local function room() return (cap_kb - collectgarbage("count")) * 1024 end

-- Library functions that build a large result inside one call, where no hook fires: checked before they run.
local function checked_rep(s, n, sep)
  local len = (#tostring(s) + (sep and #tostring(sep) or 0)) * (math.tointeger(n) or (type(n) == "number" and n or 0))
  if depth > 0 and not tripped and len > room() then raise("memory") end
  return string.rep(s, n, sep)
end
local function checked_concat(t, sep, i, j)
  if depth > 0 and type(t) == "table" then
    i, j = i or 1, j or #t
    if type(i) == "number" and type(j) == "number" and j - i > 1e6 and (j - i) * 8 > room() then raise("memory") end
  end
  return table.concat(t, sep, i, j)
end
local function checked_move(a1, f, e, t, a2)
  if depth > 0 and type(f) == "number" and type(e) == "number" and (e - f) * 16 > room() then raise("memory") end
  return table.move(a1, f, e, t, a2)
end
local function checked_gsub(s, pattern, repl, n)
  if depth > 0 and type(repl) == "string" and type(s) == "string" and (#s + 1) * (#repl + 1) > room() then
    raise("memory")
  end
  return string.gsub(s, pattern, repl, n)
end

-- The string and table libraries model code sees (also as methods: ("x"):rep(n) while a budget runs).
M.string = {}
for k, v in pairs(string) do M.string[k] = v end
M.string.rep, M.string.gsub = checked_rep, checked_gsub
M.table = {}
for k, v in pairs(table) do M.table[k] = v end
M.table.concat, M.table.move = checked_concat, checked_move

local string_mt = getmetatable("")
local saved_index

function M.enter()
  depth = depth + 1
  if depth > 1 then return end
  used, last_file, last_line, tripped, events = 0, nil, nil, false, 1
  limit_instructions = limit.instructions
  cap_kb = collectgarbage("count") + limit.memory_mb * 1024
  saved_index = string_mt.__index
  string_mt.__index = M.string
  debug.sethook(hook, "", PERIOD)
end

-- Instructions run under budgets so far, summed over every budget session (for measurements).
M.total = 0

function M.leave()
  depth = depth - 1
  if depth > 0 then return end
  debug.sethook()
  M.total = M.total + used
  string_mt.__index = saved_index
end

-- An allocation failure ("not enough memory") skips every message handler, so it arrives as a plain
-- string: it becomes the budget error at the last model line the hook saw.
function M.is_memory_failure(e) return e == "not enough memory" end
function M.memory_error(file)
  collectgarbage("collect")
  local msg = string.format("model ran out of memory (not enough memory below the --max-memory budget of %d MB)", limit.memory_mb)
  return errors.new(last_file or file, last_file and last_line or nil, nil, msg)
end

-- fn wrapped so that each outermost call runs under a fresh budget (model functions: forces, drives,
-- roads, objectives, called by the generator's stages long after the model file ran).
function M.guard(fn)
  return function(...)
    if depth > 0 then return fn(...) end
    M.enter()
    local res = table.pack(pcall(fn, ...))
    M.leave()
    if not res[1] then
      if M.is_memory_failure(res[2]) then error(M.memory_error(sources[debug.getinfo(fn, "S").source]), 0) end
      error(res[2], 0)
    end
    return table.unpack(res, 2, res.n)
  end
end

return M
