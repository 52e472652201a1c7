#pragma once
// Configuration q = (p_B ∈ R³, R_B ∈ SO(3), s ∈ Rⁿ) (SPEC §0). The velocity ν = (ṗ_B, ω_B, ṡ) is a
// plain VectorXd of size model.nv(); ω_B is expressed in the world frame (mixed representation).
#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack {

struct Configuration {
  /// Base position in the world (m). For a fixed base: the constant placement of the root.
  Vector3d base_position = Vector3d::Zero();
  /// Base orientation R_WB. For a fixed base: the constant orientation of the root.
  Matrix3d base_rotation = Matrix3d::Identity();
  /// Joint coordinates s (rad or m), one per joint in model order.
  VectorXd joints;

  Configuration() = default;
  /// The zero configuration of `model`: base at the origin, identity orientation, s = 0.
  explicit Configuration(const Model& model) : joints(VectorXd::Zero(model.numJoints())) {}
};

}  // namespace kinetrack
