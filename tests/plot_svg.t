#!/usr/bin/env lua5.4
-- plot_svg.t: run/plot_svg.lua's x-y panels: log axes place a geometric series evenly and tick at powers of ten.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local P = require "run.plot_svg"

local x, y = { 2, 4, 8, 16, 32, 64 }, {}
for k = 1, #x do y[k] = 100 * x[k] ^ 2 end
local svg = P.xy_svg("cost", { { title = "log-log", xlabel = "N", logx = true, logy = true, markers = true,
  series = { { name = "c N^2", x = x, values = y }, { name = "peer", x = x, values = x, dash = "6,3" } } } })
tap.like(svg, "^<svg ", "an SVG document")
local pts = {}
for px, py in svg:match('points="([^"]+)"'):gmatch("([%d.]+),([%d.]+)") do pts[#pts + 1] = { tonumber(px), tonumber(py) } end
tap.is(#pts, 6, "one point per value")
local ok = true
for k = 2, #pts - 1 do
  ok = ok and math.abs((pts[k + 1][1] - pts[k][1]) - (pts[k][1] - pts[k - 1][1])) < 0.02
    and math.abs((pts[k + 1][2] - pts[k][2]) - (pts[k][2] - pts[k - 1][2])) < 0.02
end
tap.ok(ok, "doubling N is a constant step in x; N^2 a constant step in y")
tap.like(svg, ">1000</text>", "a tick at 1000")
tap.like(svg, ">1e%+05</text>", "a tick at 1e+05")
tap.like(svg, 'stroke%-dasharray="6,3"', "a dashed series")
tap.like(svg, "<circle ", "markers")
tap.ok(not pcall(P.xy_svg, "bad", { { title = "t", logy = true, series = { { name = "s", x = { 1, 2 }, values = { 0, 1 } } } } }),
  "a log axis refuses a value <= 0")
tap.done_testing()
