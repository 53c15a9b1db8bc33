-- al3_providers_build.lua: builds tests/peers/adolc_al3.c (the whole-run comparison of the al3 tangent's providers)
-- for a list of models, generating and compiling on every core (tests/bench/parallel.lua), and runs one of them.
-- Per model: the al3's functions with their compressed forms (`mbgen generate --csc`), compiled section by section;
-- the inverse dynamics alone generated again into ad/ and compiled as C++ with mb_real = adouble
-- (adolc_al3_tape.cpp, at -O0: g++ takes minutes on a big model's adouble code, and only the tape's evaluations are
-- timed); the driver and the ADOL-C providers; linked with build/libmbrt.a, KLU, ADOL-C and LAPACK.
local M = {}

-- What mb_sim with al3 reaches (generator/run/function_sets.lua M.run, without the rods, the tyres' outputs and
-- forward dynamics): the start-up's Matrix R assembly, the al3 step on both paths, the energy balance.
M.FUNCTIONS = { "mass", "forces", "forces_nc", "inverse_dynamics", "inverse_dynamics_dz", "inverse_dynamics_dzd",
  "inverse_dynamics_tangent", "energy", "total_mass", "constraints", "constraints_dz", "constraints_dt",
  "constraint_bias", "constraints_dz_tw_dz" }
M.LIBS = "-ladolc -lklu -lamd -lcolamd -lbtf -lsuitesparseconfig -llapack -lm"

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function absolute(H)
  local _, abs = H.sh("cd " .. q(H.root) .. " && pwd")
  return abs:gsub("%s+$", "") .. "/"
end

-- The C name of a model file (its `model "NAME"`), which names the generated files and the model table.
local function c_name(H, path)
  return assert((H.read(path) or ""):match('model%s*%(?%s*"([%w_]+)"'), path .. ": no model name")
end

local function sets(c)
  local s = {}
  for k, v in pairs(c.set or {}) do s[#s + 1] = string.format("--set %s=%s", k, v) end
  table.sort(s)
  return table.concat(s, " ")
end

-- Builds every case ({ model = "fourbar_grid", set = { NY = 4 }, name = "grid4" }) into dir/NAME; opt: the
-- optimization of the generated model, the driver and the providers (-O2). Sets c.dir, c.exe, and c.failed (the
-- output of the step that failed) on a case that did not build. Returns the wall seconds of each phase.
function M.build(H, P, cases, dir, opt)
  opt = opt or "-O2"
  local R = absolute(H)
  local secs = {}
  local t0 = H.now()
  local ok, out = H.sh(string.format("cd %s && mkdir -p build && flock build/.libmbrt.lock make -s build/libmbrt.a", q(R)))
  secs.runtime = H.now() - t0
  if not ok then
    for _, c in ipairs(cases) do c.failed = "make build/libmbrt.a failed:\n" .. out end
    return secs
  end
  -- Generation, two commands per model.
  local gens, owners = {}, {}
  for _, c in ipairs(cases) do
    c.dir = dir .. "/" .. c.name
    c.cname = c_name(H, R .. "models/" .. c.model .. ".lua")
    c.exe = c.dir .. "/al3prov"
    H.sh("rm -rf " .. q(c.dir) .. " && mkdir -p " .. q(c.dir))
    local g = string.format("cd %s && lua5.4 generator/mbgen generate models/%s.lua %s", q(R), c.model, sets(c))
    gens[#gens + 1], owners[#gens + 1] = string.format("%s -o %s --csc --functions %s", g, q(c.dir),
      table.concat(M.FUNCTIONS, ",")), c
    gens[#gens + 1], owners[#gens + 1] = string.format("%s -o %s --functions inverse_dynamics", g, q(c.dir .. "/ad")), c
  end
  t0 = H.now()
  for k, r in ipairs(P.run(H, gens, dir .. "/jobs-generate")) do
    if not r.ok then owners[k].failed = owners[k].failed or ("mbgen generate failed:\n" .. r.out) end
  end
  secs.generate = H.now() - t0
  -- Compilation: the model's sections, the tape, the driver and the providers, the heaviest first.
  local cmds, weights
  cmds, weights, owners = {}, {}, {}
  local function add(c, cmd, w) cmds[#cmds + 1], weights[#cmds + 1], owners[#cmds + 1] = cmd, w, c end
  for _, c in ipairs(cases) do
    if not c.failed then
      local D, N = c.dir .. "/", c.cname
      local size = #(H.read(D .. N .. ".c") or "")
      local k = tonumber((H.read(D .. N .. ".h") or ""):match("#define%s+" .. N .. "_NSECTIONS%s+(%d+)")) or 0
      c.objects = {}
      for part = 1, math.max(k, 1) do
        local o = string.format("%smodel.p%d.o", D, part)
        c.objects[#c.objects + 1] = q(o)
        add(c, string.format("gcc -std=c99 %s %s -I%sruntime -I%s -c %s -o %s", opt, k > 0 and ("-DMB_PART=" .. part) or "",
          q(R), q(D), q(D .. N .. ".c"), q(o)), size / math.max(k, 1))
      end
      add(c, string.format("g++ -std=c++17 -O0 -w -I%sruntime -I%s -DAD_MODEL_C='\"ad/%s.c\"' -DAD_FN=%s_inverse_dynamics " ..
        "-DAD_NWORK=%s_inverse_dynamics_NWORK -D%s_model=%s_model_ad -c %stests/peers/adolc_al3_tape.cpp -o %s",
        q(R), q(D), N, N, N, N, N, q(R), q(D .. "tape.o")), #(H.read(D .. "ad/" .. N .. ".c") or ""))
      add(c, string.format("gcc -std=c99 %s -Wall -Wextra -I%sruntime -I%stests/bench -I%stests/peers -DMB_MODEL=%s_model " ..
        "-c %stests/peers/adolc_al3.c -o %s", opt, q(R), q(R), q(R), N, q(R), q(D .. "main.o")), 0)
      add(c, string.format("g++ -std=c++17 %s -Wall -Wextra -I%sruntime -I%stests/peers -c %stests/peers/adolc_al3_jac.cpp -o %s",
        opt, q(R), q(R), q(R), q(D .. "jac.o")), 0)
    end
  end
  t0 = H.now()
  for k, r in ipairs(P.run(H, cmds, dir .. "/jobs-compile", weights)) do
    if not r.ok then owners[k].failed = owners[k].failed or ("compiling failed:\n" .. r.out) end
  end
  secs.compile = H.now() - t0
  for _, c in ipairs(cases) do
    if not c.failed then
      local D = c.dir .. "/"
      local lok, lout = H.sh(string.format("g++ %s %s %s %s %sbuild/libmbrt.a %s -o %s", q(D .. "main.o"), q(D .. "jac.o"),
        q(D .. "tape.o"), table.concat(c.objects, " "), q(R), M.LIBS, q(c.exe)))
      if not lok then c.failed = "linking failed:\n" .. lout end
    end
  end
  return secs
end

-- The programs of an earlier M.build into dir, without building: true when every case has one (c.dir, c.exe set).
-- Only for re-timing: nothing checks that they match the sources.
function M.locate(H, cases, dir)
  for _, c in ipairs(cases) do
    c.dir = dir .. "/" .. c.name
    c.exe = c.dir .. "/al3prov"
    if not H.sh("test -x " .. q(c.exe)) then return false end
  end
  return true
end

-- Runs a built case for t_end seconds at the steps h_ms (a list, in ms), with providers (a list, or nil for all) and
-- settings (nil: the al3's defaults; { alpha_rel =, max_iter = }); returns ok, the output, and its "key value" lines.
function M.run(H, c, t_end, h_ms, providers, settings)
  local env = ""
  for k, v in pairs(settings or {}) do env = env .. string.format("AL3_%s=%s ", k:upper(), v) end
  local ok, out = H.sh(string.format("%s%s %s %s %s", env, q(c.exe), tostring(t_end), table.concat(h_ms, ","),
    providers and table.concat(providers, ",") or ""))
  return ok, out, H.keyvals(out)
end

-- The key of a step size in the program's output: "h10", "h2p5".
function M.hkey(h_ms) return (("h" .. string.format("%g", h_ms)):gsub("%.", "p")) end

return M
