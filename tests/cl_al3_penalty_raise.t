#!/usr/bin/env lua5.4
-- cl_al3_penalty_raise.t: near a singular configuration al3's multiplier update stalls (the 4 x 15 grid near its flat
-- configuration at t = 2.77 s, h = 10 ms); the penalty then rises, the run passes and follows a run with a stiff
-- penalty throughout; with the rise forbidden it fails with a hint that names the remedy. Elsewhere nothing changes.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/cl_al3_penalty_raise"
H.mkdir(TMP)
local function run(model, args) return H.run_z(model .. " " .. args, TMP) end
local function raises(out) return tonumber(out:match("raised (%d+) times")) end

-- The tangent is sparse (KLU, the default from 40 coordinates), whose factorization takes the raised penalty too.
-- -O0: the grid's 13 MB of C compile in a third of -O1's time (about 140 s of CPU), and its runs take seconds.
local GRID = "models/fourbar_grid.lua --set NY=4 --formulation al3 --step 0.01 --t-end 2.8 --cflags -O0"
local ok, out, err, _, z = run(GRID, "")
tap.ok(ok, "grid 4 x 15, h = 10 ms: al3 passes the near-singular configuration with the defaults")
if not ok then tap.diag(err) end
tap.ok((raises(out) or 0) >= 1 and out:find("tangent: sparse", 1, true),
  "the sparse tangent; the summary counts the penalty's rises (" .. tostring(raises(out)) .. ")")
tap.like(out, "penalty: alpha %S+ at the start, raised %d+ times .* %(to %S+ times at most, 10000 allowed%)",
  "the summary gives the start's penalty and the largest rise")

local okf, _, errf, codef = run(GRID, "--alpha-raise 1")
tap.ok(not okf and codef == 1, "with the rise forbidden (--alpha-raise 1) Newton fails there, exit status 1")
tap.like(errf, "Newton did not converge at t = 2%.7", "the message names the time of the stall")
tap.like(errf, "%-%-alpha%-rel 1e7", "the hint names the stiffer penalty")

local oks, _, errs, _, zs = run(GRID, "--alpha-rel 1e7 --newton-max-iter 200")
tap.ok(oks, "the same run with a stiff penalty throughout passes")
if not oks then tap.diag(errs) end
local e = ok and oks and H.max_diff(z, zs) or math.huge
tap.ok(e < 1e-8, string.format("the raised run ends where the stiff one does (%.1e)", e))

-- Where Newton converges as it should, no rise, and the motion is the fixed penalty's to the last digit.
local MODEL = "models/quick_return.lua --formulation al3 --t-end 0.5 --step 1e-3"
local ok1, o1, _, _, z1 = run(MODEL, "")
local ok2, _, _, _, z2 = run(MODEL, "--alpha-raise 1")
tap.ok(ok1 and ok2 and raises(o1) == 0, "quick_return: no rise (" .. tostring(raises(o1)) .. ")")
tap.ok(ok1 and ok2 and H.max_diff(z1, z2) == 0, "quick_return: the motion equals the fixed penalty's exactly")
local ok3, o3 = run(MODEL, "--alpha-rel 1e3")
local a5, a3 = tonumber(o1:match("penalty: alpha (%S+)")), tonumber(o3:match("penalty: alpha (%S+)"))
tap.ok(ok3 and a5 and a3 and math.abs(a5 / a3 / 100 - 1) < 1e-9,
  string.format("--alpha-rel 1e3 starts at a hundredth of the default's penalty (%s, %s)", tostring(a3), tostring(a5)))
local okp, op = run("models/quick_return.lua --formulation penalty --t-end 0.2 --step 1e-3", "")
tap.ok(okp and raises(op) == 0 and op:find("1 allowed", 1, true), "the pure penalty never raises its penalty")

for _, bad in ipairs { "--alpha-raise 0.5", "--alpha-rel 0", "--alpha-rel x" } do
  local okb, _, errb, codeb = run(MODEL, bad)
  tap.ok(not okb and codeb == 2 and errb:find(bad:match("^(%S+)"), 1, true), bad .. ": refused by name, exit status 2")
end
tap.done_testing()
