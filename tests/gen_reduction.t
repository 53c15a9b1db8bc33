#!/usr/bin/env lua5.4
-- gen_reduction.t: Matrix R's generated reduction in generated/: which models have one, and the roadmap's counts
-- against the operators of the emitted C.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

-- A model has NAME_matrix_r_reduce exactly when it closes loops and declares its independent coordinates.
local with = { sedan = true, buggy = true, coach = true, fivebar = true, fivebar_point = true }
for _, m in ipairs { "sedan", "buggy", "coach", "fivebar", "fivebar_point", "fourbar_planar", "fourbar_spatial",
  "quick_return", "slider_crank", "tree", "chain" } do
  local c = H.read(H.root .. "generated/" .. m .. ".c") or ""
  local has = c:find("int " .. m .. "_matrix_r_reduce(", 1, true) ~= nil
  tap.ok(#c > 0 and has == (with[m] or false) and (has == (c:find(".matrix_r = &" .. m .. "_matrix_r,", 1, true) ~= nil)),
    string.format("%s: %s", m, with[m] and "a generated reduction, in the model table" or "no generated reduction"))
end

-- The operations the roadmap lists (the plan's count) are those of the C (H.c_operators), a square root per pivot.
for _, m in ipairs { "sedan", "buggy", "coach", "fivebar" } do
  local c = H.read(H.root .. "generated/" .. m .. ".c") or ""
  local md = H.read(H.root .. "generated/" .. m .. ".md") or ""
  local o = H.c_operators(c, "int " .. m .. "_matrix_r_reduce") or {}
  local mul, add, div, sqrt = o.mul or -1, o.add or -1, o.div or -1, o.sqrt or -1
  local d, nnz, radd, rmul, rdiv, rcall = md:match("| " .. m .. "_matrix_r_reduce | (%d+) | %d+ | (%d+) | (%d+) | (%d+) | (%d+) | (%d+) |")
  tap.ok(d and tonumber(radd) == add and tonumber(rmul) == mul and tonumber(rdiv) == div and tonumber(rcall) == sqrt
    and sqrt == tonumber(d),
    string.format("%s: the roadmap's %s additions, %s multiplications, %s divisions, %s square roots are the C's "
      .. "(%d, %d, %d, %d)", m, tostring(radd), tostring(rmul), tostring(rdiv), tostring(rcall), add, mul, div, sqrt))
  tap.ok(md:find("Matrix R for the declared independent coordinates (" .. m .. "_matrix_r_reduce", 1, true),
    m .. ": the roadmap describes R's and R'M R's structure")
end
tap.done_testing()
