#!/usr/bin/env lua5.4
-- run_cli.t: `mbgen run` end to end: the summary, the cached build, CSV and SVG outputs, the energy balance
-- with non-conservative work, the reference states of seeds/004.md §8.2, and bad input that writes nothing.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local tmp = H.root .. "build/tmp/run_cli"
H.sh("rm -rf '" .. tmp .. "' && mkdir -p '" .. tmp .. "'")
local function mbgen(args) return H.sh("cd " .. H.root .. " && lua5.4 generator/mbgen run -q " .. args) end
local function exists(path) return H.read(path) ~= nil end

-- The double pendulum at t = 15 s (t = 5, 10, 20 are in e2e_double_pendulum.t), RK4 h = 1e-3.
local ok, out = mbgen("models/double_pendulum.lua --t-end 15 --integrator rk4 --step 1e-3")
tap.ok(ok, "mbgen run models/double_pendulum.lua runs")
tap.like(out, "^model double_pendulum: 2 coordinates, integrator rk4 %(step 0.001%), t = 0 .. 15 s", "summary first line")
local z1, zd1 = out:match("shoulder%s+z =%s+(%S+)%s+zd =%s+(%S+)")
local z2, zd2 = out:match("elbow%s+z =%s+(%S+)%s+zd =%s+(%S+)")
local ref = { -0.27533405, -0.20840905, 1.14606537, -0.59794247 }
local got = { tonumber(z1), tonumber(z2), tonumber(zd1), tonumber(zd2) }
for i, nm in ipairs { "theta1", "theta2", "theta1'", "theta2'" } do
  tap.is_double(got[i], ref[i], 0, 1e-6, "t = 15: " .. nm .. " matches seeds/004.md §8.2")
end
tap.like(out, "real%-time factor %d", "summary reports the real-time factor")
tap.like(out, "steps 15000, function evaluations 60000", "summary reports steps and function evaluations")

-- Cached build: a second run does not recompile the model's object.
local obj = H.root .. "build/run/models/double_pendulum/double_pendulum*.o"
local _, m1 = H.sh("stat -c '%n %.9Y' " .. obj)
mbgen("models/double_pendulum.lua --t-end 0.1 --quiet")
local _, m2 = H.sh("stat -c '%n %.9Y' " .. obj)
tap.ok(m1:match("%.o %d") and m1 == m2, "a second run reuses the compiled model (object unchanged): " .. m1)

-- CSV and SVG.
local csv, svg = tmp .. "/dp.csv", tmp .. "/dp.svg"
ok, out = mbgen(string.format("models/double_pendulum.lua --t-end 2 --out '%s' --plot '%s'", csv, svg))
tap.ok(ok, "--out and --plot succeed")
local text = H.read(csv) or ""
local header = text:match("^[^\n]*")
tap.is(header, "t,z.shoulder,z.elbow,zd.shoulder,zd.elbow,kinetic,potential,energy,P.x,P.y,P.z,Q.x,Q.y,Q.z",
  "CSV header: time, coordinates, velocities, energy, points")
local rows, finite = 0, true
for line in text:gmatch("[^\n]+") do
  rows = rows + 1
  if rows > 1 then
    for v in line:gmatch("[^,]+") do
      local x = tonumber(v)
      if not x or x ~= x or math.abs(x) == math.huge then finite = false end
    end
  end
end
tap.is(rows - 1, 1001, "CSV holds t_end / 1000 spaced rows plus t = 0")
tap.ok(finite, "every CSV value is a finite number")
local s = H.read(svg) or ""
tap.like(s, "^<svg xmlns=\"http://www.w3.org/2000/svg\"", "SVG root element")
local opens, closes = 0, 0
for tag in s:gmatch("<(/?)svg") do if tag == "/" then closes = closes + 1 else opens = opens + 1 end end
tap.ok(opens == 1 and closes == 1, "one svg element, closed")
local lines = {}
for pts in s:gmatch('<polyline[^>]- points="([^"]*)"') do
  local n, bad = 0, false
  for x, y in pts:gmatch("(%S+),(%S+)") do
    n = n + 1
    if not tonumber(x) or not tonumber(y) then bad = true end
  end
  lines[#lines + 1] = { n = n, bad = bad }
end
tap.is(#lines, 5, "five curves: two coordinates, kinetic, potential, total energy")
local all = #lines > 0
for _, l in ipairs(lines) do all = all and l.n == rows - 1 and not l.bad end
tap.ok(all, "every curve has one numeric point per CSV row")
tap.like(s, ">shoulder</text>", "the legend names the coordinates")

-- Energy balance with non-conservative work: the slider-crank's damper.
ok, out = mbgen("models/slider_crank.lua --t-end 2 --output-step 1e-3")
local dE, W = out:match("energy change (%S+), work of non%-conservative forces (%S+),")
dE, W = tonumber(dE), tonumber(W)
tap.ok(ok and W and W < 0, "the damper does negative work: " .. tostring(W))
tap.ok(dE and W and math.abs(dE - W) < 1e-5 * math.abs(W),
  string.format("E_end - E_start equals the work of the non-conservative forces (%.3g vs %.3g)", dE or 0, W or 0))

-- Energy of the chain N = 8 over 5 s with Dormand-Prince at rtol 1e-10 (a conservative tree).
ok, out = mbgen("models/chain.lua --set N=8 --t-end 5 --integrator dopri5 --tolerance 1e-10")
local rel = tonumber(out:match("balance %S+ %(relative (%S+)%)"))
tap.ok(ok and rel and math.abs(rel) < 1e-8, "chain N = 8, dopri5 rtol 1e-10, 5 s: relative energy error " .. tostring(rel))

-- Design parameters are set at run time: no new build folder, the summary says so.
ok, out = mbgen("models/oscillator.lua --set k=400 --t-end 0.5")
tap.ok(ok and out:find("set k=400", 1, true), "--set of a design parameter goes to the driver")
tap.ok(not exists(H.root .. "build/run/models/oscillator-k=400/oscillator.c"), "and does not regenerate the model")

-- Bad input: a message, a non-zero exit, and no output file.
local bad = {
  { "models/oscillator.lua --set k=nan", "not a number" },
  { "models/oscillator.lua --set k=1e999", "not finite" },
  { "models/oscillator.lua --step 0", "step must be positive" },
  { "models/oscillator.lua --step -1e-3", "step must be positive" },
  { "models/oscillator.lua --t-end -1", "t%-end must be >= 0" },
  { "models/oscillator.lua --integrator euler", "unknown integrator 'euler'" },
  { "models/no_such_model.lua", "cannot read the model file" },
  { "models/chain.lua --integrator trapezoidal --step 0.05 --newton-max-iter 1 --t-end 1", "Newton did not converge" },
  { "models/double_pendulum.lua --integrator dopri5 --tolerance 1e-300 --t-end 1", "fell below its limit" },
}
-- A bad command line writes nothing; a run that fails (exit 1) keeps its CSV up to the last good state, and
-- draws no plot.
local function no_tmp()
  local _, ls = H.sh("ls '" .. tmp .. "'")
  return not ls:find("%.tmp")
end
for i, b in ipairs(bad) do
  local o, e = tmp .. "/bad" .. i .. ".csv", tmp .. "/bad" .. i .. ".svg"
  local okb, outb, code = mbgen(string.format("%s --out '%s' --plot '%s'", b[1], o, e))
  tap.ok(not okb and code ~= 0, "exits non-zero: " .. b[1])
  tap.like(outb, b[2], "says why: " .. b[2])
  if code == 1 then
    local t_fail = tonumber(outb:match("error at t = (%S+) "))
    local last = (H.read(o) or ""):match("\n([^\n]+)\n$")
    tap.ok(t_fail and last and tonumber(last:match("^[^,]+")) == t_fail and not exists(e) and no_tmp(),
      "keeps the CSV up to t = " .. tostring(t_fail) .. ", no plot: " .. b[1])
  else
    tap.ok(not exists(o) and not exists(e) and no_tmp(), "writes nothing: " .. b[1])
  end
end
tap.done_testing()
