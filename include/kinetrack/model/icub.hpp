#pragma once
// Facts about the iCub v2.5 humanoid that its URDF does not carry.
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack {

/// Adds the coupled shoulder/forearm constraints of the real iCub (tendon-driven shoulder),
/// 7 rows per arm, named "<l|r>_coupling<1..7>", as given in ../shared/models/icub/COUPLING.md
/// (iCub documentation "Range of Motion of the iCub Shoulders"; c = 1.71; ±1000 rad means no
/// bound and becomes ±infinity), with velocity bound b_ν for the shaping of DYN Eq. 13
/// (2 rad/s, the real robot's shoulder velocity limit, by default). The builder must hold the
/// iCub joints (l_/r_ shoulder_pitch, shoulder_roll, shoulder_yaw, elbow, wrist_prosup); throws
/// InvalidArgument at build() otherwise.
void addIcubCouplingConstraints(ModelBuilder& builder, double velocity_bound = 2.0);

/// True when `model` has the iCub joints the coupling rows need.
bool isIcub(const Model& model);

/// The iCub as the real robot is retargeted to (DYN §4.3, COUPLING.md): `urdf_model` plus the
/// coupling rows, and the velocity limits of the real robot in place of the URDF's 50000
/// placeholders: shoulder pitch/roll/yaw `shoulder_velocity` (2 rad/s), torso `torso_velocity`
/// (1 rad/s). Throws InvalidArgument when the model is not an iCub.
Model icubForRetargeting(const Model& urdf_model, double shoulder_velocity = 2.0, double torso_velocity = 1.0);

}  // namespace kinetrack
