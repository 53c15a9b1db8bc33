#!/usr/bin/env lua5.4
-- run_failures.t: every way a run can fail stops with one message naming the time, the step and the cause with
-- the coordinate's name and what to try; the message is the same with and without --out, and the CSV holds
-- every row up to the last good state. The energy balance beyond its threshold exits 4 unless --allow-drift.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local tmp = H.root .. "build/tmp/run_failures"
H.sh("rm -rf '" .. tmp .. "' && mkdir -p '" .. tmp .. "'")

-- Runs a command from the repository root; stdout and stderr apart, and the exit status.
local function run(cmd)
  local e = tmp .. "/stderr"
  local p = io.popen(string.format("cd %s && %s 2>'%s'", H.root, cmd, e))
  local out = p:read("a")
  local ok, _, code = p:close()
  return ok and 0 or code, out, H.read(e) or ""
end

-- Rows of a CSV: { t, all entries finite, number of fields }.
local function rows(path)
  local text, list, header = H.read(path), {}, nil
  if not text then return nil end
  for line in text:gmatch("([^\n]*)\n") do
    if not header then
      header = select(2, line:gsub(",", ",")) + 1
    else
      local n, finite = 0, true
      for v in line:gmatch("[^,]+") do
        n = n + 1
        local x = tonumber(v)
        finite = finite and x ~= nil and x == x and math.abs(x) ~= math.huge
      end
      list[#list + 1] = { t = tonumber(line:match("^[^,]+")), finite = finite and n == header }
    end
  end
  return list, text:sub(-1) == "\n"
end

local MBGEN = "lua5.4 generator/mbgen run -q "
-- name, arguments, exit status, patterns the message must hold, where the CSV ends: "at" (its last row is the
-- time of the message: the step from there failed), "before" (the state at that time failed its checks), "none"
-- (the start failed: no file), "end" (the run completed).
local cases = {
  { "a force leaves its domain", MBGEN .. "tests/fixtures/nan_force.lua", 1,
    { "^mbrun: error at t = 1 %(step 1001%): forces Q%[0%] %(slide%) is NaN at t = 1%.0005; a model function may have left its domain",
      "try a smaller %-%-step" }, "at" },
  { "a force of a closed loop leaves its domain (matrix_r)", MBGEN .. "tests/fixtures/nan_force_loop.lua", 1,
    { "^mbrun: error at t = 1 %(step 1001%): forces Q%[0%] %(crank_pin%) is %-?nan at t = 1%.0005",
      "try a smaller %-%-step, %-%-integrator dopri5 %(adaptive%), or %-%-formulation al3" }, "at" },
  { "a force of a closed loop leaves its domain (al3)", MBGEN .. "tests/fixtures/nan_force_loop.lua --formulation al3", 1,
    { "^mbrun: error at t = 1 %(step 1001%): al3: residual entry 0 %(coordinate crank_pin%) is %-?nan at t = 1%.001" }, "at" },
  { "the state blows up", MBGEN .. "models/oscillator.lua --set k=1e6 --step 0.01 --t-end 5", 1,
    { "^mbrun: error at t = 0%.59 %(step 59%): energy is %(inf, inf%) at t = 0%.59; the largest velocity is zd%[0%] %(slide%)",
      "the run diverged: try a smaller %-%-step, %-%-integrator dopri5" }, "before" },
  { "Newton fails", MBGEN .. "models/double_pendulum.lua --integrator trapezoidal --newton-max-iter 1 --t-end 1", 1,
    { "^mbrun: error at t = 0 %(step 1%): trapezoidal: Newton did not converge", "largest correction in zdd%[%d%] %(%a+%)",
      "try a smaller %-%-step or more %-%-newton%-max%-iter" }, "at" },
  { "the step size underflows", MBGEN .. "models/double_pendulum.lua --integrator dopri5 --tolerance 1e-300 --t-end 1", 1,
    { "^mbrun: error at t = 0 %(step 1%): dopri5: step size", "fell below its limit",
      "largest error estimate in z%a*%[%d%] %(%a+%)", "try %-%-integrator trapezoidal" }, "at" },
  { "too many steps", MBGEN .. "models/double_pendulum.lua --max-steps 3 --t-end 1 --output-step 0.02", 1,
    { "^mbrun: error at t = 0 %(step 1%): rk4: .* more than max_steps = 3: raise %-%-max%-steps" }, "at" },
  { "the mechanism does not close", MBGEN .. "models/fivebar.lua --set LA1=5 --t-end 0.1", 1,
    { "^mbrun: error at t = 0 %(step 0%): model fivebar does not assemble at t = 0",
      "constraint equations J2%.1 %(|Phi| = %S+%), J2%.2 %(|Phi| =", "check its initial coordinates and its dimensions" },
    "none" },
  { "a redundant declared independent set", MBGEN .. "tests/fixtures/redundant_choice.lua --t-end 0.1", 1,
    { "^mbrun: error at t = 0 %(step 0%): model redundant_choice: the declared independent coordinates %(s3%) are "
      .. "redundant at t = 0", "constraint equations pin%.1 cannot be solved for s1, s2",
      "declare other independent coordinates or none" }, "none" },
  { "the mass matrix is indefinite", "build/run/models/oscillator/mbrun --set m=-1", 1,
    { "^mbrun: error at t = 0 %(step 1%): mass matrix of model oscillator is not positive definite at t = 0: it fails at coordinate z%[0%] %(slide%)",
      "check the masses and inertias" }, "at" },
  { "the energy balance is off", MBGEN .. "models/oscillator.lua --set k=1e6 --step 0.01 --t-end 0.5", 4,
    { "^mbrun: error: energy balance off by 1 relative", "threshold 0%.05, first exceeded at t = 0%.01, step 1",
      "the run diverged: try a smaller %-%-step", "%-%-allow%-drift accepts the run" }, "end" },
}

for _, c in ipairs(cases) do
  local name, cmd, want, patterns, csv_end = c[1], c[2], c[3], c[4], c[5]
  local csv = tmp .. "/" .. name:gsub("%W", "_") .. ".csv"
  local code1, _, err1 = run(cmd)
  local code2, _, err2 = run(cmd .. " --out " .. csv)
  tap.is(code1, want, name .. ": exit status " .. want)
  local all = true
  for _, p in ipairs(patterns) do
    if not err1:find(p) then
      all = false
      tap.diag("missing: " .. p)
    end
  end
  tap.ok(all and select(2, err1:gsub("\n", "")) == 1, name .. ": one line naming the time, the step, the cause and what to try")
  if not all then tap.diag(err1) end
  tap.is(err2, err1, name .. ": the same message with --out")
  tap.is(code2, code1, name .. ": the same exit status with --out")
  local list, flushed = rows(csv)
  local t_msg = tonumber(err1:match("error at t = (%S+)"))
  if csv_end == "none" then
    tap.ok(list == nil, name .. ": no CSV (no state was reached)")
  else
    local finite = list and #list > 0 and flushed
    for _, r in ipairs(list or {}) do finite = finite and r.finite end
    tap.ok(finite, name .. ": every CSV row complete and finite")
    local last = list and list[#list] and list[#list].t
    if csv_end == "at" then
      tap.is(last, t_msg, name .. ": the CSV ends at the last good state, t = " .. tostring(t_msg))
    elseif csv_end == "before" then
      tap.ok(last and last < t_msg and #list >= 2, name .. ": the CSV ends at the output before t = " .. tostring(t_msg)
        .. " (" .. tostring(last) .. ")")
    else
      tap.is(last, 0.5, name .. ": the CSV holds the whole run")
    end
  end
end

-- Rows are flushed one by one: a run killed in the middle leaves every row it computed, each complete.
local killed = tmp .. "/killed.csv"
run("timeout -s KILL 2 build/run/models/oscillator/mbrun --t-end 1e6 --output-step 1e-3 --out " .. killed)
local list = rows(killed) or {}
local complete = #list > 10
for i, r in ipairs(list) do complete = complete and r.finite and math.abs(r.t - (i - 1) * 1e-3) < 1e-9 end
tap.ok(complete, string.format("killed after 2 s: %d rows, each complete, at consecutive output times", #list))

-- --allow-drift accepts the drifted run: a warning, exit 0.
local code, _, err = run(MBGEN .. "models/oscillator.lua --set k=1e6 --step 0.01 --t-end 0.5 --allow-drift")
tap.is(code, 0, "--allow-drift: exit 0")
tap.like(err, "^mbrun: warning: energy balance off by 1 relative", "--allow-drift: a warning")
-- A stable run of the same model passes the check; --drift-tol tightens it.
code, _, err = run(MBGEN .. "models/oscillator.lua --set k=1e6 --step 1e-4 --t-end 0.5")
tap.is(code, 0, "k = 1e6 at h = 1e-4 (omega h = 0.1): no warning, exit 0")
tap.is(err, "", "and nothing on stderr")
code, _, err = run(MBGEN .. "models/oscillator.lua --integrator dopri5 --tolerance 1e-3 --drift-tol 1e-9")
tap.is(code, 4, "dopri5 at tolerance 1e-3 misses a balance threshold of 1e-9: exit 4")
tap.like(err, "the energy drifted: try a smaller %-%-tolerance", "and says the energy drifted")
-- A negative mass from mbgen's own --set is refused before the run, at --set.
code, _, err = run(MBGEN .. "models/oscillator.lua --set m=-1")
tap.is(code, 2, "mbgen run --set m=-1: exit 2")
tap.like(err, '^%-%-set m=%-1: models/oscillator%.lua:%d+: body "mass": negative mass %-1', "reported at --set m=-1")
tap.done_testing()
