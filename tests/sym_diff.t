#!/usr/bin/env lua5.4
-- sym_diff.t: sym.diff forward, Jacobian, reverse and second derivatives against central differences.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local E = require "sym.expr"
local D = require "sym.diff"
local L = require "sym.eval"

local x, y, c = E.symbol("z", 0, "x"), E.symbol("zd", 0, "y"), E.symbol("p", 0, "c")
local t = E.symbol("t")
local env = { z = { 0.7 }, zd = { -0.4 }, p = { 1.3 }, t = 0.25 }

local function at(s, v)
  local e = { z = { env.z[1] }, zd = { env.zd[1] }, p = { env.p[1] }, t = env.t }
  if s == t then e.t = v else e[s.array][s.index + 1] = v end
  return e
end
local function value_of(s) return s == t and env.t or env[s.array][s.index + 1] end

-- central difference of f at env along s
local function cd(f, s, h)
  h = h or 1e-5
  local v = value_of(s)
  return (L.eval(f, at(s, v + h)) - L.eval(f, at(s, v - h))) / (2 * h)
end

local cases = {
  { "add", x + y * 2 + c },
  { "mul", x * y * E.sin(x) * 3 },
  { "div", (x + 2) / (y - 1) },
  { "div by x", y / x },
  { "neg", -(x * y) },
  { "pow 3", x ^ 3 },
  { "pow -2", (x + y) ^ -2 },
  { "sin", E.sin(x * y) },
  { "cos", E.cos(x * y) },
  { "tan", E.tan(x + y) },
  { "sqrt", E.sqrt(x * x + 1) },
  { "exp", E.exp(x * y) },
  { "log", E.log(x + 2) },
  { "tanh", E.tanh(x - y) },
  { "atan2", E.atan2(x + y, c - x) },
  { "atan2 x<0", E.atan2(x, -c) },
  { "abs +", E.abs(x) },
  { "abs -", E.abs(y) },
  { "min a", E.min(x, c) },
  { "min b", E.min(c, x) },
  { "max a", E.max(x, y) },
  { "max b", E.max(y, x) },
  { "select +", E.select(x, x * x, y) },
  { "select -", E.select(y, x * x, E.sin(x)) },
  { "t", E.sin(t * x) },
}
for _, case in ipairs(cases) do
  local name, f = case[1], case[2]
  for _, s in ipairs { x, y, c, t } do
    local d = D.derivative(f, s)
    tap.is_double(L.eval(d, env), cd(f, s), 1e-7, 1e-8, "d/d" .. (s.array == "t" and "t" or s.array) .. " " .. name)
  end
end

-- one-sided derivatives at the switch points (the branch the function itself takes)
local x0 = { z = { 0 }, zd = { 0 }, p = { 0 }, t = 0 }
tap.is(L.eval(D.derivative(E.abs(x), x), x0), 1.0, "abs'(0) = +1 (the x branch, as MB_ABS)")
tap.is(L.eval(D.derivative(E.min(x, c), x), x0), 1.0, "min at a tie follows its first operand")
tap.is(L.eval(D.derivative(E.min(c, x), x), x0), 0.0, "min at a tie: second operand gets 0")
tap.is(L.eval(D.derivative(E.max(x, c), x), x0), 1.0, "max at a tie follows its first operand")
tap.is(L.eval(D.derivative(E.select(x, x, 2 * x), x), x0), 2.0, "select at 0 takes the else branch")

-- structural zeros and the Jacobian
tap.ok(D.derivative(E.sin(y), x) == E.zero, "independent expression has the zero node as derivative")
tap.ok(D.derivative(x, x) == E.one and D.derivative(3, x) == E.zero, "leaves")
local J = D.jacobian({ x * y, E.sin(c), 4 }, { x, y, c })
tap.ok(J[1][3] == E.zero and J[2][1] == E.zero and J[2][2] == E.zero and J[3][1] == E.zero, "Jacobian zeros")
tap.ok(J[1][1] == y and J[1][2] == x and J[2][3] == E.cos(c), "Jacobian entries")
tap.ok(D.derivative(x * y, x) == D.derivative(x * y, x), "memoized")

-- reverse mode equals forward mode numerically on every case
for _, case in ipairs(cases) do
  local g = D.gradient(case[2], { x, y, c, t })
  local good = true
  for j, s in ipairs { x, y, c, t } do
    local fw = L.eval(D.derivative(case[2], s), env)
    local rv = L.eval(g[j], env)
    if math.abs(fw - rv) > 1e-14 * math.max(1, math.abs(fw)) then good = false end
  end
  tap.ok(good, "gradient = forward: " .. case[1])
end
tap.ok(D.gradient(E.sin(y), { x })[1] == E.zero, "gradient structural zero")

-- second derivatives, by applying twice, against the closed form
local f = E.sin(x * y) * E.exp(x)
local fxy = D.derivative(D.derivative(f, x), y)
local xv, yv = env.z[1], env.zd[1]
-- f_y = x cos(xy) e^x, so f_xy = e^x (cos(xy) - xy sin(xy) + x cos(xy))
local want = math.exp(xv) * (math.cos(xv * yv) - xv * yv * math.sin(xv * yv) + xv * math.cos(xv * yv))
tap.is_double(L.eval(fxy, env), want, 1e-14, 0, "d2/dx dy by forward twice")
local fyx = D.derivative(D.derivative(f, y), x)
tap.is_double(L.eval(fyx, env), want, 1e-14, 0, "mixed partials commute")
local H = D.jacobian(D.gradient(f, { x, y }), { x, y })
tap.is_double(L.eval(H[1][2], env), want, 1e-14, 0, "Hessian by forward over reverse")
tap.is_double(L.eval(D.derivative(x ^ 4, x), env), 4 * xv ^ 3, 1e-15, 0, "d x^4")
tap.is_double(L.eval(D.derivative(D.derivative(x ^ 4, x), x), env), 12 * xv ^ 2, 1e-15, 0, "d2 x^4")

-- scale: the forward derivative of an N-node DAG adds O(N) nodes
local function random_dag(n, seed)
  local rnd = math
  rnd.randomseed(seed)
  local pool = { x, y, c }
  for _ = 1, n do
    local a, b = pool[rnd.random(#pool)], pool[rnd.random(#pool)]
    local r = rnd.random(5)
    local v
    if r == 1 then v = a + b elseif r == 2 then v = a * b elseif r == 3 then v = E.sin(a) + 0.5 * b
    elseif r == 4 then v = a - 1.5 * b else v = a / (2 + b * b) end
    pool[#pool + 1] = v
  end
  return pool[#pool], pool
end
local ratios = {}
for _, n in ipairs { 5000, 20000 } do
  local _, pool = random_dag(n, 7)
  local before = E.count_nodes(pool)
  local ds = {}
  for i = 1, #pool do ds[i] = D.derivative(pool[i], x) end
  for i = 1, #ds do pool[#pool + 1] = ds[i] end
  local after = E.count_nodes(pool)
  ratios[#ratios + 1] = after / before
  tap.diag(string.format("N = %d nodes: derivative of every node adds %d nodes (ratio %.2f)", before,
    after - before, after / before))
end
tap.ok(ratios[2] < 12 and ratios[2] < ratios[1] * 1.3, "derivative node growth is linear in N")

tap.done_testing()
