#!/usr/bin/env lua5.4
-- doc_links.t: every link in README.md, docs/*.md and generator/README.md stays inside the repository and
-- resolves: the file or folder exists, and an #anchor names a heading of the target (GitHub's slugs).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local files = { "README.md", "generator/README.md" }
local p = io.popen("ls " .. H.root .. "docs/*.md")
for f in p:lines() do files[#files + 1] = f:sub(#H.root + 1) end
p:close()
tap.ok(#files >= 6, "README.md, generator/README.md and the docs/ pages (" .. #files .. " files)")

-- GitHub's anchor of a heading: lower case, everything but letters, digits, spaces, - and _ dropped, spaces
-- turned into -; a repeated heading gets -1, -2, ...
local function slugs(text)
  local set, seen = {}, {}
  local fence = false
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    if line:match("^```") then fence = not fence end
    local h = not fence and line:match("^#+%s+(.-)%s*$")
    if h then
      local s = h:lower():gsub("[%z\1-\127]", function(c)
        if c:match("[%w _-]") then return c end
        return ""
      end):gsub(" ", "-")
      local n = seen[s]
      seen[s] = (n or -1) + 1
      set[n and (s .. "-" .. (n + 1)) or s] = true
    end
  end
  return set
end

local bad, count = {}, 0
for _, f in ipairs(files) do
  local text = H.read(H.root .. f) or ""
  local dir = f:match("^(.*)/[^/]*$") or "."
  local fence = false
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if line:match("^```") then fence = not fence end
    if not fence then
      for target in line:gmatch("%]%(([^%)%s]+)%)") do
        count = count + 1
        local where = string.format("%s:%d: %s", f, n, target)
        if target:match("^%a[%w+.-]*:") then
          bad[#bad + 1] = where .. " points outside the repository"
        else
          local path, anchor = target:match("^([^#]*)#?(.*)$")
          local full = path == "" and f or (dir == "." and path or (dir .. "/" .. path))
          -- Normalize a/b/../c and ./ so the check stays inside the repository.
          local parts = {}
          for part in full:gmatch("[^/]+") do
            if part == ".." then
              if #parts == 0 then parts = nil break end
              parts[#parts] = nil
            elseif part ~= "." then parts[#parts + 1] = part end
          end
          if not parts then
            bad[#bad + 1] = where .. " leaves the repository"
          else
            local rel = table.concat(parts, "/")
            local ok = H.sh("test -e '" .. H.root .. rel .. "'")
            if not ok then
              bad[#bad + 1] = where .. " does not exist"
            elseif anchor ~= "" then
              if not rel:match("%.md$") then
                bad[#bad + 1] = where .. " has an anchor on a file that is not Markdown"
              elseif not slugs(H.read(H.root .. rel) or "")[anchor] then
                bad[#bad + 1] = where .. " names no heading of " .. rel
              end
            end
          end
        end
      end
    end
  end
end
tap.ok(count >= 20, count .. " links found")
tap.is(#bad, 0, "every link resolves inside the repository")
for _, b in ipairs(bad) do tap.diag(b) end

-- The files the README used to point to outside the repository are not named any more.
local stale = {}
for _, f in ipairs(files) do
  local text = H.read(H.root .. f) or ""
  for _, word in ipairs { "INTERFACES.md", "DERIVATIVES.md", "FACTS.md", "seeds/00", "design/" } do
    if text:find(word, 1, true) then stale[#stale + 1] = f .. ": " .. word end
  end
end
tap.is(#stale, 0, "no reference to the design notes or seed digests that live outside the repository")
for _, s in ipairs(stale) do tap.diag(s) end
tap.done_testing()
