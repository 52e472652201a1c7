#pragma once
// Joint positions in, joint angles out: the Model configuration that reproduces a FABRIK pose.
#include <array>
#include <vector>

#include "kinetrack/fabrik/fabrik.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::fabrik {

/// The Model joints that FABRIK joint j drives. The Model must mirror the skeleton: the link of
/// bone j has its origin at joint parent(j) and orientation F_j; its joint frame sits at
/// (0, 0, length(parent(j))) in the parent bone's link (at the base origin for the root's children)
/// with rotation R_offset_j, so that it coincides with C_j.
///  - a hinge drives one revolute joint whose axis is the hinge axis (count = 1);
///  - any other joint drives three revolute joints about x, then y, then z of C_j through
///    zero-length links (count = 3), the spherical joints of human66 (src/model/human_models.cpp).
struct JointMapping {
  std::array<JointId, 3> joints{};
  int count = 0;
};

/// Writes into `q` the configuration reproducing the solver's last pose `positions` (3 × n):
/// base_position = p_0, base_rotation = F_0 (the base frame), and for each j ≥ 1 the angles of
/// C_j^T F_j (hinge: θ_j; otherwise R = Rx(a) Ry(b) Rz(c), b ∈ [-π/2, π/2]). `mapping` has one
/// entry per skeleton joint (entry 0 ignored). Throws InvalidArgument on a size mismatch, a count
/// that does not fit the constraint type or a joint id outside the model.
void toJointAngles(const Solver& solver, const Eigen::Ref<const Matrix3Xd>& positions, const Model& model,
                   const std::vector<JointMapping>& mapping, Configuration& q);

/// The x→y→z angles (a, b, c) of a rotation R = Rx(a) Ry(b) Rz(c).
Vector3d xyzAngles(const Matrix3d& R);

}  // namespace kinetrack::fabrik
