-- callgrind.lua: instructions per call of every TIME(...) of a bench program (tests/bench/bench_time.h), from one
-- short run under valgrind --tool=callgrind: { [result name] = instructions per call }, or nil and why.
local M = {}

function M.available(H) return (H.sh("command -v valgrind >/dev/null")) end

-- Runs `program args` in dir under callgrind (the TIMEs then count instead of timing) and reads its dumps.
function M.count(H, dir, program, args)
  if not M.available(H) then return nil, "valgrind is not installed" end
  H.sh(string.format("rm -f '%s'/cg.out*", dir))
  local ok, out = H.sh(string.format("cd '%s' && valgrind --tool=callgrind --callgrind-out-file=cg.out %s %s", dir, program, args or ""))
  if not ok then return nil, out end
  local t = M.read(H, dir)
  H.sh(string.format("rm -f '%s'/cg.out*", dir))
  return t
end

-- The dumps dir/cg.out.* of a run whose client requests are CALLGRIND_DUMP_STATS_AT("NAME/REPS"):
-- { [NAME] = instructions per repetition }; a dump named otherwise (a warm-up) is left out.
function M.read(H, dir)
  local _, list = H.sh(string.format("ls '%s'/cg.out.*", dir))
  local t = {}
  for path in list:gmatch("[^\n]+") do
    local text = H.read(path) or ""
    local label, reps = text:match("desc: Trigger: Client Request: ([%w_]+)/(%d+)")
    local total = text:match("\ntotals: (%d+)") or text:match("\nsummary: (%d+)")
    if label and total then t[label] = tonumber(total) / tonumber(reps) end
  end
  return t
end

return M
