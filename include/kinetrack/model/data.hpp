#pragma once
// Data: the per-thread scratch of kinematics algorithms for one Model, sized once at
// construction. Algorithms write into it and never allocate. One Model serves many Data.
#include <vector>

#include "kinetrack/model/model.hpp"

namespace kinetrack {

struct Data {
  explicit Data(const Model& model);

  /// World placement of each link's body frame (R_WL, p_WL), after forwardKinematics.
  std::vector<Transform> link;
  /// World placement of each frame, after updateFramePlacements / updateFramePlacement.
  std::vector<Transform> frame;
  /// Unit axis of each joint in the world frame, a_j = R_WL(child) · axis_j (forwardKinematics).
  /// The joint's world origin is link[j + 1].p (minus a_j·s_j for prismatic joints, see docs).
  std::vector<Vector3d> joint_axis;
  /// JointType::Custom joints only: joint_axis holds the child's angular velocity per unit ṡ
  /// (not a unit vector) and joint_linear the velocity of the child's origin per unit ṡ (world).
  std::vector<Vector3d> joint_linear;
  /// sin and cos of every joint coordinate (scratch of forwardKinematics).
  std::vector<double> joint_sin, joint_cos;
  /// Number of joints of the model the data was built for (checked by algorithms).
  int num_joints = 0;
};

}  // namespace kinetrack
