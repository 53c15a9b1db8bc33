-- model/topology.lua: turns a loaded model into the tree every formulation works on (generator/README.md).
local errors = require "model.errors"
local validate = require "model.validate"
local V3 = require "model.vec3"

local M = {}

-- Vector helpers on numbers or nodes (model/vec3.lua: operators do the mixing); 3x3 matrices are row-major.
local function is_num(x) return type(x) == "number" end
local vadd, vsub, vscale, dot, cross = V3.add, V3.sub, V3.scale, V3.dot, V3.cross
local matvec, matmul, transpose = V3.matvec, V3.matmul, V3.transpose
local function identity() return { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } end
local function zero3() return { 0, 0, 0 } end
local function zero33() return { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } } end
local function is_identity(R)
  for i = 1, 3 do
    for j = 1, 3 do
      if R[i][j] ~= (i == j and 1 or 0) then return false end
    end
  end
  return true
end

local function unit(E, v)
  local n2 = dot(v, v)
  if is_num(n2) then
    local n = math.sqrt(n2)
    if n == 1 then return { v[1], v[2], v[3] } end
    return { v[1] / n, v[2] / n, v[3] / n }
  end
  local n = E.sqrt(n2)
  return { v[1] / n, v[2] / n, v[3] / n }
end

-- In-plane directions of a planar joint: u is the joint-frame axis least aligned with the normal
-- (smallest |n_i|, first on ties) with its normal part removed, v = n x u; so (u, v, n) is right-handed
-- and normal z gives u = x, v = y; normal x gives y, z; normal y gives x, -z.
function M.planar_directions(E, n, n_numeric)
  local best
  for i = 1, 3 do
    if best == nil or math.abs(n_numeric[i]) < math.abs(n_numeric[best]) then best = i end
  end
  local e = zero3()
  e[best] = 1
  local u = unit(E, vsub(e, vscale(dot(e, n), n)))
  return u, cross(n, u)
end

local AXES = { x = { 1, 0, 0 }, y = { 0, 1, 0 }, z = { 0, 0, 1 } }

-- The 1-DOF axes of a joint: { kind, axis, origin, rotation, coord }, where the first axis carries the
-- joint's origin and rotation and every later one sits at the origin of the previous (auxiliary) body
-- frame with identity rotation, its axis expressed in that frame.
function M.expand(E, j, origin, rotation, numeric_joint)
  local names = validate.coordinate_names(j)
  local list = {}
  local function add(kind, axis)
    local first = #list == 0
    list[#list + 1] = {
      kind = kind, axis = axis, coord = names[#list + 1],
      origin = first and origin or zero3(), rotation = first and rotation or identity(),
    }
  end
  local k = j.kind
  if k == "revolute" or k == "prismatic" then
    add(k, unit(E, j.axis))
  elseif k == "universal" then
    add("revolute", unit(E, j.axes[1]))
    add("revolute", unit(E, j.axes[2]))
  elseif k == "cylindrical" then
    local a = unit(E, j.axis)
    add("prismatic", a)
    add("revolute", a)
  elseif k == "planar" then
    local n = unit(E, j.normal)
    local nn = numeric_joint and numeric_joint.normal or j.normal
    local u, v = M.planar_directions(E, n, nn)
    add("prismatic", u)
    add("prismatic", v)
    add("revolute", n)
  else -- spherical, free
    if k == "free" then
      add("prismatic", AXES.x)
      add("prismatic", AXES.y)
      add("prismatic", AXES.z)
    end
    for c in j.sequence:gmatch(".") do add("revolute", AXES[c]) end
  end
  return list
end

-- Combines mass contributions { mass, com, inertia, rotation } given in one body frame (com and the
-- rotation of each part's axes in that frame; inertia about the part's COM in the part's axes):
-- total mass, COM, and the inertia about the combined COM in the body axes (parallel-axis theorem).
function M.combine(parts)
  if #parts == 1 and is_identity(parts[1].rotation) then
    local p = parts[1]
    return p.mass, p.com, p.inertia
  end
  local m, mc = 0, zero3()
  for _, p in ipairs(parts) do
    m = m + p.mass
    mc = vadd(mc, vscale(p.mass, p.com))
  end
  local com
  if is_num(m) and m == 0 then com = zero3() else com = { mc[1] / m, mc[2] / m, mc[3] / m } end
  local I = zero33()
  for _, p in ipairs(parts) do
    local R = p.rotation
    local Ir = matmul(matmul(R, p.inertia), transpose(R))
    local d = vsub(p.com, com)
    local d2 = dot(d, d)
    for a = 1, 3 do
      for b = 1, 3 do
        I[a][b] = I[a][b] + Ir[a][b] + p.mass * ((a == b and d2 or 0) - d[a] * d[b])
      end
    end
  end
  return m, com, I
end

-- positions: the state of a general independent coordinate's function, which reads positions only.
local function placeholder_state(E, tree, file, element, line, positions)
  local function strict(kind, map, names)
    return setmetatable(map, {
      __index = function(_, name)
        errors.raise(file, line, element, string.format('s.%s.%s does not exist%s', kind, tostring(name), errors.hint(tostring(name), names)))
      end,
    })
  end
  local cn = {}
  local z, zd, zdd = {}, {}, {}
  for k, c in ipairs(tree.coords) do
    cn[#cn + 1] = c.name
    z[c.name] = E.symbol("z", k - 1, c.name)
    zd[c.name] = E.symbol("zd", k - 1, c.name)
    zdd[c.name] = E.symbol("zdd", k - 1, c.name)
  end
  local u, un = {}, {}
  for _, inp in ipairs(tree.inputs) do
    u[inp.name] = E.symbol("u", inp.index, inp.name)
    un[#un + 1] = inp.name
  end
  -- Points are placeholders for the trace only: symbols of the multiplier array at indices no model
  -- reaches, so they can never be mistaken for a real input.
  local point, pn = {}, {}
  local serial = 1000000
  for _, p in ipairs(tree.points) do
    local entry = {}
    for _, q in ipairs { "pos", "vel", "acc" } do
      entry[q] = {}
      for i, axis in ipairs { "x", "y", "z" } do
        entry[q][i] = E.symbol("w", serial, p.name .. "." .. q .. "." .. axis)
        serial = serial + 1
      end
    end
    point[p.name] = entry
    pn[#pn + 1] = p.name
  end
  if positions then
    local only = "an independent coordinate is a function of the positions (s.z, s.point.NAME.pos)"
    for _, p in ipairs(tree.points) do
      point[p.name] = setmetatable({ pos = point[p.name].pos }, { __index = function(_, key)
        errors.raise(file, line, element, string.format("s.point.%s.%s: %s", p.name, tostring(key), only))
      end })
    end
    return setmetatable({ z = strict("z", z, cn), point = strict("point", point, pn) }, {
      __index = function(_, key) errors.raise(file, line, element, string.format("s.%s: %s", tostring(key), only)) end,
    })
  end
  return {
    z = strict("z", z, cn), zd = strict("zd", zd, cn), zdd = strict("zdd", zdd, cn),
    u = strict("u", u, un), point = strict("point", point, pn),
  }
end

-- Calls a model function once with symbolic arguments and checks what it returns.
local function trace(E, tree, el, fn, args, want, what)
  local file = tree.file
  local ok, res = xpcall(function() return fn(table.unpack(args)) end, function(e)
    if errors.is_error(e) then return e end
    return errors.from_lua(e, file, el.line)
  end)
  if not ok then
    if res.element == nil then res.element = el.element end
    error(res, 0)
  end
  local function scalar(v) return type(v) == "number" or E.is_node(v) end
  local good
  if want == "vec3" then
    good = type(res) == "table" and #res == 3 and scalar(res[1]) and scalar(res[2]) and scalar(res[3])
  else
    good = scalar(res)
  end
  if not good then
    errors.raise(file, el.line, el.element, string.format("%s must return %s (got %s)", what,
      want == "vec3" and "a vector of 3 expressions" or "a number or an expression", type(res)))
  end
  -- A NaN or an infinity folded into the expression would reach the generated C as a literal.
  local load = require "model.load"
  for _, v in ipairs(want == "vec3" and res or { res }) do
    local problem = load.expression_problem(E, v)
    if problem then errors.raise(file, el.line, el.element, string.format("%s returns an expression that %s", what, problem)) end
  end
end

-- build(model) -> tree (generator/README.md, "The tree").
function M.build(model, opts)
  opts = opts or {}
  local E = opts.E or require "sym.expr"
  local file = model.file
  local numeric = model.numeric or model
  local tree = {
    name = model.name, description = model.description, file = file, gravity = model.gravity,
    bodies = {}, coords = {}, frames = {}, points = {}, springs = {}, joint_springs = {},
    torques = {}, forces = {}, tyres = {}, constraints = {}, parameters = {}, design = {}, inputs = {},
    initial = {}, initial_velocity = {}, independent = {}, simulate = {}, objectives = {}, welds = {},
  }
  local bodies_by_name, numeric_joint = {}, {}
  for _, b in ipairs(model.bodies) do bodies_by_name[b.name] = b end
  local children = {}
  for i, j in ipairs(model.joints) do
    numeric_joint[j] = numeric.joints[i]
    children[j.parent] = children[j.parent] or {}
    table.insert(children[j.parent], j)
  end

  local parts = { [0] = {} }
  tree.frames.ground = { body = 0, origin = zero3(), rotation = identity() }
  -- Depth-first from ground, children in declaration order: parent index < child index, and every
  -- subtree gets a contiguous block of indices.
  local function visit(name, host, origin, rotation)
    for _, j in ipairs(children[name] or {}) do
      local o = vadd(origin, matvec(rotation, j.origin))
      local R = j.rotation and matmul(rotation, j.rotation) or rotation
      local child = bodies_by_name[j.child]
      if j.kind == "weld" then
        tree.frames[j.child] = { body = host, origin = o, rotation = R, weld = j.name }
        tree.welds[#tree.welds + 1] = { name = j.name, parent = j.parent, child = j.child, line = j.line }
        table.insert(parts[host], { mass = child.mass, com = vadd(o, matvec(R, child.com)),
          inertia = child.inertia, rotation = R })
        visit(j.child, host, o, R)
      else
        local axes = M.expand(E, j, o, R, numeric_joint[j])
        local parent = host
        for i, ax in ipairs(axes) do
          local k = #tree.bodies + 1
          local last = i == #axes
          local body = {
            name = last and j.child or (j.name .. "." .. i), parent = parent, children = {},
            aux = not last, line = last and child.line or j.line,
            joint = { name = j.name, kind = ax.kind, origin = ax.origin, rotation = ax.rotation,
              axis = ax.axis, coord = k, line = j.line, user_kind = j.kind },
          }
          tree.bodies[k] = body
          if parent > 0 then table.insert(tree.bodies[parent].children, k) end
          tree.coords[k] = { name = ax.coord, joint = j.name, body = k, kind = ax.kind }
          parts[k] = {}
          if last then
            table.insert(parts[k], { mass = child.mass, com = child.com, inertia = child.inertia, rotation = identity() })
          end
          parent = k
        end
        tree.frames[j.child] = { body = parent, origin = zero3(), rotation = identity() }
        visit(j.child, parent, zero3(), identity())
      end
    end
  end
  visit("ground", 0, zero3(), identity())
  -- A general independent coordinate q = h(z, rho) becomes a coordinate of its own: a massless body that
  -- slides on ground, which nothing loads, and the constraint h(z, rho) - q = 0 (below). Holding q is then
  -- holding h, and every formulation and sensitivity sees the completed system [Phi_z; h_z] of
  -- seeds/000.md eq. 13 with its derivative terms, through the constraint functions.
  local general = model.independent and model.independent.h or {}
  for _, h in ipairs(general) do
    local k = #tree.bodies + 1
    tree.bodies[k] = {
      name = h.name, parent = 0, children = {}, aux = false, line = h.line, independent_h = true,
      joint = { name = h.name, kind = "prismatic", origin = zero3(), rotation = identity(), axis = { 1, 0, 0 },
        coord = k, line = h.line, user_kind = "independent" },
    }
    tree.coords[k] = { name = h.name, joint = h.name, body = k, kind = "prismatic", independent_h = true }
    parts[k] = {}
  end
  tree.root_children = {}
  for k, b in ipairs(tree.bodies) do
    if b.parent == 0 then table.insert(tree.root_children, k) end
    if #parts[k] == 0 then
      b.mass, b.com, b.inertia = 0, zero3(), zero33()
    else
      b.mass, b.com, b.inertia = M.combine(parts[k])
    end
    b.welded = {}
    b.ancestors, b.ancestor_set = {}, {}
    local p = b.parent
    while p > 0 do
      table.insert(b.ancestors, 1, p)
      b.ancestor_set[p] = true
      p = tree.bodies[p].parent
    end
  end
  for name, f in pairs(tree.frames) do
    if f.weld and f.body > 0 then table.insert(tree.bodies[f.body].welded, name) end
  end
  for _, b in ipairs(tree.bodies) do table.sort(b.welded) end
  tree.nb, tree.nz = #tree.bodies, #tree.coords

  -- Attachments on user bodies, re-expressed in the frame of the tree body that carries them.
  local function attach(name, at)
    local f = tree.frames[name]
    if not f.weld then return { body = f.body, at = { at[1], at[2], at[3] } } end
    return { body = f.body, at = vadd(f.origin, matvec(f.rotation, at)) }
  end
  local function direction(name, v)
    if v == nil then return nil end
    if not tree.frames[name].weld then return { v[1], v[2], v[3] } end
    return matvec(tree.frames[name].rotation, v)
  end
  local coord_index = {}
  for k, c in ipairs(tree.coords) do coord_index[c.name] = k end
  local function coord_of(jname) return coord_index[jname] end

  local els = model.elements
  for _, p in ipairs(els.point) do
    local a = attach(p.body, p.at)
    tree.points[#tree.points + 1] = { name = p.name, body = a.body, at = a.at, line = p.line, user_body = p.body }
  end
  for _, s in ipairs(els.spring) do
    tree.springs[#tree.springs + 1] = { name = s.name, a = attach(s.a.body, s.a.at), b = attach(s.b.body, s.b.at),
      stiffness = s.stiffness, length = s.length, damping = s.damping, force = s.force, line = s.line }
  end
  for _, s in ipairs(els.joint_spring) do
    tree.joint_springs[#tree.joint_springs + 1] = { name = s.name, coord = coord_of(s.joint), stiffness = s.stiffness,
      rest = s.rest, damping = s.damping, line = s.line }
  end
  for _, t in ipairs(els.torque) do
    tree.torques[#tree.torques + 1] = { name = t.name, coord = coord_of(t.joint), value = t.value, line = t.line }
  end
  for _, f in ipairs(els.force) do
    local a = attach(f.body, f.at)
    local value = f.value
    local R = tree.frames[f.body].rotation
    if f.frame == "body" and not is_identity(R) then
      if type(value) == "function" then
        local user = value
        value = function(...) return matvec(R, user(...)) end
      else
        value = matvec(R, value)
      end
    end
    tree.forces[#tree.forces + 1] = { name = f.name, body = a.body, at = a.at, value = value, frame = f.frame, line = f.line }
  end
  for _, ty in ipairs(els.tyre) do
    local a = attach(ty.body, ty.at)
    tree.tyres[#tree.tyres + 1] = { name = ty.name, body = a.body, at = a.at, axis = direction(ty.body, ty.axis),
      radius = ty.radius, stiffness = ty.stiffness, damping = ty.damping, longitudinal = ty.longitudinal,
      lateral = ty.lateral, road = ty.road, speed_eps = ty.speed_eps, line = ty.line, element = ty.element }
  end
  local row = 1
  local function constraint(c)
    c.row = row
    row = row + c.equations
    tree.constraints[#tree.constraints + 1] = c
  end
  for _, l in ipairs(els.loop) do
    constraint { kind = "loop", name = l.name, type = l.type, a = attach(l.a.body, l.a.at), b = attach(l.b.body, l.b.at),
      axis = direction(l.a.body, l.axis), axis_b = direction(l.b.body, l.axis_b or l.axis),
      normal = direction(l.b.body, l.normal or ((l.type == "point2d" or l.type == "prismatic2d") and { 0, 0, 1 } or nil)),
      length = l.length, equations = validate.loop_types[l.type], line = l.line }
  end
  for _, r in ipairs(els.rod) do
    constraint { kind = "rod", name = r.name, type = "distance", a = attach(r.a.body, r.a.at), b = attach(r.b.body, r.b.at),
      mass = r.mass, length = r.length, equations = 1, line = r.line }
    -- The model's rod mode: that of its massive rods (validate.lua makes them agree).
    if not E.is_zero(r.mass) and not tree.rod_inertia then
      tree.rod_inertia = { mode = r.inertia, partitioned = r.partitioned }
    end
  end
  for _, d in ipairs(els.drive) do
    constraint { kind = "drive", name = d.name, coord = coord_of(d.joint), position = d.position, equations = 1, line = d.line }
  end
  for _, h in ipairs(general) do
    constraint { kind = "coordinate", name = h.name, coord = coord_of(h.name), h = h.fn, equations = 1, line = h.line }
  end
  tree.nc = row - 1

  -- Parameters: constants and design names together, sorted by name; design names in p order.
  for _, c in ipairs(model.constants) do
    tree.parameters[#tree.parameters + 1] = { name = c.name, kind = "constant", value = c.value, line = c.line }
  end
  local design_index = {}
  for i, n in ipairs(model.design_order) do
    design_index[n] = i - 1
    tree.design[i] = n
  end
  for _, d in ipairs(model.design) do
    tree.parameters[#tree.parameters + 1] = { name = d.name, kind = "design", value = d.value,
      index = design_index[d.name], line = d.line }
  end
  table.sort(tree.parameters, function(a, b) return a.name < b.name end)
  for _, inp in ipairs(model.inputs) do tree.inputs[#tree.inputs + 1] = { name = inp.name, index = inp.index } end
  for _, e in ipairs(model.initial) do tree.initial[coord_index[e.name]] = e.value end
  for _, e in ipairs(model.initial_velocity) do tree.initial_velocity[coord_index[e.name]] = e.value end
  if model.independent then
    for _, n in ipairs(model.independent.names) do table.insert(tree.independent, coord_index[n]) end
    for _, h in ipairs(general) do table.insert(tree.independent, coord_index[h.name]) end
  end
  for k, v in pairs(model.simulate) do if k ~= "line" then tree.simulate[k] = v end end
  for _, o in ipairs(els.objective) do
    tree.objectives[#tree.objectives + 1] = { name = o.name, integrand = o.integrand, terminal = o.terminal, line = o.line }
  end

  -- Functions given in the model are traced once here with symbolic arguments, so a typo in a
  -- coordinate name is reported now with its line, not later inside a formulation.
  if not opts.no_trace then
    local t = E.symbol("t", nil, "t")
    local function s_for(el) return placeholder_state(E, tree, file, el.element, el.line) end
    for _, el in ipairs(els.torque) do
      if type(el.value) == "function" then trace(E, tree, el, el.value, { t, s_for(el) }, "scalar", 'field "value"') end
    end
    for _, el in ipairs(els.force) do
      if type(el.value) == "function" then trace(E, tree, el, el.value, { t, s_for(el) }, "vec3", 'field "value"') end
    end
    for _, el in ipairs(els.drive) do
      if type(el.position) == "function" then trace(E, tree, el, el.position, { t, s_for(el) }, "scalar", 'field "position"') end
    end
    for _, el in ipairs(els.spring) do
      if el.force then
        trace(E, tree, el, el.force, { E.symbol("w", 999998, el.name .. ".x"), E.symbol("w", 999999, el.name .. ".v") },
          "scalar", 'field "force"')
      end
    end
    for _, el in ipairs(els.tyre) do
      if el.road then
        trace(E, tree, el, el.road, { E.symbol("w", 999996, el.name .. ".x"), E.symbol("w", 999997, el.name .. ".y") },
          "scalar", 'field "road"')
      end
    end
    for _, h in ipairs(general) do
      local el = { element = "independent", line = h.line }
      trace(E, tree, el, h.fn, { placeholder_state(E, tree, file, el.element, el.line, true) }, "scalar",
        'coordinate "' .. h.name .. '"')
    end
    for _, el in ipairs(els.objective) do
      if el.integrand then trace(E, tree, el, el.integrand, { t, s_for(el) }, "scalar", 'field "integrand"') end
      if el.terminal then trace(E, tree, el, el.terminal, { s_for(el) }, "scalar", 'field "terminal"') end
    end
  end
  return tree
end

return M
