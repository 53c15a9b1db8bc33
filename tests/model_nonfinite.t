#!/usr/bin/env lua5.4
-- model_nonfinite.t: NaN, +inf and -inf in every kind of numeric field, from the model file and from --set,
-- are refused with the file, the line and the element (or --set NAME), never passed on to the emitter.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local errors = require "model.errors"

-- One model that uses every numeric field once; @slot@ becomes X in the case of that slot and 0 elsewhere,
-- so with X = 0 the model loads (the oracle that the slot alone makes the difference). Each entry: slot,
-- the element the error must name.
local TEMPLATE = [[
model "nonfinite"
local X = VALUE
gravity { 0, 0, -9.81 + @gravity@ }
parameter { L = 1 + @parameter@ }
design { m = 1 + @design@ }
input { "u" }
body "a" { mass = m + @mass@, com = { 0, 0, -0.5 + @com@ }, inertia = { 0.1 + @inertia@, 0.1, 0.1, @inertia_xy@, 0, 0 } }
body "b" { mass = 1, inertia = { 0.1, 0.1, 0.1 } }
body "c" { mass = 1, inertia = { 0.1, 0.1, 0.1 } }
body "d" { mass = 1, inertia = { 0.1, 0.1, 0.1 } }
body "w" { mass = 20, inertia = { 0.4, 0.6, 0.4 } }
revolute "ja" { parent = "ground", child = "a", origin = { 0, 0, @origin@ }, rotation = { @rotation@, 0, 0 }, axis = { 0, 1, @axis@ } }
universal "jb" { parent = "a", child = "b", origin = { 0, 0, -L }, axes = { { 1, 0, 0 }, { 0, 1, @axes@ } } }
planar "jc" { parent = "ground", child = "c", origin = { 2, 0, 0 }, normal = { 0, @normal@, 1 } }
prismatic "jd" { parent = "ground", child = "d", origin = { 0, 3, 0 }, axis = { 1, 0, 0 } }
free "jw" { parent = "ground", child = "w", origin = { 0, 6, 0.3 } }
loop "lp" { type = "point2d", a = { "c", { 0.1 + @loop_at@, 0, 0 } }, b = { "d", { 0, 0, 0 } }, normal = { 0, @loop_normal@, 1 } }
loop "ld" { type = "distance", a = { "b", { 0, 0, 0 } }, b = { "ground", { 0, 0, -3 } }, length = 1 + @loop_length@ }
rod "r" { a = { "a", { 0, 0, 0 } }, b = { "d", { 0, 0, 0 } }, length = 3 + @rod_length@, mass = 0.5 + @rod_mass@ }
spring "s" { a = { "a", { 0, 0, 0 } }, b = { "ground", { 1, 0, 0 } }, stiffness = 10 + @spring_k@, length = 0.5 + @spring_l@, damping = 1 + @spring_c@ }
joint_spring "js" { joint = "jd", stiffness = 5 + @js_k@, rest = 0.1 + @js_rest@, damping = 0.2 + @js_c@ }
torque "t1" { joint = "ja", value = 2 + @torque@ }
torque "t2" { joint = "jd", value = function(t, s) return -s.zd.jd + @torque_fn@ end }
torque "t3" { joint = "jb.1", value = u + @torque_input@ }
force "f1" { body = "c", at = { 0, @force_at@, 0 }, value = { 1, 0, @force@ } }
force "f2" { body = "b", value = function(t, s) return { 0, 0, s.z.jd * (1 + @force_fn@) } end }
drive "dr" { joint = "jc.r", position = function(t) return 0.1 * t + @drive@ end }
point "p" { body = "b", at = { 0, 0, -1 + @point@ } }
tyre "ty" { body = "w", radius = 0.3 + @tyre_r@, stiffness = 1e5 + @tyre_k@, damping = 100 + @tyre_c@, speed_eps = 0.1 + @tyre_eps@,
  longitudinal = { B = 10 + @magic_B@, C = 1.6, E = 0, mu = 1 }, road = function(x, y) return 0.01 * x + @road@ end }
objective "o" { integrand = function(t, s) return s.z.ja ^ 2 + @objective@ end }
initial { ja = 0.1 + @initial@ }
initial_velocity { jd = 0.2 + @initial_velocity@ }
simulate { t_end = 1 + @t_end@, step = 1e-3 + @step@, tolerance = 1e-6 + @tolerance@ }
]]
local ELEMENT = {
  gravity = "gravity", parameter = 'parameter "L"', design = 'design "m"', mass = 'body "a"', com = 'body "a"',
  inertia = 'body "a"', inertia_xy = 'body "a"', origin = 'joint "ja"', rotation = 'joint "ja"', axis = 'joint "ja"',
  axes = 'joint "jb"', normal = 'joint "jc"', loop_at = 'loop "lp"', loop_normal = 'loop "lp"', loop_length = 'loop "ld"',
  rod_length = 'rod "r"', rod_mass = 'rod "r"', spring_k = 'spring "s"', spring_l = 'spring "s"', spring_c = 'spring "s"',
  js_k = 'joint_spring "js"', js_rest = 'joint_spring "js"', js_c = 'joint_spring "js"', torque = 'torque "t1"',
  torque_fn = 'torque "t2"', torque_input = 'torque "t3"', force_at = 'force "f1"', force = 'force "f1"',
  force_fn = 'force "f2"', drive = 'drive "dr"', point = 'point "p"', tyre_r = 'tyre "ty"', tyre_k = 'tyre "ty"',
  tyre_c = 'tyre "ty"', tyre_eps = 'tyre "ty"', magic_B = 'tyre "ty"', road = 'tyre "ty"', objective = 'objective "o"',
  initial = "initial", initial_velocity = "initial_velocity", t_end = "simulate", step = "simulate", tolerance = "simulate",
}

local dir = H.root .. "build/tmp/model_nonfinite"
H.mkdir(dir)
local function instance(slot, value)
  local text = TEMPLATE:gsub("VALUE", value):gsub("@([%w_]+)@", function(s) return s == slot and "X" or "0" end)
  local line = 0
  local n = 0
  local start = 0                   -- errors name the line where the element starts
  for l in (TEMPLATE .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if l:match("^%S") then start = n end
    if l:find("@" .. slot .. "@", 1, true) then line = start end
  end
  return text, line
end
local function load(path)
  return pcall(function()
    local model = require("model.load").load(path, {})
    return require("model.topology").build(model)
  end)
end

local slots = {}
for s in TEMPLATE:gmatch("@([%w_]+)@") do slots[#slots + 1] = s end
tap.is(#slots, 43, "the template has a slot in every kind of numeric field")
for _, s in ipairs(slots) do tap.ok(ELEMENT[s], "slot " .. s .. " names its element") end

-- The oracle: with a finite X the model loads.
local path = dir .. "/finite.lua"
H.write(path, (instance("none", "0.0")))
local ok, e = load(path)
tap.ok(ok, "the template loads with every slot finite" .. (ok and "" or (": " .. (errors.is_error(e) and errors.format(e) or tostring(e)))))

for _, value in ipairs { "0/0", "1/0", "-1/0", "math.huge" } do
  local bad = {}
  for _, slot in ipairs(slots) do
    local text, line = instance(slot, value)
    path = dir .. "/" .. slot .. ".lua"
    H.write(path, text)
    local okl, err = load(path)
    local good = not okl and errors.is_error(err) and err.file == path and err.line == line
      and err.element == ELEMENT[slot] and err.message:find("finite", 1, true) ~= nil
    if not good then
      bad[#bad + 1] = slot .. ": " .. (okl and "accepted" or errors.is_error(err) and errors.format(err) or tostring(err))
    end
  end
  tap.is(#bad, 0, string.format("X = %s in each of the %d slots: refused at its line, naming its element", value, #slots))
  for _, b in ipairs(bad) do tap.diag(b) end
end

-- Through the command line: one line, exit status 2, no traceback.
local function mbgen(args)
  local ok_, out, code = H.sh("cd " .. H.root .. " && lua5.4 generator/mbgen " .. args)
  return out, code
end
local text, line = instance("com", "0/0")
H.write(dir .. "/cli.lua", text)
local out, code = mbgen("info build/tmp/model_nonfinite/cli.lua --no-functions")
tap.is(out, string.format('build/tmp/model_nonfinite/cli.lua:%d: body "a": field "com" must be a finite number (got nan)\n', line),
  "mbgen info: a NaN centre of mass is refused with FILE:LINE and the element")
tap.is(code, 2, "exit status 2")
for _, c in ipairs {
  { "--set L=1e999", "mbgen info: --set L=1e999: the value is not finite\n" },
  { "--set m=-inf", "mbgen info: --set m=-inf: the value is not a number\n" },
  { "--set m=nan", "mbgen info: --set m=nan: the value is not a number\n" },
  { "--set m=0x1p2000", "mbgen info: --set m=0x1p2000: the value is not finite\n" },
} do
  out, code = mbgen("info build/tmp/model_nonfinite/finite.lua --no-functions " .. c[1])
  tap.is(out, c[2], c[1] .. ": names --set NAME")
  tap.is(code, 2, c[1] .. ": exit status 2")
end
-- An integer power too large to write out as products (the emitter would print 2^53 multiplications).
H.write(dir .. "/power.lua", (instance("none", "0.0")):gsub("s%.z%.ja %^ 2", "s.z.ja ^ 9007199254740992"))
out, code = mbgen("info build/tmp/model_nonfinite/power.lua --no-functions")
tap.like(out, '^build/tmp/model_nonfinite/power%.lua:%d+: objective "o": field "integrand" returns an expression that raises to the power 9007199254740992 %(at most 64',
  "a power of 2^53 is refused at its element")
tap.is(code, 2, "exit status 2")

-- A finite --set value out of the element's range is reported at --set, with the line it reaches.
out, code = mbgen("info build/tmp/model_nonfinite/finite.lua --no-functions --set m=-3")
tap.is(out, '--set m=-3: build/tmp/model_nonfinite/finite.lua:7: body "a": negative mass -3\n',
  "--set m=-3 gives a negative mass: reported at --set m=-3 and the body's line")
tap.is(code, 2, "exit status 2")
tap.done_testing()
