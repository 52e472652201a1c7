#pragma once
// Forward kinematics: world placements of every link and frame. Allocation-free.
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// Computes data.link (world placement of every link body frame) and data.joint_axis (world
/// joint axes) for configuration q. Throws InvalidArgument when q.joints has the wrong size or
/// data was built for another model. Does not allocate.
void forwardKinematics(const Model& model, Data& data, const Configuration& q);

/// Computes data.frame for every frame from data.link (call forwardKinematics first).
void updateFramePlacements(const Model& model, Data& data);

/// Computes and returns data.frame[f] alone from data.link (call forwardKinematics first).
const Transform& updateFramePlacement(const Model& model, Data& data, FrameId f);

/// forwardKinematics followed by updateFramePlacements: every link and frame.
inline void framesForwardKinematics(const Model& model, Data& data, const Configuration& q) {
  forwardKinematics(model, data, q);
  updateFramePlacements(model, data);
}

}  // namespace kinetrack
