#!/usr/bin/env lua5.4
-- urdf_import.t: `mbgen import` on real robots agrees with MuJoCo reading the same URDF (M, inverse and forward
-- dynamics to 1e-10, total mass and centre of mass to 1e-12), passes `mbgen check`, lists in NAME.md what the URDF
-- holds, writes the URDF's numbers as text, and stops bad files with FILE:LINE: element: message.
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local xml = require "urdf.xml"
local robot = require "urdf.robot"
local principal = require "urdf_principal"
local vec3 = require "model.vec3"

local TMP = H.root .. "build/tmp/urdf_import"
H.mkdir(TMP)
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function mbgen(args) return H.mbgen(args, TMP) end
local function read_robot(path, opts)
  return robot.read(xml.parse(H.read(path), path), path, opts)
end

-- Robots: the four in models/robots, Talos from ../shared/robots when it is there (it may not be redistributed).
local cases = {
  { name = "ur5", urdf = "models/robots/ur5.urdf" },
  { name = "panda", urdf = "models/robots/panda.urdf" },
  { name = "solo12", urdf = "models/robots/solo12.urdf" },
  { name = "go2", urdf = "models/robots/go2.urdf" },
  { name = "solo12_floating", urdf = "models/robots/solo12.urdf", floating = true },
  { name = "go2_floating", urdf = "models/robots/go2.urdf", floating = true },
  { name = "sampler", urdf = "tests/fixtures/urdf/sampler.urdf" },
}
local talos = H.root .. "../shared/robots/talos.dyn.urdf"
if H.read(talos) then
  cases[#cases + 1] = { name = "talos", urdf = talos, abs = true }
  cases[#cases + 1] = { name = "talos_floating", urdf = talos, abs = true, floating = true }
else
  tap.diag("Talos is not in ../shared/robots: its cases are left out (its licence keeps it out of the repository)")
end

local have_mujoco = H.read("/usr/include/mujoco/mujoco.h") ~= nil
if not have_mujoco then tap.diag("libmujoco-dev is not installed: the MuJoCo comparisons are left out") end

-- The centre of mass at z = 0 from the tree: body frames composed root to leaves.
local function com_at_zero(tree)
  local R, o, m, c = {}, {}, 0, { 0, 0, 0 }
  for k, b in ipairs(tree.bodies) do
    local Rp = b.parent == 0 and { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } or R[b.parent]
    local op = b.parent == 0 and { 0, 0, 0 } or o[b.parent]
    R[k] = b.joint.rotation and vec3.matmul(Rp, b.joint.rotation) or Rp
    o[k] = vec3.add(op, vec3.matvec(Rp, b.joint.origin))
    m = m + b.mass
    c = vec3.add(c, vec3.scale(b.mass, vec3.add(o[k], vec3.matvec(R[k], b.com))))
  end
  return vec3.scale(1 / m, c), m
end

for _, c in ipairs(cases) do
  local path = c.abs and c.urdf or (H.root .. c.urdf)
  local dir = TMP .. "/" .. c.name
  H.mkdir(dir)
  local fl = c.floating and " --floating-base" or ""
  local ok, out, err = mbgen(string.format("import %s -o %s%s", q(path), q(dir .. "/model.lua"), fl))
  if not tap.ok(ok, c.name .. ": mbgen import writes the model file") then tap.diag(out .. err) end
  local tree = H.tree(dir .. "/model.lua")
  local r = read_robot(path, { floating_base = c.floating })
  local dof = 0
  for _, j in ipairs(r.joints) do
    dof = dof + (({ revolute = 1, prismatic = 1, planar = 3, free = 6, weld = 0 })[j.kind])
  end
  if c.floating then dof = dof + 6 end
  tap.is(tree.nz, dof, c.name .. ": as many coordinates as the URDF's joints move")

  if have_mujoco then
    H.generate(tree, dir, { functions = { "mass", "inverse_dynamics", "forward_dynamics", "total_mass" } })
    H.write(dir .. "/principal.urdf", principal.rewrite(r, { floating_base = c.floating }))
    local okc, outc = H.sh(string.format("gcc %s -I%sruntime -I%s -DMB_MODEL=%s_model %stests/peers/mj_urdf.c %s/%s.c " ..
      "-lmujoco -lm -o %s/agree", H.CFLAGS, H.root, dir, tree.name, H.root, dir, tree.name, dir))
    if not tap.ok(okc, c.name .. ": builds against MuJoCo") then tap.diag(outc) end
    local okr, outr = H.sh(string.format("%s/agree %s", dir, q(dir .. "/principal.urdf")))
    if not okr then tap.diag(outr) end
    local kv = H.keyvals(outr)
    for _, f in ipairs { "mass", "inverse_dynamics", "forward_dynamics" } do
      local e = kv[f .. "_rel"]
      tap.ok(okr and e and e < 1e-10, string.format("%s: %s equals MuJoCo's to %s relative (at most 1e-10)", c.name, f, tostring(e)))
    end
    -- Mass and centre of mass against MuJoCo on the file as it stands (fused fixed links, the root welded to the
    -- world unless it floats), where the sampler's sanitized joint names do not matter.
    local original = path
    if c.floating then
      original = dir .. "/floating.urdf"
      H.write(original, (H.read(path):gsub("</robot>", string.format('<link name="world"/><joint name="root_joint" ' ..
        'type="floating"><parent link="world"/><child link="%s"/></joint></robot>', r.root.name))))
    end
    local okm, outm = H.sh(string.format("%s/agree %s --mass-only", dir, q(original)))
    local km = H.keyvals(outm)
    local com, mass = com_at_zero(H.tree(dir .. "/model.lua"))
    tap.ok(okm and km.total_mass and math.abs(km.total_mass - km.mj_total_mass) <= 1e-12 * km.mj_total_mass
      and math.abs(mass - km.mj_total_mass) <= 1e-12 * km.mj_total_mass,
      string.format("%s: total mass %s equals MuJoCo's %s", c.name, tostring(km.total_mass), tostring(km.mj_total_mass)))
    local dc = 0
    for i, ax in ipairs { "x", "y", "z" } do dc = math.max(dc, math.abs(com[i] - (km["mj_com_" .. ax] or math.huge))) end
    tap.ok(okm and dc <= 1e-12, string.format("%s: centre of mass at the reference pose equals MuJoCo's to %.1e m", c.name, dc))
  end

  if not c.abs or c.name == "talos" then
    local okk, outk = mbgen(string.format("check %s -q%s", q(path), fl))
    if not tap.ok(okk and outk:match("checked at 5 random states: ok"), c.name .. ": mbgen check passes on the URDF") then
      tap.diag(outk)
    end
  end
end

-- Round trip: `mbgen generate ROBOT.urdf` writes NAME.md listing the URDF's links, joints and DoF.
do
  local path = H.root .. "models/robots/ur5.urdf"
  local dir = TMP .. "/roundtrip"
  local ok, out, err = mbgen(string.format("generate %s -o %s", q(path), q(dir)))
  tap.ok(ok, "mbgen generate takes a URDF directly")
  if not ok then tap.diag(out .. err) end
  local md = H.read(dir .. "/ur5.md") or ""
  local r = read_robot(path)
  local listed_links, listed_joints = {}, {}
  local section
  for line in md:gmatch("[^\n]+") do
    if line:match("^## ") then section = line end
    local cells = {}
    for cell in line:gmatch("|([^|]*)") do cells[#cells + 1] = cell:match("^%s*(.-)%s*$") end
    if section == "## Bodies" and tonumber(cells[1]) then
      listed_links[cells[2]] = true
      for w in (cells[8] or ""):gmatch("[^,%s]+") do listed_links[w] = true end
    elseif section == "## Bodies" and #cells >= 4 and cells[1] ~= "weld" and cells[1] ~= "---" then
      listed_joints[cells[1]] = true
      listed_links[cells[3]] = true
    elseif section == "## Coordinates" and tonumber(cells[1]) then
      listed_joints[cells[3]] = true
    end
  end
  local missing = {}
  for _, l in ipairs(r.links) do
    if l.name ~= "world" and not listed_links[l.id] then missing[#missing + 1] = "link " .. l.name end
  end
  for _, j in ipairs(r.joints) do
    if not listed_joints[j.id] then missing[#missing + 1] = "joint " .. j.name end
  end
  tap.ok(#missing == 0, "ur5.md lists every link and joint of the URDF" .. (#missing > 0 and (": missing " .. table.concat(missing, ", ")) or ""))
  tap.like(md, "| 6 | 0 | 0 | 0 | 6 | 0 |", "ur5.md: 6 coordinates, as the URDF's six revolute joints")
end

-- The model file: the URDF's numbers as text, elements for every joint type, what is left out named.
do
  local path = H.root .. "tests/fixtures/urdf/sampler.urdf"
  local ok, text, err = mbgen("import " .. q(path))
  tap.ok(ok, "mbgen import without -o prints the model file")
  tap.like(text, 'body "base" { mass = 4.5,', "a leading + is dropped from a number, otherwise the text is kept")
  tap.like(text, 'inertia = { 1e%-3, 1e%-3, 1.8e%-3 }', "inertias are the URDF's text")
  tap.like(text, 'rotation = { 1.5707963267948966, 0, 0 }', "joint rpy is the URDF's text")
  tap.like(text, 'free "base_free" { parent = "ground", child = "base" }', "a floating joint is a free joint")
  tap.like(text, 'revolute "wheel" {[^\n]*URDF continuous', "a continuous joint is a revolute")
  tap.like(text, 'revolute "arm_1" {[^\n]*URDF "arm%-1"', "names outside the model language are mended and the URDF name kept")
  tap.like(text, 'limit %[%-2, 2%], effort 30, velocity 4', "limits are kept as data")
  tap.like(text, 'friction 0.1 %(not applied%)', "dry friction is kept as data, said not applied")
  tap.like(text, 'joint_spring "wheel_damping" { joint = "wheel", damping = 0.25 }', "damping becomes a joint_spring")
  tap.like(text, 'weld "tip_fixed" { parent = "arm", child = "tip", origin = { 0.3, 0, 0 }, rotation = { 0, 0, 0.25 } }',
    "a fixed joint is a weld")
  tap.like(text, 'body "tool_frame" { mass = 0 }', "a link without <inertial> is massless")
  tap.like(text, 'drive "finger_b_mimic" { joint = "finger_b", position = function%(t, s%) return %-2 %* s.z.finger_a %+ 0.01 end }',
    "a mimic joint follows its leader through a drive")
  tap.like(text, "gravity { 0, 0, %-9.81 }", "gravity is -z 9.81")
  tap.like(text, "URDF has no gravity", "the model file says where its gravity comes from")
  tap.like(text, "inertia turned from the inertial frame %(rpy 0.3 %-0.2 0.5%)", "a rotated inertial frame is said")
  tap.like(err, "sampler.urdf:16: link <visual> not imported", "left-out elements are named with FILE:LINE")
  tap.like(err, "sampler.urdf:91: <gazebo> not imported", "top-level elements too")
  local okf, free = mbgen("import " .. q(path) .. " --mimic free")
  tap.ok(okf and not free:match("drive ") and free:match("an independent coordinate here"), "--mimic free leaves the mimic joint free")
  -- The mimic constraint holds along a run (Matrix R on the drive): z_b = -2 z_a + 0.01 while the arm swings.
  local csv = TMP .. "/mimic_run.csv"
  local okr, outr, errr = mbgen(string.format("run %s -q --t-end 0.3 --out %s", q(H.root .. "tests/fixtures/urdf/mimic.urdf"), q(csv)))
  if not okr then tap.diag(outr .. errr) end
  local last = H.csv_last(csv)
  local za, zb = last["z.slider_a"], last["z.slider_b"]
  tap.ok(okr and za and zb and math.abs(zb - (-2 * za + 0.01)) < 1e-8 and math.abs(za) > 1e-3,
    string.format("the mimic holds along a run of mimic.urdf (z_a %s, z_b %s)", tostring(za), tostring(zb)))
  local okp, planar = mbgen("import " .. q(H.root .. "tests/fixtures/urdf/planar.urdf"))
  tap.like(okp and planar or "", 'planar "slide" { parent = "ground", child = "puck", normal = { 0, 0, 1 } }', "a planar joint is planar")
end

-- Bad files: one line FILE:LINE: element: message, exit status 2.
local bad = {
  { "missing parent link", [[<robot name="r">
<link name="a"/>
<joint name="j" type="revolute">
  <parent link="bse"/><child link="a"/></joint>
<link name="base"/>
</robot>]], 4, 'joint "j"', 'parent link "bse" is not defined (did you mean "base"?)' },
  { "a cycle", [[<robot name="r">
<link name="a"/><link name="b"/>
<joint name="j1" type="revolute"><parent link="a"/><child link="b"/></joint>
<joint name="j2" type="revolute"><parent link="b"/><child link="a"/></joint>
</robot>]], 3, 'joint "j1"', 'closes a cycle of joints through link "a"' },
  { "two parents", [[<robot name="r">
<link name="a"/><link name="b"/><link name="c"/>
<joint name="j1" type="revolute"><parent link="a"/><child link="c"/></joint>
<joint name="j2" type="revolute"><parent link="b"/><child link="c"/></joint>
</robot>]], 4, 'joint "j2"', 'link "c" is already the child of joint "j1" (line 3)' },
  { "duplicate link", [[<robot name="r">
<link name="a"/>
<link name="a"/>
</robot>]], 3, 'link "a"', "defined twice (first at line 2)" },
  { "duplicate joint", [[<robot name="r">
<link name="a"/><link name="b"/><link name="c"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>
<joint name="j" type="revolute"><parent link="a"/><child link="c"/></joint>
</robot>]], 4, 'joint "j"', "defined twice (first at line 3)" },
  { "negative mass", [[<robot name="r">
<link name="a">
  <inertial>
    <mass value="-1"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>
  </inertial>
</link>
</robot>]], 4, 'link "a"', "negative mass -1" },
  { "inertia not positive definite", [[<robot name="r">
<link name="a">
  <inertial>
    <mass value="1"/>
    <inertia ixx="1" iyy="1" izz="1" ixy="2" ixz="0" iyz="0"/>
  </inertial>
</link>
</robot>]], 5, 'link "a"', "the inertia tensor is not positive definite" },
  { "triangle inequality", [[<robot name="r">
<link name="a">
  <inertial>
    <mass value="1"/>
    <inertia ixx="1" iyy="1" izz="3" ixy="0" ixz="0" iyz="0"/>
  </inertial>
</link>
</robot>]], 5, 'link "a"', "the inertia tensor breaks the triangle inequality (3 > 1 + 1)" },
  { "unknown joint type", [[<robot name="r">
<link name="a"/><link name="b"/>
<joint name="j" type="revolut"><parent link="a"/><child link="b"/></joint>
</robot>]], 3, 'joint "j"', 'unknown joint type "revolut" (URDF has revolute, continuous, prismatic, fixed, floating, planar) (did you mean "revolute"?)' },
  { "malformed XML", [[<robot name="r">
<link name="a">
</robot>]], 3, nil, "malformed XML: mismatched tag" },
  { "a bad number", [[<robot name="r">
<link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/>
  <origin xyz="0 0.1x 0"/></joint>
</robot>]], 4, 'joint "j"', '<origin xyz="0 0.1x 0">: "0.1x" is not a finite number' },
  { "two roots", [[<robot name="r">
<link name="a"/><link name="b"/>
</robot>]], 2, 'link "b"', "has no parent joint, and neither has a: a URDF robot has one root link" },
  { "mimic of a missing joint", [[<robot name="r">
<link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><mimic joint="k"/></joint>
</robot>]], 3, 'joint "j"', '<mimic joint="k">: no such joint' },
  { "not a robot", [[<model name="r"/>]], 1, "<model>", "a URDF file holds one <robot>" },
}
for i, b in ipairs(bad) do
  local file = string.format("%s/bad%d.urdf", TMP, i)
  H.write(file, b[2])
  local ok, out, err, code = mbgen("import " .. q(file))
  local want = file .. (b[3] and (":" .. b[3]) or "") .. (b[4] and (": " .. b[4]) or "")
  tap.ok(not ok and code == 2 and err:sub(1, #want) == want and err:find(b[5], 1, true) and not err:match("traceback"),
    b[1] .. ": " .. err:gsub("\n$", ""))
  if ok or out ~= "" then tap.diag("stdout: " .. out) end
end
local okf, _, errf, codef = mbgen("info models/tree.lua --no-functions --floating-base")
tap.ok(not okf and codef == 2 and errf:match("%-%-floating%-base applies to a URDF robot"),
  "--floating-base on a model file is refused: " .. errf:gsub("\n$", ""))
local ok, _, err, code = mbgen("import " .. q(TMP .. "/no_such.urdf"))
tap.ok(not ok and code == 2 and err:match("no_such.urdf: cannot read the URDF file"), "a missing file: " .. err:gsub("\n$", ""))
tap.done_testing()
