-- emit/reduction.lua: prints Matrix R's reduction plan (formulation/matrix_r.lua) as a C function and its table.
local TX = require "emit.text"
local wrap = TX.wrap

local E = {}

-- "sum - a - b" or "sum + a + b" wrapped as one statement: lhs = first op term op term ...;
local function statement(lhs, first, terms, op)
  local items = { first }
  for _, t in ipairs(terms) do items[#items + 1] = op .. " " .. t end
  return wrap(items, " ", "    " .. lhs .. " = ", "        ") .. ";"
end

-- lhs = (first op term ...) / denom; without terms lhs = first / denom.
local function divided(lhs, first, terms, op, denom)
  if #terms == 0 then return "    " .. lhs .. " = " .. first .. " / " .. denom .. ";" end
  return (statement(lhs, "(" .. first, terms, op):gsub(";$", ") / " .. denom .. ";"))
end

-- The function's C text and the model table's member for the plan of model `name`; blocks_ref: the address of the
-- dependent blocks' table (emit/dependent_blocks.lua), or nil.
function E.text(name, plan, blocks_ref)
  local n, d, ind = plan.n, plan.d, plan.ind
  local fname = name .. "_matrix_r_reduce"
  local function m(i, j) return string.format("M[%d + %d * %d]", i - 1, n, j - 1) end
  local function r(j, c) return string.format("R[%d + %d * %d]", j - 1, n, c - 1) end
  local function l(i, j) return string.format("L[%d + %d * %d]", i - 1, d, j - 1) end
  local out = {}
  local function put(s) out[#out + 1] = s end
  local indnames = {}
  for c = 1, d do indnames[c] = (c - 1) .. " " .. plan.names[ind[c]] end
  put(string.format([[
/* Matrix R's reduced system for the declared independent coordinates, from the structure fixed with them:
 * t = Q - M x at the rows R' reads; Mb = R'M R column by column into L's upper triangle (column c of M R only at
 * the rows R' reads, M's and R's structural zeros skipped); Mb = L L' in L's lower triangle; L L' zi = R' t;
 * zdd = x + R zi. M: nz x nz, R: nz x d, both read at their patterns only (R's identity rows implied); x: the
 * accelerations with zdd_i = 0 (zero in the independent rows). MB_FN_SINGULAR where a pivot of Mb is not positive
 * and finite (L and zdd then unspecified). Column c of R and of Mb belongs to independent coordinate c:
%s */
int %s(const mb_real *MB_RESTRICT M, const mb_real *MB_RESTRICT Q, const mb_real *MB_RESTRICT x,
    const mb_real *MB_RESTRICT R, mb_real *MB_RESTRICT L, mb_real *MB_RESTRICT zdd)
{]], wrap(indnames, ", ", " * ", " * "), fname))
  -- Declarations of what the body uses (a declared set that reaches no loop uses neither M R nor R).
  local uses_c, uses_r, uses_x = false, false, false
  for cc = 1, d do
    if #plan.mr[cc].rows > 0 then uses_c = true end
    if #plan.R[cc] > 0 then uses_r = true end
  end
  for _, list in pairs(plan.tmp) do if #list > 0 then uses_x = true end end
  local decl = { "t[" .. n .. "]", "g[" .. d .. "]", "s" }
  if uses_c then table.insert(decl, 2, "c[" .. n .. "]") end
  put("    mb_real " .. table.concat(decl, ", ") .. ";")
  if not uses_r then put("    (void)R;") end
  if not uses_x and #plan.dep == 0 then put("    (void)x;") end
  put("    /* t = Q - M x */")
  for i = 1, n do
    local list = plan.tmp[i]
    if list then
      local terms = {}
      for _, j in ipairs(list) do terms[#terms + 1] = m(i, j) .. " * x[" .. (j - 1) .. "]" end
      put(statement("t[" .. (i - 1) .. "]", "Q[" .. (i - 1) .. "]", terms, "-"))
    end
  end
  for cc = 1, d do
    local col = plan.mr[cc]
    put(string.format("    /* column %d, %s: M R at the rows read, then Mb[.., %d] and (R' t)[%d] */", cc - 1,
      plan.names[ind[cc]], cc - 1, cc - 1))
    for _, i in ipairs(col.rows) do
      local items = {}
      for _, j in ipairs(col.terms[i]) do
        items[#items + 1] = j == ind[cc] and m(i, j) or (m(i, j) .. " * " .. r(j, cc))
      end
      local first = table.remove(items, 1)
      put(statement("c[" .. (i - 1) .. "]", first, items, "+"))
    end
    for a = 1, cc do
      local items = {}
      for _, i in ipairs(plan.mb[cc][a]) do
        items[#items + 1] = i == ind[a] and ("c[" .. (i - 1) .. "]") or (r(i, a) .. " * c[" .. (i - 1) .. "]")
      end
      if #items == 0 then
        put("    " .. l(a, cc) .. " = 0;")
      else
        local first = table.remove(items, 1)
        put(statement(l(a, cc), first, items, "+"))
      end
    end
    local gt = {}
    for _, j in ipairs(plan.R[cc]) do gt[#gt + 1] = r(j, cc) .. " * t[" .. (j - 1) .. "]" end
    put(statement("g[" .. (cc - 1) .. "]", "t[" .. (ind[cc] - 1) .. "]", gt, "+"))
  end
  put("    /* Mb = L L' (Mb read from the upper triangle, L written to the lower) */")
  for j = 1, d do
    local terms = {}
    for _, k in ipairs(plan.chol[j]) do terms[#terms + 1] = l(j, k) .. " * " .. l(j, k) end
    put(statement("s", l(j, j), terms, "-"))
    put("    if (!MB_PIVOT_OK(s)) return MB_FN_SINGULAR;")
    put("    " .. l(j, j) .. " = MB_SQRT(s);")
    for i = j + 1, d do
      if plan.lnz[i][j] then
        local t2 = {}
        for _, k in ipairs(plan.below[j][i]) do t2[#t2 + 1] = l(i, k) .. " * " .. l(j, k) end
        local mbji = #plan.mb[i][j] > 0 and l(j, i) or "0"
        put(divided(l(i, j), mbji, t2, "-", l(j, j)))
      else
        put("    " .. l(i, j) .. " = 0;")
      end
    end
  end
  put("    /* L y = R' t, L' zi = y */")
  for j = 1, d do
    local terms = {}
    for k = 1, j - 1 do if plan.lnz[j][k] then terms[#terms + 1] = l(j, k) .. " * g[" .. (k - 1) .. "]" end end
    put(divided("g[" .. (j - 1) .. "]", "g[" .. (j - 1) .. "]", terms, "-", l(j, j)))
  end
  for j = d, 1, -1 do
    local terms = {}
    for k = j + 1, d do if plan.lnz[k][j] then terms[#terms + 1] = l(k, j) .. " * g[" .. (k - 1) .. "]" end end
    put(divided("g[" .. (j - 1) .. "]", "g[" .. (j - 1) .. "]", terms, "-", l(j, j)))
  end
  put("    /* zdd = x + R zi */")
  local cols_of = {}
  for cc = 1, d do
    for _, j in ipairs(plan.R[cc]) do
      cols_of[j] = cols_of[j] or {}
      table.insert(cols_of[j], cc)
    end
  end
  local pos = {}
  for cc = 1, d do pos[ind[cc]] = cc end
  for k = 1, n do
    if pos[k] then
      put(string.format("    zdd[%d] = g[%d];", k - 1, pos[k] - 1))
    else
      local terms = {}
      for _, cc in ipairs(cols_of[k] or {}) do terms[#terms + 1] = r(k, cc) .. " * g[" .. (cc - 1) .. "]" end
      put(statement("zdd[" .. (k - 1) .. "]", "x[" .. (k - 1) .. "]", terms, "+"))
    end
  end
  put("    return MB_FN_OK;")
  put("}")
  put("")
  -- R's pattern (0-based, compressed by column) and the table the model points to.
  local colptr, rowind = { 0 }, {}
  for cc = 1, d do
    for _, j in ipairs(plan.R[cc]) do rowind[#rowind + 1] = j - 1 end
    colptr[#colptr + 1] = #rowind
  end
  local base = name .. "_matrix_r"
  TX.pattern_table(out, base .. "_R_pattern", n, d, colptr, rowind)
  put(string.format("static const mb_reduction %s = { %s, &%s_R_pattern, %s };", base, fname, base, blocks_ref or "0"))
  return table.concat(out, "\n"), "&" .. base, fname
end

return E
