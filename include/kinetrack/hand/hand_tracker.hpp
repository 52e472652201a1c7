#pragma once
// The FABRIK hand tracker of FAB §3.4 on a calibrated HandGeometry (docs/hand.md). Per frame:
//  1. palm plane Φ_x through the triad (p, q, r) and the hand frame;
//  2. palm joints (the digit roots) from sphere(p) ∩ sphere(q) ∩ palm plane (Eq. 3.3–3.6, every
//     case of the paper), the candidate on the calibrated side of the p–q line;
//  3. each digit's plane: through its root and its tip marker, containing the digit's axis k
//     (a finger: the palm normal as calibrated, Eq. 3.7–3.8; the thumb: the CMC–index-MCP line);
//  4. the digit's previous joints carried onto the new plane (Eq. 3.9: last frame's flexions in
//     the new plane, the same rigid motion as the rotor) and constrained FABRIK from the root to
//     the tip marker: hinge ranges, DIP = 2/3 PIP coupling (tip-only mode), or with the middle
//     marker as a second target on a rigid point of its bone (--use-middle-markers).
// The geometric steps run on either backend (cga::Cga or cga::Euclid) with the same output.
// track() does not allocate.
#include <array>
#include <cstdint>
#include <vector>

#include "kinetrack/cga/geometry.hpp"
#include "kinetrack/fabrik/fabrik.hpp"
#include "kinetrack/hand/hand_model.hpp"

namespace kinetrack::hand {

enum class Backend : std::uint8_t { Euclid, Cga };

struct TrackerOptions {
  bool use_middle_markers = false;  ///< also target the middle markers (else they are held out)
  Backend backend = Backend::Euclid;
  /// FABRIK per digit: 0.1 mm tolerance (below the markers' noise), 30 iterations, one restart,
  /// stop at a stall. The restart puts the hinges at 1/10 of their ranges: a finger caught nearly
  /// straight at its PIP bound a few mm beyond its tip marker (the straight-finger trap, where the
  /// tip distance is stationary in the PIP angle) leaves it from there within the 30 iterations,
  /// and not from the straight neutral pose (docs/hand.md).
  fabrik::Options fabrik{1e-4, 30, fabrik::RootMode::Fixed, 1, 0.999, true, {0.1, -1.0, 0.5, 0.75}};
};

/// How a palm joint was found (the cases of Eq. 3.5–3.6).
enum class PalmCase : std::uint8_t {
  TwoPoints,        ///< C² > 0, B² > 0: the candidate on the calibrated side
  OnePoint,         ///< C² > 0, B² = 0 or C² = 0: the single point
  NearestOnCircle,  ///< C² > 0, B² < 0: nearest point on the circle to the rigid prediction
  Midpoint,         ///< C² < 0: the spheres do not meet, (p + q) / 2 as the paper
};

/// One digit of one frame. The ik::Result fields: gap (no tip marker, or the triad lost: last
/// frame's flexions kept on the new palm, nothing solved), status and iterations of the digit's
/// solve (FABRIK: fabrik::Result's; marker IK: its solve's), mnte and the ik violations 0 (the
/// digit's own `violation` below).
struct DigitResult : ik::Result {
  bool used_middle = false;    ///< the middle marker was a target this frame
  bool plane_clamped = false;  ///< the plane angle was outside its range and clamped
  double tip_error = 0.0;      ///< m; NaN when the tip marker is missing
  double middle_error = 0.0;   ///< m; NaN when the middle marker is missing
  double violation = 0.0;      ///< rad: range excess + out-of-plane angle, from the joint points
  double length_drift = 0.0;   ///< m: largest |bone − calibrated length|, from the joint points
};

/// One frame. The ik::Result fields: gap (the triad incomplete: the whole hand held, its last pose
/// or neutral), status the worst of the solved digits', iterations their sum.
struct HandFrameResult : ik::Result {
  std::array<PalmCase, kDigits> palm{};
  std::array<DigitResult, kDigits> digits{};
};

class HandTracker {
 public:
  HandTracker(HandGeometry geometry, TrackerOptions options = {});

  /// One frame of world marker positions (NaN when missing): triad (top, left, right), tips and
  /// middle markers in digit order. Never throws on NaN input.
  const HandFrameResult& track(const std::array<Vector3d, 3>& triad, const std::array<Vector3d, kDigits>& tips,
                               const std::array<Vector3d, kDigits>& middles);

  /// Forgets the previous frame: the next frame starts from the neutral (median) pose.
  void reset();

  [[nodiscard]] const HandGeometry& geometry() const { return geometry_; }
  [[nodiscard]] const TrackerOptions& options() const { return options_; }
  /// World pose of the hand frame (identity before the first tracked frame).
  [[nodiscard]] const Transform& handPose() const { return hand_; }
  [[nodiscard]] const DigitPose& digitPose(int digit) const { return pose_[static_cast<std::size_t>(digit)]; }
  /// World joint points of a digit: root, bone ends (the last = the model's tip marker).
  [[nodiscard]] const std::array<Vector3d, 4>& points(int digit) const {
    return points_[static_cast<std::size_t>(digit)];
  }
  /// World position of the model's middle marker.
  [[nodiscard]] const Vector3d& middle(int digit) const { return middle_[static_cast<std::size_t>(digit)]; }
  [[nodiscard]] bool tracking() const { return have_previous_; }

 private:
  template <class G>
  void trackFrame(const std::array<Vector3d, 3>& triad, const std::array<Vector3d, kDigits>& tips,
                  const std::array<Vector3d, kDigits>& middles);
  template <class G>
  Vector3d palmJoint(int digit, const Vector3d& p, const Vector3d& q, const cga::Plane& palm, PalmCase& c) const;
  template <class G>
  double planeAngle(int digit, const Vector3d& root, const Vector3d& tip, bool& ok) const;
  void solveDigit(int digit, const Vector3d& root, const Vector3d& tip, const Vector3d& middle, bool use_middle);
  void updateWorld(int digit, const Vector3d& root);
  void measure(int digit, const Vector3d& tip, const Vector3d& middle);

  HandGeometry geometry_;
  TrackerOptions options_;
  std::vector<fabrik::Solver> tip_solver_;                    // per digit: root, 3 bone ends
  std::vector<fabrik::Solver> both_solver_;                   // per digit: the middle marker inserted on its bone
  std::array<std::array<double, 2>, kDigits> palm_radius_{};  // root to hand_left, hand_right (m)
  std::array<double, kDigits> marker_angle_{};                // direction of the root→marker (or joint→marker) bone
  std::array<double, kDigits> after_angle_{};                 // direction of marker→next joint relative to the bone
  Eigen::Matrix3Xd positions4_, positions5_;
  Transform hand_;
  std::array<DigitPose, kDigits> pose_{};
  std::array<std::array<Vector3d, 4>, kDigits> points_{};
  std::array<Vector3d, kDigits> middle_{};
  HandFrameResult result_;
  bool have_previous_ = false;
};

}  // namespace kinetrack::hand
