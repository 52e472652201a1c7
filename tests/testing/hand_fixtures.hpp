#pragma once
// A synthetic right hand for the hand-tracker tests (tests/hand, tests/hardening): geometry in
// the triad frame, smooth motion inside the ranges, and the markers of a frame from the model.
#include <array>
#include <cmath>
#include <numbers>

#include <Eigen/Geometry>

#include "kinetrack/hand/hand_calibration.hpp"
#include "kinetrack/hand/hand_model.hpp"

namespace kinetrack::hand::fixtures {

inline constexpr double kHandDeg = std::numbers::pi / 180.0;

// A plausible right hand in the triad frame (metres): x towards the fingers, z out of the back.
inline HandGeometry syntheticHand() {
  HandGeometry h;
  h.triad = {Vector3d(0.032, 0, 0), Vector3d(-0.021, 0.015, 0), Vector3d(-0.010, -0.015, 0)};
  const std::array<Vector3d, 5> roots{Vector3d(-0.05, 0.05, -0.06), Vector3d(0.063, 0.052, -0.013),
                                      Vector3d(0.072, 0.033, -0.018), Vector3d(0.083, -0.007, -0.035),
                                      Vector3d(0.081, -0.028, -0.054)};
  for (int d = 0; d < kDigits; ++d) {
    DigitGeometry& g = h.digits[static_cast<std::size_t>(d)];
    g.root = roots[static_cast<std::size_t>(d)];
    g.length = averageBoneLengths(d);
    if (d == 0) {
      g.axis = (h.digits[0].root - Vector3d(0.063, 0.052, -0.013)).normalized() * -1.0;
      g.zero = g.axis;
      g.flex = (Vector3d(0, 0, -1) - Vector3d(0, 0, -1).dot(g.axis) * g.axis).normalized();
      g.marker_bone = 1;
      g.psi_range = {-60 * kHandDeg, 60 * kHandDeg};
      g.flex_range = {{{-10 * kHandDeg, 60 * kHandDeg}, {0, 80 * kHandDeg}, {-20 * kHandDeg, 80 * kHandDeg}}};
      g.coupling = 0.0;
    } else {
      g.axis = Vector3d::UnitZ();
      g.zero = Vector3d::UnitX();
      g.flex = -Vector3d::UnitZ();
      g.marker_bone = 0;
      g.psi_range = {-30 * kHandDeg, 30 * kHandDeg};
      g.flex_range = {
          {{-30 * kHandDeg, 90 * kHandDeg}, {-5 * kHandDeg, 110 * kHandDeg}, {-10 * kHandDeg, 90 * kHandDeg}}};
    }
    g.marker_along = 0.5 * g.length[static_cast<std::size_t>(g.marker_bone)];
    g.marker_offset = -0.008;
  }
  return h;
}

// Smooth synthetic motion inside the ranges (tips and middles from the model).
inline DigitPose syntheticPose(const DigitGeometry& g, int d, double t) {
  auto mix = [](const std::array<double, 2>& r, double s) { return r[0] + (r[1] - r[0]) * (0.5 + 0.4 * s); };
  DigitPose p;
  p.psi = mix(g.psi_range, 0.5 * std::sin(0.7 * t + d));
  p.theta[0] = mix(g.flex_range[0], std::sin(1.1 * t + 0.5 * d));
  p.theta[1] = mix(g.flex_range[1], std::sin(0.9 * t + 0.3 * d));
  p.theta[2] = g.coupling != 0.0 ? g.coupling * p.theta[1] : mix(g.flex_range[2], std::sin(1.3 * t + d));
  return p;
}

inline Transform syntheticHandPose(double t) {
  Transform T;
  T.R = Eigen::AngleAxisd(0.3 * std::sin(0.5 * t), Vector3d::UnitZ()).toRotationMatrix() *
        Eigen::AngleAxisd(0.2 * std::cos(0.4 * t), Vector3d::UnitX()).toRotationMatrix();
  T.p = Vector3d(0.1 * std::sin(0.3 * t), 0.2, 0.9 + 0.05 * std::cos(0.6 * t));
  return T;
}

struct SyntheticFrame {
  std::array<Vector3d, 3> triad;
  std::array<Vector3d, kDigits> tips, middles;
  std::array<DigitPose, kDigits> truth;
};

inline SyntheticFrame syntheticFrame(const HandGeometry& h, double t) {
  SyntheticFrame f;
  const Transform T = syntheticHandPose(t);
  for (std::size_t i = 0; i < 3; ++i) f.triad[i] = T.p + T.R * h.triad[i];
  for (int d = 0; d < kDigits; ++d) {
    const auto ds = static_cast<std::size_t>(d);
    f.truth[ds] = syntheticPose(h.digits[ds], d, t);
    f.tips[ds] = T.p + T.R * digitPoints(h.digits[ds], f.truth[ds])[3];
    f.middles[ds] = T.p + T.R * middleMarker(h.digits[ds], f.truth[ds]);
  }
  return f;
}

}  // namespace kinetrack::hand::fixtures
