#!/usr/bin/env lua5.4
-- cl_independent_h.t: general independent coordinates q = h(z, rho) (seeds/000.md §1.4, form b) on
-- models/fivebar_point.lua: the model's errors, a 5 s run that holds q = h(z) with no re-choice, the sensitivities
-- over 5 s (DDM = central differences of whole runs, AVM = DDM, on the trapezoidal rule and rk4) and the same
-- trajectory and gradients with the joint angles as degrees of freedom (DoF-choice invariance).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local dir = os.getenv("TMPDIR") or "/tmp"
dir = dir .. "/mbgen_independent_h_" .. tostring(os.time()) .. "_" .. tostring(math.random(1e6))
H.mkdir(dir .. "/lib")
H.write(dir .. "/lib/five_bar.lua", H.read(H.root .. "models/lib/five_bar.lua"))
local model = H.read(H.root .. "models/fivebar_point.lua")

-- The model with its `independent` statement replaced; returns the file's path and the statement's line.
local function variant(name, statement)
  local text, count = model:gsub("\nif POINT == 1 then\n.-\nend\n", "\n" .. statement .. "\n")
  assert(count == 1, "fivebar_point.lua: the independent statement moved")
  local path = dir .. "/" .. name .. ".lua"
  H.write(path, text)
  local line = 1
  for l in text:gmatch("([^\n]*)\n") do
    if l:match("^independent") then break end
    line = line + 1
  end
  return path, line
end

-- Errors: one line naming the file, the statement's line and the element, exit status 2.
local bad = {
  { "reads_velocity", 'independent { x2 = function(s) return s.zd.J0 end, y2 = function(s) return s.z.J4 end }',
    "s.zd: an independent coordinate is a function of the positions (s.z, s.point.NAME.pos)" },
  { "reads_point_velocity", 'independent { x2 = function(s) return s.point.P2.vel[1] end, y2 = function(s) return s.z.J4 end }',
    "s.point.P2.vel: an independent coordinate is a function of the positions" },
  { "not_a_function", 'independent { "J0", x2 = 0.2 }', 'entry "x2" must be a function(s) of the positions (got number)' },
  { "clash", 'independent { "J4", J0 = function(s) return s.z.J1 end }', 'coordinate "J0" is already a coordinate of joint "J0"' },
  { "clash_body", 'independent { "J4", bar1 = function(s) return s.z.J1 end }', 'coordinate "bar1" has the name of a body' },
  { "returns_vector", 'independent { "J4", x2 = function(s) return s.point.P2.pos end }',
    'coordinate "x2" must return a number or an expression (got table)' },
  { "unknown_point", 'independent { "J4", x2 = function(s) return s.point.P3.pos[1] end }', "s.point.P3 does not exist" },
}
for _, case in ipairs(bad) do
  local path, line = variant(case[1], case[2])
  local ok, out, err, code = H.mbgen("info '" .. path .. "'", dir)
  local expect = string.format("%s:%d: independent: ", path, line)
  local first = err:match("^[^\n]*") or ""
  tap.ok(not ok and code == 2 and first:sub(1, #expect) == expect and first:find(case[3], 1, true) ~= nil,
    string.format("%s: %s", case[1], first))
  if not (first:find(case[3], 1, true)) then tap.diag(out .. err) end
end

-- A start value given by name is held by the assembly instead of h of the other start values.
do
  local path = variant("initial_x2", 'independent { "J4", x2 = function(s) return s.point.P2.pos[1] end }\n' ..
    "initial { x2 = 0.25 }")
  local ok, out, err = H.mbgen("run -q '" .. path .. "' --t-end 0 --out '" .. dir .. "/initial.csv'", dir)
  local row = H.csv_last(dir .. "/initial.csv")
  tap.ok(ok and row["z.x2"] == 0.25 and math.abs(row["P2.x"] - 0.25) < 1e-12,
    string.format("initial { x2 = 0.25 }: the assembly holds it, A2.x = %.15g", row["P2.x"] or 0 / 0))
  if not ok then tap.diag(out .. err) end
end

-- 5 s on the model's trapezoidal rule: q = h(z) at every output row, the loop closed, no re-choice.
do
  local csv = dir .. "/run.csv"
  local ok, out, err = H.mbgen("run models/fivebar_point.lua --out '" .. csv .. "'", dir)
  local rows, names = {}, nil
  for l in (H.read(csv) or ""):gmatch("[^\n]+") do
    local cells = {}
    for c in l:gmatch("[^,]+") do cells[#cells + 1] = c end
    if not names then
      names = {}
      for i, c in ipairs(cells) do names[c] = i end
    else
      rows[#rows + 1] = cells
    end
  end
  local worst = 0
  for _, r in ipairs(rows) do
    worst = math.max(worst, math.abs(r[names["z.x2"]] - r[names["P2.x"]]), math.abs(r[names["z.y2"]] - r[names["P2.y"]]))
  end
  local first = rows[1] or {}
  tap.ok(ok and #rows == 1001 and worst < 1e-12, string.format("5 s, %d rows: x2, y2 equal A2's coordinates (worst %.2g)",
    #rows, worst))
  tap.ok(ok and tonumber(first[names and names["z.x2"] or 1]) == 0.2 or false,
    "x2 starts at A2.x = 0.2, h of the start angles (the hanging five-bar is symmetric at rest)")
  local pos, resel = out:match("position ([%d%.e%-]+), velocity.-(%d+) re%-selections")
  tap.ok(tonumber(pos) and tonumber(pos) < 1e-10 and resel == "0",
    string.format("the loop stays closed (%s) with no re-choice of x2, y2 (%s)", tostring(pos), tostring(resel)))
  tap.ok(out:match("independent coordinates %(2%): x2, y2") ~= nil, "the summary names x2, y2 as the independent set")
  if not ok then tap.diag(out .. err) end
end

-- The formulations that factor M alone refuse it, naming the massless coordinate; al3 and penalty run.
do
  local ok, out, err = H.mbgen("run -q models/fivebar_point.lua --formulation baumgarte --integrator rk4 --t-end 0.01", dir)
  tap.ok(not ok and (out .. err):find("M is singular at coordinate x2", 1, true) ~= nil,
    "baumgarte: refused, naming x2 and the formulations that work")
  local oka, outa = H.mbgen("run -q models/fivebar_point.lua --formulation al3 --integrator rk4 --t-end 1", dir)
  local pa = tonumber(outa:match("position ([%d%.e%-]+)"))
  tap.ok(oka and pa and pa < 1e-10, string.format("al3 runs 1 s with x2, y2 (position violation %s)", tostring(pa)))
end

-- Sensitivities over the whole 5 s: no re-choice, so the gradient exists, and every method and rule agree.
local worst = H.grad_worst
local P = { "LA1", "Ls1", "Ls2", "mA1", "xGA1" }
for _, obj in ipairs { "psi1", "psi2", "psi3" } do
  local base = "models/fivebar_point.lua --cflags -O1 --objective " .. obj
  local ok, out, d = H.sens(base .. " --integrator trapezoidal --fd 1e-6")
  if not tap.ok(ok and d.reselections == 0 and d["grad.LA1"], obj .. ": the trapezoidal DDM runs 5 s, no re-choice") then
    tap.diag(out)
  else
    local w, at = worst(d, d, "grad.", "fd.", P)
    tap.ok(w < 1e-6, string.format("%s: DDM = central differences of whole runs (worst %.2g at %s)", obj, w, tostring(at)))
    local oka, _, a = H.sens(base .. " --integrator trapezoidal --method avm")
    w, at = worst(a, d, "grad.", "grad.", P)
    tap.ok(oka and a.psi == d.psi and w < 1e-10, string.format("%s: trapezoidal AVM = DDM (worst %.2g at %s)", obj, w, tostring(at)))
    -- 5000 steps in 50 checkpoints (101 steps held at a time, each taken again once): the gradient to the bit.
    local okc, _, ac = H.sens(base .. " --integrator trapezoidal --method avm --checkpoints 50")
    local same = okc and ac.psi == a.psi and a.recomputed_steps == 0 and ac.stored_states == 50 + 100 + 1
    for _, n in ipairs(P) do same = same and ac["grad." .. n] == a["grad." .. n] end
    tap.ok(same, string.format("%s: trapezoidal AVM with 50 checkpoints = every step kept, to the bit (%s states, %s "
      .. "steps taken again)", obj, tostring(ac.stored_states), tostring(ac.recomputed_steps)))
    local okr, _, r = H.sens(base .. " --integrator rk4")
    local okq, _, q = H.sens(base .. " --integrator rk4 --method avm")
    w, at = worst(q, r, "grad.", "grad.", P)
    tap.ok(okr and okq and w < 1e-10, string.format("%s: rk4 AVM = DDM (worst %.2g at %s)", obj, w, tostring(at)))
    w, at = worst(d, r, "grad.", "grad.", P)
    tap.ok(w < 1e-3 and w > 0, string.format("%s: trapezoidal = rk4 to the O(h²) of h = 1 ms (worst %.2g at %s)", obj, w,
      tostring(at)))
    -- The same motion with the ground joints as degrees of freedom: the same psi and the same gradient for every
    -- parameter that does not move the start (LA1 does: x2, y2 held there, J0 and J4 held here).
    local okj, outj, j = H.sens(base .. " --integrator rk4 --set POINT=0")
    local same = { "Ls1", "Ls2", "mA1", "xGA1" }
    w, at = worst(j, r, "grad.", "grad.", same)
    local dpsi = math.abs(j.psi - r.psi) / math.abs(r.psi)
    tap.ok(okj and dpsi < 1e-8 and w < 1e-7, string.format("%s: joint angles as DoF give psi to %.2g and the gradient to " ..
      "%.2g (at %s), rk4 at 1 ms", obj, dpsi, w, tostring(at)))
    if not okj then tap.diag(outj) end
    tap.ok(okj and math.abs(j["grad.LA1"] - r["grad.LA1"]) > 1e-4 * math.abs(j["grad.LA1"]),
      string.format("%s: held starts differ in LA1 (%.8g against %.8g)", obj, r["grad.LA1"], j["grad.LA1"]))
    -- Started as the joint model starts (--start-hold J0,J4: x2, y2 = h of that pose for every design), the two
    -- choices are one problem: every component agrees, LA1 included, and equals central differences whose runs
    -- start the same way; the AVM carries the start's dz0/dp as its boundary term.
    local okh, outh, sh = H.sens(base .. " --integrator rk4 --start-hold J0,J4 --fd 1e-6")
    w, at = worst(sh, j, "grad.", "grad.", P)
    dpsi = math.abs(sh.psi - j.psi) / math.abs(j.psi)
    tap.ok(okh and dpsi < 1e-8 and w < 1e-7, string.format("%s: --start-hold J0,J4: psi to %.2g and every gradient " ..
      "component to %.2g (at %s) of the joint model's", obj, dpsi, w, tostring(at)))
    if not okh then tap.diag(outh) end
    w, at = worst(sh, sh, "grad.", "fd.", P)
    tap.ok(okh and w < 1e-6, string.format("%s: --start-hold: DDM = central differences (worst %.2g at %s)", obj, w, tostring(at)))
    local oka2, _, ah = H.sens(base .. " --integrator rk4 --start-hold J0,J4 --method avm --checkpoints 7")
    w, at = worst(ah, sh, "grad.", "grad.", P)
    tap.ok(oka2 and w < 1e-10, string.format("%s: --start-hold: AVM = DDM (worst %.2g at %s)", obj, w, tostring(at)))
  end
end

-- --start-hold refuses what it cannot hold, naming it.
do
  local base = "models/fivebar_point.lua --cflags -O1 --objective psi2 --integrator rk4 --t-end 0.01 --start-hold "
  for _, c in ipairs {
    { "J0", "hold J0: model fivebar_point has 2 degrees of freedom" },
    { "J0,J0", "hold J0, J0" },
    { "J0,J9", "no coordinate 'J9'" },
  } do
    local ok, out, err = H.mbgen("sens -q " .. base .. c[1], dir)
    tap.ok(not ok and (out .. err):find(c[2], 1, true) ~= nil, "--start-hold " .. c[1] .. ": " .. (out .. err):gsub("\n.*", ""))
  end
  local ok, out, err = H.mbgen("sens -q models/double_pendulum.lua --cflags -O1 --t-end 0.01 --start-hold q1", dir)
  tap.ok(not ok and (out .. err):find("no closed loops", 1, true) ~= nil, "--start-hold on an open tree is refused")
end

-- Many design parameters (motors on J0 and J4 with 3 harmonics each: 17 parameters): the adjoint's transposed
-- tangent (its cost flat in the parameters) against the DDM's columns and central differences.
do
  local base = "models/fivebar_point.lua --set NHARM=3 --cflags -O1 --objective psi2 --integrator trapezoidal"
  local ok, out, d = H.sens(base .. " --fd 1e-6")
  local oka, outa, a = H.sens(base .. " --method avm")
  local names = {}
  for k in pairs(d) do
    local n = k:match("^grad%.(.+)$")
    if n then names[#names + 1] = n end
  end
  table.sort(names)
  if tap.ok(ok and oka and #names == 17, string.format("NHARM=3: DDM and AVM give %d gradients", #names)) then
    local w, at = worst(d, d, "grad.", "fd.", names)
    tap.ok(w < 1e-6, string.format("NHARM=3: DDM = central differences (worst %.2g at %s)", w, tostring(at)))
    w, at = worst(a, d, "grad.", "grad.", names)
    tap.ok(a.psi == d.psi and w < 1e-10, string.format("NHARM=3: AVM = DDM (worst %.2g at %s)", w, tostring(at)))
  else
    tap.diag(out .. outa)
  end
end

H.sh("rm -rf '" .. dir .. "'")
tap.done_testing()
