#pragma once
// Internals shared by the dynamics algorithms (rigid_body.cpp, assembly.cpp): spatial cross
// products and the kinematic preparation of DynamicsData. Private to kinetrack::dynamics.
#include "kinetrack/dynamics/rigid_body.hpp"

namespace kinetrack::detail {

// Spatial vectors are (angular; linear) pairs in world coordinates at the world origin: a motion
// (ω; v_O), v_O the velocity of the body point at the origin; a force (n_O; f), n_O the moment
// about the origin (Featherstone's Plücker coordinates, all expressed in one frame).

inline Vector3d ang(const Vector6d& x) { return x.head<3>(); }
inline Vector3d lin(const Vector6d& x) { return x.tail<3>(); }

// m1 ×m m2 (motion cross product).
inline Vector6d crossMotion(const Vector6d& a, const Vector6d& b) {
  Vector6d r;
  r.head<3>() = ang(a).cross(ang(b));
  r.tail<3>() = ang(a).cross(lin(b)) + lin(a).cross(ang(b));
  return r;
}

// v ×* f (force cross product).
inline Vector6d crossForce(const Vector6d& v, const Vector6d& f) {
  Vector6d r;
  r.head<3>() = ang(v).cross(ang(f)) + lin(v).cross(lin(f));
  r.tail<3>() = ang(v).cross(lin(f));
  return r;
}

/// Throws InvalidArgument "<what>: expected <nv> entries, got <n>" unless x has nv entries.
/// Throws InvalidArgument naming the JointType::Custom joints of `model`.
[[noreturn]] void refuseCustomJoints(const Model& model);
void checkSize(const VectorXd& x, int nv, const char* what);

/// Kinematics, world spatial inertias and joint motion subspaces at q (data.kinematics,
/// data.inertia, data.subspace, data.base_subspace; data.subspace_rate of custom joints). Throws
/// InvalidArgument for a wrong size, and for JointType::Custom joints unless `custom_joints`
/// (the algorithms that handle a subspace moving with its own coordinate: RNEA, CRBA, velocities).
void prepareDynamics(const Model& model, DynamicsData& d, const Configuration& q, bool custom_joints = false);

/// Spatial velocity of the base body from ν_B = (ṗ_B, ω_B) and the velocity-product part of its
/// acceleration ṗ_B × ω_B (zero for a fixed base).
void baseMotion(const Model& model, const Configuration& q, const VectorXd& v, Vector6d& V0, Vector6d& c0);

/// prepareDynamics, then the spatial velocity of every link at (q, v) (data.velocity).
void linkVelocities(const Model& model, DynamicsData& d, const Configuration& q, const VectorXd& v);

}  // namespace kinetrack::detail
