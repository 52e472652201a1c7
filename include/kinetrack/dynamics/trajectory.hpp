#pragma once
// Inverse dynamics of a recorded motion: velocities and accelerations of a sampled joint
// trajectory by finite differences on the configuration manifold, then RNEA per frame.
#include <cstdint>
#include <span>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"

namespace kinetrack {

/// ν and ν̇ of every frame of a trajectory sampled at increasing times `t` (s), by finite
/// differences on the manifold (kinematics' difference(): the base rotation through log, world
/// frame):
///   ν_k  = (q_{k+1} ⊖ q_{k−1}) / (t_{k+1} − t_{k−1})                      (central; one-sided at
///   ν̇_k = 2 [(q_{k+1} ⊖ q_k)/(t_{k+1} − t_k) − (q_k ⊖ q_{k−1})/(t_k − t_{k−1})] / (t_{k+1} − t_{k−1})
/// the ends, where ν̇ copies its neighbour). Second-order accurate for uniform sampling; noise
/// in q is amplified by 1/Δt in ν and 1/Δt² in ν̇ — filter the motion first when it is measured.
/// Frames flagged in `gap` (held states) and their neighbours get `valid` = 0. Throws
/// InvalidArgument for fewer than 3 frames, sizes that differ, or times that do not increase.
struct TrajectoryDerivatives {
  std::vector<VectorXd> velocity, acceleration;  ///< nv each, per frame
  std::vector<std::uint8_t> valid;               ///< 0 where a gap touches the stencil
};
TrajectoryDerivatives differentiate(const Model& model, const std::vector<Configuration>& q,
                                    const std::vector<double>& t, std::span<const std::uint8_t> gap = {});

/// Generalised forces τ_k = RNEA(q_k, ν_k, ν̇_k) of every frame (nv; a floating base's residual
/// force and moment first), zero where `derivatives.valid` is 0.
std::vector<VectorXd> inverseDynamics(const Model& model, const std::vector<Configuration>& q,
                                      const TrajectoryDerivatives& derivatives,
                                      const Vector3d& gravity = kStandardGravity);

}  // namespace kinetrack
