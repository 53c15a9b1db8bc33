-- run/function_sets.lua: the model functions each driver can reach, so `mbgen run` and `sens` emit and compile only those.
-- Read off runtime/*.c and runtime/driver/*.c (every `m->SLOT` they call); a slot left out is NULL in the
-- model table, and each runtime entry point checks the slots it needs when it is created and reports a
-- missing one as an error ("... needs ...") instead of calling it. A new call of a slot in the runtime must
-- add that slot here (tests/gen_cache.t runs every formulation and integrator with these sets).
local M = {}

-- runtime/driver/mbrun.c and what it links: sim.c (any --formulation, any --integrator), the formulations
-- tree (forward_dynamics with --forward-dynamics; the tangent or mass and the two Jacobians for the
-- trapezoidal rule), matrix_r (mass, forces and the constraint bias; in its own sets by mass_forces_bias) and al3
-- (mass, residual, its Jacobians, constraints_dz_tw_dz), kinematics.c (the closed loops' position, velocity and
-- acceleration levels; Phi with Phi_z at a Newton step's full step by constraints_and_dz), statics.c (--static: the
-- residual, dr/dz and the constraint terms), output_csv.c (energy, points, tyres), and mbrun.c itself (total_mass for
-- the static loads, forces_nc for the energy balance), and Matrix R's rod modes (--rod-inertia: M without the rods
-- or with their ends' thirds, and their inertia forces).
-- No derivative with respect to p: those are the largest functions, and only sensitivities need them.
M.run = {
  "mass", "forces", "forces_nc", "inverse_dynamics", "inverse_dynamics_dz", "inverse_dynamics_dzd",
  "inverse_dynamics_tangent", "forward_dynamics", "energy", "points", "tyres", "total_mass",
  "constraints", "constraints_dz", "constraints_dt", "constraint_bias", "constraints_dz_tw_dz",
  "mass_tree", "mass_lumped", "rod_inertia", "rod_inertia_cross", "constraints_and_dz",
}
-- Matrix R's one pass of M, Q and the bias is in its own sets only: `mbgen run` builds those for Matrix R, and a driver
-- of this set given --formulation matrix_r calls the three functions instead. Another formulation never calls it, and on
-- fourbar_grid (NY = 4: M is 135 x 135) it is a large part of an al3 build's C.
local MATRIX_R_ONLY = { "mass_forces_bias" }

-- `mbgen run --formulation matrix_r --integrator trapezoidal` (or a model whose simulate asks for both): the rule's
-- exact Newton tangent is Matrix R's tangent linear model along the independent coordinates and velocities
-- (runtime/matrix_r_tangent.c), which reads the constraints' z and zd derivatives besides M and r's Jacobians.
M.run_matrix_r_trapezoidal = { table.unpack(M.run) }
for _, name in ipairs { "constraint_vel_dz", "constraint_acc_dz", "constraint_bias_dz", "constraint_bias_dzd",
    table.unpack(MATRIX_R_ONLY) } do
  M.run_matrix_r_trapezoidal[#M.run_matrix_r_trapezoidal + 1] = name
end

-- `mbgen run` of Matrix R with an explicit integrator (rk4, dopri5), the vehicles' runs: the run set without the
-- functions only the other formulations call (forward_dynamics for the tree formulation's --forward-dynamics, the
-- tree tangent and the Jacobians inverse_dynamics_dz and _dzd for the implicit rules and al3), and without
-- constraints_dz_tw_dz: --static then takes its few Newton tangents by central differences (statics.c). The
-- sedan's C is half as long (1.3 MB; inverse_dynamics_dz alone was 1.0 MB of 2.7), and a fresh `make run`
-- generates and compiles only this. Its driver refuses another formulation with the missing function's name;
-- `mbgen run --formulation ...` builds that formulation's set.
M.run_matrix_r = {}
do
  local other = { forward_dynamics = true, inverse_dynamics_dz = true, inverse_dynamics_dzd = true,
    inverse_dynamics_tangent = true, constraints_dz_tw_dz = true }
  for _, name in ipairs(M.run) do
    if not other[name] then M.run_matrix_r[#M.run_matrix_r + 1] = name end
  end
  for _, name in ipairs(MATRIX_R_ONLY) do M.run_matrix_r[#M.run_matrix_r + 1] = name end
end

-- The compressed forms (`mbgen generate --csc`) the sparse al3 tangent reads (runtime/al3_sparse.c): `mbgen run` of an
-- al3 or penalty job with --jacobian analytic-sparse, or auto on a model of MB_AL3_SPARSE_MIN_NZ (40) coordinates or
-- more (runtime/formulation_al3.h), adds them to the run set.
M.al3_sparse_csc = { "mass", "inverse_dynamics_tangent", "constraints_dz", "constraints_dz_tw_dz" }
M.AL3_SPARSE_MIN_NZ = 40
M.run_al3_sparse = M.run

-- runtime/driver/mbsens.c and what it links: sens.c, sens_common.c, sens_direct.c, sens_adjoint.c (DDM and
-- AVM on open trees: forward dynamics and inverse dynamics with their z, zd and p derivatives),
-- sens_matrix_r.c with formulation_matrix_r.c and kinematics.c (closed loops: the constraints and all
-- their derivatives), plus the objectives (added per model by M.for_job). The tree DDM takes both
-- forward-dynamics Jacobians fused (forward_dynamics_dy), or the recursive kernels forward_dynamics_sens and
-- inverse_dynamics_sens (sens_direct.c chooses), and the rod modes' forms and their derivatives
-- (matrix_r_tangent.c). mbsens writes no CSV and has
-- no energy balance, so energy, points, tyres, forces_nc and total_mass stay out.
M.sens = {
  "mass", "forces", "inverse_dynamics", "inverse_dynamics_dz", "inverse_dynamics_dzd", "inverse_dynamics_dp",
  "inverse_dynamics_tangent", "forward_dynamics", "forward_dynamics_dy", "forward_dynamics_dp",
  "forward_dynamics_sens", "inverse_dynamics_sens", "constraints", "constraints_dz", "constraints_dp", "constraints_dt",
  "constraint_bias", "constraint_bias_dz", "constraint_bias_dzd", "constraint_bias_dp",
  "constraints_dz_tw_dz", "constraints_dz_tw_dp", "constraint_vel_dz", "constraint_vel_dp",
  "constraint_acc_dz", "constraint_acc_dp",
  "mass_tree", "mass_lumped", "rod_inertia", "rod_inertia_cross", "rod_inertia_dz", "rod_inertia_dp",
  "rod_inertia_cross_dz", "rod_inertia_cross_dp", "mass_forces_bias", "constraints_and_dz",
}

-- runtime/driver/mbcheck.c compares each derivative its items list with the complex step of the function it
-- differentiates. mbgen check builds the two sets apart: the functions differentiated in complex arithmetic (check),
-- the derivatives in real arithmetic (check_real, mass also for the conditioning of M), because complex arithmetic at
-- -O0 is the slowest compile of `make test` and the derivatives are most of the C. Neither set has the functions
-- mbcheck never calls (Matrix R's one pass, the constraints' velocity and acceleration Jacobians, the energy, the
-- forces). A new item in mbcheck.c adds its pair here.
M.check = {
  "inverse_dynamics", "forward_dynamics", "points", "constraints", "constraint_bias", "rod_inertia",
  "rod_inertia_cross", "constraints_dz",
}
M.check_real = {
  "mass", "inverse_dynamics_dz", "inverse_dynamics_dzd", "inverse_dynamics_dp",
  "inverse_dynamics_tangent", "inverse_dynamics_dy", "inverse_dynamics_sens",
  "forward_dynamics_dz", "forward_dynamics_dzd", "forward_dynamics_dp", "forward_dynamics_dy",
  "forward_dynamics_sens", "points_dz",
  "constraints_dz", "constraints_dp", "constraints_dt", "constraints_dz_tw_dz",
  "constraint_bias_dz", "constraint_bias_dzd", "constraint_bias_dp",
  "rod_inertia_dz", "rod_inertia_dp", "rod_inertia_cross_dz", "rod_inertia_cross_dp",
}

-- The list for a job ("run", "run_matrix_r", "run_matrix_r_trapezoidal", "sens", "check", "check_real") on a tree, or nil for all functions. The emitter takes it
-- with lenient = true: a model has only the names that apply to it (no constraints on an open tree).
function M.for_job(kind, tree)
  local base = M[kind]
  if not base then return nil end
  local list = { table.unpack(base) }
  if kind == "sens" then
    -- mbsens picks the objective by name at run time (--objective), so every objective stays.
    for _, o in ipairs(tree.objectives or {}) do
      list[#list + 1] = "objective_" .. o.name .. "_integrand"
      list[#list + 1] = "objective_" .. o.name .. "_terminal"
    end
  end
  return list
end

return M
