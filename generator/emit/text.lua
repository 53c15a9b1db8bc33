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

return T
