-- dynamics/functions.lua: the model's function specifications, the data between the dynamics and the emitter.
local TF = require "dynamics.tree_functions"
local CF = require "dynamics.constraint_functions"
local CS = require "dynamics.constraint_sensitivity"
local OF = require "dynamics.objective_functions"
local DATA = require "dynamics.data"
local MR = require "formulation.matrix_r"
local errors = require "model.errors"

local F = {}

-- Keeps the functions named in `only` (a list; nil keeps all); an unknown name is an error naming the
-- functions the model has, unless `lenient` (a job's fixed list, of which a model has what applies to it).
-- A controller that needs M and r compiles in a fraction of the time.
local function select_functions(fns, only, tree, lenient)
  if not only then return fns end
  local have, list = {}, {}
  for _, f in ipairs(fns) do have[f.name] = f; list[#list + 1] = f.name end
  local want = {}
  for _, nm in ipairs(only) do
    if not have[nm] and not lenient then
      errors.raise(tree.file, nil, "--functions", string.format("model \"%s\" has no function \"%s\"%s (it has: %s)",
        tree.name, nm, errors.hint(nm, list), table.concat(list, ", ")))
    end
    want[nm] = true
  end
  local kept = {}
  for _, f in ipairs(fns) do if want[f.name] then kept[#kept + 1] = f end end
  return kept
end

-- One function whose output is the outputs of the functions named in parts, one after the other (each column-major),
-- so that their shared expressions (the bodies' frames, their sines and cosines, the velocities) are computed once.
-- Closed loops only (the function named `loop` has rows); nil otherwise.
local function joined(fns, name, parts, loop)
  local by = {}
  for _, f in ipairs(fns) do by[f.name] = f end
  if not (by[loop] and by[loop].rows > 0) then return nil end
  local exprs = {}
  for _, part in ipairs(parts) do
    if not by[part] then return nil end
    for _, x in ipairs(by[part].exprs) do exprs[#exprs + 1] = x end
  end
  return { name = name, rows = #exprs, cols = 1, exprs = exprs }
end

-- The spec of a tree's model: { name, functions = { { name, rows, cols, exprs (column-major), matrix
-- (true for a matrix slot), solve (true: [M, B] whose solve X = M⁻¹ B is the output) } ... } in slot order,
-- byname, objectives = { { name, integrand, terminal } } (function names), data = the named numbers the
-- expressions read (dynamics/data.lua), initial_h = start values of general independent coordinates the model
-- gives none for ({ z = { [k] = q0 }, zd = ... }, dynamics/constraint_functions.lua), reduction = Matrix R's plan
-- for the declared independent coordinates (formulation/matrix_r.lua; nil without them) }. opts.functions: the
-- functions to keep (default all); opts.lenient: names the model does not have are skipped. Everything the
-- emitter prints is here.
function F.build(tree, opts)
  DATA.bind(tree)
  local only = opts and opts.functions
  local wanted = {}
  for _, nm in ipairs(only or {}) do wanted[nm] = true end
  local built = TF.build(tree, only and function(nm) return wanted[nm] == true end)
  local fns, byname = built.functions, {}
  local cfns = CF.build(tree, built)
  for _, f in ipairs(cfns) do fns[#fns + 1] = f end
  for _, f in ipairs(CS.build(tree, built, cfns)) do fns[#fns + 1] = f end
  local ofns, objectives = OF.build(tree, built)
  for _, f in ipairs(ofns) do fns[#fns + 1] = f end
  -- Matrix R evaluates M, Q and the constraint bias at the same (t, z, zd); a position Newton step evaluates Phi at
  -- its trial point and, where that point solves the problem, Phi_z there for the factors that follow
  -- (runtime/kinematics.c).
  fns[#fns + 1] = joined(fns, "mass_forces_bias", { "mass", "forces", "constraint_bias" }, "constraint_bias")
  fns[#fns + 1] = joined(fns, "constraints_and_dz", { "constraints", "constraints_dz" }, "constraints")
  fns = select_functions(fns, opts and opts.functions, tree, opts and opts.lenient)
  for _, f in ipairs(fns) do byname[f.name] = f end
  -- With --functions an objective keeps only the parts that were kept; one with none is left out.
  local kept = {}
  for _, o in ipairs(objectives) do
    o.integrand = o.integrand and byname[o.integrand] and o.integrand or nil
    o.terminal = o.terminal and byname[o.terminal] and o.terminal or nil
    if o.integrand or o.terminal then kept[#kept + 1] = o end
  end
  return { name = tree.name, functions = fns, byname = byname, objectives = kept, data = DATA.entries(tree),
    initial_h = cfns.initial_h, reduction = MR.plan(tree, byname) }
end

return F
