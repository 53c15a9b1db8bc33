-- loops_tangent.lua: `make bench`: time per al3 step of fourbar_grid (NY = 1, 4, 7, 15 columns) with the analytic
-- tangent against the tangent by central differences of the generated functions, as same-run ratios.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/loops_bench.t"
local H = dofile(root .. "tests/lib/harness.lua")
root = H.root
package.path = root .. "tests/bench/?.lua;" .. package.path
local P = require "parallel"

-- What al3 and its Matrix R start-up call; the rest of the model would only lengthen the compile.
local FUNCTIONS = { "mass", "forces", "inverse_dynamics", "inverse_dynamics_dz", "inverse_dynamics_dzd", "energy",
  "constraints", "constraints_dz", "constraints_dt", "constraint_bias", "constraints_dz_tw_dz" }
-- Generated (`mbgen generate`) and compiled one per core at a time, then timed alone.
local ok, out = H.sh(string.format("make -s -C '%s' build/libmbrt.a", root))
if not ok then io.stderr:write(out); os.exit(1) end
local rows, gens, builds, weights = {}, {}, {}, {}
for ny in (os.getenv("GRID_NY") or "1 4 7"):gmatch("%d+") do
  local dir = root .. "build/bench/loops_tangent/grid" .. ny
  rows[#rows + 1] = { ny = ny, dir = dir }
  weights[#rows] = tonumber(ny)
  gens[#rows] = string.format("lua5.4 '%sgenerator/mbgen' generate '%smodels/fourbar_grid.lua' --set NY=%s --functions %s -o '%s'",
    root, root, ny, table.concat(FUNCTIONS, ","), dir)
  builds[#rows] = string.format("gcc -std=c99 -O1 -I'%sruntime' -I'%s' -DMB_MODEL=fourbar_grid_model " ..
    "'%stests/bench/loops_tangent.c' '%s/fourbar_grid.c' '%sbuild/libmbrt.a' " .. H.LIBS .. " -o '%s/bench'",
    root, dir, root, dir, root, dir)
end
for k, secs in ipairs(P.all(H, gens, root .. "build/bench/loops_tangent/jobs-generate", weights)) do rows[k].gen = secs end
for k, secs in ipairs(P.all(H, builds, root .. "build/bench/loops_tangent/jobs", weights)) do rows[k].cc = secs end
for _, x in ipairs(rows) do
  ok, out = H.sh("'" .. x.dir .. "/bench'")
  if not ok then io.stderr:write(out); os.exit(1) end
  x.r = H.keyvals(out)
  io.stderr:write("fourbar_grid NY=" .. x.ny .. " done\n")
end
local L = { "| model | nz / nc | analytic tangent µs per step | central-difference tangent µs per step | ratio | Newton iterations (analytic / CD) | generate s | gcc -O1 s |",
  "|---|---|---|---|---|---|---|---|" }
for _, x in ipairs(rows) do
  local r = x.r
  L[#L + 1] = string.format("| fourbar_grid NY=%s | %d / %d | %.1f | %.1f | %.1f | %d / %d | %.1f | %.1f |", x.ny, r.nz, r.nc,
    r.analytic_step_ns / 1e3, r.fd_step_ns / 1e3, r.fd_step_ns / r.analytic_step_ns, r.analytic_newton, r.fd_newton, x.gen, x.cc)
end
local _, cpu = H.sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
local text = "# al3 step time of fourbar_grid: analytic tangent against central differences\n\nMachine:" .. cpu ..
  "One core, gcc -O1 (generated functions needed by al3 only; gcc s: wall time of one build, one per core at a time), h = 1 ms over 0.05 s from the model's initial state " ..
  "(jv_0_1 at pi/3 rad/s), one run of `make bench`. The central-difference tangent differentiates the generated " ..
  "inverse dynamics (2 calls per column of dr/dz and of dr/dzd) and Phi_z (2 calls per column of d(Phi_z' w)/dz).\n\n" ..
  table.concat(L, "\n") .. "\n"
H.write(root .. "tests/bench/results/loops_tangent.md", text)
io.write(text)
