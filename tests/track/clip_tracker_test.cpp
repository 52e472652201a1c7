// ClipTracker, retargeting and the synthetic walk: ground truth recovered, sub-step count, gaps
// held and resumed, calibration invariances, bad arguments, no allocation per frame; the per-frame
// baselines (whole-body, pair-wise) through FrameSolver.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/retarget.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

std::vector<track::SegmentPair> identityPairs(const io::MotionClip& clip) {
  std::vector<track::SegmentPair> pairs;
  for (const std::string& s : clip.segment_names) pairs.push_back({s, s, Matrix3d::Identity(), 1.0});
  return pairs;
}

track::Retargeting plainPlan(const Model& m, const io::MotionClip& clip) {
  track::RetargetOptions o;
  o.calibration = track::Calibration::None;
  return track::retarget(m, clip, identityPairs(clip), nullptr, 0, o);
}

TEST(ClipTracker, SyntheticWalkIsRecoveredOnHuman66AndHuman48) {
  for (const Model& m : {makeHuman66(), makeHuman48()}) {
    SCOPED_TRACE(m.name());
    const track::SyntheticWalk walk = track::syntheticWalk(m, 4.0, 100.0);
    const track::Retargeting plan = plainPlan(m, walk.clip);
    track::ClipTracker tracker(m, walk.clip, plan.bindings, plan.alignment);
    tracker.setState(plan.initial);
    track::SphericalJointError meter(m, walk.clip);
    double worst = 0.0;
    for (int f = 0; f < walk.clip.numFrames(); ++f) {
      const track::FrameOutcome o = tracker.track(f);
      ASSERT_FALSE(o.gap);
      if (f < 100) continue;  // 1 s transient
      int n = 0;
      const double e2 = meter.sumSquared(tracker.state(), walk.truth[static_cast<std::size_t>(f)], n);
      worst = std::max(worst, std::sqrt(e2 / n));
      EXPECT_LT(o.mnte, 1e-8);
    }
    EXPECT_LT(worst * 180.0 / M_PI, 0.01);
  }
}

TEST(ClipTracker, SubStepsBoundTheTargetRotationPerStep) {
  const Model m = makeHuman66();
  track::SyntheticWalk walk = track::syntheticWalk(m, 0.1, 100.0);
  // Frame 1: the head turns 23° about z relative to frame 0 → ceil(23/5) = 5 sub-steps.
  io::MotionClip& clip = walk.clip;
  const int head = clip.findSegment("Head");
  clip.poses[static_cast<std::size_t>(1 * clip.numSegments() + head)].R =
      so3::exp(Vector3d(0, 0, 23.0 * M_PI / 180.0)) * clip.pose(0, head).R;
  const track::Retargeting plan = plainPlan(m, clip);
  track::ClipTracker tracker(m, clip, plan.bindings, plan.alignment);
  tracker.setState(walk.truth[0]);
  tracker.track(0);
  const track::FrameOutcome o = tracker.track(1);
  EXPECT_EQ(o.iterations, 5);
  EXPECT_LT(o.mnte, 1e-6);
}

TEST(ClipTracker, GapsHoldTheStateAndTrackingResumes) {
  const Model m = makeHuman66();
  track::SyntheticWalk walk = track::syntheticWalk(m, 2.0, 100.0);
  io::MotionClip& clip = walk.clip;
  const int hand = clip.findSegment("RightHand");
  for (int f = 50; f < 60; ++f) {
    clip.valid[static_cast<std::size_t>(f * clip.numSegments() + hand)] = 0;
    clip.poses[static_cast<std::size_t>(f * clip.numSegments() + hand)].R.setConstant(std::nan(""));
  }
  const track::Retargeting plan = plainPlan(m, clip);
  track::ClipTracker tracker(m, clip, plan.bindings, plan.alignment);
  tracker.setState(walk.truth[0]);
  Configuration before;
  for (int f = 0; f < clip.numFrames(); ++f) {
    const track::FrameOutcome o = tracker.track(f);
    EXPECT_EQ(o.gap, f >= 50 && f < 60) << f;
    if (f == 49) before = tracker.state();
    if (o.gap) {
      EXPECT_EQ(tracker.state().joints, before.joints);
      EXPECT_EQ(tracker.state().base_position, before.base_position);
    }
    EXPECT_TRUE(tracker.state().joints.allFinite());
    if (f == 60) {
      EXPECT_LT(o.mnte, 1e-6);  // back on the targets at the first valid frame
    }
  }
}

TEST(Retarget, PoseCalibrationMakesTheCalibrationFrameTheModelPose) {
  // A clip whose segments are the model's own frames, seen in a world turned by 90° about z and
  // with every segment frame rotated by an arbitrary fixed offset: calibrating on frame 0 must
  // undo both, so that the model tracks the walk itself.
  const Model m = makeHuman66();
  track::SyntheticWalk walk = track::syntheticWalk(m, 3.0, 100.0);
  io::MotionClip clip = walk.clip;
  const Matrix3d turn = so3::exp(Vector3d(0, 0, M_PI / 2));
  for (std::size_t k = 0; k < clip.poses.size(); ++k) {
    const Matrix3d offset = so3::exp(Vector3d(0.3 * static_cast<double>(k % 23), -0.2, 0.1));
    clip.poses[k].R = turn * clip.poses[k].R * offset;
    clip.poses[k].p = turn * clip.poses[k].p;
  }
  // Calibration frame: the walk's frame 0 (standing still) against the model standing in the
  // same pose: give the model that pose as its zero by calibrating against the truth itself.
  const track::Retargeting plan = track::retarget(m, clip, identityPairs(clip), &clip, 0);
  EXPECT_NEAR((plan.alignment.rotation * turn - Matrix3d::Identity()).norm(), 0.0, 1e-9);
  track::ClipTracker tracker(m, clip, plan.bindings, plan.alignment);
  tracker.setState(plan.initial);
  // The calibrated model differs from the walk's own posture at most by twists about the bones,
  // so every bone (segment origin → child segment origin) points as in the walk, at every frame.
  const std::vector<std::pair<std::string, std::string>> bones = {
      {"RightUpperArm", "RightForeArm"}, {"LeftForeArm", "LeftHand"}, {"RightUpperLeg", "RightLowerLeg"},
      {"LeftLowerLeg", "LeftFoot"},      {"RightFoot", "RightToe"},   {"T8", "Neck"}};
  Data tracked(m), truth(m);
  double mnte = 0.0, worst = 0.0;
  for (int f = 0; f < clip.numFrames(); ++f) {
    mnte = tracker.track(f).mnte;
    framesForwardKinematics(m, tracked, tracker.state());
    framesForwardKinematics(m, truth, walk.truth[static_cast<std::size_t>(f)]);
    for (const auto& bone : bones) {  // not a structured binding: clang 14 cannot capture one
      auto dir = [&](const Data& d) {
        return Vector3d(
            (d.frame[m.frameId(bone.second).value].p - d.frame[m.frameId(bone.first).value].p).normalized());
      };
      worst = std::max(worst, std::acos(std::clamp(dir(tracked).dot(dir(truth)), -1.0, 1.0)));
    }
  }
  EXPECT_LT(mnte, 1e-8);
  EXPECT_LT(worst * 180.0 / M_PI, 0.01);  // measured 0.004°
}

TEST(Retarget, BadMapsAreRejectedWithNames) {
  const Model m = makeHuman66();
  const track::SyntheticWalk walk = track::syntheticWalk(m, 0.1, 100.0);
  EXPECT_THROW(track::retarget(m, walk.clip, {}, nullptr, 0), InvalidArgument);
  try {
    track::retarget(m, walk.clip, {{"NoSuchSegment", "Head", Matrix3d::Identity(), 1.0}}, nullptr, 0);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("NoSuchSegment"), std::string::npos);
  }
  EXPECT_THROW(track::retarget(m, walk.clip, {{"Head", "NoSuchFrame", Matrix3d::Identity(), 1.0}}, nullptr, 0),
               InvalidArgument);
  EXPECT_THROW(
      track::retarget(m, walk.clip,
                      {{"Head", "Head", Matrix3d::Identity(), 1.0}, {"Neck", "Head", Matrix3d::Identity(), 1.0}},
                      nullptr, 0),
      InvalidArgument);
  track::TrackerOptions o;
  o.kappa = 2.0;
  const track::Retargeting plan = plainPlan(m, walk.clip);
  EXPECT_THROW(track::ClipTracker(m, walk.clip, plan.bindings, plan.alignment, o), InvalidArgument);
}

// Tracks the walk (with a LeftHand dropout at frame `gap`) with a per-frame solver: every frame
// reaches its targets, the gap holds the state, no limit is crossed; returns the worst joint RMS
// against the truth (rad).
double trackWalkWith(const Model& m, const track::SyntheticWalk& walk, int gap,
                     std::unique_ptr<track::FrameSolver> solver) {
  const io::MotionClip& clip = walk.clip;
  const track::Retargeting plan = plainPlan(m, clip);
  track::ClipTracker tracker(m, clip, plan.bindings, plan.alignment, std::move(solver));
  tracker.setState(plan.initial);
  track::SphericalJointError meter(m, clip);
  double worst = 0.0;
  for (int f = 0; f < clip.numFrames(); ++f) {
    const Configuration before = tracker.state();
    const track::FrameOutcome o = tracker.track(f);
    EXPECT_EQ(o.gap, f == gap);
    EXPECT_LE(o.limit_violation, 1e-9);
    if (o.gap) {
      EXPECT_EQ(tracker.state().joints, before.joints);  // held
      continue;
    }
    EXPECT_FALSE(o.non_finite);
    EXPECT_NE(o.status, ik::Status::Failed);
    EXPECT_LT(o.mnte, 1e-10) << f;
    int n = 0;
    worst =
        std::max(worst, std::sqrt(meter.sumSquared(tracker.state(), walk.truth[static_cast<std::size_t>(f)], n) / n));
  }
  return worst;
}

track::SyntheticWalk walkWithGap(const Model& m, int gap) {
  track::SyntheticWalk walk = track::syntheticWalk(m, 2.0, 100.0);
  walk.clip.valid[static_cast<std::size_t>(gap * walk.clip.numSegments() + walk.clip.findSegment("LeftHand"))] = 0;
  return walk;
}

TEST(ClipTracker, WholeBodyBaselineRecoversTheWalkAndHoldsGaps) {
  const Model m = makeHuman48();
  const track::SyntheticWalk walk = walkWithGap(m, 100);
  const double worst = trackWalkWith(m, walk, 100, track::makeFrameSolver(InstantaneousIk(m)));
  EXPECT_LT(worst * 180.0 / M_PI, 0.01);
}

TEST(ClipTracker, PairwiseBaselineRecoversTheWalkOnOneAndTwoThreads) {
  const Model m = makeHuman66();
  const track::SyntheticWalk walk = walkWithGap(m, 50);
  for (const int threads : {1, 2}) {
    SCOPED_TRACE(threads);
    PairwiseIkOptions po;
    po.threads = threads;
    const double worst = trackWalkWith(m, walk, 50, track::makeFrameSolver(PairwiseIk(m, po)));
    EXPECT_LT(worst * 180.0 / M_PI, 0.01);
  }
}

TEST(ClipTracker, FrameSolverAccessors) {
  const Model m = makeHuman66();
  const track::SyntheticWalk walk = track::syntheticWalk(m, 0.5, 100.0);
  const track::Retargeting plan = plainPlan(m, walk.clip);
  const track::ClipTracker dyn(m, walk.clip, plan.bindings, plan.alignment);
  ASSERT_NE(dyn.frameSolver(), nullptr);  // DYN is a FrameSolver like the per-frame methods
  EXPECT_EQ(dyn.frameSolver()->name(), "dynamical");
  EXPECT_NE(dyn.frameSolver()->dynamical(), nullptr);
  EXPECT_EQ(dyn.instantaneous(), nullptr);
  const track::ClipTracker whole(m, walk.clip, plan.bindings, plan.alignment, InstantaneousIk(m));
  ASSERT_NE(whole.instantaneous(), nullptr);
  EXPECT_EQ(whole.frameSolver()->name(), "wholebody");
  EXPECT_EQ(whole.frameSolver()->pairwise(), nullptr);
  const track::ClipTracker pair(m, walk.clip, plan.bindings, plan.alignment, track::makeFrameSolver(PairwiseIk(m)));
  ASSERT_NE(pair.frameSolver(), nullptr);
  EXPECT_NE(pair.frameSolver()->pairwise(), nullptr);
  EXPECT_EQ(pair.instantaneous(), nullptr);
  EXPECT_EQ(pair.frameSolver()->name(), "pairwise");
}

TEST(ClipTracker, PerFrameSolverArgumentsAreChecked) {
  const Model m = makeHuman66();
  const track::SyntheticWalk walk = track::syntheticWalk(m, 0.5, 100.0);
  track::Retargeting plan = plainPlan(m, walk.clip);
  EXPECT_THROW(track::ClipTracker(m, walk.clip, plan.bindings, plan.alignment, std::unique_ptr<track::FrameSolver>()),
               InvalidArgument);
  const Model other = makeHuman48();
  EXPECT_THROW(
      track::ClipTracker(m, walk.clip, plan.bindings, plan.alignment, track::makeFrameSolver(PairwiseIk(other))),
      InvalidArgument);
  // Pair-wise subsystems hold orientations: a position target off the root link is refused,
  // naming the frame.
  plan.bindings.push_back({walk.clip.findSegment("LeftHand"), "LeftHand", Matrix3d::Identity(), false, true, 1.0});
  try {
    track::ClipTracker(m, walk.clip, plan.bindings, plan.alignment, track::makeFrameSolver(PairwiseIk(m)));
    ADD_FAILURE() << "no throw";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("LeftHand"), std::string::npos) << e.what();
  }
  // The whole-body solver holds it.
  EXPECT_NO_THROW(track::ClipTracker(m, walk.clip, plan.bindings, plan.alignment, InstantaneousIk(m)));
}

// Allocations while tracking frames 10… of a 1 s walk (after 10 warm-up frames).
long allocationsPerRun(
    const Model& m,
    const std::function<track::ClipTracker(const track::SyntheticWalk&, const track::Retargeting&)>& make) {
  const track::SyntheticWalk walk = track::syntheticWalk(m, 1.0, 100.0);
  const track::Retargeting plan = plainPlan(m, walk.clip);
  track::ClipTracker tracker = make(walk, plan);
  tracker.setState(plan.initial);
  for (int f = 0; f < 10; ++f) tracker.track(f);
  testing::AllocationCounter guard;
  for (int f = 10; f < walk.clip.numFrames(); ++f) tracker.track(f);
  return guard.count();
}

TEST(ClipTracker, NoAllocationPerFrame) {
  const Model m = makeHuman66();
  EXPECT_EQ(allocationsPerRun(m,
                              [&](const track::SyntheticWalk& w, const track::Retargeting& p) {
                                return track::ClipTracker(m, w.clip, p.bindings, p.alignment);
                              }),
            0);
  EXPECT_EQ(allocationsPerRun(m,
                              [&](const track::SyntheticWalk& w, const track::Retargeting& p) {
                                return track::ClipTracker(m, w.clip, p.bindings, p.alignment, InstantaneousIk(m));
                              }),
            0);
  PairwiseIkOptions po;
  po.threads = 1;  // a pool allocates nothing per frame either, but its threads are not counted
  EXPECT_EQ(allocationsPerRun(m,
                              [&](const track::SyntheticWalk& w, const track::Retargeting& p) {
                                return track::ClipTracker(m, w.clip, p.bindings, p.alignment,
                                                          track::makeFrameSolver(PairwiseIk(m, po)));
                              }),
            0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
