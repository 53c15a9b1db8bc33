#!/usr/bin/env lua5.4
-- fuzz_models.t: a fixed-seed mutator over every shipped model (token and number mutations, deleted, duplicated
-- and swapped lines, wrong types, huge, negative, NaN and infinite numbers, deep nesting, long strings, loops,
-- recursion, memory bombs): every case ends in success or one `FILE:LINE: ...` error with exit status 2, never a
-- traceback, an internal error, a hang or a crash. FUZZ_N=2000 runs more cases, FUZZ_SEED another sequence.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local N = tonumber(os.getenv("FUZZ_N") or "") or 300
local SEED = tonumber(os.getenv("FUZZ_SEED") or "") or 18
local TIMEOUT = 20
math.randomseed(SEED)
local function pick(list) return list[math.random(#list)] end

local dir = H.root .. "build/tmp/fuzz_models"
H.sh("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")

-- The shipped models; those that generate in a fraction of a second also go through the emitter.
local models = {}
local p = io.popen("ls " .. H.root .. "models/*.lua")
for f in p:lines() do models[#models + 1] = f:match("([^/]+)%.lua$") end
p:close()
local SMALL = { double_pendulum = true, fivebar = true, fourbar_planar = true, fourbar_spatial = true, oscillator = true,
  quarter_car = true, quick_return = true, slider_crank = true, tree = true }
local source = {}
for _, m in ipairs(models) do source[m] = H.read(H.root .. "models/" .. m .. ".lua") end

-- Spans {first, last} of the matches of a pattern (with position captures) in text.
local function spans(text, pattern)
  local list = {}
  for s, e in text:gmatch(pattern) do list[#list + 1] = { s, e - 1 } end
  return list
end
local function replace(text, span, with) return text:sub(1, span[1] - 1) .. with .. text:sub(span[2] + 1) end
local function lines(text)
  local list = {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do list[#list + 1] = l end
  return list
end

local NUMBERS = { "0", "-1", "-1e300", "1e308", "1e309", "0/0", "1/0", "-1/0", "math.huge", "-math.huge", "1e-320",
  "9007199254740993", "0x7fffffffffffffff", "-0.0", "2^1023*2", "pi", "1e15", "-2", "0.5" }
local WRONG = { '"x"', "{}", "true", "nil", "{ 1, 2 }", "function() end", '{ "ground" }', "{ {}, {}, {} }", "...", "print" }
local TOKENS = { "body", "revolute", "prismatic", "spherical", "free", "weld", "loop", "rod", "spring", "point", "torque",
  "drive", "tyre", "mass", "com", "inertia", "parent", "child", "axis", "ground", "nil", "true", "local", "end",
  "function", "return", "io", "os", "require", "load", "_G", "string", "math", "use", "design", "parameter",
  "simulate", "initial", "model", "input", "objective", "type", "length", "x", "=", "==", ",", "{", "}", "(", ")", "..",
  "#", "-", "" }
local INSERT = {
  "while true do end",
  "for i = 1, 1e15 do end",
  "repeat until false",
  'local s = "x" for i = 1, 64 do s = s .. s end',
  "local t = {} for i = 1, 1e9 do t[i] = { i } end",
  'local s = string.rep("x", 2^40)',
  'local s = ("xy"):rep(1e8)',
  "local t = table.move({ 1 }, 1, 1e12, 1, {})",
  "local function f(n) return f(n + 1) + 1 end f(1)",
  "local function g(n) return g(n + 1) end g(1)",
  "local deep = " .. ("{"):rep(300) .. ("}"):rep(300),
  "local deep = " .. ("("):rep(300) .. "1" .. (")"):rep(300),
  'local s = "' .. ("y"):rep(1000000) .. '"',
  'error("boom")', "error({})", "error(nil)", "assert(false)", "error(setmetatable)",
  'body "x" "y"', "body(nil)", 'revolute "j" (42)', 'use "nonexistent"', 'use "../models/oscillator"', 'use(1)',
  'model "second"', 'gravity { 1, 2 }', "parameter { 1 }", 'design { ["a b"] = 1 }', 'input { 1 }',
  'string.format("%99d", 1)', 'tostring(nil)', "initial { nosuch = 1 }", 'independent { "nosuch" }',
  'simulate { t_end = -1 }', 'point "p" { body = "ground" }', 'loop "l" { type = "distance", a = { "ground" }, b = { "ground" }, length = 1 }',
  "getmetatable('').__index = nil", "collectgarbage()", "coroutine.wrap(function() end)()", "debug.sethook()",
}

-- One mutated text of a model and a word for what was done.
local function mutate(text)
  local kind = math.random(8)
  if kind == 1 then
    local s = spans(text, "()%f[%w_.]%d+%.?%d*[eE]?[%-+]?%d*()")
    if #s > 0 then return replace(text, pick(s), pick(NUMBERS)), "number" end
  elseif kind == 2 then
    local s = spans(text, "()%f[%a_][%a_][%w_]*()")
    if #s > 0 then return replace(text, pick(s), pick(TOKENS)), "token" end
  elseif kind == 3 then
    local s = spans(text, "=%s*()[^,}\n]+()")
    if #s > 0 then return replace(text, pick(s), pick(WRONG)), "wrong type" end
  elseif kind == 4 or kind == 5 then
    local l = lines(text)
    local i = math.random(#l)
    if kind == 4 then table.remove(l, i) else table.insert(l, i, l[i]) end
    return table.concat(l, "\n"), kind == 4 and "deleted line" or "duplicated line"
  elseif kind == 6 then
    local l = lines(text)
    local i, j = math.random(#l), math.random(#l)
    l[i], l[j] = l[j], l[i]
    return table.concat(l, "\n"), "swapped lines"
  elseif kind == 7 then
    local l = lines(text)
    table.insert(l, math.random(#l + 1), pick(INSERT))
    return table.concat(l, "\n"), "inserted statement"
  end
  -- A run of punctuation or a character dropped or doubled anywhere.
  local i = math.random(#text)
  if math.random(2) == 1 then return text:sub(1, i - 1) .. text:sub(i + 1), "dropped character" end
  return text:sub(1, i) .. text:sub(i), "doubled character"
end

local counts, bad = { success = 0, error = 0 }, {}
local by_kind = {}
local t0 = H.now()
for case = 1, N do
  local m = models[(case - 1) % #models + 1]
  local text, what = source[m], nil
  for _ = 1, math.random(3) do
    local t, w = mutate(text)
    text, what = t, what and (what .. ", " .. w) or w
  end
  local rel = "build/tmp/fuzz_models/" .. m .. "_" .. case .. ".lua"
  H.write(H.root .. rel, text)
  local cmd = SMALL[m] and ("generate " .. rel .. " -o build/tmp/fuzz_models/out_" .. case) or ("info " .. rel .. " --no-functions")
  local errfile = dir .. "/stderr"
  local pr = io.popen(string.format("cd %s && timeout -s KILL %d lua5.4 generator/mbgen %s --max-instructions 2000000 --max-memory 64 2>'%s' >/dev/null",
    H.root, TIMEOUT, cmd, errfile))
  pr:read("a")
  local _, how, code = pr:close()
  local err = H.read(errfile) or ""
  local outcome
  if how == "exit" and code == 0 and err == "" then
    outcome = "success"
  elseif how == "exit" and code == 2 and err:match("^[^\n]-%.lua:%d+: [^\n]+\n$") and not err:find("traceback") then
    outcome = "error"
  else
    outcome = how ~= "exit" and "crash" or code == 137 and "hang" or "failure"
  end
  counts[outcome] = (counts[outcome] or 0) + 1
  if outcome == "error" then
    local k = err:find("did not finish", 1, true) and "instruction budget" or err:find("MB of memory", 1, true) and "memory budget"
      or err:find("finite", 1, true) and "non-finite number" or "other model error"
    by_kind[k] = (by_kind[k] or 0) + 1
  end
  if outcome ~= "success" and outcome ~= "error" then
    bad[#bad + 1] = string.format("%s (%s; %s, exit %s %s): %s", rel, m, what, how, tostring(code), err:sub(1, 300))
    H.write(H.root .. rel .. ".keep", text)   -- kept for a look; the next run starts afresh
  else
    os.remove(H.root .. rel)
    H.sh("rm -rf '" .. H.root .. "build/tmp/fuzz_models/out_" .. case .. "'")
  end
end
local secs = H.now() - t0

tap.is(#bad, 0, string.format("%d mutated models (seed %d): every one succeeds or stops with FILE:LINE and exit status 2", N, SEED))
for _, b in ipairs(bad) do tap.diag(b) end
local kinds = {}
for k, v in pairs(by_kind) do kinds[#kinds + 1] = k .. " " .. v end
table.sort(kinds)
tap.diag(string.format("outcomes: %d success, %d FILE:LINE errors (%s), %d hangs, %d crashes, %d other failures; %.1f s",
  counts.success, counts.error, table.concat(kinds, ", "), counts.hang or 0, counts.crash or 0, counts.failure or 0, secs))
tap.ok(counts.success > 0 and counts.error > 0, "the mutations give both outcomes")
tap.done_testing()
