// Hand model, calibration and FABRIK hand tracker (hand/): the Model agrees with the planar
// forward kinematics; ground truth recovered on synthetic glove motion (tips exact, held-out
// middle markers to rounding, constraints and bone lengths kept) on both geometry backends;
// gaps and missing markers held without NaN; the real DFKI glove recording calibrated and
// tracked within stated bounds; URDF export; track() does not allocate.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/hand/hand_calibration.hpp"
#include "kinetrack/hand/hand_frame_solver.hpp"
#include "kinetrack/hand/hand_trial.hpp"
#include "kinetrack/io/capture/qtm_tsv.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/track/stream_tracker.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/hand_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::hand {
namespace KINETRACK_UNITY_ID {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using namespace fixtures;  // NOLINT: the synthetic hand

TEST(HandModel, ModelForwardKinematicsMatchesPlanarDigits) {
  const HandGeometry h = syntheticHand();
  const Model model = buildHandModel(h);
  EXPECT_EQ(model.numJoints(), 20);
  Data data(model);
  Configuration q(model);
  const Transform T = syntheticHandPose(1.3);
  q.base_position = T.p;
  q.base_rotation = T.R;
  std::array<DigitPose, kDigits> poses;
  for (int d = 0; d < kDigits; ++d) {
    poses[static_cast<std::size_t>(d)] = syntheticPose(h.digits[static_cast<std::size_t>(d)], d, 0.7);
    q.joints[4 * d] = poses[static_cast<std::size_t>(d)].psi;
    for (int j = 0; j < 3; ++j)
      q.joints[4 * d + j + 1] = poses[static_cast<std::size_t>(d)].theta[static_cast<std::size_t>(j)];
  }
  framesForwardKinematics(model, data, q);
  for (int d = 0; d < kDigits; ++d) {
    const auto ds = static_cast<std::size_t>(d);
    const Vector3d tip = T.p + T.R * digitPoints(h.digits[ds], poses[ds])[3];
    const Vector3d mid = T.p + T.R * middleMarker(h.digits[ds], poses[ds]);
    EXPECT_LT((data.frame[model.frameId(std::string(digitName(d)) + "_tip").value].p - tip).norm(), 1e-12) << d;
    EXPECT_LT((data.frame[model.frameId(std::string(digitName(d)) + "_middle").value].p - mid).norm(), 1e-12) << d;
  }
  EXPECT_LT((data.frame[model.frameId("hand_top").value].p - (T.p + T.R * h.triad[0])).norm(), 1e-12);
  // Exportable: the URDF reads back with the same joints and limits.
  const Model back = io::parseUrdf(io::toUrdf(model), "hand.urdf");
  ASSERT_EQ(back.numJoints(), model.numJoints());
  for (int j = 0; j < model.numJoints(); ++j) {
    EXPECT_EQ(back.jointNames()[static_cast<std::size_t>(j)], model.jointNames()[static_cast<std::size_t>(j)]);
    EXPECT_NEAR(back.upperPositionLimits()[j], model.upperPositionLimits()[j], 1e-9);
  }
}

TEST(HandModel, HandFrameFromTriad) {
  Transform T;
  EXPECT_TRUE(handFrame(Vector3d(0.03, 0, 0), Vector3d(-0.02, 0.015, 0), Vector3d(-0.01, -0.015, 0), T));
  EXPECT_LT((T.R - Matrix3d::Identity()).norm(), 1e-12);
  EXPECT_FALSE(handFrame(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(2, 0, 0), T));  // collinear
  EXPECT_FALSE(handFrame(Vector3d(kNaN, 0, 0), Vector3d(1, 0, 0), Vector3d(2, 1, 0), T));
}

class HandTrackerBackends : public ::testing::TestWithParam<Backend> {};

// Ground truth: synthetic motion at 100 Hz; the tracker sees the triad and tips only.
TEST_P(HandTrackerBackends, RecoversSyntheticMotionFromTipsAlone) {
  const HandGeometry h = syntheticHand();
  TrackerOptions options;
  options.backend = GetParam();
  options.fabrik.tolerance = 1e-9;
  options.fabrik.max_iterations = 200;
  HandTracker tracker(h, options);
  double worst_tip = 0.0, worst_mid = 0.0, worst_violation = 0.0, worst_drift = 0.0, worst_angle = 0.0;
  for (int f = 0; f < 300; ++f) {
    const SyntheticFrame s = syntheticFrame(h, 0.01 * f);
    const HandFrameResult& r = tracker.track(s.triad, s.tips, s.middles);
    ASSERT_FALSE(r.gap);
    for (int d = 0; d < kDigits; ++d) {
      const auto ds = static_cast<std::size_t>(d);
      EXPECT_EQ(r.palm[ds], PalmCase::TwoPoints);
      worst_tip = std::max(worst_tip, r.digits[ds].tip_error);
      worst_violation = std::max(worst_violation, r.digits[ds].violation);
      worst_drift = std::max(worst_drift, r.digits[ds].length_drift);
      if (d > 0 && f > 10) {  // fingers: the coupling makes the tip determine the pose
        worst_mid = std::max(worst_mid, r.digits[ds].middle_error);
        worst_angle = std::max(worst_angle, std::abs(tracker.digitPose(d).theta[0] - s.truth[ds].theta[0]));
      }
    }
  }
  EXPECT_LT(worst_tip, 1e-6);
  EXPECT_LT(worst_mid, 1e-5);  // held-out middle markers of the fingers
  EXPECT_LT(worst_angle, 1e-3);
  EXPECT_LT(worst_violation, 1e-9);
  EXPECT_LT(worst_drift, 1e-12);
}

// With the middle markers as targets every digit is determined (the thumb too).
TEST_P(HandTrackerBackends, BothMarkersRecoverEveryDigit) {
  const HandGeometry h = syntheticHand();
  TrackerOptions options;
  options.backend = GetParam();
  options.use_middle_markers = true;
  options.fabrik.tolerance = 1e-9;
  options.fabrik.max_iterations = 300;
  HandTracker tracker(h, options);
  double worst_tip = 0.0, worst_mid = 0.0;
  for (int f = 0; f < 100; ++f) {
    const SyntheticFrame s = syntheticFrame(h, 0.01 * f);
    const HandFrameResult& r = tracker.track(s.triad, s.tips, s.middles);
    for (const DigitResult& d : r.digits) {
      EXPECT_TRUE(d.used_middle);
      worst_tip = std::max(worst_tip, d.tip_error);
      worst_mid = std::max(worst_mid, d.middle_error);
      EXPECT_LT(d.violation, 1e-9);
    }
  }
  // The middle markers are met exactly; the tips are not always: with the marker a rigid point
  // of its bone (a fixed-angle hinge) FABRIK stalls on the middle finger of this hand 5–7 mm
  // short of its tip (docs/hand.md, "Limits"). Marker IK on the same model meets both.
  EXPECT_LT(worst_mid, 1e-5);
  EXPECT_LT(worst_tip, 8e-3);
}

INSTANTIATE_TEST_SUITE_P(Backends, HandTrackerBackends, ::testing::Values(Backend::Euclid, Backend::Cga),
                         [](const auto& info) { return info.param == Backend::Cga ? "Cga" : "Euclid"; });

TEST(HandTracker, BackendsGiveTheSameOutput) {
  const HandGeometry h = syntheticHand();
  TrackerOptions oe, oc;
  oc.backend = Backend::Cga;
  HandTracker te(h, oe), tc(h, oc);
  double worst = 0.0;
  for (int f = 0; f < 200; ++f) {
    const SyntheticFrame s = syntheticFrame(h, 0.013 * f);
    te.track(s.triad, s.tips, s.middles);
    tc.track(s.triad, s.tips, s.middles);
    for (int d = 0; d < kDigits; ++d) {
      for (std::size_t j = 0; j < 4; ++j) worst = std::max(worst, (te.points(d)[j] - tc.points(d)[j]).norm());
    }
  }
  EXPECT_LT(worst, 1e-9);
}

TEST(HandTracker, GapsAndMissingMarkersAreHeldWithoutNaN) {
  const HandGeometry h = syntheticHand();
  HandTracker tracker(h);
  // Before any frame: a gap yields the neutral pose, finite.
  SyntheticFrame s = syntheticFrame(h, 0.0);
  s.triad[1] = Vector3d::Constant(kNaN);
  const HandFrameResult& r0 = tracker.track(s.triad, s.tips, s.middles);
  EXPECT_TRUE(r0.gap);
  EXPECT_TRUE(tracker.points(2)[3].allFinite());
  s = syntheticFrame(h, 0.1);
  tracker.track(s.triad, s.tips, s.middles);
  const DigitPose before = tracker.digitPose(3);
  SyntheticFrame m = syntheticFrame(h, 0.11);
  m.tips[3] = Vector3d::Constant(kNaN);
  const HandFrameResult& r1 = tracker.track(m.triad, m.tips, m.middles);
  EXPECT_FALSE(r1.gap);
  EXPECT_TRUE(r1.digits[3].gap);
  EXPECT_EQ(r1.digits[3].iterations, 0);  // held: nothing solved
  int iterations = 0;
  ik::Status worst = ik::Status::Converged;
  for (const DigitResult& d : r1.digits) iterations += d.iterations, worst = ik::worst(worst, d.status);
  EXPECT_EQ(r1.iterations, iterations);  // the frame: the digits' sum and worst
  EXPECT_GT(r1.iterations, 0);
  EXPECT_EQ(r1.status, worst);
  EXPECT_TRUE(std::isnan(r1.digits[3].tip_error));
  EXPECT_FALSE(r1.digits[2].gap);
  EXPECT_EQ(tracker.digitPose(3).theta, before.theta);
  for (int d = 0; d < kDigits; ++d) {
    for (const auto& p : tracker.points(d)) EXPECT_TRUE(p.allFinite());
  }
  // Collinear triad: a gap too.
  m.triad[2] = 2.0 * m.triad[1] - m.triad[0];
  EXPECT_TRUE(tracker.track(m.triad, m.tips, m.middles).gap);
}

TEST(HandTracker, TrackDoesNotAllocate) {
  const HandGeometry h = syntheticHand();
  for (const bool both : {false, true}) {
    TrackerOptions options;
    options.use_middle_markers = both;
    HandTracker tracker(h, options);
    SyntheticFrame s = syntheticFrame(h, 0.0);
    tracker.track(s.triad, s.tips, s.middles);
    s = syntheticFrame(h, 0.05);
    testing::AllocationCounter counter;
    tracker.track(s.triad, s.tips, s.middles);
    EXPECT_EQ(counter.count(), 0) << "use_middle_markers=" << both;
  }
}

// FABRIK under StreamTracker: the same poses as the tracker driven by hand, missing markers held,
// no allocation per frame, non-marker frames refused.
TEST(HandFrameSolver, UnderTheStreamIsTheTrackerByHand) {
  const HandGeometry h = syntheticHand();
  auto solver = std::make_unique<HandFrameSolver>(h);
  const HandFrameSolver& fs = *solver;
  EXPECT_THROW(solver->addTarget("hand", false, true, 1.0), InvalidArgument);
  EXPECT_THROW(solver->addTarget("index_tip", true, false, 1.0), InvalidArgument);
  std::vector<track::StreamTarget> targets;
  for (const char* t : {"hand_top", "hand_left", "hand_right"}) targets.push_back({t, false, true, 1.0});
  for (int d = 0; d < kDigits; ++d) targets.push_back({std::string(digitName(d)) + "_tip", false, true, 1.0});
  track::StreamTracker stream(std::move(solver), targets);
  EXPECT_EQ(stream.solver().name(), "fabrik-hand");
  EXPECT_THROW(track::StreamTracker(std::make_unique<HandFrameSolver>(h),
                                    {{"index_tip", false, true, 1.0}, {"index_tip", false, true, 1.0}}),
               InvalidArgument);
  HandTracker direct(h);
  const std::vector<Matrix3d> R(targets.size(), Matrix3d::Identity());
  std::vector<Vector3d> p(targets.size());
  long allocations = 0;
  for (int f = 0; f < 60; ++f) {
    SyntheticFrame s = syntheticFrame(h, 0.01 * f);
    if (f == 30) s.tips[2] = Vector3d::Constant(kNaN);
    std::copy(s.triad.begin(), s.triad.end(), p.begin());
    std::copy(s.tips.begin(), s.tips.end(), p.begin() + 3);
    s.middles.fill(Vector3d::Constant(kNaN));  // not streamed: missing
    direct.track(s.triad, s.tips, s.middles);
    if (f >= 10) {
      testing::AllocationCounter counter;
      stream.track(0.01 * f, R, p);
      allocations += counter.count();
    } else {
      stream.track(0.01 * f, R, p);
    }
    EXPECT_EQ(fs.last().digits[2].gap, f == 30);
    ASSERT_EQ(stream.state().base_position, direct.handPose().p);
    for (int d = 0; d < kDigits; ++d) {
      ASSERT_EQ(stream.state().joints[4 * d], direct.digitPose(d).psi);
      for (int j = 0; j < 3; ++j)
        ASSERT_EQ(stream.state().joints[4 * d + j + 1], direct.digitPose(d).theta[static_cast<std::size_t>(j)]);
    }
  }
  EXPECT_EQ(allocations, 0);
}

// The real recording: calibration residuals and tracking figures, bounds set ~1.5× the values
// measured when this was written (docs/hand.md has the figures).
TEST(HandRecording, CalibratesAndTracksTheGloveRecording) {
  KINETRACK_REQUIRE_SHARED(path, "data/hand/dfki_glove_recording_20210826.tsv");
  const io::QtmTsv tsv = io::readQtmTsv(path);
  const HandMarkerIndex idx = findHandMarkers(tsv.markers, {});
  const HandCalibration cal = calibrateHand(tsv.markers, idx);
  EXPECT_LT(cal.triad_rms, 0.2e-3);
  for (int d = 0; d < kDigits; ++d) {
    EXPECT_LT(cal.digits[static_cast<std::size_t>(d)].tip_rms, 4e-3) << digitName(d);
    EXPECT_LT(cal.digits[static_cast<std::size_t>(d)].middle_rms, 6e-3) << digitName(d);
    EXPECT_GT(cal.digits[static_cast<std::size_t>(d)].scale, 0.7);
    EXPECT_LT(cal.digits[static_cast<std::size_t>(d)].scale, 1.4);
  }
  const HandTrial trial = trackHandRecording(tsv.markers, idx, cal.geometry, HandSolver::Fabrik, {});
  const HandSummary s = summarize(trial);
  EXPECT_EQ(s.frames, 6000);
  EXPECT_EQ(s.gaps, 0);
  EXPECT_EQ(s.digits[0].held, 493);  // thumb_tip gaps
  EXPECT_LT(s.tip_error_mm_p50, 0.5);
  EXPECT_LT(s.tip_error_mm_p95, 2.5);  // 1.6 mm measured
  EXPECT_LT(s.middle_error_mm_median, 5.0);
  EXPECT_LT(s.constraint_violation_max_rad, 1e-9);
  EXPECT_LT(s.bone_length_drift_max_m, 1e-12);
  for (const HandTrialRow& r : trial.rows) ASSERT_TRUE(r.q.joints.allFinite());
}

TEST(HandRecording, MissingMarkerIsNamed) {
  io::MarkerTrajectories rec;
  rec.source = "glove.tsv";
  rec.names = {"hand_top", "hand_left"};
  try {
    (void)findHandMarkers(rec, {});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("hand_right"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("glove.tsv"), std::string::npos) << e.what();
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::hand
