#include "kinetrack/model/data.hpp"

namespace kinetrack {

Data::Data(const Model& model)
    : link(static_cast<std::size_t>(model.numLinks())),
      frame(static_cast<std::size_t>(model.numFrames())),
      joint_axis(static_cast<std::size_t>(model.numJoints()), Vector3d::Zero()),
      num_joints(model.numJoints()) {}

}  // namespace kinetrack
