-- dynamics/rnea_derivatives.lua: analytic ∂r/∂z and ∂r/∂ż by the recursion of DERIVATIVES.md §5 (Carpentier-Mansard style).
-- r here is the inertial and gravity part of the residual; applied forces are differentiated elsewhere.
local V = require "sym.vec"
local S = require "dynamics.spatial"
local R = require "dynamics.rnea"

local D = {}

local function mat3_zero() return { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } } end

local function mat3_add(A, B)
  local C = {}
  for r = 1, 3 do C[r] = { A[r][1] + B[r][1], A[r][2] + B[r][2], A[r][3] + B[r][3] } end
  return C
end

-- F8: D_k = (W + Wᵀ) - (c ṡᵀ + ṡ cᵀ) + 2 (ṡ·c) 1 - ℓ̃, W = ω̃ J_O (all of body k).
local function bmat(I, Z, h)
  local sd, w, c, l = S.lin(Z), S.ang(Z), I.c, S.ang(h)
  local W = V.matmul(V.skew(w), I.J)
  local lx = V.skew(l)
  local sc2 = V.dot(sd, c) * 2
  local Dm = {}
  for r = 1, 3 do
    Dm[r] = {}
    for col = 1, 3 do
      local v = W[r][col] + W[col][r] - (c[r] * sd[col] + sd[r] * c[col]) - lx[r][col]
      if r == col then v = v + sc2 end
      Dm[r][col] = v
    end
  end
  return Dm
end

-- [2 x × P ; Dm x] for an angular 3-vector x: the B^C block applied to [0; x] (its first block column is 0).
local function bapply(P, Dm, x)
  return S.join(V.scale(2, V.cross(x, P)), V.matvec(Dm, x))
end

-- The per-joint vectors of §5 (F7, F8, B2, V1–V4), given the kinematics, the forward state st of R.forward
-- (with the actual zdd), the composite wrenches F and inertias IC.
local function sweeps(tree, kin, st, F, IC)
  local n = #tree.bodies
  local ch = R.children(tree)
  local bdd, Dm, PC, DC = {}, {}, {}, {}
  for k, body in ipairs(tree.bodies) do
    local par = st[body.parent]                                        -- st[0] holds Z0 = 0, a0 = [-g; 0]
    bdd[k] = S.add(S.crm(par.a, kin[k].b), S.crm(par.Z, st[k].bd))   -- F7
    if kin[k].I then Dm[k] = bmat(kin[k].I, st[k].Z, st[k].h) end    -- F8
  end
  for k = n, 1, -1 do                                                 -- B2
    local P, Dk = st[k].h and S.lin(st[k].h) or { 0, 0, 0 }, Dm[k] or mat3_zero()
    for _, c in ipairs(ch[k]) do P, Dk = V.add(P, PC[c]), mat3_add(Dk, DC[c]) end
    PC[k], DC[k] = P, Dk
  end
  local alpha, beta, gamma, eta, bd2 = {}, {}, {}, {}, {}
  for k = 1, n do
    local b, bd = kin[k].b, st[k].bd
    local bw, bdw = S.ang(b), S.ang(bd)
    bd2[k] = S.scale(2, bd)
    alpha[k] = S.inertia_apply(IC[k], b)                                          -- V1
    beta[k] = V.add(V.scale(2, V.cross(PC[k], S.lin(b))), V.mattvec(DC[k], bw))    -- V2
    gamma[k] = S.add(S.add(S.crf(b, F[k]), S.inertia_apply(IC[k], bdd[k])),        -- V3
                     bapply(PC[k], DC[k], bdw))
    eta[k] = S.add(bapply(PC[k], DC[k], bw), S.inertia_apply(IC[k], bd2[k]))       -- V4
  end
  return { bdd = bdd, bd2 = bd2, alpha = alpha, beta = beta, gamma = gamma, eta = eta }
end

local function zeros(n)
  local A = {}
  for i = 1, n do A[i] = {} ; for j = 1, n do A[i][j] = 0 end end
  return A
end

-- Returns dz, dzd as 1-based n x n tables (literal 0 on unrelated branches).
function D.jacobians(tree, kin, st, F, IC, anc)
  local n = #tree.bodies
  local w = sweeps(tree, kin, st, F, IC)
  local bdd, bd2, alpha, beta, gamma, eta = w.bdd, w.bd2, w.alpha, w.beta, w.gamma, w.eta
  local dz, dzd = zeros(n), zeros(n)
  for j = 1, n do
    for i = 1, n do
      if anc[j][i] then                                   -- (E1) i ⪯ j
        dz[i][j] = S.dot(kin[i].b, gamma[j])
        dzd[i][j] = S.dot(kin[i].b, eta[j])
      elseif anc[i][j] then                               -- (E2) j ≺ i
        local bdw, bw = S.ang(st[j].bd), S.ang(kin[j].b)
        dz[i][j] = S.dot(alpha[i], bdd[j]) + V.dot(beta[i], bdw)
        dzd[i][j] = V.dot(beta[i], bw) + S.dot(alpha[i], bd2[j])
      end
    end
  end
  return dz, dzd
end

-- The fused Newton tangent c_z ∂r/∂z + c_v ∂r/∂ż + c_a M of §8 at the cost of one Jacobian: per joint
-- θ = c_z γ + c_v η + c_a α (entries i ⪯ j), κ = c_z b̈ + c_v 2ḃ + c_a b and χ = c_z ḃʷ + c_v bʷ (j ≺ i).
function D.tangent(tree, kin, st, F, IC, anc, cz, cv, ca)
  local n = #tree.bodies
  local w = sweeps(tree, kin, st, F, IC)
  local T = zeros(n)
  for j = 1, n do
    local b, bd = kin[j].b, st[j].bd
    local theta = S.add(S.add(S.scale(cz, w.gamma[j]), S.scale(cv, w.eta[j])), S.scale(ca, w.alpha[j]))
    local kappa = S.add(S.add(S.scale(cz, w.bdd[j]), S.scale(cv, w.bd2[j])), S.scale(ca, b))
    local chi = V.add(V.scale(cz, S.ang(bd)), V.scale(cv, S.ang(b)))
    for i = 1, n do
      if anc[j][i] then                                   -- i ⪯ j
        T[i][j] = S.dot(kin[i].b, theta)
      elseif anc[i][j] then                               -- j ≺ i
        T[i][j] = S.dot(w.alpha[i], kappa) + V.dot(w.beta[i], chi)
      end
    end
  end
  return T
end

return D
