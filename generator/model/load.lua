-- model/load.lua: reads a model file and turns its elements into checked, normalized tables.
local errors = require "model.errors"
local sandbox = require "model.sandbox"
local budget = require "model.budget"
local vec3 = require "model.vec3"

local M = {}

-- Field schemas per element kind: type and default. Types: number (a number or an expression of design
-- names), vec3, rotation, inertia, string, boolean, value (number, expression or function), vec3value,
-- func, endpoint, axes, magic.
local joint_common = {
  parent = { type = "string", required = true },
  child = { type = "string", required = true },
  origin = { type = "vec3", default = { 0, 0, 0 } },
  rotation = { type = "rotation" },
}
local function with_common(extra)
  local t = {}
  for k, v in pairs(joint_common) do t[k] = v end
  for k, v in pairs(extra) do t[k] = v end
  return t
end
local endpoint = { type = "endpoint", required = true }

M.schemas = {
  body = {
    mass = { type = "number", required = true },
    com = { type = "vec3", default = { 0, 0, 0 } },
    inertia = { type = "inertia", default = { 0, 0, 0 } },
  },
  revolute = with_common { axis = { type = "vec3", default = { 0, 0, 1 } } },
  prismatic = with_common { axis = { type = "vec3", default = { 0, 0, 1 } } },
  cylindrical = with_common { axis = { type = "vec3", default = { 0, 0, 1 } } },
  universal = with_common { axes = { type = "axes", default = { { 1, 0, 0 }, { 0, 1, 0 } } } },
  spherical = with_common { sequence = { type = "string", default = "xyz" } },
  free = with_common { sequence = { type = "string", default = "xyz" } },
  planar = with_common { normal = { type = "vec3", default = { 0, 0, 1 } } },
  weld = with_common {},
  loop = {
    type = { type = "string", required = true }, a = endpoint, b = endpoint,
    axis = { type = "vec3" }, axis_b = { type = "vec3" }, normal = { type = "vec3" },
    length = { type = "number" },
  },
  rod = { a = endpoint, b = endpoint, mass = { type = "number", default = 0 }, length = { type = "number", required = true },
    inertia = { type = "string", default = "exact" }, partitioned = { type = "boolean", default = false } },
  spring = {
    a = endpoint, b = endpoint, stiffness = { type = "number", default = 0 },
    length = { type = "number", default = 0 }, damping = { type = "number", default = 0 },
    force = { type = "func" },
  },
  joint_spring = {
    joint = { type = "string", required = true }, stiffness = { type = "number", default = 0 },
    rest = { type = "number", default = 0 }, damping = { type = "number", default = 0 },
  },
  torque = { joint = { type = "string", required = true }, value = { type = "value", required = true } },
  force = {
    body = { type = "string", required = true }, at = { type = "vec3", default = { 0, 0, 0 } },
    value = { type = "vec3value", required = true }, frame = { type = "string", default = "ground" },
  },
  drive = { joint = { type = "string", required = true }, position = { type = "value", required = true } },
  tyre = {
    body = { type = "string", required = true }, at = { type = "vec3", default = { 0, 0, 0 } },
    axis = { type = "vec3", default = { 0, 1, 0 } }, radius = { type = "number", required = true },
    stiffness = { type = "number", required = true }, damping = { type = "number", default = 0 },
    longitudinal = { type = "magic", default = { B = 10, C = 1.65, E = 0, mu = 1 } },
    lateral = { type = "magic", default = { B = 8, C = 1.3, E = -1, mu = 1 } },
    road = { type = "func" }, speed_eps = { type = "number", default = 0.1 },
  },
  point = { body = { type = "string", required = true }, at = { type = "vec3", default = { 0, 0, 0 } } },
  objective = { integrand = { type = "func" }, terminal = { type = "func" } },
  simulate = {
    t_end = { type = "number" }, step = { type = "number" }, integrator = { type = "string" },
    formulation = { type = "string" }, tolerance = { type = "number" },
  },
}
M.joint_kinds = {
  revolute = true, prismatic = true, cylindrical = true, universal = true, spherical = true,
  free = true, planar = true, weld = true,
}

local function keys_of(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out)
  return out
end

local function finite(v) return v == v and v ~= math.huge and v ~= -math.huge end
M.finite = finite

local function show(v) return v ~= v and "nan" or tostring(v) end
M.show = show

-- The largest integer power the emitter writes out (as that many multiplications).
M.MAX_POWER = 64

-- What makes an expression unfit for the generated C, or nil: a constant that is not finite (a NaN or an
-- infinity folded into it), or an integer power too large to write out as products.
function M.expression_problem(E, v)
  if type(v) == "number" then return not finite(v) and ("holds " .. show(v)) or nil end
  if not E.is_node(v) then return nil end
  for _, n in ipairs(E.topo(v)) do
    if n.op == "const" and not finite(n.value) then return "holds " .. show(n.value) .. " (every number must be finite)" end
    if n.op == "pow" and math.abs(n.k) > M.MAX_POWER then
      return string.format("raises to the power %s (at most %d: write exp(k * log(x)) for larger ones)",
        errors.number(n.k), M.MAX_POWER)
    end
  end
  return nil
end

-- Checkers: each returns the normalized value or raises an error naming the field.
local function new_checker(E, numeric, file, line, element)
  local function bad(field, message)
    errors.raise(file, line, element, string.format('field "%s" %s', field, message))
  end
  local c = {}
  -- Every number must be finite, so the emitter never prints a NaN or an infinity into C.
  local function finite_node(v, field)
    local problem = M.expression_problem(E, v)
    if problem then bad(field, "must be a finite expression (it " .. problem .. ")") end
    return v
  end
  function c.number(v, field)
    if type(v) == "number" then
      if not finite(v) then bad(field, string.format("must be a finite number (got %s)", show(v))) end
      return v
    end
    if E.is_node(v) then
      -- In the numeric pass every design name is a number, so a node here depends on an input or time.
      if numeric then bad(field, "must be a number or an expression of parameters and design names (not of inputs)") end
      return finite_node(v, field)
    end
    bad(field, string.format("must be a number (got %s)", type(v)))
  end
  function c.vec3(v, field)
    if type(v) ~= "table" or #v ~= 3 then bad(field, "must be a vector of 3 numbers { x, y, z }") end
    return { c.number(v[1], field), c.number(v[2], field), c.number(v[3], field) }
  end
  function c.string(v, field)
    if type(v) ~= "string" then bad(field, string.format("must be a string (got %s)", type(v))) end
    return v
  end
  function c.boolean(v, field)
    if type(v) ~= "boolean" then bad(field, string.format("must be true or false (got %s)", type(v))) end
    return v
  end
  -- Model functions run whenever a stage calls them, each call under the budget of model code.
  function c.func(v, field)
    if type(v) ~= "function" then bad(field, string.format("must be a function (got %s)", type(v))) end
    return budget.guard(v)
  end
  function c.value(v, field)
    if type(v) == "function" then return budget.guard(v) end
    if type(v) == "number" and not finite(v) then bad(field, string.format("must be a finite number (got %s)", show(v))) end
    if type(v) == "number" or E.is_node(v) then return finite_node(v, field) end
    bad(field, string.format("must be a number, a parameter, an input or a function (got %s)", type(v)))
  end
  function c.vec3value(v, field)
    if type(v) == "function" then return budget.guard(v) end
    if type(v) ~= "table" or #v ~= 3 then bad(field, "must be a vector of 3 values or a function") end
    return { c.value(v[1], field), c.value(v[2], field), c.value(v[3], field) }
  end
  -- Magic Formula coefficients { B =, C =, E =, mu = } (D = mu Fz); missing entries are errors.
  function c.magic(v, field)
    if type(v) ~= "table" then bad(field, "must be a table { B =, C =, E =, mu = }") end
    local out = {}
    for k in pairs(v) do
      if k ~= "B" and k ~= "C" and k ~= "E" and k ~= "mu" then
        bad(field, string.format('has an unknown entry "%s" (entries: B, C, E, mu)', tostring(k)))
      end
    end
    for _, k in ipairs { "B", "C", "E", "mu" } do
      if v[k] == nil then bad(field, string.format('needs "%s" (entries: B, C, E, mu)', k)) end
      out[k] = c.number(v[k], field .. "." .. k)
    end
    return out
  end
  function c.axes(v, field)
    if type(v) ~= "table" or #v ~= 2 then bad(field, "must be two axes { {x,y,z}, {x,y,z} }") end
    return { c.vec3(v[1], field), c.vec3(v[2], field) }
  end
  -- { body, {x,y,z} }, { body } or { body = , at = }.
  function c.endpoint(v, field)
    if type(v) ~= "table" then bad(field, 'must be { "body", { x, y, z } }') end
    local body, at = v[1], v[2]
    if v.body ~= nil then body, at = v.body, v.at end
    if type(body) ~= "string" then bad(field, 'must name a body first: { "body", { x, y, z } }') end
    return { body = body, at = at == nil and { 0, 0, 0 } or c.vec3(at, field) }
  end
  -- {Ixx,Iyy,Izz} or {Ixx,Iyy,Izz,Ixy,Ixz,Iyz} -> symmetric 3x3.
  function c.inertia(v, field)
    if type(v) ~= "table" or (#v ~= 3 and #v ~= 6) then
      bad(field, "must be { Ixx, Iyy, Izz } or { Ixx, Iyy, Izz, Ixy, Ixz, Iyz }")
    end
    local n = {}
    for i = 1, #v do n[i] = c.number(v[i], field) end
    local xy, xz, yz = n[4] or 0, n[5] or 0, n[6] or 0
    return { { n[1], xy, xz }, { xy, n[2], yz }, { xz, yz, n[3] } }
  end
  -- { roll, pitch, yaw } -> R = Rz(yaw) Ry(pitch) Rx(roll), or a 3x3 table of rows.
  function c.rotation(v, field)
    if type(v) ~= "table" or #v ~= 3 then
      bad(field, "must be { roll, pitch, yaw } or a 3x3 table of rows")
    end
    if type(v[1]) == "table" then
      local R = {}
      for i = 1, 3 do R[i] = c.vec3(v[i], field) end
      return R
    end
    local r, p, y = c.number(v[1], field), c.number(v[2], field), c.number(v[3], field)
    local function cs(a)
      if type(a) == "number" then return math.cos(a), math.sin(a) end
      return E.cos(a), E.sin(a)
    end
    return vec3.rpy(r, p, y, cs)
  end
  return c
end

-- Checks the fields of one element against its schema; returns the normalized fields.
local function fields_of(E, numeric, file, kind, element, line, given)
  local schema = M.schemas[kind]
  local c = new_checker(E, numeric, file, line, element)
  local names = keys_of(schema)
  for k in pairs(given) do
    if type(k) ~= "string" or not schema[k] then
      errors.raise(file, line, element, string.format('unknown field "%s"%s (fields of %s: %s)',
        tostring(k), errors.hint(tostring(k), names), kind, table.concat(names, ", ")))
    end
  end
  local out = {}
  for _, name in ipairs(names) do
    local spec, v = schema[name], given[name]
    if v == nil then
      if spec.required then
        errors.raise(file, line, element, string.format('field "%s" is required', name))
      end
      v = spec.default
    end
    if v ~= nil then out[name] = c[spec.type](v, name) end
  end
  return out
end
M.fields_of = fields_of

local function normalize(raw, E, numeric)
  local file = raw.file
  local model = {
    file = file, numeric_pass = numeric,
    name = raw.name, name_line = raw.name_line,
    description = raw.description or "",
    constants = raw.parameters, design = raw.design, inputs = raw.inputs,
    bodies = {}, joints = {}, elements = {},
    initial = raw.initial, initial_velocity = raw.initial_velocity,
  }
  if not model.name then
    model.name = file:match("([^/]+)%.lua$") or file
  end
  local c = new_checker(E, numeric, file, raw.gravity_line, "gravity")
  model.gravity = raw.gravity ~= nil and c.vec3(raw.gravity, "gravity") or { 0, 0, 0 }
  for _, kind in ipairs(sandbox.named_kinds) do model.elements[kind] = {} end
  for _, el in ipairs(raw.elements) do
    local element = sandbox.label(el.kind, el.name)
    local f = fields_of(E, numeric, file, el.kind, element, el.line, el.fields)
    f.kind, f.name, f.line, f.element = el.kind, el.name, el.line, element
    if el.kind == "body" then
      model.bodies[#model.bodies + 1] = f
    elseif M.joint_kinds[el.kind] then
      model.joints[#model.joints + 1] = f
    end
    table.insert(model.elements[el.kind], f)
  end
  for _, key in ipairs { "initial", "initial_velocity" } do
    for _, entry in ipairs(model[key]) do
      entry.value = new_checker(E, numeric, file, entry.line, key).number(entry.value, entry.name)
    end
  end
  if raw.independent then
    -- Names of coordinates in the list part; general coordinates h(z, rho) as named functions of the
    -- positions (seeds/000.md §1.4), in name order so the model's arrays do not depend on Lua's hash order.
    local line, names, h = raw.independent.line, {}, {}
    local t = raw.independent.names
    for k, v in pairs(t) do
      if math.type(k) == "integer" then
        if type(v) ~= "string" or k < 1 or k > #t then
          errors.raise(file, line, "independent",
            'expects coordinate names and named functions: independent { "J0", x2 = function(s) ... end }')
        end
        names[k] = v
      elseif type(k) ~= "string" or type(v) ~= "function" then
        errors.raise(file, line, "independent",
          string.format('entry "%s" must be a function(s) of the positions (got %s)', tostring(k), type(v)))
      else
        h[#h + 1] = { name = k, fn = v, line = line }
      end
    end
    table.sort(h, function(a, b) return a.name < b.name end)
    model.independent = { names = names, h = h, line = line }
  end
  if raw.simulate then
    model.simulate = fields_of(E, numeric, file, "simulate", "simulate", raw.simulate.line, raw.simulate.fields)
    model.simulate.line = raw.simulate.line
  else
    model.simulate = {}
  end
  return model
end

local function read(path)
  local f, err = io.open(path, "rb")
  if not f then errors.raise(path, nil, nil, "cannot read the model file (" .. tostring(err):gsub("^.-: ", "") .. ")") end
  local text, rerr = f:read("a")
  f:close()
  if not text then errors.raise(path, nil, nil, "cannot read the model file (" .. tostring(rerr):gsub("^.-: ", "") .. ")") end
  if not text:find("%S") then errors.raise(path, nil, nil, "the model file is empty") end
  return text
end

-- The --set names whose values make the numeric pass fail: each is dropped in turn, and those whose
-- absence lets the model load are the culprits (all of them when no single one is).
local function blame(path, source, E, overrides, validate)
  local names = keys_of(overrides)
  local function passes(ov)
    return pcall(function()
      local raw = sandbox.run(path, source, { E = E, numeric = true, overrides = ov })
      validate.check(normalize(raw, E, true))
    end)
  end
  local found = {}
  for _, name in ipairs(names) do
    local ov = {}
    for k, v in pairs(overrides) do if k ~= name then ov[k] = v end end
    if passes(ov) then found[#found + 1] = name end
  end
  if #found == 0 and passes({}) then found = names end
  local parts = {}
  for _, name in ipairs(found) do parts[#parts + 1] = name .. "=" .. errors.number(overrides[name]) end
  return #parts > 0 and table.concat(parts, " --set ") or nil
end

-- load(path, overrides) -> model, the symbolic one, with model.numeric: the same model with design names
-- at their default values, on which the validation ran. The file runs twice: the first (numeric) run
-- collects the design names, whose sorted order fixes the p[] indices of the second run.
function M.load(path, overrides, opts)
  opts = opts or {}
  local E = opts.E or require "sym.expr"
  local validate = require "model.validate"
  overrides = overrides or {}
  local source = read(path)
  local rawA = sandbox.run(path, source, { E = E, numeric = true, overrides = overrides })
  local known = {}
  for _, p in ipairs(rawA.parameters) do known[#known + 1] = p.name end
  for _, p in ipairs(rawA.design) do known[#known + 1] = p.name end
  for _, name in ipairs(keys_of(overrides)) do
    if not rawA.used_overrides[name] then
      errors.raise(path, nil, "--set", string.format('"%s" is not a parameter or design name of this model%s',
        name, errors.hint(name, known)))
    end
  end
  local order = {}
  for _, d in ipairs(rawA.design) do order[#order + 1] = d.name end
  table.sort(order)
  local okv, numeric = pcall(function()
    local n = normalize(rawA, E, true)
    validate.check(n)
    return n
  end)
  if not okv then
    local e = numeric
    if errors.is_error(e) and next(overrides) then e.set = blame(path, source, E, overrides, validate) end
    error(e, 0)
  end
  local rawB = sandbox.run(path, source, { E = E, numeric = false, design_order = order, overrides = overrides })
  local model = normalize(rawB, E, false)
  model.design_order = order
  numeric.design_order = order
  -- Every file the model read (itself, then its libraries, in the order of their first `use` in either
  -- pass): the build cache hashes their text, so editing a library rebuilds the models that use it.
  local sources, seen = { path }, { [path] = true }
  for _, raw in ipairs { rawA, rawB } do
    for _, p in ipairs(raw.sources) do
      if not seen[p] then seen[p] = true; sources[#sources + 1] = p end
    end
  end
  model.sources = sources
  model.numeric = numeric
  return model
end

return M
