/* mb_slots.h: the one list of model function slots, read by mb_model.h (struct members, enum mb_slot) and by the
 * generator (generator/emit/slots.lua parses these lines), so a new slot is one line here.
 *
 * MB_SLOT(name, rows, cols, form, doc), one per line, in the struct's order. rows and cols are products of an
 * integer and one of NZ (coordinates), NC (constraint equations), NP (design parameters), NPT (named points),
 * NTYO (tyre outputs: MB_TYRE_OUTPUTS per tyre), or one such dimension plus an integer (NP+1). form MAT: a matrix
 * with a compressed sparse column form (members NAME_csc and NAME_pattern besides NAME); VEC: a vector or a dense
 * block. No include guard: included once per expansion, with MB_SLOT defined by the includer. */
MB_SLOT(mass, NZ, NZ, MAT, "M(z), both triangles")
MB_SLOT(forces, NZ, 1, VEC, "Q(t, z, zd, u): applied, spring, gravity and velocity-product terms")
MB_SLOT(forces_nc, NZ, 1, VEC, "the part of Q without a potential: zd . forces_nc is the power that changes T + V")
MB_SLOT(inverse_dynamics, NZ, 1, VEC, "r = M zdd - Q")
MB_SLOT(inverse_dynamics_dz, NZ, NZ, MAT, "dr/dz")
MB_SLOT(inverse_dynamics_dzd, NZ, NZ, MAT, "dr/dzd")
MB_SLOT(inverse_dynamics_dp, NZ, NP, MAT, "dr/dp")
MB_SLOT(inverse_dynamics_tangent, NZ, NZ, MAT, "c_z dr/dz + c_v dr/dzd + c_a M, (c_z, c_v, c_a) = w[0..2]")
MB_SLOT(forward_dynamics, NZ, 1, VEC, "zdd = M^-1 Q")
MB_SLOT(forward_dynamics_dz, NZ, NZ, MAT, "dzdd/dz = -M^-1 dr/dz at zdd = forward dynamics")
MB_SLOT(forward_dynamics_dzd, NZ, NZ, MAT, "dzdd/dzd = -M^-1 dr/dzd at zdd = forward dynamics")
MB_SLOT(forward_dynamics_dp, NZ, NP, MAT, "dzdd/dp = -M^-1 dr/dp at zdd = forward dynamics")
MB_SLOT(energy, 2, 1, VEC, "kinetic, potential (gravity and linear springs)")
MB_SLOT(points, 3*NPT, 1, VEC, "positions of the named points, 3 per point")
MB_SLOT(points_dz, 3*NPT, NZ, MAT, "d points/dz")
MB_SLOT(constraints, NC, 1, VEC, "Phi(t, z)")
MB_SLOT(constraints_dz, NC, NZ, MAT, "Phi_z")
MB_SLOT(constraints_dp, NC, NP, MAT, "Phi_p")
MB_SLOT(constraints_dt, NC, 1, VEC, "Phi_t")
MB_SLOT(constraint_bias, NC, 1, VEC, "dot(Phi_z) zd + dot(Phi_t), so that Phi_z zdd = -bias")
MB_SLOT(constraint_bias_dz, NC, NZ, MAT, "d bias/dz")
MB_SLOT(constraint_bias_dzd, NC, NZ, MAT, "d bias/dzd")
MB_SLOT(constraint_bias_dp, NC, NP, MAT, "d bias/dp")
MB_SLOT(constraints_dz_tw_dz, NZ, NZ, MAT, "d(Phi_z' w)/dz")
MB_SLOT(constraint_vel_dz, NC, NZ, MAT, "d(Phi_z zd + Phi_t)/dz")
MB_SLOT(constraint_vel_dp, NC, NP, MAT, "d(Phi_z zd + Phi_t)/dp")
MB_SLOT(constraint_acc_dz, NC, NZ, MAT, "d(Phi_z zdd)/dz")
MB_SLOT(constraint_acc_dp, NC, NP, MAT, "d(Phi_z zdd)/dp")
MB_SLOT(constraints_dz_tw_dp, NZ, NP, MAT, "d(Phi_z' w)/dp")
MB_SLOT(tyres, NTYO, 1, VEC, "per tyre: Fx, Fy, Fz, kappa, tan(alpha), deflection, contact point x, y, z")
MB_SLOT(total_mass, 1, 1, VEC, "total mass of bodies and rods, a function of p")
MB_SLOT(inverse_dynamics_dy, NZ, 2*NZ, MAT, "[dr/dz, dr/dzd] in one pass (open trees)")
MB_SLOT(forward_dynamics_dy, NZ, 2*NZ, MAT, "[dzdd/dz, dzdd/dzd] in one pass and one factorization (open trees)")
MB_SLOT(forward_dynamics_sens, NZ, NP+1, VEC, "[zdd, dzdd_1 .. dzdd_np], dzdd_j along (S_j, Sd_j, e_j), w = [S, Sd] (nz x np each; open trees)")
MB_SLOT(inverse_dynamics_sens, NZ, NP+1, VEC, "[r, dr_1 .. dr_np] at fixed zdd, dr_j along (S_j, Sd_j, e_j), w = [S, Sd] (open trees)")
