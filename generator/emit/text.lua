-- emit/text.lua: layout of emitted C text shared by the emitters.
local T = {}

-- Items joined by sep after a first-line prefix, wrapped at about 110 characters with a deeper indent.
function T.wrap(items, sep, prefix, indent)
  local lines, line = {}, prefix
  for i, item in ipairs(items) do
    local piece = item .. (i < #items and sep or "")
    if #line + #piece > 110 and line ~= prefix then
      lines[#lines + 1] = (line:gsub("%s+$", ""))
      line = indent
    end
    line = line .. piece
  end
  lines[#lines + 1] = (line:gsub("%s+$", ""))
  return table.concat(lines, "\n")
end

-- A double as C reads it back exactly (a decimal point or exponent always, so it is not an int).
function T.c_number(x)
  local s = string.format("%.17g", x)
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end

-- Appends `static const CTYPE cname[n] = { ... };` to lines and returns cname ("0" for an empty list).
function T.numbers_array(lines, cname, list, ctype)
  if #list == 0 then return "0" end
  local items = {}
  for i, v in ipairs(list) do items[i] = ctype == "int" and tostring(v) or T.c_number(v) end
  lines[#lines + 1] = string.format("static const %s %s[%d] = { %s };", ctype or "double", cname, #list,
    table.concat(items, ", "))
  return cname
end

-- Appends the arrays and the mb_pattern `base` of a rows x cols compressed-column pattern (0-based) to lines.
function T.pattern_table(lines, base, rows, cols, colptr, rowind)
  local cp = T.numbers_array(lines, base .. "_colptr", colptr, "int")
  local ri = T.numbers_array(lines, base .. "_rowind", rowind, "int")
  lines[#lines + 1] = string.format("static const mb_pattern %s = { %d, %d, %s, %s };", base, rows, cols, cp, ri)
  return base
end

return T
