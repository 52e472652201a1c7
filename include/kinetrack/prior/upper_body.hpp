#pragma once
// The GPM seed's 25-DoF bilateral robotic human body model (RHBM, SPEC §6, GPM §III and Eq. 1):
// two serial chains of 14 revolute joints in Craig's modified Denavit–Hartenberg convention,
// the first three (the torso) shared by both arms, each ending in a hand frame. The end-effector
// vector x stacks the right then the left hand's position and orientation (12 rows).
//
// Joint order of θ (25): torso 0–2 (shared), right arm 3–13, left arm 14–24. Per arm (11):
// sternoclavicular ball (3), glenohumeral ball (3), elbow flexion, elbow varus/valgus, forearm
// pronation, wrist flexion, wrist deviation (docs/gpm.md, "Model"). Angles are zero in the
// subject's calibration (rest) pose. All poses are in the base (pelvis) frame, metres, radians.
#include <array>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::prior {

inline constexpr int kUpperBodyDof = 25;
inline constexpr int kTorsoDof = 3;
inline constexpr int kArmDof = 11;
inline constexpr int kChainLength = kTorsoDof + kArmDof;  ///< joints of one arm's chain (14)

using Vector25d = Eigen::Matrix<double, kUpperBodyDof, 1>;
using Matrix12x25d = Eigen::Matrix<double, 12, kUpperBodyDof>;
using Vector12d = Eigen::Matrix<double, 12, 1>;

enum class Side : std::uint8_t { Right = 0, Left = 1 };

/// Index in θ of joint `k` (0 … 13) of the `side` arm's chain (Eq. 1: joints 0–2 are shared).
constexpr int thetaIndex(Side side, int k) {
  return k < kTorsoDof ? k : kTorsoDof + (side == Side::Left ? kArmDof : 0) + (k - kTorsoDof);
}

/// One link in Craig's modified DH convention: ^{i−1}T_i = Rx(α_{i−1})·Tx(a_{i−1})·Rz(θ_i)·Tz(d_i)
/// with θ_i = theta_offset + q_i. alpha, theta_offset in rad; a, d in m.
struct DhLink {
  double alpha = 0.0;
  double a = 0.0;
  double d = 0.0;
  double theta_offset = 0.0;
};

/// ^{i−1}T_i of `link` at joint value q.
Transform dhTransform(const DhLink& link, double q);

/// The 25-DoF model of one subject. Immutable once built; per-solve scratch is UpperBodyData.
struct UpperBodyModel {
  std::string subject;  ///< name of the subject it was fitted to (informative)
  /// Placement of frame 0 (shared by both chains) in the base (pelvis) frame.
  Transform base;
  /// DH rows of each chain, index [side][k], k = 0 … 13 (row k relates frame k to frame k+1).
  std::array<std::array<DhLink, kChainLength>, 2> chain;
  /// Placement of each hand frame in the last DH frame of its chain.
  std::array<Transform, 2> tool;
  /// Joint limits (rad), lower < upper; both methods keep θ inside.
  Vector25d lower = Vector25d::Constant(-M_PI), upper = Vector25d::Constant(M_PI);

  /// The 25 joint names in θ order ("torso_1", …, "r_sc_1", …, "l_wrist_dev").
  static const std::array<std::string, kUpperBodyDof>& jointNames();
};

/// Scratch of upperBodyForwardKinematics / upperBodyJacobian; fixed size, never allocates.
struct UpperBodyData {
  /// DH frames of each chain after FK, in the base frame: frames[side][0] = model.base, [k+1] the
  /// frame of joint k (its z axis is the joint axis, its origin lies on it).
  std::array<std::array<Transform, kChainLength + 1>, 2> frames;
  std::array<Transform, 2> hand;  ///< hand frames in the base frame
  /// (12 × 25) geometric Jacobian of x (Eq. 1): rows right (linear, angular), left (linear,
  /// angular); columns θ. Zero blocks where an arm's joints do not move the other hand.
  Matrix12x25d J = Matrix12x25d::Zero();
};

/// Hand frames for θ (data.frames, data.hand). Does not allocate.
void upperBodyForwardKinematics(const UpperBodyModel& model, UpperBodyData& data, const Vector25d& theta);

/// data.J from the frames of the last upperBodyForwardKinematics (Eq. 1). Does not allocate.
void upperBodyJacobian(const UpperBodyModel& model, UpperBodyData& data);

/// x − fk(θ) as a 12-vector (Eq. 3's difference): per hand the position difference and the
/// rotation vector log(R_target R_handᵀ), base frame. Uses data.hand (call FK first).
Vector12d handError(const UpperBodyData& data, const std::array<Transform, 2>& target);

/// A revolute joint axis at the zero configuration, in the base frame: a point on the axis (m)
/// and its unit direction (positive rotation by the right-hand rule).
struct JointAxis {
  Vector3d point = Vector3d::Zero();
  Vector3d direction = Vector3d::UnitZ();
};

/// Craig-convention DH parameters of a serial chain of revolute joints given its axes at the zero
/// configuration (base frame) and the end-effector pose at zero: frames are placed on the common
/// normals of consecutive axes (intersecting axes: normal = z_i × z_{i+1}; parallel axes: through
/// the previous origin), frame 0 coincides with frame 1 at zero (row 0 is α = a = 0, offset 0).
/// Returns the rows and writes the placement of frame 0 and the tool. Throws InvalidArgument for
/// a non-unit or non-finite axis.
std::vector<DhLink> dhFromAxes(const std::vector<JointAxis>& axes, const Transform& end_effector, Transform& frame0,
                               Transform& tool);

/// The model of `subject` from its joint axes at zero (per side the 14 axes of the chain, torso
/// first; the three torso axes must be equal on both sides) and the hand frames at zero (base
/// frame). Limits start at ±π. Throws InvalidArgument for wrong counts or differing torso axes.
UpperBodyModel upperBodyFromAxes(std::string subject, const std::array<std::vector<JointAxis>, 2>& axes,
                                 const std::array<Transform, 2>& hands_at_zero);

/// An independent construction of the same kinematics as a kinetrack Model (fixed base at the
/// pelvis, one revolute joint per θ entry named as jointNames(), frames "RightHand", "LeftHand"):
/// joint frames parallel to the base at zero, placed at the axis points of `axes` (per side, the
/// 14 axes of the chain, torso first). Used to check the DH forward kinematics.
Model upperBodyReferenceModel(const std::array<std::vector<JointAxis>, 2>& axes,
                              const std::array<Transform, 2>& hands_at_zero);

}  // namespace kinetrack::prior
