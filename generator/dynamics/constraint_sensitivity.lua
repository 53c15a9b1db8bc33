-- dynamics/constraint_sensitivity.lua: the constraint derivatives closed-loop sensitivities need beyond issue 7's set.
local E = require "sym.expr"
local D = require "sym.diff"

local M = {}

local function flat(J, rows, cols)
  local out = {}
  for j = 1, cols do for i = 1, rows do out[#out + 1] = J[i][j] end end
  return out
end

-- From the constraint functions already built (cfns: constraints_dz, constraints_dt), the partials of
--   the velocity constraint  v = Phi_z zd + Phi_t:   constraint_vel_dz, constraint_vel_dp
--   the acceleration part    a = Phi_z zdd:          constraint_acc_dz, constraint_acc_dp
--   the reaction             Phi_z' w:               constraints_dz_tw_dp
-- (bias_dz/_dzd/_dp complete the acceleration constraint Phi_z zdd + bias). Empty without constraints.
function M.build(tree, built, cfns)
  local by = {}
  for _, f in ipairs(cfns) do by[f.name] = f end
  local Jf, Tf = by.constraints_dz, by.constraints_dt
  if not Jf or not Tf then return {} end
  local syms, ps = built.symbols, built.psyms or {}
  local nc, n = Jf.rows, Jf.cols
  local function J(i, j) return Jf.exprs[(j - 1) * nc + i] end
  local vel, acc, tw = cfns.velocity, cfns.acceleration, cfns.reaction
  if not (vel and acc and tw) then vel, acc, tw = {}, {}, {} end
  for i = 1, #vel == 0 and nc or 0 do
    local tv, ta = { Tf.exprs[i] }, {}
    for j = 1, n do
      tv[#tv + 1] = J(i, j) * syms.zd[j]
      ta[#ta + 1] = J(i, j) * syms.zdd[j]
    end
    vel[i], acc[i] = E.sum(tv), E.sum(ta)
  end
  for c = 1, #tw == 0 and n or 0 do
    local terms = {}
    for i = 1, nc do terms[#terms + 1] = J(i, c) * E.symbol("w", i - 1, "w" .. i) end
    tw[c] = E.sum(terms)
  end
  local fns = {}
  local function add(name, rows, cols, exprs)
    fns[#fns + 1] = { name = name, rows = rows, cols = cols, exprs = exprs, matrix = true }
  end
  local want = built.want
  if want("constraint_vel_dz") then add("constraint_vel_dz", nc, n, flat(D.jacobian(vel, syms.z), nc, n)) end
  if want("constraint_acc_dz") then add("constraint_acc_dz", nc, n, flat(D.jacobian(acc, syms.z), nc, n)) end
  if #ps > 0 then
    if want("constraint_vel_dp") then add("constraint_vel_dp", nc, #ps, flat(D.jacobian(vel, ps), nc, #ps)) end
    if want("constraint_acc_dp") then add("constraint_acc_dp", nc, #ps, flat(D.jacobian(acc, ps), nc, #ps)) end
    if want("constraints_dz_tw_dp") then add("constraints_dz_tw_dp", n, #ps, flat(D.jacobian(tw, ps), n, #ps)) end
  end
  return fns
end

return M
