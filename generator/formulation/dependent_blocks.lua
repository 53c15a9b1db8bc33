-- formulation/dependent_blocks.lua: the blocks of Phi_z's dependent part for the declared independent coordinates
-- and the unrolled inversion of each, its pivot order chosen at generation time.
local EV = require "sym.eval"

local B = {}

-- A static pivot is chosen only among the entries of its column within this factor of the column's largest at the
-- model's initial pose; the generated code falls back to the runtime's partial pivoting where a pivot drops below
-- a tenth of its column's largest (MB_PIVOT_NEAR), so the order has room to spare before it is given up.
local CHOICE = 0.5

local function find(parent, i)
  while parent[i] ~= i do
    parent[i] = parent[parent[i]]
    i = parent[i]
  end
  return i
end

-- The blocks as the runtime's kin_blocks.c forms them: constraint rows joined through the dependent columns they
-- have a non-zero in, numbered by their smallest row; rows and coordinates ascending. phi_cols[j] = the rows
-- (1-based, ascending) of column j of Phi_z that may be non-zero. nil and why when a dependent coordinate is in no
-- constraint (its block would be singular).
function B.group(phi_cols, nc, dep)
  local parent = {}
  for i = 1, nc do parent[i] = i end
  for _, j in ipairs(dep) do
    local rows = phi_cols[j]
    if #rows == 0 then return nil, "dependent coordinate " .. j .. " is in no constraint" end
    for q = 2, #rows do parent[find(parent, rows[q])] = find(parent, rows[1]) end
  end
  local of_root, blocks = {}, {}
  for _, j in ipairs(dep) do of_root[find(parent, phi_cols[j][1])] = true end
  for i = 1, nc do
    local r = find(parent, i)
    if of_root[r] == true then
      of_root[r] = { rows = {}, coords = {} }
      blocks[#blocks + 1] = of_root[r]
    end
    if of_root[r] then table.insert(of_root[r].rows, i) end
  end
  for _, j in ipairs(dep) do table.insert(of_root[find(parent, phi_cols[j][1])].coords, j) end
  local block_of_row = {}
  for b, blk in ipairs(blocks) do for _, i in ipairs(blk.rows) do block_of_row[i] = b end end
  return blocks, block_of_row
end

-- The pivot order of a square block and the structure every step touches. a[i][j] (block-local, 1-based): the
-- entry's value at the initial pose, or nil where it is structurally zero. Gauss-Jordan by exchange steps: the
-- step at (r, c) turns row r into coordinate c's expression and column c into row r's right-hand side:
--   d = 1 / a_rc; a_rj = -a_rj d (j ~= c); a_ij += a_ic a_rj (i ~= r, j ~= c; a fill where a_ij was zero);
--   a_ic = a_ic d (i ~= r); a_rc = d.
-- After n steps the table T holds the inverse: X[c, row_of(j)] = T[row_of(c), j]. Each step's pivot is the one of
-- least Markowitz cost (fill it may cause) among its column's large entries (CHOICE), which keeps the unrolled
-- code short; the runtime checks each pivot against the candidates of its column (`others`).
local function order(n, a)
  local nz, v = {}, {}
  for i = 1, n do
    nz[i], v[i] = {}, {}
    for j = 1, n do
      if a[i][j] then nz[i][j], v[i][j] = true, a[i][j] end
    end
  end
  local row_done, col_done, steps = {}, {}, {}
  local ops = { add = 0, mul = 0, div = 0 }
  for _ = 1, n do
    local best, bcost, bratio
    for c = 1, n do
      if not col_done[c] then
        local colmax, ccount = 0, 0
        for i = 1, n do
          if nz[i][c] then
            ccount = ccount + 1
            if not row_done[i] then colmax = math.max(colmax, math.abs(v[i][c])) end
          end
        end
        for r = 1, n do
          if not row_done[r] and nz[r][c] and math.abs(v[r][c]) >= CHOICE * colmax then
            local rcount = 0
            for j = 1, n do if nz[r][j] then rcount = rcount + 1 end end
            local cost = (rcount - 1) * (ccount - 1)
            local ratio = colmax > 0 and math.abs(v[r][c]) / colmax or 1
            if not best or cost < bcost or (cost == bcost and ratio > bratio) then
              best, bcost, bratio = { r = r, c = c }, cost, ratio
            end
          end
        end
      end
    end
    if not best then return nil end
    local r, c = best.r, best.c
    local step = { r = r, c = c, others = {}, row = {}, col = {}, update = {} }
    for i = 1, n do
      if i ~= r and nz[i][c] then
        step.col[#step.col + 1] = i
        if not row_done[i] then step.others[#step.others + 1] = i end
      end
    end
    for j = 1, n do if j ~= c and nz[r][j] then step.row[#step.row + 1] = j end end
    local d = v[r][c] ~= 0 and 1 / v[r][c] or 0
    for _, j in ipairs(step.row) do v[r][j] = -v[r][j] * d end
    for _, i in ipairs(step.col) do
      for _, j in ipairs(step.row) do
        step.update[#step.update + 1] = { i = i, j = j, fill = not nz[i][j] }
        if nz[i][j] then v[i][j] = v[i][j] + v[i][c] * v[r][j]; ops.add = ops.add + 1
        else nz[i][j], v[i][j] = true, v[i][c] * v[r][j] end
        ops.mul = ops.mul + 1
      end
      v[i][c] = v[i][c] * d
    end
    v[r][c] = d
    ops.div = ops.div + 1
    ops.mul = ops.mul + #step.row + #step.col
    row_done[r], col_done[c] = true, true
    steps[#steps + 1] = step
  end
  local row_of, col_of = {}, {}
  for _, s in ipairs(steps) do row_of[s.c], col_of[s.r] = s.r, s.c end
  -- X[k, l] (coordinate k, row l of the block) = T[row_of[k], col_of[l]].
  local x = {}
  for k = 1, n do
    x[k] = {}
    for l = 1, n do
      if nz[row_of[k]][col_of[l]] then x[k][l] = { r = row_of[k], c = col_of[l] } end
    end
  end
  return { steps = steps, x = x, ops = ops }
end

-- Values of the block entries of Phi_z at the model's initial pose and design parameters (unassembled: only the
-- pivots' sizes matter).
local function initial_values(tree, phiz, entries)
  local env = { t = 0, z = {}, zd = {}, p = {}, u = {} }
  for k = 1, #tree.coords do env.z[k], env.zd[k] = tree.initial[k] or 0, 0 end
  for _, prm in ipairs(tree.parameters or {}) do
    if prm.kind == "design" then env.p[prm.index + 1] = prm.value end
  end
  local exprs = {}
  for q, e in ipairs(entries) do exprs[q] = phiz.exprs[(e.j - 1) * phiz.rows + e.i] end
  local ok, vals = pcall(EV.eval, exprs, env)
  if not ok then return nil end
  return vals
end

-- The inversions of the blocks (B.group's, which gain n, a[i][j] = true where the entry may be non-zero, steps
-- and x: order's, and xoff: where the block's inverse starts among them all): { blocks, ops }, or nil and why (a block with more rows than coordinates, redundant equations;
-- a pivot order that the initial pose does not allow). phi_cols: the rows of each column of Phi_z that may be
-- non-zero.
function B.plan(tree, phiz, phi_cols, blocks)
  local ops, xoff = { add = 0, mul = 0, div = 0, call = 0 }, 0
  for b, blk in ipairs(blocks) do
    local n = #blk.coords
    if #blk.rows ~= n then return nil, "block " .. b .. " has " .. #blk.rows .. " equations for " .. n .. " coordinates" end
    local local_row, entries = {}, {}
    for l, i in ipairs(blk.rows) do local_row[i] = l end
    for k, j in ipairs(blk.coords) do
      for _, i in ipairs(phi_cols[j]) do
        if local_row[i] then entries[#entries + 1] = { i = i, j = j, l = local_row[i], k = k } end
      end
    end
    local vals = initial_values(tree, phiz, entries)
    if not vals then return nil, "Phi_z cannot be evaluated at the initial pose" end
    local a, nz = {}, {}
    for l = 1, n do a[l], nz[l] = {}, {} end
    for q, e in ipairs(entries) do
      a[e.l][e.k], nz[e.l][e.k] = type(vals[q]) == "number" and vals[q] or 0, true
    end
    local o = order(n, a)
    if not o then return nil, "block " .. b .. " has no pivot order at the initial pose" end
    blk.n, blk.a, blk.steps, blk.x, blk.xoff = n, nz, o.steps, o.x, xoff
    xoff = xoff + n * n
    for k, v in pairs(o.ops) do ops[k] = ops[k] + v end
    -- The figures: a square per entry and the sums of the column norms, a square root; the sums of |X|'s columns
    -- and rows.
    local xnz = 0
    for k = 1, n do for l = 1, n do if o.x[k][l] then xnz = xnz + 1 end end end
    ops.mul, ops.add, ops.call = ops.mul + #entries, ops.add + #entries - n + 2 * (xnz - n), ops.call + 1
  end
  return { blocks = blocks, ops = ops }
end

return B
