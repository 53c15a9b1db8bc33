#!/usr/bin/env lua5.4
-- gen_functions.t: `mbgen generate --functions` emits only the functions asked for, the same code as a full
-- generation, and names the model's functions when asked for one it does not have.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local dir = "build/tmp/gen_functions"
local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen generate models/chain.lua -o %s --functions mass,inverse_dynamics",
  H.root, dir))
if not tap.ok(ok, "generate --functions mass,inverse_dynamics succeeds") then tap.diag(out) end
local h, c = H.read(H.root .. dir .. "/chain.h") or "", H.read(H.root .. dir .. "/chain.c") or ""
local declared = {}
for nm in h:gmatch("int chain_([%w_]+)%(") do declared[#declared + 1] = nm end
tap.is(table.concat(declared, " "), "mass inverse_dynamics", "the header declares exactly the two functions")
local slots = {}
for nm in c:gmatch("\n    %.([%w_]+) = chain_[%w_]+,") do
  if not nm:match("_names$") and nm ~= "z0" and nm ~= "zd0" and nm ~= "slot_ops" then slots[#slots + 1] = nm end
end
tap.is(table.concat(slots, " "), "mass inverse_dynamics", "the model table points to exactly the two functions")

-- The same text as in the full generation (committed generated/chain.c).
local full = H.read(H.root .. "generated/chain.c") or ""
local function body(text, fn)
  local s = text:find("\nint chain_" .. fn .. "%(")
  if not s then return nil end
  return text:sub(s, (text:find("\n}\n", s, true) or #text) + 2)
end
for _, fn in ipairs { "mass", "inverse_dynamics" } do
  local a, b = body(c, fn), body(full, fn)
  tap.ok(a and a == b, "chain_" .. fn .. " is the same code as in the full generation")
end
ok, out = H.sh(string.format("gcc %s -I%sruntime -c %s%s/chain.c -o %s%s/chain.o", H.CFLAGS, H.root, H.root, dir, H.root, dir))
if not tap.ok(ok, "the subset compiles with -Wall -Wextra -Werror") then tap.diag(out) end

-- A model with tyres keeps its tyre names in the table but points only to the functions generated.
ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen generate tests/fixtures/tyre_cart.lua -o %s_tyre --functions inverse_dynamics && gcc %s -Iruntime -c %s_tyre/tyre_cart.c -o %s_tyre/tyre_cart.o",
  H.root, dir, H.CFLAGS, dir, dir))
if not tap.ok(ok, "a tyre model's subset (inverse_dynamics only) compiles") then tap.diag(out) end

local bad_ok, bad_out = H.sh(string.format("cd %s && lua5.4 generator/mbgen generate models/chain.lua -o %s --functions mass,invers_dynamics",
  H.root, dir .. "_bad"))
tap.ok(not bad_ok, "an unknown function name exits non-zero")
tap.like(bad_out, 'models/chain.lua: %-%-functions: model "chain" has no function "invers_dynamics"', "the message names the file and the name")
tap.like(bad_out, 'did you mean "inverse_dynamics"', "and suggests the nearest function")
tap.ok(H.read(H.root .. dir .. "_bad/chain.c") == nil, "nothing is written")
tap.done_testing()
