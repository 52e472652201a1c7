// StreamTracker: fed frame by frame with (time, targets) it gives the clip tracker's rows exactly
// (every method, gaps included, on the synthetic walk and on a real capture); bad input is
// refused; the method registry.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/retarget.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

track::Retargeting plainPlan(const Model& m, const io::MotionClip& clip) {
  std::vector<track::SegmentPair> pairs;
  for (const std::string& s : clip.segment_names) pairs.push_back({s, s, Matrix3d::Identity(), 1.0});
  track::RetargetOptions o;
  o.calibration = track::Calibration::None;
  return track::retarget(m, clip, pairs, nullptr, 0, o);
}

track::TrackerOptions optionsFor(track::Method method) {
  track::TrackerOptions o;
  o.method = method;
  o.pairwise.threads = 1;
  return o;
}

// Drives a ClipTracker and a StreamTracker over `clip` side by side. The stream gets the target
// values computed here from the clip (R = W·R_clip·offset, p = s·W·p_clip + t), a gap where a
// bound segment is invalid. Every configuration and outcome must be identical (bit for bit).
void expectSameRows(const Model& m, const io::MotionClip& clip, const track::Retargeting& plan,
                    const track::TrackerOptions& options, int frames) {
  track::ClipTracker clip_tracker(m, clip, plan.bindings, plan.alignment, options);
  track::TrackerOptions so = options;
  so.first_frame_interval = track::meanFrameInterval(clip);
  track::StreamTracker stream(std::make_shared<const Model>(m), track::streamTargets(plan.bindings), so);
  clip_tracker.setState(plan.initial);
  stream.setState(plan.initial);
  const std::size_t nb = plan.bindings.size();
  std::vector<Matrix3d> R(nb);
  std::vector<Vector3d> p(nb);
  int gaps = 0;
  for (int f = 0; f < std::min(frames, clip.numFrames()); ++f) {
    bool valid = true;
    for (std::size_t b = 0; b < nb; ++b) {
      const track::TargetBinding& tb = plan.bindings[b];
      valid = valid && clip.isValid(f, tb.segment);
      const Transform& X = clip.pose(f, tb.segment);
      R[b] = plan.alignment.rotation * X.R * tb.offset;
      p[b] = plan.alignment.scale * (plan.alignment.rotation * X.p) + plan.alignment.translation;
    }
    const track::FrameOutcome a = clip_tracker.track(f);
    const track::FrameOutcome b = stream.track(clip.times[static_cast<std::size_t>(f)], R, p, valid);
    gaps += b.gap;
    ASSERT_EQ(a.gap, b.gap) << f;
    ASSERT_EQ(a.status, b.status) << f;
    ASSERT_EQ(a.iterations, b.iterations) << f;
    ASSERT_EQ(a.mnte, b.mnte) << f;
    ASSERT_EQ(a.rmse, b.rmse) << f;
    ASSERT_EQ(a.limit_violation, b.limit_violation) << f;
    ASSERT_EQ(clip_tracker.state().joints, stream.state().joints) << f;
    ASSERT_EQ(clip_tracker.state().base_position, stream.state().base_position) << f;
    ASSERT_EQ(clip_tracker.state().base_rotation, stream.state().base_rotation) << f;
  }
  EXPECT_EQ(gaps, [&] {
    int n = 0;
    for (int f = 0; f < std::min(frames, clip.numFrames()); ++f)
      for (const track::TargetBinding& tb : plan.bindings)
        if (!clip.isValid(f, tb.segment)) {
          ++n;
          break;
        }
    return n;
  }());
}

TEST(StreamTracker, GivesTheClipTrackersRowsForEveryMethod) {
  const Model m = makeHuman66();
  track::SyntheticWalk walk = track::syntheticWalk(m, 1.0, 100.0);
  // A gap at frame 0 (the first valid frame comes later) and one mid-clip.
  const int hand = walk.clip.findSegment("LeftHand");
  for (const int f : {0, 40, 41}) walk.clip.valid[static_cast<std::size_t>(f * walk.clip.numSegments() + hand)] = 0;
  const track::Retargeting plan = plainPlan(m, walk.clip);
  for (const track::Method method : {track::Method::Dynamical, track::Method::WholeBody, track::Method::Pairwise}) {
    SCOPED_TRACE(track::toString(method));
    expectSameRows(m, walk.clip, plan, optionsFor(method), walk.clip.numFrames());
  }
}

TEST(StreamTracker, GivesTheClipTrackersRowsOnARealCapture) {
  KINETRACK_REQUIRE_SHARED(path, "data/bvh/cmu_cgspeed/cmu_01_01.bvh");
  const track::Capture capture = track::loadCapture(path);
  const Model m = makeHuman48();
  const io::SegmentMap map = io::resolveSegmentMap(capture.clip.segment_names, "");
  std::vector<track::SegmentPair> pairs;
  for (const io::SegmentMapEntry& e : map.entries)
    if (m.findFrame(e.model_frame)) pairs.push_back({e.clip_segment, e.model_frame, e.offset, e.weight});
  const track::Retargeting plan = track::planTracking(m, capture, pairs);
  for (const track::Method method : {track::Method::Dynamical, track::Method::WholeBody}) {
    SCOPED_TRACE(track::toString(method));
    expectSameRows(m, capture.clip, plan, optionsFor(method), 300);
  }
}

TEST(StreamTracker, GapsHoldTheStateAndBadInputIsRefused) {
  const Model m = makeHuman66();
  const track::SyntheticWalk walk = track::syntheticWalk(m, 0.2, 100.0);
  const track::Retargeting plan = plainPlan(m, walk.clip);
  track::StreamTracker stream(std::make_shared<const Model>(m), track::streamTargets(plan.bindings));
  stream.setState(plan.initial);
  const std::size_t nb = plan.bindings.size();
  std::vector<Matrix3d> R(nb, Matrix3d::Identity());
  std::vector<Vector3d> p(nb, Vector3d::Zero());
  const Configuration before = stream.state();
  const track::FrameOutcome gap = stream.track(0.0, R, p, false);
  EXPECT_TRUE(gap.gap);
  EXPECT_EQ(stream.state().joints, before.joints);
  EXPECT_THROW(stream.track(0.0, R, p), InvalidArgument);  // time not after the previous frame
  EXPECT_THROW(stream.track(0.01, std::span<const Matrix3d>(R).first(nb - 1), p), InvalidArgument);
  EXPECT_THROW(stream.track(std::nan(""), R, p), InvalidArgument);
  R[0] = 2.0 * Matrix3d::Identity();  // not a rotation
  EXPECT_THROW(stream.track(0.02, R, p), InvalidArgument);

  EXPECT_THROW(track::StreamTracker(std::make_shared<const Model>(m), {}), InvalidArgument);
  EXPECT_THROW(track::StreamTracker(std::make_shared<const Model>(m), {{"NoSuchFrame", true, false, 1.0}}),
               InvalidArgument);
  EXPECT_THROW(track::StreamTracker(std::make_shared<const Model>(m), {{"Head", false, false, 1.0}}), InvalidArgument);
  EXPECT_THROW(track::StreamTracker(std::unique_ptr<track::FrameSolver>(), {{"Head", true, false, 1.0}}),
               InvalidArgument);
  track::TrackerOptions bad;
  bad.kappa = 0.0;
  EXPECT_THROW(track::StreamTracker(std::make_shared<const Model>(m), {{"Head", true, false, 1.0}}, bad),
               InvalidArgument);
  track::TrackerOptions pair = optionsFor(track::Method::Pairwise);
  EXPECT_THROW(track::StreamTracker(std::make_shared<const Model>(m), {{"Head", false, true, 1.0}}, pair),
               InvalidArgument);  // pair-wise: position targets only on the root link
}

TEST(StreamTracker, ARefusedFrameLeavesTheStreamAsItWas) {
  // Frames 0, 1, 2 tracked straight, and with a refused frame (not a rotation) between 0 and 1:
  // the same rows, for every method.
  const Model m = makeHuman66();
  const track::SyntheticWalk walk = track::syntheticWalk(m, 0.05, 100.0);
  const track::Retargeting plan = plainPlan(m, walk.clip);
  const std::size_t nb = plan.bindings.size();
  for (const track::Method method : {track::Method::Dynamical, track::Method::WholeBody, track::Method::Pairwise}) {
    SCOPED_TRACE(track::toString(method));
    auto make = [&] {
      track::StreamTracker s(std::make_shared<const Model>(m), track::streamTargets(plan.bindings), optionsFor(method));
      s.setState(plan.initial);
      return s;
    };
    track::StreamTracker straight = make(), refused = make();
    std::vector<Matrix3d> R(nb);
    std::vector<Vector3d> p(nb);
    for (int f = 0; f < 3; ++f) {
      ASSERT_TRUE(track::clipFrameTargets(walk.clip, plan.bindings, plan.alignment, f, R, p));
      const double t = walk.clip.times[static_cast<std::size_t>(f)];
      if (f == 1) {
        std::vector<Matrix3d> bad = R;
        bad[nb - 1] = 2.0 * Matrix3d::Identity();
        EXPECT_THROW(refused.track(t - 0.001, bad, p), InvalidArgument);
      }
      const track::FrameOutcome a = straight.track(t, R, p), b = refused.track(t, R, p);
      EXPECT_EQ(a.mnte, b.mnte) << f;
      EXPECT_EQ(a.rmse, b.rmse) << f;
      EXPECT_EQ(straight.state().joints, refused.state().joints) << f;
    }
  }
}

TEST(StreamTracker, MethodNamesRoundTrip) {
  for (const track::Method method : track::allMethods()) EXPECT_EQ(track::parseMethod(track::toString(method)), method);
  EXPECT_THROW(track::parseMethod("newton"), InvalidArgument);
  const auto model = std::make_shared<const Model>(makeHuman48());
  for (const track::Method method : track::allMethods()) {
    const auto solver = track::makeFrameSolver(method, model, optionsFor(method));
    EXPECT_EQ(solver->name(), toString(method));
    EXPECT_EQ(&solver->model(), model.get());  // shared, not copied
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
