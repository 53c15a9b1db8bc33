-- sym/emit_c.lua: prints a list of expressions as one C99 function `int name(const mb_args *a, mb_real *out, mb_real *work)`.
local E = require "sym.expr"

local C = {}

local concat, sort = table.concat, table.sort

local ADD, MUL, UNARY, ATOM = 1, 2, 3, 4

local CALL = {
  sin = "MB_SIN", cos = "MB_COS", tan = "MB_TAN", sqrt = "MB_SQRT", exp = "MB_EXP", log = "MB_LOG",
  abs = "MB_ABS", tanh = "MB_TANH", atan2 = "MB_ATAN2", min = "MB_MIN", max = "MB_MAX", select = "MB_SELECT",
}

-- An inlined expression longer than this (in operations) gets its own temporary: it keeps statements
-- readable and stops a tree-shaped DAG from collapsing into one enormous expression.
local INLINE_MAX = 24

-- A C double literal that reads back as exactly v: the shortest of %.15g..%.17g that round-trips, with
-- a ".0" where it would otherwise read as an integer.
local function literal(v)
  if v ~= v then return "(0.0 / 0.0)" end
  if v == math.huge then return "(1.0 / 0.0)" end
  if v == -math.huge then return "(-1.0 / 0.0)" end
  local s
  for p = 15, 17 do
    s = string.format("%." .. p .. "g", v)
    if tonumber(s) == v then break end
  end
  if not s:find("[.eE]") then s = s .. ".0" end
  return s
end
C.literal = literal

local function leaf_text(n)
  if n.op == "const" then return literal(n.value) end
  if n.op == "data" then return n.text end
  if n.array == "t" then return "a->t" end
  return "a->" .. n.array .. "[" .. n.index .. "]"
end

local function lifted(exprs)
  local roots = {}
  for i = 1, #exprs do roots[i] = E.lift(exprs[i]) end
  return roots
end

-- Uses of each node: one per argument slot of a user and one per output written; a power's base counts
-- |k| times because it is printed as a product.
local function count_uses(order, roots, sparse)
  local uses = {}
  for k = 1, #order do
    local n = order[k]
    local args = n.args
    if args then
      if n.op == "pow" then
        local b = args[1]
        uses[b] = (uses[b] or 0) + math.abs(n.k)
      else
        for i = 1, #args do uses[args[i]] = (uses[args[i]] or 0) + 1 end
      end
    end
  end
  for i = 1, #roots do
    local r = roots[i]
    if not (sparse and r == E.zero) then uses[r] = (uses[r] or 0) + 1 end
  end
  return uses
end

-- -(k*x) with k constant (model data) prints as -k*x: the sign folds into the constant.
local function signed_product(n)
  local x = n.args[1]
  return x.op == "mul" and x.args[1].mask == 0
end

-- Operands of a sum or product once the compiler has folded its constant ones (sorted first: sym.expr) into one.
local function folded_arity(n)
  local k, const = 0, false
  for _, x in ipairs(n.args) do
    if x.mask == 0 then const = true else k = k + 1 end
  end
  return k + (const and 1 or 0)
end

-- Operation counts of the distinct nodes of exprs, as the emitter prints them (an expression of constants and
-- model data costs nothing: the compiler folds it): an n-ary sum is n - 1
-- additions (subtractions included), a negation is one addition unless it prints as a subtraction
-- inside a sum, x^k is |k| - 1 multiplications (and one division when k < 0), and every MB_* macro is a
-- function call. count_order takes the nodes in post-order (E.topo) and their uses (count_uses).
local function count_order(order, uses)
  local in_sum = {}
  for k = 1, #order do
    local n = order[k]
    if n.op == "add" then
      for i = 2, #n.args do
        local x = n.args[i]
        if x.op == "neg" then in_sum[x] = (in_sum[x] or 0) + 1 end
      end
    end
  end
  local c = { add = 0, mul = 0, div = 0, call = 0 }
  for k = 1, #order do
    local n = order[k]
    local op = n.op
    if n.mask == 0 then -- of model data only: the compiler folds it
    elseif op == "add" then c.add = c.add + folded_arity(n) - 1
    elseif op == "mul" then c.mul = c.mul + folded_arity(n) - 1
    elseif op == "div" then c.div = c.div + 1
    elseif op == "neg" then
      if not (uses[n] == 1 and in_sum[n] == 1) and not signed_product(n) then c.add = c.add + 1 end
    elseif op == "pow" then
      c.mul = c.mul + math.abs(n.k) - 1
      if n.k < 0 then c.div = c.div + 1 end
    elseif CALL[op] then c.call = c.call + 1 end
  end
  return c
end

-- The counts of exprs.
function C.count(exprs)
  local roots = lifted(exprs)
  local order = E.topo(roots)
  return count_order(order, count_uses(order, roots, false))
end

-- Statements: { node = n, frags = {...}, uses_a = bool } defines a temporary, { out = i, ... } writes
-- out[i]. frags are strings and temporary nodes, named only once the split into parts is known.
-- pivots (optional): expressions checked after the outputs, each one statement { check = true } (see emit_function).
local function schedule(roots, sparse, compact, pivots)
  local nout = 0
  local nroots = #roots
  if pivots and #pivots > 0 then
    local all = {}
    for i = 1, nroots do all[i] = roots[i] end
    for _, p in ipairs(pivots) do all[#all + 1] = p end
    roots = all
  end
  -- Each root's new nodes (E.topo with one `seen`: their concatenation is the post-order of all roots), so the walk
  -- below takes a root's segment without traversing the graph again.
  local segs, order, has_labels = {}, {}, false
  do
    local seen = {}
    for i = 1, #roots do
      local seg = E.topo({ roots[i] }, seen)
      segs[i] = seg
      for k = 1, #seg do
        local n = seg[k]
        order[#order + 1] = n
        if n.op == "label" then has_labels = true end
      end
    end
  end
  local uses = count_uses(order, roots, sparse)

  -- sin and cos of one argument, so the second is computed right after the first.
  local trig = {}
  for k = 1, #order do
    local n = order[k]
    if n.op == "sin" or n.op == "cos" then
      local x = n.args[1]
      local t = trig[x] or {}
      t[n.op] = n
      trig[x] = t
    end
  end

  local stmts = {}
  local is_temp, inl, inl_prec, inl_cost, inl_a = {}, {}, {}, {}, {}
  local done = {}

  -- Appends the text of x, in a context that needs precedence at least `need`, to list f; returns
  -- whether it reads a.
  local function ref(x, need, f)
    local op = x.op
    if op == "const" then
      local s = literal(x.value)
      if x.value < 0 and need > UNARY then s = "(" .. s .. ")" end
      f[#f + 1] = s
      return false
    elseif op == "sym" then
      f[#f + 1] = leaf_text(x)
      return true
    elseif op == "data" then
      f[#f + 1] = x.text
      return false
    elseif is_temp[x] then
      f[#f + 1] = x
      return false
    end
    local g = inl[x]
    local paren = inl_prec[x] < need
    if paren then f[#f + 1] = "(" end
    table.move(g, 1, #g, #f + 1, f)
    if paren then f[#f + 1] = ")" end
    return inl_a[x]
  end

  -- Model data alone costs nothing: the compiler folds it as it folds a literal.
  local function cost(x)
    if not x.args or is_temp[x] or x.mask == 0 then return 0 end
    return inl_cost[x]
  end

  local function build(n)
    local op, a = n.op, n.args
    local f, ua, prec = {}, false, ATOM
    local c = 1
    if op == "add" then
      prec = ADD
      ua = ref(a[1], ADD, f)
      c = c + cost(a[1])
      for i = 2, #a do
        local x = a[i]
        if x.op == "neg" and not is_temp[x] then
          f[#f + 1] = " - "
          local inner = x.args[1]
          ua = ref(inner, MUL, f) or ua
          c = c + cost(inner)
        elseif x.op == "const" and x.value < 0 then
          f[#f + 1] = " - " .. literal(-x.value)
        elseif x.op == "mul" and not is_temp[x] and x.args[1].op == "const" and x.args[1].value < 0 then
          -- a + (-c)*y is a - c*y to the last bit: negation is exact.
          local xa = x.args
          f[#f + 1] = " - " .. literal(-xa[1].value)
          for j = 2, #xa do
            f[#f + 1] = "*"
            ua = ref(xa[j], ATOM, f) or ua
          end
          c = c + cost(x)
        else
          f[#f + 1] = " + "
          ua = ref(x, MUL, f) or ua
          c = c + cost(x)
        end
      end
    elseif op == "mul" then
      prec = MUL
      ua = ref(a[1], MUL, f)
      c = c + cost(a[1])
      for i = 2, #a do
        f[#f + 1] = "*"
        ua = ref(a[i], ATOM, f) or ua
        c = c + cost(a[i])
      end
    elseif op == "div" then
      prec = MUL
      ua = ref(a[1], MUL, f)
      f[#f + 1] = "/"
      ua = ref(a[2], ATOM, f) or ua
      c = c + cost(a[1]) + cost(a[2])
    elseif op == "neg" then
      prec = UNARY
      f[1] = "-"
      if signed_product(n) and not is_temp[a[1]] and inl[a[1]] then
        prec = MUL
        ua = ref(a[1], MUL, f)
      else
        ua = ref(a[1], ATOM, f)
      end
      c = cost(a[1]) -- free: folds into a subtraction or a sign
    elseif op == "pow" then
      local k = n.k
      local base = {}
      ua = ref(a[1], ATOM, base)
      local prod = {}
      for i = 1, math.abs(k) do
        if i > 1 then prod[#prod + 1] = "*" end
        for j = 1, #base do prod[#prod + 1] = base[j] end
      end
      prec = MUL
      if k < 0 then
        f[1] = "1.0/"
        if -k > 1 then f[2] = "(" end
        for j = 1, #prod do f[#f + 1] = prod[j] end
        if -k > 1 then f[#f + 1] = ")" end
      else
        f = prod
      end
    elseif op == "label" then
      ua = ref(a[1], 0, f)
      c = cost(a[1])
    else
      f[1] = CALL[op] .. "("
      for i = 1, #a do
        if i > 1 then f[#f + 1] = ", " end
        ua = ref(a[i], 0, f) or ua
      end
      f[#f + 1] = ")"
    end
    return f, ua, prec, c
  end

  local function define(n)
    local f, ua, _, c = build(n)
    is_temp[n] = true
    done[n] = true
    stmts[#stmts + 1] = { node = n, frags = f, uses_a = ua, cost = c }
  end

  -- Statements for the nodes of seg (post-order) not yet taken.
  local function take(seg)
    for k = 1, #seg do
      local n = seg[k]
      if n.args and not done[n] then
        local op = n.op
        if op == "sin" or op == "cos" then
          local pair = trig[n.args[1]]
          if pair.sin then define(pair.sin) end
          if pair.cos then define(pair.cos) end
        elseif CALL[op] or op == "label" or (uses[n] or 0) > 1 then
          define(n)
        else
          local f, ua, prec, c = build(n)
          if op ~= "neg" and c > INLINE_MAX then
            is_temp[n] = true
            stmts[#stmts + 1] = { node = n, frags = f, uses_a = ua, cost = c }
          else
            inl[n], inl_prec[n], inl_cost[n], inl_a[n] = f, prec, c, ua
          end
          done[n] = true
        end
      end
    end
  end

  -- The labels an output reaches first are taken in the order they were made (a node is made after its
  -- arguments, so this is an order of definition), each with the unlabelled work that only it has reached so
  -- far: the statements of one label stay together and in place when an edit reorders the operands of another,
  -- where walking from the output would follow the changed operand order into everything reached through it.
  -- seen: the nodes of the roots taken so far, kept only where a label needs it to walk again.
  local seen = {}
  local function take_root(r, seg)
    -- The sines and cosines of the inputs an output reaches first, before any other of its work: every double is
    -- caller-saved across a call, so a value computed before one is spilled and reloaded.
    local trig_in = {}
    for k = 1, #seg do
      local n = seg[k]
      if (n.op == "sin" or n.op == "cos") and n.args[1].op == "sym" then trig_in[#trig_in + 1] = n end
    end
    take(trig_in)
    local labels = {}
    for k = 1, #seg do
      if seg[k].op == "label" then labels[#labels + 1] = seg[k] end
    end
    if #labels > 0 then
      sort(labels, function(x, y) return x.id < y.id end)
      for _, l in ipairs(labels) do take(E.topo({ l }, seen)) end
      take(E.topo({ r }, seen))
    else
      take(seg)
      if has_labels then
        for k = 1, #seg do seen[seg[k]] = true end
      end
    end
  end
  for i = 1, #roots do
    local r = roots[i]
    take_root(r, segs[i])
    if i > nroots then
      local f = {}
      local ua = ref(r, 0, f)
      stmts[#stmts + 1] = { check = true, frags = f, uses_a = ua, cost = 0 }
    elseif not (sparse and r == E.zero) then
      local f = {}
      local ua = ref(r, 0, f)
      stmts[#stmts + 1] = { out = i - 1, frags = f, uses_a = ua, cost = cost(r) }
      nout = nout + 1
      -- Outputs are written in index order, so the k-th one written is the k-th structural non-zero of a
      -- column-major matrix: its place in the compressed-column values.
      if compact then stmts[#stmts].out = nout - 1 end
    end
  end
  return stmts, order, uses
end

local function sanitize(s) return (tostring(s):gsub("%*/", "* /")) end

-- opts: name, exprs (flat list, column-major for matrices), sparse (write only the structural non-zeros),
-- compact (write them to out[0 .. nnz-1] in index order: a matrix's compressed-column values), pivots (expressions
-- that must be positive and finite, MB_PIVOT_OK, checked after the outputs are written: the function returns
-- MB_FN_SINGULAR at the first that is not),
-- comment, static (a file-local function), max_statements (default 4000) and max_operations (default 2000):
-- past either, the body is split into static helpers run in order, values that cross helpers living in the
-- caller's workspace work[] (as the members of a struct). Returns the text and { nwork = mb_reals of work it
-- needs, nparts =, ops = C.count of what it writes }.
function C.emit_function(opts)
  local name = assert(opts.name, "sym.emit_c: name is required")
  local roots = lifted(assert(opts.exprs, "sym.emit_c: exprs is required"))
  local compact = opts.compact and true or false
  local sparse = (opts.sparse or compact) and true or false
  local max = opts.max_statements or 4000
  local max_ops = opts.max_operations or 2000
  local pivots = opts.pivots and lifted(opts.pivots)
  local stmts, nodes, node_uses = schedule(roots, sparse, compact, pivots)

  -- Parts close at max statements or max_ops operations, whichever comes first: gcc's time per operation
  -- grows with the size of a function (design/FACTS.md), so the operation budget sets the compile time.
  -- Past three quarters of either, a part closes after a statement that its content marks (one in eight, by
  -- its node's shape or its output's index): an edit that adds a few statements then moves the boundaries of its
  -- own part at most, where counting alone would shift every later one and turn values into work[] members.
  local function marks_boundary(st)
    local key = st.node and st.node.s or (st.out or -1) * 2654435761
    return (key >> 20) & 7 == 0
  end
  -- A temporary of model data alone is not counted: it is written where it is read, and folded there.
  local function counted(st) return not (st.node and st.node.mask == 0) end
  -- A part that can hold the rest of the function does not close early: a function within the budget stays whole.
  local rest_ops, rest_stmts = { [#stmts + 1] = 0 }, { [#stmts + 1] = 0 }
  for s = #stmts, 1, -1 do
    local st = stmts[s]
    rest_ops[s] = rest_ops[s + 1] + (counted(st) and (st.cost or 1) or 0)
    rest_stmts[s] = rest_stmts[s + 1] + (counted(st) and 1 or 0)
  end
  -- Nor between the sine and the cosine of one argument, which gcc takes from one sincos only within a function.
  local function pairs_with_previous(s)
    local n, m = stmts[s].node, s > 1 and stmts[s - 1].node
    return n and m and n.op == "cos" and m.op == "sin" and n.args[1] == m.args[1]
  end
  local nparts, in_part, ops_in_part = 1, 0, 0
  for s = 1, #stmts do
    local st = stmts[s]
    if counted(st) then
      local c = st.cost or 1
      local late = in_part >= 0.75 * max or ops_in_part >= 0.75 * max_ops
      local rest_fits = in_part + rest_stmts[s] <= max and ops_in_part + rest_ops[s] <= max_ops
      if in_part > 0 and not rest_fits and not pairs_with_previous(s) and (in_part + 1 > max
          or ops_in_part + c > max_ops or late and marks_boundary(stmts[s - 1])) then
        nparts, in_part, ops_in_part = nparts + 1, 0, 0
      end
      in_part, ops_in_part = in_part + 1, ops_in_part + c
    end
    st.part = nparts
  end
  local split = nparts > 1
  local part_of = {} -- node -> part where it is defined
  local cross = {}   -- node -> true when a later part reads it
  local ncross = 0
  for s = 1, #stmts do
    local st = stmts[s]
    for _, x in ipairs(st.frags) do
      if type(x) == "table" and part_of[x] ~= st.part and not cross[x] and x.mask ~= 0 then
        cross[x] = true
        ncross = ncross + 1
      end
    end
    if st.node then part_of[st.node] = st.part end
  end
  -- A temporary of model data alone (mask 0) is defined at the head of each part that reads it, rather than kept
  -- in work[] for later parts: the compiler folds it in each part as it folds a literal.
  local again = {}   -- part -> list of statements defining such temporaries, in their order
  do
    local def_of = {}
    for s = 1, #stmts do
      local n = stmts[s].node
      if n and n.mask == 0 then def_of[n] = s end
    end
    local wanted = {}  -- part -> set of statement indices
    local function want(p, x)
      local s = def_of[x]
      if not s or wanted[p][s] then return end
      wanted[p][s] = true
      for _, y in ipairs(stmts[s].frags) do
        if type(y) == "table" then want(p, y) end
      end
    end
    for p = 1, nparts do wanted[p] = {} end
    for s = 1, #stmts do
      local n = stmts[s].node
      if not (n and n.mask == 0) then
        for _, x in ipairs(stmts[s].frags) do
          if type(x) == "table" and x.mask == 0 then want(stmts[s].part, x) end
        end
      end
    end
    for p = 1, nparts do
      local list = {}
      for s in pairs(wanted[p]) do list[#list + 1] = s end
      table.sort(list)
      again[p] = list
    end
  end
  -- A temporary is named by its label (sym.expr's E.label: its provenance, `zdd_neck`) or else by its expression's
  -- shape (sym.expr's value-free hash, which stops at labels), not by a counter: an edit elsewhere in the model,
  -- or another number, leaves its name alone, so a diff of the generated C shows only the statements that
  -- changed. Names that meet in one function take _2, _3 in statement order.
  -- A value that crosses parts is a member of the function's struct NAME_keep laid over work[] (k->NAME),
  -- in order of definition: an added one is one more member, where an index would renumber all after it.
  local names, taken, members = {}, {}, {}
  local function name_of(n)
    local nm = names[n]
    if nm then return nm end
    local x = n.args[1]
    if (n.op == "sin" or n.op == "cos") and x.op == "sym" and x.array == "z" then
      nm = (n.op == "sin" and "s" or "c") .. x.index
    else
      nm = n.op == "label" and n.text:gsub("[^%w_]", "_") or string.format("t%06x", n.s & 0xffffff)
      local k = taken[nm]
      taken[nm] = (k or 1) + 1
      if k then nm = nm .. "_" .. (k + 1) end
    end
    if cross[n] then nm = "k->" .. nm end
    names[n] = nm
    return nm
  end
  -- Names in order of definition, so the _2 of a shape does not depend on where parts begin.
  for s = 1, #stmts do
    local n = stmts[s].node
    if n then
      local nm = name_of(n)
      if cross[n] then members[#members + 1] = nm:sub(#"k->" + 1) end
    end
  end
  local keep_type = "struct " .. name .. "_keep"

  local bodies, uses = {}, {}
  for p = 1, nparts do bodies[p], uses[p] = {}, { a = false, out = false, work = false } end
  -- The statements of part p in order: the temporaries of model data it reads, then the others.
  local order, current = {}, nil
  for s = 1, #stmts do
    local p = stmts[s].part
    if p ~= current then
      current = p
      for _, d in ipairs(again[p]) do order[#order + 1] = { s = d, p = p } end
    end
    local n = stmts[s].node
    if not (n and n.mask == 0) then order[#order + 1] = { s = s, p = p } end
  end
  -- A sine or cosine of an input that later parts read is a local in its own part, stored to work[] after its
  -- pair: a store through k may alias a->z, so between the two calls gcc would reload the argument and no longer
  -- take both from one sincos.
  local function stored_late(n)
    return cross[n] and (n.op == "sin" or n.op == "cos") and n.args[1].op == "sym"
  end
  local function local_name(n) return (name_of(n):gsub("^k%->", "")) end
  local late, late_part = {}, nil
  local function store_late()
    for _, n in ipairs(late) do
      local b = bodies[late_part]
      b[#b + 1] = "    " .. name_of(n) .. " = " .. local_name(n) .. ";"
    end
    late = {}
  end
  for _, o in ipairs(order) do
    local st = stmts[o.s]
    local p = o.p
    local u = uses[p]
    if #late > 0 and not (st.node and stored_late(st.node) and p == late_part) then store_late() end
    local text = {}
    for _, x in ipairs(st.frags) do
      if type(x) == "table" then
        if stored_late(x) and part_of[x] == p then
          text[#text + 1] = local_name(x)
        else
          if cross[x] then u.work = true end
          text[#text + 1] = name_of(x)
        end
      else
        text[#text + 1] = x
      end
    end
    if st.uses_a then u.a = true end
    local rhs = concat(text)
    local line
    if st.check then
      u.check = true
      line = "    if (!MB_PIVOT_OK(" .. rhs .. ")) return MB_FN_SINGULAR;"
    elseif st.node then
      local nm = name_of(st.node)
      if stored_late(st.node) then
        u.work = true
        late[#late + 1], late_part = st.node, p
        line = "    const mb_real " .. local_name(st.node) .. " = " .. rhs .. ";"
      elseif cross[st.node] then
        u.work = true
        line = "    " .. nm .. " = " .. rhs .. ";"
      else
        line = "    const mb_real " .. nm .. " = " .. rhs .. ";"
      end
    else
      u.out = true
      line = "    out[" .. st.out .. "] = " .. rhs .. ";"
    end
    local b = bodies[p]
    b[#b + 1] = line
  end
  store_late()

  -- The schedule's nodes are those of the outputs, but pivots add theirs (and uses): those are counted apart.
  local cnt = pivots and #pivots > 0 and C.count(roots) or count_order(nodes, node_uses)
  local written = 0
  for i = 1, #roots do if not (sparse and roots[i] == E.zero) then written = written + 1 end end

  -- The text in pieces: the comment, the struct of values that cross parts, the parts and the function itself, so
  -- that a file compiled in sections can put the parts of a long function in several (C.external).
  local out = {}
  local function w(s) out[#out + 1] = s end
  local function voids(u, names_)
    for _, nm in ipairs(names_) do
      if not u[nm] then w("    (void)" .. nm .. ";") end
    end
  end
  local function take()
    local t = #out > 0 and (concat(out, "\n") .. "\n") or ""
    out = {}
    return t
  end
  local pieces = { parts = {} }
  w("/* " .. name .. (opts.comment and (": " .. sanitize(opts.comment)) or ""))
  w(string.format(" * %d outputs%s, %d written%s", #roots, compact and " (compressed: the non-zeros in order)"
    or sparse and " (sparse)" or "", written,
    split and string.format(", in %d parts", nparts) or ""))
  w(string.format(" * %d additions, %d multiplications, %d divisions, %d function calls */",
    cnt.add, cnt.mul, cnt.div, cnt.call))
  pieces.head = take()
  local storage = opts.static and "static int " or "int "
  if ncross > 0 then
    w(keep_type .. " {")
    for _, m in ipairs(members) do w("    mb_real " .. m .. ";") end
    w("};")
    w("")
  end
  pieces.keep = take()
  -- A part that checks pivots returns the status (the checks come last, so only the last part can).
  if split then
    for p = 1, nparts do
      local signature = string.format("%s %s_part%d(const mb_args *a, mb_real *out, mb_real *work)",
        uses[p].check and "int" or "void", name, p)
      w("{")
      voids(uses[p], { "a", "out", "work" })
      if uses[p].work then w("    " .. keep_type .. " *const k = (" .. keep_type .. " *)work;") end
      for _, line in ipairs(bodies[p]) do w(line) end
      if uses[p].check then w("    return MB_FN_OK;") end
      w("}")
      w("")
      pieces.parts[p] = { signature = signature, body = take() }
    end
  end
  w(storage .. name .. "(const mb_args *a, mb_real *out, mb_real *work)")
  w("{")
  if split then
    if ncross == 0 then w("    (void)work;") end
    for p = 1, nparts do
      if uses[p].check then
        w(string.format("    if (%s_part%d(a, out, work)) return MB_FN_SINGULAR;", name, p))
      else
        w(string.format("    %s_part%d(a, out, work);", name, p))
      end
    end
  else
    voids(uses[1], { "a", "out" })
    w("    (void)work;")
    for _, line in ipairs(bodies[1]) do w(line) end
  end
  w("    return MB_FN_OK;")
  w("}")
  pieces.main = take()
  local text = { pieces.head, pieces.keep }
  for _, part in ipairs(pieces.parts) do text[#text + 1] = "static " .. part.signature .. "\n" .. part.body end
  text[#text + 1] = pieces.main
  return concat(text), { nwork = ncross, nparts = nparts, ops = cnt, pieces = pieces }
end

-- A split function (emit_function's info.pieces) whose parts may be compiled apart from each other and from the
-- function: { declarations = the struct of crossing values and the parts' prototypes, which every piece's unit
-- needs; chunks = the comment with the first part, each other part, the function }, the parts of external linkage.
-- nil for a function in one piece.
function C.external(pieces)
  if #pieces.parts < 2 then return nil end
  local decl = { pieces.keep }
  for _, part in ipairs(pieces.parts) do decl[#decl + 1] = part.signature .. ";\n" end
  local chunks = {}
  for p, part in ipairs(pieces.parts) do
    chunks[p] = (p == 1 and pieces.head or "") .. part.signature .. "\n" .. part.body
  end
  chunks[#chunks + 1] = pieces.main
  return { declarations = concat(decl), chunks = chunks }
end

return C
