#!/usr/bin/env lua5.4
-- model_load.t: every model in models/ loads, `mbgen info` prints its roadmap, `mbgen generate` writes
-- NAME.md; the command line's usage texts, stubs and --set overrides.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
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
-- The value of the size table's column `col` in a roadmap.
local function size(text, col)
  local header, values = text:match("## Sizes\n\n(| [^\n]*)\n| [^\n]*\n(| [^\n]*)\n")
  if not header then return nil end
  local names, vals = {}, {}
  for c in header:gmatch("| ([^|]-) ") do names[#names + 1] = c end
  for c in values:gmatch("| ([^|]-) ") do vals[#vals + 1] = c end
  for i, n in ipairs(names) do if n == col then return tonumber(vals[i]) end end
end

local load = require "model.load"
local topology = require "model.topology"

local models = {}
local p = io.popen("ls " .. sh_quote(root .. "models"))
for f in p:lines() do if f:match("%.lua$") then models[#models + 1] = f end end
p:close()
tap.ok(#models >= 10, "models/ holds the ten models of issue 4 (found " .. #models .. ")")

local outdir = os.tmpname()
os.remove(outdir)
-- Generating these again would take a minute of `make test`'s CPU for what the others show.
local LARGE = { sedan = true, buggy = true, coach = true, fourbar_grid = true }
for _, f in ipairs(models) do
  local path = "models/" .. f
  local name = f:match("^(.*)%.lua$")
  local ok, model = pcall(load.load, root .. path)
  tap.ok(ok, path .. " loads" .. (ok and "" or (": " .. require("model.errors").format(model))))
  if ok then
    tap.is(model.name, name, path .. ": model name matches the file name")
    local tok, tree = pcall(topology.build, model)
    tap.ok(tok, path .. ": topology builds")
    if tok then
      local good = true
      for k, b in ipairs(tree.bodies) do
        good = good and b.parent < k and b.joint.coord == k and tree.coords[k].body == k
      end
      tap.ok(good, path .. ": parent < child and coordinate k on body k")
    end
    local src = io.open(root .. path):read("a")
    tap.like(src, "^%-%- " .. f:gsub("%.", "%%.") .. ": ", path .. ": opens with a comment naming the file")
    tap.ok(src:find("seeds/%d%d%d%.md") or src:find("[Ii]nvented for testing"), path .. ": says where its data come from")
    tap.ok(src:find("\ngravity") and src:find("\nsimulate"), path .. ": has gravity and simulate")
  end
  local out, err, code = mbgen("info " .. path)
  tap.is(code, 0, "mbgen info " .. path .. ": exit 0" .. (err ~= "" and (": " .. err) or ""))
  tap.like(out, "^# " .. name .. "\n.*## Sizes.*## Bodies.*## Coordinates.*## Constraints.*## Parameters.*## Inputs.*## Points",
    "mbgen info " .. path .. ": prints the roadmap")
  if LARGE[name] then
    -- tests/gen_fresh.t generates it and finds the committed roadmap equal to what generate writes.
    local fh = io.open(root .. "generated/" .. name .. ".md")
    local md = fh and fh:read("a")
    if fh then fh:close() end
    tap.is(md, out, "generated/" .. name .. ".md is the roadmap info prints")
  else
    local gout, gerr, gcode = mbgen("generate " .. path .. " -o " .. sh_quote(outdir))
    tap.is(gcode, 0, "mbgen generate " .. path .. ": exit 0" .. (gerr ~= "" and (": " .. gerr) or ""))
    local fh = io.open(outdir .. "/" .. name .. ".md")
    local md = fh and fh:read("a")
    if fh then fh:close() end
    tap.is(md, out, "mbgen generate " .. path .. ": " .. name .. ".md is the roadmap info prints")
    tap.like(gout, "wrote " .. outdir:gsub("%p", "%%%0") .. "/" .. name .. "%.md", "mbgen generate " .. path .. ": says what it wrote")
  end
end
os.execute("rm -rf " .. sh_quote(outdir))

-- --set: one file describes a family.
local out = mbgen("info models/chain.lua --set N=24")
tap.is(size(out, "NZ"), 24, "chain --set N=24: 24 coordinates")
out = mbgen("info models/chain.lua")
tap.is(size(out, "NZ"), 8, "chain default: N = 8")
tap.like(out, "| N | constant | 8 |", "chain: N listed as a constant")
out = mbgen("info models/chain.lua --set=N=3")
tap.is(size(out, "NZ"), 3, "--set=NAME=VALUE form")
out = mbgen("info models/fourbar_grid.lua --set NY=4 --no-functions")
tap.is(size(out, "NB"), 135, "fourbar_grid --set NY=4: 135 bodies")
tap.is(size(out, "NC"), 120, "fourbar_grid --set NY=4: 120 constraint equations")
out = mbgen("info models/oscillator.lua --set k=400")
tap.like(out, "| k | design | 400 | 1 |", "--set on a design name changes its default value")

-- Usage and stubs.
local usage, _, code = mbgen("help")
tap.is(code, 0, "mbgen help: exit 0")
for _, cmd in ipairs { "generate", "info", "run", "check", "sens" } do
  tap.like(usage, "\n  " .. cmd .. " ", "mbgen help lists " .. cmd)
  local u, _, c = mbgen(cmd .. " --help")
  tap.like(u, "^usage: mbgen " .. cmd, "mbgen " .. cmd .. " --help prints its usage")
  tap.is(c, 0, "mbgen " .. cmd .. " --help: exit 0")
  local u2 = mbgen("help " .. cmd)
  tap.is(u2, u, "mbgen help " .. cmd .. " is the same text")
end
-- run: tests/run_cli.t, check: tests/dyn_check.t, sens: tests/sens_tree.t
local _, e, c = mbgen("inf models/chain.lua")
tap.like(e, '^mbgen: unknown command inf %(did you mean "info"%?%)', "unknown command suggests one")
tap.is(c, 2, "unknown command: exit 2")
_, e, c = mbgen("info")
tap.like(e, "^mbgen info: no model file given\nusage: mbgen info", "info without a model prints the usage")
tap.is(c, 2, "info without a model: exit 2")
_, e, c = mbgen("info models/chain.lua --frobnicate")
tap.like(e, "^mbgen info: unknown option %-%-frobnicate", "unknown option")
tap.is(c, 2, "unknown option: exit 2")

tap.done_testing()
