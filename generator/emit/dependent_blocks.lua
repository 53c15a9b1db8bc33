-- emit/dependent_blocks.lua: prints the inversions of Phi_z's dependent blocks (formulation/dependent_blocks.lua)
-- with the right-hand sides and solutions of the velocity and acceleration problems, R's dependent rows and the
-- table the model points to.
local TX = require "emit.text"
local wrap = TX.wrap

local D = {}

local function cell(l, k) return "a" .. (l - 1) .. "_" .. (k - 1) end

-- lhs = first + second + ... wrapped as one statement (items already carry their signs where they need them).
local function sum(lhs, items, op)
  return wrap(items, " " .. (op or "+") .. " ", "        " .. lhs .. " = ", "            ") .. ";"
end

-- "equations fl_ubj.1, fl_ubj.2 for coordinates fl_x, fl_y" of a block, wrapped as a comment's lines.
local function describe(b, blk, plan, cnames)
  local items = { string.format("block %d: equations", b - 1) }
  for q, i in ipairs(blk.rows) do items[#items + 1] = (cnames[i] or tostring(i - 1)) .. (q < #blk.rows and "," or "") end
  items[#items + 1] = "for coordinates"
  for q, j in ipairs(blk.coords) do items[#items + 1] = plan.names[j] .. (q < #blk.coords and "," or "") end
  return wrap(items, " ", "        /* ", "         * ") .. " */"
end

-- The factor function: each block's entries read from J into its cells, its largest column norm, the exchange
-- steps with their threshold tests, X = the inverse and its 1- and infinity-norms.
local function factor_text(name, plan, cnames)
  local nc, dep = plan.nc, plan.dependent
  local out = {}
  local function put(s) out[#out + 1] = s end
  put(string.format([[
/* The dependent blocks of Phi_z (J: nc x nz) for the declared independent coordinates, inverted by Gauss-Jordan
 * exchange steps in the pivot order chosen at generation time (the entries of least fill among the large ones of
 * their column at the initial pose), structural zeros skipped. X: the blocks' inverses one after the other, each
 * n x n column-major with the block's coordinates by its equations; fig[3 b], fig[3 b + 1], fig[3 b + 2]: block b's
 * largest column norm and its inverse's 1- and infinity-norms (the runtime's conditioning test). MB_FN_SINGULAR
 * where a pivot is zero or below a tenth of the largest other candidate of its column (X is then unspecified and
 * the runtime inverts with partial pivoting). */
int %s_matrix_r_dependent_factor(const mb_real *MB_RESTRICT J, mb_real *MB_RESTRICT X, mb_real *MB_RESTRICT fig)
{
    mb_real s, f, d;]], name))
  local uses_s = false
  for _, blk in ipairs(dep.blocks) do
    if blk.n > 1 then uses_s = true end
    for _, st in ipairs(blk.steps) do if #st.others > 0 then uses_s = true end end
  end
  if not uses_s then put("    (void)s;") end
  for b, blk in ipairs(dep.blocks) do
    local n = blk.n
    put("    {")
    put(describe(b, blk, plan, cnames))
    local decl = {}
    for l, i in ipairs(blk.rows) do
      for k, j in ipairs(blk.coords) do
        if blk.a[l][k] then decl[#decl + 1] = string.format("%s = J[%d + %d * %d]", cell(l, k), i - 1, nc, j - 1) end
      end
    end
    put(wrap(decl, ", ", "        mb_real ", "            ") .. ";")
    for k = 1, n do
      local sq = {}
      for l = 1, n do
        if blk.a[l][k] then sq[#sq + 1] = cell(l, k) .. " * " .. cell(l, k) end
      end
      put(sum(k == 1 and "f" or "s", sq))
      if k > 1 then put("        f = MB_MAX(f, s);") end
    end
    put(string.format("        fig[%d] = MB_SQRT(f);", 3 * (b - 1)))
    for q, st in ipairs(blk.steps) do
      local r, c = st.r, st.c
      put(string.format("        /* pivot %d: equation %s, coordinate %s */", q, cnames[blk.rows[r]] or (blk.rows[r] - 1),
        plan.names[blk.coords[c]]))
      local piv = cell(r, c)
      if #st.others == 0 then
        put(string.format("        if (!MB_PIVOT_NEAR(%s, 0.0)) return MB_FN_SINGULAR;", piv))
      else
        for e, i in ipairs(st.others) do
          put(e == 1 and string.format("        s = MB_ABS(%s);", cell(i, c))
            or string.format("        s = MB_MAX(s, MB_ABS(%s));", cell(i, c)))
        end
        put(string.format("        if (!MB_PIVOT_NEAR(%s, s)) return MB_FN_SINGULAR;", piv))
      end
      put("        d = 1 / " .. piv .. ";")
      for _, j in ipairs(st.row) do put(string.format("        %s = -%s * d;", cell(r, j), cell(r, j))) end
      for _, u in ipairs(st.update) do
        put(string.format(u.fill and "        mb_real %s = %s * %s;" or "        %s += %s * %s;", cell(u.i, u.j),
          cell(u.i, c), cell(r, u.j)))
      end
      for _, i in ipairs(st.col) do put(string.format("        %s *= d;", cell(i, c))) end
      put("        " .. piv .. " = d;")
    end
    put("        /* X = the inverse (coordinate c's row: the cells of the row whose pivot was in c's column), its norms */")
    for l = 1, n do
      for k = 1, n do
        local x = blk.x[k][l]
        put(string.format("        X[%d] = %s;", blk.xoff + (l - 1) * n + k - 1, x and cell(x.r, x.c) or "0"))
      end
    end
    for pass = 1, 2 do   -- 1: columns of X (its 1-norm), 2: rows (infinity-norm)
      local first = true
      for a = 1, n do
        local items = {}
        for e = 1, n do
          local x
          if pass == 1 then x = blk.x[e][a] else x = blk.x[a][e] end
          if x then items[#items + 1] = "MB_ABS(" .. cell(x.r, x.c) .. ")" end
        end
        if #items > 0 then
          put(sum(first and "f" or "s", items))
          if not first then put("        f = MB_MAX(f, s);") end
          first = false
        end
      end
      put(string.format("        fig[%d] = f;", 3 * (b - 1) + pass))
    end
    put("    }")
  end
  put("    return MB_FN_OK;")
  put("}")
  return table.concat(out, "\n")
end

-- b = -(v + Phi_z[:, ind] y[ind]) on the blocks' equations, over the independent columns' structural non-zeros.
local function rhs_text(name, plan)
  local nc = plan.nc
  local out = {}
  local function put(s) out[#out + 1] = s end
  put(string.format([[
/* The right-hand side of the velocity and acceleration problems on the blocks' equations: b = -(v + Phi_z[:, ind] y)
 * (J = Phi_z; v, b: nc; y: nz, read at the independent coordinates), for %s_matrix_r_dependent_solve. */
void %s_matrix_r_dependent_rhs(const mb_real *MB_RESTRICT J, const mb_real *MB_RESTRICT v, const mb_real *MB_RESTRICT y,
    mb_real *MB_RESTRICT b)
{]], name, name))
  for b, blk in ipairs(plan.dependent.blocks) do
    put(string.format("    /* block %d */", b - 1))
    for _, i in ipairs(blk.rows) do
      local items = { "v[" .. (i - 1) .. "]" }
      for _, k in ipairs(plan.ind) do
        for _, row in ipairs(plan.phi_cols[k]) do
          if row == i then items[#items + 1] = string.format("J[%d + %d * %d] * y[%d]", i - 1, nc, k - 1, k - 1) end
        end
      end
      put((sum("b[" .. (i - 1) .. "]", items):gsub("^        ", "    "):gsub(" = ", " = -(", 1):gsub(";$", ");")))
    end
  end
  put("}")
  return table.concat(out, "\n")
end

-- x (the dependent coordinates in dep's order) = X b block by block, over X's structural non-zeros.
local function solve_text(name, plan)
  local out = {}
  local function put(s) out[#out + 1] = s end
  put(string.format([[
/* The dependent coordinates' solution of Phi_z[:, dep] x = b (b: nc; x in the order of the dependent coordinates)
 * from the blocks' inverses X of %s_matrix_r_dependent_factor. */
void %s_matrix_r_dependent_solve(const mb_real *MB_RESTRICT X, const mb_real *MB_RESTRICT b, mb_real *MB_RESTRICT x)
{]], name, name))
  local pos = {}
  for q, j in ipairs(plan.dep) do pos[j] = q - 1 end
  for b, blk in ipairs(plan.dependent.blocks) do
    local n = blk.n
    put(string.format("    /* block %d */", b - 1))
    for k, j in ipairs(blk.coords) do
      local items = {}
      for l, i in ipairs(blk.rows) do
        if blk.x[k][l] then items[#items + 1] = string.format("X[%d] * b[%d]", blk.xoff + (l - 1) * n + k - 1, i - 1) end
      end
      put((sum("x[" .. pos[j] .. "]", #items > 0 and items or { "0" }):gsub("^        ", "    ")))
    end
  end
  put("}")
  return table.concat(out, "\n")
end

-- R's dependent entries: R[j, c] = -(X Phi_z[:, ind[c]]) over the blocks column ind[c] reaches, the column's
-- structural non-zeros and X's.
local function r_text(name, plan)
  local nz, nc = plan.n, plan.nc
  local out = {}
  local function put(s) out[#out + 1] = s end
  put(string.format([[
/* R's dependent rows, -Phi_z[:, dep]^-1 Phi_z[:, ind], at R's pattern (R: nz x d, column-major; its identity rows and
 * zeros are the caller's), from the blocks' inverses X of %s_matrix_r_dependent_factor and J = Phi_z. */
void %s_matrix_r_dependent_R(const mb_real *MB_RESTRICT X, const mb_real *MB_RESTRICT J, mb_real *MB_RESTRICT R)
{]], name, name))
  for c, k in ipairs(plan.ind) do
    local in_col = {}
    for _, i in ipairs(plan.phi_cols[k]) do in_col[i] = true end
    local first = true
    for _, blk in ipairs(plan.dependent.blocks) do
      local reached = false
      for _, i in ipairs(blk.rows) do reached = reached or in_col[i] or false end
      if reached then
        if first then put(string.format("    /* column %d, %s */", c - 1, plan.names[k])) end
        first = false
        for kk, j in ipairs(blk.coords) do
          local items = {}
          for l, i in ipairs(blk.rows) do
            if in_col[i] and blk.x[kk][l] then
              items[#items + 1] = string.format("X[%d] * J[%d + %d * %d]", blk.xoff + (l - 1) * blk.n + kk - 1, i - 1, nc,
                k - 1)
            end
          end
          local lhs = string.format("R[%d + %d * %d]", j - 1, nz, c - 1)
          if #items == 0 then put("    " .. lhs .. " = 0;")
          else put((sum(lhs, items):gsub("^        ", "    "):gsub(" = ", " = -(", 1):gsub(";$", ");"))) end
        end
      end
    end
  end
  put("}")
  return table.concat(out, "\n")
end

-- The four functions and their table for model `name` (plan: formulation/matrix_r.lua's, with `dependent`);
-- returns the text and the table's address.
function D.text(name, plan, cnames)
  local out = { factor_text(name, plan, cnames), "", rhs_text(name, plan), "", solve_text(name, plan), "",
    r_text(name, plan), "" }
  local ptr, rows, coords = { 0 }, {}, {}
  for _, blk in ipairs(plan.dependent.blocks) do
    for q = 1, blk.n do rows[#rows + 1], coords[#coords + 1] = blk.rows[q] - 1, blk.coords[q] - 1 end
    ptr[#ptr + 1] = #rows
  end
  local base = name .. "_matrix_r_blocks"
  local p = TX.numbers_array(out, base .. "_ptr", ptr, "int")
  local r = TX.numbers_array(out, base .. "_rows", rows, "int")
  local c = TX.numbers_array(out, base .. "_coords", coords, "int")
  out[#out + 1] = wrap({ tostring(#plan.dependent.blocks), p, r, c, name .. "_matrix_r_dependent_factor",
    name .. "_matrix_r_dependent_rhs", name .. "_matrix_r_dependent_solve", name .. "_matrix_r_dependent_R" }, ", ",
    "static const mb_dependent_blocks " .. base .. " = { ", "    ") .. " };"
  out[#out + 1] = ""
  return table.concat(out, "\n"), "&" .. base
end

return D
