-- urdf/model_text.lua: writes a checked URDF robot (urdf/robot.lua) as a model file of the model language.
local vec3 = require "model.vec3"

local M = {}

local function q(s) return string.format("%q", s) end
local function vec(t) return "{ " .. table.concat(t, ", ") .. " }" end
local function all_zero(values)
  for _, v in ipairs(values) do if v ~= 0 then return false end end
  return true
end


-- The body element of a link: its URDF numbers as written, or the inertia turned into the link frame
-- (R I R^T) when the inertial frame is rotated.
local function body_line(l)
  if not l.has_inertial then
    return string.format("body %s { mass = 0 }", q(l.id)), "no <inertial>: a massless frame"
  end
  local it = l.inertia_text
  local inertia
  if all_zero(l.rpy) then
    local products = l.inertia.ixy ~= 0 or l.inertia.ixz ~= 0 or l.inertia.iyz ~= 0
    inertia = products and { it.ixx, it.iyy, it.izz, it.ixy, it.ixz, it.iyz } or { it.ixx, it.iyy, it.izz }
  else
    local i = l.inertia
    local R = vec3.rpy(l.rpy[1], l.rpy[2], l.rpy[3])
    local I = vec3.matmul(vec3.matmul(R, { { i.ixx, i.ixy, i.ixz }, { i.ixy, i.iyy, i.iyz }, { i.ixz, i.iyz, i.izz } }),
      vec3.transpose(R))
    inertia = {}
    for k, ab in ipairs { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 1, 2 }, { 1, 3 }, { 2, 3 } } do
      inertia[k] = string.format("%.17g", I[ab[1]][ab[2]])
    end
  end
  local com = all_zero({ tonumber(l.com_text[1]), tonumber(l.com_text[2]), tonumber(l.com_text[3]) }) and "" or
    ", com = " .. vec(l.com_text)
  local inert = all_zero { tonumber(inertia[1]), tonumber(inertia[2]), tonumber(inertia[3]) } and "" or
    ", inertia = " .. vec(inertia)
  local why = not all_zero(l.rpy) and ("inertia turned from the inertial frame (rpy " .. table.concat(l.rpy_text, " ") .. ")") or nil
  return string.format("body %s { mass = %s%s%s }", q(l.id), l.mass_text, com, inert), why
end

-- The joint element: parent, child, the joint frame (origin, rotation) and the axis, as in the URDF.
local function joint_line(robot, j, parent_id)
  local fields = { "parent = " .. q(parent_id), "child = " .. q(robot.link_by[j.child].id) }
  if not all_zero(j.xyz) then fields[#fields + 1] = "origin = " .. vec(j.xyz_text) end
  if not all_zero(j.rpy) then fields[#fields + 1] = "rotation = " .. vec(j.rpy_text) end
  if j.kind == "revolute" or j.kind == "prismatic" then
    fields[#fields + 1] = "axis = " .. vec(j.axis_text)
  elseif j.kind == "planar" then
    fields[#fields + 1] = "normal = " .. vec(j.axis_text)
  end
  return string.format("%s %s { %s }", j.kind, q(j.id), table.concat(fields, ", "))
end

-- What the model language has no element for, kept beside the joint as data for the reader.
local function joint_data(j)
  local parts = {}
  if j.type == "floating" then
    parts[#parts + 1] = "URDF floating: position, then x-y-z Euler angles of the moving frame (MuJoCo, Pinocchio: a quaternion)"
  elseif j.type ~= j.kind then
    parts[#parts + 1] = "URDF " .. j.type
  end
  local l = j.limit
  if l then
    local lim = {}
    if l.lower or l.upper then lim[#lim + 1] = string.format("[%s, %s]", l.lower or "?", l.upper or "?") end
    if l.effort then lim[#lim + 1] = "effort " .. l.effort end
    if l.velocity then lim[#lim + 1] = "velocity " .. l.velocity end
    if #lim > 0 then parts[#parts + 1] = "limit " .. table.concat(lim, ", ") end
  end
  if j.friction and j.friction ~= 0 then parts[#parts + 1] = "friction " .. j.friction_text .. " (not applied)" end
  return parts
end

local function line_comment(text, comment)
  if not comment or comment == "" then return text end
  return text .. "  -- " .. comment
end

-- write(robot, opts) -> the model file's text. opts: source (the path to name), floating_base, mimic
-- ("constraint": a drive per mimic joint; "free": an independent coordinate, as MuJoCo does).
function M.write(robot, opts)
  local out = {}
  local function add(s) out[#out + 1] = s or "" end
  local mimic = opts.mimic or "constraint"
  local source = opts.source or robot.file
  local moving = 0
  for _, j in ipairs(robot.joints) do if j.kind ~= "weld" then moving = moving + 1 end end
  local joint_ids = {}
  for _, j in ipairs(robot.joints) do joint_ids[j.id] = true end
  local function fresh(id)
    while joint_ids[id] do id = id .. "_" end
    return id
  end
  local root = robot.root

  local name = robot.name:gsub("[^%w_]", "_")
  if not name:match("^[%a_]") then name = "_" .. name end
  add(string.format("-- %s.lua: the URDF robot \"%s\", written by `mbgen import` (import again rather than edit) from", name,
    robot.name))
  add("-- " .. source .. ".")
  add("-- Numbers are the URDF's text. Links are bodies (mass, centre of mass, inertia about it, in the link frame),")
  add("-- joints keep their names; a fixed joint is a weld (the child merged into its parent), continuous a revolute.")
  add("-- A coordinate is 0 at the pose the URDF describes. URDF has no gravity: this file assumes -z, 9.81 m/s^2.")
  add("-- Limits and dry friction are kept as comments (the model language has no element for them); joint damping is")
  add("-- a joint_spring.")
  if robot.root_is_world then
    add('-- The root link "world" is the ground.')
  elseif opts.floating_base then
    add(string.format('-- Floating base (--floating-base): the free joint "%s" carries the root link "%s" (position, then',
      fresh("root_joint"), root.name))
    add("-- x-y-z Euler angles of the moving frame; MuJoCo and Pinocchio use a quaternion instead).")
  else
    add(string.format('-- The root link "%s" is welded to the ground, as MuJoCo does (--floating-base gives it a free joint).', root.name))
  end
  add(string.format("model %s", q(name)))
  add(string.format("description %s", q(string.format("%s from %s: %d links, %d joints (%d moving)", robot.name,
    source:match("[^/]*$"), #robot.links, #robot.joints, moving))))
  add()
  add("gravity { 0, 0, -9.81 }")
  add()

  local function parent_id(link_name)
    if robot.root_is_world and link_name == "world" then return "ground" end
    return robot.link_by[link_name].id
  end
  add("-- Links, from the root")
  local links = {}
  if not robot.root_is_world then links[1] = root end
  for _, j in ipairs(robot.order) do links[#links + 1] = robot.link_by[j.child] end
  for _, l in ipairs(links) do
    local text, why = body_line(l)
    local comment = string.format("line %d", l.line) .. (l.id ~= l.name and (', URDF "' .. l.name .. '"') or "") ..
      (why and ("; " .. why) or "")
    add(line_comment(text, comment))
  end
  if robot.root_is_world and root.has_inertial and root.mass ~= 0 then
    add(string.format('-- link "world" (line %d) declares mass %s: the ground has none, so it is dropped', root.line, root.mass_text))
  end
  add()
  add("-- Joints, from the root: the joint frame sits at origin, turned by rotation (roll, pitch, yaw), in the parent's frame")
  if not robot.root_is_world then
    if opts.floating_base then
      add(string.format("free %s { parent = \"ground\", child = %s }", q(fresh("root_joint")), q(root.id)))
    else
      add(string.format("weld %s { parent = \"ground\", child = %s }", q(fresh(root.id .. "_to_ground")), q(root.id)))
    end
  end
  local mimics = {}
  for _, j in ipairs(robot.order) do
    local data = joint_data(j)
    table.insert(data, 1, string.format("line %d", j.line) .. (j.id ~= j.name and (', URDF "' .. j.name .. '"') or ""))
    if j.mimic then
      local m = j.mimic
      local t = robot.joint_by[m.joint]
      data[#data + 1] = string.format("mimics %s (multiplier %s, offset %s)%s", t.id, m.multiplier_text, m.offset_text,
        mimic == "free" and ": an independent coordinate here (--mimic free)" or "")
      if mimic == "constraint" then mimics[#mimics + 1] = j end
    end
    add(line_comment(joint_line(robot, j, parent_id(j.parent)), table.concat(data, "; ")))
  end
  local damped = {}
  for _, j in ipairs(robot.order) do if j.damping and j.damping ~= 0 and j.kind ~= "weld" then damped[#damped + 1] = j end end
  if #damped > 0 then
    add()
    add("-- Joint damping (URDF <dynamics damping>): a torque or force -damping * rate")
    for _, j in ipairs(damped) do
      add(string.format("joint_spring %s { joint = %s, damping = %s }", q(j.id .. "_damping"), q(j.id), j.damping_text))
    end
  end
  if #mimics > 0 then
    add()
    add("-- Mimic joints (URDF <mimic>): z = multiplier * z_leader + offset, a constraint (--mimic free leaves them free)")
    for _, j in ipairs(mimics) do
      local m = j.mimic
      local leader = "s.z." .. robot.joint_by[m.joint].id
      local mult = tonumber(m.multiplier_text)
      local expr = mult == 1 and leader or mult == -1 and ("-" .. leader) or (m.multiplier_text .. " * " .. leader)
      if tonumber(m.offset_text) ~= 0 then expr = expr .. " + " .. m.offset_text end
      add(string.format("drive %s { joint = %s, position = function(t, s) return %s end }", q(j.id .. "_mimic"), q(j.id), expr))
    end
  end
  add()
  add('simulate { t_end = 1, step = 1e-3, integrator = "rk4" }')
  if #robot.ignored > 0 then
    add()
    add("-- Not imported: elements without dynamics in the model language (visuals, collisions, actuators, plug-ins)")
    for _, n in ipairs(robot.ignored) do
      local lines = {}
      for i = 1, math.min(#n.lines, 8) do lines[i] = tostring(n.lines[i]) end
      add(string.format("--   %s x%d, line%s %s%s", n.what, #n.lines, #n.lines > 1 and "s" or "", table.concat(lines, ", "),
        #n.lines > 8 and ", ..." or ""))
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- The same notes for the terminal, one line each: FILE:LINE: what was left out.
function M.notes(robot)
  local out = {}
  for _, n in ipairs(robot.ignored) do
    out[#out + 1] = string.format("%s:%d: %s not imported (%d in the file)", robot.file, n.lines[1], n.what, #n.lines)
  end
  return out
end

return M
