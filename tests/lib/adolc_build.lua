-- adolc_build.lua: builds tests/peers/adolc_jac.cpp for one tree (the generated inverse dynamics and its Jacobians
-- compiled as C; the inverse dynamics alone generated again into ad/ and compiled as C++ with mb_real = adouble by
-- adolc_tape.cpp, since ADOL-C tapes only that and g++ on the adouble Jacobians of a big model takes many minutes) and
-- runs it; returns ok, "key value" output, and the generator's stats (of the C build).
local M = {}

-- The shell command that builds dir/jac, and the generator's stats of the C build. opt: optimization flag
-- (default -O2; the agreement test uses -O0, it needs values, not speed).
function M.build_command(H, tree, dir, opt)
  opt = opt or "-O2"
  local name = tree.name
  local stats = H.generate(tree, dir, { functions = { "inverse_dynamics", "inverse_dynamics_dz", "inverse_dynamics_dzd" } })
  H.generate(tree, dir .. "/ad", { functions = { "inverse_dynamics" } })
  local _, abs = H.sh("cd '" .. H.root .. "' && pwd")
  local R = abs:gsub("%s+$", "") .. "/"      -- absolute: the build runs in dir
  -- The taped adouble code at -O0 (only the tape's evaluations are timed; g++ -O2 takes minutes on it).
  local cmd = string.format("cd '%s' && gcc -std=c99 %s -I'%sruntime' -I. -DMB_MODEL=%s_model -c '%stests/peers/adolc_ref.c' -o ref.o" ..
    " && gcc -std=c99 %s -I'%sruntime' -c %s.c -o model.o" ..
    " && g++ -std=c++17 -O0 -w -I'%sruntime' -I. -DAD_MODEL_C='\"ad/%s.c\"' -DAD_FN=%s_inverse_dynamics -DAD_NWORK=%s_inverse_dynamics_NWORK" ..
    " -D%s_model=%s_model_ad -c '%stests/peers/adolc_tape.cpp' -o tape.o" ..
    " && g++ -std=c++17 %s -w -I'%stests/bench' '%stests/peers/adolc_jac.cpp' ref.o model.o tape.o -ladolc -o jac",
    dir, opt, R, name, R, opt, R, name, R, name, name, name, name, name, R, opt, R, R)
  return cmd, stats
end

-- Builds and runs dir/jac (with "time": it also times every Jacobian); returns ok, its "key value" output, and
-- the generator's stats.
function M.run(H, tree, dir, timing, opt)
  local cmd, stats = M.build_command(H, tree, dir, opt)
  local ok, out = H.sh(cmd .. " && ./jac" .. (timing and " time" or ""))
  return ok, out, stats
end

return M
