#!/usr/bin/env lua5.4
-- sens_tree.t: `mbgen sens` on the chain (N = 8, ten design parameters): DDM (rk4, trapezoidal), AVM and
-- central differences of whole simulations agree; closed loops and bad options are refused.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local sens = H.sens

-- Eight masses and two centre-of-mass offsets; -O0 keeps the compile short (values, not speed).
local base = "models/chain.lua --set N=8 --set NDESIGN=10 --cflags -O0 --t-end 0.3"
local names = {}
for i = 1, 2 do names[#names + 1] = string.format("c%02d", i) end
for i = 1, 8 do names[#names + 1] = string.format("m%02d", i) end

-- Errors relative to the largest gradient component (as mbgen check does with matrix max-norms): a
-- component a hundred times smaller than the others carries the same absolute noise.
local function worst(a, b, prefix_a, prefix_b) return H.grad_worst(a, b, prefix_a, prefix_b, names) end

-- The chain's gradients are O(0.1 .. 1): 1e-6 relative is the issue's acceptance bound.
local ok, out, rk = sens(base .. " --fd 1e-5")
if not tap.ok(ok and rk.psi, "mbgen sens chain: DDM rk4 runs") then tap.diag(out) end
for _, n in ipairs(names) do tap.ok(rk["grad." .. n] ~= nil, "grad." .. n .. " printed") end
local w, at = worst(rk, rk, "grad.", "fd.")
tap.ok(w < 1e-6, string.format("DDM rk4 = central differences of whole rk4 runs (worst %.2g at %s)", w, tostring(at)))

local ok2, out2, tr = sens(base .. " --integrator trapezoidal --newton-tol 1e-14 --fd 1e-5")
if not tap.ok(ok2 and tr.psi, "DDM trapezoidal runs") then tap.diag(out2) end
w, at = worst(tr, tr, "grad.", "fd.")
tap.ok(w < 1e-6, string.format("DDM trapezoidal = central differences of whole trapezoidal runs (worst %.2g at %s)", w, tostring(at)))
tap.is(tr.factorizations, tr.steps + 1, "DDM trapezoidal: one factorization per step for all ten parameters")

local ok3, out3, av = sens(base .. " --method avm --checkpoints 4 --newton-tol 1e-14")
if not tap.ok(ok3 and av.psi, "AVM runs") then tap.diag(out3) end
w, at = worst(av, tr, "grad.", "grad.")
tap.ok(w < 1e-9, string.format("AVM = DDM trapezoidal (worst %.2g at %s)", w, tostring(at)))
tap.is(av.factorizations, av.steps + 1, "AVM: one factorization per step whatever np is")
tap.is(av.stored_states, 4 + 75 + 1, "AVM with 4 checkpoints holds 4 + 300/4 + 1 states")
tap.is(av.psi, tr.psi, "AVM and DDM trapezoidal share psi")
-- Different discretizations converge to the same gradient.
w, at = worst(rk, tr, "grad.", "grad.")
tap.ok(w < 1e-3, string.format("rk4 and trapezoidal gradients agree to the trapezoidal error (worst %.2g at %s)", w, tostring(at)))

-- Refusals.
local okc, outc = sens("models/fivebar.lua --method avm --integrator dopri5 --cflags -O0 --t-end 0.01 --allow-reselection")
tap.ok(not okc and outc:find("the closed-loop AVM on dopri5 does not cross a re-choice", 1, true),
  "closed loops: the AVM on dopri5 refuses --allow-reselection, naming the rules that cross one")
local okn, outn = sens("models/double_pendulum.lua --objective nope")
tap.ok(not okn and outn:match("has no objective 'nope'"), "an unknown objective is named")
local okm, outm = sens("models/double_pendulum.lua --method adjoint")
tap.ok(not okm and outm:match("not ddm or avm"), "an unknown method is refused")
local okt, outt = sens("models/tree.lua")
tap.ok(not okt and outt:match("declares no objective"), "a model without objectives is refused")
tap.done_testing()
