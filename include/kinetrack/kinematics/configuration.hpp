#pragma once
// Configuration-space helpers on R³ × SO(3) × Rⁿ.
#include <random>

#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// q_out = q ⊕ ν·dt: p_B += ṗ_B dt, R_B ← exp(sk(ω_B dt))·R_B (ω_B in the world frame),
/// s += ṡ dt. For a fixed base, ν has no base part and the base pose is copied.
/// ν has size model.nv(). q_out may alias q. Throws InvalidArgument on size mismatch.
void integrate(const Model& model, const Configuration& q, const Eigen::Ref<const VectorXd>& nu, double dt,
               Configuration& q_out);

/// ν (size nv) with integrate(q0, ν, 1) = q1: (p1 − p0, log(R1·R0ᵀ), s1 − s0).
/// The rotation part is the world-frame rotation vector of magnitude ≤ π.
void difference(const Model& model, const Configuration& q0, const Configuration& q1, Eigen::Ref<VectorXd> nu);

/// Options for randomConfiguration.
struct RandomConfigurationOptions {
  /// Range used for joints without finite limits (continuous, or limits wider than this).
  double unbounded_range = M_PI;
  /// Base position drawn uniformly in [−box, box]³ (m); base rotation uniform on SO(3).
  double base_box = 1.0;
};

/// A configuration with every joint uniform within its limits (clamped to ±unbounded_range),
/// uniform random base orientation and a random base position (floating base only; a fixed
/// base stays at the identity placement).
Configuration randomConfiguration(const Model& model, std::mt19937_64& rng,
                                  const RandomConfigurationOptions& opts = {});

/// Largest violation of the position limits by q.joints (0 when all are inside; +infinity for a
/// NaN coordinate), and the joint.
double positionLimitViolation(const Model& model, const Configuration& q, JointId* worst = nullptr);

/// Violation of one linear row lower ≤ a·s ≤ upper by joint values s (0 when it holds).
double linearRowViolation(const LinearConstraint& row, const VectorXd& joints);
/// Largest violation of the model's linear rows by q.joints (0 when all hold, or no rows).
double linearRowViolation(const Model& model, const Configuration& q);

}  // namespace kinetrack
