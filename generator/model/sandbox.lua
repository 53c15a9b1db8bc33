-- model/sandbox.lua: runs a model file in a restricted environment and records the elements it declares.
local errors = require "model.errors"
local budget = require "model.budget"

local M = {}

-- The project's model library (models/lib/), which `use` searches after the model's own lib/ folder.
local PROJECT_LIB = (debug.getinfo(1, "S").source:match("^@(.*)/generator/model/[^/]*$") or ".") .. "/models/lib"

-- Element kinds written `kind "name" { fields }`, in the order of INTERFACES.md §1.
M.named_kinds = {
  "body", "revolute", "prismatic", "cylindrical", "universal", "spherical", "free", "planar", "weld",
  "loop", "rod", "spring", "joint_spring", "torque", "force", "drive", "point", "objective",
  "tyre",
}
-- Statements written `kind { ... }` or `kind "text"`.
M.plain_kinds = {
  "model", "description", "gravity", "parameter", "design", "input", "initial", "initial_velocity",
  "independent", "simulate",
}
-- How errors name an element: every joint kind is a `joint`, as in INTERFACES.md §1's example message.
local JOINTS = { revolute = true, prismatic = true, cylindrical = true, universal = true, spherical = true,
  free = true, planar = true, weld = true }
function M.label(kind, name)
  return string.format('%s "%s"', JOINTS[kind] and "joint" or kind, tostring(name))
end

M.math_names = { "sin", "cos", "tan", "atan2", "sqrt", "exp", "log", "abs", "tanh", "pi" }

-- Plain Lua helpers a model may use; nothing that reaches files, the process or the loader.
local safe_globals = {
  "ipairs", "pairs", "next", "select", "type", "tostring", "tonumber", "error", "assert",
  "rawequal", "rawlen",
}

-- The math table without random numbers, so that models stay reproducible.
local function safe_math()
  local t = {}
  for k, v in pairs(math) do
    if k ~= "random" and k ~= "randomseed" then t[k] = v end
  end
  return t
end

local function copy_lib(lib)
  local t = {}
  for k, v in pairs(lib) do t[k] = v end
  return t
end

-- Math functions that keep plain numbers plain (so parameters fold) and hand symbols to the engine.
local function math_functions(E)
  local f = {}
  local plain = {
    sin = math.sin, cos = math.cos, tan = math.tan, sqrt = math.sqrt, exp = math.exp,
    log = math.log, abs = math.abs,
    tanh = function(x) local a, b = math.exp(x), math.exp(-x); return (a - b) / (a + b) end,
  }
  for name, fn in pairs(plain) do
    f[name] = function(x)
      if type(x) == "number" then return fn(x) end
      return E[name](x)
    end
  end
  f.atan2 = function(y, x)
    if type(y) == "number" and type(x) == "number" then return math.atan(y, x) end
    return E.atan2(y, x)
  end
  f.pi = math.pi
  return f
end

-- The parser's message for text that failed to load. Nesting deeper than its C stack allows gives "C stack
-- overflow" without a position: the line where brackets first nest 150 deep stands in for it.
function M.syntax_message(msg, text, file)
  msg = tostring(msg)
  if msg:match("^[^\n]-:%d+: ") or not msg:find("C stack overflow", 1, true) then return msg end
  local depth, line = 0, 1
  for c in text:gmatch("[%(%[{}%]%)\n]") do
    if c == "\n" then line = line + 1
    elseif c == "(" or c == "[" or c == "{" then depth = depth + 1
    else depth = depth - 1 end
    if depth >= 150 then break end
  end
  return string.format("%s:%d: brackets nest too deeply for the parser (C stack overflow)", file or "?", line)
end

-- Runs `source` (the text of `file`) once. opts:
--   E          the symbolic engine (sym.expr)
--   numeric    true: design names are their default numbers; false: symbols p[index]
--   design_order  sorted design names from the numeric pass (needed when numeric is false)
--   overrides  { name = number } from --set
-- Returns the raw record: { name, description, gravity, parameters, design, inputs, elements,
-- initial, initial_velocity, independent, simulate, used_overrides }, each entry carrying its line.
function M.run(file, source, opts)
  local E = opts.E
  local chunkname = "@" .. file
  local raw = {
    file = file, parameters = {}, design = {}, inputs = {}, elements = {},
    initial = {}, initial_velocity = {}, used_overrides = {},
    -- The library files `use` read, in order: mbgen's build cache keys on their text (run/build.lua).
    sources = {},
  }
  local env, builtin, declared = {}, {}, {}
  -- Libraries loaded by `use`, by name: their chunk names let errors inside them say where they are.
  local libs, lib_sources = {}, {}

  -- Line of the innermost call made from the model file itself (helpers defined there count too).
  local function where()
    for level = 2, 60 do
      local info = debug.getinfo(level, "Sl")
      if not info then break end
      if info.source == chunkname then return info.currentline end
    end
    return nil
  end
  local function fail(element, message, line)
    errors.raise(file, line or where(), element, message)
  end

  local function declare(name, value, element)
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
      fail(element, string.format("%s is not a valid name (letters, digits and _)", tostring(name)))
    end
    if builtin[name] then fail(element, string.format('"%s" is a built-in name and cannot be declared', name)) end
    if declared[name] then
      fail(element, string.format('"%s" is already declared (line %d)', name, declared[name]))
    end
    declared[name] = where()
    rawset(env, name, value)
  end

  -- Named elements: kind "name" { fields }. The element is recorded at the name call so its line is
  -- the line where the user starts writing it.
  local pending = {}
  local function named(kind)
    return function(name)
      local line = where()
      if type(name) ~= "string" then
        fail(kind, string.format('needs a name: %s "name" { ... }', kind), line)
      end
      local el = { kind = kind, name = name, line = line }
      raw.elements[#raw.elements + 1] = el
      pending[el] = true
      return function(fields)
        if type(fields) ~= "table" then
          fail(M.label(kind, name), "expects a table of fields: { ... }", line)
        end
        el.fields = fields
        pending[el] = nil
      end
    end
  end
  for _, kind in ipairs(M.named_kinds) do builtin[kind] = named(kind) end

  local function once(key, line)
    if raw[key .. "_line"] then
      fail(key, string.format("declared twice (first on line %d)", raw[key .. "_line"]), line)
    end
    raw[key .. "_line"] = line
  end

  builtin.model = function(name)
    local line = where()
    once("name", line)
    if type(name) ~= "string" then fail("model", 'expects a name: model "name"', line) end
    raw.name = name
  end
  builtin.description = function(text)
    local line = where()
    once("description", line)
    if type(text) ~= "string" then fail("description", "expects a string", line) end
    raw.description = text
  end
  builtin.gravity = function(v)
    local line = where()
    once("gravity", line)
    raw.gravity = v
  end
  local function table_arg(kind, t)
    if type(t) ~= "table" then fail(kind, "expects a table: " .. kind .. " { ... }") end
    return t
  end
  -- Keys of a table constructor come in no fixed order: sort them so every pass is identical.
  local function sorted_keys(kind, t)
    local keys = {}
    for k in pairs(t) do
      if type(k) ~= "string" then fail(kind, "expects name = value entries") end
      keys[#keys + 1] = k
    end
    table.sort(keys)
    return keys
  end
  builtin.parameter = function(t)
    local line = where()
    table_arg("parameter", t)
    for _, name in ipairs(sorted_keys("parameter", t)) do
      local v = t[name]
      if opts.overrides and opts.overrides[name] ~= nil then
        v = opts.overrides[name]
        raw.used_overrides[name] = true
      end
      if type(v) ~= "number" then
        fail(string.format('parameter "%s"', name),
          string.format("value must be a number (got %s)", type(v)), line)
      end
      if v ~= v or v == math.huge or v == -math.huge then
        fail(string.format('parameter "%s"', name), string.format("value must be finite (got %s)", v ~= v and "nan" or tostring(v)), line)
      end
      declare(name, v, string.format('parameter "%s"', name))
      raw.parameters[#raw.parameters + 1] = { name = name, value = v, line = line }
    end
  end
  builtin.design = function(t)
    local line = where()
    table_arg("design", t)
    for _, name in ipairs(sorted_keys("design", t)) do
      local v = t[name]
      if opts.overrides and opts.overrides[name] ~= nil then
        v = opts.overrides[name]
        raw.used_overrides[name] = true
      end
      if type(v) ~= "number" then
        fail(string.format('design "%s"', name),
          string.format("default value must be a number (got %s)", type(v)), line)
      end
      if v ~= v or v == math.huge or v == -math.huge then
        fail(string.format('design "%s"', name), string.format("value must be finite (got %s)", v ~= v and "nan" or tostring(v)), line)
      end
      local value = v
      if not opts.numeric then
        local index
        for i, n in ipairs(opts.design_order) do if n == name then index = i - 1 end end
        if not index then fail(string.format('design "%s"', name), "declared differently on a second run of the model file", line) end
        value = E.symbol("p", index, name)
      end
      declare(name, value, string.format('design "%s"', name))
      raw.design[#raw.design + 1] = { name = name, value = v, line = line }
    end
  end
  builtin.input = function(t)
    local line = where()
    table_arg("input", t)
    for i, name in ipairs(t) do
      local index = #raw.inputs
      declare(name, E.symbol("u", index, name), string.format('input "%s"', tostring(name)))
      raw.inputs[#raw.inputs + 1] = { name = name, index = index, line = line }
      local _ = i
    end
    for k in pairs(t) do
      if math.type(k) ~= "integer" then fail("input", 'expects a list of names: input { "a", "b" }', line) end
    end
  end
  local function start_values(key)
    return function(t)
      local line = where()
      table_arg(key, t)
      for _, name in ipairs(sorted_keys(key, t)) do
        raw[key][#raw[key] + 1] = { name = name, value = t[name], line = line }
      end
    end
  end
  builtin.initial = start_values("initial")
  builtin.initial_velocity = start_values("initial_velocity")
  builtin.independent = function(t)
    local line = where()
    once("independent", line)
    table_arg("independent", t)
    raw.independent = { names = t, line = line }
  end
  builtin.simulate = function(t)
    local line = where()
    once("simulate", line)
    table_arg("simulate", t)
    raw.simulate = { fields = t, line = line }
  end

  -- use "name": runs lib/name.lua next to the model file in this same environment (so a library
  -- declares elements as the model does) and returns what it returns; each library runs once per pass.
  -- Elements declared inside a library carry the line of the model's call that declared them.
  builtin.use = function(name)
    local line = where()
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
      fail("use", 'expects a library name: use "macpherson" (letters, digits and _)', line)
    end
    if libs[name] ~= nil then return libs[name] end
    local dir = file:match("^(.*)/[^/]*$") or "."
    local tried, f, path = {}, nil, nil
    for _, d in ipairs { dir .. "/lib", PROJECT_LIB } do
      path = d .. "/" .. name .. ".lua"
      tried[#tried + 1] = path
      f = io.open(path, "rb")
      if f then break end
    end
    if not f then fail("use", string.format('no library "%s" (looked for %s)', name, table.concat(tried, " and ")), line) end
    local text = f:read("a")
    f:close()
    local chunk, syntax = load(text, "@" .. path, "t", env)
    if not chunk then
      -- The handler below also sees the parser's own errors (C stack overflow) and makes them values.
      if errors.is_error(syntax) then syntax = syntax.message end
      fail("use", "library " .. M.syntax_message(syntax, text, path), line)
    end
    lib_sources["@" .. path] = path
    raw.sources[#raw.sources + 1] = path
    budget.register("@" .. path, path)
    local value = chunk()
    libs[name] = value == nil and true or value
    return libs[name]
  end

  for name, fn in pairs(math_functions(E)) do builtin[name] = fn end
  for _, name in ipairs(safe_globals) do builtin[name] = _G[name] end
  builtin.math = safe_math()
  builtin.string = copy_lib(budget.string)
  builtin.table = copy_lib(budget.table)

  local candidates = {}
  for name in pairs(builtin) do candidates[#candidates + 1] = name end
  setmetatable(env, {
    __index = function(_, name)
      local v = builtin[name]
      if v ~= nil then return v end
      local all = { table.unpack(candidates) }
      for n in pairs(declared) do all[#all + 1] = n end
      fail(nil, string.format('unknown element or name "%s"%s', tostring(name), errors.hint(name, all)))
    end,
    __newindex = function(_, name)
      fail(nil, string.format('assignment to global "%s": use local, or declare it with parameter { }', tostring(name)))
    end,
  })

  local chunk, syntax = load(source, chunkname, "t", env)
  if not chunk then error(errors.from_lua(M.syntax_message(syntax, source, file), file), 0) end
  budget.register(chunkname, file)
  -- The handler runs before the stack unwinds, so it can still find the model line of a failure
  -- raised deep inside a helper (a bad argument to sin, say). The file and the libraries it uses run
  -- under the instruction and memory budget (model/budget.lua).
  budget.enter()
  local ok, err = xpcall(chunk, function(e)
    if errors.is_error(e) then return e end
    local line = where()
    local msg = type(e) == "string" and e or string.format("error() was called with a %s value", type(e))
    local f, l, rest = msg:match("^(.-):(%d+): (.*)$")
    if f == file then return errors.new(file, tonumber(l), nil, rest) end
    if f and lib_sources["@" .. f] then
      msg = string.format("%s (%s:%s)", rest, f, l)
    elseif f then
      msg = rest
    end
    return errors.new(file, line, nil, msg)
  end)
  budget.leave()
  if not ok then
    if budget.is_memory_failure(err) then err = budget.memory_error(file) end
    error(err, 0)
  end
  for _, el in ipairs(raw.elements) do
    if pending[el] then
      errors.raise(file, el.line, M.label(el.kind, el.name), "is missing its table of fields { ... }")
    end
  end
  return raw
end

return M
