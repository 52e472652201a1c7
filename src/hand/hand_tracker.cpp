// FABRIK hand tracker (FAB §3.4): palm from the triad, palm joints by sphere ∩ sphere ∩ plane,
// digit planes, constrained FABRIK per digit. docs/hand.md.
#include "kinetrack/hand/hand_tracker.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::hand {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Position of the bone ends of a planar chain: cumulative angles from a, towards b.
Vector3d direction(const Vector3d& a, const Vector3d& b, double phi) { return std::cos(phi) * a + std::sin(phi) * b; }

fabrik::JointConstraint hinge(double lo, double hi) {
  fabrik::JointConstraint c;
  c.type = fabrik::ConstraintType::Hinge;
  c.hinge_axis = Vector3d::UnitX();
  c.min_angle = lo;
  c.max_angle = hi;
  return c;
}

fabrik::Solver tipSolver(const DigitGeometry& g) {
  Eigen::Matrix3Xd rest = Eigen::Matrix3Xd::Zero(3, 4);
  for (int j = 1; j < 4; ++j) rest(2, j) = rest(2, j - 1) + g.length[static_cast<std::size_t>(j - 1)];
  fabrik::Skeleton sk({-1, 0, 1, 2}, rest);
  for (int j = 1; j < 4; ++j) {
    const auto& r = g.flex_range[static_cast<std::size_t>(j - 1)];
    sk.setConstraint(j, hinge(r[0], r[1]));
  }
  if (g.coupling != 0.0) sk.setCoupling(3, g.coupling);
  return fabrik::Solver(std::move(sk));
}

// The chain with the middle marker as a rigid point of its bone m: joints 0 … m (root and the
// bone ends before it), m + 1 the marker, then the ends of bones m … 2.
fabrik::Solver bothSolver(const DigitGeometry& g, double& delta, double& beta) {
  const int m = g.marker_bone;
  const double L = g.length[static_cast<std::size_t>(m)];
  delta = std::atan2(g.marker_offset, g.marker_along);
  beta = std::atan2(-g.marker_offset, L - g.marker_along);
  std::array<double, 4> len{};
  std::array<std::array<double, 2>, 4> range{};
  int k = 0;
  for (int j = 0; j < 3; ++j) {
    const auto& r = g.flex_range[static_cast<std::size_t>(j)];
    if (j == m) {
      len[static_cast<std::size_t>(k)] = std::hypot(g.marker_along, g.marker_offset);
      range[static_cast<std::size_t>(k++)] = {r[0] + delta, r[1] + delta};
      len[static_cast<std::size_t>(k)] = std::hypot(L - g.marker_along, g.marker_offset);
      range[static_cast<std::size_t>(k++)] = {beta - delta, beta - delta};
    } else {
      const double shift = j == m + 1 ? -beta : 0.0;
      len[static_cast<std::size_t>(k)] = g.length[static_cast<std::size_t>(j)];
      range[static_cast<std::size_t>(k++)] = {r[0] + shift, r[1] + shift};
    }
  }
  Eigen::Matrix3Xd rest = Eigen::Matrix3Xd::Zero(3, 5);
  for (int j = 1; j < 5; ++j) rest(2, j) = rest(2, j - 1) + len[static_cast<std::size_t>(j - 1)];
  fabrik::Skeleton sk({-1, 0, 1, 2, 3}, rest);
  for (int j = 1; j < 5; ++j) {
    const auto& r = range[static_cast<std::size_t>(j - 1)];
    sk.setConstraint(j, hinge(std::max(r[0], -std::numbers::pi), std::min(r[1], std::numbers::pi)));
  }
  return fabrik::Solver(std::move(sk));
}

}  // namespace

HandTracker::HandTracker(HandGeometry geometry, TrackerOptions options)
    : geometry_(std::move(geometry)), options_(options), positions4_(3, 4), positions5_(3, 5) {
  for (int d = 0; d < kDigits; ++d) {
    const auto ds = static_cast<std::size_t>(d);
    const DigitGeometry& g = geometry_.digits[ds];
    if (g.marker_bone < 0 || g.marker_bone > 2) throw InvalidArgument("HandTracker: marker_bone must be 0 … 2");
    palm_radius_[ds] = {(g.root - geometry_.triad[1]).norm(), (g.root - geometry_.triad[2]).norm()};
    tip_solver_.push_back(tipSolver(g));
    both_solver_.push_back(bothSolver(g, marker_angle_[ds], after_angle_[ds]));
  }
  reset();
}

void HandTracker::reset() {
  have_previous_ = false;
  hand_ = Transform{};
  for (int d = 0; d < kDigits; ++d) {
    const auto ds = static_cast<std::size_t>(d);
    const DigitGeometry& g = geometry_.digits[ds];
    DigitPose p;
    p.psi = std::clamp(0.0, g.psi_range[0], g.psi_range[1]);
    for (std::size_t j = 0; j < 3; ++j) p.theta[j] = std::clamp(0.0, g.flex_range[j][0], g.flex_range[j][1]);
    if (g.coupling != 0.0) p.theta[2] = g.coupling * p.theta[1];
    pose_[ds] = p;
    updateWorld(d, hand_.p + hand_.R * g.root);
  }
}

const HandFrameResult& HandTracker::track(const std::array<Vector3d, 3>& triad,
                                          const std::array<Vector3d, kDigits>& tips,
                                          const std::array<Vector3d, kDigits>& middles) {
  if (options_.backend == Backend::Cga) {
    trackFrame<cga::Cga>(triad, tips, middles);
  } else {
    trackFrame<cga::Euclid>(triad, tips, middles);
  }
  return result_;
}

template <class G>
Vector3d HandTracker::palmJoint(int digit, const Vector3d& p, const Vector3d& q, const cga::Plane& palm,
                                PalmCase& c) const {
  const Vector3d& local = geometry_.digits[static_cast<std::size_t>(digit)].root;
  const Vector3d predicted = hand_.p + hand_.R * local;
  // Spheres about p (hand_left) and q (hand_right) through the joint (Eq. 3.3–3.4), and the
  // plane parallel to the palm plane at the joint's calibrated height (Φ_x for a joint on it).
  const auto& radius = palm_radius_[static_cast<std::size_t>(digit)];
  const cga::Sphere sp{p, radius[0]};
  const cga::Sphere sq{q, radius[1]};
  cga::Plane plane = palm;
  plane.offset = palm.offset + local.z();
  const cga::CircleResult circle = G::meetSpheres(sp, sq);  // Eq. 3.5
  if (circle.status == cga::Case::Tangent) {
    c = PalmCase::OnePoint;
    return circle.circle.centre;
  }
  if (circle.status != cga::Case::Real) {
    c = PalmCase::Midpoint;
    return 0.5 * (p + q);
  }
  const cga::PointPairResult pair = G::meetCirclePlane(circle.circle, plane);  // Eq. 3.6
  if (pair.status == cga::Case::Real) {
    c = PalmCase::TwoPoints;
    return (pair.first - predicted).squaredNorm() <= (pair.second - predicted).squaredNorm() ? pair.first : pair.second;
  }
  if (pair.status == cga::Case::Tangent) {
    c = PalmCase::OnePoint;
    return pair.first;
  }
  c = PalmCase::NearestOnCircle;
  return G::nearestPointOnCircle(circle.circle, predicted).point;
}

template <class G>
double HandTracker::planeAngle(int digit, const Vector3d& root, const Vector3d& tip, bool& ok) const {
  const DigitGeometry& g = geometry_.digits[static_cast<std::size_t>(digit)];
  const Vector3d k = hand_.R * g.axis;
  // The digit plane through its root and tip containing k (Eq. 3.8 with n̂ = k).
  const cga::PlaneResult plane = G::planeThroughPoints(root, root + 0.05 * k, tip);
  ok = plane.status == cga::Case::Real;
  if (!ok) return 0.0;
  const double psi = hand::planeAngle(g, hand_.R.transpose() * plane.plane.normal);
  // Of ψ and ψ + π (the same plane) take the one nearest the last frame's.
  const double last = pose_[static_cast<std::size_t>(digit)].psi;
  return last + std::remainder(psi - last, std::numbers::pi);
}

template <class G>
void HandTracker::trackFrame(const std::array<Vector3d, 3>& triad, const std::array<Vector3d, kDigits>& tips,
                             const std::array<Vector3d, kDigits>& middles) {
  result_ = HandFrameResult{};
  Transform T;
  const cga::PlaneResult palm = G::planeThroughPoints(triad[0], triad[1], triad[2]);  // Eq. 3.1–3.2
  if (palm.status != cga::Case::Real || !handFrame(triad[0], triad[1], triad[2], T)) {
    result_.gap = true;
    for (int d = 0; d < kDigits; ++d) {
      result_.digits[static_cast<std::size_t>(d)].gap = true;
      measure(d, tips[static_cast<std::size_t>(d)], middles[static_cast<std::size_t>(d)]);
    }
    return;
  }
  if (!have_previous_) hand_ = T;  // first frame: the rigid prediction is the current frame
  std::array<Vector3d, kDigits> roots;
  for (int d = 0; d < kDigits; ++d) {
    roots[static_cast<std::size_t>(d)] =
        palmJoint<G>(d, triad[1], triad[2], palm.plane, result_.palm[static_cast<std::size_t>(d)]);
  }
  hand_ = T;
  for (int d = 0; d < kDigits; ++d) {
    const auto ds = static_cast<std::size_t>(d);
    DigitResult& r = result_.digits[ds];
    const Vector3d& tip = tips[ds];
    if (!tip.allFinite()) {
      r.gap = true;
      updateWorld(d, roots[ds]);
      measure(d, tip, middles[ds]);
      continue;
    }
    bool ok = false;
    const double psi = planeAngle<G>(d, roots[ds], tip, ok);
    if (ok) {
      const auto& range = geometry_.digits[ds].psi_range;
      pose_[ds].psi = std::clamp(psi, range[0], range[1]);
      r.plane_clamped = pose_[ds].psi != psi;
    }
    const bool use_middle = options_.use_middle_markers && middles[ds].allFinite();
    solveDigit(d, roots[ds], tip, middles[ds], use_middle);
    measure(d, tip, middles[ds]);
    result_.status = ik::worst(result_.status, r.status);
    result_.iterations += r.iterations;
  }
  have_previous_ = true;
}

void HandTracker::solveDigit(int digit, const Vector3d& root, const Vector3d& tip, const Vector3d& middle,
                             bool use_middle) {
  const auto ds = static_cast<std::size_t>(digit);
  const DigitGeometry& g = geometry_.digits[ds];
  DigitPose& pose = pose_[ds];
  DigitResult& r = result_.digits[ds];
  const Matrix3d R = hand_.R * planeRotation(g, pose.psi);
  const Vector3d a = R * g.zero, b = R * g.flex;
  Matrix3d F0;
  F0.col(0) = a.cross(b);
  F0.col(1) = -b;
  F0.col(2) = a;
  // Last frame's flexions laid into the new plane (Eq. 3.9). FABRIK works relative to the digit's
  // root: in world coordinates a hand far from the origin (a triad marker at 1e9 m drags the
  // centroid there) leaves too few digits for centimetre bones, and the angles measured on
  // the points below exceeded their ranges by micro-radians (adversarial-frames test).
  const int m = g.marker_bone;
  fabrik::Solver& solver = use_middle ? both_solver_[ds] : tip_solver_[ds];
  Eigen::Matrix3Xd& P = use_middle ? positions5_ : positions4_;
  P.col(0).setZero();
  double phi = 0.0;
  int col = 1;
  for (int j = 0; j < 3; ++j) {
    const double L = g.length[static_cast<std::size_t>(j)];
    phi += pose.theta[static_cast<std::size_t>(j)];
    const Vector3d d = direction(a, b, phi);
    if (use_middle && j == m) {
      const Vector3d e = direction(a, b, phi + std::numbers::pi / 2);
      P.col(col) = P.col(col - 1) + g.marker_along * d + g.marker_offset * e;
      ++col;
      P.col(col) = P.col(col - 2) + L * d;
    } else {
      P.col(col) = P.col(col - 1) + L * d;
    }
    ++col;
  }
  solver.setBaseFrame(F0);
  solver.clearTargets();
  const int tip_joint = use_middle ? 4 : 3;
  solver.setTarget(tip_joint, tip - root);
  if (use_middle) solver.setTarget(m + 1, middle - root);
  const fabrik::Result res = solver.solve(P, options_.fabrik);
  r.status = res.status;
  r.iterations = res.iterations;
  r.used_middle = use_middle;
  // Joint points of the digit as FABRIK left them (the marker point skipped), relative to the root.
  std::array<Vector3d, 4> pts;
  for (int j = 0, c = 0; c < solver.skeleton().size(); ++c) {
    if (use_middle && c == m + 1) continue;
    pts[static_cast<std::size_t>(j++)] = P.col(c);
  }
  // Angles, length drift and violations measured on those points, independently of the solver.
  const Vector3d axis = a.cross(b);
  double prev = 0.0, drift = 0.0, violation = 0.0;
  for (std::size_t j = 0; j < 3; ++j) {
    const Vector3d v = pts[j + 1] - pts[j];
    const double len = v.norm();
    drift = std::max(drift, std::abs(len - g.length[j]));
    violation = std::max(violation, std::asin(std::min(1.0, std::abs(v.dot(axis)) / len)));
    const double phi_j = std::atan2(v.dot(b), v.dot(a));
    pose.theta[j] = std::remainder(phi_j - prev, kTwoPi);
    prev = phi_j;
  }
  violation = std::max(violation, rangeViolation(g, pose));
  if (!use_middle && g.coupling != 0.0) {
    violation = std::max(violation, std::abs(pose.theta[2] - g.coupling * pose.theta[1]));
  }
  r.violation = violation;
  r.length_drift = drift;
  for (std::size_t j = 0; j < 4; ++j) points_[ds][j] = root + pts[j];
  middle_[ds] = root + hand_.R * (middleMarker(g, pose) - g.root);
}

void HandTracker::updateWorld(int digit, const Vector3d& root) {
  const auto ds = static_cast<std::size_t>(digit);
  const DigitGeometry& g = geometry_.digits[ds];
  std::array<Vector3d, 4> local = digitPoints(g, pose_[ds]);
  const Vector3d shift = root - (hand_.p + hand_.R * g.root);
  for (std::size_t j = 0; j < 4; ++j) points_[ds][j] = hand_.p + hand_.R * local[j] + shift;
  middle_[ds] = hand_.p + hand_.R * middleMarker(g, pose_[ds]) + shift;
}

void HandTracker::measure(int digit, const Vector3d& tip, const Vector3d& middle) {
  const auto ds = static_cast<std::size_t>(digit);
  DigitResult& r = result_.digits[ds];
  r.tip_error = tip.allFinite() ? (points_[ds][3] - tip).norm() : kNaN;
  r.middle_error = middle.allFinite() ? (middle_[ds] - middle).norm() : kNaN;
}

}  // namespace kinetrack::hand
