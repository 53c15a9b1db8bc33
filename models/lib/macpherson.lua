-- lib/macpherson.lua: one MacPherson strut corner (seeds/002.md §4.2 front subsystem) built on the chassis.
-- macpherson { side = "left"|"right", prefix =, chassis =, rack =, rack_origin = {x,y,z} (rack frame origin,
--   vehicle frame), wheel = { mass, inertia, tyre = {...} }, road =, data = { spindle, upright_com,
--   upright_mass, upright_inertia, arm_front, arm_back, ball, arm_com, arm_mass, arm_inertia,
--   tierod_inner, tierod_outer, top, low, strut_com, strut_mass, strut_inertia,
--   spring = { stiffness, damping, preload } }, tierod_mass = }
-- All points are the LEFT corner in the vehicle (= chassis body) frame; side "right" mirrors y.
-- Tree (6 coordinates, 2 auxiliary bodies, the paper's count):
--   chassis --revolute PREFIX_arm_pivot--> PREFIX_arm                     (1: the independent travel)
--   chassis --universal PREFIX_top (2R, 1 aux)--> PREFIX_strut --cylindrical PREFIX_slide (P then R,
--     1 aux)--> PREFIX_knuckle --revolute PREFIX_wheel_spin--> PREFIX_wheel (tyre)        (4 + 1)
-- Cut joint: loop PREFIX_ball (spherical, 3 eq.) arm -- knuckle; rod PREFIX_tierod (1 eq.) rack --
-- knuckle; spring PREFIX_coilover from the top mount on the chassis to the strut's knuckle end.
-- Every body frame is parallel to the chassis at z = 0 and sits at a hardpoint, so z = 0 is the design
-- position and every loop is closed there exactly (rod lengths are the design distances).
-- Returns { arm, strut, knuckle, wheel, spin, coords = { ... }, travel = arm pivot coordinate, ... }.
return function(a)
  local s = a.side == "right" and -1 or 1
  local d = a.data
  local p = a.prefix
  local function M(v) return { v[1], s * v[2], v[3] } end                   -- mirror a left-side point
  local function sub(u, v) return { u[1] - v[1], u[2] - v[2], u[3] - v[3] } end
  local function cross(u, v) return { u[2] * v[3] - u[3] * v[2], u[3] * v[1] - u[1] * v[3], u[1] * v[2] - u[2] * v[1] } end
  local function unit(v)
    local n = math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2)
    return { v[1] / n, v[2] / n, v[3] / n }
  end
  local function dist(u, v) local w = sub(u, v); return math.sqrt(w[1] ^ 2 + w[2] ^ 2 + w[3] ^ 2) end
  -- Inertia given about principal axes ex, ey, ez (unit, orthogonal) -> {Ixx,Iyy,Izz,Ixy,Ixz,Iyz} in
  -- vehicle axes (the off-diagonal entries of the tensor, the model language's convention).
  local function rotate_inertia(I, ex, ey, ez)
    local Rm = { { ex[1], ey[1], ez[1] }, { ex[2], ey[2], ez[2] }, { ex[3], ey[3], ez[3] } }
    local function e(i, j) return Rm[i][1] * I[1] * Rm[j][1] + Rm[i][2] * I[2] * Rm[j][2] + Rm[i][3] * I[3] * Rm[j][3] end
    return { e(1, 1), e(2, 2), e(3, 3), e(1, 2), e(1, 3), e(2, 3) }
  end

  local arm_front, arm_back, ball = M(d.arm_front), M(d.arm_back), M(d.ball)
  local top, low, spindle = M(d.top), M(d.low), M(d.spindle)
  local tr_in, tr_out = M(d.tierod_inner), M(d.tierod_outer)

  -- Lower control arm: revolute about the line through its two chassis pivots; frame at the front pivot.
  -- Its inertia is given in arm axes (vehicle-data README §3.4: x from the back pivot to the front one,
  -- z normal to the plane of the three pivots).
  local ax = unit(sub(arm_front, arm_back))
  local az = unit(cross(ax, sub(ball, arm_back)))
  local ay = cross(az, ax)
  local arm, knuckle, strut = p .. "_arm", p .. "_knuckle", p .. "_strut"
  body(arm) { mass = d.arm_mass, com = sub(M(d.arm_com), arm_front), inertia = rotate_inertia(d.arm_inertia, ax, ay, az) }
  revolute(p .. "_arm_pivot") { parent = a.chassis, child = arm, origin = arm_front, axis = ax }

  -- Strut: universal top mount at the spring's chassis point, its two axes normal to the strut line
  -- (fore-aft first, then the normal to both), so the strut never reaches the universal joint's
  -- singularity (axes aligned).
  local sa = unit(sub(low, top))
  local u1 = unit(sub({ 1, 0, 0 }, { sa[1] * sa[1], sa[1] * sa[2], sa[1] * sa[3] }))
  local u2 = cross(sa, u1)
  body(strut) { mass = d.strut_mass, com = sub(M(d.strut_com), top), inertia = d.strut_inertia }
  universal(p .. "_top") { parent = a.chassis, child = strut, origin = top, axes = { u1, u2 } }

  -- Knuckle (upright): slides and turns along the strut line (cylindrical: P then R); frame at the
  -- strut's lower (upright) point.
  body(knuckle) { mass = d.upright_mass, com = sub(M(d.upright_com), low), inertia = d.upright_inertia }
  cylindrical(p .. "_slide") { parent = strut, child = knuckle, origin = sub(low, top), axis = sa }

  -- Lower ball joint, cut: the arm's outer point and the knuckle's coincide (3 equations).
  loop(p .. "_ball") { type = "spherical", a = { arm, sub(ball, arm_front) }, b = { knuckle, sub(ball, low) } }
  -- Tie rod from the steering rack to the knuckle's steering arm (1 equation, rod of mass tierod_mass).
  rod(p .. "_tierod") {
    a = { a.rack, sub(tr_in, a.rack_origin) }, b = { knuckle, sub(tr_out, low) },
    length = dist(tr_in, tr_out), mass = a.tierod_mass,
  }
  -- Coil-over along the strut: top mount (chassis) to the knuckle's strut end. Linear spring and damper,
  -- preloaded: its free length is the design length plus preload / k, so it pushes the ends apart with
  -- `preload` at the design position (tension k (l - free) + c dl/dt, conservative part in the energy).
  local sp = d.spring
  spring(p .. "_coilover") {
    a = { a.chassis, top }, b = { knuckle, { 0, 0, 0 } },
    stiffness = sp.stiffness, damping = sp.damping, length = dist(top, low) + sp.preload / sp.stiffness,
  }

  local w = use "wheel" {
    name = p .. "_wheel", carrier = knuckle, at = sub(spindle, low), mass = a.wheel.mass,
    inertia = a.wheel.inertia, tyre = a.wheel.tyre, road = a.road,
  }
  return {
    arm = arm, strut = strut, knuckle = knuckle, wheel = w.body, spin = w.spin, tyre = w.body,
    travel = p .. "_arm_pivot", ball = p .. "_ball", tierod = p .. "_tierod", coilover = p .. "_coilover",
    coords = { p .. "_arm_pivot", p .. "_top.1", p .. "_top.2", p .. "_slide.t", p .. "_slide.r", w.spin },
  }
end
