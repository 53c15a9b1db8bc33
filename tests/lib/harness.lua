-- harness.lua: shared plumbing of the end-to-end tests: paths, loading and generating models, compiling C.
local H = {}

H.root = (arg and arg[0] and arg[0]:match("^(.-)tests/[^/]*$")) or "./"
if H.root == "" then H.root = "./" end
package.path = H.root .. "tests/?.lua;" .. H.root .. "tests/lib/?.lua;" .. H.root .. "generator/?.lua;" .. package.path

-- -O0: these builds check values, and gcc at -O1 spends minutes on the unrolled Jacobians of a 24-chain.
H.CFLAGS = "-std=c99 -O0 -Wall -Wextra -Werror"
-- What links with build/libmbrt.a (generator/run/build.lua).
H.LIBS = require("run.build").LIBS

function H.sh(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  local ok, _, code = p:close()
  return ok, out, code
end

-- Wall-clock seconds (os.clock is CPU time of this process only, blind to a compiler it runs).
function H.now()
  local _, out = H.sh("date +%s.%N")
  return tonumber(out)
end

function H.mkdir(dir) H.sh("mkdir -p '" .. dir .. "'") end

function H.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

function H.read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- `mbgen ARGS` from the root: success, stdout, stderr (through a file in dir) and the exit status.
function H.mbgen(args, dir)
  local err = dir .. "/stderr.txt"
  local p = io.popen(string.format("cd '%s' && lua5.4 generator/mbgen %s 2>'%s'", H.root, args, err))
  local out = p:read("a")
  local ok, _, code = p:close()
  return ok, out, H.read(err) or "", code
end

-- `mbgen run ARGS --out DIR/run.csv` from the root: ok, stdout, stderr, exit code and the last row's coordinates
-- (H.csv_z; empty when the run wrote no CSV).
function H.run_z(args, dir)
  local csv = dir .. "/run.csv"
  os.remove(csv)
  local ok, out, err, code = H.mbgen(string.format("run %s --out '%s'", args, csv), dir)
  return ok, out, err, code, H.csv_z(csv)
end

-- The coordinates { ["z.NAME"] = value } of an mbrun CSV's last row, and the largest difference of two such tables.
function H.csv_z(path)
  local z = {}
  for k, v in pairs(H.csv_last(path)) do if k:match("^z%.") then z[k] = v end end
  return z
end
function H.max_diff(a, b)
  local e = 0
  for k, v in pairs(a) do e = math.max(e, math.abs(v - (b[k] or math.huge))) end
  return e
end

-- The last row of an mbrun CSV as { name = value }.
function H.csv_last(path)
  local lines = {}
  for l in (H.read(path) or ""):gmatch("[^\n]+") do lines[#lines + 1] = l end
  local names, row, i = {}, {}, 0
  for n in (lines[1] or ""):gmatch("[^,]+") do names[#names + 1] = n end
  for v in (#lines > 1 and lines[#lines] or ""):gmatch("[^,]+") do i = i + 1; row[names[i]] = tonumber(v) end
  return row
end

-- Runs an mbrun driver (the command and its options) with and without a kinematics option (--dense-kinematics, or
-- flag), each writing a CSV in dir; returns the largest difference of a coordinate or velocity in the last rows
-- relative to max(1, |value|), the two outputs and whether both ran.
function H.dense_kinematics_difference(driver, args, dir, flag)
  local a, b = dir .. "/blocks.csv", dir .. "/dense.csv"
  local ok1, out1 = H.sh(string.format("%s %s --out '%s'", driver, args, a))
  local ok2, out2 = H.sh(string.format("%s %s %s --out '%s'", driver, args, flag or "--dense-kinematics", b))
  local ra, rb, worst, count = H.csv_last(a), H.csv_last(b), 0, 0
  for name, v in pairs(rb) do
    if name:match("^zd?%.") then
      count = count + 1
      worst = math.max(worst, math.abs((ra[name] or math.huge) - v) / math.max(1, math.abs(v)))
    end
  end
  return ok1 and ok2 and count > 0, worst, out1, out2
end

-- Loads a model file and builds its tree in-process (overrides like --set).
function H.tree(path, overrides)
  local load = require "model.load"
  local topology = require "model.topology"
  return topology.build(load.load(path, overrides or {}))
end

-- Generates NAME.c / NAME.h for a tree into dir, as mbgen does (the specs of dynamics/functions.lua printed
-- by emit/model.lua); returns the emitter's stats. opts: { functions = list, lenient = bool, csc = true or a set
-- of names (the compressed forms, mbgen generate --csc) }.
function H.generate(tree, dir, opts)
  local spec = require("dynamics.functions").build(tree, opts)
  H.mkdir(dir)
  local files, stats = require("emit.model").generate(tree, spec, tree.file and H.read(tree.file), { csc = opts and opts.csc })
  for fname, text in pairs(files) do H.write(dir .. "/" .. fname, text) end
  return stats
end

-- The operators of generated function `fname` in C text c (its body up to the first "return MB_FN_OK;", comments and
-- index brackets left out): multiplications (" * ", "*="), additions (" + ", " - " between operands, "+="),
-- divisions (" / ") and MB_SQRT calls, as the generator's operation counts have them; nil when c has no such function.
function H.c_operators(c, fname)
  local a = c:find(fname .. "(", 1, true)
  local b = a and c:find("return MB_FN_OK;", a, true)
  if not b then return nil end
  local body = c:sub(c:find("{", a, true), b):gsub("/%*.-%*/", ""):gsub("%b[]", "[]")
  local function count(pat) local _, k = body:gsub(pat, "") return k end
  return { mul = count(" %*%s") + count("%*="), add = count(" %+%s") + count(" %-%s") + count("%+="),
    div = count(" /%s"), sqrt = count("MB_SQRT") }
end

-- Parses "key value" lines into a table of numbers.
function H.keyvals(text)
  local t = {}
  for k, v in text:gmatch("([%w_]+) ([^\n]+)") do t[k] = tonumber(v) or v end
  return t
end

-- `mbgen sens -q ARGS` from the root: success, its output, and its "key value" lines (keys with dots: grad.NAME).
function H.sens(args)
  local ok, out = H.sh(string.format("cd %s && lua5.4 generator/mbgen sens -q %s", H.root, args))
  local kv = {}
  for k, v in out:gmatch("([%w_%.]+) ([^\n]+)") do kv[k] = tonumber(v) or v end
  return ok, out, kv
end

-- The largest difference of a[pa .. NAME] and b[pb .. NAME] over names, relative to the largest |b[pb .. NAME]|,
-- and the name where it is: a gradient component a hundred times smaller than the others carries the same
-- absolute noise.
function H.grad_worst(a, b, pa, pb, names)
  local w, at, scale = 0, nil, 0
  for _, n in ipairs(names) do scale = math.max(scale, math.abs(b[pb .. n])) end
  for _, n in ipairs(names) do
    local e = math.abs(a[pa .. n] - b[pb .. n]) / scale
    if not (e <= w) then w, at = e, n end
  end
  return w, at
end

-- Rank of the rows x cols table A (destroyed) by Gaussian elimination with full pivoting; pivots below
-- tol * the largest entry count as zero.
function H.rank(A, rows, cols, tol)
  local big = 0
  for i = 1, rows do for j = 1, cols do big = math.max(big, math.abs(A[i][j])) end end
  local r = 0
  for _ = 1, math.min(rows, cols) do
    local pi, pj, pv = 0, 0, 0
    for i = r + 1, rows do
      for j = r + 1, cols do
        if math.abs(A[i][j]) > pv then pi, pj, pv = i, j, math.abs(A[i][j]) end
      end
    end
    if pv <= tol * big then break end
    r = r + 1
    A[r], A[pi] = A[pi], A[r]
    for i = 1, rows do A[i][r], A[i][pj] = A[i][pj], A[i][r] end
    for i = r + 1, rows do
      local f = A[i][r] / A[r][r]
      if f ~= 0 then for j = r, cols do A[i][j] = A[i][j] - f * A[r][j] end end
    end
  end
  return r
end

return H
