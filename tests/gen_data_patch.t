#!/usr/bin/env lua5.4
-- gen_data_patch.t: a model whose only edits are values of its data table (masses, inertias, spring and damper
-- rates, rest and free lengths, rods' masses) has its earlier build's fingerprint, and patching that build's files
-- with the new values gives, byte for byte, what the generator prints for the edited model (issue 19).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local DATA = require "dynamics.data"
local FP = require "run.fingerprint"
local FS = require "run.function_sets"
local emit = require "emit.model"

local function files_of(tree, functions)
  local spec = require("dynamics.functions").build(tree, { functions = functions, lenient = functions ~= nil })
  return (emit.generate(tree, spec, H.read(tree.file), {}))
end

-- Every value the data table holds, scaled by a factor that differs per field (so no two edited values meet), in
-- the tree before the bind: the edit a user makes in the model file.
local function scaled(tree)
  local n = 0
  DATA.soft_fields(tree, function(holder, key)
    local v = holder[key]
    if type(v) == "number" and v ~= 0 then
      n = n + 1
      holder[key] = v * (1 + 0.0137 * n)
    end
  end)
  return n
end

-- Every shipped model with every function, the sedan with the functions its runs build and the other vehicles with
-- those that read the table (all of theirs take minutes): a value reaching the code anywhere but through the
-- table would make the files differ.
local _, list = H.sh("ls " .. H.root .. "models/*.lua")
local VEHICLES = { sedan = FS.run_matrix_r, buggy = { "mass", "forces", "energy" }, coach = { "mass", "forces", "energy" } }
-- MODELS="chain tree" checks only those.
local only = os.getenv("MODELS")
for path in list:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.lua$")
  if only and not (" " .. only .. " "):find(" " .. name .. " ", 1, true) then goto continue end
  do
    local functions = VEHICLES[name]
    local a, b = H.tree(path), H.tree(path)
    local n = scaled(b)
    local va, vb = DATA.bind(a), DATA.bind(b)
    local fa, fb = FP.of(a, { data_table = true }), FP.of(b, { data_table = true })
    tap.ok(fa and fa == fb, string.format("%s: %d values of the data table edited, the same fingerprint", name, n))
    local ga, gb = files_of(a, functions), files_of(b, functions)
    local patched = emit.patch_data(ga, a.name, vb, H.read(b.file))
    local same = true
    for fname, text in pairs(gb) do
      if patched[fname] ~= text then
        same = false
        tap.diag(fname .. " differs from the patched one")
      end
    end
    tap.ok(same, name .. ": the patched files are the generator's for the edited values" ..
      (functions and " (" .. #functions .. " functions)" or ""))
    local changed = 0
    for member, v in pairs(vb) do if va[member] ~= v then changed = changed + 1 end end
    tap.ok(changed > 0 or n == 0, name .. ": the edits change " .. changed .. " members' values")
  end
  ::continue::
end

-- What is not data changes the fingerprint: a centre of mass (the frames are chosen from it), a value made zero
-- (a zero is structure), a joint's axis, a function's code or a number it captures, a design parameter's default.
local base = [[
model "fp_check"
design { k = 100 }
local w = 3.0
local s = sin
local function drive(t) return 0.1 * sin(w * t) + 0.01 * s(t) end
body "cart" { mass = 2, com = { 0.1, 0, 0 }, inertia = { 1e-3, 2e-3, 3e-3 } }
prismatic "slide" { parent = "ground", child = "cart", axis = { 1, 0, 0 } }
body "arm" { mass = 0.5, com = { 0, 0, -0.2 }, inertia = { 1e-3, 1e-3, 1e-4 } }
revolute "hinge" { parent = "cart", child = "arm", axis = { 0, 1, 0 } }
joint_spring "spring" { joint = "slide", stiffness = 50, damping = 0.5 }
torque "motor" { joint = "hinge", value = function(t) return drive(t) end }
]]
local dir = H.root .. "build/tmp/gen_data_patch"
H.mkdir(dir)
local function fingerprint(text)
  H.write(dir .. "/fp_check.lua", text)
  local t = H.tree(dir .. "/fp_check.lua")
  DATA.bind(t)
  return FP.of(t, { data_table = true })
end
local f0 = fingerprint(base)
tap.ok(f0 ~= nil, "the check model has a fingerprint")
for _, e in ipairs {
  { "mass = 2,", "mass = 2.5,", true, "a mass" },
  { "stiffness = 50, damping = 0.5", "stiffness = 60, damping = 0.7", true, "a spring's rates" },
  { "1e-3, 2e-3, 3e-3", "1e-3, 2.5e-3, 3e-3", true, "an inertia" },
  { "com = { 0.1, 0, 0 }", "com = { 0.2, 0, 0 }", false, "a centre of mass" },
  { "damping = 0.5", "damping = 0", false, "a damping made zero" },
  { "axis = { 0, 1, 0 }", "axis = { 0, 0, 1 }", false, "a joint axis" },
  { "local w = 3.0", "local w = 3.5", false, "a number a function captures" },
  { "0.1 * sin", "0.1 * cos", false, "a library function a function calls" },
  { "local s = sin", "local s = cos", false, "a library function a function captures" },
  { "return drive(t) end", "return 2 * drive(t) end", false, "a function's code" },
  { "design { k = 100 }", "design { k = 120 }", false, "a design parameter's default" },
} do
  local text, count = base:gsub(e[1]:gsub("%p", "%%%0"), (e[2]:gsub("%%", "%%%%")), 1)
  local f = count == 1 and fingerprint(text)
  if e[3] then
    tap.ok(f and f == f0, e[4] .. ": the same fingerprint (a data edit)")
  else
    tap.ok(count == 1 and f ~= f0, e[4] .. ": another fingerprint")
  end
end
tap.done_testing()
