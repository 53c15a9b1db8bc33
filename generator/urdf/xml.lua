-- urdf/xml.lua: reads an XML document with expat (Debian's lua-expat) into plain element tables with lines.
local errors = require "model.errors"

local M = {}

-- parse(text, file) -> root element { tag, attrs, line, children }; malformed XML raises FILE:LINE.
-- Text, comments and processing instructions are dropped: URDF keeps everything in elements and attributes.
function M.parse(text, file)
  local ok, lxp = pcall(require, "lxp")
  if not ok then
    errors.raise(file, nil, nil, "reading URDF needs lua-expat (Debian package lua-expat; `make deps` installs it)")
  end
  local root, stack = nil, {}
  local parser
  parser = lxp.new {
    StartElement = function(_, tag, attrs)
      local line = parser:pos()
      local el = { tag = tag, attrs = {}, line = line, children = {} }
      for k, v in pairs(attrs) do
        if type(k) == "string" then el.attrs[k] = v end
      end
      local top = stack[#stack]
      if top then top.children[#top.children + 1] = el else root = el end
      stack[#stack + 1] = el
    end,
    EndElement = function() stack[#stack] = nil end,
  }
  local res, msg, line = parser:parse(text)
  if res then res, msg, line = parser:parse() end
  pcall(parser.close, parser)   -- it raises on a document left open, which parse has reported already
  if not res then errors.raise(file, line, nil, "malformed XML: " .. tostring(msg)) end
  if not root then errors.raise(file, nil, nil, "no XML element in the file") end
  return root
end

-- The children of `el` with tag `tag`, in document order.
function M.all(el, tag)
  local out = {}
  for _, c in ipairs(el.children) do
    if c.tag == tag then out[#out + 1] = c end
  end
  return out
end

-- The one child of `el` with tag `tag` (nil when absent); a second one is an error naming both lines.
function M.one(el, tag, file, element)
  local found = nil
  for _, c in ipairs(el.children) do
    if c.tag == tag then
      if found then
        errors.raise(file, c.line, element, string.format("a second <%s> (the first is at line %d)", tag, found.line))
      end
      found = c
    end
  end
  return found
end

return M
