-- emit/model.lua: prints a model's function specifications as its generated C files (NAME.c, NAME.h).
local E = require "sym.expr"
local C = require "sym.emit_c"
local SL = require "emit.slots"
local LTL = require "dynamics.ltl"
local TX = require "emit.text"
local wrap, c_number, numbers_array = TX.wrap, TX.c_number, TX.numbers_array
local RED = require "emit.reduction"
local DEP = require "emit.dependent_blocks"

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

local function names_array(lines, cname, list)
  if #list == 0 then return "0" end
  local items = {}
  for i, s in ipairs(list) do items[i] = "    " .. c_string(s) end
  lines[#lines + 1] = string.format("static const char *const %s[%d] = {\n%s\n};", cname, #list,
    table.concat(items, ",\n"))
  return cname
end

-- The columns of a solve's right-hand side B (its expressions are [M, B], M n x n, B column-major) that are not
-- structurally zero. A floating base's position and its translational velocity are in no generalized force (a
-- rigid translation and a Galilean boost change none), so their columns of ∂r/∂y are zero, and so are those of
-- M⁻¹ B, which the solve leaves out.
local function live_columns(f)
  local n, live = f.rows, {}
  for c = 1, f.cols do
    for i = 1, n do
      if not E.is_zero(f.exprs[n * n + (c - 1) * n + i]) then live[#live + 1] = c; break end
    end
  end
  return live
end

-- Structural non-zeros of a column-major expression list, in compressed-column form.
-- The output of a solve (M⁻¹ B: the forward-dynamics derivatives) is taken as dense in B's live columns: its
-- expressions are [M, B], not the output, and M⁻¹ fills in.
local function pattern(f)
  local colptr, rowind, live = { 0 }, {}, {}
  if f.solve then
    for _, c in ipairs(live_columns(f)) do live[c] = true end
  end
  for j = 1, f.cols do
    for i = 1, f.rows do
      if (f.solve and live[j]) or (not f.solve and not E.is_zero(f.exprs[(j - 1) * f.rows + i])) then
        rowind[#rowind + 1] = i - 1
      end
    end
    colptr[#colptr + 1] = #rowind
  end
  return colptr, rowind
end

-- The solve of the forward-dynamics derivatives, emitted once per file: M = Lᵀ D L with L unit lower-triangular
-- (Featherstone, Rigid Body Dynamics Algorithms §6.5, "LTDL"), walking a parent array (parents before
-- children). In an open tree M_ij = 0 unless one of i, j is an ancestor of the other; eliminating the leaves
-- first keeps L within that pattern (no fill-in), so factoring costs O(Σ depth²) multiplications and the m
-- right-hand sides O(m Σ depth), against O(n³) and O(m n²) dense. LTDL rather than LᵀL: no square roots, and D⁻¹
-- applied once rather than L_ii⁻¹ twice. It stays a loop: unrolling would only bloat the file.
-- The right-hand sides are stored row by row (coordinate i's m values together), and both substitutions gather:
-- a block of a row's columns is held in SOLVE_WIDTHS[1] accumulators while the rows it depends on (its
-- descendants going up, its ancestors going down) are subtracted from it, and stored once. Against one loop over
-- the m columns per pair of rows (a load, a multiply, a load, a subtract and a store per entry) that keeps the
-- block in registers and gives the compiler independent chains to vectorize (SSE2 at -O2): Talos's 100
-- right-hand sides took 941k instructions and 54 µs, with 16 accumulators 328k and 20 µs (callgrind and the
-- same run). The last columns go by 4 and by 1.
local SOLVE_WIDTHS = { 16, 4, 1 }

-- One block loop of a substitution: w accumulators over columns c .. c + w - 1 of row x, started from x's
-- entries (times r when scaled), less l times row y's for each pair the walk yields.
local function solve_block(w, scaled, walk, l, y)
  local decl, upd, st = {}, {}, {}
  for k = 0, w - 1 do
    decl[#decl + 1] = string.format("a%d = x[c + %d]%s", k, k, scaled and " * r" or "")
    upd[#upd + 1] = string.format("a%d -= l * y[%d];", k, k)
    st[#st + 1] = string.format("x[c + %d] = a%d;", k, k)
  end
  return string.format([[
        for (; c + %d <= m; c += %d) {
%s;
            %s {
                const mb_real l = %s, *y = %s + c;
%s
            }
%s
        }
]], w, w, wrap(decl, ", ", "            mb_real ", "                "), walk, l, y,
    wrap(upd, " ", "                ", "                "), wrap(st, " ", "            ", "            "))
end

-- The solve's C; chain: the walks count (every j < i is an ancestor of i) instead of reading the arrays.
local function solve_source(name, chain)
  local up, down = {}, {}
  for _, w in ipairs(SOLVE_WIDTHS) do
    up[#up + 1] = solve_block(w, false,
      chain and "for (int i = j + 1; i < n; ++i)" or "for (const int *q = d0; q < d1; ++q)",
      chain and "M[j + i * n]" or "M[j + *q * n]", chain and "B + i * m" or "B + *q * m")
    down[#down + 1] = solve_block(w, true,
      chain and "for (int j = i - 1; j >= 0; --j)" or "for (int j = parent[i]; j >= 0; j = parent[j])",
      "Li[j]", "B + j * m")
  end
  return string.format([[
/* Solves M X = B in place, B n x m stored row by row (B_ic in B[i m + c]), by M = L' D L with L unit
 * lower-triangular (Featherstone, RBDA sec. 6.5): L_ij (i > j) and M_ij can be non-zero only where j is an ancestor
 * of i %s, so the factorization and the substitutions walk ancestor chains only. M's upper triangle
 * is overwritten with L (row i of L in column i: L_ij in M[j + i n]) and its diagonal with D; its lower
 * triangle is not read. Each substitution holds a block of a row's columns in accumulators while it subtracts
 * the rows that row depends on. Returns MB_FN_SINGULAR at a pivot that is not positive and finite. */
static int %s_solve_ltdl(int n, mb_real *M, mb_real *B, int m)
{
%s    for (int k = n - 1; k >= 0; --k) {   /* eliminate k, children first, from its ancestors */
        mb_real *Lk = M + k * n;
        const mb_real d = Lk[k];
        if (!MB_PIVOT_OK(d)) return MB_FN_SINGULAR;
        for (int i = %s; i >= 0; i = %s) {
            mb_real *Li = M + i * n;
            const mb_real l = Lk[i] / d;
            for (int j = i; j >= 0; j = %s) Li[j] -= l * Lk[j];
            Lk[i] = l;
        }
    }
    for (int j = n - 1; j >= 0; --j) {   /* L' Y = B: each row less its descendants' (final by then) */
        mb_real *x = B + j * m;
%s        int c = 0;
%s    }
    for (int i = 0; i < n; ++i) {        /* D W = Y, then L X = W: each row less its ancestors' */
        const mb_real *Li = M + i * n;
        const mb_real r = 1 / Li[i];
        mb_real *x = B + i * m;
        int c = 0;
%s    }
    return MB_FN_OK;
}
]], chain and "(in a chain: every j < i)" or ("in " .. name .. "_parent"), name,
    chain and "" or string.format("    const int *parent = %s_parent;\n", name),
    chain and "k - 1" or "parent[k]", chain and "i - 1" or "parent[i]", chain and "j - 1" or "parent[j]",
    chain and "" or string.format("        const int *d0 = %s_desc + %s_desc_first[j], *d1 = %s_desc + %s_desc_first[j + 1];\n",
      name, name, name, name),
    table.concat(up), table.concat(down))
end

-- The parent array of the solve (0-based, -1 for a root): the elimination tree of the structural pattern of M
-- (the [M, B] of the solve functions) together with the bodies' parent links, eliminating the last coordinate
-- first. That is the bodies' parent array itself when the bodies are numbered parents first (the topology's
-- depth-first numbering) and M couples only ancestors and descendants (an open tree); a massive rod between
-- two branches couples more, and the elimination tree then joins those branches, so L still holds every
-- non-zero. Returns the array and whether it is the bodies' own.
local function solve_parents(tree, fns)
  local n = #tree.bodies
  local couple = {}                 -- couple[k][j] for j > k: M_jk may be non-zero (or k is j's parent)
  for k = 1, n do couple[k] = {} end
  local function link(i, j)
    if i > j then i, j = j, i end
    if i < j then couple[i][j] = true end
  end
  for k, b in ipairs(tree.bodies) do
    if (b.parent or 0) > 0 then link(k, b.parent) end
  end
  for _, f in ipairs(fns) do
    if f.solve then
      for j = 1, n do
        for i = j + 1, n do
          if not E.is_zero(f.exprs[(j - 1) * n + i]) or not E.is_zero(f.exprs[(i - 1) * n + j]) then link(i, j) end
        end
      end
    end
  end
  -- Liu's elimination-tree algorithm, eliminating n first: each j > k coupled to k hangs its current subtree's
  -- root under k. parent[j] ends as the largest i < j with L_ji non-zero.
  local parent = {}
  for k = n - 1, 1, -1 do
    for j = k + 1, n do
      if couple[k][j] then
        local r = j
        while parent[r] and parent[r] ~= k do r = parent[r] end
        if not parent[r] then parent[r] = k end
      end
    end
  end
  -- Every coupling must lie on an ancestor chain, or the solve would drop it.
  for k = 1, n do
    for j in pairs(couple[k]) do
      local r = j
      while r and r ~= k do r = parent[r] end
      assert(r == k, "emit: the solve's parent array misses a non-zero of M")
    end
  end
  local out, own = {}, true
  for k = 1, n do
    out[k] = (parent[k] or 0) - 1
    if (parent[k] or 0) ~= (tree.bodies[k].parent or 0) then own = false end
  end
  return out, own
end

-- An int array's C, wrapped at 20 entries a line.
local function int_array(cname, list)
  local lines, line = {}, {}
  for k, v in ipairs(list) do
    line[#line + 1] = tostring(v)
    if #line == 20 or k == #list then
      lines[#lines + 1] = "    " .. table.concat(line, ", ")
      line = {}
    end
  end
  return string.format("static const int %s[%d] = {\n%s\n};\n", cname, #list, table.concat(lines, ",\n"))
end

-- The parent array's C and the descendants' lists the upward substitution gathers from, before the solve that
-- walks them; a serial chain needs neither.
local function solve_text(name, parents, own)
  local chain = true
  for k, p in ipairs(parents) do if p ~= k - 2 then chain = false end end
  if chain then
    -- Every parent is the coordinate before, M is full, and the walks are plain counts, which the compiler
    -- schedules better than loads from an array.
    return "/* The tree the solve walks is a serial chain: each coordinate's parent is the one before. */\n"
      .. solve_source(name, true)
  end
  local n = #parents
  local desc = {}
  for j = 1, n do desc[j] = {} end
  for i = 1, n do
    local j = parents[i] + 1
    while j > 0 do
      table.insert(desc[j], i - 1)
      j = parents[j] + 1
    end
  end
  local first, flat = { 0 }, {}
  for j = 1, n do
    for _, i in ipairs(desc[j]) do flat[#flat + 1] = i end
    first[#first + 1] = #flat
  end
  if #flat == 0 then flat[1] = -1 end   -- no coordinate has a descendant: a C array needs an entry
  local what = own and "each body's parent (0-based, -1: a child of ground), parents numbered first"
    or "the elimination tree of M (0-based, -1: a root), not the bodies' parents: M\n"
      .. " * couples bodies that are not ancestor and descendant (a massive rod between two branches)"
  return string.format("/* The tree the solve walks: %s. */\n", what) .. int_array(name .. "_parent", parents)
    .. string.format("/* Each coordinate's descendants there: %s_desc[%s_desc_first[j] .. %s_desc_first[j + 1] - 1]. */\n",
      name, name, name)
    .. int_array(name .. "_desc_first", first) .. int_array(name .. "_desc", flat) .. "\n" .. solve_source(name, false)
end

-- A solve function's operations: its right-hand side's (counted: C.count) and those of NAME_solve_ltdl on the
-- parent array (0-based) with m right-hand sides, so that its count (the roadmap's, mb_model.slot_ops) includes
-- the loop.
local function solve_ops(parents, m, counted)
  local one_based = {}
  for k, p in ipairs(parents) do one_based[k] = p + 1 end
  local ops = LTL.loop_ops(one_based, m)
  for key, v in pairs(counted) do ops[key] = (ops[key] or 0) + v end
  return ops
end

-- The columns a solve of m right-hand sides is given: m, or more when zero columns save blocks. Each block of a
-- substitution walks the rows it depends on once, which costs about what 3 more columns of arithmetic cost
-- (solo12's 36, 30 and 32 columns: 26.5k, 31.3k and 22.3k instructions by callgrind).
local BLOCK_COST = 3
local function padded_columns(m)
  local function cost(c)
    local blocks, left = 0, c
    for _, w in ipairs(SOLVE_WIDTHS) do
      blocks = blocks + left // w
      left = left % w
    end
    return BLOCK_COST * blocks + c
  end
  local best = m
  for c = m + 1, m + SOLVE_WIDTHS[1] - 1 do
    if cost(c) < cost(best) then best = c end
  end
  return best
end

-- The right-hand side goes to work (M column-major, then B row by row: the solve's layout), the solve runs
-- there, and X is copied out column-major. Only B's live columns are solved (with the zero columns
-- padded_columns adds); X's other columns are zero. parents: the solve's parent array, for its count.
local function emit_solve_function(name, f, n, parents)
  local rhs = name .. "_rhs"
  local exprs, live = {}, live_columns(f)
  local m = padded_columns(#live)
  for k = 1, n * n do exprs[k] = f.exprs[k] end
  for i = 1, n do
    for _, c in ipairs(live) do exprs[#exprs + 1] = f.exprs[n * n + (c - 1) * n + i] end
    for _ = #live + 1, m do exprs[#exprs + 1] = E.zero end
  end
  local body, info = C.emit_function { name = rhs, exprs = exprs, static = true,
    comment = "M, then the right-hand side row by row, at zdd = forward dynamics" }
  local ops = solve_ops(parents, m, info.ops)
  local model = name:match("^(.-)_forward_dynamics")
  local k = #exprs
  local copy
  if f.cols == 1 then
    copy = m == 1 and string.format("for (int i = 0; i < %d; ++i) out[i] = work[%d + i];", n, n * n)
      or string.format("for (int i = 0; i < %d; ++i) out[i] = 0;", n)
  elseif #live == f.cols then
    copy = string.format("for (int i = 0; i < %d; ++i)\n"
      .. "        for (int c = 0; c < %d; ++c) out[i + c * %d] = work[%d + i * %d + c];", n, f.cols, n, n * n, m)
  else
    -- The zero columns, then each solved one to its place.
    local solved, cols, zero = {}, {}, {}
    for _, c in ipairs(live) do solved[c] = true; cols[#cols + 1] = tostring(c - 1) end
    for c = 1, f.cols do if not solved[c] then zero[#zero + 1] = tostring(c - 1) end end
    copy = string.format("static const int zero[%d] = { %s }, col[%d] = { %s };\n"
      .. "    for (int z = 0; z < %d; ++z)\n"
      .. "        for (int i = 0; i < %d; ++i) out[i + zero[z] * %d] = 0;\n"
      .. "    for (int s = 0; s < %d; ++s)\n"
      .. "        for (int i = 0; i < %d; ++i) out[i + col[s] * %d] = work[%d + i * %d + s];",
      #zero, table.concat(zero, ", "), #live, table.concat(cols, ", "), #zero, n, n, #live, n, n, n * n, m)
  end
  return body .. string.format([[

int %s(const mb_args *a, mb_real *out, mb_real *work)
{
    int rc;
    (void)%s(a, work, work + %d);
    rc = %s_solve_ltdl(%d, work, work + %d, %d);
    if (rc) return rc;
    %s
    return MB_FN_OK;
}
]], name, rhs, k, model, n, n * n, m, copy), k + info.nwork, ops
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

-- Where the data table's values are: folded into every section, or (-DMB_LINKED_DATA) only in section 0.
local DATA_LINKAGE = [[
/* The code reads the data as constants the compiler folds; with -DMB_LINKED_DATA section 0 (-DMB_PART=0) alone
 * holds the values and the other sections read them at run time, so that an edited value recompiles section 0. */
#ifdef MB_LINKED_DATA
#define MB_DATA_HERE MB_SECTION(0)
#define MB_DATA_LINKAGE
#else
#define MB_DATA_HERE 1
#define MB_DATA_LINKAGE static
#endif]]

-- The line that opens the data table's initializer (NAME_data: the model's name, whatever opts.name of M.generate): what
-- M.rewrite_data finds the values after, by its start alone.
local DATA_OPEN = "MB_DATA_LINKAGE const struct "
local function data_open(name)
  return DATA_OPEN .. name .. "_data_table " .. name .. "_data MB_UNUSED = {"
end

-- Bytes of C per section: a vehicle's 5 MB compile in a dozen units, a small model in one.
M.SECTION_BYTES = 400000

-- Consecutive pieces of text (their index lists) in sections of about equal size, at most SECTION_BYTES each.
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

-- The sections' texts: functions whole, but one longer than half a section (in parts, sym.emit_c) may spread its
-- parts over several, so that no unit waits on one long function: its parts then have external linkage and their
-- declarations (and the struct of values that cross them) open a block of every section that holds one.
-- Returns { { texts of section k's functions, whole or in pieces } ... }, the declaration blocks that go before
-- section k, and { { indices of the bodies with text in section k } ... }.
local function sections_of(bodies, pieces)
  local chunks, owner = {}, {}
  for i, text in ipairs(bodies) do
    local ext = pieces[i] and #text > M.SECTION_BYTES / 2 and C.external(pieces[i])
    if ext then
      for _, c in ipairs(ext.chunks) do chunks[#chunks + 1] = c; owner[#chunks] = { i = i, ext = ext } end
    else
      chunks[#chunks + 1] = text
      owner[#chunks] = { i = i }
    end
  end
  local sections = split_sections(chunks)
  local where = {}   -- function index -> list of its sections
  for k, sec in ipairs(sections) do
    for _, c in ipairs(sec) do
      local i = owner[c].i
      where[i] = where[i] or {}
      if where[i][#where[i]] ~= k then where[i][#where[i] + 1] = k end
    end
  end
  local texts, before, done, fns = {}, {}, {}, {}
  for k, sec in ipairs(sections) do
    local t, f = {}, {}
    for _, c in ipairs(sec) do
      local o = owner[c]
      if f[#f] ~= o.i then f[#f + 1] = o.i end
      if not o.ext or #where[o.i] == 1 then
        -- A function in one section, whole (its parts static), in place of its first piece.
        if not done[o.i] then t[#t + 1] = bodies[o.i]; done[o.i] = true end
      else
        if not done[o.i] then
          local conds = {}
          for _, s in ipairs(where[o.i]) do conds[#conds + 1] = "MB_SECTION(" .. s .. ")" end
          before[k] = (before[k] or "") .. "#if " .. table.concat(conds, " || ") .. "\n" .. o.ext.declarations ..
            "#endif\n\n"
          done[o.i] = true
        end
        t[#t + 1] = chunks[c]
      end
    end
    texts[k], fns[k] = t, f
  end
  return texts, before, fns
end

-- One function's line of the roadmap's table: shape, structural non-zeros and operation counts (ops: the
-- emitter's count of the same expressions, when it has printed them).
local function function_stats(name, f, ops)
  local nnz = 0
  if not f.solve then
    for _, e in ipairs(f.exprs) do if not E.is_zero(e) then nnz = nnz + 1 end end
  else
    nnz = f.rows * #live_columns(f)
  end
  return { name = name .. "_" .. f.name, rows = f.rows, cols = f.cols, nnz = nnz, ops = ops or C.count(f.exprs) }
end

-- The stats M.generate returns, without printing any C (what `mbgen info` shows: the emitter's printing is
-- most of generation's time on a vehicle); a solve function's count includes its loop.
-- The row of Matrix R's generated reduction: its d x d factor, the non-zeros of L, the plan's operations.
local function reduction_stats(name, plan)
  return { name = name .. "_matrix_r_reduce", rows = plan.d, cols = plan.d, nnz = plan.l_nnz, ops = plan.ops,
    reduction = plan }
end

-- The row of the dependent blocks' inversion: Phi_z's dependent part (rank x rank), its inverse's non-zeros.
local function dependent_stats(name, plan)
  local nnz = 0
  for _, blk in ipairs(plan.dependent.blocks) do
    for k = 1, blk.n do for l = 1, blk.n do if blk.x[k][l] then nnz = nnz + 1 end end end
  end
  return { name = name .. "_matrix_r_dependent_factor", rows = #plan.dep, cols = #plan.dep, nnz = nnz,
    ops = plan.dependent.ops }
end

local function plan_stats(stats, name, plan)
  if not plan then return end
  stats[#stats + 1] = reduction_stats(name, plan)
  if plan.dependent then stats[#stats + 1] = dependent_stats(name, plan) end
end

function M.stats(tree, spec)
  local stats, parents = {}, solve_parents(tree, spec.functions)
  for _, f in ipairs(spec.functions) do
    local ops = f.solve and solve_ops(parents, padded_columns(#live_columns(f)), C.count(f.exprs))
    stats[#stats + 1] = function_stats(spec.name, f, ops)
  end
  plan_stats(stats, spec.name, spec.reduction)
  return stats
end

-- Prints a spec (dynamics/functions.lua) of the tree's model: returns files = { ["NAME.c"] = text,
-- ["NAME.h"] = text } and per-function stats. source_text: the model file's text, whose hash the header
-- records. The tree gives the model table's names, sizes and defaults. opts.csc: also the compressed-column
-- form NAME_FN_csc of every matrix function (true) or of those named (a set of slot names), not of the
-- forward-dynamics derivatives that solve by the loop. opts.name: the files' names and the C identifiers' prefix in place
-- of the model's name (mbgen check links a real build of the derivatives with a complex one of the functions).
function M.generate(tree, spec, source_text, opts)
  local name = opts and opts.name or tree.name
  local n = #tree.bodies
  local fns, byname, objectives = spec.functions, spec.byname, spec.objectives

  -- bodies_c: the C of each emitted function (a compressed-column form is one of its own, so that the sections can
  -- split either), pieces its parts (sym.emit_c), body_fn the index in fns of the function it belongs to.
  local stats, bodies_c, pieces, body_fn, csc = {}, {}, {}, {}, {}
  local parents, own_parents = solve_parents(tree, fns)
  for k, f in ipairs(fns) do
    local cname = name .. "_" .. f.name
    local text, nwork, ops
    if f.solve then
      text, nwork, ops = emit_solve_function(cname, f, n, parents)
    else
      local info
      text, info = C.emit_function { name = cname, exprs = f.exprs, comment = f.name, pivots = f.pivots }
      nwork, ops = info.nwork, info.ops
      pieces[#bodies_c + 1] = info.pieces
      -- The compressed-column form, asked for (opts.csc): the same expressions, only the structural non-zeros
      -- written, in the pattern's order (a solve's output is dense: it has none).
      local want = opts and opts.csc
      if f.matrix and (want == true or type(want) == "table" and want[f.name]) then
        local ctext, cinfo = C.emit_function { name = cname .. "_csc", exprs = f.exprs, compact = true,
          comment = f.name .. ", the structural non-zeros in compressed-column order" }
        body_fn[#bodies_c + 1] = k
        bodies_c[#bodies_c + 1] = text
        text = ctext
        pieces[#bodies_c + 1] = cinfo.pieces
        if cinfo.nwork > nwork then nwork = cinfo.nwork end
        csc[f.name] = true
      end
    end
    f.nwork = nwork
    body_fn[#bodies_c + 1] = k
    bodies_c[#bodies_c + 1] = text
    local st = function_stats(name, f, ops)
    st.nwork = nwork
    stats[#stats + 1] = st
  end

  plan_stats(stats, name, spec.reduction)
  local sections, declarations, section_fns = sections_of(bodies_c, pieces)

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
  if spec.reduction then
    H[#H + 1] = string.format("int %s_matrix_r_reduce(const mb_real *M, const mb_real *Q, const mb_real *x, const mb_real *R,\n"
      .. "    mb_real *L, mb_real *zdd);", name)
    if spec.reduction.dependent then
      H[#H + 1] = string.format("int %s_matrix_r_dependent_factor(const mb_real *J, mb_real *X, mb_real *fig);", name)
      H[#H + 1] = string.format("void %s_matrix_r_dependent_rhs(const mb_real *J, const mb_real *v, const mb_real *y, "
        .. "mb_real *b);", name)
      H[#H + 1] = string.format("void %s_matrix_r_dependent_solve(const mb_real *X, const mb_real *b, mb_real *x);", name)
      H[#H + 1] = string.format("void %s_matrix_r_dependent_R(const mb_real *X, const mb_real *J, mb_real *R);", name)
    end
  end
  H[#H + 1] = ""
  H[#H + 1] = "/* The largest workspace of any function above, in mb_reals. */"
  H[#H + 1] = string.format("#define %s_NWORK %d", name, maxwork)
  H[#H + 1] = string.format("/* %s.c compiles whole, or section by section with -DMB_PART=1..%s_NSECTIONS%s */", name, name,
    #spec.data > 0 and "\n * (and -DMB_PART=0, the data table's values, when built with -DMB_LINKED_DATA)." or ".")
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
    L[#L + 1] = DATA_LINKAGE
    L[#L + 1] = "/* The model's data kept by name: a changed value changes its line here and not the code. */"
    L[#L + 1] = "struct " .. tree.name .. "_data_table {"
    for _, e in ipairs(data) do L[#L + 1] = "    mb_real " .. e.member .. ";" end
    L[#L + 1] = "};"
    L[#L + 1] = "#if MB_DATA_HERE"
    L[#L + 1] = data_open(tree.name)
    for _, e in ipairs(data) do L[#L + 1] = string.format("    .%s = %s,", e.member, C.literal(e.value)) end
    L[#L + 1] = "};"
    L[#L + 1] = "#else"
    L[#L + 1] = "extern const struct " .. tree.name .. "_data_table " .. tree.name .. "_data;"
    L[#L + 1] = "#endif"
    L[#L + 1] = ""
  end
  local solve_in = {}
  for k, list in ipairs(section_fns) do
    for _, i in ipairs(list) do
      if fns[body_fn[i]].solve then solve_in[#solve_in + 1] = "MB_SECTION(" .. k .. ")"; break end
    end
  end
  if #solve_in > 0 then
    L[#L + 1] = "#if " .. table.concat(solve_in, " || ")
    L[#L + 1] = solve_text(name, parents, own_parents)
    L[#L + 1] = "#endif"
    L[#L + 1] = ""
  end
  for k, texts in ipairs(sections) do
    if declarations[k] then L[#L + 1] = declarations[k] end
    L[#L + 1] = string.format("#if MB_SECTION(%d)", k)
    L[#L + 1] = ""
    for _, text in ipairs(texts) do L[#L + 1] = text end
    L[#L + 1] = string.format("#endif /* section %d */", k)
    L[#L + 1] = ""
  end

  -- Model table.
  local T = {}
  local cnames = {}
  for _, c in ipairs(tree.constraints or {}) do
    local k = c.equations or 0
    for e = 1, k do cnames[#cnames + 1] = k == 1 and c.name or (c.name .. "." .. e) end
  end
  local reduction_ref
  if spec.reduction then
    local text, blocks_ref
    if spec.reduction.dependent then
      text, blocks_ref = DEP.text(name, spec.reduction, cnames)
      T[#T + 1] = text
    end
    text, reduction_ref = RED.text(name, spec.reduction, blocks_ref)
    T[#T + 1] = text
  end
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
    local h = spec.initial_h or { z = {}, zd = {} }
    z0[k] = (tree.initial or {})[k] or h.z[k] or 0
    zd0[k] = (tree.initial_velocity or {})[k] or h.zd[k] or 0
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
    c_names = names_array(T, name .. "_c_names", cnames),
  }
  local slots = SL.load()
  local patterns = {}
  for _, sl in ipairs(slots) do
    local slot = sl.name
    local f = sl.matrix and byname[slot]
    if f then
      local colptr, rowind = pattern(f)
      local base = name .. "_" .. slot .. "_pattern"
      TX.pattern_table(T, base, f.rows, f.cols, colptr, rowind)
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

  -- Each slot's operation count, for the runtime's choice between routes (mb_model.slot_ops).
  local ops_of = {}
  for _, st in ipairs(stats) do
    ops_of[st.name] = (st.ops.add or 0) + (st.ops.mul or 0) + (st.ops.div or 0) + (st.ops.call or 0)
  end
  local slot_ops = {}
  for i, sl in ipairs(slots) do slot_ops[i] = byname[sl.name] and ops_of[name .. "_" .. sl.name] or 0 end
  local rows = {}
  for i = 1, #slot_ops, 10 do rows[#rows + 1] = "    " .. table.concat(slot_ops, ", ", i, math.min(i + 9, #slot_ops)) end
  T[#T + 1] = string.format("static const long %s_slot_ops[%d] = {\n%s\n};", name, #slots, table.concat(rows, ",\n"))
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
  T[#T + 1] = string.format("    .slot_ops = %s_slot_ops,", name)
  if #cnames > 0 then T[#T + 1] = string.format("    .c_names = %s,", refs.c_names) end
  if tree.rod_inertia then
    T[#T + 1] = string.format('    .rod_mode = "%s", .rod_partitioned = %d,', tree.rod_inertia.mode,
      tree.rod_inertia.partitioned and 1 or 0)
  end
  if reduction_ref then T[#T + 1] = string.format("    .matrix_r = %s,", reduction_ref) end
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

-- NAME.c's text c with each line `    .MEMBER = VALUE,` of the data table replaced by f(member) when that returns a
-- string (the new VALUE); the rest as it is. The one reader of the table's layout besides M.generate.
function M.rewrite_data(c, f)
  local a = c:find("\n" .. DATA_OPEN, 1, true)
  local b = a and c:find("\n};\n", a, true)
  if not b then return c end
  local block = c:sub(a, b):gsub("\n    %.([%w_]+) = [^\n]*,", function(member)
    local v = f(member)
    if v then return "\n    ." .. member .. " = " .. v .. "," end
  end)
  return c:sub(1, a - 1) .. block .. c:sub(b + 1)
end

-- The C name of NAME.c's data table (NAME_data), or nil when it has none (and so no section 0 when built with
-- -DMB_LINKED_DATA).
function M.data_name(c)
  return c:match("\n" .. DATA_OPEN .. "[%w_]+ ([%w_]+) MB_UNUSED = {")
end

-- The files M.generate printed for a tree, made those it prints for another tree of the same fingerprint
-- (run/fingerprint.lua): the same code, new values of the data table's members in `values` (member -> number,
-- dynamics/data.lua's bind) and the model file's hash in the header. Returns a new files table.
function M.patch_data(files, name, values, source_text)
  local out = {}
  for k, v in pairs(files) do out[k] = v end
  local c = files[name .. ".c"]:gsub("^(/%* [^\n]-%(fnv1a )%x+%)",
    function(head) return head .. fnv1a(source_text or "") .. ")" end, 1)
  out[name .. ".c"] = M.rewrite_data(c, function(member) return values[member] and C.literal(values[member]) end)
  return out
end

-- Constraint equations of the loops, rods and drives (their C comes with the closed-loop formulation).
function M.constraint_count(tree)
  local nc = 0
  for _, c in ipairs(tree.constraints or {}) do nc = nc + (c.equations or 0) end
  return nc
end

return M
