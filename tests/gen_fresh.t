#!/usr/bin/env lua5.4
-- gen_fresh.t: generated/ equals a fresh regeneration of every model (run twice, but the large ones but the sedan once:
-- output is deterministic).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

-- The same command as `make generate`, from the top folder: the model path is written into the files.
-- The second pass, in another process (another string hash seed, other table addresses), is the determinism check.
-- The sedan stands for the large models there: it has their every element (rods, tyres, loops) and the others
-- take 40 s of `make test`'s CPU to generate again.
local ONCE = { buggy = true, coach = true, fourbar_grid = true }
local _, list = H.sh("cd " .. H.root .. " && ls models/*.lua")
for path in list:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.lua$")
  for pass = 1, ONCE[name] and 1 or 2 do
    local dir = "build/tmp/fresh" .. pass
    local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen generate %s -o %s", H.root, path, dir))
    if not tap.ok(ok, string.format("models/%s.lua generates (pass %d)", name, pass)) then tap.diag(out) end
    for _, ext in ipairs { ".c", ".h", ".md", ".key" } do
      local fresh, committed = H.read(H.root .. dir .. "/" .. name .. ext), H.read(H.root .. "generated/" .. name .. ext)
      if not tap.ok(fresh ~= nil and fresh == committed,
          string.format("generated/%s%s equals a fresh regeneration (pass %d)", name, ext, pass)) and ext == ".key" then
        -- The key hashes the generator's code (run/build.lua: generator/**/*.lua and mbgen), so an edit moves it.
        tap.diag("the generator changed since generated/ was made: run make generate")
      end
    end
  end
end
tap.done_testing()
