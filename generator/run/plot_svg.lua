-- run/plot_svg.lua: self-contained SVG plots: a run from mbrun's CSV (coordinates and energy against time; for
-- vehicles the trajectory, lateral acceleration, wheel loads and steering), and x-y panels with linear or log
-- axes (the benchmarks' cost against size).
local P = {}

local W, PANEL_H, LEFT, RIGHT, TOP, GAP = 900, 300, 70, 190, 40, 70
local COLORS = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
  "#bcbd22", "#17becf" }

-- Parses the CSV: header names and numeric columns. Returns nil, message on anything unexpected.
function P.read_csv(text)
  local lines = {}
  for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
  if #lines < 2 then return nil, "the CSV has no data rows" end
  local names = {}
  for nm in lines[1]:gmatch("[^,]+") do names[#names + 1] = nm end
  local cols = {}
  for j = 1, #names do cols[j] = {} end
  for i = 2, #lines do
    local j = 0
    for v in lines[i]:gmatch("[^,]+") do
      j = j + 1
      local x = tonumber(v)
      if not x or x ~= x or x == math.huge or x == -math.huge then
        return nil, string.format("row %d column %s is not a finite number: %s", i, names[j] or "?", v)
      end
      if cols[j] then cols[j][#cols[j] + 1] = x end
    end
    if j ~= #names then return nil, string.format("row %d has %d values for %d columns", i, j, #names) end
  end
  return { names = names, cols = cols }
end

-- Round tick spacing (1, 2 or 5 times a power of ten) for about n ticks over [lo, hi].
local function ticks(lo, hi, n)
  local span = hi - lo
  local raw = span / n
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs { 1, 2, 5, 10 } do
    if m * mag >= raw then step = m * mag break end
  end
  local out = {}
  local t = math.ceil(lo / step) * step
  while t <= hi + 1e-9 * span do
    out[#out + 1] = math.abs(t) < 1e-12 * step and 0 or t
    t = t + step
  end
  return out
end

-- Ticks of a log axis over [lo, hi] (values, not logs): the powers of ten, with 2 and 5 times them when the
-- range spans fewer than three decades.
local function log_ticks(lo, hi)
  local out = {}
  local fine = math.log(hi / lo, 10) < 3
  for k = math.floor(math.log(lo, 10)), math.ceil(math.log(hi, 10)) do
    for _, m in ipairs(fine and { 1, 2, 5 } or { 1 }) do
      local v = m * 10 ^ k
      if v >= lo * (1 - 1e-9) and v <= hi * (1 + 1e-9) then out[#out + 1] = v end
    end
  end
  return out
end

local function fmt(x) return string.format("%.4g", x) end
local function esc(s) return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;")) end

-- An axis over the values vals, padded by pad_frac of its range: the map to [0, 1] and about nticks ticks;
-- log = true maps log10 (values > 0).
local function axis(vals, log, pad_frac, nticks)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(vals) do lo, hi = math.min(lo, v), math.max(hi, v) end
  if log then
    assert(lo > 0, "plot_svg: a log axis needs positive values")
    if hi / lo < 1 + 1e-9 then lo, hi = lo / 2, hi * 2 end
    local a, b = math.log(lo, 10), math.log(hi, 10)
    local pad = pad_frac * (b - a)
    a, b = a - pad, b + pad
    return function(v) return (math.log(v, 10) - a) / (b - a) end, log_ticks(10 ^ a, 10 ^ b)
  end
  if hi - lo < 1e-12 * math.max(1, math.abs(hi)) then lo, hi = lo - 0.5, hi + 0.5 end
  local pad = pad_frac * (hi - lo)
  lo, hi = lo - pad, hi + pad
  return function(v) return (v - lo) / (hi - lo) end, ticks(lo, hi, nticks)
end

-- One panel at vertical offset y0: spec = { title =, xlabel =, logx =, logy =, markers =, xticks =, series = { { name =,
-- x =, values =, dash = } } } (each series has its own x; xticks, if given, replaces the automatic x ticks).
local function panel(out, y0, spec)
  local series = spec.series
  local xs, ys = {}, {}
  for _, s in ipairs(series) do
    for k, v in ipairs(s.values) do ys[#ys + 1] = v; xs[#xs + 1] = s.x[k] end
  end
  local pw = W - LEFT - RIGHT
  local fx, xt = axis(xs, spec.logx, spec.logx and 0.03 or 0, 8)
  xt = spec.xticks or xt
  local fy, yt = axis(ys, spec.logy, 0.05, 6)
  local function X(x) return LEFT + fx(x) * pw end
  local function Y(y) return y0 + PANEL_H - fy(y) * PANEL_H end
  out[#out + 1] = string.format('<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>', LEFT, y0 - 12, esc(spec.title))
  out[#out + 1] = string.format('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>', LEFT, y0, pw, PANEL_H)
  for _, v in ipairs(yt) do
    out[#out + 1] = string.format('<line x1="%d" y1="%.2f" x2="%d" y2="%.2f" stroke="#ddd"/>', LEFT, Y(v), LEFT + pw, Y(v))
    out[#out + 1] = string.format('<text x="%d" y="%.2f" font-size="11" text-anchor="end">%s</text>', LEFT - 6, Y(v) + 4, fmt(v))
  end
  for _, v in ipairs(xt) do
    out[#out + 1] = string.format('<line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="#ddd"/>', X(v), y0, X(v), y0 + PANEL_H)
    out[#out + 1] = string.format('<text x="%.2f" y="%d" font-size="11" text-anchor="middle">%s</text>', X(v), y0 + PANEL_H + 16, fmt(v))
  end
  out[#out + 1] = string.format('<text x="%d" y="%d" font-size="12" text-anchor="middle">%s</text>', LEFT + pw // 2, y0 + PANEL_H + 34, esc(spec.xlabel or "t [s]"))
  for i, s in ipairs(series) do
    local pts = {}
    for k, v in ipairs(s.values) do pts[k] = string.format("%.2f,%.2f", X(s.x[k]), Y(v)) end
    local color = COLORS[(i - 1) % #COLORS + 1]
    local dash = s.dash and string.format(' stroke-dasharray="%s"', s.dash) or ""
    out[#out + 1] = string.format('<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"/>', color, dash, table.concat(pts, " "))
    if spec.markers then
      for k, v in ipairs(s.values) do
        out[#out + 1] = string.format('<circle cx="%.2f" cy="%.2f" r="2.5" fill="%s"/>', X(s.x[k]), Y(v), color)
      end
    end
    local ly = y0 + 14 + (i - 1) * 18
    out[#out + 1] = string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"%s/>', W - RIGHT + 12, ly - 4, W - RIGHT + 32, ly - 4, color, dash)
    out[#out + 1] = string.format('<text x="%d" y="%d" font-size="12">%s</text>', W - RIGHT + 38, ly, esc(s.name))
  end
end

-- The SVG of stacked panels (see panel for a spec).
local function document(title, panels)
  local H = TOP + #panels * (PANEL_H + GAP + 20)
  local out = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">', W, H, W, H),
    string.format('<rect width="%d" height="%d" fill="white"/>', W, H),
    string.format('<text x="%d" y="22" font-size="17">%s</text>', LEFT, esc(title)) }
  for i, spec in ipairs(panels) do panel(out, TOP + 30 + (i - 1) * (PANEL_H + GAP + 20), spec) end
  out[#out + 1] = "</svg>"
  return table.concat(out, "\n") .. "\n"
end

-- Any x-y data: panels = { spec, ... } as panel takes them; logx / logy draw log10 axes (positive values only).
function P.xy_svg(title, panels) return document(title, panels) end

-- Vehicle panels from the tyre columns and the chassis of models/lib/chassis.lua (a free joint NAME_float):
-- the trajectory y(x) of the chassis frame's origin, its lateral acceleration in the heading frame
-- (-sin(yaw) a_x + cos(yaw) a_y, the accelerations by central differences of the CSV's velocities), the
-- tyres' normal loads, and the steering (coordinates named *steer* or *rack*) beside the slip angles.
-- spec(title, series) makes a panel against t.
local function vehicle_panels(data, idx, t, spec)
  -- The chassis: a free joint named like *chassis*_float, else *body*_float, else the first *_float (other
  -- free joints, such as the sedan's rear knuckles hung from ground, come first in the coordinates).
  local floats = {}
  for _, nm in ipairs(data.names) do floats[#floats + 1] = nm:match("^z%.(.+_float)%.x$") end
  local chassis
  for _, key in ipairs { "chassis", "body", "" } do
    for _, f in ipairs(floats) do
      if not chassis and f:find(key, 1, true) then chassis = f end
    end
  end
  local panels = {}
  local col = function(name) return idx[name] and data.cols[idx[name]] end
  if chassis and col("z." .. chassis .. ".y") and col("z." .. chassis .. ".rz") then
    local x, y = col("z." .. chassis .. ".x"), col("z." .. chassis .. ".y")
    panels[#panels + 1] = { title = "Trajectory of " .. chassis:gsub("_float$", "") .. ": y [m]", xlabel = "x [m]",
      series = { { name = "y(x)", x = x, values = y } } }
    local vx, vy, yaw, alat = col("zd." .. chassis .. ".x"), col("zd." .. chassis .. ".y"), col("z." .. chassis .. ".rz"), {}
    for k = 1, #t do
      local a, b = math.max(1, k - 1), math.min(#t, k + 1)
      local dt = t[b] - t[a]
      local ax, ay = dt > 0 and (vx[b] - vx[a]) / dt or 0, dt > 0 and (vy[b] - vy[a]) / dt or 0
      alat[k] = -math.sin(yaw[k]) * ax + math.cos(yaw[k]) * ay
    end
    panels[#panels + 1] = spec("Lateral acceleration [m/s^2]", { { name = "a_y", values = alat } })
  end
  local loads, slips, steer = {}, {}, {}
  for j, nm in ipairs(data.names) do
    local ty = nm:match("^tyre%.(.+)%.Fz$")
    if ty then loads[#loads + 1] = { name = ty, values = data.cols[j] } end
    ty = nm:match("^tyre%.(.+)%.tan_alpha$")
    if ty then
      local deg = {}
      for k, v in ipairs(data.cols[j]) do deg[k] = math.deg(math.atan(v)) end
      slips[#slips + 1] = { name = "slip " .. ty, values = deg }
    end
    local q = nm:match("^z%.(.+)$")
    if q and (q:find("steer") or q:find("rack")) then steer[#steer + 1] = { name = q, values = data.cols[j] } end
  end
  if #loads > 0 then panels[#panels + 1] = spec("Tyre normal loads [N]", loads) end
  if #steer > 0 then panels[#panels + 1] = spec("Steering [m or rad]", steer) end
  if #slips > 0 then panels[#panels + 1] = spec("Slip angles [deg]", slips) end
  return panels
end

-- The SVG text: coordinates in the first panel, kinetic, potential and total energy in the second; a model
-- with tyres gets the vehicle panels instead of the coordinates.
function P.svg(data, title)
  local idx = {}
  for j, nm in ipairs(data.names) do idx[nm] = j end
  local t = data.cols[idx.t or 1]
  local coords, energy = {}, {}
  for j, nm in ipairs(data.names) do
    local q = nm:match("^z%.(.+)$")
    if q then coords[#coords + 1] = { name = q, values = data.cols[j] } end
  end
  for _, nm in ipairs { "kinetic", "potential", "energy" } do
    if idx[nm] then energy[#energy + 1] = { name = nm == "energy" and "total" or nm, values = data.cols[idx[nm]] } end
  end
  local function spec(name, series)
    for _, x in ipairs(series) do x.x = t end
    return { title = name, series = series }
  end
  local panels = vehicle_panels(data, idx, t, spec)
  if #panels == 0 then panels = { spec("Coordinates", coords) } end
  if #energy > 0 then panels[#panels + 1] = spec("Energy [J]", energy) end
  return document(title, panels)
end

return P
