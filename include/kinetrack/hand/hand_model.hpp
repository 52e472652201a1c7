#pragma once
// The hand model of the FABRIK hand tracker (FAB §3.4.1, docs/hand.md): a rigid palm carrying
// five planar digits. Every digit is a root joint on the palm (the MCP of a finger, the CMC of
// the thumb) and three hinged bones whose hinge axes are parallel, so the digit moves in one
// plane; the plane turns about an axis k through the root (a finger's abduction about the palm
// normal; the thumb plane about the line from its CMC towards the index MCP, the paper's
// assumption that the flexed thumb points at F_{1,2}).
//
// Joint points: the palm (hand frame origin), the 5 roots, and per digit 3 bone ends: 1 + 5 + 15
// = 21, plus the 4 palm points the paper also draws (F_{i,1}) which we cannot observe with this
// glove and do not model. Degrees of freedom: per digit the plane angle ψ and three flexions
// θ1..θ3 (20), plus the 6 of the hand pose. The paper counts 25 joints/25 DoF on a model with
// movable palm points; the flat-palm assumption of its own tracker fixes those (docs/hand.md).
//
// Conventions: hand frame from the back-of-hand triad (handFrame); lengths in metres, angles in
// radians. With a(ψ) = Rot(k, ψ) a0 and b(ψ) = Rot(k, ψ) b0 the direction of bone j is
// d_j = cos φ_j a + sin φ_j b, φ_j = θ1 + … + θj (positive θ flexes towards b), and the hinge
// axis is a × b. For a finger b0 = −k (palmar); for the thumb a0 = k.
#include <array>
#include <string>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::hand {

inline constexpr int kDigits = 5;
/// "thumb", "index", "middle", "ring", "little" (digit 0 … 4).
const char* digitName(int digit);

struct DigitGeometry {
  Vector3d root = Vector3d::Zero();                   ///< MCP (fingers) or CMC (thumb), hand frame (m)
  Vector3d axis = Vector3d::UnitZ();                  ///< k: the plane's rotation axis (unit, hand frame)
  Vector3d zero = Vector3d::UnitX();                  ///< a0: bone direction at ψ = θ = 0 (unit, ⟂ b0)
  Vector3d flex = -Vector3d::UnitZ();                 ///< b0: direction positive flexion turns towards (unit)
  std::array<double, 3> length{};                     ///< bone lengths; the last ends at the tip marker (m)
  int marker_bone = 0;                                ///< bone carrying the middle marker (0 … 2)
  double marker_along = 0.0;                          ///< middle marker: distance along that bone (m) ...
  double marker_offset = 0.0;                         ///< ... and towards its b-side perpendicular (m, < 0 dorsal)
  std::array<double, 2> psi_range{};                  ///< plane angle range (rad)
  std::array<std::array<double, 2>, 3> flex_range{};  ///< θ1..θ3 ranges (rad)
  /// Tip-only tracking couples the last flexion to the middle one: θ3 = coupling · θ2 (the
  /// distal interphalangeal ≈ 2/3 of the proximal one, docs/hand.md). 0: not coupled (the
  /// thumb, whose three flexions FABRIK resolves from the previous frame as the paper does).
  double coupling = 2.0 / 3.0;
};

struct HandGeometry {
  /// hand_top, hand_left, hand_right in the hand frame (their median positions).
  std::array<Vector3d, 3> triad{};
  std::array<DigitGeometry, kDigits> digits{};
};

struct DigitPose {
  double psi = 0.0;
  std::array<double, 3> theta{};
};

/// The hand frame from the triad: origin at the centroid, x from the midpoint of hand_left and
/// hand_right towards hand_top (towards the fingers), z = unit((left − top) × (right − top))
/// (out of the back of the hand for a right hand), y = z × x (towards the thumb). Returns false
/// (and leaves T unchanged) when the three points are (nearly) collinear or not finite.
bool handFrame(const Vector3d& top, const Vector3d& left, const Vector3d& right, Transform& T);

/// The rotation taking (a0, b0) to (a(ψ), b(ψ)) for this digit, i.e. Rot(k, ψ).
Matrix3d planeRotation(const DigitGeometry& g, double psi);

/// The plane angle ψ, modulo π, of the digit plane with normal `normal` (hand frame; the plane
/// contains k): the angle about k from the hinge axis a0 × b0 to the normal. ψ and ψ + π are the
/// same plane; callers pick the one nearest their previous value.
double planeAngle(const DigitGeometry& g, const Vector3d& normal);

/// Joint points of a digit in the hand frame: root, end of bone 1, 2, 3 (= tip marker).
std::array<Vector3d, 4> digitPoints(const DigitGeometry& g, const DigitPose& pose);
/// The middle marker in the hand frame.
Vector3d middleMarker(const DigitGeometry& g, const DigitPose& pose);

/// Largest amount (rad) by which the pose leaves the digit's ranges (0 inside).
double rangeViolation(const DigitGeometry& g, const DigitPose& pose);

/// Model joint names: "<digit>_plane" (ψ), then "<digit>_flex1" … "<digit>_flex3" (θ1..θ3); in
/// the order thumb … little, 4 per digit.
std::string jointName(int digit, int k);

/// The kinetrack Model of this geometry: a floating base "hand" (the hand frame), per digit the
/// plane joint (axis k at the root), three revolute flexion joints (axis a0 × b0) with the ranges
/// as limits, frames "<digit>_tip" and "<digit>_middle" at the markers, and "hand_top",
/// "hand_left", "hand_right" on the base. Kinematic only (no inertias); exportable as URDF.
Model buildHandModel(const HandGeometry& geometry, const std::string& name = "hand");

}  // namespace kinetrack::hand
