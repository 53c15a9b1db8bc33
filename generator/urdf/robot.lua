-- urdf/robot.lua: turns a parsed URDF document into a checked robot: links, joints in tree order, notes.
local errors = require "model.errors"
local xml = require "urdf.xml"

local M = {}

-- URDF joint types and the model-language element each becomes.
M.JOINT_KINDS = {
  revolute = "revolute", continuous = "revolute", prismatic = "prismatic", fixed = "weld",
  floating = "free", planar = "planar",
}
local KIND_LIST = "revolute, continuous, prismatic, fixed, floating, planar"

-- A number of the file as text Lua reads back to the same value, and the value: URDF numbers are copied, not
-- reprinted, so the model file shows what the URDF says (a leading "+" is the one spelling Lua refuses).
local function numeral(tok)
  local v = tonumber(tok)
  if not v or v ~= v or v == math.huge or v == -math.huge then return nil end
  local t = tok:gsub("^%+", "")
  if t:match("^%-?%d*%.?%d*[eE]?[-+]?%d*$") and tonumber(t) == v and not t:match("^%-?0[xX]") then return t, v end
  return errors.number(v), v
end

-- The identifier a URDF name becomes in the model language (letters, digits and _; "ground" is the fixed body).
function M.identifier(name)
  local id = name:gsub("[^%w_]", "_")
  if id:match("^%d") or id == "" then id = "_" .. id end
  if id == "ground" then id = "ground_link" end
  return id
end

-- Reads the attributes of one element; `bad(line, message)` raises with the element's label.
local function reader(file, label)
  local r = {}
  function r.bad(line, message) errors.raise(file, line, label, message) end
  -- A whitespace-separated list of n numbers; default when the attribute is absent (nil: required).
  function r.numbers(el, attr, n, default)
    local s = el and el.attrs[attr]
    if s == nil then
      if default == nil then r.bad(el and el.line, string.format("<%s> needs the attribute %s", el and el.tag or "?", attr)) end
      local texts, values = {}, {}
      for i = 1, n do texts[i], values[i] = errors.number(default[i]), default[i] end
      return texts, values
    end
    local texts, values = {}, {}
    for tok in s:gmatch("%S+") do
      local t, v = numeral(tok)
      if not t then r.bad(el.line, string.format('<%s %s="%s">: "%s" is not a finite number', el.tag, attr, s, tok)) end
      texts[#texts + 1], values[#values + 1] = t, v
    end
    if #texts ~= n then
      r.bad(el.line, string.format('<%s %s="%s">: needs %d number%s, got %d', el.tag, attr, s, n, n == 1 and "" or "s", #texts))
    end
    return texts, values
  end
  function r.number(el, attr, default)
    local t, v = r.numbers(el, attr, 1, default ~= nil and { default } or nil)
    return t[1], v[1]
  end
  return r
end

-- Symmetric 3x3 from URDF's six entries (ixx ixy ixz iyy iyz izz): products are tensor entries, -∫xy dm.
local function tensor(i)
  return { { i.ixx, i.ixy, i.ixz }, { i.ixy, i.iyy, i.iyz }, { i.ixz, i.iyz, i.izz } }
end

-- Positive definite by leading minors, and the triangle inequality of the principal moments (checked on the
-- diagonal, which bounds them for any frame); a tensor of zeros is a point mass and passes.
local function inertia_problem(I)
  local zero = true
  for a = 1, 3 do for b = 1, 3 do if I[a][b] ~= 0 then zero = false end end end
  if zero then return nil end
  local m1 = I[1][1]
  local m2 = I[1][1] * I[2][2] - I[1][2] * I[1][2]
  local m3 = I[1][1] * (I[2][2] * I[3][3] - I[2][3] * I[3][2]) - I[1][2] * (I[2][1] * I[3][3] - I[2][3] * I[3][1])
    + I[1][3] * (I[2][1] * I[3][2] - I[2][2] * I[3][1])
  local scale = math.max(math.abs(I[1][1]), math.abs(I[2][2]), math.abs(I[3][3]))
  if not (m1 > 0 and m2 > 0 and m3 > 0) then
    return string.format("the inertia tensor is not positive definite (leading minors %s, %s, %s; all six zero for a point mass)",
      errors.number(m1), errors.number(m2), errors.number(m3))
  end
  local d = { I[1][1], I[2][2], I[3][3] }
  for a = 1, 3 do
    local b, c = d[a % 3 + 1], d[(a + 1) % 3 + 1]
    if d[a] > b + c + 1e-12 * scale then
      return string.format("the inertia tensor breaks the triangle inequality (%s > %s + %s)",
        errors.number(d[a]), errors.number(b), errors.number(c))
    end
  end
  return nil
end

-- Elements that carry no dynamics the model language has (or that it leaves to other tools), noted by tag.
local function note_ignored(robot, el, where)
  local key = where .. "<" .. el.tag .. ">"
  local n = robot.ignored_by_key[key]
  if not n then
    n = { what = key, lines = {} }
    robot.ignored_by_key[key] = n
    robot.ignored[#robot.ignored + 1] = n
  end
  n.lines[#n.lines + 1] = el.line
end

-- The name of a <link> or <joint> (required), its label for messages and a reader of its attributes.
local function named(robot, el)
  local name = el.attrs.name
  if not name or name == "" then errors.raise(robot.file, el.line, "<" .. el.tag .. ">", "a " .. el.tag .. " needs a name") end
  local label = string.format('%s "%s"', el.tag, name)
  return name, label, reader(robot.file, label)
end

local function read_link(robot, el)
  local file = robot.file
  local name, label, r = named(robot, el)
  local link = { name = name, id = M.identifier(name), line = el.line, mass = 0, mass_text = "0", has_inertial = false }
  for _, c in ipairs(el.children) do
    if c.tag ~= "inertial" then note_ignored(robot, c, "link ") end
  end
  local inertial = xml.one(el, "inertial", file, label)
  if inertial then
    link.has_inertial, link.inertial_line = true, inertial.line
    local origin = xml.one(inertial, "origin", file, label)
    link.com_text = r.numbers(origin, "xyz", 3, { 0, 0, 0 })
    link.rpy_text, link.rpy = r.numbers(origin, "rpy", 3, { 0, 0, 0 })
    local mass = xml.one(inertial, "mass", file, label)
    if not mass then r.bad(inertial.line, "<inertial> needs a <mass>") end
    link.mass_text, link.mass = r.number(mass, "value")
    if link.mass < 0 then r.bad(mass.line, "negative mass " .. link.mass_text) end
    local inertia = xml.one(inertial, "inertia", file, label)
    if not inertia then r.bad(inertial.line, "<inertial> needs an <inertia>") end
    link.inertia_text, link.inertia = {}, {}
    for _, k in ipairs { "ixx", "iyy", "izz", "ixy", "ixz", "iyz" } do
      link.inertia_text[k], link.inertia[k] = r.number(inertia, k)
    end
    local problem = inertia_problem(tensor(link.inertia))
    if problem then r.bad(inertia.line, problem) end
    for _, c in ipairs(inertial.children) do
      if c.tag ~= "origin" and c.tag ~= "mass" and c.tag ~= "inertia" then note_ignored(robot, c, "inertial ") end
    end
  end
  return link
end

local function read_joint(robot, el)
  local file = robot.file
  local name, label, r = named(robot, el)
  local jtype = el.attrs.type
  if not jtype then r.bad(el.line, "needs a type (" .. KIND_LIST .. ")") end
  if not M.JOINT_KINDS[jtype] then
    r.bad(el.line, string.format('unknown joint type "%s" (URDF has %s)%s', jtype, KIND_LIST,
      errors.hint(jtype, { "revolute", "continuous", "prismatic", "fixed", "floating", "planar" })))
  end
  local j = { name = name, id = M.identifier(name), line = el.line, type = jtype, kind = M.JOINT_KINDS[jtype] }
  for _, side in ipairs { "parent", "child" } do
    local s = xml.one(el, side, file, label)
    if not s then r.bad(el.line, "needs a <" .. side .. ' link="...">') end
    if not s.attrs.link or s.attrs.link == "" then r.bad(s.line, "<" .. side .. "> needs a link attribute") end
    j[side], j[side .. "_line"] = s.attrs.link, s.line
  end
  local origin = xml.one(el, "origin", file, label)
  j.xyz_text, j.xyz = r.numbers(origin, "xyz", 3, { 0, 0, 0 })
  j.rpy_text, j.rpy = r.numbers(origin, "rpy", 3, { 0, 0, 0 })
  local axis = xml.one(el, "axis", file, label)
  -- URDF's default axis is x (the model language's is z), so it is always written out.
  j.axis_text, j.axis = r.numbers(axis, "xyz", 3, { 1, 0, 0 })
  if j.kind ~= "weld" and j.kind ~= "free" and j.axis[1] == 0 and j.axis[2] == 0 and j.axis[3] == 0 then
    r.bad(axis and axis.line or el.line, "the axis is zero")
  end
  local limit = xml.one(el, "limit", file, label)
  if limit then
    j.limit = { line = limit.line }
    for _, k in ipairs { "lower", "upper", "effort", "velocity" } do
      if limit.attrs[k] then j.limit[k] = r.number(limit, k) end
    end
  end
  local dyn = xml.one(el, "dynamics", file, label)
  if dyn then
    for _, k in ipairs { "damping", "friction" } do
      if dyn.attrs[k] then
        local t, v = r.number(dyn, k)
        if v < 0 then r.bad(dyn.line, string.format("negative %s %s", k, t)) end
        j[k], j[k .. "_text"] = v, t
      end
    end
  end
  local mimic = xml.one(el, "mimic", file, label)
  if mimic then
    if not mimic.attrs.joint or mimic.attrs.joint == "" then r.bad(mimic.line, "<mimic> needs a joint attribute") end
    j.mimic = { joint = mimic.attrs.joint, line = mimic.line }
    j.mimic.multiplier_text = r.number(mimic, "multiplier", 1)
    j.mimic.offset_text = r.number(mimic, "offset", 0)
  end
  local known = { parent = true, child = true, origin = true, axis = true, limit = true, dynamics = true, mimic = true }
  for _, c in ipairs(el.children) do
    if not known[c.tag] then note_ignored(robot, c, "joint ") end
  end
  return j
end

-- read(root_element, file, opts) -> robot. opts.floating_base: give the root link a free joint.
function M.read(doc, file, opts)
  opts = opts or {}
  if doc.tag ~= "robot" then errors.raise(file, doc.line, "<" .. doc.tag .. ">", "a URDF file holds one <robot>") end
  local robot = { name = doc.attrs.name or "robot", file = file, links = {}, joints = {}, link_by = {}, joint_by = {},
    ignored = {}, ignored_by_key = {} }
  local kinds = { link = { read_link, robot.links, robot.link_by }, joint = { read_joint, robot.joints, robot.joint_by } }
  for _, el in ipairs(doc.children) do
    local kind = kinds[el.tag]
    if kind then
      local x = kind[1](robot, el)
      local prev = kind[3][x.name]
      if prev then
        errors.raise(file, x.line, string.format('%s "%s"', el.tag, x.name), "defined twice (first at line " .. prev.line .. ")")
      end
      kind[3][x.name] = x
      kind[2][#kind[2] + 1] = x
    else
      note_ignored(robot, el, "")
    end
  end
  if #robot.links == 0 then errors.raise(file, doc.line, "<robot>", "has no <link>") end

  -- The tree: every joint names links that exist, and no link is the child of two joints.
  local names = {}
  for _, l in ipairs(robot.links) do names[#names + 1] = l.name end
  local parent_joint, children = {}, {}
  for _, j in ipairs(robot.joints) do
    local label = 'joint "' .. j.name .. '"'
    for _, side in ipairs { "parent", "child" } do
      if not robot.link_by[j[side]] then
        errors.raise(file, j[side .. "_line"], label, string.format('%s link "%s" is not defined%s', side, j[side],
          errors.hint(j[side], names)))
      end
    end
    if j.parent == j.child then errors.raise(file, j.line, label, 'joins link "' .. j.parent .. '" to itself') end
    local prev = parent_joint[j.child]
    if prev then
      errors.raise(file, j.line, label, string.format('link "%s" is already the child of joint "%s" (line %d): URDF ' ..
        'describes a tree (a closed loop needs a `loop` element in the model file)', j.child, prev.name, prev.line))
    end
    parent_joint[j.child] = j
    children[j.parent] = children[j.parent] or {}
    table.insert(children[j.parent], j)
  end
  for _, l in ipairs(robot.links) do
    local seen, at = { [l.name] = true }, l.name
    while parent_joint[at] do
      local j = parent_joint[at]
      at = j.parent
      if seen[at] then
        errors.raise(file, j.line, 'joint "' .. j.name .. '"', 'closes a cycle of joints through link "' .. at .. '"')
      end
      seen[at] = true
    end
  end
  local roots = {}
  for _, l in ipairs(robot.links) do if not parent_joint[l.name] then roots[#roots + 1] = l end end
  if #roots > 1 then
    local list = {}
    for i = 1, math.min(#roots, 4) do list[i] = string.format('"%s" (line %d)', roots[i].name, roots[i].line) end
    errors.raise(file, roots[2].line, 'link "' .. roots[2].name .. '"', string.format(
      "has no parent joint, and neither has %s: a URDF robot has one root link (%d roots: %s%s)",
      roots[1].name, #roots, table.concat(list, ", "), #roots > 4 and ", ..." or ""))
  end
  robot.root = roots[1]
  robot.root_is_world = robot.root.name == "world"
  if opts.floating_base and robot.root_is_world then
    errors.raise(file, robot.root.line, 'link "world"', "--floating-base: the root link is the world itself; a " ..
      "floating base needs the robot's own root link (remove the joint that fixes it to world, or import without the option)")
  end

  -- Mimics name moving joints.
  for _, j in ipairs(robot.joints) do
    if j.mimic then
      local t = robot.joint_by[j.mimic.joint]
      local label = 'joint "' .. j.name .. '"'
      if not t then
        local jn = {}
        for _, o in ipairs(robot.joints) do jn[#jn + 1] = o.name end
        errors.raise(file, j.mimic.line, label, string.format('<mimic joint="%s">: no such joint%s', j.mimic.joint,
          errors.hint(j.mimic.joint, jn)))
      end
      if j.kind ~= "revolute" and j.kind ~= "prismatic" or t.kind ~= "revolute" and t.kind ~= "prismatic" then
        errors.raise(file, j.mimic.line, label, "<mimic> couples two one-axis joints (revolute, continuous, prismatic)")
      end
    end
  end

  -- Identifiers: distinct per namespace (links; joints and the elements the importer adds for them).
  local function unique(list, what)
    local by = {}
    for _, x in ipairs(list) do
      local prev = by[x.id]
      if prev then
        errors.raise(file, x.line, what .. ' "' .. x.name .. '"', string.format('becomes the model name "%s", as %s "%s" ' ..
          "(line %d) does: rename one of them", x.id, what, prev.name, prev.line))
      end
      by[x.id] = x
    end
  end
  unique(robot.links, "link")
  unique(robot.joints, "joint")

  -- Joints in tree order: depth first from the root, children in document order (the body numbering follows).
  robot.order = {}
  local function visit(link)
    for _, j in ipairs(children[link] or {}) do
      robot.order[#robot.order + 1] = j
      visit(j.child)
    end
  end
  visit(robot.root.name)
  robot.parent_joint = parent_joint
  return robot
end

return M
