-- gen_cost.lua: generated C as a product (issue 19): per model the time to generate, to load (`mbgen info`) and to
-- compile, the size and the largest stack frame; and the review diffs of a one-line edit of models/tree.lua.
-- Results in tests/bench/results/gen_cost.md. MODELS="chain tree" measures those models only.
local root = arg[0]:match("^(.-)tests/bench/[^/]*$") or "./"
arg[0] = root .. "tests/gen_cost_bench.t"   -- harness derives the root from a tests/ path
local H = dofile(root .. "tests/lib/harness.lua")
package.path = H.root .. "tests/bench/?.lua;" .. package.path
local BD = require "bench_data"
local P = require "parallel"

-- Absolute, because the review variants are generated from inside their own folders.
root = select(2, H.sh("cd '" .. H.root .. "' && pwd")):gsub("\n$", "") .. "/"
local MBGEN = "lua5.4 '" .. root .. "generator/mbgen'"
local CC = "gcc -std=c99 -O1 -fstack-usage -I'" .. root .. "runtime'"   -- -O1: the default of `mbgen run`
local dir = root .. "build/bench/gen_cost"
H.sh("rm -rf '" .. dir .. "'")
H.mkdir(dir)
H.mkdir(root .. "tests/bench/results")
local _, load0 = H.sh("uptime")
local cores = P.jobs(H)
-- The emitter changes often: the results name the revision they measured ("-dirty": with uncommitted changes).
local gok, rev = H.sh("git -C '" .. root .. "' describe --always --dirty")
rev = gok and rev:gsub("%s+$", "") or "unknown (not a git checkout)"

-- Runs cmd (which must succeed) and returns its wall seconds; everything timed here runs alone.
local function timed(cmd)
  local t0 = H.now()
  local ok, out = H.sh(cmd)
  local secs = H.now() - t0
  if not ok then io.stderr:write(cmd, "\n", out); os.exit(1) end
  return secs
end

-- The largest frame in the .su files given: bytes, function, kind ("static", "dynamic", "dynamic,bounded").
local function worst_frame(paths)
  local w = { bytes = -1 }
  for _, p in ipairs(paths) do
    for fn, bytes, kind in (H.read(p) or ""):gmatch("[^\n]-:([%w_]+)\t(%d+)\t([%w,]+)") do
      if tonumber(bytes) > w.bytes then w = { bytes = tonumber(bytes), fn = fn, kind = kind } end
    end
  end
  return w
end

local _, list = H.sh("ls '" .. root .. "models'/*.lua")
local only = os.getenv("MODELS")
local rows = {}
for path in list:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.lua$")
  if not only or (" " .. only .. " "):find(" " .. name .. " ", 1, true) then
    local r = { name = name }
    rows[#rows + 1] = r
    local d = dir .. "/" .. name
    H.mkdir(d)
    r.gen = timed(string.format("%s generate '%s' -o '%s'", MBGEN, path, d))
    -- mbgen info caches its roadmap under the build cache's key: a fresh salt makes the first call cold (the
    -- dynamics stages and the operation counts), the second reads the cache back.
    local salt = "MBGEN_CACHE_SALT=gen_cost_" .. name .. "_" .. os.time() .. " "
    r.info = timed(string.format("%s%s info '%s'", salt, MBGEN, path))
    r.info_warm = timed(string.format("%s%s info '%s'", salt, MBGEN, path))
    -- Unsalted, from the top folder as a user types it: a shipped model's roadmap is generated/NAME.md.
    r.info_shipped = timed(string.format("cd '%s' && %s info models/%s.lua", root, MBGEN, name))
    local c = H.read(d .. "/" .. name .. ".c")
    r.kib = #c / 1024
    r.k = tonumber((H.read(d .. "/" .. name .. ".h") or ""):match("#define%s+" .. name .. "_NSECTIONS%s+(%d+)"))
    io.stderr:write(string.format("gen_cost: %s generated in %.1f s, compiling\n", name, r.gen))
    -- One unit: what a user's build does without sections.
    r.cc1 = timed(string.format("cd '%s' && %s -c %s.c -o %s.o", d, CC, name, name))
    local su = { d .. "/" .. name .. ".su" }
    if r.k then
      -- K units on every core, the way a parallel make would build them; the frames of this build count.
      local cmds = {}
      su = {}
      for k = 1, r.k do
        cmds[k] = string.format("cd '%s' && %s -DMB_PART=%d -c %s.c -o %s.p%d.o", d, CC, k, name, name, k)
        su[k] = string.format("%s/%s.p%d.su", d, name, k)
      end
      H.write(d .. "/jobs", table.concat(cmds, "\n") .. "\n")
      r.cck = timed(string.format("xargs -P %d -d '\\n' -I{} sh -c {} < '%s/jobs'", cores, d))
    end
    r.frame = worst_frame(su)
  end
end

-- Review targets: one mass and one joint damper added to models/tree.lua; `diff | grep -c '^[<>]'` over tree.c.
local src = H.read(root .. "models/tree.lua")
local mass_src, nmass = src:gsub('(body "head"%s*{%s*mass = )2%.0', "%12.1")
assert(nmass == 1, "models/tree.lua no longer gives its head a mass of 2.0")
local variants = {
  { "base", src },
  { "mass of the head 2.0 -> 2.1", mass_src },
  { 'damper on the neck: `joint_spring "neck_damper" { joint = "neck", damping = 0.05 }`',
    src .. '\njoint_spring "neck_damper" { joint = "neck", damping = 0.05 }\n' },
  { 'damper on the turntable: `joint_spring "turn_damper" { joint = "turn", damping = 1.0 }`',
    src .. '\njoint_spring "turn_damper" { joint = "turn", damping = 1.0 }\n' },
}
local review = {}
for k, v in ipairs(variants) do
  -- The same file name in every folder, so the model path the files record does not differ.
  local d = string.format("%s/review%d", dir, k)
  H.mkdir(d)
  H.write(d .. "/tree.lua", v[2])
  timed(string.format("cd '%s' && %s generate tree.lua -o out", d, MBGEN))
  if k > 1 then
    local _, n = H.sh(string.format("diff '%s/review1/out/tree.c' '%s/out/tree.c' | grep -c '^[<>]'", dir, d))
    review[#review + 1] = string.format("| %s | %d |", v[1], tonumber(n) or -1)
  end
end

local _, load1 = H.sh("uptime")
local L = { "| model | generate s | info s (counted, cached, shipped) | NAME.c KiB | sections | gcc -O1 one unit s | sections on " .. cores ..
  " cores, wall s | largest frame bytes | in function |", "|---|---|---|---|---|---|---|---|---|" }
for _, r in ipairs(rows) do
  local info = string.format("%.2f, %.2f, %.2f", r.info, r.info_warm, r.info_shipped)
  L[#L + 1] = string.format("| %s | %.2f | %s | %.0f | %s | %.1f | %s | %d%s | %s |", r.name, r.gen, info, r.kib,
    r.k or "-", r.cc1, r.cck and string.format("%.1f", r.cck) or "-", r.frame.bytes,
    (r.frame.kind and r.frame.kind ~= "static") and (" (" .. r.frame.kind .. ")") or "", r.frame.fn or "?")
end
local text = "# Generated C as a product: generation, compilation, stack and review cost\n\n" ..
  "Generated by tests/bench/gen_cost.sh on " .. os.date("!%Y-%m-%d %H:%M UTC") .. " at revision " .. rev ..
  ". Machine: " .. BD.machine(H) ..
  ", " .. cores .. " cores. Load (`uptime`) at the start: " .. load0:gsub("^%s+", ""):gsub("\n", "") ..
  "; at the end: " .. load1:gsub("^%s+", ""):gsub("\n", "") .. "." ..
  (only and (" Only MODELS=\"" .. only .. "\" in this run.") or "") .. "\n\n" ..
  "Each model generated by the current generator (`mbgen generate`), every step timed alone in wall seconds: " ..
  "`mbgen info` (counted: a fresh MBGEN_CACHE_SALT; cached: again; shipped: unsalted from the top folder, " ..
  "where generated/NAME.key matches and generated/NAME.md is printed), `gcc -std=c99 -O1 -fstack-usage -c` of NAME.c as one unit and, when NAME.h defines NAME_NSECTIONS " ..
  "(K), its K sections (`-DMB_PART=k`) built " .. cores .. " at a time (the frames are then those of the sections). " ..
  "Target (issue 19): no frame over 4096 bytes.\n\n" .. table.concat(L, "\n") .. "\n\n" ..
  "## Review diffs of models/tree.lua\n\nChanged lines of the generated tree.c after one edit of the model, " ..
  "`diff OLD NEW | grep -c '^[<>]'` (comment lines included; a line changed in place counts twice). Targets: a mass " ..
  "change at most 10, an added joint damper at most 150 (tests/gen_review.t).\n\n" ..
  "| edit | changed lines of tree.c |\n" ..
  "|---|---|\n" .. table.concat(review, "\n") .. "\n"
H.write(root .. "tests/bench/results/gen_cost.md", text)
io.write(text)
