-- bench_data.lua: the benchmarks' raw numbers as TSV files in tests/bench/results/ (one row per model, size,
-- function and tool: ns per call, instructions per call, generated operations), the machine's name and clock.
local M = {}

M.COLUMNS = { "model", "n", "fn", "tool", "ns", "instr", "ops" }

-- rows: { { model =, n =, fn =, tool =, ns =, instr =, ops = } }; missing numbers are written as "-".
function M.write(H, path, rows)
  local L = { table.concat(M.COLUMNS, "\t") }
  for _, r in ipairs(rows) do
    local v = {}
    for k, c in ipairs(M.COLUMNS) do
      local x = r[c]
      v[k] = x == nil and "-" or (type(x) == "number" and (math.type(x) == "integer" and tostring(x) or string.format("%.1f", x)) or tostring(x))
    end
    L[#L + 1] = table.concat(v, "\t")
  end
  H.write(path, table.concat(L, "\n") .. "\n")
end

function M.read(H, path)
  local text = H.read(path)
  if not text then return nil end
  local rows, first = {}, true
  for line in text:gmatch("[^\n]+") do
    if first then first = false else
      local r, k = {}, 0
      for f in (line .. "\t"):gmatch("([^\t]*)\t") do
        k = k + 1
        local c = M.COLUMNS[k]
        if c then r[c] = (c == "model" or c == "fn" or c == "tool") and f or tonumber(f) end
      end
      rows[#rows + 1] = r
    end
  end
  return rows
end

-- "AMD EPYC, 2096 MHz" from /proc/cpuinfo, and the clock in Hz (nominal: the machine has no cycle counter here).
function M.machine(H)
  local _, name = H.sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2")
  local _, mhz = H.sh("grep -m1 'cpu MHz' /proc/cpuinfo | cut -d: -f2")
  name, mhz = name:gsub("^%s+", ""):gsub("%s+$", ""), tonumber(mhz)
  return string.format("%s, %s MHz", name, mhz and string.format("%.0f", mhz) or "?"), mhz and mhz * 1e6
end

return M
