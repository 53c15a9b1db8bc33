-- dynamics/tree_functions.lua: the expressions of every open-tree function of INTERFACES.md §3 for one tree.
local E = require "sym.expr"
local D = require "dynamics.data"
local V = require "sym.vec"
local Dsym = require "sym.diff"
local S = require "dynamics.spatial"
local K = require "dynamics.kinematics"
local R = require "dynamics.rnea"
local RD = require "dynamics.rnea_derivatives"
local AP = require "dynamics.applied"
local ABA = require "dynamics.aba"
local NE = require "dynamics.newton_euler"
local LTL = require "dynamics.ltl"
local ABA_BODY = require "dynamics.aba_body"
local RODS = require "dynamics.rods"

local T = {}

-- Column-major flattening of a 1-based rows x cols table.
local function flat(Mt, rows, cols)
  local out = {}
  for j = 1, cols do
    for i = 1, rows do out[#out + 1] = Mt[i][j] end
  end
  return out
end
T.flat = flat

local function lift_all(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = E.lift(v) end
  return out
end

local function jac_table(exprs, syms)
  if #syms == 0 then return nil end
  return Dsym.jacobian(lift_all(exprs), syms)
end

local function sub_tables(A, B, n, m)
  local C = {}
  for i = 1, n do
    C[i] = {}
    for j = 1, m do C[i][j] = B and (A[i][j] - B[i][j]) or A[i][j] end
  end
  return C
end

-- The residual and its analytic z / zd Jacobians at accelerations zdd (symbols, or the ABA result).
local function residual_with_jacobians(tree, kin, IC, anc, syms, zdd, Qapp, dQz, dQzd)
  local n = #tree.bodies
  local st = R.forward(tree, kin, syms.zd, zdd)
  local F, rr = R.backward(tree, kin, st)
  local r = {}
  for k = 1, n do r[k] = rr[k] - Qapp[k] end
  local dz, dzd = RD.jacobians(tree, kin, st, F, IC, anc)
  return r, sub_tables(dz, dQz, n, n), sub_tables(dzd, dQzd, n, n), st, F
end

-- c_z ∂r/∂z + c_v ∂r/∂ż + c_a M with (c_z, c_v, c_a) = a->w[0..2] at run time (trapezoidal: h²/4, h/2, 1).
-- dQz, dQzd, dQzdd: the Jacobians of the forces outside the recursion (applied forces, rods).
local function tangent(tree, kin, IC, anc, st, F, dQz, dQzd, dQzdd)
  local n = #tree.bodies
  local cz, cv, ca = E.symbol("w", 0, "c_z"), E.symbol("w", 1, "c_v"), E.symbol("w", 2, "c_a")
  local Tn = RD.tangent(tree, kin, st, F, IC, anc, cz, cv, ca)
  for i = 1, n do
    for j = 1, n do
      if dQz then Tn[i][j] = Tn[i][j] - cz * dQz[i][j] end
      if dQzd then Tn[i][j] = Tn[i][j] - cv * dQzd[i][j] end
      if dQzdd then Tn[i][j] = Tn[i][j] - ca * dQzdd[i][j] end
    end
  end
  return Tn
end

-- Elementwise A + B of n x n tables, either may be nil.
local function add_tables(A, B, n)
  if not A then return B end
  if not B then return A end
  local C = {}
  for i = 1, n do
    C[i] = {}
    for j = 1, n do C[i][j] = A[i][j] + B[i][j] end
  end
  return C
end

-- Forward dynamics by the cheapest of three unrolled forms, counted: the articulated-body recursion in body frames
-- or in world axes, or M's factorization with the tree's sparsity applied to Q (cheaper on short branches, where M
-- is small and sparse).
function T.forward_dynamics(tree, kin, zd, ap, M, Q)
  local parent, names = LTL.parents(tree), {}
  for k, c in ipairs(tree.coords) do names[k] = c.name end
  local forms = {
    aba = function() return ABA_BODY.forward_dynamics(tree, kin, zd, ap) end,
    aba_world = function() return ABA.forward_dynamics(tree, kin, zd, ap) end,
    ltl = function() return LTL.solve(LTL.factor(M, parent, names), parent, Q, names, "zdd") end,
  }
  return NE.cheapest(function(name) return forms[name]() end, { "ltl", "aba", "aba_world" })
end

-- Past this many operations of the file's loop, a forward-dynamics derivative's solve stays a loop: unrolled, its
-- expressions would outgrow one emitted part (sym.emit_c's max_operations), and on the legged robot (15,771) the
-- unrolled solve took 22 % fewer instructions but no less time.
local UNROLLED_SOLVE_OPS = 1500

-- What the generator chose, for the roadmap (model/roadmap.lua): one line per kernel.
local FD_FORMS = { ltl = "LᵀDL factorization of M (branch-induced sparsity) applied to Q",
  aba = "articulated bodies in body frames", aba_world = "articulated bodies in world axes (origin-referenced)" }
local function describe(levels, about_origin, fd, fd_derivatives)
  local m = levels == math.huge and "composite inertias in body frames, forces carried up in body frames"
    or string.format("composite inertias in body frames, forces carried %d level%s up in body frames, then world screws",
      levels, levels == 1 and "" or "s")
  return {
    { "mass", m },
    { "inverse_dynamics, forces", "Newton-Euler in body frames, inertial forces about the " ..
      (about_origin and "body origins (first moments)" or "centres of mass") },
    { "forward_dynamics", FD_FORMS[fd] or fd },
    fd_derivatives and { "forward_dynamics_dz, _dzd, _dy, _dp", fd_derivatives } or nil,
  }
end

-- [A, B] of two n x n tables, n x 2n: the fused Jacobians' layout.
local function side_by_side(A, B, n)
  local C = {}
  for i = 1, n do
    C[i] = {}
    for j = 1, n do C[i][j], C[i][n + j] = A[i][j], B[i][j] end
  end
  return C
end

-- The seeds of the recursive sensitivities (seeds/004.md §4.1): for design parameter j the direction
-- (δz, δż, δp) = (S_j, Ṡ_j, e_j), with S and Ṡ (n x np, column-major) read from a->w = [S, Ṡ] at run time.
local function sensitivity_seeds(tree, syms, psyms)
  local n, np = #tree.bodies, #psyms
  local seeds = {}
  for j = 1, np do
    local seed = { [psyms[j]] = 1 }
    for i = 1, n do
      local at = (j - 1) * n + i - 1
      seed[syms.z[i]] = E.symbol("w", at, "S_" .. syms.z[i].name .. "_" .. psyms[j].name)
      seed[syms.zd[i]] = E.symbol("w", n * np + at, "Sd_" .. syms.zd[i].name .. "_" .. psyms[j].name)
    end
    seeds[j] = seed
  end
  return seeds
end

-- [f, δf_1, ..., δf_np]: the nominal values and their tangents (one list per seed), the function's columns.
local function columns(f, tangents)
  local out = {}
  for _, v in ipairs(f) do out[#out + 1] = v end
  for _, list in ipairs(tangents) do
    for _, v in ipairs(list) do out[#out + 1] = v end
  end
  return out
end

-- forward_dynamics_sens in two forms, the cheaper counted: the articulated-body recursion differentiated node by
-- node along each seed (Anderson and Hsu's method), or zdd's total derivative taken from the residual,
-- δzdd_j = -M⁻¹ δr_j with δr_j the residual's tangent at zdd = the recursion's (inverse_dynamics_sens) and M⁻¹
-- applied by the recursion's own articulated inertias: no articulated inertia is differentiated, and both
-- stay O(n) per parameter with no matrix formed.
local function forward_sensitivities(tree, kin, syms, ap, seeds, r_tangents)
  local n = #tree.bodies
  local zdd, pivots = ABA_BODY.forward_dynamics(tree, kin, syms.zd, ap)
  local forms = {
    differentiated = function() return columns(zdd, Dsym.tangents(zdd, seeds)) end,
    solved = function()
      local at = {}
      for k = 1, n do at[syms.zdd[k]] = zdd[k] end
      local sols = {}
      for j, dr in ipairs(r_tangents) do
        local b = E.substitute(dr, at)
        for k = 1, n do b[k] = E.neg(b[k]) end
        sols[j] = ABA_BODY.solve(tree, kin, b)
      end
      return columns(zdd, sols)
    end,
  }
  local names = { "differentiated", "solved" }
  local best, form, counts = NE.cheapest(function(name) return forms[name]() end, names)
  return best, pivots, form, { [names[1]] = counts[1], [names[2]] = counts[2] }
end

-- The roadmap's words for the two forms.
local FS_FORMS = {
  differentiated = "articulated bodies in body frames differentiated node by node along (S_j, Ṡ_j, e_j) per design " ..
    "parameter (Anderson and Hsu 2002)",
  solved = "articulated bodies in body frames; per design parameter -M⁻¹ δr_j, δr_j the residual's tangent as in " ..
    "inverse_dynamics_sens, M⁻¹ by the same articulated inertias",
}

-- Builds { list of { name, rows, cols, exprs } } plus helpers for the forward-dynamics derivatives.
-- want(name): whether the job needs that function (default: all); the expressions of the others are not built, and
-- a derivative no wanted function reads is not taken (a vehicle's run set builds in half the time).
function T.build(tree, want)
  want = want or function() return true end
  local function any(...)
    for _, name in ipairs { ... } do if want(name) then return true end end
    return false
  end
  local n = #tree.bodies
  local syms = K.symbols(tree)
  local psyms = {}
  for i, name in ipairs(tree.design or {}) do psyms[i] = E.symbol("p", i - 1, name) end
  local kin = K.bodies(tree, syms.z)
  local anc = K.ancestors(tree)
  local IC = R.composite_inertias(tree, kin)

  local st0 = R.forward(tree, kin, syms.zd, nil)
  local ap = AP.build(tree, kin, st0, syms)
  local Qapp = AP.generalized(tree, kin, ap)
  -- The residual's Jacobians, wanted for themselves, the tree tangent and the forward-dynamics derivatives.
  local open = true
  for _, c in ipairs(tree.constraints or {}) do if c.kind ~= "rod" then open = false end end
  local fd_derivatives = any("forward_dynamics_dz", "forward_dynamics_dzd", "forward_dynamics_dp", "forward_dynamics_sens")
    or open and any("forward_dynamics_dy")
  local jacobians = fd_derivatives or any("inverse_dynamics_dz", "inverse_dynamics_dzd", "inverse_dynamics_tangent",
    "inverse_dynamics_dp") or open and any("inverse_dynamics_dy")
  local dQz, dQzd
  if jacobians then dQz, dQzd = jac_table(Qapp, syms.z), jac_table(Qapp, syms.zd) end
  for k = 1, n do Qapp[k] = E.lift(Qapp[k]) end

  -- Massive rods (seeds/002.md §2.1): forces on the end bodies that depend on the accelerations, outside the
  -- recursion, so differentiated node by node; their mass joins M as -∂Q_rod/∂zdd.
  local rods = RODS.any(tree)
  local Qrod, Qrod0, rods0, dRz, dRzd, dRzdd
  if rods then
    Qrod = AP.generalized(tree, kin, RODS.build(tree, kin, R.forward(tree, kin, syms.zd, syms.zdd)))
    rods0 = RODS.build(tree, kin, st0)
    Qrod0 = AP.generalized(tree, kin, rods0)
    dRzdd = jac_table(Qrod, syms.zdd)
    if jacobians then dRz, dRzd = jac_table(Qrod, syms.z), jac_table(Qrod, syms.zd) end
  end

  local fns = {}
  local function add(name, rows, cols, exprs, extra)
    local f = { name = name, rows = rows, cols = cols, exprs = lift_all(exprs) }
    for key, v in pairs(extra or {}) do f[key] = v end
    fns[#fns + 1] = f
    return f
  end

  local M, levels = NE.mass_cheapest(tree, kin)
  local Mtree = M
  local Mlumped, inertia, cross
  if rods then
    -- The rod modes of seeds/002.md §2.3-2.6 take M without the rods (or with a third of each rod's mass lumped
    -- at each end) and move M_rod zdd (or its cross part) to the right-hand side at extrapolated accelerations:
    -- the run chooses, so all forms are here. M_rod zdd is the rods' inertia forces at accelerations zdd without
    -- the velocity terms (those stay exact, in Q): the forward recursion at zd = 0, O(n) like Q itself.
    local zero = {}
    for k = 1, n do zero[k] = 0 end
    local st_zdd = R.forward(tree, kin, zero, syms.zdd)
    local function rod_forces(part)
      local Q = AP.generalized(tree, kin, RODS.build(tree, kin, st_zdd, part))
      for k = 1, n do Q[k] = -Q[k] end
      return Q
    end
    local lumped = RODS.lumped_tree(tree)
    Mlumped = NE.mass_cheapest(lumped, K.bodies(lumped, syms.z))
    inertia, cross = rod_forces("inertia"), rod_forces("cross")
    -- M_tree + M_rod is also M_lumped + M_rod,c: the m/3 of each end on its own acceleration is a point mass of
    -- the composite inertias, and only the m/6 coupling of the two ends is differentiated (the sedan's M: 9,635
    -- operations as M_tree - ∂Q_rod/∂zdd, 7,349 so).
    M = add_tables(Mlumped, jac_table(cross, syms.zdd), n)
  end
  add("mass", n, n, flat(M, n, n), { matrix = true })
  if rods then
    add("mass_tree", n, n, flat(Mtree, n, n), { matrix = true })
    add("mass_lumped", n, n, flat(Mlumped, n, n), { matrix = true })
    add("rod_inertia", n, 1, inertia)
    add("rod_inertia_cross", n, 1, cross)
    -- Their derivatives at x = zdd, for the sensitivities of a run in a rod mode: the residual there is
    -- r - M_rod (zdd - zhat) (matrix_r_tangent.c), whose z- and p-derivatives lose these terms.
    for _, f in ipairs { { "rod_inertia", inertia }, { "rod_inertia_cross", cross } } do
      local name, Qr = f[1], f[2]
      if want(name .. "_dz") then add(name .. "_dz", n, n, flat(jac_table(Qr, syms.z), n, n), { matrix = true }) end
      local dp = want(name .. "_dp") and jac_table(Qr, psyms)
      if dp then add(name .. "_dp", n, #psyms, flat(dp, n, #psyms), { matrix = true }) end
    end
  end

  -- The inertial residual at zdd in the cheaper of its two forms; Q takes the same form at zdd = 0.
  local r_ne, about_origin = NE.cheapest(function(o) return NE.inverse_dynamics(tree, kin, syms.zd, syms.zdd, o) end,
    { false, true })
  local r0 = NE.inverse_dynamics(tree, kin, syms.zd, nil, about_origin)
  local Q = {}
  for k = 1, n do Q[k] = Qapp[k] - r0[k] + (rods and Qrod0[k] or 0) end
  add("forces", n, 1, Q)
  add("forces_nc", n, 1, AP.generalized(tree, kin, ap.nc))

  local Qall, dQz_all, dQzd_all = Qapp, dQz, dQzd
  if rods then
    Qall = {}
    for k = 1, n do Qall[k] = Qapp[k] + Qrod[k] end
    dQz_all, dQzd_all = add_tables(dQz, dRz, n), add_tables(dQzd, dRzd, n)
  end
  -- The residual itself by the body-frame recursion, the cheap form when the Jacobians are not wanted with it.
  for k = 1, n do r_ne[k] = r_ne[k] - Qall[k] end
  add("inverse_dynamics", n, 1, r_ne)
  if jacobians then
    local r, dz, dzd, st, F = residual_with_jacobians(tree, kin, IC, anc, syms, syms.zdd, Qall, dQz_all, dQzd_all)
    add("inverse_dynamics_dz", n, n, flat(dz, n, n), { matrix = true })
    add("inverse_dynamics_dzd", n, n, flat(dzd, n, n), { matrix = true })
    -- Open trees (whose sensitivities and Newton steps want both Jacobians at once) also get them fused: the
    -- recursion's per-body work once for both halves. Closed loops take their derivatives through Matrix R.
    if open then add("inverse_dynamics_dy", n, 2 * n, flat(side_by_side(dz, dzd, n), n, 2 * n), { matrix = true }) end
    if want("inverse_dynamics_tangent") then
      add("inverse_dynamics_tangent", n, n, flat(tangent(tree, kin, IC, anc, st, F, dQz_all, dQzd_all, dRzdd), n, n),
        { matrix = true })
    end
    local dp = want("inverse_dynamics_dp") and jac_table(r, psyms)
    if dp then add("inverse_dynamics_dp", n, #psyms, flat(dp, n, #psyms), { matrix = true }) end
  end
  -- The residual's directional derivatives at fixed zdd, one body-frame recursion differentiated per parameter:
  -- the right-hand side of the trapezoidal rule's sensitivity equations without ∂r/∂y (O(n) per parameter).
  -- Only sensitivities call them: a model without design parameters has none.
  local sens = open and #psyms > 0 and any("inverse_dynamics_sens", "forward_dynamics_sens")
  local seeds = sens and sensitivity_seeds(tree, syms, psyms)
  local r_tangents = sens and Dsym.tangents(r_ne, seeds)
  if sens then add("inverse_dynamics_sens", n, 1 + #psyms, columns(r_ne, r_tangents)) end

  local Tk, Vg = R.energy(tree, kin, st0)
  if rods then Tk, Vg = Tk + rods0.kinetic, Vg + rods0.potential end
  add("energy", 2, 1, { Tk, Vg + ap.potential })

  local pts, pts_dz = {}, {}
  for _, pt in ipairs(tree.points or {}) do
    local x = K.point(kin, pt.body, pt.at)
    local rows = {}
    for c = 1, 3 do pts[#pts + 1] = x[c]; rows[c] = {} end
    for j = 1, n do
      local dx = { 0, 0, 0 }
      if pt.body ~= 0 and anc[pt.body][j] then                -- ∂x/∂z_j = b_jᵛ + b_jʷ × x
        dx = V.add(S.lin(kin[j].b), V.cross(S.ang(kin[j].b), x))
      end
      for c = 1, 3 do rows[c][j] = dx[c] end
    end
    for c = 1, 3 do pts_dz[#pts_dz + 1] = rows[c] end
  end
  if #pts > 0 then
    add("points", #pts, 1, pts)
    if want("points_dz") then add("points_dz", #pts, n, flat(pts_dz, #pts, n), { matrix = true }) end
  end

  -- The total mass (bodies and rods), a function of the design parameters: the weight that the static
  -- tyre loads must carry, and what a user checks a vehicle file against.
  -- One sum of all the masses: built term by term it would nest past the sums' flattening cap, and a constant
  -- outside the nested sum is not folded with those inside it.
  local masses = {}
  for _, b in ipairs(tree.bodies) do masses[#masses + 1] = D.value(tree, b.name .. "_mass", b.mass or 0) end
  for _, c in ipairs(tree.constraints or {}) do
    if c.kind == "rod" then masses[#masses + 1] = D.value(tree, c.name .. "_mass", c.mass or 0) end
  end
  add("total_mass", 1, 1, { E.sum(masses) })

  -- Tyre outputs (forces, slips, deflection, contact point), for plots, wheel loads and the static check.
  if #(ap.tyres or {}) > 0 then
    local out = {}
    for _, o in ipairs(ap.tyres) do
      for _, v in ipairs(o) do out[#out + 1] = v end
    end
    add("tyres", #out, 1, out)
  end

  -- Forward dynamics and its derivatives: zdd = ABA; ∂zdd/∂y = -M⁻¹ ∂r/∂y at zdd = ABA (§10).
  local Mflat = flat(M, n, n)
  local function solve_rhs(D, cols, Mx)
    local e = {}
    for _, v in ipairs(Mx or Mflat) do e[#e + 1] = v end
    for _, v in ipairs(flat(D, n, cols)) do e[#e + 1] = -v end
    return e
  end
  -- A general independent coordinate (model/topology.lua) is a massless slider: M is singular, so there is no
  -- forward dynamics of the tree; the closed-loop formulations reduce M to the degrees of freedom first.
  local general = false
  for _, c in ipairs(tree.coords) do general = general or c.independent_h == true end
  if general then
    tree.kernels = describe(levels, about_origin, "none: the general independent coordinates carry no mass", nil)
  elseif rods then
    -- The articulated-body recursion knows nothing of the rods' coupling of two bodies: M⁻¹Q by the file's
    -- solve loop, and no forward-dynamics derivatives (they need zdd as an expression).
    local negQ = {}
    for k = 1, n do negQ[k] = { -Q[k] } end
    add("forward_dynamics", n, 1, solve_rhs(negQ, 1), { solve = true })
    tree.kernels = describe(levels, about_origin, "M (with the rods' masses) solved by the file's loop", nil)
  elseif not any("forward_dynamics", "forward_dynamics_dz", "forward_dynamics_dzd", "forward_dynamics_dy",
      "forward_dynamics_dp", "forward_dynamics_sens") then
    tree.kernels = describe(levels, about_origin, "not built: the job calls no forward dynamics", nil)
  elseif not fd_derivatives then
    local zdd_fd, fd_form = T.forward_dynamics(tree, kin, syms.zd, ap, M, Q)
    add("forward_dynamics", n, 1, zdd_fd)
    tree.kernels = describe(levels, about_origin, fd_form, nil)
  else
    local zdd_fd, fd_form = T.forward_dynamics(tree, kin, syms.zd, ap, M, Q)
    add("forward_dynamics", n, 1, zdd_fd)
    -- The derivatives evaluate the world-frame recursion of ∂r/∂y at zdd: the world forms of M and of the
    -- articulated bodies share its kinematics and composite inertias, the body-frame ones are cheaper alone;
    -- the pair with the fewest operations for [M, ∂r/∂z, ∂r/∂ż] is taken. Counting four derivative DAGs costs
    -- seconds on a vehicle, where the shared world forms always won: from 12 coordinates on they are taken.
    local best
    local Mworld = flat(R.mass(tree, kin, IC, anc), n, n)
    local zworld = ABA.forward_dynamics(tree, kin, syms.zd, ap)
    local Ms, zs = { Mflat, Mworld }, { zdd_fd, zworld }
    if n >= 12 then Ms, zs = { Mworld }, { zworld } end
    for _, Mx in ipairs(Ms) do
      for _, zx in ipairs(zs) do
        local _, a, b = residual_with_jacobians(tree, kin, IC, anc, syms, zx, Qapp, dQz, dQzd)
        local e = solve_rhs(side_by_side(a, b, n), 2 * n, Mx)
        local o = #Ms * #zs > 1 and NE.ops(e) or 0
        if not best or o < best.ops then
          best = { ops = o, M = Mx, zdd = zx, dz = a, dzd = b, both = e,
            what = string.format("-M⁻¹ ∂r/∂y, ∂r/∂y by the world-frame recursion of docs/derivatives.md at zdd by %s, " ..
              "M by %s",
              zx == zdd_fd and (FD_FORMS[fd_form] or fd_form) or FD_FORMS.aba_world,
              Mx == Mflat and "body frames" or "world composite inertias") }
        end
      end
    end
    local Md, zdd_d, dzf, dzdf = best.M, best.zdd, best.dz, best.dzd
    -- A small solve is unrolled: M's factors with the tree's sparsity, then each column, as expressions, with the
    -- structural zeros of the result; the file's loop would spend more on its indexing than on the arithmetic.
    local parent, names = LTL.parents(tree), {}
    for k, c in ipairs(tree.coords) do names[k] = c.name end
    local unrolled, looped, H = {}, {}, nil
    -- column(c): the prefix of the labels of column c's solution, so that an edit that changes one column's
    -- right-hand side changes its lines alone, not the names of everything computed after them.
    local function add_solved(name, D, cols, column)
      local ops = LTL.loop_ops(parent, cols)
      if ops.add + ops.mul + ops.div > UNROLLED_SOLVE_OPS then
        add(name, n, cols, solve_rhs(D, cols, Md), { solve = true, matrix = true })
        looped[#looped + 1] = name
        return
      end
      if not H then
        local M2 = {}
        for i = 1, n do
          M2[i] = {}
          for j = 1, n do M2[i][j] = Md[(j - 1) * n + i] end
        end
        H = LTL.factor(M2, parent, names)
      end
      local e, pivots = {}, {}
      for c = 1, cols do
        local b = {}
        for i = 1, n do b[i] = -D[i][c] end
        for _, x in ipairs(LTL.solve(H, parent, b, names, column(c))) do e[#e + 1] = x end
      end
      for k = 1, n do pivots[k] = H[k][k] end
      add(name, n, cols, e, { matrix = true, pivots = lift_all(pivots) })
      unrolled[#unrolled + 1] = name
    end
    local function dz(c) return "dz_" .. names[c] end
    local function dzd(c) return "dzd_" .. names[c] end
    add_solved("forward_dynamics_dz", dzf, n, dz)
    add_solved("forward_dynamics_dzd", dzdf, n, dzd)
    if open then
      add_solved("forward_dynamics_dy", side_by_side(dzf, dzdf, n), 2 * n, function(c)
        return c <= n and dz(c) or dzd(c - n)
      end)
    end
    -- ∂r/∂p holds zdd fixed, so not the Jacobian of r(zdd_fd): r = M zdd - Q is linear in zdd,
    -- ∂r/∂p = (∂M/∂p) zdd - ∂Q/∂p, evaluated at zdd = zdd_fd.
    local dpf
    if #psyms > 0 then
      local dM, dQ = jac_table(Md, psyms), jac_table(Q, psyms)
      dpf = {}
      for i = 1, n do
        dpf[i] = {}
        for j = 1, #psyms do
          local v = -dQ[i][j]
          for k = 1, n do v = v + dM[(k - 1) * n + i][j] * zdd_d[k] end
          dpf[i][j] = v
        end
      end
    end
    if dpf then add_solved("forward_dynamics_dp", dpf, #psyms, function(c) return "dp_" .. psyms[c].name end) end
    local solved = #unrolled == 0 and ", solved by the file's LᵀDL loop"
      or #looped == 0 and ", solved by an unrolled LᵀDL with M's sparsity"
      or ", solved by an unrolled LᵀDL with M's sparsity (" .. table.concat(unrolled, ", ")
        .. ") or by the file's loop (" .. table.concat(looped, ", ") .. ")"
    tree.kernels = describe(levels, about_origin, fd_form, best.what .. solved)
    -- seeds/004.md's fully recursive sensitivities on the body-frame articulated-body recursion (whatever form
    -- forward_dynamics took: the LᵀDL of M would make them O(n²)), so dzdd/dp_j never goes through a Jacobian.
    if sens then
      local fs, pivots, form, counts = forward_sensitivities(tree, kin, syms, ap, seeds, r_tangents)
      -- Its pivots D_k checked as the LᵀDL loop checks M's: a model whose M is not positive definite (a negative
      -- mass) fails with MB_FN_SINGULAR instead of integrating on.
      add("forward_dynamics_sens", n, 1 + #psyms, fs, { pivots = lift_all(pivots) })
      tree.kernels[#tree.kernels + 1] = { "inverse_dynamics_sens",
        "Newton-Euler in body frames differentiated node by node along (S_j, Ṡ_j, e_j) per design parameter" }
      local other = form == "solved" and "differentiated" or "solved"
      tree.kernels[#tree.kernels + 1] = { "forward_dynamics_sens", string.format("%s (%d operations; the other " ..
        "form, %s: %d)", FS_FORMS[form], counts[form], FS_FORMS[other], counts[other]) }
    end
  end

  -- The pieces other function builders (constraints, objectives) reuse: one DAG, one kinematics.
  return { functions = fns, symbols = syms, psyms = psyms, kin = kin, state = st0, anc = anc, mass = M,
           applied = ap, want = want }
end

return T
