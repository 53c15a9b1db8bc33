-- dyn_compare.lua: the assertions on the report of tests/lib/dyn_compare.c (a generated model against the reference
-- tree of tests/c/ref_tree.h), shared by the tests that run it.
local M = {}

-- r: the report's key values (H.keyvals); label names the model in every assertion.
function M.check(tap, label, r)
  tap.ok((r.mass or 1) <= 1e-12, string.format("%s: M equals the oracle's CRBA (%.1e)", label, r.mass or -1))
  tap.is(r.symmetric, 0, label .. ": M is exactly symmetric")
  tap.is(r.not_pd, 0, label .. ": M is positive definite")
  tap.is(r.bad_status, 0, label .. ": forward dynamics returns MB_FN_OK")
  tap.ok((r.inverse_dynamics or 1) <= 1e-12,
    string.format("%s: r = M zdd - Q equals the oracle's RNEA (%.1e)", label, r.inverse_dynamics or -1))
  tap.ok((r.forces or 1) <= 1e-12, string.format("%s: Q equals the oracle's (%.1e)", label, r.forces or -1))
  tap.ok((r.kinetic_vs_M or 1) <= 1e-12, string.format("%s: T = 1/2 zd' M zd (%.1e)", label, r.kinetic_vs_M or -1))
  tap.ok((r.kinetic_vs_ref or 1) <= 1e-12 and (r.potential_vs_ref or 1) <= 1e-12,
    string.format("%s: energies equal the oracle's (%.1e, %.1e)", label, r.kinetic_vs_ref or -1, r.potential_vs_ref or -1))
  tap.ok((r.forward_dynamics or 1) <= 1e-12,
    string.format("%s: articulated-body forward dynamics equals M^-1 Q (%.1e)", label, r.forward_dynamics or -1))
  tap.ok((r.residual_at_fd or 1) <= 1e-12,
    string.format("%s: r(zdd = forward dynamics) = 0 (%.1e)", label, r.residual_at_fd or -1))
end

return M
