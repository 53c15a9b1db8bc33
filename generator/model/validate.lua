-- model/validate.lua: checks a numeric model (design names at their defaults) for every error a user can make.
local errors = require "model.errors"

local M = {}

-- How a massive rod's second-derivative inertia forces enter (seeds/002.md §2.3-2.4).
M.rod_modes = { exact = true, point = true, linear = true, quadratic = true }

local SEQUENCES = { xyz = true, xzy = true, yxz = true, yzx = true, zxy = true, zyx = true }
M.loop_types = { spherical = 3, revolute = 5, point2d = 2, distance = 1, prismatic2d = 2 }
M.frames = { ground = true, body = true }

-- Coordinate names of a joint, in axis order (see generator/README.md, "Joint expansion").
function M.coordinate_names(j)
  local n = j.name
  local k = j.kind
  if k == "revolute" or k == "prismatic" then return { n } end
  if k == "weld" then return {} end
  if k == "universal" then return { n .. ".1", n .. ".2" } end
  if k == "cylindrical" then return { n .. ".t", n .. ".r" } end
  if k == "planar" then return { n .. ".u", n .. ".v", n .. ".r" } end
  local rot = {}
  for c in (j.sequence or "xyz"):gmatch(".") do rot[#rot + 1] = n .. ".r" .. c end
  if k == "spherical" then return rot end
  return { n .. ".x", n .. ".y", n .. ".z", rot[1], rot[2], rot[3] }
end

-- Real eigenvalues of a symmetric 3x3 matrix, ascending (closed form, Smith 1961).
function M.sym_eigenvalues(A)
  local p1 = A[1][2] ^ 2 + A[1][3] ^ 2 + A[2][3] ^ 2
  local q = (A[1][1] + A[2][2] + A[3][3]) / 3
  if p1 == 0 then
    local e = { A[1][1], A[2][2], A[3][3] }
    table.sort(e)
    return e
  end
  local p2 = (A[1][1] - q) ^ 2 + (A[2][2] - q) ^ 2 + (A[3][3] - q) ^ 2 + 2 * p1
  local p = math.sqrt(p2 / 6)
  local B = {}
  for i = 1, 3 do
    B[i] = {}
    for j = 1, 3 do B[i][j] = (A[i][j] - (i == j and q or 0)) / p end
  end
  local detB = B[1][1] * (B[2][2] * B[3][3] - B[2][3] * B[3][2])
      - B[1][2] * (B[2][1] * B[3][3] - B[2][3] * B[3][1])
      + B[1][3] * (B[2][1] * B[3][2] - B[2][2] * B[3][1])
  local r = math.max(-1, math.min(1, detB / 2))
  local phi = math.acos(r) / 3
  local e1 = q + 2 * p * math.cos(phi)
  local e3 = q + 2 * p * math.cos(phi + 2 * math.pi / 3)
  local e = { e1, 3 * q - e1 - e3, e3 }
  table.sort(e)
  return e
end

local function det3(R)
  return R[1][1] * (R[2][2] * R[3][3] - R[2][3] * R[3][2])
      - R[1][2] * (R[2][1] * R[3][3] - R[2][3] * R[3][1])
      + R[1][3] * (R[2][1] * R[3][2] - R[2][2] * R[3][1])
end

local function norm(v) return math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2) end

-- Checks a numeric model; raises the first error found.
function M.check(model)
  local file = model.file
  local function fail(el, message, line)
    errors.raise(file, line or (el and el.line), el and el.element, message)
  end

  if not model.name:match("^[%a_][%w_]*$") then
    errors.raise(file, model.name_line, "model", string.format('"%s" is not a valid C identifier (letters, digits and _)', model.name))
  end

  -- Names: unique per kind (all joint kinds share one namespace, since coordinates are named after joints).
  local bodies, joints = {}, {}
  local body_names, joint_names = {}, {}
  for _, b in ipairs(model.bodies) do
    if b.name == "ground" then fail(b, '"ground" is the fixed body and cannot be declared') end
    if not b.name:match("^[%a_][%w_]*$") then fail(b, "a body name uses letters, digits and _ only") end
    if bodies[b.name] then fail(b, string.format("duplicate body name (first declared on line %d)", bodies[b.name].line)) end
    bodies[b.name] = b
    body_names[#body_names + 1] = b.name
  end
  for _, j in ipairs(model.joints) do
    if not j.name:match("^[%a_][%w_]*$") then fail(j, "a joint name uses letters, digits and _ only") end
    if joints[j.name] then fail(j, string.format("duplicate joint name (first declared on line %d)", joints[j.name].line)) end
    joints[j.name] = j
    joint_names[#joint_names + 1] = j.name
  end
  local joint_kinds = require("model.load").joint_kinds
  for _, kind in ipairs(require("model.sandbox").named_kinds) do
    local list = model.elements[kind]
    if kind ~= "body" and not joint_kinds[kind] then
      local seen = {}
      for _, el in ipairs(list) do
        if seen[el.name] then fail(el, string.format("duplicate %s name (first declared on line %d)", kind, seen[el.name].line)) end
        seen[el.name] = el
      end
    end
  end

  -- Bodies: mass properties.
  for _, b in ipairs(model.bodies) do
    if b.mass < 0 then fail(b, string.format("negative mass %g", b.mass)) end
    local I = b.inertia
    for i = 1, 3 do
      for k = 1, 3 do
        if I[i][k] ~= I[k][i] then fail(b, "inertia must be symmetric") end
      end
    end
    local e = M.sym_eigenvalues(I)
    local scale = math.max(math.abs(e[1]), math.abs(e[3]), 1e-300)
    local tol = 1e-12 * scale
    if e[1] < -tol then
      fail(b, string.format("inertia is not positive semidefinite (principal moments %.6g %.6g %.6g)", e[1], e[2], e[3]))
    end
    if e[1] + e[2] < e[3] - tol then
      fail(b, string.format("inertia violates the triangle inequality (principal moments %.6g + %.6g < %.6g)", e[1], e[2], e[3]))
    end
  end

  -- Joints: references, frames, axes.
  local parent_of = {}
  local function body_ref(el, name, role, allow_ground)
    if name == "ground" then
      if not allow_ground then fail(el, string.format('%s cannot be "ground"', role)) end
      return
    end
    if not bodies[name] then
      local cands = { table.unpack(body_names) }
      if allow_ground then cands[#cands + 1] = "ground" end
      fail(el, string.format('%s "%s" is not defined%s', role, name, errors.hint(name, cands)))
    end
  end
  local function unit_axis(el, v, field)
    if norm(v) < 1e-12 then fail(el, string.format('field "%s" is a zero vector', field)) end
  end
  for _, j in ipairs(model.joints) do
    body_ref(j, j.parent, "parent body", true)
    body_ref(j, j.child, "child body", false)
    if j.parent == j.child then fail(j, "parent and child are the same body") end
    if parent_of[j.child] then
      local first = parent_of[j.child]
      fail(j, string.format('body "%s" already has parent joint "%s" (line %d); a body has one parent joint: declare one of them as a loop',
        j.child, first.name, first.line))
    end
    parent_of[j.child] = j
    if j.rotation then
      local R = j.rotation
      local worst = 0
      for a = 1, 3 do
        for b = 1, 3 do
          local s = 0
          for k = 1, 3 do s = s + R[a][k] * R[b][k] end
          worst = math.max(worst, math.abs(s - (a == b and 1 or 0)))
        end
      end
      if worst > 1e-9 or det3(R) < 0 then
        fail(j, string.format('field "rotation" is not a rotation (orthonormal with determinant +1): |R Rt - I| = %.3g, det = %.6g', worst, det3(R)))
      end
    end
    if j.axis then unit_axis(j, j.axis, "axis") end
    if j.normal then unit_axis(j, j.normal, "normal") end
    if j.axes then
      unit_axis(j, j.axes[1], "axes[1]")
      unit_axis(j, j.axes[2], "axes[2]")
      local a, b = j.axes[1], j.axes[2]
      local cx = { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
      if norm(cx) < 1e-9 * norm(a) * norm(b) then fail(j, 'field "axes": the two axes are parallel') end
    end
    if j.sequence and not SEQUENCES[j.sequence] then
      fail(j, string.format('field "sequence" must be a permutation of "xyz" (got "%s")', j.sequence))
    end
  end

  -- Every body hangs from ground through a chain of joints.
  for _, b in ipairs(model.bodies) do
    local seen, name = {}, b.name
    while name ~= "ground" do
      if seen[name] or not parent_of[name] then
        fail(b, "is not connected to ground (no chain of joints leads from ground to it)")
      end
      seen[name] = true
      name = parent_of[name].parent
    end
  end

  -- Coordinates and references to joints.
  local coords, coord_list = {}, {}
  for _, j in ipairs(model.joints) do
    for _, n in ipairs(M.coordinate_names(j)) do
      coords[n] = j
      coord_list[#coord_list + 1] = n
    end
  end
  local function coord_ref(el, name)
    if coords[name] then return end
    local j = joints[name]
    if j then
      local names = M.coordinate_names(j)
      if #names == 0 then fail(el, string.format('joint "%s" is a weld and has no coordinate', name)) end
      fail(el, string.format('joint "%s" has %d coordinates: name one of %s', name, #names, table.concat(names, ", ")))
    end
    local cands = { table.unpack(coord_list) }
    fail(el, string.format('joint "%s" is not defined%s', name, errors.hint(name, cands)))
  end

  local E = model.elements
  for _, kind in ipairs { "loop", "rod", "spring" } do
    for _, el in ipairs(E[kind]) do
      body_ref(el, el.a.body, "body", true)
      body_ref(el, el.b.body, "body", true)
      if el.a.body == el.b.body then fail(el, "both ends are on the same body") end
    end
  end
  for _, el in ipairs(E.loop) do
    local n = M.loop_types[el.type]
    if not n then
      local types = {}
      for t in pairs(M.loop_types) do types[#types + 1] = t end
      table.sort(types)
      fail(el, string.format('unknown loop type "%s"%s (types: %s)', el.type, errors.hint(el.type, types), table.concat(types, ", ")))
    end
    if (el.type == "revolute" or el.type == "prismatic2d") and not el.axis then
      fail(el, string.format('field "axis" is required by a %s loop', el.type))
    end
    if el.type == "distance" and not el.length then fail(el, 'field "length" is required by a distance loop') end
    if el.type == "distance" and el.length <= 0 then fail(el, 'field "length" must be positive') end
    if el.axis then unit_axis(el, el.axis, "axis") end
    if el.axis_b then unit_axis(el, el.axis_b, "axis_b") end
    if el.normal then unit_axis(el, el.normal, "normal") end
  end
  -- The rod modes (seeds/002.md §2.3-2.6) are one choice for the model: the generated code holds one approximated
  -- form, and mbgen run --rod-inertia changes every rod at once.
  local first_massive
  for _, el in ipairs(E.rod) do
    if el.mass < 0 then fail(el, string.format("negative mass %g", el.mass)) end
    if el.length and el.length <= 0 then fail(el, 'field "length" must be positive') end
    if not M.rod_modes[el.inertia] then
      fail(el, string.format('field "inertia" must be "exact", "point", "linear" or "quadratic" (got "%s")', el.inertia))
    end
    if el.mass > 0 then
      local f = first_massive
      if f and (f.inertia ~= el.inertia or f.partitioned ~= el.partitioned) then
        fail(el, string.format('inertia "%s"%s differs from rod "%s" (line %d, inertia "%s"%s): every massive rod of a ' ..
          "model takes the same mode", el.inertia, el.partitioned and ", partitioned" or "", f.name, f.line, f.inertia,
          f.partitioned and ", partitioned" or ""))
      end
      first_massive = f or el
    end
  end
  for _, el in ipairs(E.spring) do
    if el.length < 0 then fail(el, 'field "length" must not be negative') end
    if el.damping < 0 then fail(el, string.format('field "damping" must not be negative (got %g)', el.damping)) end
  end
  for _, el in ipairs(E.joint_spring) do
    if el.damping < 0 then fail(el, string.format('field "damping" must not be negative (got %g)', el.damping)) end
  end
  for _, el in ipairs(E.point) do body_ref(el, el.body, "body", true) end
  for _, el in ipairs(E.force) do
    body_ref(el, el.body, "body", false)
    if not M.frames[el.frame] then
      fail(el, string.format('field "frame" must be "ground" or "body" (got "%s")%s', el.frame, errors.hint(el.frame, { "ground", "body" })))
    end
  end
  for _, el in ipairs(E.tyre) do
    body_ref(el, el.body, "body", false)
    unit_axis(el, el.axis, "axis")
    if el.radius <= 0 then fail(el, 'field "radius" must be positive') end
    if el.stiffness <= 0 then fail(el, 'field "stiffness" must be positive') end
    if el.damping < 0 then fail(el, 'field "damping" must not be negative') end
    if el.speed_eps <= 0 then fail(el, 'field "speed_eps" must be positive') end
    for _, dir in ipairs { "longitudinal", "lateral" } do
      local mf = el[dir]
      if mf.B <= 0 or mf.C <= 0 or mf.mu < 0 then
        fail(el, string.format('field "%s" needs B > 0, C > 0 and mu >= 0 (got B = %g, C = %g, mu = %g)', dir, mf.B, mf.C, mf.mu))
      end
      if mf.E > 1 then fail(el, string.format('field "%s": E = %g > 1 makes the Magic Formula non-monotonic near zero slip', dir, mf.E)) end
    end
  end
  for _, kind in ipairs { "torque", "joint_spring", "drive" } do
    for _, el in ipairs(E[kind]) do coord_ref(el, el.joint) end
  end
  for _, el in ipairs(E.objective) do
    if not el.integrand and not el.terminal then fail(el, 'needs "integrand" or "terminal" (or both)') end
    -- The name becomes part of C function names (NAME_objective_psi_integrand).
    if not tostring(el.name):match("^[%a_][%w_]*$") then fail(el, "the name must be a C identifier (letters, digits, _)") end
  end

  -- General independent coordinates become coordinates of their own (model/topology.lua), named by the model.
  for _, h in ipairs(model.independent and model.independent.h or {}) do
    local function bad(msg)
      errors.raise(file, h.line, "independent", string.format('coordinate "%s" %s', h.name, msg))
    end
    if not h.name:match("^[%a_][%w_]*$") then bad("needs a name that is a C identifier (letters, digits, _)") end
    if coords[h.name] then bad("is already a coordinate of joint \"" .. coords[h.name].name .. "\"") end
    if bodies[h.name] then bad("has the name of a body") end
    if joints[h.name] then bad("has the name of a joint") end
    coords[h.name] = { name = h.name }
    coord_list[#coord_list + 1] = h.name
  end
  for _, key in ipairs { "initial", "initial_velocity" } do
    local seen = {}
    for _, entry in ipairs(model[key]) do
      if not coords[entry.name] then
        errors.raise(file, entry.line, key, string.format('coordinate "%s" does not exist%s', entry.name, errors.hint(entry.name, coord_list)))
      end
      if seen[entry.name] then
        errors.raise(file, entry.line, key, string.format('coordinate "%s" is given twice (first on line %d)', entry.name, seen[entry.name]))
      end
      seen[entry.name] = entry.line
    end
  end
  if model.independent then
    local seen = {}
    for _, h in ipairs(model.independent.h) do seen[h.name] = true end
    for _, n in ipairs(model.independent.names) do
      if not coords[n] then
        errors.raise(file, model.independent.line, "independent", string.format('coordinate "%s" does not exist%s', n, errors.hint(n, coord_list)))
      end
      if seen[n] then errors.raise(file, model.independent.line, "independent", string.format('coordinate "%s" is listed twice', n)) end
      seen[n] = true
    end
  end
  local s = model.simulate
  for _, f in ipairs { "t_end", "step", "tolerance" } do
    if s[f] and s[f] <= 0 then errors.raise(file, s.line, "simulate", string.format('field "%s" must be positive', f)) end
  end
  for field, names in pairs { integrator = { "dopri5", "rk4", "trapezoidal" }, formulation = { "al3", "baumgarte", "matrix_r", "penalty", "tree" } } do
    local v, known = s[field], false
    for _, n in ipairs(names) do known = known or v == n end
    if v and not known then
      errors.raise(file, s.line, "simulate", string.format('field "%s" must be one of %s (got "%s")%s', field,
        table.concat(names, ", "), v, errors.hint(v, names)))
    end
  end

  if #coord_list == 0 then
    local first = model.bodies[1] or model.joints[1]
    errors.raise(file, first and first.line or model.name_line or 1, nil,
      "the model has no coordinates: declare a body and a joint that moves it (revolute, prismatic, ...)")
  end
  return true
end

return M
