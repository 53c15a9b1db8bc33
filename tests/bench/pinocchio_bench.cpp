// pinocchio_bench.cpp: ns per call of one generated model ("peer") against Pinocchio 3.7 on the same tree, after
// checking that both agree. Built by tests/bench/peers_pinocchio.lua, which links it with the model (gcc -O2), the
// textbook RNEA (tests/c/ref_tree.h, gcc -O2, as tb_inverse_dynamics) and pin_build (tests/lib/pinocchio_export.lua).
// Pinocchio's templates take minutes of g++, so this file compiles in five parts, once for every model, in parallel:
// -DPIN_PART=1 (crba, rnea), 2 (their derivatives), 3 (aba), 4 (its derivatives), 5 (main). Calls timed, from scratch:
//   M      crba (upper triangle; the faster of its LOCAL and WORLD conventions)
//   ID     rnea                      FD     aba with tau = 0 (the faster convention)
//   dID    computeRNEADerivatives (dtau/dq, dtau/dv and M) against inverse_dynamics_dy (both Jacobians in one
//          call, as Pinocchio's) and against inverse_dynamics_dz + _dzd
//   dFD    computeABADerivatives (ddq/dq, ddq/dv and M^-1) against forward_dynamics_dy and _dz + _dzd
// mbgen's r = M zdd - Q with Q = -ID(z, zd, 0) is Pinocchio's tau when nothing else acts, so the results compare
// as they are. Prints "key value" lines: the largest relative disagreement of each function over a few random
// states (max |a - b| / max |a|), then the times.
#include <pinocchio/multibody/data.hpp>
#include <pinocchio/multibody/model.hpp>

using Vec = Eigen::VectorXd;

#if PIN_PART == 1
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea.hpp>
void pin_mass(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, bool world)
{
    pinocchio::crba(m, d, q, world ? pinocchio::Convention::WORLD : pinocchio::Convention::LOCAL);
}
void pin_id(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &a)
{
    pinocchio::rnea(m, d, q, v, a);
}

#elif PIN_PART == 2
#include <pinocchio/algorithm/rnea-derivatives.hpp>
void pin_id_derivatives(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &a)
{
    pinocchio::computeRNEADerivatives(m, d, q, v, a);
}

#elif PIN_PART == 3
#include <pinocchio/algorithm/aba.hpp>
void pin_fd(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &tau, bool world)
{
    pinocchio::aba(m, d, q, v, tau, world ? pinocchio::Convention::WORLD : pinocchio::Convention::LOCAL);
}

#elif PIN_PART == 4
#include <pinocchio/algorithm/aba-derivatives.hpp>
void pin_fd_derivatives(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &tau)
{
    pinocchio::computeABADerivatives(m, d, q, v, tau);
}

#else
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>
extern "C" {
#include "bench_time.h"
#include "mb_model.h"
extern const mb_model peer_model;
void tb_inverse_dynamics(const double *z, const double *zd, const double *zdd, double *out);
}
void pin_build(pinocchio::Model &m);
void pin_mass(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, bool world);
void pin_id(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &a);
void pin_id_derivatives(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &a);
void pin_fd(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &tau, bool world);
void pin_fd_derivatives(const pinocchio::Model &m, pinocchio::Data &d, const Vec &q, const Vec &v, const Vec &tau);

// This file (Pinocchio's side) is AVX code, mbgen's C is SSE (gcc -O2): SSE instructions run while the upper halves
// of the vector registers are dirty pay a transition penalty on Intel cores (ur5's mass matrix took 825 ns instead of
// 61 ns, measured). Each timing starts with them cleared, as the compiler's own calls between the two would.
#if defined(__AVX__)
#define CLEAN_UPPER() __asm__ volatile("vzeroupper")
#else
#define CLEAN_UPPER() ((void)0)
#endif

// The minimum of several medians (each TIME is the median of 15 batches): a shared machine slows some batches,
// never speeds one up. Under callgrind TIME counts once instead.
#define BEST(result, body) do {                                                       \
        double best_ = HUGE_VAL;                                                      \
        for (int k_ = 0; k_ < (BENCH_COUNTING() ? 1 : 3); ++k_) {                      \
            CLEAN_UPPER();                                                            \
            TIME(result, body); best_ = std::min(best_, result);                      \
        }                                                                             \
        result = best_; } while (0)

// max |a - b| / max |a|: a is mbgen's column-major array, b an Eigen matrix or vector, read by index (Pinocchio's
// derivative matrices are row-major).
template<class B> static double rel(const double *a, const B &b)
{
    double e = 0, s = 0;
    for (Eigen::Index j = 0; j < b.cols(); ++j)
        for (Eigen::Index i = 0; i < b.rows(); ++i) {
            const double x = a[i + j * b.rows()];
            e = std::max(e, std::fabs(x - b(i, j)));
            s = std::max(s, std::fabs(x));
        }
    return e / std::max(s, 1e-300);
}

int main()
{
    const mb_model *g = &peer_model;
    const int n = g->nz;
    const size_t nn = (size_t)n * n;
    pinocchio::Model model;
    pin_build(model);
    // Coordinates map 1:1: body k is Pinocchio's joint k, its velocity index k - 1.
    if (model.nq != n || model.nv != n) { std::fprintf(stderr, "pinocchio_bench: nq %d nv %d for %d coordinates\n", model.nq, model.nv, n); return 2; }
    for (int k = 1; k <= n; ++k)
        if (model.joints[k].idx_v() != k - 1) { std::fprintf(stderr, "pinocchio_bench: joint %d has velocity index %d\n", k, model.joints[k].idx_v()); return 2; }
    pinocchio::Data data(model);
    std::vector<double> z(n), zd(n), zdd(n), work((size_t)g->nwork + 1), out(2 * nn + n), r(n), Mg(nn), Jg(nn), Kg(nn);
    Vec q(n), v(n), a(n), zero = Vec::Zero(n);
    mb_args args = { 0.0, z.data(), zd.data(), zdd.data(), NULL, g->p_default, NULL };

    // Agreement at a few random states; the last one is timed.
    double e_mass = 0, e_id = 0, e_tb = 0, e_fd = 0, e_idz = 0, e_idzd = 0, e_fdz = 0, e_fdzd = 0, e_idy = 0, e_fdy = 0;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int s = 0; s < 3; ++s) {
        for (int i = 0; i < n; ++i) { z[i] = q[i] = U(rng); zd[i] = v[i] = U(rng); zdd[i] = a[i] = U(rng); }
        g->mass(&args, Mg.data(), work.data());
        pin_mass(model, data, q, false);
        data.M.triangularView<Eigen::StrictlyLower>() = data.M.transpose();   // crba fills the upper triangle
        e_mass = std::max(e_mass, rel(Mg.data(), data.M));
        g->inverse_dynamics(&args, r.data(), work.data());
        pin_id(model, data, q, v, a);
        e_id = std::max(e_id, rel(r.data(), data.tau));
        tb_inverse_dynamics(z.data(), zd.data(), zdd.data(), out.data());
        e_tb = std::max(e_tb, rel(r.data(), Eigen::Map<Vec>(out.data(), n)));
        g->forward_dynamics(&args, r.data(), work.data());
        pin_fd(model, data, q, v, zero, false);
        e_fd = std::max(e_fd, rel(r.data(), data.ddq));
        g->inverse_dynamics_dz(&args, Jg.data(), work.data());
        g->inverse_dynamics_dzd(&args, Kg.data(), work.data());
        pin_id_derivatives(model, data, q, v, a);
        e_idz = std::max(e_idz, rel(Jg.data(), data.dtau_dq));
        e_idzd = std::max(e_idzd, rel(Kg.data(), data.dtau_dv));
        if (g->inverse_dynamics_dy) {   /* absent from models generated before the fused forms (a before/after run) */
            g->inverse_dynamics_dy(&args, out.data(), work.data());
            e_idy = std::max(e_idy, std::max(rel(out.data(), data.dtau_dq), rel(out.data() + nn, data.dtau_dv)));
        }
        g->forward_dynamics_dz(&args, Jg.data(), work.data());
        g->forward_dynamics_dzd(&args, Kg.data(), work.data());
        pin_fd_derivatives(model, data, q, v, zero);
        e_fdz = std::max(e_fdz, rel(Jg.data(), data.ddq_dq));
        e_fdzd = std::max(e_fdzd, rel(Kg.data(), data.ddq_dv));
        if (g->forward_dynamics_dy) {
            g->forward_dynamics_dy(&args, out.data(), work.data());
            e_fdy = std::max(e_fdy, std::max(rel(out.data(), data.ddq_dq), rel(out.data() + nn, data.ddq_dv)));
        }
    }
    std::printf("n %d\nmass_rel %.3g\nid_rel %.3g\ntextbook_id_rel %.3g\nfd_rel %.3g\nid_dz_rel %.3g\nid_dzd_rel %.3g\n"
                "fd_dz_rel %.3g\nfd_dzd_rel %.3g\nid_dy_rel %.3g\nfd_dy_rel %.3g\n", n, e_mass, e_id, e_tb, e_fd, e_idz,
                e_idzd, e_fdz, e_fdzd, e_idy, e_fdy);

    double t_mass, p_mass, p_mass_w, t_id, p_id, tb_id, t_fd, p_fd, p_fd_w, t_idj, p_idj, t_fdj, p_fdj, t_idy, t_fdy;
    double *o = out.data(), *w = work.data();
    BEST(t_mass, g->mass(&args, o, w); sink = o[0]);
    BEST(p_mass, pin_mass(model, data, q, false); sink = data.M(0, 0));
    BEST(p_mass_w, pin_mass(model, data, q, true); sink = data.M(0, 0));
    BEST(t_id, g->inverse_dynamics(&args, o, w); sink = o[0]);
    BEST(p_id, pin_id(model, data, q, v, a); sink = data.tau[0]);
    BEST(tb_id, tb_inverse_dynamics(z.data(), zd.data(), zdd.data(), o); sink = o[0]);
    BEST(t_fd, g->forward_dynamics(&args, o, w); sink = o[0]);
    BEST(p_fd, pin_fd(model, data, q, v, zero, false); sink = data.ddq[0]);
    BEST(p_fd_w, pin_fd(model, data, q, v, zero, true); sink = data.ddq[0]);
    BEST(t_idj, g->inverse_dynamics_dz(&args, o, w); g->inverse_dynamics_dzd(&args, o + nn, w); sink = o[0]);
    BEST(p_idj, pin_id_derivatives(model, data, q, v, a); sink = data.dtau_dq(0, 0));
    BEST(t_fdj, g->forward_dynamics_dz(&args, o, w); g->forward_dynamics_dzd(&args, o + nn, w); sink = o[0]);
    BEST(p_fdj, pin_fd_derivatives(model, data, q, v, zero); sink = data.ddq_dq(0, 0));
    t_idy = t_idj, t_fdy = t_fdj;
    if (g->inverse_dynamics_dy) BEST(t_idy, g->inverse_dynamics_dy(&args, o, w); sink = o[0]);
    if (g->forward_dynamics_dy) BEST(t_fdy, g->forward_dynamics_dy(&args, o, w); sink = o[0]);
    std::printf("mass_ns %.1f\npin_mass_ns %.1f\nid_ns %.1f\npin_id_ns %.1f\ntextbook_id_ns %.1f\nfd_ns %.1f\npin_fd_ns %.1f\n"
                "id_jac_ns %.1f\npin_id_jac_ns %.1f\nfd_jac_ns %.1f\npin_fd_jac_ns %.1f\nid_dy_ns %.1f\nfd_dy_ns %.1f\n", t_mass,
                std::min(p_mass, p_mass_w), t_id, p_id, tb_id, t_fd, std::min(p_fd, p_fd_w), t_idj, p_idj, t_fdj, p_fdj,
                t_idy, t_fdy);
    std::printf("pin_mass_convention %s\npin_fd_convention %s\n", p_mass <= p_mass_w ? "local" : "world",
                p_fd <= p_fd_w ? "local" : "world");
    return 0;
}
#endif
