-- run/fingerprint.lua: a model's structure as one string, everything the generator reads from its tree but the values of the data table.
-- Two edits of a model that fingerprint alike generate the same C but for NAME_data's values (the members that
-- dynamics/data.lua's bind makes), so the build cache (run/build.lua) updates those lines instead of generating
-- again. Functions of the model count by their code and what they capture (upvalues, the model's globals), not
-- by name; the generator's own functions count as the generator, whose sources the cache key already covers.
local E = require "sym.expr"

local F = {}

-- The standard library's C functions by name: a model function may capture one (local sin = math.sin).
local C_NAMES
local function c_names()
  if C_NAMES then return C_NAMES end
  C_NAMES = {}
  for name, v in pairs(_G) do
    if type(v) == "function" then C_NAMES[v] = name end
  end
  for _, lib in ipairs { "math", "string", "table", "utf8", "coroutine" } do
    for name, v in pairs(_G[lib] or {}) do
      if type(v) == "function" then C_NAMES[v] = C_NAMES[v] or (lib .. "." .. name) end
    end
  end
  return C_NAMES
end

-- The generator's folder as the chunk names of its modules begin ("@/…/generator/"), from this file's own.
local GENERATOR = debug.getinfo(1, "S").source:gsub("run/fingerprint%.lua$", "")

-- The fingerprint of tree (the model stage's result, after dynamics/data.lua's bind), or nil and the reason
-- when it holds something that has none (a userdata, a C function from outside the standard library).
-- skip: keys whose values are left out (the data table, which holds the values).
function F.of(tree, skip)
  skip = skip or {}
  local ids, nid = {}, 0
  local fail
  local out = {}

  local fp -- fp(v) appends v's fingerprint to out
  local function key_text(k)
    local mark = #out
    fp(k)
    local s = table.concat(out, "", mark + 1)
    for i = #out, mark + 1, -1 do out[i] = nil end
    return s
  end

  fp = function(v)
    if fail then return end
    local ty = type(v)
    if ty == "number" then
      out[#out + 1] = math.type(v) == "integer" and ("i" .. v) or string.format("n%.17g", v)
    elseif ty == "string" then
      out[#out + 1] = string.format("s%d:%s", #v, v)
    elseif ty == "boolean" or ty == "nil" then
      out[#out + 1] = tostring(v)
    elseif ty == "table" then
      if E.is_node(v) then
        -- A bound number is its member's name, its value left out; other nodes (design parameters and
        -- expressions of them) by their structural hash, which covers their numbers.
        out[#out + 1] = v.op == "data" and ("D" .. v.text) or string.format("N%x", v.h)
        return
      end
      if ids[v] then out[#out + 1] = "@" .. ids[v]; return end
      nid = nid + 1
      ids[v] = nid
      local keys = {}
      for k in pairs(v) do
        if not skip[k] then keys[#keys + 1] = { k = k, t = key_text(k) } end
      end
      table.sort(keys, function(a, b) return a.t < b.t end)
      out[#out + 1] = "{"
      for _, e in ipairs(keys) do
        out[#out + 1] = e.t
        out[#out + 1] = "="
        fp(v[e.k])
        out[#out + 1] = ","
      end
      out[#out + 1] = "}"
    elseif ty == "function" then
      local info = debug.getinfo(v, "S")
      if info.what == "C" then
        local name = c_names()[v]
        if not name then fail = "a C function outside the standard library"; return end
        out[#out + 1] = "C" .. name
        return
      end
      if info.source:sub(1, #GENERATOR) == GENERATOR then
        -- The generator's code is in the cache key; closures made from one line (the sandbox's sin and cos)
        -- differ in what they capture: its plain values and functions count, its tables (modules, the loader's
        -- state) do not.
        out[#out + 1] = "G" .. info.source:sub(#GENERATOR + 1) .. ":" .. info.linedefined .. "("
        for i = 1, math.huge do
          local name, up = debug.getupvalue(v, i)
          if not name then break end
          out[#out + 1] = name
          out[#out + 1] = "="
          if type(up) == "table" and not E.is_node(up) then out[#out + 1] = "T" else fp(up) end
          out[#out + 1] = ","
        end
        out[#out + 1] = ")"
        return
      end
      if ids[v] then out[#out + 1] = "@" .. ids[v]; return end
      nid = nid + 1
      ids[v] = nid
      -- Its code without debug information (lines move with edits elsewhere), then what it captures.
      local code = string.dump(v, true)
      out[#out + 1] = string.format("L%d:%s(", #code, code)
      for i = 1, math.huge do
        local name, up = debug.getupvalue(v, i)
        if not name then break end
        out[#out + 1] = name
        out[#out + 1] = "="
        fp(up)
        out[#out + 1] = ","
      end
      out[#out + 1] = ")"
    else
      fail = "a " .. ty
    end
  end

  fp(tree)
  if fail then return nil, "the model holds " .. fail end
  return table.concat(out)
end

return F
