-- bench_robots.lua: the real robots of the peer benchmarks, imported as `mbgen import` does, as bench cases.
-- models/robots, and Talos from ../shared/robots when it is there (it may not be redistributed); the legged ones and
-- the humanoid on a floating base (a free joint: 3 slides and 3 turns, as mbgen expands it). BENCH_ROBOTS lists
-- them (default: all; "" for none). Mimic joints stay free and joint damping is left out: the timed functions are
-- the tree's, and the peers' inverse and forward dynamics have no damping (Pinocchio's rnea and aba ignore it).
local M = {}

local ROBOTS = {
  { name = "ur5", label = "ur5 (arm)", urdf = "models/robots/ur5.urdf" },
  { name = "panda", label = "panda (arm, 2 fingers)", urdf = "models/robots/panda.urdf" },
  { name = "solo12", label = "solo12 (quadruped, floating)", urdf = "models/robots/solo12.urdf", floating = true },
  { name = "go2", label = "go2 (quadruped, floating)", urdf = "models/robots/go2.urdf", floating = true },
  { name = "talos", label = "**talos (humanoid, floating)**", urdf = "../shared/robots/talos.dyn.urdf", floating = true },
}

-- cases(H, R, dir, who, fixed_only) -> { { label, model, file } }: each robot imported into dir/NAME.lua. R: the
-- repository with a trailing slash; who: the benchmark's name for messages; fixed_only: leave out the floating ones
-- (MuJoCo refuses the massless bodies of a free joint expanded into six, as tests/lib/mjcf_export.lua writes it).
function M.cases(H, R, dir, who, fixed_only)
  local by = {}
  for _, r in ipairs(ROBOTS) do by[r.name] = r end
  local out = {}
  for name in (os.getenv("BENCH_ROBOTS") or "ur5 panda solo12 go2 talos"):gmatch("%S+") do
    local rb = by[name]
    if not rb then io.stderr:write(who .. ": unknown robot " .. name .. " in BENCH_ROBOTS\n"); os.exit(1) end
    if fixed_only and rb.floating then
      io.stderr:write(who .. ": " .. name .. " floats: left out\n")
    elseif H.read(R .. rb.urdf) then
      local path = R .. rb.urdf
      local robot = require("urdf.robot").read(require("urdf.xml").parse(H.read(path), path), path,
        { floating_base = rb.floating })
      for _, j in ipairs(robot.joints) do j.damping = nil end
      H.write(dir .. "/" .. name .. ".lua", require("urdf.model_text").write(robot,
        { source = path, floating_base = rb.floating, mimic = "free" }))
      out[#out + 1] = { label = rb.label, model = name, file = dir .. "/" .. name .. ".lua", robot = true }
    else
      io.stderr:write(who .. ": " .. R .. rb.urdf .. " not found: " .. name .. " left out\n")
    end
  end
  return out
end

return M
