#!/usr/bin/env lua5.4
-- tap_lua.t: the Lua TAP harness reports failures with both values and a non-zero exit.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"

local p = io.popen("lua5.4 " .. root .. "tests/fixtures/tap_failing.lua")
local out = p:read("a")
local _, _, code = p:close()

tap.like(out, "ok 1 %- passes\n", "passing check reports ok")
tap.like(out, "not ok 2 %- deliberately wrong double", "failing double reports not ok")
tap.like(out, "got: 1%.5.*expected: 2%.5", "failing double prints both values")
tap.like(out, "not ok 3 %- deliberately wrong int\n#%s+got: 3\n#%s+expected: 4", "failing int prints both values")
tap.like(out, "1%.%.3\n", "done_testing prints the plan")
tap.is(code, 2, "exit status is the number of failures")
tap.is_double(1 + 1e-13, 1, 1e-12, 0, "relative tolerance accepts a close value")
tap.done_testing()
