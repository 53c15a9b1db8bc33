-- model/errors.lua: structured errors of the model stages, their formatting, and "did you mean" hints.
local M = {}

-- An error value: { file =, line =, element =, message = }; raise it with error(err, 0).
function M.new(file, line, element, message)
  return { file = file, line = line, element = element, message = message, mbgen_error = true }
end

function M.raise(file, line, element, message)
  error(M.new(file, line, element, message), 0)
end

function M.is_error(x)
  return type(x) == "table" and x.mbgen_error == true
end

-- `models/x.lua:12: joint "elbow": message`; parts that are unknown are left out. An error caused by
-- command-line values (err.set = "mP=-1") names them first: `--set mP=-1: models/x.lua:12: ...`.
function M.format(err)
  local head = err.file or "mbgen"
  if err.line then head = head .. ":" .. err.line end
  if err.element then head = head .. ": " .. err.element end
  if err.set then head = "--set " .. err.set .. ": " .. head end
  return head .. ": " .. err.message
end

-- The shortest text that reads back as the same number (0.1, not 0.10000000000000001).
function M.number(x)
  for digits = 1, 17 do
    local s = string.format("%." .. digits .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)
end

-- Levenshtein distance with the usual unit costs.
function M.distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    local ai = a:byte(i)
    for j = 1, #b do
      local cost = (ai == b:byte(j)) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

-- The closest candidate to `name`, if it is close enough to be a plausible typo, else nil.
-- Ties go to the candidate that sorts first, so the hint is deterministic.
function M.suggest(name, candidates)
  if type(name) ~= "string" then return nil end
  local limit = (#name <= 3 and 1) or (#name <= 6 and 2) or 3
  local sorted = {}
  for _, c in ipairs(candidates) do sorted[#sorted + 1] = c end
  table.sort(sorted)
  local best, best_d
  for _, c in ipairs(sorted) do
    local d = M.distance(name:lower(), c:lower())
    if d <= limit and (best_d == nil or d < best_d) then best, best_d = c, d end
  end
  return best
end

-- " (did you mean "x"?)" or "".
function M.hint(name, candidates)
  local s = M.suggest(name, candidates)
  if s then return string.format(' (did you mean "%s"?)', s) end
  return ""
end

-- Turns anything caught by pcall into an error value. Lua's own messages carry "file:line: " in front;
-- that prefix becomes the file and line fields.
function M.from_lua(e, file, line)
  if M.is_error(e) then return e end
  local msg = tostring(e)
  local f, l, rest = msg:match("^(.-):(%d+): (.*)$")
  if f and f == file then return M.new(file, tonumber(l), nil, rest) end
  return M.new(file, line, nil, msg)
end

return M
