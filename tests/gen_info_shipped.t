#!/usr/bin/env lua5.4
-- gen_info_shipped.t: `mbgen info` on a shipped model prints generated/NAME.md while generated/NAME.key matches the
-- model, its libraries and the generator, and counts again when any of them differs.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local dir = (os.getenv("TMPDIR") or "/tmp") .. "/mbgen_info_shipped_" .. os.time() .. "_" .. math.random(1e6)
H.mkdir(dir .. "/lib")

local _, list = H.sh("cd " .. H.root .. " && ls models/*.lua")
for path in list:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.lua$")
  local ok, out, err = H.mbgen("info " .. path, dir)
  tap.ok(ok and out == H.read(H.root .. "generated/" .. name .. ".md")
    and err:find("the roadmap of generated/" .. name .. ".md (up to date)", 1, true) ~= nil,
    string.format("mbgen info %s: generated/%s.md, without counting", path, name))
end

-- Another generator (MBGEN_CACHE_SALT stands for an edit of it): counted again, the same text.
local function info(env, model)
  local ok, out = H.sh(string.format("cd '%s' && %s lua5.4 generator/mbgen info '%s' 2>'%s/err.txt'", H.root, env, model, dir))
  return ok, out, H.read(dir .. "/err.txt") or ""
end
local shipped = H.read(H.root .. "generated/fivebar.md")
local okc, outc, errc = info("MBGEN_CACHE_SALT=info-" .. os.time(), "models/fivebar.lua")
tap.ok(okc and not errc:find("generated/fivebar.md", 1, true) and outc == shipped,
  "another generator: fivebar's roadmap counted again, equal to generated/fivebar.md")

-- A copy elsewhere is counted (its roadmap names its own path); with one number changed in its library, it is
-- another model.
H.write(dir .. "/fivebar.lua", H.read(H.root .. "models/fivebar.lua"))
local lib = H.read(H.root .. "models/lib/five_bar.lua")
H.write(dir .. "/lib/five_bar.lua", lib)
local oks, outs, errs = info("", dir .. "/fivebar.lua")
local function unpathed(t) return (t or ""):gsub("Model file: `[^`]*`", "Model file: ?") end
tap.ok(oks and not errs:find("generated/fivebar.md", 1, true) and outs:find("Model file: `" .. dir, 1, true) ~= nil
  and unpathed(outs) == unpathed(shipped), "a copy elsewhere: counted, the same roadmap under its own path")
local edited, count = lib:gsub("parameter { k = 50.0 }", "parameter { k = 51.0 }")
H.write(dir .. "/lib/five_bar.lua", edited)
local oke, oute, erre = info("", dir .. "/fivebar.lua")
tap.ok(count == 1 and oke and not erre:find("generated/fivebar.md", 1, true) and oute:find("| k | constant | 51 |", 1, true),
  "one constant changed in the library: counted again, k = 51 in the roadmap")

H.sh("rm -rf '" .. dir .. "'")
tap.done_testing()
