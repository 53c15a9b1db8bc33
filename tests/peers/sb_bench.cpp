// sb_bench.cpp: ns per call of one generated model against Simbody 3.7 on the same tree (tests/lib/simbody_export.lua,
// built by sb_model.cpp), with the agreement of the three results at the timed state. Built by tests/bench/peers_simbody.lua
// with -DMB_MODEL. Simbody's calls compute from scratch at a new state (setting Q or U invalidates the realizations):
//   mass               updQ, realize(Position), calcM (dense M)
//   inverse dynamics   updQ, updU, realize(Dynamics) (gravity), calcResidualForceIgnoringConstraints
//   forward dynamics   updQ, updU, realize(Acceleration), getUDot
// Prints "key value" lines.
#include "sb_model.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#define _POSIX_C_SOURCE 200809L
extern "C" {
#include "bench_time.h"
#include "mb_model.h"
extern const mb_model MB_MODEL;
}
using namespace SimTK;

static double maxrel(const std::vector<double> &a, const std::vector<double> &b)
{
    double e = 0, s = 1;
    for (size_t i = 0; i < a.size(); i++) { e = std::max(e, std::fabs(a[i] - b[i])); s = std::max(s, std::fabs(a[i])); }
    return e / s;
}

int main(int argc, char **argv)
{
    std::ifstream in(argc > 1 ? argv[1] : "");
    if (!in) { std::fprintf(stderr, "sb_bench: cannot read the description\n"); return 2; }
    SbModel sb(in);
    const mb_model *g = &MB_MODEL;
    const int n = g->nz;
    if (sb.n != n) { std::fprintf(stderr, "sb_bench: %d Simbody mobilities for %d coordinates\n", sb.n, n); return 2; }
    std::vector<double> z(n), zd(n), zdd(n), out((size_t)n * n), M1((size_t)n * n), r1(n), a1(n);
    Vector q(n), u(n), udot(n), res;
    Matrix Ms;
    for (int i = 0; i < n; ++i) {
        z[i] = q[i] = 0.3 * ((i * 7919) % 13 - 6) / 6.0;
        zd[i] = u[i] = 0.5 * ((i * 104729) % 11 - 5) / 5.0;
        zdd[i] = udot[i] = 0.1 * i;
    }
    mb_args a = { 0.0, z.data(), zd.data(), zdd.data(), NULL, g->p_default, NULL };
    std::vector<double> work((size_t)g->nwork + 1);
    State s = sb.system.getDefaultState();
    MultibodySystem &sys = sb.system;
    const SimbodyMatterSubsystem &mat = sb.matter;

    // Agreement at the timed state.
    g->mass(&a, M1.data(), work.data());
    g->inverse_dynamics(&a, r1.data(), work.data());
    g->forward_dynamics(&a, a1.data(), work.data());
    s.updQ() = q; s.updU() = u;
    sys.realize(s, Stage::Acceleration);
    mat.calcM(s, Ms);
    mat.calcResidualForceIgnoringConstraints(s, sys.getMobilityForces(s, Stage::Dynamics),
        sys.getRigidBodyForces(s, Stage::Dynamics), udot, res);
    std::vector<double> M2((size_t)n * n), r2(n), a2(n);
    for (int i = 0; i < n; ++i) {
        r2[i] = res[i];
        a2[i] = s.getUDot()[i];
        for (int j = 0; j < n; ++j) M2[(size_t)j * n + i] = Ms(i, j);
    }
    std::printf("n %d\nmass_rel %.3g\nid_rel %.3g\nfd_rel %.3g\n", n, maxrel(M1, M2), maxrel(r1, r2), maxrel(a1, a2));

    double t_mass, s_mass, t_id, s_id, t_fd, s_fd;
    TIME(t_mass, g->mass(&a, out.data(), work.data()); sink = out[0]);
    TIME(s_mass, s.updQ() = q; sys.realize(s, Stage::Position); mat.calcM(s, Ms); sink = Ms(0, 0));
    TIME(t_id, g->inverse_dynamics(&a, out.data(), work.data()); sink = out[0]);
    TIME(s_id, s.updQ() = q; s.updU() = u; sys.realize(s, Stage::Dynamics);
         mat.calcResidualForceIgnoringConstraints(s, sys.getMobilityForces(s, Stage::Dynamics),
             sys.getRigidBodyForces(s, Stage::Dynamics), udot, res); sink = res[0]);
    TIME(t_fd, g->forward_dynamics(&a, out.data(), work.data()); sink = out[0]);
    TIME(s_fd, s.updQ() = q; s.updU() = u; sys.realize(s, Stage::Acceleration); sink = s.getUDot()[0]);
    std::printf("mass_ns %.1f\nsb_mass_ns %.1f\nid_ns %.1f\nsb_id_ns %.1f\nfd_ns %.1f\nsb_fd_ns %.1f\n",
                t_mass, s_mass, t_id, s_id, t_fd, s_fd);
    return 0;
}
