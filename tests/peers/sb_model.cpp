// sb_model.cpp: builds the Simbody system of sb_model.h (mobilized bodies and uniform gravity) from its description.
#include "sb_model.h"
#include <stdexcept>
#include <string>
using namespace SimTK;

SbModel::SbModel(std::istream &in) : matter(system), forces(system)
{
    Vec3 g;
    if (!(in >> n >> g[0] >> g[1] >> g[2]) || n < 1) throw std::runtime_error("sb_model: bad header");
    Force::UniformGravity(forces, matter, g);   // the force subsystem owns it
    for (int i = 0; i < n; i++) {
        std::string kind;
        int parent;
        Vec3 o, a, c;
        Mat33 R;
        Real m, I[6];
        in >> kind >> parent >> o[0] >> o[1] >> o[2];
        for (int r = 0; r < 3; r++) for (int k = 0; k < 3; k++) in >> R(r, k);
        in >> a[0] >> a[1] >> a[2] >> m >> c[0] >> c[1] >> c[2];
        for (int k = 0; k < 6; k++) in >> I[k];
        if (!in || parent < 0 || parent > i) throw std::runtime_error("sb_model: bad body line " + std::to_string(i + 1));
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
    system.realizeTopology();
}
