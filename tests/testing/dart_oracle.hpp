#pragma once
// DART (6.12, Debian libdart-dev + libdart-utils-urdf-dev) as an independent oracle and benchmark
// peer of kinetrack's rigid-body dynamics, loading the URDF with DART's own loader
// (dart::utils::DartLoader, on urdfdom).
//
// What is done to the URDF before DART reads it (in memory): <visual> and <collision> are removed
// (their package:// meshes cannot be resolved; geometry plays no part here). The loader is told
// the root joint (FreeJoint or WeldJoint, as the Model's base) and a zero default inertia: a link
// without <inertial> (the iCub's sensor frames) would otherwise get DART's default of 1 kg. After
// loading, gravity is set to (0, 0, −9.80665) and every joint's damping, spring stiffness and
// Coulomb friction to zero (DART's forward dynamics includes URDF <dynamics> damping).
//
// Coordinates: DART's FreeJoint velocities are the root body's spatial velocity in its own frame,
// (ω_b; v_b) = (R_Bᵀ ω_B; R_Bᵀ ṗ_B), and its accelerations their time derivatives, so with the
// orthogonal map dq = C ν (the joints permuted to DART's dof order), ddq = C ν̇ + Ċ ν where Ċ ν
// = (0; −ω_b × v_b), τ = Cᵀ τ_dart and M = Cᵀ M_dart C.
#include <memory>
#include <string>
#include <vector>

#include "testing/dynamics_peer.hpp"

namespace dart::dynamics {
class Skeleton;
}

namespace kinetrack::testing {

class DartOracle final : public DynamicsPeer {
 public:
  /// Loads `urdf_path` for `model` (fixed or floating base as model.baseType()), matching joints
  /// by name. Throws std::runtime_error if DART rejects the file or lacks a model joint.
  DartOracle(const std::string& urdf_path, const Model& model);
  ~DartOracle() override;

  [[nodiscard]] std::string engine() const override;
  VectorXd inverseDynamics(const Configuration& q, const VectorXd& v, const VectorXd& a) override;
  MatrixXd massMatrix(const Configuration& q) override;
  VectorXd forwardDynamics(const Configuration& q, const VectorXd& v, const VectorXd& tau) override;

  /// kinetrack's q, ν, ν̇ and τ as DART's positions, velocities, accelerations and forces (nv),
  /// for benchmarks.
  [[nodiscard]] VectorXd positions(const Configuration& q) const;
  [[nodiscard]] VectorXd velocities(const Configuration& q, const VectorXd& v) const { return velocityMap(q) * v; }
  [[nodiscard]] VectorXd accelerations(const Configuration& q, const VectorXd& v, const VectorXd& a) const;
  [[nodiscard]] VectorXd forces(const Configuration& q, const VectorXd& tau) const { return velocityMap(q) * tau; }

  dart::dynamics::Skeleton& skeleton() { return *skeleton_; }

 private:
  [[nodiscard]] MatrixXd velocityMap(const Configuration& q) const;
  void setState(const Configuration& q, const VectorXd& v);

  std::shared_ptr<dart::dynamics::Skeleton> skeleton_;
  bool floating_ = false;
  int nv_ = 0;
  std::vector<int> dof_;  // per kinetrack joint: DART's dof index
};

}  // namespace kinetrack::testing
