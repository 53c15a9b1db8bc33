#!/usr/bin/env lua5.4
-- gen_review.t: a small edit of models/tree.lua (one mass, one joint damper) makes a small diff of the generated C.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

-- Issue 19: generated C is reviewed as a product, so a change of the model must read as a change of a few lines.
-- The measure is `diff OLD NEW | grep -c '^[<>]'` over the whole NAME.c, comment lines included (the header's
-- hash of the model file and its operation counts are part of what a reviewer reads): a line changed in place
-- counts twice, once removed and once added.
-- A damper reaches the forward dynamics and, through zdd = M⁻¹Q, everything computed from the accelerations
-- (forward_dynamics_dz/_dzd/_dy evaluate -M⁻¹ ∂r/∂y at that zdd): the LᵀDL solve labels its steps by coordinate
-- (zdd_y_neck, zdd_neck: sym.expr's E.label), so only the step the damper's force enters changes, and the emitter
-- keeps each label's statements in place and the parts' boundaries where they were (measured 1,840 and 1,510
-- changed lines before the labels, 55 and 59 with them).
local MASS_LIMIT, DAMPER_LIMIT = 10, 150

-- Absolute: the generator runs from inside the variants' folders.
local root = select(2, H.sh("cd '" .. H.root .. "' && pwd")):gsub("\n$", "") .. "/"
local dir = root .. "build/tmp/gen_review"
H.sh("rm -rf '" .. dir .. "'")
local src = H.read(root .. "models/tree.lua")

-- Each variant is written as tree.lua in a folder of its own and generated from inside it, so the model path the
-- files record ("tree.lua") is the same in every variant and only the edit shows in the diff.
local function generate(variant, text)
  local d = dir .. "/" .. variant
  H.mkdir(d)
  H.write(d .. "/tree.lua", text)
  local ok, out = H.sh(string.format("cd '%s' && lua5.4 '%sgenerator/mbgen' generate tree.lua -o out", d, root))
  ok = ok and H.read(d .. "/out/tree.c") ~= nil
  if not tap.ok(ok, "models/tree.lua generates (" .. variant .. ")") then tap.diag(out) end
  return ok and d .. "/out/"
end

-- The generated function each line of a C file belongs to (its helpers _partK, _rhs and struct _keep count as
-- the function), by line number.
local function owners(path)
  local map, cur = {}, ""
  local n = 0
  for line in ((H.read(path) or "") .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local f = line:match("^static %w+ (tree_[%w_]+)%(") or line:match("^int (tree_[%w_]+)%(")
      or line:match("^struct (tree_[%w_]+)_keep")
    if f then cur = f:gsub("_part%d+$", ""):gsub("_rhs$", "") end
    map[n] = cur
  end
  return map
end

-- Changed lines of two generated files: all of them, those that are not comment lines (starting /*, * or //),
-- and those outside the forward-dynamics functions (forward_dynamics, _dz, _dzd, _dy, _dp).
local function changed(a, b)
  local _, out = H.sh(string.format("diff '%s' '%s'", a, b))
  local oa, ob = owners(a), owners(b)
  local all, code, outside = 0, 0, 0
  local la, lb = 0, 0
  for line in out:gmatch("[^\n]+") do
    local a1, op, b1 = line:match("^(%d+)[%d,]*([acd])(%d+)")
    if a1 then
      la, lb = tonumber(a1), tonumber(b1)
      -- "NaM" adds after line N, "NdM" deletes after line M of the new file: their first lines are N + 1, M + 1.
      if op == "a" then la = la + 1 elseif op == "d" then lb = lb + 1 end
    elseif line:match("^[<>]") then
      all = all + 1
      local body = line:sub(3)
      if not (body:match("^%s*/?%*") or body:match("^%s*//")) then code = code + 1 end
      local owner
      if line:sub(1, 1) == "<" then owner = oa[la]; la = la + 1 else owner = ob[lb]; lb = lb + 1 end
      if not (owner or ""):match("^tree_forward_dynamics") then outside = outside + 1 end
    end
  end
  return all, code, outside
end

-- The head is the only body of mass 2.0. A damper alone is a joint_spring with only damping; two places, so that
-- a leaf (the neck) and the root of every branch (the turntable) both count (today's diffs vary with the joint).
local mass_src, nmass = src:gsub('(body "head"%s*{%s*mass = )2%.0', "%12.1")
tap.is(nmass, 1, "models/tree.lua gives its head a mass of 2.0 (the edit this test makes)")
local function damper(joint, c)
  return src .. string.format('\njoint_spring "%s_damper" { joint = "%s", damping = %s }\n', joint, joint, c)
end

local t0 = H.now()
local base = generate("base", src)
local variants = {
  { "mass 2.0 -> 2.1 of the head", generate("mass", mass_src), MASS_LIMIT },
  { "a damper on the neck", generate("damper_neck", damper("neck", "0.05")), DAMPER_LIMIT },
  { "a damper on the turntable", generate("damper_turn", damper("turn", "1.0")), DAMPER_LIMIT },
}
tap.diag(string.format("four generations of tree.lua: %.1f s", H.now() - t0))

for _, v in ipairs(variants) do
  local what, out, limit = v[1], v[2], v[3]
  local c_all, c_code, c_out, h_all = -1, -1, -1, -1
  if base and out then
    c_all, c_code, c_out = changed(base .. "tree.c", out .. "tree.c")
    h_all = changed(base .. "tree.h", out .. "tree.h")
  end
  tap.diag(string.format("%s: tree.c %d changed lines (%d outside comments, %d outside the forward dynamics), tree.h %d",
    what, c_all, c_code, c_out, h_all))
  -- A diff of nothing would pass the limit for the wrong reason: the edit did not reach the generated code.
  tap.ok(c_all > 0, what .. ": the generated tree.c changes")
  tap.ok(c_all >= 0 and c_all <= limit,
    string.format("%s: at most %d changed lines of tree.c (diff | grep -c '^[<>]': %d)", what, limit, c_all))
end
tap.done_testing()
