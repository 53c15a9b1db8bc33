-- formulation/matrix_r.lua: Matrix R's structure for the model's declared independent coordinates, fixed at
-- generation time: the blocks of Phi_z's dependent part, R's pattern and the terms of R'M R and R'(Q - M x).
local E = require "sym.expr"
local DB = require "formulation.dependent_blocks"

local P = {}

-- Rows (1-based) of each column of a column-major expression matrix f where an entry may be non-zero.
local function column_rows(f)
  local cols = {}
  for j = 1, f.cols do
    local rows = {}
    for i = 1, f.rows do
      if not E.is_zero(f.exprs[(j - 1) * f.rows + i]) then rows[#rows + 1] = i end
    end
    cols[j] = rows
  end
  return cols
end

-- R's pattern from the blocks of Phi_z's dependent part (formulation/dependent_blocks.lua, grouped as the runtime's
-- kin_blocks.c groups them): column c of R may be non-zero in the dependent coordinates of every block that
-- independent coordinate ind[c]'s column of Phi_z reaches.
local function r_pattern(phi_cols, ind, block_of_row, blocks)
  local pattern = {}
  for c, k in ipairs(ind) do
    local seen, list = {}, {}
    for _, row in ipairs(phi_cols[k]) do
      local b = block_of_row[row]
      if b and not seen[b] then
        seen[b] = true
        for _, j in ipairs(blocks[b].coords) do list[#list + 1] = j end
      end
    end
    table.sort(list)
    pattern[c] = list
  end
  return pattern
end

-- The plan of the reduction for tree (its declared `independent`) and the specs of mass and constraints_dz
-- (byname), or nil and the reason there is none. Coordinates are 1-based here:
--   n, d, ind (d, ascending), dep, names (n), nc, phi_cols[j] = the rows of column j of Phi_z that may be non-zero;
--   dependent = the blocks of Phi_z[:, dep] and their unrolled inversions (formulation/dependent_blocks.lua; nil
--     where a block is not square or has no pivot order);
--   R[c] = the dependent coordinates of R's column c (R[j, c] may be non-zero), ascending;
--   tmp[i] = the dependent j with M[i, j] non-zero, for the rows i that R' tmp reads (Q - M x, x zero in ind);
--   mr[c] = { rows = { i, ... }, terms[i] = { j, ... } }: column c of M R at the rows R'(M R) reads, each
--     M[i, ind[c]] (when j = ind[c] is listed) plus M[i, j] R[j, c] for the other listed j;
--   mb[c][a] (a <= c) = { i, ... }: Mb[a, c] = the sum of R[i, a] (1 for i = ind[a]) times column c of M R at i;
--   chol[j] = { k, ... } and below[j][i] = { k, ... }: the columns k < j of the Cholesky factor L (Mb = L L')
--     with L[j, k] non-zero, and for i > j those where both L[i, k] and L[j, k] are; lnz[i][j]: L[i, j] non-zero.
function P.plan(tree, byname)
  local mass, phiz = byname.mass, byname.constraints_dz
  local indep = tree.independent or {}
  if not (mass and phiz) then return nil, "no mass or constraints_dz" end
  if #indep == 0 then return nil, "no declared independent coordinates" end
  local n, nc = mass.cols, phiz.rows
  local ind, is_ind = {}, {}
  for _, k in ipairs(indep) do ind[#ind + 1] = k; is_ind[k] = true end
  table.sort(ind)
  local dep = {}
  for k = 1, n do if not is_ind[k] then dep[#dep + 1] = k end end
  local d = #ind
  local phi_cols, m_cols = column_rows(phiz), column_rows(mass)
  local blocks, block_of_row = DB.group(phi_cols, nc, dep)
  if not blocks then return nil, block_of_row end
  local R = r_pattern(phi_cols, ind, block_of_row, blocks)
  local mnz = {}   -- mnz[j][i]: M[i, j] may be non-zero
  for j = 1, n do
    mnz[j] = {}
    for _, i in ipairs(m_cols[j]) do mnz[j][i] = true end
  end
  -- Rows of R' read: ind[a] and R[a]'s coordinates.
  local read = {}
  for a = 1, d do
    read[a] = { ind[a] }
    for _, j in ipairs(R[a]) do read[a][#read[a] + 1] = j end
  end
  local tmp, need = {}, {}
  for a = 1, d do for _, i in ipairs(read[a]) do need[i] = true end end
  for i = 1, n do
    if need[i] then
      local list = {}
      for _, j in ipairs(dep) do if mnz[j][i] then list[#list + 1] = j end end
      tmp[i] = list
    end
  end
  local mr, mb = {}, {}
  for c = 1, d do
    local cols = { ind[c] }
    for _, j in ipairs(R[c]) do cols[#cols + 1] = j end
    -- Rows of column c of M R that may be non-zero and that some Mb[a, c], a <= c, reads.
    local want, rows, terms = {}, {}, {}
    for a = 1, c do for _, i in ipairs(read[a]) do want[i] = true end end
    for i = 1, n do
      if want[i] then
        local t = {}
        for _, j in ipairs(cols) do if mnz[j][i] then t[#t + 1] = j end end
        if #t > 0 then rows[#rows + 1] = i; terms[i] = t end
      end
    end
    mr[c] = { rows = rows, terms = terms }
    mb[c] = {}
    for a = 1, c do
      local list = {}
      for _, i in ipairs(read[a]) do if terms[i] then list[#list + 1] = i end end
      mb[c][a] = list
    end
  end
  -- Cholesky's structure: L[i, j] (i >= j) is non-zero where Mb[i, j] is or some k < j has L[i, k] and L[j, k].
  local lnz = {}
  for i = 1, d do lnz[i] = {} end
  for c = 1, d do
    for a = 1, c do if #mb[c][a] > 0 then lnz[c][a] = true end end
  end
  local chol, below = {}, {}
  for j = 1, d do
    chol[j], below[j] = {}, {}
    for k = 1, j - 1 do if lnz[j][k] then chol[j][#chol[j] + 1] = k end end
    for i = j + 1, d do
      local list = {}
      for k = 1, j - 1 do if lnz[i][k] and lnz[j][k] then list[#list + 1] = k end end
      if #list > 0 then lnz[i][j] = true end
      below[j][i] = list
    end
  end
  local names = {}
  for k, c in ipairs(tree.coords) do names[k] = c.name end
  -- What the unrolled code computes: a product and an addition per term, a division per entry of L below the
  -- diagonal and per solve step, a square root per pivot; L's and Mb's structural non-zeros.
  local mul, add, div, lnnz = 0, 0, 0, 0
  for _, list in pairs(tmp) do mul, add = mul + #list, add + #list end
  for c = 1, d do
    for _, i in ipairs(mr[c].rows) do
      local t = #mr[c].terms[i]
      local own = 0
      for _, j in ipairs(mr[c].terms[i]) do if j == ind[c] then own = 1 end end
      mul, add = mul + t - own, add + t - 1
    end
    for a = 1, c do
      local list = mb[c][a]
      local own = 0
      for _, i in ipairs(list) do if i == ind[a] then own = 1 end end
      mul, add = mul + #list - own, add + math.max(#list - 1, 0)
    end
    mul, add = mul + #R[c], add + #R[c]
  end
  for j = 1, d do
    mul, add = mul + #chol[j], add + #chol[j]
    for i = j + 1, d do
      if lnz[i][j] then
        lnnz = lnnz + 1
        mul, add, div = mul + #below[j][i], add + #below[j][i], div + 1
      end
    end
    lnnz = lnnz + 1
  end
  local offdiag = lnnz - d
  mul, add, div = mul + 2 * offdiag, add + 2 * offdiag, div + 2 * d
  for c = 1, d do mul, add = mul + #R[c], add + #R[c] end
  local mbnz = 0
  for c = 1, d do for a = 1, c do if #mb[c][a] > 0 then mbnz = mbnz + (a == c and 1 or 2) end end end
  local rnz = d
  for c = 1, d do rnz = rnz + #R[c] end
  return { n = n, d = d, ind = ind, dep = dep, names = names, R = R, nc = nc, phi_cols = phi_cols,
    dependent = DB.plan(tree, phiz, phi_cols, blocks), tmp = tmp, mr = mr, mb = mb, chol = chol,
    below = below, lnz = lnz, ops = { add = add, mul = mul, div = div, call = d }, mb_nnz = mbnz, l_nnz = lnnz,
    r_nnz = rnz }
end

return P
