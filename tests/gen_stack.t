#!/usr/bin/env lua5.4
-- gen_stack.t: no function of any committed generated/*.c needs a stack frame over 4 KiB at -O1 (gcc -fstack-usage).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

-- Issue 19: generated code must run on a controller's or a thread's small stack; 4 KiB is the budget of any one frame.
local LIMIT = 4096
-- -O1 is the default of `mbgen run`; frame sizes depend on the optimization level, so the test uses the same one.
-- -S: the compiler proper writes the .su file; assembling (seconds on the vehicles) adds nothing to it.
local CFLAGS = "-std=c99 -O1 -fstack-usage"
local JOBS = 2   -- files and sections compile two at a time, one per core of the machines `make test` runs on

local dir = H.root .. "build/tmp/gen_stack"
H.sh("rm -rf '" .. dir .. "'")
H.mkdir(dir)

-- One compile per model, or one per section when NAME.h defines NAME_NSECTIONS (-DMB_PART=k), from the section's own
-- text as `mbgen run` builds it (run/units.lua: the compiler then skips nothing).
local U = require "run.units"
local _, list = H.sh("ls '" .. H.root .. "generated'/*.c")
local models, jobs = {}, {}
-- A section's source keeps NAME.c's line numbers: each line after `#line N` is line N, N + 1, ... of NAME.c.
local function lines_kept(src, text)
  local orig = {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do orig[#orig + 1] = l end
  local at, checked = nil, 0
  for l in (src .. "\n"):gmatch("([^\n]*)\n") do
    local n = l:match("^#line (%d+) ")
    if n then at = tonumber(n)
    elseif at then
      if orig[at] ~= l then return false, checked end
      at, checked = at + 1, checked + 1
    end
  end
  return true, checked
end
local sources_checked, sources_bad = 0, {}
for path in list:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.c$")
  local hdr = H.read(H.root .. "generated/" .. name .. ".h") or ""
  local k = tonumber(hdr:match("#define%s+" .. name .. "_NSECTIONS%s+(%d+)"))
  local m = { name = name, sections = k, outs = {} }
  models[#models + 1] = m
  local text = H.read(path) or ""
  for part = 1, k or 1 do
    local base = string.format("%s/%s%s", dir, name, k and (".p" .. part) or "")
    m.outs[#m.outs + 1] = base
    local src = k and U.source(text, part, path)
    if src then
      H.write(base .. ".c", src)
      local ok_lines, n = lines_kept(src, text)
      sources_checked = sources_checked + 1
      if not ok_lines or n == 0 then sources_bad[#sources_bad + 1] = base end
    end
    jobs[#jobs + 1] = { weight = src and #src or #text,
      cmd = string.format("gcc %s %s -I'%sruntime' -I'%sgenerated' -S '%s' -o '%s.s' > '%s.log' 2>&1; echo $? > '%s.rc'",
        CFLAGS, k and ("-DMB_PART=" .. part) or "", H.root, H.root, src and (base .. ".c") or path, base, base, base) }
  end
end
-- Heaviest first, so the last compile to finish is a small one.
table.sort(jobs, function(a, b) return a.weight > b.weight end)
tap.ok(sources_checked > 0 and #sources_bad == 0, string.format("%d sections' sources keep NAME.c's line numbers (#line)%s",
  sources_checked, #sources_bad > 0 and (": not " .. table.concat(sources_bad, ", ")) or ""))
local cmds = {}
for i, j in ipairs(jobs) do cmds[i] = j.cmd end
H.write(dir .. "/jobs", table.concat(cmds, "\n") .. "\n")
local t0 = H.now()
-- bash's `times`: its second line is the CPU (user, sys) of the children, i.e. of every compiler.
local _, times = H.sh(string.format("bash -c \"xargs -P %d -d '\\\\n' -I{} sh -c {} < '%s/jobs'; times\"", JOBS, dir))
local wall = H.now() - t0
local cpu = 0
for mins, secs in (times:match("\n([^\n]+)") or ""):gmatch("(%d+)m([%d.]+)s") do cpu = cpu + 60 * mins + secs end
tap.diag(string.format("%d compiles of %d models, %d at a time: %.0f s wall, %.0f s CPU", #jobs, #models, JOBS,
  wall, cpu))

-- A .su line: "file:line:col:function<TAB>bytes<TAB>static|dynamic|dynamic,bounded".
for _, m in ipairs(models) do
  local ok, log, worst, nfn = true, {}, { bytes = -1 }, 0
  for _, base in ipairs(m.outs) do
    if (H.read(base .. ".rc") or ""):match("^(%d+)") ~= "0" then
      ok = false
      log[#log + 1] = H.read(base .. ".log") or "(no log)"
    end
    for fn, bytes, kind in (H.read(base .. ".su") or ""):gmatch("[^\n]-:([%w_]+)\t(%d+)\t([%w,]+)") do
      nfn = nfn + 1
      bytes = tonumber(bytes)
      -- An unbounded dynamic frame (a VLA, alloca) has no size to check: it counts as over the limit.
      if kind == "dynamic" then bytes = math.max(bytes, LIMIT + 1) end
      if bytes > worst.bytes then worst = { fn = fn, bytes = bytes, kind = kind } end
    end
  end
  local what = m.sections and string.format("%s.c (%d section%s)", m.name, m.sections, m.sections == 1 and "" or "s") or (m.name .. ".c")
  if not tap.ok(ok and nfn > 0, what .. " compiles at -O1 with -fstack-usage") then
    tap.diag(table.concat(log, "\n"):sub(1, 2000))
  end
  tap.ok(ok and nfn > 0 and worst.bytes <= LIMIT,
    string.format("%s: largest stack frame %d bytes <= %d", what, worst.bytes, LIMIT))
  tap.diag(string.format("%s: worst frame %s, %d bytes (%s), of %d functions", m.name, worst.fn or "?", worst.bytes,
    worst.kind or "?", nfn))
end
tap.done_testing()
