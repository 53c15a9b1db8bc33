#!/usr/bin/env lua5.4
-- gen_cache.t: `mbgen run` reuses an unchanged build (no emitter, no compiler), rebuilds on every change of
-- its cache key and on a damaged product, links split units into the same results as one object, and the
-- drivers run every formulation and integrator with the job's reduced function set (issue 19).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local B = require "run.build"

-- A model inside the repository (so its build folder is build/run/build/tmp/gen_cache/osc) that uses a
-- library from its own lib/ folder, so that editing either can be tested without touching models/.
local tmp = H.root .. "build/tmp/gen_cache"
H.sh("rm -rf '" .. tmp .. "' && mkdir -p '" .. tmp .. "/lib'")
local root = select(2, H.sh("cd '" .. H.root .. "' && pwd -P")):gsub("\n$", "")
local model = tmp .. "/osc.lua"
local MODEL = [[
model "cache_osc"
design { k = 100 }
local S = use "cache_spring"
body "mass" { mass = 1, inertia = { 1e-3, 1e-3, 1e-3 } }
prismatic "slide" { parent = "ground", child = "mass", axis = { 1, 0, 0 } }
joint_spring "spring" { joint = "slide", stiffness = k * S.scale }
initial { slide = 0.1 }
simulate { t_end = 0.5, step = 1e-4 }
]]
local LIB = "return { scale = 1 }\n"
H.write(model, MODEL)
H.write(tmp .. "/lib/cache_spring.lua", LIB)
local dir = B.folder(root, "run", root .. "/build/tmp/gen_cache/osc.lua", {})
H.sh("rm -rf '" .. dir .. "'")

-- Runs mbgen from the repository with env (a prefix of the command); returns its exit, output (stdout and
-- stderr) and x(0.5).
local function run(args, env)
  local ok, out = H.sh(string.format("cd '%s' && %s lua5.4 generator/mbgen run build/tmp/gen_cache/osc.lua --cflags -O0 --t-end 0.5 %s",
    root, env or "", args or ""))
  return ok, out, tonumber(out:match("slide%s+z =%s+(%S+)"))
end
local function built(out) return out:match("mbgen: generating") ~= nil, out:match("mbgen: compiling") ~= nil end
local function patched(out) return out:match("mbgen: updating the data of cache_osc") ~= nil end
-- Modification times of the products, to show that a cached run rewrote none of them.
local function mtimes()
  local _, s = H.sh("stat -c '%n %.9Y' '" .. dir .. "'/*.o '" .. dir .. "'/*.c '" .. dir .. "'/*.h")
  return s
end

local ok, out, x = run()
local gen, comp = built(out)
tap.ok(ok and gen and comp, "a first run generates and compiles")
if not ok then tap.diag(out) end
local want = 0.1 * math.cos(math.sqrt(100) * 0.5)
tap.ok(x and math.abs(x - want) < 1e-6, "x(0.5) = 0.1 cos(10 t): " .. tostring(x))
tap.like(out, "mbgen: compiling cache_osc %(%d+ functions%) in %d+ units? on %d+ cores?", "the compile step says its units and cores")

local before = mtimes()
ok, out = run()
gen, comp = built(out)
tap.ok(ok and not gen and not comp and out:match("mbgen: cache_osc is up to date %(cached%)"),
  "an unchanged second run neither generates nor compiles, and says it is cached")
tap.is(mtimes(), before, "and rewrites no product")
ok, out = run("-q")
tap.ok(ok and not out:match("mbgen:"), "-q silences the progress lines")

local ok4, out4, x4 = run("--set k=400")
gen, comp = built(out4)
tap.ok(ok4 and not gen and not comp, "a design-parameter --set reuses the build")
tap.ok(x4 and math.abs(x4 - 0.1 * math.cos(20 * 0.5)) < 1e-6, "and the driver gets the value: x(0.5) = 0.1 cos(20 t)")

-- Every part of the key rebuilds: a generator edit (stood in for by the salt), the model, a library, the flags.
ok, out = run(nil, "MBGEN_CACHE_SALT=gen_cache_t")
tap.ok(ok and built(out), "a generator change (MBGEN_CACHE_SALT) regenerates")
ok, out = run(nil, "MBGEN_CACHE_SALT=gen_cache_t")
tap.ok(ok and not built(out), "and the salted build is then cached too")
-- An edit that changes no structure takes the files of the earlier build with new values in NAME_data (no
-- generation), and compiles only what reads a changed value; anything else generates again.
H.write(model, MODEL .. "-- an edit\n")
local okc, outc, xc = run()
gen, comp = built(outc)
tap.ok(okc and patched(outc) and not gen and not comp, "a comment added to the model file: the files are updated, nothing is compiled")
tap.is(xc, x, "and the result is the same")
H.write(model, (MODEL:gsub('mass = 1,', 'mass = 2,')))
local okm, outm, xm = run()
gen, comp = built(outm)
tap.ok(okm and patched(outm) and not gen and comp, "a mass edited: the data is updated and its unit compiled, no generation")
tap.ok(xm and math.abs(xm - 0.1 * math.cos(math.sqrt(100 / 2) * 0.5)) < 1e-6,
  "and the run has the new mass: x(0.5) = 0.1 cos(sqrt(50) t): " .. tostring(xm))
-- The edit undone: the first version's manifest is still there, but the folder holds the edited version's files.
H.write(model, MODEL)
local okb, outb, xb = run()
gen, comp = built(outb)
tap.ok(okb and outb:match("the files in its folder are another version's") and not outb:match("damaged") and not gen
  and not comp and xb == x, "the edit undone: the folder's files are another version's, not damaged; nothing is compiled")
H.write(model, (MODEL:gsub('mass = 1,', 'mass = 2,')))
run("-q --out '" .. tmp .. "/patched.csv'")
local okf, outf = run("--out '" .. tmp .. "/fresh.csv'", "MBGEN_CACHE_SALT=gen_cache_fresh")
local tp, tf = H.read(tmp .. "/patched.csv"), H.read(tmp .. "/fresh.csv")
tap.ok(okf and built(outf) and tp and #tp > 1000 and tp == tf, "the updated build writes the CSV of a fresh generation, byte for byte")
H.write(model, (MODEL:gsub('mass = 1,', 'mass = 2,')) .. 'joint_spring "damper" { joint = "slide", damping = 0.1 }\n')
ok, out = run()
gen = built(out)
tap.ok(ok and gen, "a damper added (structure): the model is generated again")
H.write(model, MODEL)
H.write(tmp .. "/lib/cache_spring.lua", "return { scale = 2 }\n")
local okl, outl, xl = run()
gen = built(outl)
tap.ok(okl and gen, "an edit of a library the model uses that changes its structure (k * scale) generates again")
tap.ok(xl and math.abs(xl - 0.1 * math.cos(math.sqrt(200) * 0.5)) < 1e-6, "and the run has it: x(0.5) = 0.1 cos(sqrt(200) t)")
H.write(tmp .. "/lib/cache_spring.lua", LIB)
ok, out = run()
ok, out = run()
tap.ok(ok and not built(out), "and the next run is cached")
ok, out = run("--cflags '-O0 -DGEN_CACHE_T'")
gen, comp = built(out)
tap.ok(ok and comp, "other --cflags recompile")

-- Damaged products: found by their hashes in the manifest, rebuilt, never linked.
local function damage(path)
  local f = assert(io.open(path, "r+b"))
  f:seek("set", 200)
  f:write("GARBAGEGARBAGE")
  f:close()
end
-- Every object of every key in the folder, so the one the next run's manifest lists is among them.
local _, objs = H.sh("ls '" .. dir .. "'/*.o")
local nobj = 0
for path in objs:gmatch("[^\n]+") do damage(path); nobj = nobj + 1 end
tap.ok(nobj > 0, "objects to damage: " .. nobj)
local okd, outd, xd = run()
gen, comp = built(outd)
tap.ok(okd and comp and not gen and outd:match("missing or damaged"), "a damaged object is detected and recompiled")
tap.is(xd, x, "and the result is the same")
damage(dir .. "/cache_osc.c")
okd, outd, xd = run()
gen = built(outd)
tap.ok(okd and gen and outd:match("cache_osc%.c missing or damaged"), "a damaged generated .c is detected and regenerated")
tap.is(xd, x, "and the result is the same")
os.remove(dir .. "/mbrun")
okd, outd = run()
tap.ok(okd and not built(outd) and outd:match("driver relinked"), "a missing driver is relinked without a rebuild")

-- sens and check go through the same cache.
for _, cmd in ipairs { "sens models/oscillator.lua --t-end 0.1 --cflags -O0", "check models/oscillator.lua" } do
  local ok1, o1 = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen %s", root, cmd))
  local ok2, o2 = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen %s", root, cmd))
  tap.ok(ok1 and ok2 and not built(o2) and o2:match("up to date %(cached%)"), "a second mbgen " .. cmd .. " is cached")
  if not (ok1 and ok2) then tap.diag(o1 .. o2) end
end

-- Split units against one object: the same model compiled by sections (small sections forced through the
-- emitter's SECTION_BYTES) and compiled whole give the same CSV, byte for byte.
do
  local emit = require "emit.model"
  -- models/tree.lua with a damper, whose rate only some functions read.
  local sdir = tmp .. "/split"
  H.mkdir(sdir)
  H.write(sdir .. "/tree.lua", H.read(H.root .. "models/tree.lua") ..
    '\njoint_spring "neck_damper" { joint = "neck", damping = 0.05 }\n')
  local tree = H.tree(sdir .. "/tree.lua")
  local funcs = require("run.function_sets").for_job("run", tree)
  -- Builds t (a version of tree) in sections of 40 kB under a new key in the split folder: exe, err, info, files.
  local function split_build(t, cflags)
    local saved, files = emit.SECTION_BYTES, nil
    emit.SECTION_BYTES = 40000
    -- The emitter orders labels by when they were made: nodes of an earlier build still interned would come first
    -- (one generation per process, as in mbgen, makes them afresh).
    collectgarbage("collect")
    local exe, err, info = B.executable { root = root, kind = "run", model = sdir .. "/tree.lua", name = t.name,
      overrides = {}, key = B.hash(tostring(os.time()) .. tostring(os.clock()) .. tostring(t) .. (cflags or "")),
      driver = root .. "/runtime/driver/mbrun.c", exe = "mbrun", cflags = cflags or "-O1",
      generate = function()
        local f, stats = emit.generate(t, require("dynamics.functions").build(t, { functions = funcs, lenient = true }))
        files = f
        return f, #stats
      end }
    emit.SECTION_BYTES = saved
    return exe, err, info, files
  end
  -- The CSVs of exe and of the folder's NAME.c compiled whole: split, whole, and whether the whole one compiled.
  local function against_whole(exe, dir)
    local whole = dir .. "/mbrun_whole"
    local okc, cout = H.sh(string.format("gcc -std=c99 -O1 -I'%s/runtime' -I'%s' -DMB_MODEL=%s_model '%s/runtime/driver/mbrun.c' '%s/%s.c' '%s/build/libmbrt.a' " .. H.LIBS .. " -o '%s'",
      root, dir, tree.name, root, dir, tree.name, root, whole))
    local a, b = sdir .. "/split.csv", sdir .. "/whole.csv"
    H.sh(string.format("'%s' --t-end 0.5 --quiet --out '%s'; '%s' --t-end 0.5 --quiet --out '%s'", exe, a, whole, b))
    return H.read(a), H.read(b), okc, cout
  end
  local exe, err, info, files = split_build(tree)
  local k = files and tonumber(files[tree.name .. ".h"]:match("_NSECTIONS (%d+)"))
  if not k or k < 2 then
    tap.ok(true, "# SKIP the emitter wrote " .. tostring(k) .. " sections (NAME_NSECTIONS): the split build is not tested")
  else
    tap.ok(exe and #info.objects == k, string.format("the split build links %d units (%s)", k, tostring(err)))
    -- A function longer than half a section spreads its parts over sections: they are declared, with external
    -- linkage, in a block of every section that holds one.
    local c = files[tree.name .. ".c"]
    tap.ok(c:find("\n#if MB_SECTION%(%d+%) || MB_SECTION%(%d+%)[^\n]*\n[^#]-\n[iv][no][ti]d? " .. tree.name
      .. "_[%w_]+_part%d+%(const mb_args %*a, mb_real %*out, mb_real %*work%);") ~= nil,
      "a long function's parts are declared for the sections that hold them")
    local ta, tb, okc, cout = against_whole(exe, info.dir)
    tap.ok(okc, "the same file compiles whole" .. (okc and "" or (": " .. cout)))
    tap.ok(ta and #ta > 1000 and ta == tb, "split and whole builds write identical CSV files")
    -- The damper's rate edited: the units that read it compile, the others are the objects above; the result is
    -- a whole build's of the new file, byte for byte.
    local tree2 = H.tree(sdir .. "/tree.lua")
    tree2.joint_springs[1].damping = 0.07
    local exe2, err2, info2 = split_build(tree2)
    tap.ok(exe2 and info2.compiled > 0 and info2.compiled < k,
      string.format("a damper's rate edited: %s of %d units compiled (%s)", info2 and info2.compiled, k, tostring(err2)))
    local ta2, tb2 = against_whole(exe2, info.dir)
    tap.ok(ta2 and #ta2 > 1000 and ta2 == tb2 and ta2 ~= ta,
      "its split build writes the whole build's CSV (which the edit changed)")
    -- Linked data (mbgen run's default): section 0 alone holds the values, so the edit compiles that unit only, and
    -- the code that reads them at run time moves the model as the folded constants do, to the last digit.
    local exe3, err3, info3 = split_build(tree, "-O1 -DMB_LINKED_DATA")
    tap.ok(exe3 and #info3.objects == k + 1 and info3.objects[1]:find("%.p0%-"),
      string.format("linked data: %d units and the data table's (%s)", k, tostring(err3)))
    local ta3, tb3 = against_whole(exe3, info.dir)
    tap.ok(ta3 and ta3 == ta and ta3 == tb3, "linked data: the folded build's CSV, byte for byte")
    local exe4, err4, info4 = split_build(tree2, "-O1 -DMB_LINKED_DATA")
    tap.ok(exe4 and info4.compiled == 1,
      string.format("linked data, the damper's rate edited: %s unit compiled, the data table (%s)",
        info4 and info4.compiled, tostring(err4)))
    local ta4, tb4 = against_whole(exe4, info.dir)
    tap.ok(ta4 and ta4 == ta2 and ta4 == tb4, "linked data, after the edit: the folded build's CSV, byte for byte")
  end
  H.sh("rm -rf '" .. (info and info.dir or sdir) .. "'")
end

-- The run set: every formulation x integrator, --static and --forward-dynamics on an open tree, a closed
-- loop and a chain either run or are refused for a reason that is not a missing function (the tree
-- formulation on closed loops), and never crash. matrix_r with the trapezoidal rule needs more functions than the
-- run set has: its driver says which (the set mbgen run builds for it is checked below).
local REFUSED = { "tree formulation ignores them", "which the Matrix R tangent needs" }
for _, m in ipairs { "oscillator", "fourbar_planar", "chain" } do
  -- al3 builds the run set on every model (a closed loop's default, Matrix R, builds run_matrix_r: below).
  local okb, outb = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen run models/%s.lua --cflags -O0 --t-end 0 --quiet -q "
    .. "--formulation al3", root, m))
  tap.ok(okb, "mbgen run models/" .. m .. ".lua builds with the run set")
  if not okb then tap.diag(outb) end
  local exe = B.folder(root, "run", root .. "/models/" .. m .. ".lua", {}) .. "/mbrun"
  local bad = {}
  local cases = {}
  for _, f in ipairs { "tree", "matrix_r", "al3" } do
    for _, i in ipairs { "rk4", "dopri5", "trapezoidal" } do cases[#cases + 1] = "--formulation " .. f .. " --integrator " .. i end
  end
  cases[#cases + 1] = "--static"
  cases[#cases + 1] = "--forward-dynamics"
  for _, c in ipairs(cases) do
    local okr, outr, code = H.sh(string.format("'%s' --t-end 0.05 --quiet %s", exe, c))
    local refused = false
    for _, r in ipairs(REFUSED) do if outr:find(r, 1, true) and code == 1 then refused = true end end
    if not okr and not refused then bad[#bad + 1] = c .. ": " .. outr end
  end
  tap.is(#bad, 0, m .. ": every formulation, integrator, --static and --forward-dynamics runs")
  local okt, outt = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen run models/%s.lua --cflags -O0 --t-end 0.05 "
    .. "--quiet -q --formulation matrix_r --integrator trapezoidal", root, m))
  tap.ok(okt, m .. ": mbgen run --formulation matrix_r --integrator trapezoidal builds its set and runs")
  if not okt then tap.diag(outt) end
  for _, b in ipairs(bad) do tap.diag(b) end
end

-- Matrix R with an explicit integrator builds run_matrix_r: rk4, dopri5, --static and the rod modes run; the formulations
-- it leaves out are refused by name, with exit status 1.
do
  local okb, outb = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen run models/fourbar_planar.lua --cflags -O0 --t-end 0 "
    .. "--quiet -q", root))
  tap.ok(okb, "mbgen run of a closed loop builds the run_matrix_r set")
  if not okb then tap.diag(outb) end
  local dir = B.folder(root, "run_matrix_r", root .. "/models/fourbar_planar.lua", {})
  local h = H.read(dir .. "/fourbar_planar.h") or ""
  tap.ok(h:find("fourbar_planar_constraints_dz(", 1, true) and not h:find("fourbar_planar_inverse_dynamics_tangent", 1, true)
    and not h:find("fourbar_planar_forward_dynamics(", 1, true) and not h:find("fourbar_planar_inverse_dynamics_dz(", 1, true)
    and not h:find("fourbar_planar_constraints_dz_tw_dz", 1, true),
    "run_matrix_r: the constraints' Jacobian, not the tree tangent, forward dynamics or the static problem's derivatives")
  local bad = {}
  for _, c in ipairs { "--integrator rk4", "--integrator dopri5", "--static", "--static --integrator dopri5" } do
    local okr, outr = H.sh(string.format("'%s/mbrun' --t-end 0.05 --quiet %s", dir, c))
    if not okr then bad[#bad + 1] = c .. ": " .. outr end
  end
  tap.is(#bad, 0, "run_matrix_r: Matrix R runs with rk4, dopri5 and --static")
  for _, b in ipairs(bad) do tap.diag(b) end
  local msgs = {}
  for _, c in ipairs { "--formulation al3", "--formulation al3 --integrator trapezoidal" } do
    local okr, outr, code = H.sh(string.format("'%s/mbrun' --t-end 0.01 --quiet %s", dir, c))
    if okr or code ~= 1 or not outr:match("mbrun: error.*fourbar_planar") then msgs[#msgs + 1] = c .. " (" .. tostring(code) .. "): " .. outr end
  end
  tap.is(#msgs, 0, "run_matrix_r: another formulation is refused by name, exit status 1")
  for _, s in ipairs(msgs) do tap.diag(s) end
end

-- A slot the model table leaves NULL is an error message, never a call through NULL.
do
  local ndir = tmp .. "/null"
  local okg = H.sh(string.format("cd '%s' && lua5.4 generator/mbgen generate models/oscillator.lua -o '%s' --functions mass,forces", root, ndir))
  local okc = okg and H.sh(string.format("gcc %s -I'%s/runtime' -I'%s' -DMB_MODEL=oscillator_model '%s/runtime/driver/mbrun.c' '%s/oscillator.c' '%s/build/libmbrt.a' " .. H.LIBS .. " -o '%s/mbrun'",
    H.CFLAGS, root, ndir, root, ndir, root, ndir))
  tap.ok(okc, "a model with only mass and forces links with mbrun")
  local msgs = {}
  for _, c in ipairs { "--integrator trapezoidal", "--forward-dynamics", "--static", "--formulation al3" } do
    local okr, outr, code = H.sh(string.format("'%s/mbrun' --t-end 0.01 --quiet %s", ndir, c))
    if okr or code ~= 1 or not outr:match("^mbrun: error.*oscillator") then msgs[#msgs + 1] = c .. " (" .. tostring(code) .. "): " .. outr end
  end
  tap.is(#msgs, 0, "every entry point that needs a missing function says so and exits 1")
  for _, s in ipairs(msgs) do tap.diag(s) end
end

tap.done_testing()
