// The open frame-solver registry, and marker IK and pin-and-drag driven through StreamTracker:
// fed frame by frame they give exactly (bit for bit) what the solvers give when driven by hand,
// missing markers and gaps included, and they reach the synthetic motion they are fed.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/stream_tracker.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

// A deterministic pose inside the limits, elbows bent.
Configuration restPose(const Model& m) {
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    q.joints[j] = std::isfinite(lo) && std::isfinite(hi) ? 0.5 * (lo + hi) : 0.0;
  }
  q.base_position = Vector3d(0.0, 0.0, 1.0);
  if (const auto r = m.findJoint("jRightElbow_rotz"), l = m.findJoint("jLeftElbow_rotz"); r && l) {
    q.joints[r->value] = -1.0;
    q.joints[l->value] = 1.0;
  }
  return q;
}

// A smooth motion around restPose: every joint swings by up to 0.15 rad (inside its range),
// the base drifts forward.
Configuration motion(const Model& m, const Configuration& rest, double t) {
  Configuration q = rest;
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    const double amp = std::isfinite(lo) && std::isfinite(hi) ? std::min(0.15, 0.4 * (hi - lo)) : 0.15;
    q.joints[j] += amp * std::sin(2.0 * M_PI * (0.5 + 0.07 * (j % 5)) * t + 0.3 * j);
  }
  q.base_position.x() += 0.3 * t;
  return q;
}

std::vector<Vector3d> framePositions(const Model& m, const Configuration& q, const std::vector<std::string>& frames) {
  Data d(m);
  framesForwardKinematics(m, d, q);
  std::vector<Vector3d> p;
  for (const std::string& f : frames) p.push_back(d.frame[static_cast<std::size_t>(m.frameId(f).value)].p);
  return p;
}

TEST(FrameSolverRegistry, ListsBuiltInsAndRefusesUnknownAndDuplicateNames) {
  std::vector<std::string> names;
  for (const track::FrameSolverInfo& i : track::frameSolvers()) names.push_back(i.name);
  for (const char* n : {"dynamical", "wholebody", "wholebody-ipopt", "pairwise", "marker-ik", "pin-drag"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  auto model = std::make_shared<const Model>(makeHuman66());
  try {
    static_cast<void>(track::makeFrameSolver("no-such-solver", model));
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("marker-ik"), std::string::npos) << e.what();
  }
  EXPECT_THROW(track::registerFrameSolver({"marker-ik", "again"},
                                          [](auto m, const auto& o) {
                                            return track::makeFrameSolver(track::Method::Dynamical, std::move(m), o);
                                          }),
               InvalidArgument);
  EXPECT_THROW(track::registerFrameSolver({"", "no name"}, nullptr), InvalidArgument);
  // Marker IK holds markers (positions) only.
  track::TrackerOptions o;
  o.solver = "marker-ik";
  EXPECT_THROW(track::StreamTracker(model, {{"Pelvis", true, false, 1.0}}, o), InvalidArgument);
}

TEST(FrameSolverRegistry, AModuleRegistersItsOwnSolverAndTheStreamRunsIt) {
  // A solver registered under a new name (here: DYN with a fixed κ, as a module would wrap its
  // own) is built by name from TrackerOptions::solver.
  track::registerFrameSolver({"test-dyn-half-gain", "DYN with κ = 0.5", true, true},
                             [](std::shared_ptr<const Model> m, const track::TrackerOptions& o) {
                               track::TrackerOptions half = o;
                               half.kappa = 0.5;
                               return track::makeFrameSolver(track::Method::Dynamical, std::move(m), half);
                             });
  auto model = std::make_shared<const Model>(makeHuman66());
  track::TrackerOptions o;
  o.solver = "test-dyn-half-gain";
  track::StreamTracker s(model, {{"Pelvis", true, true, 1.0}}, o);
  EXPECT_EQ(s.solver().name(), "dynamical");
  const Configuration q = restPose(*model);
  s.setState(q);
  const std::vector<Matrix3d> R = {Matrix3d::Identity()};
  const std::vector<Vector3d> p = {Vector3d(0.1, 0.0, 1.0)};
  const track::FrameOutcome out = s.track(0.0, R, p);
  EXPECT_EQ(out.status, ik::Status::Converged);
}

const std::vector<std::string>& markerFrames() {
  static const std::vector<std::string> f = {
      "Pelvis",       "T8",       "Head",          "RightUpperArm", "RightForeArm", "RightHand", "LeftUpperArm",
      "LeftForeArm",  "LeftHand", "RightUpperLeg", "RightLowerLeg", "RightFoot",    "RightToe",  "LeftUpperLeg",
      "LeftLowerLeg", "LeftFoot", "LeftToe",       "RightShoulder", "LeftShoulder", "Neck"};
  return f;
}

TEST(StreamSolvers, MarkerIkThroughTheStreamIsMarkerIkByHandAndFollowsTheMotion) {
  auto model = std::make_shared<const Model>(makeHuman66());
  const Model& m = *model;
  const Configuration rest = restPose(m);
  const std::vector<std::string>& frames = markerFrames();
  std::vector<track::StreamTarget> targets;
  for (const std::string& f : frames) targets.push_back({f, false, true, 1.0});
  track::TrackerOptions o;
  o.solver = "marker-ik";
  track::StreamTracker stream(model, targets, o);
  ASSERT_NE(stream.solver().markerIk(), nullptr);
  EXPECT_EQ(stream.solver().name(), "marker-ik");

  ik::MarkerIk direct(model, o.marker_ik);
  for (const std::string& f : frames) direct.tasks().addMarker(f, 1.0);
  stream.setState(rest);
  direct.setState(rest);

  const std::vector<Matrix3d> R(frames.size(), Matrix3d::Identity());
  double worst_rms = 0.0;
  int missing_frames = 0;
  for (int k = 0; k < 120; ++k) {
    const double t = k / 60.0;
    std::vector<Vector3d> p = framePositions(m, motion(m, rest, t), frames);
    if (k % 10 == 5) {  // a marker drops out: missing (NaN), not an error
      p[static_cast<std::size_t>(k % frames.size())] = Vector3d::Constant(std::nan(""));
      ++missing_frames;
    }
    const bool gap = k == 40;  // a frame without data: the state is held
    const Configuration before = stream.state();
    const track::FrameOutcome a = stream.track(t, R, p, !gap);
    if (gap) {
      EXPECT_TRUE(a.gap);
      EXPECT_EQ(stream.state().joints, before.joints);
      continue;
    }
    const ik::MarkerIkResult b = direct.solve(p);
    ASSERT_EQ(stream.state().joints, direct.state().joints) << "frame " << k;
    ASSERT_EQ(stream.state().base_position, direct.state().base_position) << "frame " << k;
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.iterations, b.iterations);
    worst_rms = std::max(worst_rms, b.rms_error);
  }
  EXPECT_EQ(missing_frames, 12);
  // The markers come from the model itself: the fit is exact up to the tolerances.
  EXPECT_LT(worst_rms, 1e-4);
}

TEST(StreamSolvers, PinDragThroughTheStreamIsPinDragByHandAndKeepsThePins) {
  auto model = std::make_shared<const Model>(makeHuman66());
  const Model& m = *model;
  const Configuration rest = restPose(m);
  const FrameId hand = m.frameId("RightHand");
  // Feet pinned as poses by the caller before the solver goes under the stream.
  auto pinned = [&] {
    ik::PinDragIk ik(m);
    ik.setState(rest);
    ik.pin("RightToe", TargetType::Pose);
    ik.pin("LeftToe", TargetType::Pose);
    return ik;
  };
  track::TrackerOptions o;
  track::StreamTracker stream(track::makeFrameSolver(pinned()), {{"RightHand", false, true, 1.0}}, o);
  ASSERT_NE(stream.solver().pinDrag(), nullptr);
  EXPECT_EQ(stream.solver().name(), "pin-drag");
  ik::PinDragIk direct = pinned();
  direct.drag(hand);

  Data d(m);
  framesForwardKinematics(m, d, rest);
  const Vector3d start = d.frame[static_cast<std::size_t>(hand.value)].p;
  const Vector3d toe = d.frame[static_cast<std::size_t>(m.frameId("RightToe").value)].p;
  const std::vector<Matrix3d> R(1, Matrix3d::Identity());
  const double dt = 0.01;
  Vector3d previous = start;
  double worst_drag = 0.0;
  for (int k = 0; k < 200; ++k) {
    const double a = 2.0 * M_PI * k / 200.0;
    const Vector3d target = start + 0.12 * Vector3d(0.0, std::cos(a) - 1.0, std::sin(a));
    const std::vector<Vector3d> p = {target};
    const track::FrameOutcome out = stream.track(k * dt, R, p);
    // By hand: the chord velocity as feed-forward; the first frame is reached without one.
    ik::PinDragResult r;
    if (k == 0) {
      direct.setDragTarget(hand, target);
      int n = 0;
      do r = direct.update(o.first_frame_interval);
      while (++n < o.first_frame_iterations && r.drag_error > 1e-6);
      EXPECT_EQ(out.iterations, n);
    } else {
      const double h = k * dt - (k - 1) * dt;  // the stream's interval: from the frames' times
      direct.setDragTarget(hand, target, (target - previous) * (1.0 / h));
      r = direct.update(h);
    }
    previous = target;
    ASSERT_EQ(stream.state().joints, direct.state().joints) << "frame " << k;
    EXPECT_EQ(out.status, ik::Status::Converged);
    EXPECT_EQ(out.row_violation, r.row_violation);
    worst_drag = std::max(worst_drag, r.drag_error);
    // The stream's data follows the state: the hand is where the solver put it.
    framesForwardKinematics(m, d, direct.state());
    EXPECT_EQ(stream.solver().data().frame[static_cast<std::size_t>(hand.value)].p,
              d.frame[static_cast<std::size_t>(hand.value)].p);
  }
  EXPECT_LT(worst_drag, 5e-3);  // the hand follows its 12 cm circle within 5 mm
  framesForwardKinematics(m, d, stream.state());
  EXPECT_LT((d.frame[static_cast<std::size_t>(m.frameId("RightToe").value)].p - toe).norm(), 1e-3);
  // A target that is not finite is refused and moves nothing.
  const Configuration before = stream.state();
  const std::vector<Vector3d> bad = {Vector3d::Constant(std::nan(""))};
  EXPECT_THROW(stream.track(10.0, R, bad), InvalidArgument);
  EXPECT_EQ(stream.state().joints, before.joints);
}

// After the first frames, a tracked frame allocates nothing (marker IK and pin-and-drag alike).
long allocationsPerFrame(track::StreamTracker& s, const Model& m, const std::vector<std::string>& frames) {
  const Configuration rest = restPose(m);
  s.setState(rest);
  std::vector<std::vector<Vector3d>> p;
  for (int k = 0; k < 40; ++k) p.push_back(framePositions(m, motion(m, rest, k / 60.0), frames));
  const std::vector<Matrix3d> R(frames.size(), Matrix3d::Identity());
  for (int k = 0; k < 10; ++k) s.track(k / 60.0, R, p[static_cast<std::size_t>(k)]);
  testing::AllocationCounter guard;
  for (int k = 10; k < 40; ++k) s.track(k / 60.0, R, p[static_cast<std::size_t>(k)]);
  return guard.count();
}

TEST(StreamSolvers, NoAllocationPerFrame) {
  auto model = std::make_shared<const Model>(makeHuman66());
  std::vector<track::StreamTarget> markers;
  for (const std::string& f : markerFrames()) markers.push_back({f, false, true, 1.0});
  track::TrackerOptions o;
  o.solver = "marker-ik";
  track::StreamTracker marker_ik(model, markers, o);
  EXPECT_EQ(allocationsPerFrame(marker_ik, *model, markerFrames()), 0);
  o.solver = "pin-drag";
  track::StreamTracker pin_drag(model, {{"RightHand", false, true, 1.0}, {"LeftHand", true, true, 1.0}}, o);
  EXPECT_EQ(allocationsPerFrame(pin_drag, *model, {"RightHand", "LeftHand"}), 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
