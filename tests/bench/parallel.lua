-- parallel.lua: runs the benchmarks' builds as shell commands, one per core at a time, so that compiling takes
-- the machine's cores while everything that is timed still runs alone.
local M = {}

-- BENCH_JOBS, or the number of cores.
function M.jobs(H)
  local j = tonumber(os.getenv("BENCH_JOBS") or "")
  if j and j >= 1 then return math.floor(j) end
  local _, n = H.sh("nproc")
  return math.max(1, tonumber(n) or 1)
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- cmds: list of shell commands; dir: a scratch folder for their logs; weights (optional): the expected cost of
-- each command (the size of the C it compiles), the heaviest started first so that the last to finish is a
-- light one. Returns, per command, { ok = bool, out = its output, secs = its wall time }, in the order given.
function M.run(H, cmds, dir, weights)
  H.mkdir(dir)
  local order = {}
  for k = 1, #cmds do order[k] = k end
  if weights then table.sort(order, function(a, b) return weights[a] > weights[b] end) end
  local lines = { "set -u", "jobs=" .. M.jobs(H), "running=0" }
  for _, k in ipairs(order) do
    local cmd = cmds[k]
    local log, rc = string.format("%s/job%d.log", dir, k), string.format("%s/job%d.rc", dir, k)
    lines[#lines + 1] = "if [ $running -ge $jobs ]; then wait -n; running=$((running - 1)); fi"
    lines[#lines + 1] = string.format("( s=$(date +%%s.%%N); bash -c %s > %s 2>&1; r=$?; echo $r $s $(date +%%s.%%N) > %s ) &",
      quote(cmd), quote(log), quote(rc))
    lines[#lines + 1] = "running=$((running + 1))"
  end
  lines[#lines + 1] = "wait"
  local script = dir .. "/jobs.sh"
  H.write(script, table.concat(lines, "\n") .. "\n")
  local t0 = H.now()
  H.sh("bash " .. quote(script))
  -- In the log of `make bench`, where the minutes go.
  io.stderr:write(string.format("%s: %d commands in %.0f s, %d at a time\n", dir, #cmds, H.now() - t0, M.jobs(H)))
  local res = {}
  for k = 1, #cmds do
    local rc = H.read(string.format("%s/job%d.rc", dir, k)) or ""
    local code, s, e = rc:match("(%d+) (%S+) (%S+)")
    res[k] = { ok = code == "0", out = H.read(string.format("%s/job%d.log", dir, k)) or "",
      secs = (tonumber(e) or 0) - (tonumber(s) or 0) }
  end
  return res
end

-- M.run for commands that must all succeed: the first failure's output goes to stderr and the script exits 1.
-- Returns each command's wall seconds.
function M.all(H, cmds, dir, weights)
  local secs = {}
  for k, r in ipairs(M.run(H, cmds, dir, weights)) do
    if not r.ok then io.stderr:write(r.out); os.exit(1) end
    secs[k] = r.secs
  end
  return secs
end

return M
