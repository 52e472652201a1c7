#include "kinetrack/model/data.hpp"

namespace kinetrack {

Data::Data(const Model& model)
    : link(static_cast<std::size_t>(model.numLinks())),
      frame(static_cast<std::size_t>(model.numFrames())),
      joint_axis(static_cast<std::size_t>(model.numJoints()), Vector3d::Zero()),
      joint_linear(static_cast<std::size_t>(model.numJoints()), Vector3d::Zero()),
      joint_sin(static_cast<std::size_t>(model.numJoints()), 0.0),
      joint_cos(static_cast<std::size_t>(model.numJoints()), 1.0),
      num_joints(model.numJoints()) {}

}  // namespace kinetrack
