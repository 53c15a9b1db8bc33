#!/usr/bin/env lua5.4
-- veh_sedan.t: models/sedan.lua, the 15-DOF 12-rod sedan of seeds/002.md §4: the counts of §7.2 T1 from the
-- loaded tree and from `mbgen run` (rank of Phi_z at the assembled pose), static equilibrium (tyre loads =
-- weight), a straight line at 30 m/s (symmetric loads, no drift), the ride height found again from the
-- design pose (a perturbation of the static one), and the slalom (smooth, lateral acceleration ~4 m/s^2).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

-- T1 counts from the loaded tree ---------------------------------------------------------------------
local tree = H.tree(H.root .. "models/sedan.lua")
tap.is(tree.nz, 33, "33 relative coordinates")
tap.is(#tree.bodies + 1, 34, "34 bodies including ground (33 moving)")
local aux, kinds = 0, { prismatic = 0, revolute = 0 }
for _, b in ipairs(tree.bodies) do
  if b.aux then aux = aux + 1 end
  kinds[b.joint.kind] = kinds[b.joint.kind] + 1
end
tap.is(aux, 19, "19 auxiliary (massless) bodies")
tap.is(#tree.bodies - aux, 14, "14 real bodies")
local eq, rods, cut, drives, cut_eq = 0, 0, 0, 0, 0
for _, c in ipairs(tree.constraints) do
  if c.kind == "rod" then rods = rods + 1; eq = eq + c.equations end
  if c.kind == "loop" then cut = cut + 1; eq = eq + c.equations; cut_eq = cut_eq + (c.type == "spherical" and 3 or 0) end
  if c.kind == "drive" then drives = drives + 1 end
end
tap.is(rods, 12, "12 rods")
tap.is(cut, 2, "2 cut joints")
tap.is(cut_eq, 6, "both cut joints are spherical (3 equations each)")
tap.is(eq, 18, "18 loop-closure equations (12 rods + 2 x 3)")
tap.is(drives, 1, "1 driven coordinate (the rack)")
tap.is(tree.nz + cut, 35, "35 joints including the cut joints (33 one-DOF joints + 2)")
tap.is(kinds.prismatic, 12, "12 prismatic joints (Table 8)")
tap.is(kinds.revolute, 21, "21 revolute joints (Table 8)")
tap.is(6 * 33 - 5 * kinds.prismatic - 5 * kinds.revolute - 3 * cut - rods, 15, "Gruebler: 15 DOF")
-- Coordinate blocks of the subsystems (the paper's 7/7/1/6/6/6, here numbered root to leaves).
local blocks, order = {}, {}
for _, c in ipairs(tree.coords) do
  local sub = c.name:match("^(%a%a)_") or c.name:match("^(%a+)")
  if not blocks[sub] then blocks[sub] = 0; order[#order + 1] = sub end
  blocks[sub] = blocks[sub] + 1
end
local got = {}
for _, s in ipairs(order) do got[#got + 1] = s .. " " .. blocks[s] end
tap.is(table.concat(got, ", "), "rl 7, rr 7, chassis 6, rack 1, fl 6, fr 6", "subsystem blocks 7/7/6/1/6/6")
-- The rear knuckles hang from ground (no chassis coordinate on their path), the front chains from the chassis.
local function root_of(name)
  for k, b in ipairs(tree.bodies) do
    if b.name == name then
      local r = k
      while tree.bodies[r].parent > 0 do r = tree.bodies[r].parent end
      return tree.bodies[r].joint.name
    end
  end
end
tap.is(root_of("rl_knuckle"), "rl_float", "rear knuckle rooted at ground")
tap.is(root_of("fl_knuckle"), "chassis_float", "front knuckle rooted at the chassis")

-- Runs ----------------------------------------------------------------------------------------------
local dir = H.root .. "build/tmp/veh_sedan"
H.mkdir(dir)
-- mbgen run builds Matrix R's driver in build/run_matrix_r/models/sedan/ once (another formulation builds its own set in
-- build/run/models/sedan/); the later runs find it in the cache.
local function run(args, csv)
  return H.sh(string.format("cd %s && lua5.4 generator/mbgen run -q models/sedan.lua %s%s", H.root, args,
    csv and (" --out " .. csv) or ""))
end
local function read_csv(path)
  local text = H.read(path) or ""
  local lines = {}
  for l in text:gmatch("[^\n]+") do lines[#lines + 1] = l end
  local col, i = {}, 0
  for n in (lines[1] or ""):gmatch("[^,]+") do i = i + 1; col[n] = i end
  local rows = {}
  for k = 2, #lines do
    local r = {}
    for v in lines[k]:gmatch("[^,]+") do r[#r + 1] = tonumber(v) end
    rows[#rows + 1] = r
  end
  return rows, col
end

-- Straight line at 30 m/s from the static pose.
local f1 = dir .. "/straight.csv"
local ok, out = run("--static --set rack_amp=0 --t-end 1 --output-step 0.01", f1)
tap.ok(ok, "straight line from the static pose runs")
if not ok then tap.diag(out) end
local n_eq, dof = out:match("%((%d+) equations, (%d+) degrees of freedom")
tap.is(tonumber(n_eq), 19, "19 equations (18 loop + 1 drive)")
tap.is(tonumber(dof), 14, "rank of Phi_z at the assembled pose: 33 - 19 = 14 independent (15 DOF with the driven rack)")
local sum, weight = out:match("tyre loads (%S+) N, weight (%S+) N")
sum, weight = tonumber(sum), tonumber(weight)
tap.ok(sum and math.abs(sum - weight) < 1e-6 * weight,
  string.format("static equilibrium: tyre loads %s N = weight %s N to 1e-6", tostring(sum), tostring(weight)))
local loads = {}
for name, fz in out:gmatch("tyre (%a%a)_wheel%s+Fz = (%S+) N") do loads[name] = tonumber(fz) end
tap.ok(loads.fl and math.abs(loads.fl - loads.fr) < 1e-6 * loads.fl and math.abs(loads.rl - loads.rr) < 1e-6 * loads.rl,
  string.format("static loads symmetric: front %s / %s, rear %s / %s N", tostring(loads.fl), tostring(loads.fr),
    tostring(loads.rl), tostring(loads.rr)))
tap.ok(loads.fl and loads.fl > 4000 and loads.fl < 4800 and loads.rl > 3800 and loads.rl < 4600,
  "static corner loads of a 1750 kg sedan, front a little heavier (20 kg MacPherson uprights)")
local rows, col = read_csv(f1)
local last, first = rows[#rows], rows[1]
tap.ok(last and math.abs(last[col["t"]] - 1) < 1e-9, "CSV reaches t = 1")
local worst_sym = 0
for _, r in ipairs(rows) do
  local a = math.abs(r[col["tyre.fl_wheel.Fz"]] - r[col["tyre.fr_wheel.Fz"]]) + math.abs(r[col["tyre.rl_wheel.Fz"]] - r[col["tyre.rr_wheel.Fz"]])
  worst_sym = math.max(worst_sym, a)
end
tap.ok(worst_sym < 2e-5 * loads.rl, string.format("left/right wheel loads equal to 2e-5 along the run (worst difference %.3g N)", worst_sym))
tap.ok(math.abs(last[col["z.chassis_float.y"]]) < 1e-4 and math.abs(last[col["z.chassis_float.rz"]]) < 1e-5,
  string.format("no lateral drift: y = %.3g m, yaw = %.3g rad at t = 1", last[col["z.chassis_float.y"]], last[col["z.chassis_float.rz"]]))
tap.ok(math.abs(last[col["z.chassis_float.z"]] - first[col["z.chassis_float.z"]]) < 2e-4,
  string.format("ride height stays at the static one (%.4g m -> %.4g m)", first[col["z.chassis_float.z"]], last[col["z.chassis_float.z"]]))
tap.ok(math.abs(last[col["zd.chassis_float.x"]] - 30) < 0.05, string.format("coasts at 30 m/s (%.4f)", last[col["zd.chassis_float.x"]]))
local p, v, a = out:match("position (%S+), velocity (%S+), acceleration (%S+)")
tap.ok(tonumber(p) < 1e-10 and tonumber(v) < 1e-10 and tonumber(a) < 1e-10, "loops closed at position, velocity, acceleration level")
-- Per evaluation: one factorization where the stage's guess already assembles, two where Newton moves it (at the
-- guess, at the solution), never a second one at the same point (3.25 per evaluation before).
local per = tonumber(out:match("factorizations %((%S+) per function evaluation%)"))
tap.ok(per and per >= 1 and per <= 2, string.format("at most two factorizations of the dependent block per evaluation (%s)",
  tostring(per)))
-- Where the position problem is solved, Phi_z mostly comes from the pass that evaluated Phi there (a Newton step's, or
-- the guess's on a run whose guesses assemble, like this straight line: sedan_constraints_and_dz), not from the
-- kinematics computed again.
local nf = tonumber(out:match("dependent block of Phi_z: (%d+) factorizations"))
local paired = tonumber(out:match("Phi_z of (%d+) from the position problem's own pass %(sedan_constraints_and_dz%)"))
tap.ok(nf and paired and paired >= 0.5 * nf and paired <= nf, string.format(
  "Phi_z from the position problem's own pass of Phi in %s of %s factorizations", tostring(paired), tostring(nf)))
local bal = tonumber(out:match("balance %S+ %(relative (%S+)%)"))
tap.ok(bal and math.abs(bal) < 1e-5, string.format("energy balance E1 - E0 - W_nc, relative %s", tostring(bal)))
local z_static = first[col["z.chassis_float.z"]]
local pitch_static = first[col["z.chassis_float.ry"]]

-- The same straight line with the index-3 augmented Lagrangian (trapezoidal) agrees with matrix_r (rk4). -O0: al3's
-- build of the sedan (the whole run set) takes 50 s of CPU at -O1, its run a tenth of a second at -O0.
local function final(text, name) return tonumber(text:match(name:gsub("%.", "%%.") .. "%s+z =%s+(%S+)")) end
local _, out_r = run("--static --set rack_amp=0 --t-end 0.5")
ok, out = run("--static --set rack_amp=0 --t-end 0.5 --formulation al3 --cflags -O0")
tap.ok(ok and out:find("formulation al3", 1, true), "al3 runs the sedan")
local dz = math.abs(final(out, "chassis_float.z") - final(out_r, "chassis_float.z"))
local dp = math.abs(final(out, "chassis_float.ry") - final(out_r, "chassis_float.ry"))
tap.ok(dz < 1e-7 and dp < 1e-7, string.format("al3 and matrix_r agree at t = 0.5 (height %.2g m, pitch %.2g rad)", dz, dp))

-- From the design pose (a few mm off the static pose): it settles back onto the static ride height.
local f2 = dir .. "/settle.csv"
ok, out = run("--set rack_amp=0 --t-end 2 --output-step 0.01", f2)
tap.ok(ok, "straight line from the design pose runs (it assembles)")
rows, col = read_csv(f2)
local z0 = rows[1][col["z.chassis_float.z"]]
local early, late = 0, 0
for _, r in ipairs(rows) do
  local dz = math.abs(r[col["z.chassis_float.z"]] - z_static)
  if r[col["t"]] <= 0.5 then early = math.max(early, dz) end
  if r[col["t"]] >= 1.5 then late = math.max(late, dz) end
end
tap.ok(early > 1e-3, string.format("the design pose is off the static one (%.3g mm)", 1e3 * math.abs(z0 - z_static)))
tap.ok(late < 1e-4 and late < early / 10, string.format("settles to the static ride height (%.3g mm after 1.5 s, %.3g mm in the first 0.5 s)",
  1e3 * late, 1e3 * early))
tap.ok(math.abs(rows[#rows][col["z.chassis_float.ry"]] - pitch_static) < 1e-4, "and to the static pitch")

-- Slalom (the model's default simulate: 5 s, the rack's smoothly started sine from t = 0).
local f3 = dir .. "/slalom.csv"
ok, out = run("--static --output-step 0.005", f3)
tap.ok(ok, "slalom runs")
rows, col = read_csv(f3)
local alat, yaw, ys = {}, {}, {}
for k = 2, #rows - 1 do
  local ra, rb, rc = rows[k - 1], rows[k], rows[k + 1]
  local h = rb[col["t"]] - ra[col["t"]]
  local ax = (rc[col["cg.x"]] - 2 * rb[col["cg.x"]] + ra[col["cg.x"]]) / h ^ 2
  local ay = (rc[col["cg.y"]] - 2 * rb[col["cg.y"]] + ra[col["cg.y"]]) / h ^ 2
  local psi = rb[col["z.chassis_float.rz"]]
  alat[#alat + 1] = { rb[col["t"]], -math.sin(psi) * ax + math.cos(psi) * ay }
  yaw[#yaw + 1] = { rb[col["t"]], psi }
  ys[#ys + 1] = rb[col["cg.y"]]
end
local peak, jump, ymax, ymin = 0, 0, -1, 1
for k, e in ipairs(alat) do
  if e[1] > 0 then
    peak = math.max(peak, math.abs(e[2]))
    if k > 1 then jump = math.max(jump, math.abs(e[2] - alat[k - 1][2])) end
  end
end
for k, e in ipairs(yaw) do
  if e[1] > 2 then ymax = math.max(ymax, e[2]); ymin = math.min(ymin, e[2]) end
end
tap.ok(peak > 3 and peak < 5, string.format("peak lateral acceleration %.3g m/s^2 (the documented ~4)", peak))
tap.ok(jump < 0.15, string.format("smooth: lateral acceleration changes at most %.3g m/s^2 per 5 ms", jump))
tap.ok(ymax > 0.03 and ymin < -0.03 and math.abs(ymax + ymin) < 0.3 * (ymax - ymin),
  string.format("heading swings both ways about the initial direction (%.4f .. %.4f rad)", ymin, ymax))
local w, worst_rack = math.pi, 0
for _, r in ipairs(rows) do
  local t = r[col["t"]]
  worst_rack = math.max(worst_rack, math.abs(r[col["z.rack_slide"]] - 0.0048 * (math.sin(w * t) - w * t * math.exp(-w * t))))
end
tap.ok(worst_rack < 1e-10, string.format("the rack follows its drive law (worst %.2g m)", worst_rack))
local worst_fz = math.huge
for _, r in ipairs(rows) do
  for _, w in ipairs { "fl", "fr", "rl", "rr" } do worst_fz = math.min(worst_fz, r[col["tyre." .. w .. "_wheel.Fz"]]) end
end
tap.ok(worst_fz > 500, string.format("all wheels stay on the road (least load %.0f N)", worst_fz))
p, v, a = out:match("position (%S+), velocity (%S+), acceleration (%S+)")
tap.ok(tonumber(p) < 1e-10 and tonumber(v) < 1e-10, "loops closed through the slalom")

-- The dependent block of Phi_z by its pattern: the rear loops apart, the front ones coupled through the driven
-- rack; 2 s of the slalom give the same state as one dense block (kin_blocks.h; issue 22's acceptance).
tap.ok(out:find("in 3 blocks (9 x 9, 5 x 5, 5 x 5)", 1, true), "dependent block split into 9 x 9, 5 x 5, 5 x 5")
local both, worst, o1, o2 = H.dense_kinematics_difference("'" .. H.root .. "build/run_matrix_r/models/sedan/mbrun'", "--static --t-end 2", dir)
tap.ok(both and worst < 1e-8, string.format("slalom to 2 s: blocks and one dense block agree to %.2g (relative)", worst))
tap.ok(o2:find("in 1 block (19 x 19)", 1, true), "--dense-kinematics factors one 19 x 19 block")
-- Matrix R's reduced system generated for the declared independent coordinates (formulation/matrix_r.lua) against
-- the runtime's loops over the same patterns; a dense block has another R pattern, so the loops take it.
local bg, wg, og, orr = H.dense_kinematics_difference("'" .. H.root .. "build/run_matrix_r/models/sedan/mbrun'",
  "--static --t-end 2", dir, "--runtime-reduction")
local ng, tg = og:match("reduced system R'M R: generated %((%d+) of (%d+) evaluations")
tap.ok(bg and wg < 1e-8 and ng and ng == tg and tonumber(ng) > 8000 and orr:find("R'M R: runtime loops (0 of", 1, true),
  string.format("slalom to 2 s: the generated reduction (%s of %s evaluations) and the runtime's loops agree to %.2g "
    .. "(relative)", tostring(ng), tostring(tg), wg))
tap.ok(o2:find("R'M R: runtime loops", 1, true), "with one dense block the R pattern differs: the runtime's loops")
-- The square blocks inverted by Gauss-Jordan (the default) against pivoted QR, the factorization they replaced.
local bq, wq, _, oq = H.dense_kinematics_difference("'" .. H.root .. "build/run_matrix_r/models/sedan/mbrun'",
  "--static --t-end 2", dir, "--qr-kinematics")
tap.ok(bq and wq < 1e-8 and o1:find("square ones inverted", 1, true) and oq:find("all by pivoted QR", 1, true),
  string.format("slalom to 2 s: inverted blocks and pivoted QR agree to %.2g (relative)", wq))
local w1 = tonumber(o1:match("work of the constraints (%S+),"))
local w2 = tonumber(o2:match("work of the constraints (%S+),"))
tap.ok(w1 and w2 and math.abs(w1 - w2) < 1e-8 * math.max(1, math.abs(w2)),
  string.format("the same work of the rack's drive (%s J, %s J)", tostring(w1), tostring(w2)))
tap.done_testing()
