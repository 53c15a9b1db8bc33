-- tap.lua: a small TAP emitter for the Lua tests; the same calls as tests/tap.h.
local M = {}

local run, failed, planned = 0, 0, nil

local function report(pass, name)
  run = run + 1
  if not pass then failed = failed + 1 end
  io.write(pass and "" or "not ", "ok ", run, " - ", name or "", "\n")
  io.stdout:flush()
  return pass
end

function M.plan(n) planned = n; io.write("1..", n, "\n") end

function M.diag(...)
  local msg = table.concat({ ... }, " ")
  for line in (msg .. "\n"):gmatch("([^\n]*)\n") do io.write("# ", line, "\n") end
end

function M.ok(pass, name) return report(pass and true or false, name) end

local function show(v)
  if type(v) == "number" then return string.format("%.17g", v) end
  return string.format("%q", tostring(v))
end

-- Exact equality of numbers, strings or booleans.
function M.is(got, want, name)
  if report(got == want, name) then return true end
  M.diag("     got: " .. show(got))
  M.diag("expected: " .. show(want))
  return false
end

M.is_int = M.is

-- Passes when |got - want| <= max(abs_tol, rel_tol * |want|); NaN never passes.
function M.is_double(got, want, rel_tol, abs_tol, name)
  local pass = type(got) == "number" and type(want) == "number"
  local tol = math.max(abs_tol or 0, (rel_tol or 0) * math.abs(want or 0))
  pass = pass and got == got and want == want and math.abs(got - want) <= tol
  if report(pass, name) then return true end
  M.diag("     got: " .. show(got))
  M.diag("expected: " .. show(want))
  if type(got) == "number" and type(want) == "number" then
    M.diag(string.format("    diff: %.3g (tolerance %.3g)", math.abs(got - want), tol))
  end
  return false
end

-- Passes when text matches the Lua pattern.
function M.like(text, pattern, name)
  if report(type(text) == "string" and text:find(pattern) ~= nil, name) then return true end
  M.diag("     got: " .. show(text))
  M.diag("expected to match: " .. pattern)
  return false
end

-- Ends the test: prints the plan if none was given, exits with the failure count (capped at 254).
function M.done_testing()
  if not planned then io.write("1..", run, "\n")
  elseif planned ~= run then
    M.diag(string.format("planned %d tests but ran %d", planned, run))
    if failed == 0 then os.exit(255) end
  end
  io.stdout:flush()
  os.exit(math.min(failed, 254))
end

return M
