#!/usr/bin/env lua5.4
-- build_race.t: two mbgen commands started together on an empty build/ both succeed (the runtime library
-- and every model product are built under a lock or renamed into place), and two files that declare the
-- same `model "NAME"` never share a build. RACE_N=20 runs more trials (default 5).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"

-- A copy of the repository's sources, so each trial can start from an empty build/ without disturbing the
-- tests running beside this one. The runtime compiles at -O0 (CFLAGS reaches make through the environment).
local tmp = H.root .. "build/tmp/build_race"
H.mkdir(tmp)
tmp = select(2, H.sh("cd '" .. tmp .. "' && pwd -P")):gsub("\n$", "")
local repo = tmp .. "/repo"
H.sh(string.format("rm -rf '%s' && mkdir -p '%s/a' '%s/b' '%s/elsewhere' && cp -r '%sMakefile' '%sgenerator' '%sruntime' '%s/'",
  tmp, repo, repo, tmp, H.root, H.root, H.root, repo))
H.mkdir(repo .. "/models")
H.sh(string.format("cp '%smodels/oscillator.lua' '%smodels/fourbar_planar.lua' '%s/models/'", H.root, H.root, repo))

-- Three files that all declare model "twin": the same oscillator with stiffness k (x(t) = x0 cos(sqrt(k) t)).
local function twin(k)
  return string.format([[
model "twin"
design { k = %g }
body "mass" { mass = 1, inertia = { 1e-3, 1e-3, 1e-3 } }
prismatic "slide" { parent = "ground", child = "mass", axis = { 1, 0, 0 } }
joint_spring "spring" { joint = "slide", stiffness = k }
initial { slide = 0.1 }
simulate { t_end = 0.5, step = 1e-4 }
]], k)
end
H.write(repo .. "/a/twin.lua", twin(100))
H.write(repo .. "/b/twin.lua", twin(400))
H.write(tmp .. "/elsewhere/twin.lua", twin(25))

local ENV = "CFLAGS='-std=c99 -O0 -w' lua5.4 generator/mbgen "
local RUN = " --cflags -O0 --quiet --t-end 0.5"
-- The pairs started together; each entry: command (from the copy's root) and what its output must hold.
local pairs_ = {
  { "the same model twice", { "run models/fourbar_planar.lua" .. RUN, "run models/fourbar_planar.lua" .. RUN } },
  { "run and sens of one model", { "run models/oscillator.lua" .. RUN, "sens models/oscillator.lua --cflags -O0 --t-end 0.5" } },
  { "two files named twin", { "run a/twin.lua --cflags -O0 --t-end 0.5", "run b/twin.lua --cflags -O0 --t-end 0.5" } },
  { "run and check of one model", { "run models/oscillator.lua" .. RUN, "check models/oscillator.lua" } },
  { "a twin inside and one outside the repository",
    { "run a/twin.lua --cflags -O0 --t-end 0.5", "run ../elsewhere/twin.lua --cflags -O0 --t-end 0.5" } },
}

-- x(0.5) of the twin with stiffness k, from the summary.
local function x_end(out) return tonumber(out:match("slide%s+z =%s+(%S+)")) end
local K = { ["a/twin.lua"] = 100, ["b/twin.lua"] = 400, ["../elsewhere/twin.lua"] = 25 }

local trials = tonumber(os.getenv("RACE_N") or "") or 5
local failures = 0
for trial = 1, trials do
  local name, cmds = pairs_[(trial - 1) % #pairs_ + 1][1], pairs_[(trial - 1) % #pairs_ + 1][2]
  local o = { tmp .. "/out1", tmp .. "/out2" }
  H.sh(string.format("cd '%s' && rm -rf build && { (%s%s > '%s' 2>&1; echo $? >> '%s') & (%s%s > '%s' 2>&1; echo $? >> '%s') & wait; }",
    repo, ENV, cmds[1], o[1], o[1], ENV, cmds[2], o[2], o[2]))
  for i = 1, 2 do
    local out = H.read(o[i]) or ""
    local code = tonumber(out:match("(%d+)%s*$"))
    local good = code == 0
    local file = cmds[i]:match("^run (%S+twin%.lua)")
    if good and file then
      local k = K[file]
      local want = 0.1 * math.cos(math.sqrt(k) * 0.5)
      good = x_end(out) and math.abs(x_end(out) - want) < 1e-6
    end
    if not good then failures = failures + 1 end
    tap.ok(good, string.format("trial %d (%s): %s exits 0%s", trial, name, cmds[i], file and " with its own x(0.5)" or ""))
    if not good then tap.diag(out) end
  end
end
tap.is(failures, 0, string.format("%d trials of two simultaneous first runs: no failure", trials))

-- The builds of the twins live apart: by path inside the repository, by a hash of the real path outside it.
for _, f in ipairs { "a/twin.lua", "b/twin.lua", "../elsewhere/twin.lua" } do
  H.sh(string.format("cd '%s' && %srun %s --cflags -O0 --quiet --t-end 0", repo, ENV, f))
end
local _, ls = H.sh(string.format("cd '%s/build/run' && ls -d a/twin b/twin ext/twin-*", repo))
tap.like(ls, "a/twin\nb/twin\next/twin%-%x+\n", "build/run/a/twin, build/run/b/twin and build/run/ext/twin-HASH")
tap.done_testing()
