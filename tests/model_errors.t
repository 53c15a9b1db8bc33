#!/usr/bin/env lua5.4
-- model_errors.t: every error class of the model loader, triggered by a bad model, gives one line
-- `file:line: element: message` and exit status 2, never a traceback.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs mbgen from the repository root; returns stdout, stderr and the exit status.
local function mbgen(args)
  local errfile = os.tmpname()
  local p = io.popen("cd " .. sh_quote(root) .. " && lua5.4 generator/mbgen " .. args .. " 2>" .. sh_quote(errfile))
  local out = p:read("a")
  local _, _, code = p:close()
  local f = io.open(errfile)
  local err = f:read("a")
  f:close()
  os.remove(errfile)
  return out, err, code
end

-- file (under tests/bad_models/), line, element, message: the expected line is built from the parts.
local cases = {
  { "unknown_element", 3, nil, 'unknown element or name "revolut" (did you mean "revolute"?)' },
  { "unknown_field", 2, 'body "upper"', 'unknown field "inertai" (did you mean "inertia"?) (fields of body: com, inertia, mass)' },
  { "missing_parent", 6, 'joint "elbow"', 'parent body "uper" is not defined (did you mean "upper"?)' },
  { "missing_child", 4, 'joint "elbow"', 'child body "forearm" is not defined' },
  { "missing_field", 3, 'joint "shoulder"', 'field "parent" is required' },
  { "duplicate_name", 3, 'body "upper"', "duplicate body name (first declared on line 2)" },
  { "two_parents", 8, 'joint "close"',
    'body "c" already has parent joint "jc" (line 7); a body has one parent joint: declare one of them as a loop' },
  { "not_connected", 3, 'body "floating"', "is not connected to ground (no chain of joints leads from ground to it)" },
  { "negative_mass", 3, 'body "upper"', "negative mass -2" },
  { "inertia_not_psd", 2, 'body "upper"', "inertia is not positive semidefinite (principal moments -1 1 3)" },
  { "inertia_triangle", 2, 'body "upper"', "inertia violates the triangle inequality (principal moments 1 + 1 < 3)" },
  { "zero_axis", 3, 'joint "shoulder"', 'field "axis" is a zero vector' },
  { "bad_rotation", 3, 'joint "shoulder"',
    'field "rotation" is not a rotation (orthonormal with determinant +1): |R Rt - I| = 0, det = -1' },
  { "rotation_not_orthonormal", 3, 'joint "shoulder"',
    'field "rotation" is not a rotation (orthonormal with determinant +1): |R Rt - I| = 3, det = 2' },
  { "bad_initial", 4, "initial", 'coordinate "shouldr" does not exist (did you mean "shoulder"?)' },
  { "initial_twice", 5, "initial", 'coordinate "shoulder" is given twice (first on line 4)' },
  { "not_a_number", 2, 'body "upper"', 'field "mass" must be a number (got string)' },
  { "input_as_mass", 3, 'body "a"', 'field "mass" must be a number or an expression of parameters and design names (not of inputs)' },
  { "syntax_error", 3, nil, "'}' expected near 'child'" },
  { "runtime_error", 3, nil, "attempt to perform arithmetic on a nil value (field 'integer index')" },
  { "bad_value_function", 4, 'torque "damper"', 's.zd.shouldre does not exist (did you mean "shoulder"?)' },
  { "bad_loop_type", 4, 'loop "cut"',
    'unknown loop type "spherica" (did you mean "spherical"?) (types: distance, point2d, prismatic2d, revolute, spherical)' },
  { "sandbox_io", 2, nil, 'unknown element or name "io"' },
  { "sandbox_require", 3, nil, 'unknown element or name "require"' },
  { "global_assignment", 4, nil, 'assignment to global "length": use local, or declare it with parameter { }' },
  { "objective_name", 4, 'objective "kinetic energy"', "the name must be a C identifier (letters, digits, _)" },
  { "objective_point", 5, 'objective "reach"', 's.point.tap does not exist (did you mean "tip"?)' },
  { "multi_dof_reference", 4, 'torque "motor"', 'joint "hip" has 2 coordinates: name one of hip.1, hip.2' },
  { "rod_without_length", 4, 'rod "r"', 'field "length" is required' },
}

local covered = {}
for _, c in ipairs(cases) do
  local name, line, element, message = c[1], c[2], c[3], c[4]
  covered[name] = true
  local file = "tests/bad_models/" .. name .. ".lua"
  local want = file .. ":" .. line .. ": " .. (element and (element .. ": ") or "") .. message .. "\n"
  for _, cmd in ipairs { "info", "generate" } do
    local dir = os.tmpname()
    os.remove(dir)
    local out, err, code = mbgen(cmd .. " " .. file .. (cmd == "generate" and " -o " .. sh_quote(dir) or ""))
    os.remove(dir)
    tap.is(err, want, name .. " (" .. cmd .. "): message names file, line, element")
    tap.is(code, 2, name .. " (" .. cmd .. "): exit status 2")
    tap.ok(not err:find("traceback") and out == "", name .. " (" .. cmd .. "): no traceback, nothing on stdout")
  end
end

-- Every bad model in the folder has an expectation above.
local p = io.popen("ls " .. sh_quote(root .. "tests/bad_models"))
for f in p:lines() do
  local name = f:match("^(.*)%.lua$")
  if name then tap.ok(covered[name], "tests/bad_models/" .. f .. " is checked") end
end
p:close()

-- Command-line errors.
local _, err, code = mbgen("info models/chain.lua --set M=3")
tap.is(err, 'models/chain.lua: --set: "M" is not a parameter or design name of this model (did you mean "N"?)\n',
  "--set of an unknown name names it and suggests one")
tap.is(code, 2, "--set of an unknown name: exit 2")
_, err, code = mbgen("info models/chain.lua --set N=abc")
tap.like(err, "^mbgen info: %-%-set N=abc: the value is not a number\n$", "--set with a non-number")
tap.is(code, 2, "--set with a non-number: exit 2")
_, err, code = mbgen("info models/no_such_model.lua")
tap.like(err, "^models/no_such_model%.lua: cannot read the model file", "missing model file")
tap.is(code, 2, "missing model file: exit 2")

-- A folder, an empty file and a file of comments only: a load error, exit 2.
local empty = os.tmpname()
local f = io.open(empty, "w")
f:write("\n   \n")
f:close()
_, err, code = mbgen("info " .. sh_quote(empty))
tap.is(err, empty .. ": the model file is empty\n", "an empty model file")
tap.is(code, 2, "an empty model file: exit 2")
f = io.open(empty, "w")
f:write("-- nothing but a comment\nmodel \"nothing\"\n")
f:close()
_, err, code = mbgen("info " .. sh_quote(empty))
tap.is(err, empty .. ":2: the model has no coordinates: declare a body and a joint that moves it (revolute, prismatic, ...)\n",
  "a model without coordinates")
tap.is(code, 2, "a model without coordinates: exit 2")
os.remove(empty)
_, err, code = mbgen("info models")
tap.is(err, "models: cannot read the model file (Is a directory)\n", "a folder given as the model file")
tap.is(code, 2, "a folder: exit 2")

-- The help lists every command as working.
local out
out, err, code = mbgen("help")
tap.ok(code == 0 and out:find("check MODEL.lua", 1, true) and not out:find("not implemented"), "mbgen help: check is a command like the others")
out = mbgen("check --help")
tap.ok(out:find("--max-instructions N", 1, true) and out:find("--max-memory MB", 1, true), "every command's usage documents the budget flags")

-- Errors are values until the edge: the loader raises a table with the four fields.
local ok, e = pcall(require("model.load").load, root .. "tests/bad_models/missing_parent.lua")
tap.ok(not ok and type(e) == "table", "load raises a structured error")
tap.is(e.line, 6, "structured error: line")
tap.is(e.element, 'joint "elbow"', "structured error: element")
tap.like(e.file, "tests/bad_models/missing_parent%.lua$", "structured error: file")
tap.is(e.message, 'parent body "uper" is not defined (did you mean "upper"?)', "structured error: message")

tap.done_testing()
