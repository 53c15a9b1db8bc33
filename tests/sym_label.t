#!/usr/bin/env lua5.4
-- sym_label.t: labelled values (sym.expr's E.label): the identity in value and derivatives, a barrier to shapes, and
-- what makes a small edit a small diff of the emitted C (stable names, order and parts).
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local E = require "sym.expr"
local D = require "sym.diff"
local L = require "sym.eval"
local C = require "sym.emit_c"

local z, zd = {}, {}
for i = 1, 4 do z[i], zd[i] = E.symbol("z", i - 1, "q" .. i), E.symbol("zd", i - 1, "q" .. i) end
local m = E.data("model_data.m", 1.25)
local env = { z = { 0.31, -0.72, 1.13, 0.45 }, zd = { 0.21, -0.34, 0.8, -1.1 } }

-- Leaves and model data need no name; a label of a label with the same name is that label.
tap.ok(E.label(z[1], "a") == z[1] and E.label(m, "a") == m and E.label(2.5, "a") == E.const(2.5),
  "a leaf, model data or a constant is its own label")
local x = E.sin(z[1]) * z[2] + m * z[3]
local lx = E.label(x, "u_elbow")
tap.ok(lx.op == "label" and lx.args[1] == x and E.label(lx, "u_elbow") == lx and E.label(x, "u_elbow") == lx,
  "a label wraps its value once, hash-consed")
tap.ok(E.label(x, "v_elbow") ~= lx, "another name is another node")
tap.is(L.eval(lx, env), L.eval(x, env), "a label evaluates to its value, to the bit")

-- The barrier: what is computed from a label has the same shape whatever the label holds.
local y = E.cos(z[2]) * z[4] - z[1] * z[1]
local f1 = E.label(x, "u") * z[4] + E.cos(z[1])
local f2 = E.label(y, "u") * z[4] + E.cos(z[1])
tap.ok(f1.s == f2.s and f1.h ~= f2.h, "a user of a label has the label's shape, not its value's")
tap.ok((x * z[4] + E.cos(z[1])).s ~= (y * z[4] + E.cos(z[1])).s, "without the label the shapes differ")

-- Derivatives: the same values; the forward ones keep a label, named after the direction.
local g = E.label(x, "u") * E.label(y, "w") + E.exp(E.label(x, "u"))
local plain = x * y + E.exp(x)
local d = D.derivative(g, z[1])
tap.is(L.eval(d, env), L.eval(D.derivative(plain, z[1]), env), "d/dz of labels equals d/dz of their values")
local names = {}
for _, n in ipairs(E.topo(d)) do if n.op == "label" then names[n.text] = true end end
tap.ok(names.u_dz_q1 and names.w_dz_q1, "the derivatives of u and w are labelled u_dz_q1 and w_dz_q1")
local tg = D.tangents({ g }, { { [z[1]] = 1.5, [zd[2]] = 1 } })[1][1]
tap.is_double(L.eval(tg, env), 1.5 * L.eval(D.derivative(plain, z[1]), env), 1e-15, 0, "a tangent through labels")
local grad = D.gradient(g, { z[1], z[2], z[3] })
local gradp = D.gradient(plain, { z[1], z[2], z[3] })
for i = 1, 3 do
  tap.is_double(L.eval(grad[i], env), L.eval(gradp[i], env), 1e-15, 0, "reverse mode through labels, z" .. i)
end
local sub = E.substitute({ g }, { [z[3]] = z[4] })[1]
local subp = E.substitute({ plain }, { [z[3]] = z[4] })[1]
tap.is(L.eval(sub, env), L.eval(subp, env), "substitution rebuilds labels")
tap.is(C.count({ g }).add, C.count({ plain }).add, "a label costs no operation")

-- The emitted C: a label is a statement under its name (made a C identifier), read by that name.
local fn = C.emit_function { name = "lab", exprs = { E.label(x, "u.elbow") * z[4], E.label(x, "u.elbow") + z[2] } }
tap.like(fn, "\n    const mb_real u_elbow = ", "the label is a temporary named u_elbow")
tap.like(fn, "out%[0%] = a%->z%[3%]%*u_elbow;", "its users read it by name")

-- An edit upstream of labels changes the lines that define them, and nothing that reads them: a chain of labelled
-- steps (like a recursion over bodies) each reading the last, with work of its own, split into parts.
local function chain(extra, unlabelled)
  local s, outs = E.const(0), {}
  for k = 1, 60 do
    local own = E.sin(z[1 + k % 4]) * z[1 + (k + 1) % 4] + E.cos(z[1 + (k + 2) % 4]) * zd[1 + k % 4]
    own = own * E.data("model_data.c" .. k, k / 7) + E.exp(z[1 + k % 4] * 0.1 * k) * s
    if k == 20 and extra then own = own + extra end
    s = unlabelled and own or E.label(own, "s_" .. k)
    outs[#outs + 1] = s * s + z[1]
  end
  return C.emit_function { name = "chain", exprs = outs, max_operations = 120 }
end
local function changed(a, b)
  local la, lb, count = {}, {}, 0
  for line in a:gmatch("[^\n]+") do la[#la + 1] = line end
  for line in b:gmatch("[^\n]+") do lb[#lb + 1] = line end
  -- Lines of one not in the other, both ways (a multiset difference: order aside).
  local have = {}
  for _, l in ipairs(la) do have[l] = (have[l] or 0) + 1 end
  for _, l in ipairs(lb) do
    if (have[l] or 0) > 0 then have[l] = have[l] - 1 else count = count + 1 end
  end
  for _, n in pairs(have) do count = count + n end
  return count
end
local base, edited = chain(nil), chain(m * zd[3])
local nparts = select(2, base:gsub("static void chain_part%d+", ""))
tap.ok(nparts >= 4, "the chain is split into " .. nparts .. " parts")
local n = changed(base, edited)
tap.ok(n > 0 and n <= 8, "one term added to step 20 of 60 changes " .. n .. " lines (at most 8: its definition, the counts)")
local unlabelled = changed(chain(nil, true), chain(m * zd[3], true))
tap.ok(unlabelled > 40, "without labels the same edit renames what follows (" .. unlabelled .. " lines)")

tap.done_testing()
