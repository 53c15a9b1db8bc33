#!/usr/bin/env lua5.4
-- cl_al3_sparse.t: the al3 tangent assembled in the generated compressed patterns and factored by KLU takes the same
-- Newton steps as the dense LAPACK one, to the Newton tolerance, with the generated derivatives and with an outside
-- provider of [dr/dz, dr/dzd] (the hook of the ADOL-C benchmark); `mbgen run --jacobian` chooses it, auto by size.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

local TMP = H.root .. "build/tmp/cl_al3_sparse"
H.sh("rm -rf '" .. TMP .. "'")
H.mkdir(TMP)
local RUNS = { "dense", "sparse", "dense_provider", "sparse_provider" }

-- Builds tests/fixtures/al3_sparse_run.c against a model generated into dir (csc: its compressed forms).
local function build(model, set, csc, name)
  local dir = TMP .. "/" .. name
  local tree = H.tree(H.root .. "models/" .. model .. ".lua", set)
  tree.name = name
  H.generate(tree, dir, { csc = csc })
  local ok, msg = H.sh(string.format("gcc %s -I'%sruntime' -I'%s' -DMB_MODEL=%s_model '%stests/fixtures/al3_sparse_run.c' " ..
    "'%s/%s.c' '%sbuild/libmbrt.a' %s -o '%s/run'", H.CFLAGS, H.root, dir, name, H.root, dir, name, H.root, H.LIBS, dir))
  return ok, msg, dir
end

local okl = H.sh("cd '" .. H.root .. "' && make -s build/libmbrt.a")
tap.ok(okl, "the runtime library builds")
for _, c in ipairs {
  { "fourbar_grid", { NY = 1 }, "grid1", { "0.3 0.01", "0.3 0.01 al3 3 approx", "0.3 0.01 penalty 1" } },
  { "fourbar_spatial", {}, "fourbar", { "0.5 0.005", "0.5 0.005 al3 3 approx", "0.5 0.005 penalty 2" } },
} do
  local ok, msg, dir = build(c[1], c[2], true, c[3])
  if not tap.ok(ok, c[3] .. ": the fixture builds against the model's compressed forms") then tap.diag(msg) end
  for _, args in ipairs(c[4]) do
    local okr, out = H.sh("'" .. dir .. "/run' " .. args)
    local r = H.keyvals(out)
    local what = string.format("%s (%s)", c[3], args)
    for k, run in ipairs(RUNS) do
      if not tap.ok(okr and r[run .. "_iters"] and not r[run .. "_error"], what .. ": the " .. run .. " run completes") then
        tap.diag(tostring(r[run .. "_error"] or out))
      end
      tap.is(r[run .. "_sparse"], (k % 2 == 0) and 1 or 0, what .. ": " .. run .. " factors the tangent " ..
        ((k % 2 == 0) and "sparse" or "dense"))
      if k > 1 then
        tap.is(r[run .. "_iters_diff"], 0, string.format("%s: %s takes the dense run's %s Newton iterations", what, run,
          tostring(r.dense_iters)))
        local e = r[run .. "_state_diff"]
        tap.ok(e and e < 1e-8, string.format("%s: %s ends where the dense run does (%s relative)", what, run, tostring(e)))
      end
    end
    tap.ok(r.dense_provider_hook_calls and r.dense_provider_hook_calls > 0 and r.dense_provider_hook_calls == r.dense_provider_derivs and
      r.sparse_provider_hook_calls == r.sparse_provider_derivs,
      what .. ": the provider is called once per derivative evaluation (" .. tostring(r.sparse_provider_hook_calls) .. ")")
    tap.ok((r.sparse_refactor or 0) > 0 and (r.sparse_full or 0) >= 1 and (r.sparse_full or 0) < (r.sparse_refactor or 0),
      string.format("%s: KLU refactors in the kept pivot order (%s full, %s refactorizations)", what,
        tostring(r.sparse_full), tostring(r.sparse_refactor)))
  end
end

-- Without the compressed forms the sparse tangent is refused by name, the dense one runs.
local ok, msg, dir = build("fourbar_spatial", {}, nil, "fourbar_dense_only")
if not tap.ok(ok, "the fixture builds against a model without compressed forms") then tap.diag(msg) end
local _, out = H.sh("'" .. dir .. "/run' 0.05 0.005")
local r = H.keyvals(out)
tap.ok(r.dense_iters and r.dense_provider_iters, "without --csc the dense paths run")
tap.like(tostring(r.sparse_error), "no compressed form of mass.*%-%-csc", "without --csc the sparse tangent is refused, naming --csc")

-- mbgen run: --jacobian auto picks the sparse tangent from 40 coordinates on, and the summary says which ran. -O0:
-- these runs take a fraction of a second, the grid's -O1 build half a minute of CPU.
local function run(model, args)
  local okr, o, _, _, z = H.run_z(string.format("%s --formulation al3 --t-end 0.2 --step 0.01 --cflags -O0 %s", model,
    args), TMP)
  return okr, o, z
end
local oka, outa, za = run("models/fourbar_grid.lua", "")
tap.ok(oka, "grid 1 x 15 runs with the default --jacobian")
tap.like(outa, "tangent: sparse, 45 x 45 with %d+ structural non%-zeros", "auto: 45 coordinates take the sparse tangent")
local okd, outd, zd = run("models/fourbar_grid.lua", "--jacobian analytic")
tap.like(outd, "tangent: dense, 45 x 45, LAPACK LU", "--jacobian analytic keeps the dense tangent")
tap.ok(oka and okd and H.max_diff(za, zd) < 1e-9, string.format("the grid's sparse and dense runs agree (%.1e)", H.max_diff(za, zd)))
local okf, outf = run("models/fourbar_spatial.lua", "")
tap.ok(okf and outf:find("tangent: dense", 1, true), "auto: the four-bar (7 coordinates) keeps the dense tangent")
local oks, outs, zs = run("models/fourbar_spatial.lua", "--jacobian analytic-sparse")
local _, _, zf = run("models/fourbar_spatial.lua", "--jacobian analytic")
tap.ok(oks and outs:find("tangent: sparse", 1, true) and H.max_diff(zs, zf) < 1e-9,
  string.format("--jacobian analytic-sparse forces it on the four-bar, same motion (%.1e)", H.max_diff(zs, zf)))
local okp, outp = run("models/fourbar_grid.lua", "--formulation penalty")
tap.ok(okp and outp:find("tangent: sparse", 1, true), "penalty takes the sparse tangent too")
local okx, _, errx, code = H.mbgen("run models/fourbar_spatial.lua --formulation al3 --t-end 0.01 --jacobian klu", TMP)
tap.ok(not okx and code == 2 and errx:find("auto, analytic, analytic-sparse or fd", 1, true),
  "an unknown --jacobian is refused with the choices (exit 2)")
tap.done_testing()
