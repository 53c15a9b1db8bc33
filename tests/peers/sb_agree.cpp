// sb_agree.cpp: reads a tree description and a state (tests/peer_simbody.t) and prints Simbody's M, inverse
// dynamics and forward dynamics (udot of realize(Acceleration), no applied forces but gravity).
// Input: the description of tests/lib/simbody_export.lua (built by sb_model.cpp), then q, u, udot (n each).
#include "sb_model.h"
#include <cstdio>
#include <iostream>
using namespace SimTK;

int main()
{
    SbModel sb(std::cin);
    int n = sb.n;
    State s = sb.system.getDefaultState();
    Vector q(n), u(n), udot(n);
    for (int i = 0; i < n; i++) std::cin >> q[i];
    for (int i = 0; i < n; i++) std::cin >> u[i];
    for (int i = 0; i < n; i++) std::cin >> udot[i];
    for (int i = 0; i < n; i++) { sb.mob[i].setOneQ(s, 0, q[i]); sb.mob[i].setOneU(s, 0, u[i]); }
    sb.system.realize(s, Stage::Dynamics);
    Matrix M;
    sb.matter.calcM(s, M);
    Vector res;
    sb.matter.calcResidualForceIgnoringConstraints(s, sb.system.getMobilityForces(s, Stage::Dynamics),
        sb.system.getRigidBodyForces(s, Stage::Dynamics), udot, res);
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) std::printf("M %d %d %.17g\n", i, j, M(i, j));
    for (int i = 0; i < n; i++) std::printf("r %d %.17g\n", i, res[i]);
    sb.system.realize(s, Stage::Acceleration);
    for (int i = 0; i < n; i++) std::printf("a %d %.17g\n", i, s.getUDot()[i]);
    return 0;
}
