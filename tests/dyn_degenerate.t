#!/usr/bin/env lua5.4
-- dyn_degenerate.t: the degenerate geometries of tests/fixtures/degenerate/ against independent oracles and `mbgen check`.
--
-- Parallel, anti-parallel, intersecting and nearly parallel axes, prismatic and revolute joints on one line, zero
-- offsets with round-off residues, and design parameters that are 0 at the nominal design are where a placement
-- of generation-time joint frames (DH-like, with structural zeros and snapping) can go wrong without any
-- random tree noticing. Each fixture gets:
--   * the comparison of tests/dyn_reference.t (tests/lib/dyn_compare.c against tests/c/ref_tree.h); that oracle
--     knows no applied forces, so it sees the model without its springs, torques and forces;
--   * a second oracle program (EXTRA_C below, also on ref_tree.h) on the whole model: applied forces, forces_nc,
--     energies, forward dynamics, points and their exact Jacobian; for models with design parameters also at a
--     second design point (the generated defaults stay those of the file), and dr/dp and dzdd/dp column by
--     column against central differences of the oracle in p, so a design parameter that is 0 at the nominal
--     design cannot have been folded away as a structural zero;
--   * `mbgen check -q` (started in the background at once, so its compilations overlap ours).
local H = dofile((arg[0]:match("^(.-)tests/[^/]*$") or "./") .. "tests/lib/harness.lua")
local tap = require "tap"
local DC = require "dyn_compare"
local RX = require "ref_export"

local started = H.now()
local tmp = H.root .. "build/tmp/dyn_degenerate"
H.mkdir(tmp)

local _, listing = H.sh("ls " .. H.root .. "tests/fixtures/degenerate/*.lua")
local files = {}
for path in listing:gmatch("[^\n]+") do files[#files + 1] = path:sub(#H.root + 1) end
tap.ok(#files >= 5, string.format("%d degenerate fixtures found", #files))

local checks = {}
for _, file in ipairs(files) do
  checks[file] = io.popen(string.format("cd '%s' && lua5.4 generator/mbgen check -q '%s' 2>&1", H.root, file))
end

-- The oracle of applied forces, points and design derivatives. Everything model-specific comes from the
-- header the test writes (CFG_*: one configuration per design vector; set s is configuration s * (1 + 2 NP),
-- followed by its p_k + h and p_k - h for each k). Prints "key value" lines, keys prefixed by the set.
local EXTRA_C = [[
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include MODEL_HEADER
#include "ref_tree.h"
#include "relerr.h"
#include ORACLE_HEADER


static double worst(double w, double e) { return e > w || e != e ? e : w; }

/* World position of a body point and its Jacobian (3 x n, row-major), exact rather than a difference quotient so
 * that points_dz and the springs are held to 1e-12: for each joint j on the path from the root, w_j x (x - o_j)
 * (revolute) or w_j (prismatic), w_j the joint axis and o_j the joint origin in the world. */
static void point_jac(const struct ref_tree *t, const double *z, int body, const double at[3], double x[3], double *J)
{
    double R[REF_MAX][9], p[REF_MAX][3];
    int n = t->n;
    memset(J, 0, sizeof(double) * 3 * (size_t)n);
    if (body < 0) { memcpy(x, at, 3 * sizeof(double)); return; }
    ref_fk(t, z, R, p);
    double d[3];
    ref_m3v(R[body], at, d);
    for (int a = 0; a < 3; ++a) x[a] = p[body][a] + d[a];
    for (int j = body; j >= 0; j = t->parent[j]) {
        static const double I3[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
        static const double O3[3] = { 0, 0, 0 };
        int par = t->parent[j];
        const double *Rp = par < 0 ? I3 : R[par], *pp = par < 0 ? O3 : p[par];
        double ax[3], w[3], o[3], col[3];
        ref_m3v(t->rotation[j], t->axis[j], ax);
        ref_m3v(Rp, ax, w);
        ref_m3v(Rp, t->origin[j], o);
        for (int a = 0; a < 3; ++a) o[a] += pp[a];
        if (t->kind[j] == REF_REVOLUTE) {
            double r[3] = { x[0] - o[0], x[1] - o[1], x[2] - o[2] };
            ref_cross(w, r, col);
        } else {
            memcpy(col, w, sizeof col);
        }
        for (int a = 0; a < 3; ++a) J[a * n + j] = col[a];
    }
}

/* Generalized applied forces of configuration c (all of them and the part without a potential) and the springs'
 * potential. */
static void applied(int c, const double *z, const double *zd, double *Q, double *Qnc, double *V)
{
    const struct ref_tree *t = CFG_REF[c];
    int n = t->n;
    static double Ja[3 * REF_MAX], Jb[3 * REF_MAX];
    for (int i = 0; i < n; ++i) Q[i] = Qnc[i] = 0;
    *V = 0;
    for (int e = 0; e < NAPP; ++e) {
        const struct app *A = &CFG_APP[c][e];
        if (A->kind == APP_JOINT_SPRING) {
            double dz = z[A->a] - A->len;
            Q[A->a] += -A->k * dz - A->c * zd[A->a];
            Qnc[A->a] += -A->c * zd[A->a];
            *V += 0.5 * A->k * dz * dz;
        } else if (A->kind == APP_TORQUE) {
            Q[A->a] += A->k;
            Qnc[A->a] += A->k;
        } else if (A->kind == APP_FORCE) {
            double x[3], F[3];
            point_jac(t, z, A->a, A->at_a, x, Ja);
            memcpy(F, A->v, sizeof F);
            if (A->body_frame && A->a >= 0) {
                double R[REF_MAX][9], p[REF_MAX][3];
                ref_fk(t, z, R, p);
                ref_m3v(R[A->a], A->v, F);
            }
            for (int j = 0; j < n; ++j) {
                double g = Ja[j] * F[0] + Ja[n + j] * F[1] + Ja[2 * n + j] * F[2];
                Q[j] += g;
                Qnc[j] += g;
            }
        } else { /* APP_SPRING: tension k (l - L0) + c ldot pulls b towards a */
            double xa[3], xb[3], va[3] = { 0, 0, 0 }, vb[3] = { 0, 0, 0 }, d[3], u[3];
            point_jac(t, z, A->a, A->at_a, xa, Ja);
            point_jac(t, z, A->b, A->at_b, xb, Jb);
            for (int a = 0; a < 3; ++a)
                for (int j = 0; j < n; ++j) { va[a] += Ja[a * n + j] * zd[j]; vb[a] += Jb[a * n + j] * zd[j]; }
            for (int a = 0; a < 3; ++a) d[a] = xb[a] - xa[a];
            double l = sqrt(ref_dot3(d, d));
            for (int a = 0; a < 3; ++a) u[a] = d[a] / l;
            double ldot = u[0] * (vb[0] - va[0]) + u[1] * (vb[1] - va[1]) + u[2] * (vb[2] - va[2]);
            double tension = A->k * (l - A->len) + A->c * ldot;
            for (int j = 0; j < n; ++j) {
                double dl = 0;
                for (int a = 0; a < 3; ++a) dl += u[a] * (Jb[a * n + j] - Ja[a * n + j]);
                Q[j] += -tension * dl;
                Qnc[j] += -A->c * ldot * dl;
            }
            *V += 0.5 * A->k * (l - A->len) * (l - A->len);
        }
    }
}

/* The oracle's residual r = M zdd - Q and forward dynamics of configuration c. */
static void oracle_r(int c, const double *z, const double *zd, const double *zdd, double *r)
{
    double Qa[REF_MAX], Qnc[REF_MAX], V;
    applied(c, z, zd, Qa, Qnc, &V);
    ref_inverse_dynamics(CFG_REF[c], z, zd, zdd, r);
    for (int i = 0; i < CFG_REF[c]->n; ++i) r[i] -= Qa[i];
}

static int oracle_fd(int c, const double *z, const double *zd, double *fd)
{
    double Qa[REF_MAX], Qnc[REF_MAX], V;
    applied(c, z, zd, Qa, Qnc, &V);
    return ref_forward_dynamics(CFG_REF[c], z, zd, Qa, fd);
}

/* 1 when entry (i, j) is a structural non-zero of the pattern. */
static int in_pattern(const mb_pattern *P, int i, int j)
{
    if (!P) return 1;
    for (int k = P->colptr[j]; k < P->colptr[j + 1]; ++k)
        if (P->rowind[k] == i) return 1;
    return 0;
}

int main(void)
{
    const mb_model *m = &MODEL;
    int n = m->nz, np = m->np, npt = m->npt;
    if (n != CFG_REF[0]->n || np != NP || npt != NPT) {
        printf("size_mismatch %d %d %d %d %d %d\n", n, CFG_REF[0]->n, np, NP, npt, NPT);
        return 1;
    }
    static double z[REF_MAX], zd[REF_MAX], zdd[REF_MAX], Q[REF_MAX], Qr[REF_MAX], Qnc[REF_MAX], Qa[REF_MAX],
        Qanc[REF_MAX], r[REF_MAX], rr[REF_MAX], fd[REF_MAX], fdr[REF_MAX], rp[REF_MAX], rm[REF_MAX];
    static double pts[3 * (NPT + 1)], ptsr[3 * (NPT + 1)], Jg[3 * (NPT + 1) * REF_MAX], Jr[3 * (NPT + 1) * REF_MAX],
        Jp[3 * REF_MAX], D[REF_MAX * (NP + 1)], Dr[REF_MAX * (NP + 1)];
    double *work = calloc(m->nwork > 0 ? (size_t)m->nwork : 1, sizeof *work);
    if (!work) return 2;
    struct ref_rng s;
    ref_rng_seed(&s, 271828);
    for (int set = 0; set < NSET; ++set) {
        int c0 = set * (1 + 2 * NP);
        const struct ref_tree *t = CFG_REF[c0];
        double e_Q = 0, e_nc = 0, e_r = 0, e_T = 0, e_V = 0, e_fd = 0, e_pt = 0, e_ptdz = 0, e_mass = 0;
        double e_idp[NP + 1], e_fdp[NP + 1], c_idp[NP + 1], c_fdp[NP + 1];
        int bad_status = 0, not_pd = 0, missing_id = 0, missing_fd = 0;
        for (int k = 0; k <= NP; ++k) e_idp[k] = e_fdp[k] = 0, c_idp[k] = c_fdp[k] = INFINITY;
        for (int st = 0; st < 6; ++st) {
            for (int i = 0; i < n; ++i) {
                z[i] = ref_rng_uniform(&s, -1.5, 1.5);
                zd[i] = ref_rng_uniform(&s, -2, 2);
                zdd[i] = ref_rng_uniform(&s, -2, 2);
            }
            mb_args a = { 0.0, z, zd, zdd, NULL, CFG_P[c0], NULL };
            double V;
            applied(c0, z, zd, Qa, Qanc, &V);
            m->forces(&a, Q, work);
            ref_forces(t, z, zd, Qr);
            for (int i = 0; i < n; ++i) Qr[i] += Qa[i];
            e_Q = worst(e_Q, relerr(Q, Qr, n));
            if (m->forces_nc) {
                m->forces_nc(&a, Qnc, work);
                e_nc = worst(e_nc, relerr(Qnc, Qanc, n));
            }
            m->inverse_dynamics(&a, r, work);
            oracle_r(c0, z, zd, zdd, rr);
            e_r = worst(e_r, relerr(r, rr, n));
            double en[2], enr[2];
            m->energy(&a, en, work);
            ref_energy(t, z, zd, enr);
            e_T = worst(e_T, fabs(en[0] - enr[0]) / fmax(fabs(enr[0]), 1e-300));
            e_V = worst(e_V, fabs(en[1] - (enr[1] + V)) / fmax(fabs(enr[1] + V), 1.0));
            if (m->forward_dynamics(&a, fd, work)) bad_status = 1;
            if (oracle_fd(c0, z, zd, fdr) != 0) not_pd = 1;
            e_fd = worst(e_fd, relerr(fd, fdr, n));
            if (npt > 0) {
                m->points(&a, pts, work);
                m->points_dz(&a, Jg, work);
                for (int q = 0; q < npt; ++q) {
                    point_jac(t, z, PT_BODY[q], CFG_PT_AT[c0][q], ptsr + 3 * q, Jp);
                    for (int row = 0; row < 3; ++row)       /* points_dz is column-major, 3 NPT x NZ */
                        for (int j = 0; j < n; ++j) Jr[(3 * q + row) + j * 3 * npt] = Jp[row * n + j];
                }
                e_pt = worst(e_pt, relerr(pts, ptsr, 3 * npt));
                e_ptdz = worst(e_ptdz, relerr(Jg, Jr, 3 * npt * n));
            }
            if (m->total_mass) {
                double tm, tmr = 0;
                m->total_mass(&a, &tm, work);
                for (int i = 0; i < n; ++i) tmr += t->mass[i];
                e_mass = worst(e_mass, fabs(tm - tmr) / tmr);
            }
            /* Design derivatives column by column: the error relative to the oracle column's own size, and that
             * size relative to the whole matrix, so a column folded to zero fails however small it is. */
            for (int which = 0; which < 2 && NP > 0; ++which) {
                mb_fn *f = which == 0 ? m->inverse_dynamics_dp : m->forward_dynamics_dp;
                const mb_pattern *P = which == 0 ? m->inverse_dynamics_dp_pattern : m->forward_dynamics_dp_pattern;
                if (!f) { if (which == 0) missing_id = -1; else missing_fd = -1; continue; }
                f(&a, D, work);
                double big = 0;
                for (int k = 0; k < NP; ++k) {
                    int cp = c0 + 1 + 2 * k, cm = cp + 1;
                    double h = (CFG_P[cp][k] - CFG_P[cm][k]) / 2;
                    if (which == 0) { oracle_r(cp, z, zd, zdd, rp); oracle_r(cm, z, zd, zdd, rm); }
                    else { oracle_fd(cp, z, zd, rp); oracle_fd(cm, z, zd, rm); }
                    for (int i = 0; i < n; ++i) {
                        Dr[i + k * n] = (rp[i] - rm[i]) / (2 * h);
                        if (fabs(Dr[i + k * n]) > big) big = fabs(Dr[i + k * n]);
                    }
                }
                for (int k = 0; k < NP; ++k) {
                    double col = 0;
                    for (int i = 0; i < n; ++i) col = fmax(col, fabs(Dr[i + k * n]));
                    double e = relerr(D + k * n, Dr + k * n, n);
                    double size = big > 0 ? col / big : 0;
                    for (int i = 0; i < n; ++i)
                        if (fabs(Dr[i + k * n]) > 1e-6 * big && !in_pattern(P, i, k)) {
                            if (which == 0) ++missing_id; else ++missing_fd;
                        }
                    if (which == 0) { e_idp[k] = worst(e_idp[k], e); c_idp[k] = fmin(c_idp[k], size); }
                    else { e_fdp[k] = worst(e_fdp[k], e); c_fdp[k] = fmin(c_fdp[k], size); }
                }
            }
        }
        printf("set%d_forces %.3e\nset%d_forces_nc %.3e\nset%d_inverse_dynamics %.3e\n", set, e_Q, set, e_nc, set, e_r);
        printf("set%d_kinetic %.3e\nset%d_potential %.3e\nset%d_forward_dynamics %.3e\n", set, e_T, set, e_V, set, e_fd);
        printf("set%d_bad_status %d\nset%d_not_pd %d\n", set, bad_status, set, not_pd);
        printf("set%d_points %.3e\nset%d_points_dz %.3e\nset%d_total_mass %.3e\n", set, e_pt, set, e_ptdz, set, e_mass);
        printf("set%d_id_dp_missing %d\nset%d_fd_dp_missing %d\n", set, missing_id, set, missing_fd);
        for (int k = 0; k < NP; ++k)
            printf("set%d_id_dp_err_%d %.3e\nset%d_id_dp_size_%d %.3e\nset%d_fd_dp_err_%d %.3e\nset%d_fd_dp_size_%d %.3e\n",
                   set, k, e_idp[k], set, k, c_idp[k], set, k, e_fdp[k], set, k, c_fdp[k]);
    }
    free(work);
    return 0;
}
]]
local extra_c = tmp .. "/extra.c"
H.write(extra_c, EXTRA_C)

-- A number of the tree (a number or a sym node) at the design vector P (1-based).
local eval
local function num(v, P)
  if type(v) == "number" then return v end
  eval = eval or require "sym.eval"
  return eval.eval({ v }, { p = P })[1]
end
local function g17(x) return string.format("%.17g", x) end
local function vec(v, P) return string.format("{ %s, %s, %s }", g17(num(v[1], P)), g17(num(v[2], P)), g17(num(v[3], P))) end

local function defaults(tree)
  local P = {}
  for _, par in ipairs(tree.parameters) do
    if par.kind == "design" then P[par.index + 1] = par.value end
  end
  return P
end

-- The design vectors: the file's defaults and, with design parameters, a second point away from them (every
-- parameter moved, masses and scales upwards), each followed by p_k +- h for the central differences. mbcheck
-- draws p as p_default (1 + 0.2 U), so a parameter whose default is 0 is never evaluated anywhere but at 0.
local function configurations(tree)
  local np = #tree.design
  local sets = { defaults(tree) }
  if np > 0 then
    local alt = {}
    for k, v in ipairs(sets[1]) do alt[k] = v + 0.05 * (1 + k % 3) end
    sets[2] = alt
  end
  local cfgs = {}
  for _, P in ipairs(sets) do
    cfgs[#cfgs + 1] = P
    for k = 1, np do
      local h = 1e-6 * math.max(1, math.abs(P[k]))
      local plus, minus = table.move(P, 1, np, 1, {}), table.move(P, 1, np, 1, {})
      plus[k], minus[k] = P[k] + h, P[k] - h
      cfgs[#cfgs + 1], cfgs[#cfgs + 2] = plus, minus
    end
  end
  return cfgs, #sets
end

local function has_applied(tree)
  return #tree.joint_springs + #tree.springs + #tree.torques + #tree.forces > 0
end

-- The header of EXTRA_C: the oracle's tree, applied forces and points for every configuration.
local function oracle_header(tree)
  local cfgs, nset = configurations(tree)
  local np, npt = #tree.design, #tree.points
  if #(tree.tyres or {}) > 0 then error(tree.name .. ": the oracle has no tyres") end
  local L = { string.format("/* oracle data of %s, written by tests/dyn_degenerate.t */", tree.name),
    string.format("#define NP %d\n#define NPT %d\n#define NSET %d\n#define NCFG %d", np, npt, nset, #cfgs),
    "enum { APP_JOINT_SPRING, APP_TORQUE, APP_FORCE, APP_SPRING };",
    "struct app { int kind, a, b; double at_a[3], at_b[3], k, len, c, v[3]; int body_frame; };" }
  local refs, ps, ats, apps = {}, {}, {}, {}
  for c, P in ipairs(cfgs) do
    L[#L + 1] = RX.export(tree, { p = P }, "ref_c" .. c)
    refs[c] = "&ref_c" .. c
    local pv = {}
    for k = 1, np do pv[k] = g17(P[k]) end
    ps[c] = "{ " .. (np > 0 and table.concat(pv, ", ") or "0") .. " }"
    local at = {}
    for q, pt in ipairs(tree.points) do at[q] = vec(pt.at, P) end
    ats[c] = "{ " .. (npt > 0 and table.concat(at, ", ") or "{ 0, 0, 0 }") .. " }"
    local A = {}
    local function fixed(v, what)
      if type(v) == "function" then error(tree.name .. ": " .. what .. " is a function; the oracle takes values only") end
      return num(v or 0, P)
    end
    for _, e in ipairs(tree.joint_springs) do
      A[#A + 1] = string.format("{ APP_JOINT_SPRING, %d, 0, { 0 }, { 0 }, %s, %s, %s, { 0 }, 0 }", e.coord - 1,
        g17(fixed(e.stiffness, e.name)), g17(fixed(e.rest, e.name)), g17(fixed(e.damping, e.name)))
    end
    for _, e in ipairs(tree.torques) do
      A[#A + 1] = string.format("{ APP_TORQUE, %d, 0, { 0 }, { 0 }, %s, 0, 0, { 0 }, 0 }", e.coord - 1, g17(fixed(e.value, e.name)))
    end
    for _, e in ipairs(tree.forces) do
      if type(e.value) == "function" then error(tree.name .. ": force " .. e.name .. " is a function") end
      A[#A + 1] = string.format("{ APP_FORCE, %d, 0, %s, { 0 }, 0, 0, 0, %s, %d }", e.body - 1, vec(e.at or { 0, 0, 0 }, P),
        vec(e.value, P), e.frame == "body" and 1 or 0)
    end
    for _, e in ipairs(tree.springs) do
      if e.force then error(tree.name .. ": spring " .. e.name .. " has a force law; the oracle is linear") end
      A[#A + 1] = string.format("{ APP_SPRING, %d, %d, %s, %s, %s, %s, %s, { 0 }, 0 }", e.a.body - 1, e.b.body - 1,
        vec(e.a.at or { 0, 0, 0 }, P), vec(e.b.at or { 0, 0, 0 }, P), g17(fixed(e.stiffness, e.name)),
        g17(fixed(e.length, e.name)), g17(fixed(e.damping, e.name)))
    end
    apps[c] = "{ " .. (#A > 0 and table.concat(A, ",\n    ") or "{ 0 }") .. " }"
    apps.n = #A
  end
  local bodies = {}
  for q, pt in ipairs(tree.points) do bodies[q] = tostring(pt.body - 1) end
  L[#L + 1] = string.format("#define NAPP %d", apps.n)
  L[#L + 1] = "static const struct ref_tree *const CFG_REF[NCFG] = { " .. table.concat(refs, ", ") .. " };"
  L[#L + 1] = "static const double CFG_P[NCFG][NP + 1] = {\n  " .. table.concat(ps, ",\n  ") .. " };"
  L[#L + 1] = "static const int PT_BODY[NPT + 1] = { " .. (npt > 0 and table.concat(bodies, ", ") or "0") .. " };"
  L[#L + 1] = "static const double CFG_PT_AT[NCFG][NPT + 1][3] = {\n  " .. table.concat(ats, ",\n  ") .. " };"
  L[#L + 1] = "static const struct app CFG_APP[NCFG][NAPP + 1] = {\n  " .. table.concat(apps, ",\n  ") .. " };"
  return table.concat(L, "\n") .. "\n", nset
end

-- NAME.c is compiled once, since both oracle programs link it; returns the object (or nil) and gcc's output.
local function build(tree, dir)
  H.generate(tree, dir)
  local obj = dir .. "/" .. tree.name .. ".o"
  local ok, out = H.sh(string.format("gcc %s -I'%sruntime' -c '%s/%s.c' -o '%s'", H.CFLAGS, H.root, dir, tree.name, obj))
  return ok and obj or nil, out
end

local function link(src, dir, name, oracle, obj, exe)
  return H.sh(string.format("gcc %s -I'%s' -I'%sruntime' -I'%stests/c' -I'%stests/lib' -DMODEL_HEADER='\"%s.h\"' -D%s='\"%s\"' " ..
    "-DMODEL=%s_model '%s' '%s' -lm -o '%s'", H.CFLAGS, dir, H.root, H.root, H.root, name,
    src:find("dyn_compare") and "REF_HEADER" or "ORACLE_HEADER", oracle, name, src, obj, exe))
end

-- tests/dyn_reference.t's comparison, on the model without applied forces.
local function reference(label, tree, dir, obj)
  local name = tree.name
  H.write(dir .. "/" .. name .. "_ref.h", RX.export(tree, { p = defaults(tree) }, "ref_model"))
  local exe = dir .. "/compare"
  local ok, out = link(H.root .. "tests/lib/dyn_compare.c", dir, name, name .. "_ref.h", obj, exe)
  if not tap.ok(ok, label .. ": dyn_compare.c compiles with -Werror") then tap.diag(out); return end
  local ok2, res = H.sh("'" .. exe .. "'")
  if not tap.ok(ok2, label .. ": comparison runs") then tap.diag(res) end
  local r = H.keyvals(res)
  DC.check(tap, label, r)
end

-- The whole model against EXTRA_C's oracle, at every design set.
local function whole(label, tree, dir, obj)
  local name = tree.name
  local header, nset = oracle_header(tree)
  H.write(dir .. "/" .. name .. "_oracle.h", header)
  local exe = dir .. "/oracle"
  local ok, out = link(extra_c, dir, name, name .. "_oracle.h", obj, exe)
  if not tap.ok(ok, label .. ": the applied-force and point oracle compiles with -Werror") then tap.diag(out); return end
  local ok2, res = H.sh("'" .. exe .. "'")
  if not tap.ok(ok2, label .. ": the oracle runs") then tap.diag(res); return end
  local r = H.keyvals(res)
  local function small(key, what, tol)
    local v = r[key]
    tap.ok(type(v) == "number" and v <= (tol or 1e-12), string.format("%s: %s (%s)", label, what,
      type(v) == "number" and string.format("%.1e", v) or "missing"))
  end
  for set = 0, nset - 1 do
    local at = set == 0 and "at the file's design" or "at p = defaults + 0.05..0.15 (generated defaults kept)"
    local k = "set" .. set .. "_"
    if #tree.design == 0 then at = "on the whole model" end
    small(k .. "forces", "Q " .. at .. " equals the oracle's (joint springs, springs, torques, forces)")
    small(k .. "forces_nc", "forces_nc " .. at .. " equals the oracle's dampers, torques and forces")
    small(k .. "inverse_dynamics", "r " .. at .. " equals the oracle's RNEA minus applied forces")
    small(k .. "kinetic", "kinetic energy " .. at .. " equals the oracle's")
    small(k .. "potential", "potential energy " .. at .. " equals gravity's plus the springs'")
    small(k .. "forward_dynamics", "forward dynamics " .. at .. " equals the oracle's ABA with applied forces")
    tap.is(r[k .. "bad_status"], 0, label .. ": forward dynamics returns MB_FN_OK " .. at)
    tap.is(r[k .. "not_pd"], 0, label .. ": the oracle's M is positive definite " .. at)
    if #tree.points > 0 then
      small(k .. "points", "points " .. at .. " equal the oracle's body points")
      small(k .. "points_dz", "points_dz " .. at .. " equals the exact geometric Jacobian")
    end
    small(k .. "total_mass", "total mass " .. at .. " equals the sum of the oracle's masses")
    if #tree.design > 0 then
      tap.is(r[k .. "id_dp_missing"], 0, label .. ": inverse_dynamics_dp's pattern holds every non-zero of the oracle's " .. at)
      tap.is(r[k .. "fd_dp_missing"], 0, label .. ": forward_dynamics_dp's pattern holds every non-zero of the oracle's " .. at)
      for i, pname in ipairs(tree.design) do
        for _, fn in ipairs { "id", "fd" } do
          local e, size = r[string.format("%s%s_dp_err_%d", k, fn, i - 1)], r[string.format("%s%s_dp_size_%d", k, fn, i - 1)]
          local full = fn == "id" and "inverse_dynamics_dp" or "forward_dynamics_dp"
          -- The oracle's column must be a real column (1e-4 of the matrix at every state), or the fixture
          -- would not test what it claims; then the generated one must equal it to central-difference accuracy.
          tap.ok(type(size) == "number" and size >= 1e-4 and type(e) == "number" and e <= 1e-6,
            string.format("%s: %s column %s %s is non-zero (%.1e of the matrix) and equals the oracle's central difference (%.1e)",
              label, full, pname, at, size or -1, e or -1))
        end
      end
    end
  end
end

local designs = {}
for _, file in ipairs(files) do
  local base = file:match("([^/]+)%.lua$")
  local label = "degenerate/" .. base
  local ok, tree = pcall(H.tree, H.root .. file)
  designs[file] = ok and #tree.design or 0
  if not tap.ok(ok, label .. ": loads") then
    tap.diag(type(tree) == "table" and (tree.message or "?") or tostring(tree))
  else
    local dir = tmp .. "/" .. base
    local obj, out = build(tree, dir)
    if not tap.ok(obj, label .. ": generated code compiles with -Werror") then
      tap.diag(out)
    else
      if has_applied(tree) then
        -- dyn_compare's oracle has gravity and inertia only: the same model without its applied forces.
        -- Loaded afresh: the generator caches per-tree state (the name of the data table) on the tree itself.
        local bare = H.tree(H.root .. file)
        bare.name, bare.joint_springs, bare.springs, bare.torques, bare.forces = tree.name .. "_bare", {}, {}, {}, {}
        local bdir = dir .. "/bare"
        local bobj, bout = build(bare, bdir)
        if tap.ok(bobj, label .. ": the model without applied forces compiles") then
          reference(label .. " without applied forces", bare, bdir, bobj)
        else
          tap.diag(bout)
        end
      else
        reference(label, tree, dir, obj)
      end
      whole(label, tree, dir, obj)
    end
  end
end

for _, file in ipairs(files) do
  local label = "degenerate/" .. file:match("([^/]+)%.lua$")
  local out = checks[file]:read("a")
  local ok = checks[file]:close()
  local n = tonumber(out:match("(%d+) functions checked")) or 0
  if not tap.ok(ok and n > 0, string.format("mbgen check %s: %d functions within tolerance", label, n)) then
    tap.diag(out)
  end
  if designs[file] > 0 then
    -- The design derivatives must have been among those checked (mbcheck lists them by name).
    tap.like(out, "\ninverse_dynamics_dp +[%d.e+-]+ +[%d.e+-]+\n", label .. ": mbgen check compared inverse_dynamics_dp")
    tap.like(out, "\nforward_dynamics_dp +[%d.e+-]+ +[%d.e+-]+\n", label .. ": mbgen check compared forward_dynamics_dp")
  end
end

tap.diag(string.format("dyn_degenerate: %.1f s", H.now() - started))
tap.done_testing()
