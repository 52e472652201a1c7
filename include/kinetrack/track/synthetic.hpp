#pragma once
// A procedurally generated capture: a walk of a human model (hips, knees, ankles, arm swing,
// trunk counter-rotation, pelvis bob and sway), the embedded default of `kinetrack demo` and a
// ground-truth motion for tests and benchmarks.
#include <vector>

#include "kinetrack/io/capture/motion_clip.hpp"
#include "kinetrack/model/configuration.hpp"

namespace kinetrack::track {

struct SyntheticWalk {
  io::MotionClip clip;               ///< world poses of the model's Xsens segments
  std::vector<Configuration> truth;  ///< the configuration of every frame
};

/// `duration` seconds at `rate` Hz of walking at `speed` m/s (stride period 1.1 s) on `model`,
/// which must have the 23 Xsens segment frames (human66, human48, human-gazebo); joints that the
/// model lacks are skipped and values are clamped into the model's limits. The clip's segments
/// are the 23 Xsens segments with their tree parents; velocities by central differences.
/// Throws InvalidArgument for a model without the segments or non-positive duration/rate.
SyntheticWalk syntheticWalk(const Model& model, double duration = 10.0, double rate = 120.0, double speed = 1.3);

}  // namespace kinetrack::track
