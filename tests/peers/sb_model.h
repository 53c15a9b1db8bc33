// sb_model.h: a Simbody system built from the tree description of tests/lib/simbody_export.lua.
#ifndef SB_MODEL_H
#define SB_MODEL_H
#include "Simbody.h"
#include <istream>
#include <vector>

// Pin turns about z of its F and M frames, Slider moves along x: F = (R A, origin), M = (A, 0) with
// A e = axis, so the body turns by q about the mbgen axis exactly as in mbgen; mobility k is coordinate k.
struct SbModel {
    SimTK::MultibodySystem system;
    SimTK::SimbodyMatterSubsystem matter;
    SimTK::GeneralForceSubsystem forces;
    std::vector<SimTK::MobilizedBody> mob;
    int n = 0;
    explicit SbModel(std::istream &in);   // reads the description; throws std::runtime_error on bad input
    SbModel(const SbModel &) = delete;
    SbModel &operator=(const SbModel &) = delete;
};

#endif
