// The experiments as library calls: Fig. 8 convergence (K = 0 keeps the error, 0 < KΔt < 2
// converges, KΔt ≥ 2 is flagged), option checks, the held T-pose and the statistics window.
#include <gtest/gtest.h>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/experiments/dyn.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/synthetic.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

TEST(Experiments, ConvergenceFollowsTheDiscreteGainRegimes) {
  const Model m = makeHuman66();
  experiments::ConvergenceOptions o;
  o.gains = {0.0, 10.0, 250.0};
  o.duration = 1.5;
  const experiments::ConvergenceResult r = experiments::runConvergence(m, o);
  ASSERT_EQ(r.runs.size(), 3u);
  EXPECT_EQ(r.target.orientation.size(), 23u);
  ASSERT_TRUE(r.target.position.has_value());
  for (const experiments::GainRun& g : r.runs) EXPECT_EQ(g.mnte.size(), static_cast<std::size_t>(o.steps()) + 1);
  EXPECT_GT(r.runs[0].mnte.front(), 1e-2);
  EXPECT_EQ(r.runs[0].mnte.back(), r.runs[0].mnte.front());  // K = 0: no correction
  EXPECT_LT(r.runs[1].mnte.back(), 1e-6);                    // K·Δt = 0.1
  EXPECT_TRUE(r.runs[2].unstable_gain);                      // K·Δt = 2.5
  EXPECT_FALSE(r.runs[1].unstable_gain);
  // Deterministic in the seed; another seed, another pose.
  EXPECT_EQ(experiments::convergenceTarget(m, o).q.joints, r.target.q.joints);
  o.seed = 2;
  EXPECT_NE(experiments::convergenceTarget(m, o).q.joints, r.target.q.joints);
  const std::string csv = experiments::convergenceCsv(r.runs, o.rate);
  EXPECT_EQ(csv.rfind("time,gain,mnte\n0,0,", 0), 0u) << csv.substr(0, 40);
}

TEST(Experiments, ConvergenceOptionsAreChecked) {
  const Model m = makeHuman48();
  auto bad = [&](auto edit) {
    experiments::ConvergenceOptions o;
    edit(o);
    EXPECT_THROW(experiments::runConvergence(m, o), InvalidArgument);
  };
  bad([](experiments::ConvergenceOptions& o) { o.gains = {}; });
  bad([](experiments::ConvergenceOptions& o) { o.gains = {1.0, -5.0}; });
  bad([](experiments::ConvergenceOptions& o) { o.rate = 0.0; });
  bad([](experiments::ConvergenceOptions& o) { o.duration = std::nan(""); });
  bad([](experiments::ConvergenceOptions& o) { o.duration = 0.001; });  // no step at 100 Hz
  bad([](experiments::ConvergenceOptions& o) { o.duration = 1e6; });    // 1e8 steps
}

TEST(Experiments, HeldFirstFrameAndTransientWindow) {
  const Model m = makeHuman66();
  track::Capture c;
  c.clip = track::syntheticWalk(m, 1.0, 100.0).clip;
  const track::Capture h = experiments::holdFirstFrame(c, 2.0);
  ASSERT_EQ(h.clip.numFrames(), 200);
  for (int s = 0; s < h.clip.numSegments(); ++s) {
    EXPECT_EQ(h.clip.pose(199, s).R, c.clip.pose(0, s).R);
    EXPECT_EQ(h.clip.pose(150, s).p, c.clip.pose(0, s).p);
  }
  EXPECT_NEAR(h.clip.times[199], 1.99, 1e-12);
  EXPECT_EQ(experiments::holdFirstFrame(c, 0.0).clip.numFrames(), 2);
  EXPECT_DOUBLE_EQ(track::transientCut({0.0, 10.0}, 2.0), 2.0);
  EXPECT_DOUBLE_EQ(track::transientCut({0.0, 3.0}, 2.0), 1.5);  // short runs keep their second half
  EXPECT_DOUBLE_EQ(track::transientCut({}, 2.0), 0.0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

TEST(Pipeline, SyntheticWalkJobAndSetups) {
  const auto [capture, setup] = track::syntheticWalkJob(makeHuman66(), 0.5, 100.0);
  EXPECT_EQ(capture.clip.numFrames(), 51);
  EXPECT_EQ(setup.truth.size(), 51u);
  EXPECT_EQ(setup.plan.bindings.size(), 23u);
  EXPECT_TRUE(setup.plan.bindings[0].position);  // the pelvis carries the position target
  EXPECT_FALSE(setup.plan.bindings[1].position);
  EXPECT_THROW(track::setupFromClip(capture, io::BvhUnits::Auto, true), InvalidArgument);  // not a BVH
  const track::TrackSetup on48 = track::setupOnModel(makeHuman48(), capture, "");
  EXPECT_EQ(on48.model.name(), makeHuman48().name());
  EXPECT_EQ(on48.plan.bindings.size(), 23u);  // pose targets named after the model's frames
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
