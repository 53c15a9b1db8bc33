// sb_agree.cpp: reads a tree description (tests/peer_simbody.t) and prints Simbody's M and inverse dynamics.
// Input per body: kind parent  ox oy oz  R(9, row-major)  ax ay az  mass  cx cy cz  Ixx Iyy Izz Ixy Ixz Iyz
// (inertia about the centre of mass in body axes); first line: n gx gy gz; then q, u, udot (n each).
// Pin turns about z of its F and M frames, Slider moves along x: F = (R A, origin), M = (A, 0) with
// A e = axis, so the body turns by q about the mbgen axis exactly as in mbgen.
#include "Simbody.h"
#include <cstdio>
#include <iostream>
#include <vector>
using namespace SimTK;

int main()
{
    int n;
    Vec3 g;
    std::cin >> n >> g[0] >> g[1] >> g[2];
    MultibodySystem system;
    SimbodyMatterSubsystem matter(system);
    GeneralForceSubsystem forces(system);
    Force::UniformGravity gravity(forces, matter, g);
    std::vector<MobilizedBody> mob;
    for (int i = 0; i < n; i++) {
        std::string kind;
        int parent;
        Vec3 o, a, c;
        Mat33 R;
        Real m, I[6];
        std::cin >> kind >> parent >> o[0] >> o[1] >> o[2];
        for (int r = 0; r < 3; r++) for (int k = 0; k < 3; k++) std::cin >> R(r, k);
        std::cin >> a[0] >> a[1] >> a[2] >> m >> c[0] >> c[1] >> c[2];
        for (int k = 0; k < 6; k++) std::cin >> I[k];
        Inertia Ic(I[0], I[1], I[2], I[3], I[4], I[5]);
        Body::Rigid body(MassProperties(m, c, Ic.shiftFromMassCenter(c, m)));
        MobilizedBody &P = parent == 0 ? (MobilizedBody &)matter.Ground() : mob[parent - 1];
        Rotation A;
        if (kind == "revolute") A.setRotationFromOneAxis(UnitVec3(a), ZAxis);
        else A.setRotationFromOneAxis(UnitVec3(a), XAxis);
        Rotation Rp(R, true);
        Transform XPF(Rp * A, o), XBM(A, Vec3(0));
        if (kind == "revolute") mob.push_back(MobilizedBody::Pin(P, XPF, body, XBM));
        else mob.push_back(MobilizedBody::Slider(P, XPF, body, XBM));
    }
    State s = system.realizeTopology();
    Vector q(n), u(n), udot(n);
    for (int i = 0; i < n; i++) std::cin >> q[i];
    for (int i = 0; i < n; i++) std::cin >> u[i];
    for (int i = 0; i < n; i++) std::cin >> udot[i];
    for (int i = 0; i < n; i++) { mob[i].setOneQ(s, 0, q[i]); mob[i].setOneU(s, 0, u[i]); }
    system.realize(s, Stage::Dynamics);
    Matrix M;
    matter.calcM(s, M);
    Vector res;
    matter.calcResidualForceIgnoringConstraints(s, system.getMobilityForces(s, Stage::Dynamics),
        system.getRigidBodyForces(s, Stage::Dynamics), udot, res);
    for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) std::printf("M %d %d %.17g\n", i, j, M(i, j));
    for (int i = 0; i < n; i++) std::printf("r %d %.17g\n", i, res[i]);
    return 0;
}
