// FABRIK pose → Model joint angles (relative rotations of the bone frames, split per joint type).
#include "kinetrack/fabrik/model_angles.hpp"

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::fabrik {

Vector3d xyzAngles(const Matrix3d& R) {
  // R = Rx(a) Ry(b) Rz(c): R02 = sin b, R12 = -sin a cos b, R22 = cos a cos b,
  // R01 = -cos b sin c, R00 = cos b cos c.
  const double b = std::atan2(R(0, 2), std::hypot(R(1, 2), R(2, 2)));
  const double a = std::atan2(-R(1, 2), R(2, 2));
  const double c = std::atan2(-R(0, 1), R(0, 0));
  return {a, b, c};
}

void toJointAngles(const Solver& solver, const Eigen::Ref<const Matrix3Xd>& positions, const Model& model,
                   const std::vector<JointMapping>& mapping, Configuration& q) {
  const Skeleton& sk = solver.skeleton();
  const int n = sk.size();
  if (positions.cols() != n || static_cast<int>(mapping.size()) != n) {
    throw InvalidArgument("fabrik::toJointAngles: expected " + std::to_string(n) + " positions and mappings, got " +
                          std::to_string(positions.cols()) + " and " + std::to_string(mapping.size()));
  }
  if (q.joints.size() != model.numJoints()) {
    throw InvalidArgument("fabrik::toJointAngles: configuration has " + std::to_string(q.joints.size()) +
                          " joints, the model " + std::to_string(model.numJoints()));
  }
  q.base_position = positions.col(0);
  q.base_rotation = sk.baseFrame();
  for (int j = 1; j < n; ++j) {
    const JointMapping& m = mapping[static_cast<std::size_t>(j)];
    const bool hinge = sk.constraint(j).type == ConstraintType::Hinge;
    if (m.count != (hinge ? 1 : 3)) {
      throw InvalidArgument("fabrik::toJointAngles: joint " + std::to_string(j) + ": expected " +
                            std::to_string(hinge ? 1 : 3) + " model joints, got " + std::to_string(m.count));
    }
    for (int k = 0; k < m.count; ++k) {
      const int id = m.joints[static_cast<std::size_t>(k)].value;
      if (id < 0 || id >= model.numJoints()) {
        throw InvalidArgument("fabrik::toJointAngles: joint " + std::to_string(j) + ": model joint id out of range");
      }
    }
    if (hinge) {
      q.joints[m.joints[0].value] = solver.hingeAngle(j);
    } else {
      const Vector3d abc = xyzAngles(solver.constraintFrame(j).transpose() * solver.frame(j));
      for (int k = 0; k < 3; ++k) q.joints[m.joints[static_cast<std::size_t>(k)].value] = abc[k];
    }
  }
}

}  // namespace kinetrack::fabrik
