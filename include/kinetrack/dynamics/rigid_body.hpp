#pragma once
// Rigid-body dynamics of a Model: inverse dynamics (RNEA), the joint-space mass matrix (CRBA) and
// forward dynamics (ABA), Featherstone's recursive algorithms ("Rigid Body Dynamics Algorithms",
// 2008, ch. 5–7) written in world coordinates: every spatial quantity is expressed in the world
// frame at the world origin (Plücker coordinates), so that no per-link transforms are needed and
// joint motion subspaces come straight from forward kinematics (docs/dynamics.md).
//
// Coordinates are those of the kinematics (docs/conventions.md): q = (p_B, R_B, s), velocity
// ν = (ṗ_B, ω_B, ṡ) ∈ R^nv with world-frame ṗ_B (m/s) and ω_B (rad/s), acceleration
// ν̇ = (p̈_B, ω̇_B, s̈). The generalised forces τ ∈ R^nv pair with ν: a floating base's entries are
// the world-frame force (N) and the moment about the base origin p_B (N m) that the base would
// need (the residual, "hand of god"); a joint's entry is its torque (N m) or force (N).
//
// Equations of motion: M(q) ν̇ + h(q, ν) = τ + Σ_k J_kᵀ w_k, with the external wrenches w_k of
// ExternalWrench and gravity inside h.
//
// Function-driven joints (JointType::Custom, OpenSim's CustomJoint: gait2354's knee translates
// along splines of the knee angle) are supported by rnea, crba and the velocity-only functions:
// their subspace S(s) moves with their own coordinate, which adds (∂S/∂s) ṡ² to the child's
// acceleration. aba still refuses them (InvalidArgument naming them).
//
// Per-thread workspace: DynamicsData (sized once, like Data); the functions do not allocate.
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// Standard gravity in the world frame (Z up), m/s².
inline const Vector3d kStandardGravity(0.0, 0.0, -9.80665);

/// A wrench applied to a link, in the world frame (a force plate's reading, a hand on a bar):
/// force F (N) acting at the world point P (m), plus a free moment T (N m).
struct ExternalWrench {
  LinkId link;
  Vector3d force = Vector3d::Zero();
  Vector3d point = Vector3d::Zero();
  Vector3d moment = Vector3d::Zero();
};

/// A rigid body's spatial inertia in world coordinates about the world origin: mass m (kg), first
/// moment h = m·c (kg m, c the world centre of mass) and rotational inertia about the origin
/// I_O = I_c + m((c·c)1 − c cᵀ) (kg m²). As a 6 × 6 matrix on (ω; v_O):
/// [I_O, [h]×; −[h]×, m·1]. Sums of bodies (composites) stay of this form.
struct SpatialInertia {
  double mass = 0.0;
  Vector3d first_moment = Vector3d::Zero();
  Matrix3d rotational = Matrix3d::Zero();
  /// Momentum I·V of a spatial velocity V = (ω; v_O): (I_O ω + h × v_O; m v_O − h × ω).
  [[nodiscard]] Vector6d apply(const Vector6d& v) const {
    Vector6d r;
    r.head<3>() = rotational * v.head<3>() + first_moment.cross(v.tail<3>());
    r.tail<3>() = mass * v.tail<3>() - first_moment.cross(v.head<3>());
    return r;
  }
  [[nodiscard]] Matrix6d matrix() const;
  SpatialInertia& operator+=(const SpatialInertia& o) {
    mass += o.mass;
    first_moment += o.first_moment;
    rotational += o.rotational;
    return *this;
  }
};

/// Workspace of the dynamics algorithms for one model (one per thread). Besides the results it
/// holds the kinematics (`kinematics`, as forwardKinematics leaves it) of the last call.
struct DynamicsData {
  /// Throws InvalidArgument (checkMassProperties, naming the link) for non-physical inertials or
  /// a moving chain without mass: dynamics would be ill-posed (NaN in aba()).
  explicit DynamicsData(const Model& model);

  Data kinematics;
  // Per link, world frame at the origin: spatial inertia, velocity, acceleration (gravity as a
  // fictitious upward acceleration of the root), force (ABA: the articulated bias force; CRBA:
  // Ic·S of the link's joint); composite (CRBA) or articulated (ABA) inertia (ABA scratch; after
  // aba() articulated[0] is the root's I^A for a floating base).
  std::vector<SpatialInertia> inertia, composite;
  std::vector<Matrix6d> articulated;
  std::vector<std::uint8_t> massive;  ///< per link: carries mass (massless links are skipped)
  /// Per link: its one child if it is massless with exactly one child (ABA writes its
  /// articulated inertia straight from that child's), else −1.
  std::vector<std::int32_t> only_child;
  /// Per joint j: model.support(j's child link) as runs of consecutive joint indices, packed as
  /// (first, count) pairs in support_runs[2·support_run_begin[j] … 2·support_run_begin[j + 1]).
  std::vector<std::int32_t> support_runs, support_run_begin;
  /// CRBA's blocks of up to three consecutive joints, each the child of the one before: first
  /// joints, then numJoints().
  std::vector<std::int32_t> chain_blocks;
  std::vector<Vector6d> velocity, acceleration, force;
  // Per joint: motion subspace S_j (ω; v at the origin), the ABA's U_j, D_j, u_j and c_j.
  std::vector<Vector6d> subspace, U, bias_acceleration;
  /// Per joint: ∂S_j/∂s_j with the parent held, non-zero for JointType::Custom joints only (their
  /// axis moves with their own coordinate: the acceleration gains (∂S/∂s) ṡ²).
  std::vector<Vector6d> subspace_rate;
  std::vector<double> D, u;
  Matrix6d base_subspace = Matrix6d::Identity();  ///< S_B: (ṗ_B, ω_B) → base spatial velocity
  VectorXd tau;                                   ///< rnea() result (nv)
  MatrixXd mass_matrix;                           ///< crba() result (nv × nv, both triangles)
  VectorXd ddq;                                   ///< aba() result (nv)
  int nv = 0;
};

/// Inverse dynamics (recursive Newton–Euler): τ = M(q) ν̇ + h(q, ν) − Σ J_kᵀ w_k (nv), i.e. the
/// generalised forces that produce acceleration `a` at (q, v) under `gravity` and the external
/// wrenches. For a floating base the first six entries are the base residual (force; moment
/// about p_B), zero for a motion the external wrenches alone explain. Sizes: v, a of nv. Throws
/// InvalidArgument for wrong sizes or a wrench on an unknown link. Returns data.tau.
const VectorXd& rnea(const Model& model, DynamicsData& data, const Configuration& q, const VectorXd& v,
                     const VectorXd& a, std::span<const ExternalWrench> wrenches = {},
                     const Vector3d& gravity = kStandardGravity);

/// Joint-space mass matrix M(q) (nv × nv, symmetric positive definite for a model with mass on
/// every moving chain), by composite rigid bodies; only the entries of joints on one root path
/// (and the base block) are non-zero, and only those are computed. Returns data.mass_matrix.
const MatrixXd& crba(const Model& model, DynamicsData& data, const Configuration& q);

/// h(q, ν): Coriolis, centrifugal and gravity terms (= rnea with ν̇ = 0, no wrenches). Returns
/// data.tau.
const VectorXd& nonlinearEffects(const Model& model, DynamicsData& data, const Configuration& q, const VectorXd& v,
                                 const Vector3d& gravity = kStandardGravity);

/// Forward dynamics (articulated bodies): ν̇ = M⁻¹(τ + Σ J_kᵀ w_k − h) (nv). For a floating base
/// τ's first six entries are a wrench applied to the base (zero for a free body). Throws
/// InvalidArgument for wrong sizes or a wrench on an unknown link. Returns data.ddq.
const VectorXd& aba(const Model& model, DynamicsData& data, const Configuration& q, const VectorXd& v,
                    const VectorXd& tau, std::span<const ExternalWrench> wrenches = {},
                    const Vector3d& gravity = kStandardGravity);

/// Centre of mass (world, m) and kinetic energy ½νᵀMν (J) at (q, v).
Vector3d centerOfMass(const Model& model, DynamicsData& data, const Configuration& q);
double kineticEnergy(const Model& model, DynamicsData& data, const Configuration& q, const VectorXd& v);
/// Spatial momentum of the whole body about the world origin (angular; linear), kg m²/s and kg m/s.
Vector6d spatialMomentum(const Model& model, DynamicsData& data, const Configuration& q, const VectorXd& v);

}  // namespace kinetrack
