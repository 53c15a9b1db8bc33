#!/usr/bin/env lua5.4
-- rod_modes.t: the rods' inertia modes of seeds/002.md §2.3-2.6 (exact; point, linear and quadratic extrapolation;
-- partitioned), tests T2-T4 and T7-T10 of its §7.2 (T5, T6: tests/c/rt_rod_history.c), and their errors.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/rod_modes"
H.mkdir(TMP)
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function mbgen(args) return H.mbgen(args, TMP) end
local MODES = { "point", "linear", "quadratic" }

-- The final coordinates of a run of a built driver (mbrun) with the given options.
local function final(exe, args)
  local csv = TMP .. "/run.csv"
  os.remove(csv)
  local ok, out = H.sh(string.format("%s --quiet --allow-drift --out %s %s", q(exe), q(csv), args))
  return H.csv_z(csv), ok, out
end
local diff = H.max_diff
-- The driver mbgen run built for a model (its build folder, from the summary's model line).
local function driver(model, set)
  local ok, out, err = mbgen(string.format("run %s -q --t-end 0.001%s", q(model), set and (" --set " .. set) or ""))
  if not ok then tap.diag(out .. err) end
  local B = require "run.build"
  return B.folder(H.root:gsub("/$", ""), "run_matrix_r", H.root .. model, set and { [set:match("^(.-)=")] = tonumber(set:match("=(.*)$")) } or {})
    .. "/mbrun"
end

-- T2: the structure of the sedan's open-loop matrix in each mode, read off the committed generated code.
do
  local md = H.read(H.root .. "generated/sedan.md") or ""
  local full, tree, lumped = md:match("has (%d+) non%-zeros with the rods' inertia %(exact%), (%d+) without it " ..
    "%(point, linear, quadratic%) and (%d+) with a third")
  full, tree, lumped = tonumber(full), tonumber(tree), tonumber(lumped)
  tap.ok(full and tree and lumped and tree < full and lumped == tree,
    string.format("T2: sedan.md reports the open-loop matrix's non-zeros: exact %s, approximated %s, partitioned %s (the " ..
      "paper's 503 and 343 are for its own tree)", tostring(full), tostring(tree), tostring(lumped)))
  local c = H.read(H.root .. "generated/sedan.c") or ""
  local names = {}
  for nm in (c:match("sedan_z_names%[%d+%] = {(.-)}") or ""):gmatch('"([^"]+)"') do names[#names + 1] = nm end
  local function pattern(slot)
    local cp, ri = {}, {}
    for v in (c:match("sedan_" .. slot .. "_pattern_colptr%[%d+%] = {(.-)}") or ""):gmatch("%d+") do cp[#cp + 1] = tonumber(v) end
    for v in (c:match("sedan_" .. slot .. "_pattern_rowind%[%d+%] = {(.-)}") or ""):gmatch("%d+") do ri[#ri + 1] = tonumber(v) end
    local set = {}
    for j = 1, #cp - 1 do
      for k = cp[j] + 1, cp[j + 1] do set[ri[k] + 1 .. "," .. j] = true end
    end
    return set, ri
  end
  local function coupled(set, pa, pb)
    for i, a in ipairs(names) do
      for j, b in ipairs(names) do
        if a:match(pa) and b:match(pb) and set[i .. "," .. j] then return true end
      end
    end
    return false
  end
  local M, ri = pattern("mass")
  local Mt = pattern("mass_tree")
  local Ml = pattern("mass_lumped")
  tap.ok(#names == 33 and #ri == full, string.format("T2: sedan_mass_pattern has the %s non-zeros of sedan.md over 33 coordinates", tostring(full)))
  tap.ok(coupled(M, "^rl_", "^chassis") and not coupled(Mt, "^rl_", "^chassis") and not coupled(Ml, "^rl_", "^chassis") and
    coupled(M, "^rr_", "^chassis") and not coupled(Mt, "^rr_", "^chassis"),
    "T2: the rear suspension blocks are coupled to the chassis by the rods' inertia and decoupled without it")
  tap.ok(coupled(M, "^rack", "^f[lr]_") and not coupled(Mt, "^rack", "^f[lr]_") and not coupled(Ml, "^rack", "^f[lr]_"),
    "T2: the rack is coupled to the front chains by the tie rods' inertia and decoupled without it")
  tap.ok(coupled(Mt, "^chassis", "^f[lr]_") and coupled(Mt, "^chassis", "^rack"),
    "T2: the chassis stays coupled to the front chains and the rack (the tree's own coupling)")
end

-- T3: with zero rod mass every mode gives the accelerations of the exact one; T4: a rod as a real body.
local PAR = "tests/fixtures/rods/parallelogram.lua"
do
  local tree = H.tree(H.root .. PAR)
  local dir = TMP .. "/parallelogram"
  H.generate(tree, dir)
  local ok, out = H.sh(string.format("gcc %s -I%sruntime -I%s -DMB_MODEL=parallelogram_model %stests/lib/rod_accel.c %s/parallelogram.c " ..
    "%sbuild/libmbrt.a " .. H.LIBS .. " -o %s/rod_accel", H.CFLAGS, H.root, dir, H.root, dir, H.root, dir))
  if not tap.ok(ok, "rod_accel.c builds against the parallelogram") then tap.diag(out) end
  local _, o0 = H.sh(dir .. "/rod_accel 0")
  local _, o1 = H.sh(dir .. "/rod_accel 0.2")
  local k0, k1 = H.keyvals(o0), H.keyvals(o1)
  tap.ok(k0.max_rel and k0.max_rel <= 1e-15, string.format("T3: zero rod mass: all 8 modes give the exact accelerations " ..
    "(largest difference %s relative)", tostring(k0.max_rel)))
  tap.ok(k1.max_rel and k1.max_rel > 1e-6, string.format("(with mass 0.2 they differ, by %s: the comparison sees the modes)",
    tostring(k1.max_rel)))

  local exe = driver(PAR)
  local okb, outb, errb = mbgen("run tests/fixtures/rods/parallelogram_body.lua -q --integrator dopri5 --tolerance 1e-12 " ..
    "--out " .. q(TMP .. "/body.csv"))
  if not okb then tap.diag(outb .. errb) end
  local body = H.csv_last(TMP .. "/body.csv")
  local rod = final(exe, "--integrator dopri5 --tolerance 1e-12")
  local e = math.max(math.abs(body["z.ja"] - rod["z.ja"]), math.abs(body["z.jb"] - rod["z.jb"]))
  tap.ok(okb and e < 1e-8, string.format("T4: a bar body (two end joints, zero spin inertia) moves as the exact rod " ..
    "removal does: |dz| = %.1e after 1 s", e))

  -- T9: the extrapolation's error is linear in the rod mass, and exactly zero without mass.
  local errs = {}
  for _, mr in ipairs { 0, 0.05, 0.1, 0.2 } do
    local ref = final(exe, string.format("--set mr=%g --rod-inertia exact", mr))
    errs[mr] = diff(final(exe, string.format("--set mr=%g --rod-inertia linear", mr)), ref)
  end
  tap.ok(errs[0] == 0, "T9: without rod mass the linear mode's run is the exact one, bit for bit")
  local r1, r2 = errs[0.05] / errs[0.1], errs[0.2] / errs[0.1]
  tap.ok(r1 > 0.4 and r1 < 0.6 and r2 > 1.7 and r2 < 2.4, string.format("T9: error linear in the rod mass: 0.5x -> %.3f, " ..
    "2x -> %.3f (errors %.2e, %.2e, %.2e)", r1, r2, errs[0.05], errs[0.1], errs[0.2]))
end

-- T8 and T10: the sedan's 1 s slalom at 30 m/s; error against the exact mode at the same step.
do
  local exe = driver("models/sedan.lua")
  local hs = { 1e-4, 2e-4, 5e-4, 1e-3 }
  local E = {}
  for _, h in ipairs(hs) do
    local ref = final(exe, string.format("--t-end 1 --step %g --rod-inertia exact", h))
    for _, m in ipairs(MODES) do
      for _, part in ipairs { "", " --rod-partitioned" } do
        local key = m .. part
        E[key] = E[key] or {}
        E[key][h] = diff(final(exe, string.format("--t-end 1 --step %g --rod-inertia %s%s", h, m, part)), ref)
      end
    end
  end
  local function slope(key) return math.log(E[key][1e-3] / E[key][1e-4]) / math.log(10) end
  local lo = { point = 0.8, linear = 1.7, quadratic = 2.5 }
  local hi = { point = 1.2, linear = 2.3, quadratic = 3.2 }
  local rows = {}
  for _, m in ipairs(MODES) do
    for _, part in ipairs { "", " --rod-partitioned" } do
      local key = m .. part
      local s = slope(key)
      rows[#rows + 1] = string.format("%-28s %s  slope %.2f", key, table.concat((function()
        local t = {}
        for i, h in ipairs(hs) do t[i] = string.format("%.2e", E[key][h]) end
        return t
      end)(), " "), s)
      tap.ok(s > lo[m] and s < hi[m], string.format("T8: %s: error slope in h %.2f (expected %g to %g)", key, s, lo[m], hi[m]))
    end
  end
  for _, r in ipairs(rows) do tap.diag(r) end
  local order = true
  for _, h in ipairs(hs) do
    for _, part in ipairs { "", " --rod-partitioned" } do
      if not (E["quadratic" .. part][h] < E["linear" .. part][h] and E["linear" .. part][h] < E["point" .. part][h]) then order = false end
    end
  end
  tap.ok(order, "T8: at every h, quadratic < linear < point")
  local better = true
  for _, h in ipairs(hs) do
    for _, m in ipairs(MODES) do
      if not (E[m .. " --rod-partitioned"][h] < E[m][h]) then better = false end
    end
  end
  tap.ok(better, "T10: the partitioned mode's error is below the plain one's, at every order and step")
  -- At equal cost: the generated operations of the two modes' functions (M and the rods' forces) agree to 5 %.
  local ops = {}
  for name, add, mul in (H.read(H.root .. "generated/sedan.md") or ""):gmatch("| sedan_([%w_]+) | %d+ | %d+ | %d+ | (%d+) | (%d+) |") do
    ops[name] = tonumber(add) + tonumber(mul)
  end
  local plain = (ops.mass_tree or 0) + (ops.rod_inertia or 0)
  local partitioned = (ops.mass_lumped or 0) + (ops.rod_inertia_cross or 0)
  tap.ok(plain > 0 and math.abs(partitioned / plain - 1) < 0.05, string.format("T10: at equal cost: %d operations " ..
    "partitioned, %d plain (exact M: %d)", partitioned, plain, ops.mass or 0))
end

-- T7: the conservative sedan (no tyres, no dampers) keeps its energy in the exact mode to RK4's accuracy, and the
-- modes converge to the exact one as h -> 0.
do
  local exe = driver("models/sedan.lua", "conservative=1")
  local _, out = H.sh(string.format("%s --t-end 1 --rod-inertia exact", q(exe)))
  local rel = tonumber(out:match("balance [^%(]*%(relative ([^%)]+)%)"))
  tap.ok(rel and math.abs(rel) < 1e-8, string.format("T7: conservative sedan, exact mode, 1 s at h = 1 ms: energy balance %s relative",
    tostring(rel)))
  for _, m in ipairs(MODES) do
    local e = {}
    for _, h in ipairs { 1e-3, 5e-4 } do
      local ref = final(exe, string.format("--t-end 1 --step %g --rod-inertia exact", h))
      e[h] = diff(final(exe, string.format("--t-end 1 --step %g --rod-inertia %s", h, m)), ref)
    end
    tap.ok(e[5e-4] < 0.7 * e[1e-3], string.format("T7: %s converges to the exact mode as h halves (%.2e -> %.2e)", m,
      e[1e-3], e[5e-4]))
  end
end

-- What is refused, and how.
do
  local ok, _, err, code = mbgen("run " .. PAR .. " -q --rod-inertia quadratic --integrator dopri5")
  tap.ok(not ok and err:match("rod inertia quadratic needs the matrix_r formulation with rk4"), "a rod mode with dopri5 is refused: " ..
    (err:match("[^\n]*rod inertia[^\n]*") or err))
  ok, _, err = mbgen("run models/fourbar_planar.lua -q --t-end 0.01 --rod-inertia point")
  tap.ok(not ok and err:match("has no rod with mass"), "a rod mode on a model without massive rods is refused: " ..
    (err:match("[^\n]*rod with mass[^\n]*") or err))
  ok, _, err, code = mbgen("run " .. PAR .. " -q --rod-inertia cubic")
  tap.ok(not ok and code == 2 and err:match("unknown rod inertia 'cubic'"), "an unknown mode is a command-line error")
  local bad = TMP .. "/bad_mode.lua"
  H.write(bad, (H.read(H.root .. PAR):gsub('mass = mr }', 'mass = mr, inertia = "cubic" }')))
  ok, _, err, code = mbgen("info " .. q(bad) .. " --no-functions")
  tap.ok(not ok and code == 2 and err:match('bad_mode.lua:11: rod "bar": field "inertia" must be "exact", "point", "linear" or "quadratic"'),
    "a model's unknown mode names the file, line and rod")
  local mixed = TMP .. "/mixed_mode.lua"
  H.write(mixed, (H.read(H.root .. PAR):gsub('mass = mr }', 'mass = mr, inertia = "linear" }') ..
    'rod "bar2" { a = { "left", { 0, 0, -0.4 } }, b = { "right", { 0, 0, -0.4 } }, length = 1, mass = 0.1 }\n'))
  ok, _, err = mbgen("info " .. q(mixed) .. " --no-functions")
  tap.ok(not ok and err:match('rod "bar2": inertia "exact" differs from rod "bar"'), "rods of one model with different modes are refused")
  ok, out = mbgen("run " .. PAR .. " --t-end 0.01")
  tap.like(out, "rod inertia exact %(the rods' mass in M%)", "the summary says the mode")
  ok, out = mbgen("run " .. PAR .. " --t-end 0.01 --rod-inertia quadratic --rod-partitioned --allow-drift")
  tap.like(out, "rod inertia quadratic, partitioned [^\n]* 10 evaluations exact for lack of history",
    "and, for a rod mode, the start-up's exact evaluations: the one at creation, then until three first stages are " ..
    "kept (steps 1 and 2, and step 3's first stage: 9)")
end
tap.done_testing()
