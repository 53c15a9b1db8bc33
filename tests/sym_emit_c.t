#!/usr/bin/env lua5.4
-- sym_emit_c.t: emitted C compiled with -Werror (double, float, complex) against the Lua evaluator,
-- complex step and central differences; sparsity, splitting into parts, determinism.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local E = require "sym.expr"
local V = require "sym.vec"
local D = require "sym.diff"
local L = require "sym.eval"
local C = require "sym.emit_c"

local tmpdir = root .. "build/tmp/sym_emit_c/"
os.execute("mkdir -p " .. tmpdir)
local CC = os.getenv("CC") or "gcc"
local CFLAGS = "-std=c99 -O2 -Wall -Wextra -Werror"

local NZ = 6
local z, zd, p, u, w = {}, {}, {}, {}, {}
for i = 1, NZ do z[i] = E.symbol("z", i - 1, "q" .. i) end
for i = 1, 2 do zd[i], p[i] = E.symbol("zd", i - 1), E.symbol("p", i - 1) end
u[1], w[1] = E.symbol("u", 0), E.symbol("w", 0)
local t = E.symbol("t")
local env = {
  t = 0.37, z = { 0.31, -0.72, 1.13, 0.45, -1.27, 0.66 }, zd = { 0.21, -0.34 }, zdd = { 0 },
  p = { 1.7, 0.9 }, u = { -0.6 }, w = { 1.4 },
}

-- functions[k] = { name =, exprs =, sparse =, max_statements =, wrt = list of z indices for complex step }
local functions = {}
local function add_fn(f) functions[#functions + 1] = f; return f end

local function flat_jacobian(exprs, syms)
  local J = D.jacobian(exprs, syms)
  local flat = {}
  for j = 1, #syms do for i = 1, #exprs do flat[#flat + 1] = J[i][j] end end
  return flat
end

-- 1. tip position of a 3-link spatial chain
local axes = { { 0, 0, 1 }, { 0, 1, 0 }, { 2 / 3, -1 / 3, 2 / 3 } }
local R, pos = V.eye(), { 0, 0, 0 }
for i = 1, 3 do
  pos = V.add(pos, V.matvec(R, { 0.5, 0.1 * i, -0.2 }))
  R = V.matmul(R, V.rot_axis(axes[i], z[i]))
end
pos = V.add(pos, V.matvec(R, { 0.3, 0.2, 0.1 }))
local chain = add_fn { name = "chain", exprs = pos, wrt = { 1, 2, 3 } }
local chain_dz = add_fn { name = "chain_dz", exprs = flat_jacobian(pos, { z[1], z[2], z[3] }) }
chain.jac = chain_dz

-- 2. seeded random DAGs over every node kind and every input array
local inputs = { z[1], z[2], z[3], z[4], z[5], z[6], zd[1], zd[2], p[1], p[2], u[1], w[1], t }
local rnd1_dz
local function random_dag(seed, n, nout)
  math.randomseed(seed)
  local pool = {}
  for i = 1, #inputs do pool[i] = inputs[i] end
  local function pick() return pool[math.random(#pool)] end
  local makers = {
    function(a, b) return 0.5 * (a + b) end,
    function(a, b) return a * E.cos(b) end,
    function(a, b) return a - b end,
    function(a) return E.sin(a) end,
    function(a) return E.cos(a) + E.sin(a) * 0.3 end,
    function(a, b) return a / (1.5 + b ^ 2) end,
    function(a) return E.sqrt(1 + a * a) end,
    function(a) return E.tanh(a) end,
    function(a) return E.exp(0.5 * E.sin(a)) end,
    function(a) return E.log(2 + a ^ 2) end,
    function(a, b) return E.atan2(a, 1 + b * b) end,
    function(a, b) return E.atan2(-0.5 - a * a, b) end,
    function(a) return E.abs(a) end,
    function(a, b) return E.min(a, b) end,
    function(a, b) return E.max(a, b) end,
    function(a, b, c) return E.select(a, b, c) end,
    function(a) return E.cos(a) ^ 3 end,
    function(a) return (1.5 + E.sin(a)) ^ -2 end,
    function(a) return E.tan(0.5 * E.sin(a)) end,
    function(a, b) return -(a * b) * 0.5 end,
  }
  for _ = 1, n do
    pool[#pool + 1] = makers[math.random(#makers)](pick(), pick(), pick())
  end
  local outs = {}
  for i = 1, nout do outs[i] = pool[#pool - 3 * (i - 1)] + 0.1 * pick() end
  return outs
end
for seed = 1, 3 do
  local outs = random_dag(seed, 250, 4)
  local f = add_fn { name = "rnd" .. seed, exprs = outs, wrt = { 1, 2, 3, 4, 5, 6 } }
  f.jac = add_fn { name = "rnd" .. seed .. "_dz", exprs = flat_jacobian(outs, z) }
  rnd1_dz = rnd1_dz or f.jac
end
-- the same Jacobian split into parts of at most 25 statements
local split = add_fn { name = "rnd1_dz_split", exprs = rnd1_dz.exprs, max_statements = 25 }

-- 3. sparsity: outputs on disjoint inputs
local disjoint = { E.sin(z[1]) * z[2], E.exp(z[3]) + z[4] ^ 2, p[1] * z[5] }
local dsyms = { z[1], z[2], z[3], z[4], z[5], z[6] }
local sp_exprs = flat_jacobian(disjoint, dsyms)
local sparse_fn = add_fn { name = "disjoint_dz_sparse", exprs = sp_exprs, sparse = true }
local dense_fn = add_fn { name = "disjoint_dz_dense", exprs = sp_exprs }
local expected_nz = { [1] = true, [4] = true, [8] = true, [11] = true, [15] = true } -- column-major, 3 rows
local pattern_ok = true
for k = 1, #sp_exprs do
  if (sp_exprs[k] ~= E.zero) ~= (expected_nz[k] == true) then pattern_ok = false end
end
tap.ok(pattern_ok, "Jacobian of outputs on disjoint inputs has exactly the structural zeros")

-- 4. constants only: `a` must be cast to void
add_fn { name = "constants", exprs = { 1, 0, -2.5, 1e-300 } }

-- emit
local texts = {}
for _, f in ipairs(functions) do
  f.text, f.info = C.emit_function { name = f.name, exprs = f.exprs, sparse = f.sparse, comment = f.name .. " test",
    max_statements = f.max_statements }
  texts[#texts + 1] = f.text
  local nout = #f.exprs
  f.nout = nout
end

-- the C program: runs every function on the inputs, prints outputs as hex floats; under MB_COMPLEX also
-- the complex-step derivative of the value functions along their `wrt` coordinates.
local function hex(v) return string.format("%a", v) end
local function carray(name, list)
  local s = {}
  for i = 1, #list do s[i] = hex(list[i]) end
  return "static const double " .. name .. "[] = { " .. table.concat(s, ", ") .. " };\n"
end
local maxout, maxwork = 0, 1
for _, f in ipairs(functions) do maxout, maxwork = math.max(maxout, f.nout), math.max(maxwork, f.info.nwork) end
local src = { "/* generated by tests/sym_emit_c.t */\n#include <stdio.h>\n#include \"mb_model.h\"\n\n",
  table.concat(texts, "\n"), "\n",
  carray("Z", env.z), carray("ZD", env.zd), carray("P", env.p), carray("U", env.u), carray("W", env.w),
  "#define SENTINEL 12345.0\n",
  "static void show(const mb_real *o, int n) { for (int i = 0; i < n; i++) printf(\"%a\\n\", (double)MB_RE(o[i])); }\n",
  "int main(void)\n{\n",
  "    mb_real z[6], zd[2], p[2], u[1], w[1], out[" .. maxout .. "], work[" .. maxwork .. "];\n",
  "    for (int i = 0; i < 6; i++) z[i] = Z[i];\n",
  "    for (int i = 0; i < 2; i++) { zd[i] = ZD[i]; p[i] = P[i]; }\n",
  "    u[0] = U[0]; w[0] = W[0];\n",
  "    mb_args a;\n    a.t = " .. hex(env.t) .. "; a.z = z; a.zd = zd; a.zdd = 0; a.u = u; a.p = p; a.w = w;\n",
}
local function add(s) src[#src + 1] = s end
for _, f in ipairs(functions) do
  add(string.format("    for (int i = 0; i < %d; i++) out[i] = SENTINEL;\n", f.nout))
  add(string.format("    if (%s(&a, out, work) != MB_FN_OK) return 1;\n    show(out, %d);\n", f.name, f.nout))
end
add("#ifdef MB_COMPLEX\n")
for _, f in ipairs(functions) do
  if f.wrt then
    for _, j in ipairs(f.wrt) do
      add(string.format("    z[%d] = Z[%d] + 1e-30 * I; (void)%s(&a, out, work); z[%d] = Z[%d];\n", j - 1, j - 1, f.name, j - 1, j - 1))
      add(string.format("    for (int i = 0; i < %d; i++) printf(\"%%a\\n\", cimag(out[i]) / 1e-30);\n", f.nout))
    end
  end
end
add("#endif\n    return 0;\n}\n")
local cfile = tmpdir .. "all.c"
local fh = assert(io.open(cfile, "w"))
fh:write(table.concat(src))
fh:close()

local function build_and_run(tag, flags)
  local exe = tmpdir .. "all_" .. tag
  local cmd = string.format("%s %s %s -I%sruntime %s -o %s -lm 2>&1", CC, CFLAGS, flags, root, cfile, exe)
  local ph = io.popen(cmd)
  local msg = ph:read("a")
  local okc = ph:close()
  if not tap.ok(okc and msg == "", "compiles with -Werror " .. tag) then
    tap.diag(msg:sub(1, 2000))
    return nil
  end
  ph = io.popen(exe)
  local vals = {}
  for line in ph:lines() do vals[#vals + 1] = tonumber(line) end
  ph:close()
  return vals
end

local function take(vals)
  local k = 0
  return function(n)
    local r = {}
    for i = 1, n do r[i] = vals[k + i] end
    k = k + n
    return r
  end
end

-- compares lists; one check per list, the worst entry in the diagnostics
local function close(got, want, rel, abs_, name)
  local worst, wi = -1, 0
  local pass = #got == #want
  for i = 1, #want do
    local g, wv = got[i], want[i]
    local tol = math.max(abs_, rel * math.abs(wv))
    local err = (type(g) == "number" and g == g) and math.abs(g - wv) or math.huge
    if err > tol then pass = false end
    if err / tol > worst then worst, wi = err / tol, i end
  end
  if not tap.ok(pass, name) then
    tap.diag(string.format("worst entry %d: got %.17g want %.17g", wi, got[wi] or 0 / 0, want[wi] or 0 / 0))
  end
end

local lua_vals = {}
for _, f in ipairs(functions) do lua_vals[f] = L.eval(f.exprs, env) end

local dvals = build_and_run("double", "")
if dvals then
  local nxt = take(dvals)
  local got = {}
  for _, f in ipairs(functions) do got[f] = nxt(f.nout) end
  for _, f in ipairs(functions) do
    if f.sparse then
      local sentinel_ok, vals_ok = true, true
      for k = 1, f.nout do
        if f.exprs[k] == E.zero then
          if got[f][k] ~= 12345.0 then sentinel_ok = false end
        elseif math.abs(got[f][k] - lua_vals[f][k]) > 1e-14 * math.abs(lua_vals[f][k]) then
          vals_ok = false
        end
      end
      tap.ok(sentinel_ok, f.name .. ": sparse output leaves structural zeros unwritten")
      tap.ok(vals_ok, f.name .. ": sparse non-zeros equal the Lua evaluator")
    else
      close(got[f], lua_vals[f], 1e-14, 1e-14, f.name .. ": C equals the Lua evaluator (1e-14)")
    end
  end
  local dz = got[dense_fn]
  local explicit = true
  for k = 1, #sp_exprs do if not expected_nz[k] and dz[k] ~= 0 then explicit = false end end
  tap.ok(explicit, "dense output writes explicit zeros")
  local same = true
  for k = 1, split.nout do same = same and got[split][k] == got[rnd1_dz][k] end
  tap.ok(same, "split-into-parts function gives bit-identical results")
  -- central differences of the Lua value function against the compiled Jacobian
  for _, f in ipairs(functions) do
    if f.jac then
      local cd = {}
      local h = 1e-6
      for _, j in ipairs(f.wrt) do
        local e1, e2 = {}, {}
        for k, v in pairs(env) do e1[k], e2[k] = v, v end
        e1.z, e2.z = { table.unpack(env.z) }, { table.unpack(env.z) }
        e1.z[j], e2.z[j] = env.z[j] + h, env.z[j] - h
        local v1, v2 = L.eval(f.exprs, e1), L.eval(f.exprs, e2)
        for i = 1, f.nout do cd[#cd + 1] = (v1[i] - v2[i]) / (2 * h) end
      end
      close(got[f.jac], cd, 1e-6, 1e-6, f.jac.name .. ": Jacobian equals central differences (1e-6)")
    end
  end
end

local cvals = build_and_run("complex", "-DMB_COMPLEX")
if cvals then
  local nxt = take(cvals)
  local got = {}
  for _, f in ipairs(functions) do got[f] = nxt(f.nout) end
  for _, f in ipairs(functions) do
    if not f.sparse then
      close(got[f], lua_vals[f], 1e-14, 1e-14, f.name .. ": complex build real part equals the Lua evaluator")
    end
  end
  for _, f in ipairs(functions) do
    if f.wrt then
      local cs = {}
      for _ = 1, #f.wrt do
        local col = nxt(f.nout)
        for i = 1, f.nout do cs[#cs + 1] = col[i] end
      end
      close(lua_vals[f.jac], cs, 1e-13, 1e-13, f.jac.name .. ": Jacobian equals complex step (1e-13)")
    end
  end
end

local fvals = build_and_run("float", "-DMB_REAL=float")
if fvals then
  local nxt = take(fvals)
  local worst = 0
  for _, f in ipairs(functions) do
    local g = nxt(f.nout)
    for k = 1, f.nout do
      if not (f.sparse and f.exprs[k] == E.zero) then
        local want = lua_vals[f][k]
        if math.abs(want) < 1e30 then worst = math.max(worst, math.abs(g[k] - want) / math.max(1, math.abs(want))) end
      end
    end
  end
  tap.ok(worst < 1e-3, string.format("float build agrees to single precision (worst %.2g)", worst))
end

-- the text itself
local function count_statements(body) local _, n = body:gsub(";\n", ""); return n end
local parts = 0
local parts_ok = true
for body in split.text:gmatch("static void rnd1_dz_split_part%d+%b()\n(%b{})") do
  parts = parts + 1
  -- Not counted: the casts, the struct pointer, and the stores of a sine or cosine kept for later parts.
  local n = count_statements(body) - select(2, body:gsub("%(void%)", "")) - select(2, body:gsub("%*const k = ", ""))
    - select(2, body:gsub("\n    k%->([%w_]+) = %1;", ""))
  if n > 25 then parts_ok = false end
end
tap.ok(parts >= 3 and parts_ok, "split into " .. parts .. " parts of at most 25 statements")
tap.like(split.text, "\n    k%->t%x+[_%d]* = ", "values crossing parts live in the caller's work[], as members of a struct")
tap.ok(not split.text:find("mb_real [%w_]+%[%d+%]"), "no array on the stack")
local members = (split.text:match("struct rnd1_dz_split_keep (%b{})") or ""):gsub("[^;]", ""):len()
tap.ok(split.info.nwork > 0 and members == split.info.nwork,
  "the reported work size is the struct's size in mb_reals (" .. members .. " members, nwork " .. split.info.nwork .. ")")
tap.like(functions[#functions].text, "%(void%)a;", "a function of constants casts a to void")
tap.like(chain.text, "const mb_real s0 = MB_SIN%(a%->z%[0%]%);\n    const mb_real c0 = MB_COS%(a%->z%[0%]%);",
  "sin and cos of z[0] are a named pair")
local all = table.concat(texts)
tap.ok(not all:find("pow%(") and not all:find("[^_]sin%(") and not all:find("fabs"), "no libm calls outside MB_* macros")
local cnt = C.count(chain.exprs)
tap.like(chain.text, string.format("%d additions, %d multiplications, %d divisions, %d function calls", cnt.add,
  cnt.mul, cnt.div, cnt.call), "header carries C.count")
local rough = true
for line in all:gmatch("[^\n]*= ([^\n]*);\n") do
  local stripped = line:gsub("%b[]", ""):gsub("%f[%w_][%a_][%w_]*", "")
  for lit in stripped:gmatch("[%d.]+[eE]?[-+]?%d*") do
    if not lit:find("[.eE]") then rough = false; tap.diag("integer literal in: " .. line) end
  end
end
tap.ok(rough, "every numeric literal outside indices is a double")
tap.is(C.literal(0.1), "0.1", "literal: shortest round trip")
tap.is(C.literal(3), "3.0", "literal: integers print as doubles")
tap.is(tonumber(C.literal(1 / 3)), 1 / 3, "literal: exact")

-- determinism: two emissions are byte-identical, and so is a fresh process that creates its symbols in
-- the opposite order and iterates a hash table to build its inputs
tap.is((C.emit_function { name = "rnd1_dz", exprs = rnd1_dz.exprs, comment = "rnd1_dz test" }), rnd1_dz.text, "emitting twice gives identical text")
local script = [[
package.path = %q
local E = require "sym.expr"
local V = require "sym.vec"
local D = require "sym.diff"
local C = require "sym.emit_c"
local order = { %s }
local q = {}
for _, i in ipairs(order) do q[i] = E.symbol("z", i - 1) end
local named = {}
for i = 1, 3 do named["k" .. (i * 7919 %% 13)] = q[i] end
local sum = 0
for _, v in pairs(named) do sum = sum + E.sin(v) end
local R, pos = V.eye(), { 0, 0, 0 }
local axes = { { 0, 0, 1 }, { 0, 1, 0 }, { 2 / 3, -1 / 3, 2 / 3 } }
for i = 1, 3 do
  pos = V.add(pos, V.matvec(R, { 0.5, 0.1 * i, -0.2 }))
  R = V.matmul(R, V.rot_axis(axes[i], q[i]))
end
pos[1] = pos[1] + sum
local J = D.jacobian(pos, q)
local flat = {}
for j = 1, 3 do for i = 1, 3 do flat[#flat + 1] = J[i][j] end end
io.write((C.emit_function { name = "f", exprs = flat }))
]]
local function run(order)
  local name = tmpdir .. "det_" .. order:gsub("%D", "") .. ".lua"
  local h = assert(io.open(name, "w"))
  h:write(script:format(package.path, order))
  h:close()
  local ph = io.popen("lua5.4 " .. name)
  local out = ph:read("a")
  ph:close()
  return out
end
local o1, o2 = run("1, 2, 3"), run("3, 1, 2")
tap.ok(#o1 > 100 and o1 == o2, "byte-identical emission whatever the symbol creation and pairs() order")

-- Pivots: checked after the outputs, in the last part when the function is split; a pivot that is not positive
-- and finite makes the function return MB_FN_SINGULAR.
do
  local x, y = E.symbol("z", 0, "x"), E.symbol("p", 0, "d")
  local d = y * y - 1
  local exprs = {}
  for i = 1, 40 do exprs[i] = E.sin(x * i) / d + E.cos(x * i) * d end
  local whole = C.emit_function { name = "g1", exprs = exprs, pivots = { d } }
  local split, info = C.emit_function { name = "g2", exprs = exprs, pivots = { d }, max_operations = 40 }
  tap.ok(info.nparts > 1 and split:match("static int g2_part%d+") and split:match("static void g2_part1"),
    "split: only the part with the checks returns a status (" .. info.nparts .. " parts)")
  local main = [[
#include <stdio.h>
#include "mb_model.h"
%s
%s
int main(void)
{
    mb_real z[1] = {0.3}, p[1], out[40], work[64];
    mb_args a = {0, z, 0, 0, 0, p, 0};
    double ds[4] = {2.0, 0.5, 1.0, 0.0 / 0.0};
    for (int k = 0; k < 4; ++k) {
        p[0] = ds[k];
        printf("%%d %%d\n", g1(&a, out, work), g2(&a, out, work));
    }
    return 0;
}
]]
  local cfile, exe = tmpdir .. "pivots.c", tmpdir .. "pivots"
  local fh = assert(io.open(cfile, "w"))
  fh:write(main:format(whole, split))
  fh:close()
  local ph = io.popen(string.format("%s %s -I%sruntime %s -o %s -lm 2>&1 && %s", CC, CFLAGS, root, cfile, exe, exe))
  local got = ph:read("a")
  ph:close()
  -- d = p^2 - 1: 3 (ok), -0.75, 0 and NaN (singular).
  tap.is(got, "0 0\n1 1\n1 1\n1 1\n", "pivots 3, -0.75, 0, NaN: OK, then MB_FN_SINGULAR whole and split")
end

tap.done_testing()
