#!/usr/bin/env lua5.4
-- sens_closed.t: `mbgen sens` on closed loops (Matrix R): fivebar's three objectives and fourbar_spatial, the DDM
-- on rk4 and on the trapezoidal rule against central differences of whole simulations and against the AVM on the
-- same rule, rk4 against dopri5 and the trapezoidal rule.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local function sens(args)
  local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen sens -q %s", H.root, args))
  local kv, names = {}, {}
  for k, v in out:gmatch("([%w_%.]+) ([^\n]+)") do
    kv[k] = tonumber(v) or v
    local n = k:match("^grad%.(.+)$")
    if n then names[#names + 1] = n end
  end
  return ok, out, kv, names
end

-- Relative to the largest gradient component.
local worst = H.grad_worst

-- fivebar: 0.1 s, before the first change of independent coordinates (the run re-selects them later,
-- which makes the discrete trajectory non-smooth in p, and finite differences meaningless).
for _, obj in ipairs { "psi1", "psi2", "psi3" } do
  local ok, out, kv, names = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --fd 1e-6 --objective " .. obj)
  if not tap.ok(ok and kv.psi and #names == 5, "fivebar " .. obj .. ": DDM rk4 runs, five gradients") then tap.diag(out) end
  if ok then
    local w, at = worst(kv, kv, "grad.", "fd.", names)
    tap.ok(w < 1e-6, string.format("fivebar %s: DDM = central differences of whole runs (worst %.2g at %s)", obj, w, tostring(at)))
    local oka, outa, av = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --method avm --checkpoints 3 --objective " .. obj)
    if not tap.ok(oka and av.integrator == "rk4", "fivebar " .. obj .. ": AVM runs on rk4") then tap.diag(outa) end
    if oka then
      w, at = worst(av, kv, "grad.", "grad.", names)
      tap.ok(w < 1e-9, string.format("fivebar %s: AVM = DDM (worst %.2g at %s)", obj, w, tostring(at)))
    end
  end
end
-- The AVM on dopri5: the discrete adjoint of the accepted steps (their sizes held); its forward run takes its own
-- steps ([z; zd; psi] under the error control, the DDM's carry the sensitivities too), so it meets the DDM to the
-- tolerance, and central differences of whole runs of the same scheme closer.
for _, obj in ipairs { "psi1", "psi2", "psi3" } do
  local base = "models/fivebar.lua --cflags -O0 --t-end 0.1 --integrator dopri5 --tolerance 1e-10 --objective " .. obj
  local okd, outd, dd, dn = sens(base)
  local oka, outa, da = sens(base .. " --method avm --fd 1e-6")
  if tap.ok(okd and oka and #dn == 5 and da.stored_states == da.steps + 1 and da.recomputed_steps == 0, "fivebar " .. obj
    .. ": AVM on dopri5 runs, every accepted step kept") then
    local w, at = worst(da, dd, "grad.", "grad.", dn)
    tap.ok(w < 1e-6, string.format("fivebar %s: AVM (dopri5) = DDM (dopri5) to the tolerance (worst %.2g at %s)", obj, w,
      tostring(at)))
    w, at = worst(da, da, "grad.", "fd.", dn)
    tap.ok(w < 1e-6, string.format("fivebar %s: AVM (dopri5) = central differences of whole runs (worst %.2g at %s)", obj,
      w, tostring(at)))
    -- Four checkpoints: the states between them stepped again with the recorded sizes, to the same bits.
    local okc, outc, dc = sens(base .. " --method avm --checkpoints 4")
    local same = okc and dc.psi == da.psi
    for _, name in ipairs(dn) do same = same and dc["grad." .. name] == da["grad." .. name] end
    tap.ok(same and dc.recomputed_steps > 0 and dc.stored_states < da.stored_states, string.format("fivebar %s: AVM "
      .. "(dopri5) with 4 checkpoints: the same gradient to the bit, %d states kept instead of %d, %d steps taken again",
      obj, dc.stored_states or -1, da.stored_states, dc.recomputed_steps or -1))
    if not okc then tap.diag(outc) end
  else
    tap.diag(outd .. outa)
  end
end
local ok, out, rk, names = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --objective psi3")
local ok2, out2, dp = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --objective psi3 --integrator dopri5 --tolerance 1e-10")
if not tap.ok(ok and ok2, "fivebar psi3: rk4 and dopri5 run") then tap.diag(out .. out2) end
if ok and ok2 then
  local w, at = worst(dp, rk, "grad.", "grad.", names)
  tap.ok(w < 1e-5, string.format("fivebar psi3: dopri5 = rk4 to the rk4 error (worst %.2g at %s)", w, tostring(at)))
end

-- The DDM on the trapezoidal rule (the discrete derivative of the reduced implicit scheme, its exact tangent
-- shared with the next step's Newton): central differences of whole trapezoidal runs, and rk4's gradient to the
-- rules' O(h²) difference.
for _, obj in ipairs { "psi1", "psi3" } do
  local okt, outt, tz, tnames = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --fd 1e-6 --integrator trapezoidal --objective " .. obj)
  if not tap.ok(okt and tz.integrator == "trapezoidal" and #tnames == 5, "fivebar " .. obj .. ": DDM on the trapezoidal rule runs") then
    tap.diag(outt)
  end
  if okt then
    local w, at = worst(tz, tz, "grad.", "fd.", tnames)
    tap.ok(w < 1e-6, string.format("fivebar %s, trapezoidal: DDM = central differences of whole runs (worst %.2g at %s)", obj, w,
      tostring(at)))
    local _, _, rz = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --objective " .. obj)
    w, at = worst(tz, rz, "grad.", "grad.", tnames)
    tap.ok(w < 1e-3 and w > 0, string.format("fivebar %s: trapezoidal = rk4 to the O(h²) of h = 1 ms (worst %.2g at %s)", obj, w,
      tostring(at)))
    -- The adjoint of the same recurrence: the same motion (psi to the bit), the same gradient to round-off.
    local oka, outa, ta = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --integrator trapezoidal --method avm --objective " .. obj)
    if not tap.ok(oka and ta.integrator == "trapezoidal" and ta.method == "avm", "fivebar " .. obj ..
      ": AVM on the trapezoidal rule runs") then tap.diag(outa) end
    if oka then
      w, at = worst(ta, tz, "grad.", "grad.", tnames)
      tap.ok(ta.psi == tz.psi and w < 1e-12, string.format("fivebar %s, trapezoidal: AVM = DDM (psi equal, gradient worst %.2g at %s)",
        obj, w, tostring(at)))
      tap.ok(ta.stored_states == ta.steps + 1 and ta.rhs_evals > tz.rhs_evals, string.format("fivebar %s, trapezoidal AVM: "
        .. "every step's state kept (%s of %s steps), the backward evaluations counted (%s)", obj, tostring(ta.stored_states),
        tostring(ta.steps), tostring(ta.rhs_evals)))
    end
  end
end

-- The trapezoidal DDM's gradient converges to the continuous one at second order: fivebar psi3's dpsi/dLA1 for
-- h = 4, 2, 1 ms against dopri5 at 1e-12 (each halving divides the error by 4).
local _, _, gref = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --objective psi3 --integrator dopri5 --tolerance 1e-12")
local gerr = {}
for i, h in ipairs { 4e-3, 2e-3, 1e-3 } do
  local _, _, gh = sens("models/fivebar.lua --cflags -O0 --t-end 0.1 --objective psi3 --integrator trapezoidal --step " .. h)
  gerr[i] = math.abs((gh["grad.LA1"] or 0) - (gref["grad.LA1"] or 0))
end
local q1, q2 = gerr[1] / gerr[2], gerr[2] / gerr[3]
tap.ok(q1 > 3.5 and q1 < 4.5 and q2 > 3.5 and q2 < 4.5, string.format("fivebar psi3, trapezoidal: dpsi/dLA1 errors %.3g, %.3g, "
  .. "%.3g as h halves (ratios %.2f, %.2f: second order)", gerr[1], gerr[2], gerr[3], q1, q2))

-- fourbar_spatial: a universal joint and a spherical loop, three mass parameters, 2 s; the model's simulate asks
-- for the trapezoidal rule, which the DDM now keeps.
local okt4, outt4, ft, ftn = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 2 --fd 1e-6 --allow-reselection")
if not tap.ok(okt4 and ft.integrator == "trapezoidal" and #ftn == 3, "fourbar_spatial: DDM on the model's trapezoidal rule") then
  tap.diag(outt4)
end
if okt4 then
  local w, at = worst(ft, ft, "grad.", "fd.", ftn)
  tap.ok(w < 1e-6, string.format("fourbar_spatial, trapezoidal: DDM = central differences of whole runs (worst %.2g at %s)", w,
    tostring(at)))
  -- The trapezoidal adjoint through the re-choice: the backward sweep restores each step's independent set.
  local oka, outa, ta = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 2 --allow-reselection --method avm --integrator trapezoidal")
  if not tap.ok(oka and ta.reselections == 1, "fourbar_spatial: AVM on the trapezoidal rule through the re-choice") then
    tap.diag(outa)
  end
  if oka then
    w, at = worst(ta, ft, "grad.", "grad.", ftn)
    tap.ok(ta.psi == ft.psi and w < 1e-12, string.format("fourbar_spatial, trapezoidal: AVM = DDM (worst %.2g at %s)", w,
      tostring(at)))
    -- Every step fits in memory, so by default nothing is replayed; with K checkpoints the segments between them are
    -- stepped again from the integrator's state there (a re-choice among them), to the same bits.
    tap.ok(ta.recomputed_steps == 0 and ta.stored_states == 201, "fourbar_spatial, trapezoidal AVM: every step "
      .. "kept by default, none taken again")
    for _, k in ipairs { 1, 7, 40 } do
      local okk, outk, tk = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 2 --allow-reselection --method avm "
        .. "--integrator trapezoidal --checkpoints " .. k)
      local same = okk and tk.psi == ta.psi
      for _, name in ipairs(ftn) do same = same and tk["grad." .. name] == ta["grad." .. name] end
      local L = math.ceil(200 / k)
      tap.ok(same and tk.stored_states == (k > 1 and math.ceil(200 / L) or 0) + L + 1 and (k == 1) == (tk.recomputed_steps == 0),
        string.format("fourbar_spatial, trapezoidal AVM with %d checkpoints: the same gradient to the bit, %s states "
        .. "kept, %s steps taken again", k, tostring(tk.stored_states), tostring(tk.recomputed_steps)))
      if not okk then tap.diag(outk) end
    end
  end
end
local ok3, out3, fb, fnames = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 2 --fd 1e-6 --integrator rk4 --allow-reselection")
if not tap.ok(ok3 and #fnames == 3 and fb.integrator == "rk4", "fourbar_spatial: DDM on rk4") then tap.diag(out3) end
if ok3 then
  local w, at = worst(fb, fb, "grad.", "fd.", fnames)
  tap.ok(w < 1e-6, string.format("fourbar_spatial: DDM = central differences of whole runs (worst %.2g at %s)", w, tostring(at)))
end
-- Without --allow-reselection the same run stops at the re-choice, naming its time and the coordinates swapped;
-- with it, the summary counts the re-choices.
local okr, outr = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 2")
tap.ok(not okr and outr:find("re%-chosen %(t = 0%.5%d*: |R_rr/R_11| = %S+ < 0%.01; independent follower %-> ")
  and outr:find("--allow-reselection", 1, true), "fourbar_spatial: a re-choice stops the sensitivities by default")
if okr then tap.diag(outr) end
tap.ok(ft and ft.reselections == 1 and fb and fb.reselections == 1 and ft.rhs_evals > 0,
  "fourbar_spatial: --allow-reselection carries on and counts it")
tap.ok(okt4 and outt4:find("formulation matrix_r", 1, true) and (ft.real_time_factor or 0) > 0,
  "the summary names the formulation and the real-time factor")
local okf, outf = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 0.1 --formulation al3")
tap.ok(not okf and outf:find("al3 has no sensitivities", 1, true), "--formulation al3 is refused with the reason")

-- The adjoint over the same 2 s, which re-choose the independent coordinate once (near t = 0.51 s):
-- the replay between checkpoints restores the choices, so it differentiates the same scheme.
for _, k in ipairs { 0, 1, 7 } do
  local oka, outa, av = sens("models/fourbar_spatial.lua --cflags -O0 --t-end 2 --allow-reselection --method avm --checkpoints " .. k)
  if not tap.ok(oka and av.psi == fb.psi and av.rhs_evals > 0, "fourbar_spatial: AVM with " .. k ..
    " checkpoints runs, same psi, its evaluations counted") then tap.diag(outa) end
  if oka and ok3 then
    local w, at = worst(av, fb, "grad.", "grad.", fnames)
    tap.ok(w < 1e-9, string.format("fourbar_spatial: AVM (K = %d) = DDM (worst %.2g at %s)", k, w, tostring(at)))
  end
end
-- The summary's cost split: the motion alone on the same steps (one more run for the DDM with --split; the AVM's
-- own forward run), and its share; and the progress bar on a terminal (script(1) gives the driver one), drawn at
-- once here (MBSENS_PROGRESS_AFTER=0), through both phases of an adjoint.
do
  local base = "models/fivebar.lua --cflags -O0 --t-end 0.1 --integrator trapezoidal --objective psi2"
  local okd, outd, d = sens(base .. " --split")
  local oka, outa, a = sens(base .. " --method avm")
  local _, _, n = sens(base)
  tap.ok(okd and d.seconds_dynamics and d.seconds_dynamics > 0 and d.sensitivity_share >= 0 and d.sensitivity_share < 1
    and n.seconds_dynamics == nil, string.format("DDM --split: the motion alone %s s of %s s (share %s); without it, no "
    .. "split", tostring(d.seconds_dynamics), tostring(d.seconds), tostring(d.sensitivity_share)))
  tap.ok(oka and a.seconds_dynamics and a.seconds_dynamics > 0 and a.seconds_dynamics < a.seconds,
    string.format("AVM: its forward run %s s of %s s", tostring(a.seconds_dynamics), tostring(a.seconds)))
  if not (okd and oka) then tap.diag(outd .. outa) end
  local exe = H.root .. "build/sens/models/fivebar/mbsens"
  if H.sh("command -v script >/dev/null") then
    local _, bar = H.sh(string.format("MBSENS_PROGRESS_AFTER=0 script -qec \"'%s' --t-end 0.1 --integrator trapezoidal "
      .. "--method avm --objective psi2\" /dev/null", exe))
    tap.ok(bar:find("%] +%d+%%  forward") and bar:find("%] +%d+%%  adjoint"), "a terminal shows the progress bar, "
      .. "forward then adjoint")
  else
    tap.ok(true, "# SKIP script(1) is not installed: no terminal to draw the progress bar on")
  end
  local _, piped = H.sh(string.format("(MBSENS_PROGRESS_AFTER=0 '%s' --t-end 0.1 --objective psi2 2>&1 >/dev/null)", exe))
  tap.ok(piped == "", "no bar when stderr is not a terminal")
end
tap.done_testing()
