-- emit/model.lua: prints a model's function specifications as its generated C files (NAME.c, NAME.h).
local E = require "sym.expr"
local C = require "sym.emit_c"
local SL = require "emit.slots"

local M = {}

M.VERSION = "mbgen 0.1"

-- 64-bit FNV-1a of the model file, so a reader can tell which source a file came from.
local function fnv1a(text)
  local h = -3750763034362895579   -- 0xcbf29ce484222325
  for i = 1, #text do
    h = h ~ text:byte(i)
    h = h * 1099511628211
  end
  return string.format("%016x", h)
end

local function c_string(s) return '"' .. s:gsub('[\\"]', '\\%0') .. '"' end

local function c_number(x)
  local s = string.format("%.17g", x)
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end

local function names_array(lines, cname, list)
  if #list == 0 then return "0" end
  local items = {}
  for i, s in ipairs(list) do items[i] = "    " .. c_string(s) end
  lines[#lines + 1] = string.format("static const char *const %s[%d] = {\n%s\n};", cname, #list,
    table.concat(items, ",\n"))
  return cname
end

local function numbers_array(lines, cname, list, ctype)
  if #list == 0 then return "0" end
  local items = {}
  for i, v in ipairs(list) do items[i] = ctype == "int" and tostring(v) or c_number(v) end
  lines[#lines + 1] = string.format("static const %s %s[%d] = { %s };", ctype or "double", cname, #list,
    table.concat(items, ", "))
  return cname
end

-- Structural non-zeros of a column-major expression list, in compressed-column form.
-- The output of a solve (M⁻¹ B: the forward-dynamics derivatives) is taken as dense: its expressions are
-- [M, B], not the output, and M⁻¹ fills in.
local function pattern(f)
  local colptr, rowind = { 0 }, {}
  for j = 1, f.cols do
    for i = 1, f.rows do
      if f.solve or not E.is_zero(f.exprs[(j - 1) * f.rows + i]) then rowind[#rowind + 1] = i - 1 end
    end
    colptr[#colptr + 1] = #rowind
  end
  return colptr, rowind
end

-- Dense Cholesky solve emitted once per file for the forward-dynamics derivatives: the solve is
-- O(n³) work that unrolling would only bloat, so it stays a loop.
local SOLVE = [[
/* Solves M X = B in place for n x m column-major B by Cholesky; M (n x n) is overwritten. Returns
 * MB_FN_SINGULAR at a pivot that is not positive and finite. */
static int %s_solve_spd(int n, mb_real *M, mb_real *B, int m)
{
    for (int j = 0; j < n; ++j) {
        mb_real d = M[j + j * n];
        for (int k = 0; k < j; ++k) d -= M[j + k * n] * M[j + k * n];
        if (!MB_PIVOT_OK(d)) return MB_FN_SINGULAR;
        d = MB_SQRT(d);
        M[j + j * n] = d;
        for (int i = j + 1; i < n; ++i) {
            mb_real s = M[i + j * n];
            for (int k = 0; k < j; ++k) s -= M[i + k * n] * M[j + k * n];
            M[i + j * n] = s / d;
        }
    }
    for (int c = 0; c < m; ++c) {
        mb_real *x = B + c * n;
        for (int i = 0; i < n; ++i) {
            mb_real s = x[i];
            for (int k = 0; k < i; ++k) s -= M[i + k * n] * x[k];
            x[i] = s / M[i + i * n];
        }
        for (int i = n - 1; i >= 0; --i) {
            mb_real s = x[i];
            for (int k = i + 1; k < n; ++k) s -= M[k + i * n] * x[k];
            x[i] = s / M[i + i * n];
        }
    }
    return MB_FN_OK;
}
]]

-- The right-hand side [M, B] goes to work, the solve runs there, and X is copied out.
local function emit_solve_function(name, f, n)
  local rhs = name .. "_rhs"
  local body, info = C.emit_function { name = rhs, exprs = f.exprs, static = true,
    comment = "M and -dr/dy at zdd = forward dynamics" }
  local model = name:match("^(.-)_forward_dynamics")
  local k = #f.exprs
  return body .. string.format([[

int %s(const mb_args *a, mb_real *out, mb_real *work)
{
    int rc;
    (void)%s(a, work, work + %d);
    rc = %s_solve_spd(%d, work, work + %d, %d);
    if (rc) return rc;
    for (int i = 0; i < %d; ++i) out[i] = work[%d + i];
    return MB_FN_OK;
}
]], name, rhs, k, model, n, n * n, f.cols, n * f.cols, n * n), k + info.nwork, info.ops
end

-- The file's sections: -DMB_PART=k compiles section k alone, so that the sections of a large model compile
-- in parallel, in units small enough for gcc's time per unit to stay near linear (design/FACTS.md).
local SECTIONS = [[
/* Without MB_PART this file compiles whole; with -DMB_PART=k only its section k (of NAME_NSECTIONS in the
 * header), so a build can compile the sections in parallel and link their objects together. */
#ifdef MB_PART
#define MB_SECTION(k) (MB_PART == (k))
#else
#define MB_SECTION(k) 1
#endif
]]

-- Bytes of C per section: a vehicle's 5 MB compile in a dozen units, a small model in one.
M.SECTION_BYTES = 400000

-- Consecutive functions (their index lists) in sections of about equal size, at most SECTION_BYTES each.
local function split_sections(bodies)
  local total = 0
  for _, text in ipairs(bodies) do total = total + #text end
  local k = math.max(1, math.ceil(total / M.SECTION_BYTES))
  local target = total / k
  local sections, cur, size, done = {}, {}, 0, 0
  for i, text in ipairs(bodies) do
    if #cur > 0 and done + size + #text / 2 > target * (#sections + 1) then
      sections[#sections + 1] = cur
      done = done + size
      cur, size = {}, 0
    end
    cur[#cur + 1] = i
    size = size + #text
  end
  if #cur > 0 or #sections == 0 then sections[#sections + 1] = cur end
  return sections
end

-- One function's line of the roadmap's table: shape, structural non-zeros and operation counts (ops: the
-- emitter's count of the same expressions, when it has printed them).
local function function_stats(name, f, ops)
  local nnz = 0
  if not f.solve then
    for _, e in ipairs(f.exprs) do if not E.is_zero(e) then nnz = nnz + 1 end end
  else
    nnz = f.rows * f.cols
  end
  return { name = name .. "_" .. f.name, rows = f.rows, cols = f.cols, nnz = nnz, ops = ops or C.count(f.exprs) }
end

-- The stats M.generate returns, without printing any C (what `mbgen info` shows: the emitter's printing is
-- most of generation's time on a vehicle).
function M.stats(spec)
  local stats = {}
  for _, f in ipairs(spec.functions) do stats[#stats + 1] = function_stats(spec.name, f) end
  return stats
end

-- Prints a spec (dynamics/functions.lua) of the tree's model: returns files = { ["NAME.c"] = text,
-- ["NAME.h"] = text } and per-function stats. source_text: the model file's text, whose hash the header
-- records. The tree gives the model table's names, sizes and defaults. opts.csc: also the compressed-column
-- form NAME_FN_csc of every matrix function (not of the forward-dynamics derivatives, which solve).
function M.generate(tree, spec, source_text, opts)
  local name = tree.name
  local n = #tree.bodies
  local fns, byname, objectives = spec.functions, spec.byname, spec.objectives

  local stats, bodies_c, csc = {}, {}, {}
  for _, f in ipairs(fns) do
    local cname = name .. "_" .. f.name
    local text, nwork, ops
    if f.solve then
      text, nwork, ops = emit_solve_function(cname, f, n)
    else
      local info
      text, info = C.emit_function { name = cname, exprs = f.exprs, comment = f.name }
      nwork, ops = info.nwork, info.ops
      -- The compressed-column form, asked for (opts.csc): the same expressions, only the structural non-zeros
      -- written, in the pattern's order (a solve's output is dense: it has none).
      if opts and opts.csc and f.matrix then
        local ctext, cinfo = C.emit_function { name = cname .. "_csc", exprs = f.exprs, compact = true,
          comment = f.name .. ", the structural non-zeros in compressed-column order" }
        text = text .. "\n" .. ctext
        if cinfo.nwork > nwork then nwork = cinfo.nwork end
        csc[f.name] = true
      end
    end
    f.nwork = nwork
    bodies_c[#bodies_c + 1] = text
    local st = function_stats(name, f, ops)
    st.nwork = nwork
    stats[#stats + 1] = st
  end

  local sections = split_sections(bodies_c)

  -- Header.
  local H = {}
  local guard = "MBGEN_" .. name:upper() .. "_H"
  H[#H + 1] = string.format("/* %s.h: generated by %s from %s; do not edit. */", name, M.VERSION, tree.file)
  H[#H + 1] = "#ifndef " .. guard
  H[#H + 1] = "#define " .. guard
  H[#H + 1] = ""
  H[#H + 1] = '#include "mb_model.h"'
  H[#H + 1] = ""
  local npt = #(tree.points or {})
  for _, d in ipairs {
    { "NZ", n }, { "NC", M.constraint_count(tree) }, { "NP", #(tree.design or {}) },
    { "NU", #(tree.inputs or {}) }, { "NB", n }, { "NPT", npt }, { "NTY", #(tree.tyres or {}) },
  } do
    H[#H + 1] = string.format("#define %s_%s %d", name, d[1], d[2])
  end
  H[#H + 1] = ""
  H[#H + 1] = string.format("extern const mb_model %s_model;", name)
  H[#H + 1] = ""
  local maxwork = 0
  for _, f in ipairs(fns) do
    H[#H + 1] = string.format("int %s_%s(const mb_args *a, mb_real *out, mb_real *work);", name, f.name)
    if csc[f.name] then
      H[#H + 1] = string.format("int %s_%s_csc(const mb_args *a, mb_real *out, mb_real *work);", name, f.name)
    end
    H[#H + 1] = string.format("#define %s_%s_NWORK %d", name, f.name, f.nwork)
    if f.nwork > maxwork then maxwork = f.nwork end
  end
  H[#H + 1] = ""
  H[#H + 1] = "/* The largest workspace of any function above, in mb_reals. */"
  H[#H + 1] = string.format("#define %s_NWORK %d", name, maxwork)
  H[#H + 1] = string.format("/* %s.c compiles whole, or section by section with -DMB_PART=1..%s_NSECTIONS. */", name, name)
  H[#H + 1] = string.format("#define %s_NSECTIONS %d", name, #sections)
  H[#H + 1] = ""
  H[#H + 1] = "#endif"
  H[#H + 1] = ""

  -- Source.
  local L = {}
  local total = { add = 0, mul = 0, div = 0, call = 0 }
  for _, s in ipairs(stats) do
    for k in pairs(total) do total[k] = total[k] + (s.ops[k] or 0) end
  end
  L[#L + 1] = string.format("/* %s.c: generated by %s from %s (fnv1a %s); do not edit.", name, M.VERSION,
    tree.file, fnv1a(source_text or ""))
  L[#L + 1] = string.format(" * %d coordinates; all functions: %d additions, %d multiplications, %d divisions, %d calls. */",
    n, total.add, total.mul, total.div, total.call)
  L[#L + 1] = string.format('#include "%s.h"', name)
  L[#L + 1] = ""
  L[#L + 1] = SECTIONS
  local data = spec.data
  if #data > 0 then
    L[#L + 1] = "/* The model's data kept by name: a changed value changes its line here and not the code, which reads"
    L[#L + 1] = " * it as a constant the compiler folds. */"
    L[#L + 1] = "static const struct {"
    for _, e in ipairs(data) do L[#L + 1] = "    mb_real " .. e.member .. ";" end
    L[#L + 1] = "} " .. name .. "_data MB_UNUSED = {"
    for _, e in ipairs(data) do L[#L + 1] = string.format("    .%s = %s,", e.member, C.literal(e.value)) end
    L[#L + 1] = "};"
    L[#L + 1] = ""
  end
  local solve_in = {}
  for k, sec in ipairs(sections) do
    for _, i in ipairs(sec) do
      if fns[i].solve then solve_in[#solve_in + 1] = "MB_SECTION(" .. k .. ")"; break end
    end
  end
  if #solve_in > 0 then
    L[#L + 1] = "#if " .. table.concat(solve_in, " || ")
    L[#L + 1] = string.format(SOLVE, name)
    L[#L + 1] = "#endif"
    L[#L + 1] = ""
  end
  for k, sec in ipairs(sections) do
    L[#L + 1] = string.format("#if MB_SECTION(%d)", k)
    L[#L + 1] = ""
    for _, i in ipairs(sec) do L[#L + 1] = bodies_c[i] end
    L[#L + 1] = string.format("#endif /* section %d */", k)
    L[#L + 1] = ""
  end

  -- Model table.
  local T = {}
  local znames, bnames, pnames, unames, ptnames = {}, {}, {}, {}, {}
  for k, c in ipairs(tree.coords) do znames[k] = c.name end
  for k, b in ipairs(tree.bodies) do bnames[k] = b.name end
  for i, pn in ipairs(tree.design or {}) do pnames[i] = pn end
  for i, inp in ipairs(tree.inputs or {}) do unames[i] = inp.name end
  for i, pt in ipairs(tree.points or {}) do ptnames[i] = pt.name end
  local tynames = {}
  for i, ty in ipairs(tree.tyres or {}) do tynames[i] = ty.name end
  local pdef = {}
  for _, prm in ipairs(tree.parameters or {}) do
    if prm.kind == "design" then pdef[prm.index + 1] = prm.value end
  end
  local z0, zd0 = {}, {}
  for k = 1, n do
    z0[k] = (tree.initial or {})[k] or 0
    zd0[k] = (tree.initial_velocity or {})[k] or 0
  end
  local indep = {}
  for i, k in ipairs(tree.independent or {}) do indep[i] = k - 1 end

  local refs = {
    z_names = names_array(T, name .. "_z_names", znames),
    p_names = names_array(T, name .. "_p_names", pnames),
    u_names = names_array(T, name .. "_u_names", unames),
    body_names = names_array(T, name .. "_body_names", bnames),
    point_names = names_array(T, name .. "_point_names", ptnames),
    tyre_names = #tynames > 0 and names_array(T, name .. "_tyre_names", tynames) or nil,
    p_default = numbers_array(T, name .. "_p_default", pdef),
    z0 = numbers_array(T, name .. "_z0", z0),
    zd0 = numbers_array(T, name .. "_zd0", zd0),
    independent = numbers_array(T, name .. "_independent", indep, "int"),
  }
  local slots = SL.load()
  local patterns = {}
  for _, sl in ipairs(slots) do
    local slot = sl.name
    local f = sl.matrix and byname[slot]
    if f then
      local colptr, rowind = pattern(f)
      local base = name .. "_" .. slot .. "_pattern"
      local cp = numbers_array(T, base .. "_colptr", colptr, "int")
      local ri = #rowind > 0 and numbers_array(T, base .. "_rowind", rowind, "int") or "0"
      T[#T + 1] = string.format("static const mb_pattern %s = { %d, %d, %s, %s };", base, f.rows, f.cols, cp, ri)
      patterns[slot] = "&" .. base
    end
  end

  local sim = tree.simulate or {}
  local objs_ref = "0"
  if #objectives > 0 then
    local items = {}
    for i, o in ipairs(objectives) do
      items[i] = string.format("    { %s, %s, %s }", c_string(o.name),
        o.integrand and (name .. "_" .. o.integrand) or "0", o.terminal and (name .. "_" .. o.terminal) or "0")
    end
    objs_ref = name .. "_objectives"
    T[#T + 1] = string.format("static const mb_objective %s[%d] = {\n%s\n};", objs_ref, #objectives,
      table.concat(items, ",\n"))
  end

  T[#T + 1] = ""
  T[#T + 1] = string.format("const mb_model %s_model = {", name)
  T[#T + 1] = string.format("    .name = %s,", c_string(name))
  T[#T + 1] = string.format("    .nz = %d, .nc = %d, .np = %d, .nu = %d, .nb = %d, .npt = %d,", n,
    M.constraint_count(tree), #pnames, #unames, n, #ptnames)
  for _, key in ipairs { "z_names", "p_names", "u_names", "body_names", "point_names", "p_default", "z0", "zd0", "independent" } do
    T[#T + 1] = string.format("    .%s = %s,", key, refs[key])
  end
  T[#T + 1] = string.format("    .n_independent = %d,", #indep)
  T[#T + 1] = string.format("    .simulate = { %s, %s, %s, %s, %s },",
    c_number(sim.t_end or 1), c_number(sim.step or 1e-3), c_number(sim.tolerance or 1e-6),
    c_string(sim.integrator or "rk4"), c_string(sim.formulation or (M.constraint_count(tree) > 0 and "matrix_r" or "tree")))
  T[#T + 1] = string.format("    .nwork = %d,", maxwork)
  for _, sl in ipairs(slots) do
    if byname[sl.name] then
      T[#T + 1] = string.format("    .%s = %s_%s,", sl.name, name, sl.name)
      if csc[sl.name] then T[#T + 1] = string.format("    .%s_csc = %s_%s_csc,", sl.name, name, sl.name) end
      if patterns[sl.name] then T[#T + 1] = string.format("    .%s_pattern = %s,", sl.name, patterns[sl.name]) end
    end
  end
  -- The members after the slots, in the struct's order (C++ builds of the file, as the ADOL-C peer test
  -- makes, need designators in declaration order).
  if #objectives > 0 then T[#T + 1] = string.format("    .nobj = %d, .objectives = %s,", #objectives, objs_ref) end
  if #tynames > 0 then
    T[#T + 1] = string.format("    .ntyre = %d, .tyre_names = %s,", #tynames, refs.tyre_names)
  end
  local g = tree.gravity or { 0, 0, 0 }
  T[#T + 1] = string.format("    .gravity = { %s, %s, %s },", c_number(E.const_value(g[1]) or 0),
    c_number(E.const_value(g[2]) or 0), c_number(E.const_value(g[3]) or 0))
  T[#T + 1] = "};"
  L[#L + 1] = "#if MB_SECTION(1)"
  L[#L + 1] = table.concat(T, "\n")
  L[#L + 1] = "#endif"
  L[#L + 1] = ""

  local files = {
    [name .. ".c"] = table.concat(L, "\n"),
    [name .. ".h"] = table.concat(H, "\n"),
  }
  return files, stats
end

-- Constraint equations of the loops, rods and drives (their C comes with the closed-loop formulation).
function M.constraint_count(tree)
  local nc = 0
  for _, c in ipairs(tree.constraints or {}) do nc = nc + (c.equations or 0) end
  return nc
end

return M
