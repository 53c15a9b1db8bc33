#!/usr/bin/env lua5.4
-- model_topology.t: the tree of models/tree.lua and of the four-bar grid; weld mass combination against
-- a hand computation; expansion of multi-DOF joints; and, with a forward-kinematics oracle written here
-- from the joint convention of INTERFACES.md §1, that the closed-loop models' initial values assemble.
local root = arg[0]:match("^(.-)tests/[^/]*$") or "./"
package.path = root .. "tests/?.lua;" .. root .. "generator/?.lua;" .. package.path
local tap = require "tap"
local load = require "model.load"
local topology = require "model.topology"

local function build(path, overrides)
  local model = load.load(root .. path, overrides)
  return topology.build(model), topology.build(model.numeric, { no_trace = true })
end
-- A model written to a temporary file (fixtures that are not models/ of their own).
local function build_text(text)
  local path = os.tmpname()
  local f = io.open(path, "w")
  f:write(text)
  f:close()
  local ok, model = pcall(load.load, path)
  os.remove(path)
  if not ok then error(require("model.errors").format(model)) end
  return topology.build(model)
end
local function list_is(got, want, name)
  local same = #got == #want
  for i = 1, #want do same = same and got[i] == want[i] end
  if not tap.ok(same, name) then
    local g = {}
    for i = 1, #got do g[i] = tostring(got[i]) end
    tap.diag("got: " .. table.concat(g, ", "))
  end
end
local function vec_close(got, want, tol, name)
  local ok = true
  for i = 1, 3 do ok = ok and type(got[i]) == "number" and math.abs(got[i] - want[i]) <= tol end
  if not tap.ok(ok, name) then
    tap.diag(string.format("got (%s, %s, %s), want (%g, %g, %g)", tostring(got[1]), tostring(got[2]), tostring(got[3]), want[1], want[2], want[3]))
  end
end

-- models/tree.lua: depth first, children in declaration order.
do
  local tree = build("models/tree.lua")
  local names, parents, kinds = {}, {}, {}
  for k, b in ipairs(tree.bodies) do
    names[k], parents[k], kinds[k] = b.name, b.parent, b.joint.kind
  end
  list_is(names, { "base", "trunk", "upper_l", "lower_l", "upper_r", "lower_r", "head" }, "tree: numbering root to leaves")
  list_is(parents, { 0, 1, 2, 3, 2, 5, 2 }, "tree: parents")
  list_is(kinds, { "revolute", "prismatic", "revolute", "revolute", "revolute", "prismatic", "revolute" }, "tree: joint kinds")
  tap.is(tree.nz, 7, "tree: 7 coordinates")
  tap.is(#tree.constraints, 0, "tree: no constraints")
  tap.is(tree.nc, 0, "tree: no constraint equations")
  list_is(tree.bodies[2].children, { 3, 5, 7 }, "tree: the trunk's children")
  list_is(tree.bodies[6].ancestors, { 1, 2, 5 }, "tree: ancestors of lower_r")
  tap.ok(tree.bodies[4].ancestor_set[3] and not tree.bodies[4].ancestor_set[5], "tree: ancestor set of lower_l")
  local all = true
  for k, b in ipairs(tree.bodies) do all = all and b.parent < k and not b.aux and tree.coords[k].name == b.joint.name end
  tap.ok(all, "tree: parent < child, no auxiliary bodies, coordinate named after its joint")
  vec_close(tree.bodies[4].joint.axis, { 0, 0.6, 0.8 }, 1e-15, "tree: elbow_l axis is unit")
  tap.is_double(tree.bodies[3].joint.rotation[1][2], -1, 0, 1e-15, "tree: shoulder_l rotation = Rz(pi/2)")
  tap.is(tree.initial[6], 0.02, "tree: initial value of telescope_r on coordinate 6")
end

-- The four-bar grid (seeds/003.md §3.2): (2 NY + 1) NZ bodies, NY NZ point2d loops of 2 equations.
for _, case in ipairs { { 1, 45, 15 }, { 4, 135, 60 }, { 7, 225, 105 } } do
  local ny, nb, nl = case[1], case[2], case[3]
  local tree = build("models/fourbar_grid.lua", { NY = ny })
  local label = "fourbar_grid NY=" .. ny
  tap.is(tree.nb, nb, label .. ": " .. nb .. " bodies")
  tap.is(tree.nz, nb, label .. ": one coordinate per body")
  tap.is(#tree.constraints, nl, label .. ": " .. nl .. " loops")
  tap.is(tree.nc, 2 * nl, label .. ": " .. 2 * nl .. " equations")
  tap.is(tree.nz - tree.nc, 15, label .. ": 15 DOF")
  local ok, roots = true, 0
  for k, b in ipairs(tree.bodies) do
    ok = ok and b.parent < k
    if b.parent == 0 then roots = roots + 1 end
  end
  tap.ok(ok, label .. ": parent < child")
  tap.is(roots, ny + 1, label .. ": one chain per column hangs from ground")
  tap.is(tree.coords[1].name, "jv_0_1", label .. ": z_1 is the top bar of column 0")
  tap.is(tree.initial_velocity[1], math.pi / 3, label .. ": zd_1(0) = pi/3")
  local rows_ok = true
  for i, c in ipairs(tree.constraints) do rows_ok = rows_ok and c.row == 2 * i - 1 and c.equations == 2 and c.type == "point2d" end
  tap.ok(rows_ok, label .. ": constraint rows in order")
end

-- Weld: b merged into a at origin (0.5, 0, 0), rotated by Rz(pi/2). Hand computation:
-- b's COM in a's frame = (0.5, 0, 0) + Rz (0, 0.2, 0) = (0.3, 0, 0); total mass 3; COM (2*0.1 + 0.3)/3;
-- d_a = (-1/15, 0, 0), d_b = (2/15, 0, 0); Rz I_b Rz' = [0.005 -0.001 0; -0.001 0.004 0; 0 0 0.006];
-- Ixx = 0.01 + 0.005; Iyy = 0.02 + 2/225 + 0.004 + 4/225; Izz = 0.03 + 2/225 + 0.006 + 4/225; Ixy = -0.001.
do
  local tree = build_text([[
model "weld_fixture"
body "a" { mass = 2, com = { 0.1, 0, 0 }, inertia = { 0.01, 0.02, 0.03 } }
body "b" { mass = 1, com = { 0, 0.2, 0 }, inertia = { 0.004, 0.005, 0.006, 0.001, 0, 0 } }
body "c" { mass = 0.5, com = { 0.1, 0, 0 } }
revolute "j" { parent = "ground", child = "a" }
weld "w" { parent = "a", child = "b", origin = { 0.5, 0, 0 }, rotation = { 0, 0, pi / 2 } }
revolute "jc" { parent = "b", child = "c", origin = { 0.2, 0, 0 }, axis = { 1, 0, 0 } }
point "p" { body = "b", at = { 0.1, 0, 0 } }
spring "s" { a = { "ground", { 0, 0, 1 } }, b = { "b", { 0, 0.1, 0 } }, stiffness = 1 }
force "f" { body = "b", at = { 0, 0, 0 }, value = { 1, 0, 0 }, frame = "body" }
loop "l" { type = "revolute", a = { "c", { 0, 0, 0 } }, b = { "b", { 0, 0.3, 0 } }, axis = { 1, 0, 0 }, axis_b = { 1, 0, 0 } }
]])
  tap.is(tree.nb, 2, "weld: the welded body makes no tree body")
  local a = tree.bodies[1]
  tap.is(a.name, "a", "weld: host keeps its name")
  list_is(a.welded, { "b" }, "weld: host lists the welded body")
  tap.is_double(a.mass, 3, 0, 1e-15, "weld: combined mass")
  vec_close(a.com, { 0.5 / 3, 0, 0 }, 1e-15, "weld: combined COM")
  local I = a.inertia
  local want = { { 0.015, -0.001, 0 }, { -0.001, 0.024 + 6 / 225, 0 }, { 0, 0, 0.036 + 6 / 225 } }
  local worst = 0
  for i = 1, 3 do for j = 1, 3 do worst = math.max(worst, math.abs(I[i][j] - want[i][j])) end end
  tap.ok(worst < 1e-15, string.format("weld: combined inertia about the combined COM (max error %.3g)", worst))
  local f = tree.frames.b
  tap.is(f.body, 1, "weld: frames.b points at the host")
  vec_close(f.origin, { 0.5, 0, 0 }, 1e-15, "weld: frames.b origin")
  vec_close({ f.rotation[1][1], f.rotation[1][2], f.rotation[2][1] }, { 0, -1, 1 }, 1e-15, "weld: frames.b rotation")
  tap.is(tree.frames.a.body, 1, "frames: a non-welded body maps to its own tree body")
  tap.is(tree.frames.ground.body, 0, "frames: ground is body 0")
  local c = tree.bodies[2]
  tap.is(c.parent, 1, "weld: a child of the welded body hangs on the host")
  vec_close(c.joint.origin, { 0.5, 0.2, 0 }, 1e-15, "weld: child joint origin re-expressed in the host frame")
  vec_close({ c.joint.rotation[1][2], c.joint.rotation[2][1], c.joint.rotation[3][3] }, { -1, 1, 1 }, 1e-15,
    "weld: child joint rotation composed with the weld's")
  tap.is(tree.points[1].body, 1, "weld: point moves to the host")
  vec_close(tree.points[1].at, { 0.5, 0.1, 0 }, 1e-15, "weld: point re-expressed in the host frame")
  vec_close(tree.springs[1].b.at, { 0.4, 0, 0 }, 1e-15, "weld: spring end re-expressed in the host frame")
  vec_close(tree.forces[1].value, { 0, 1, 0 }, 1e-15, "weld: body-frame force turned into the host frame")
  local l = tree.constraints[1]
  tap.is(l.b.body, 1, "weld: loop end moves to the host")
  vec_close(l.b.at, { 0.2, 0, 0 }, 1e-15, "weld: loop point re-expressed in the host frame")
  vec_close(l.axis_b, { 0, 1, 0 }, 1e-15, "weld: loop axis on the welded body turned into the host frame")
  vec_close(l.axis, { 1, 0, 0 }, 1e-15, "weld: loop axis on a plain body unchanged")
  tap.is(l.equations, 5, "revolute loop: 5 equations")
end

-- Expansion of multi-DOF joints into 1-DOF axes through massless auxiliary bodies.
do
  local tree = build_text([[
model "expansion_fixture"
body "f" { mass = 1 }
body "s" { mass = 1 }
body "u" { mass = 1 }
body "p" { mass = 1 }
body "c" { mass = 1 }
free "fj" { parent = "ground", child = "f", origin = { 1, 2, 3 } }
spherical "sj" { parent = "f", child = "s", sequence = "zyx" }
universal "uj" { parent = "s", child = "u", origin = { 0, 0, 1 }, axes = { { 1, 0, 0 }, { 0, 0, 2 } } }
planar "pj" { parent = "ground", child = "p", normal = { 0, 1, 0 } }
cylindrical "cj" { parent = "p", child = "c", axis = { 0, 3, 4 } }
initial { ["fj.rz"] = 0.5, ["uj.2"] = 0.25 }
torque "t" { joint = "sj.ry", value = 1 }
]])
  local names, bodies, aux, kinds = {}, {}, {}, {}
  for k, b in ipairs(tree.bodies) do
    names[k], bodies[k], aux[k], kinds[k] = tree.coords[k].name, b.name, b.aux, b.joint.kind:sub(1, 1)
  end
  list_is(names, { "fj.x", "fj.y", "fj.z", "fj.rx", "fj.ry", "fj.rz", "sj.rz", "sj.ry", "sj.rx", "uj.1", "uj.2",
    "pj.u", "pj.v", "pj.r", "cj.t", "cj.r" }, "expansion: coordinate names")
  list_is(bodies, { "fj.1", "fj.2", "fj.3", "fj.4", "fj.5", "f", "sj.1", "sj.2", "s", "uj.1", "u", "pj.1", "pj.2", "p",
    "cj.1", "c" }, "expansion: auxiliary bodies named joint.i, the last axis carries the child")
  list_is(aux, { true, true, true, true, true, false, true, true, false, true, false, true, true, false, true, false },
    "expansion: aux flags")
  list_is(kinds, { "p", "p", "p", "r", "r", "r", "r", "r", "r", "r", "r", "p", "p", "r", "p", "r" }, "expansion: axis kinds")
  local parents = {}
  for k, b in ipairs(tree.bodies) do parents[k] = b.parent end
  list_is(parents, { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 12, 13, 14, 15 }, "expansion: chains")
  local axes = {
    { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 },
    { 0, 0, 1 }, { 0, 1, 0 }, { 1, 0, 0 }, { 1, 0, 0 }, { 0, 0, 1 },
    { 1, 0, 0 }, { 0, 0, -1 }, { 0, 1, 0 }, { 0, 0.6, 0.8 }, { 0, 0.6, 0.8 },
  }
  for k, a in ipairs(axes) do vec_close(tree.bodies[k].joint.axis, a, 1e-15, "expansion: axis of " .. names[k]) end
  vec_close(tree.bodies[1].joint.origin, { 1, 2, 3 }, 0, "expansion: the first axis carries the joint origin")
  vec_close(tree.bodies[2].joint.origin, { 0, 0, 0 }, 0, "expansion: later axes sit at the previous frame's origin")
  vec_close(tree.bodies[10].joint.origin, { 0, 0, 1 }, 0, "expansion: universal origin on its first axis")
  local massless = true
  for k, b in ipairs(tree.bodies) do if b.aux then massless = massless and b.mass == 0 end end
  tap.ok(massless, "expansion: auxiliary bodies are massless")
  tap.is(tree.bodies[6].mass, 1, "expansion: the child keeps its mass")
  tap.is(tree.initial[6], 0.5, "expansion: initial value by coordinate name (fj.rz)")
  tap.is(tree.initial[11], 0.25, "expansion: initial value by coordinate name (uj.2)")
  tap.is(tree.torques[1].coord, 8, "expansion: a torque on one axis of a spherical joint")
  tap.is(tree.frames.f.body, 6, "expansion: the user body maps to the last body of its chain")
end

-- Every element of INTERFACES.md §1 is accepted and lands in the tree; constraint equation counts.
do
  local E = require "sym.expr"
  local tree = build_text([[
model "elements_fixture"
description "every element once"
gravity { 0, 0, -9.81 }
parameter { k = 10 }
design { c = 0.5 }
input { "F", "T" }
body "a" { mass = 1, inertia = { 0.1, 0.1, 0.1 } }
body "b" { mass = 1, inertia = { 0.1, 0.1, 0.1 } }
body "w" { mass = 0.2 }
revolute "ja" { parent = "ground", child = "a", axis = { 0, 0, 1 } }
prismatic "jb" { parent = "a", child = "b", origin = { 1, 0, 0 }, axis = { 1, 0, 0 } }
weld "jw" { parent = "b", child = "w", origin = { 0, 0.1, 0 } }
loop "l1" { type = "spherical", a = { "b", { 1, 0, 0 } }, b = { "ground", { 2, 0, 0 } } }
loop "l2" { type = "revolute", a = { "b", { 1, 0, 0 } }, b = { "ground", { 2, 0, 0 } }, axis = { 0, 0, 1 } }
loop "l3" { type = "point2d", a = { "w", { 0, 0, 0 } }, b = { "ground", { 2, 0, 0 } } }
loop "l4" { type = "distance", a = { "a", { 0.5, 0, 0 } }, b = { "ground", { 0, 1, 0 } }, length = 1.2 }
rod "r" { a = { "b", { 0, 0, 0 } }, b = { "ground", { 0, -1, 0 } }, mass = 0.3, length = 1.5 }
spring "s" { a = { "a", { 0, 0, 0 } }, b = { "b", { 0, 0, 0 } }, stiffness = k, length = 0.5, damping = c,
             force = function(x, v) return -k * x ^ 3 - c * v end }
joint_spring "js" { joint = "ja", stiffness = k, rest = 0.1, damping = c }
torque "t" { joint = "ja", value = function(t, s) return T - c * s.zd.ja + sin(t) end }
force "f" { body = "b", at = { 0.1, 0, 0 }, value = function(t, s) return { F, 0, -s.point.tip.vel[3] } end }
drive "d" { joint = "jb", position = function(t) return 0.1 * sin(t) end }
point "tip" { body = "w", at = { 0, 0, 0.2 } }
objective "o" { integrand = function(t, s) return s.point.tip.pos[1] ^ 2 end, terminal = function(s) return s.z.jb end }
initial { ja = 0.1, jb = 0.2 }
initial_velocity { ja = -1 }
independent { "ja" }
simulate { t_end = 1, step = 1e-3, integrator = "rk4", formulation = "al3", tolerance = 1e-8 }
]])
  local eq, rows = {}, {}
  for i, c in ipairs(tree.constraints) do eq[i], rows[i] = c.equations, c.row end
  list_is(eq, { 3, 5, 2, 1, 1, 1 }, "constraints: spherical 3, revolute 5, point2d 2, distance 1, rod 1, drive 1")
  list_is(rows, { 1, 4, 9, 11, 12, 13 }, "constraints: first rows")
  tap.is(tree.nc, 13, "constraints: 13 equations")
  tap.is(tree.constraints[6].coord, 2, "drive on coordinate jb")
  tap.is(tree.constraints[5].mass, 0.3, "rod keeps its mass")
  tap.is(tree.constraints[3].b.body, 0, "loop end on ground is body 0")
  vec_close(tree.constraints[3].normal, { 0, 0, 1 }, 0, "point2d normal defaults to z")
  vec_close(tree.constraints[3].a.at, { 0, 0.1, 0 }, 1e-15, "loop end on a welded body re-expressed")
  tap.is(tree.points[1].body, 2, "point on the welded body sits on the host")
  vec_close(tree.points[1].at, { 0, 0.1, 0.2 }, 1e-15, "point re-expressed in the host frame")
  tap.ok(type(tree.springs[1].force) == "function" and tree.springs[1].stiffness == 10, "spring: force law kept, k folded")
  tap.ok(tree.joint_springs[1].damping == E.symbol("p", 0, "c") and tree.joint_springs[1].coord == 1, "joint spring: design damping on ja")
  tap.ok(type(tree.torques[1].value) == "function" and type(tree.forces[1].value) == "function", "torque and force functions kept")
  tap.ok(type(tree.objectives[1].integrand) == "function" and type(tree.objectives[1].terminal) == "function", "objective kept")
  list_is(tree.independent, { 1 }, "independent coordinates")
  tap.is(tree.initial_velocity[1], -1, "initial velocity")
  tap.is(tree.simulate.formulation, "al3", "simulate fields")
  tap.is(tree.simulate.tolerance, 1e-8, "simulate tolerance")
  tap.is(#tree.inputs, 2, "two inputs")
  tap.ok(tree.inputs[2].name == "T" and tree.inputs[2].index == 1, "inputs in the order given")
  tap.is(tree.parameters[1].name, "c", "parameters sorted by name")
  tap.is(tree.parameters[1].kind, "design", "c is a design name")
  tap.is(tree.parameters[2].kind, "constant", "k is a constant")
  tap.is(tree.bodies[2].mass, 1.2, "weld merged w into b")
  -- A traced function returns expressions in the real z, zd, u symbols.
  local s = { z = { ja = E.symbol("z", 0) }, zd = { ja = E.symbol("zd", 0) }, u = {}, point = {} }
  local v = tree.torques[1].value(E.symbol("t"), s)
  tap.ok(E.is_node(v), "the torque function re-traces with a formulation's state")
end

-- Forward kinematics from the convention of INTERFACES.md §1, written independently of topology.lua:
-- R_k = R_parent Rj Rot(axis, z) for a revolute, p_k = p_parent + R_parent (origin + Rj axis z) for a
-- prismatic. Numbers only (the numeric tree).
local function rot(a, t)
  local c, s = math.cos(t), math.sin(t)
  local x, y, z = a[1], a[2], a[3]
  return {
    { c + x * x * (1 - c), x * y * (1 - c) - z * s, x * z * (1 - c) + y * s },
    { y * x * (1 - c) + z * s, c + y * y * (1 - c), y * z * (1 - c) - x * s },
    { z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c) },
  }
end
-- Plain 3-vector and 3x3 algebra on numbers: the stages' own helpers (the oracle is fk below, not these).
local V3 = require "model.vec3"
local mm, mv, add, sub, dot, cross = V3.matmul, V3.matvec, V3.add, V3.sub, V3.dot, V3.cross
local function fk(tree, z)
  local R, p = { [0] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } }, { [0] = { 0, 0, 0 } }
  for k, b in ipairs(tree.bodies) do
    local j = b.joint
    local Rp, pp = R[b.parent], p[b.parent]
    local Rj = mm(Rp, j.rotation)
    if j.kind == "revolute" then
      R[k], p[k] = mm(Rj, rot(j.axis, z[k])), add(pp, mv(Rp, j.origin))
    else
      R[k], p[k] = Rj, add(add(pp, mv(Rp, j.origin)), mv(Rj, { j.axis[1] * z[k], j.axis[2] * z[k], j.axis[3] * z[k] }))
    end
  end
  return R, p
end
local function residuals(tree, z)
  local R, p = fk(tree, z)
  local worst = 0
  local function world(e) return add(p[e.body], mv(R[e.body], e.at)) end
  for _, c in ipairs(tree.constraints) do
    local r = sub(world(c.a), world(c.b))
    local res = {}
    if c.type == "spherical" or c.type == "revolute" then
      res = { r[1], r[2], r[3] }
    elseif c.type == "point2d" then
      local n = mv(R[c.b.body], c.normal)
      local d = dot(r, n)
      res = { r[1] - d * n[1], r[2] - d * n[2], r[3] - d * n[3] }
    elseif c.type == "prismatic2d" then
      local n, ab, aa = mv(R[c.b.body], c.normal), mv(R[c.b.body], c.axis_b), mv(R[c.a.body], c.axis)
      res = { dot(cross(aa, ab), n), dot(r, cross(n, ab)) }
    elseif c.type == "distance" then
      res = { math.sqrt(dot(r, r)) - c.length }
    end
    for _, v in ipairs(res) do worst = math.max(worst, math.abs(v)) end
  end
  return worst
end
for _, case in ipairs {
  { "models/quick_return.lua", 1e-11 }, { "models/fourbar_planar.lua", 1e-14 }, { "models/slider_crank.lua", 1e-14 },
  { "models/fourbar_spatial.lua", 1e-12 }, { "models/fivebar.lua", 1e-14 }, { "models/fourbar_grid.lua", 0 },
} do
  local _, nt = build(case[1])
  local z = {}
  for k = 1, nt.nz do z[k] = nt.initial[k] or 0 end
  local worst = residuals(nt, z)
  tap.ok(#nt.constraints > 0 and worst <= case[2], string.format("%s: the initial values assemble (worst residual %.3g)", case[1], worst))
  z[1] = z[1] + 1e-3
  tap.ok(residuals(nt, z) > 1e-5, case[1] .. ": and moving z_1 alone breaks a loop (the oracle sees it)")
end

-- quick_return: the seed's tree (Fig. 8b) and the ram's absolute angle theta_5 = z1 + z4 + z5 = 0.
do
  local _, nt = build("models/quick_return.lua")
  local parents = {}
  for k, b in ipairs(nt.bodies) do parents[k] = b.parent end
  list_is(parents, { 0, 1, 2, 1, 4 }, "quick_return: parents as in seeds/001.md §5")
  tap.is(nt.nc, 4, "quick_return: 4 closure equations (2 + 2)")
  tap.is_double(nt.initial[1] + nt.initial[4] + nt.initial[5], 0, 0, 1e-11, "quick_return: ram angle 0 at t = 0")
end

tap.done_testing()
