-- run/units.lua: the compile units of a generated NAME.c (its MB_SECTION sections) and a key for each from the text it compiles.
-- A unit's key covers what the preprocessor leaves of NAME.c for it, with the header comment (the model file's
-- hash, the operation counts) and the data table's values of the members it does not read left out, and NAME.h:
-- an edit of one value of NAME_data recompiles only the units that read it (linked, -DMB_LINKED_DATA: section 0).
local EM = require "emit.model"

local U = {}

-- The file's blocks in order: { text, line, sections = set of section numbers } for an `#if MB_SECTION(a) || ...`
-- block, { text, line } for what every unit compiles (line: where text starts in c). nil when a block holds another
-- #if (not what the emitter writes).
local function blocks(c)
  local list, pos, line = {}, 1, 1
  local function add(text, set)
    list[#list + 1] = { text = text, line = line, sections = set }
    local _, nl = text:gsub("\n", "")
    line = line + nl
  end
  while true do
    local a, b, cond = c:find("\n#if (MB_SECTION%([^\n]*)\n", pos)
    if not a then break end
    add(c:sub(pos, a))
    local e, f = c:find("\n#endif[^\n]*\n", b)
    if not e then return nil end
    local body = c:sub(b + 1, e)
    if body:find("\n#if", 1, true) or body:sub(1, 3) == "#if" then return nil end
    local set = {}
    for k in cond:gmatch("MB_SECTION%((%d+)%)") do set[tonumber(k)] = true end
    line = line + 1   -- the #if line
    add(body, set)
    line = line + 1   -- the #endif line
    pos = f + 1
  end
  add(c:sub(pos))
  return list
end

-- What section k (nil: the whole file) compiles, with the header comment and the values of the data members it
-- does not read left out. Linked (-DMB_LINKED_DATA): section 0 holds every value and the others read none.
local function unit_text(list, k, linked)
  local parts = {}
  for _, bl in ipairs(list) do
    if not bl.sections or k == nil or bl.sections[k] then parts[#parts + 1] = bl.text end
  end
  local text = table.concat(parts):gsub("^/%*.-%*/\n", "", 1)
  if linked and k == 0 then return text end
  local used, data = {}, EM.data_name(text)
  if not linked and data then
    for m in text:gmatch(data .. "%.([%w_]+)") do used[m] = true end
  end
  return (EM.rewrite_data(text, function(m) return not used[m] and "(unread)" or nil end))
end

-- The C that section k of NAME.c compiles (path: NAME.c's, for the #line directives), or nil when NAME.c's blocks are
-- not the emitter's: the other sections' blocks left out, so that the compiler does not read the whole file once per
-- section (the buggy's 23 sections, one after another: 27 → 20 CPU-s at -O0, 51 → 40 at -O1), and a #line
-- before each block, so that messages and debug information point into NAME.c. Compiled with -DMB_PART=k as before.
local last_text, last_list   -- the blocks of the last file asked for: a build asks once per section
function U.source(c_text, k, path)
  if c_text ~= last_text then last_text, last_list = c_text, blocks(c_text) end
  local list = last_list
  if not list then return nil end
  local parts, file = {}, '"' .. path:gsub('[\\"]', "\\%0") .. '"'
  for _, bl in ipairs(list) do
    if not bl.sections or bl.sections[k] then
      parts[#parts + 1] = string.format("#line %d %s\n", bl.line, file)
      parts[#parts + 1] = bl.text
    end
  end
  return table.concat(parts)
end

-- The units of a generated model: NAME_NSECTIONS K >= 1 in NAME.h means NAME.c compiled with -DMB_PART=k,
-- k = 1..K, gives K objects that together make the model, and linked (a build with -DMB_LINKED_DATA) adds section 0,
-- the data table, when NAME.c has one; without K, one object. Returns a list of { name = object file name, part = k
-- or nil, size = bytes of its text }, each named after its key: hash(salt, NAME.h, its text).
function U.list(name, c_text, h_text, salt, hash, linked)
  local k = tonumber((h_text or ""):match("#define%s+" .. name .. "_NSECTIONS%s+(%d+)"))
  local list = blocks(c_text or "")
  local function key(text) return hash(table.concat({ "unit 1", salt, h_text or "", text }, "\0")):sub(1, 12) end
  local units = {}
  if not k or k < 1 or not list then
    -- One object, or a file whose blocks this does not follow: the whole text keys it.
    local whole = list and unit_text(list, nil) or c_text or ""
    if not k or k < 1 then
      units[1] = { name = name .. "-" .. key(whole) .. ".o" }
    else
      for i = 1, k do units[i] = { name = string.format("%s.p%d-%s.o", name, i, key(whole)), part = i } end
    end
    return units
  end
  local first = linked and EM.data_name(c_text) and 0 or 1
  for i = first, k do
    local text = unit_text(list, i, linked)
    units[#units + 1] = { name = string.format("%s.p%d-%s.o", name, i, key(text)), part = i, size = #text }
  end
  return units
end

return U
