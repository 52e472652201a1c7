// Segment scaling of human66 from a static trial: recovery of known scales from synthetic markers,
// the scaled set and dimensions, and the pyCGM static trial (scaling → calibration → movement IK).
#include "kinetrack/subject/human_scaling.hpp"
#include "kinetrack/metrics/tracking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/model/vsk.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::subject {
namespace KINETRACK_UNITY_ID {

TEST(HumanScaling, ScalesDimensionsAndOffsetsByGroup) {
  ASSERT_EQ(humanScaleGroups().size(), 10u);
  EXPECT_EQ(humanScaleGroups().front(), "trunk");
  std::vector<double> f(10, 1.0);
  f[7] = 1.1;  // thigh
  f[6] = 0.8;  // pelvis
  const HumanDimensions d0 = HumanDimensions::fromHeight(1.75);
  const HumanDimensions d = scaledHumanDimensions(d0, f);
  EXPECT_DOUBLE_EQ(d.thigh, 1.1 * d0.thigh);
  EXPECT_DOUBLE_EQ(d.hip_half_width, 0.8 * d0.hip_half_width);
  EXPECT_DOUBLE_EQ(d.shank, d0.shank);
  const io::MarkerSet s0 = io::builtinMarkerSet("human66_plugin_gait");
  const io::MarkerSet s = scaledHumanMarkerSet(s0, f);
  const int knee = s0.find("LKNE"), asis = s0.find("LASI"), ank = s0.find("LANK");
  // Along the thigh only (z), uniformly on the pelvis, not at all on the shank.
  EXPECT_TRUE(s.markers[knee].offset.isApprox(s0.markers[knee].offset.cwiseProduct(Vector3d(1, 1, 1.1))));
  EXPECT_TRUE(s.markers[asis].offset.isApprox(0.8 * s0.markers[asis].offset));
  EXPECT_TRUE(s.markers[ank].offset.isApprox(s0.markers[ank].offset));
  EXPECT_THROW((void)scaledHumanDimensions(d0, {1.0, 2.0}), InvalidArgument);
  f[0] = 0.0;
  EXPECT_THROW((void)scaledHumanMarkerSet(s0, f), InvalidArgument);
}

TEST(HumanScaling, RecoversKnownScalesFromSyntheticStaticTrial) {
  const std::vector<double> truth = {1.06, 0.95, 0.88, 1.07, 0.96, 1.05, 1.12, 1.04, 0.95, 1.03};
  HumanModelOptions base;
  base.dimensions = HumanDimensions::fromHeight(1.7);
  const io::MarkerSet set = io::scaledMarkerSet(io::builtinMarkerSet("human66_plugin_gait"), 1.7);
  HumanModelOptions subject = base;
  subject.dimensions = scaledHumanDimensions(base.dimensions, truth);
  const Model model = io::withMarkers(makeHuman66(subject), scaledHumanMarkerSet(set, truth));
  // A standing pose: small joint angles, turned and moved.
  Configuration q(model);
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  for (int j = 0; j < model.numJoints(); ++j) q.joints[j] = u(rng);
  q.base_position = Vector3d(0.4, -0.2, 0.9);
  q.base_rotation = so3::exp(Vector3d(0, 0, 2.0));
  Data d(model);
  framesForwardKinematics(model, d, q);
  io::MarkerTrajectories trial;
  trial.source = "synthetic static";
  trial.names = set.names();
  trial.data_rate = 100.0;
  trial.times = {0.0, 0.01};
  for (int k = 0; k < 2; ++k)
    for (const auto& m : set.markers) trial.positions.push_back(d.frame[model.frameId(m.name).value].p);

  HumanScalingOptions o;
  o.scale_prior = 1e-8;     // the data alone decide
  o.posture_weight = 1e-7;  // only breaks ties
  const HumanScaling s = fitHumanScales(base, set, trial, o);
  EXPECT_GT(s.rms_before, 0.01);
  EXPECT_LT(s.rms_after, 2e-4);
  ASSERT_EQ(s.scales.size(), truth.size());
  for (std::size_t g = 0; g < truth.size(); ++g) EXPECT_NEAR(s.scales[g].second, truth[g], 5e-3) << s.scales[g].first;
  EXPECT_NEAR(s.options.dimensions.thigh, subject.dimensions.thigh, 2e-3);
  EXPECT_EQ(s.frames_used, 2);
}

TEST(HumanScaling, Errors) {
  HumanModelOptions base;
  const io::MarkerSet set = io::builtinMarkerSet("human66_plugin_gait");
  io::MarkerTrajectories empty;
  empty.names = set.names();
  HumanScalingOptions o;
  o.model = "robot";
  EXPECT_THROW((void)fitHumanScales(base, set, empty, o), InvalidArgument);
  o.model = "human66";
  EXPECT_THROW((void)fitHumanScales(base, set, empty, o), InvalidArgument);  // no frame
  o.min_scale = 2.0;
  EXPECT_THROW((void)fitHumanScales(base, set, empty, o), InvalidArgument);
}

struct PyCgm {
  io::VskSubject subject;
  io::MarkerTrajectories still, walk;
};

// Solves the movement trial with `set` on `model` from `start`, checks every frame under 2 cm and
// prints median / p95 / max RMS (over `from` s … end) under `label`.
void solveWalk(const std::string& label, const std::shared_ptr<const Model>& model, const io::MarkerSet& set,
               const Configuration& start, const io::MarkerTrajectories& walk, double bound, double from = 0.0) {
  const track::MarkerTrialResult r = track::solveMarkerTrial(track::markerIkSpec(markerModel(model, set, start)), walk);
  ASSERT_EQ(r.frames.size(), 323u);
  std::vector<double> rms;
  for (const track::MarkerFrame& f : r.frames) {
    EXPECT_LT(f.rms_error, 0.02) << label << " t = " << f.time;
    if (f.time >= from) rms.push_back(f.rms_error);
  }
  const metrics::Summary s = metrics::summarize(std::move(rms));
  EXPECT_LT(s.max, bound) << label;
  std::cout << label << ": marker RMS median " << 1e3 * s.median << " mm, p95 " << 1e3 * s.p95 << " mm, max "
            << 1e3 * s.max << " mm over " << s.count << " frames\n";
}

TEST(HumanScaling, PlugInGaitScaledThenCalibratedThenMovementUnder2cm) {
  KINETRACK_REQUIRE_SHARED(vsk_path, "data/c3d/pycgm_Test.vsk");
  KINETRACK_REQUIRE_SHARED(static_path, "data/c3d/pycgm_Static_trial.c3d");
  KINETRACK_REQUIRE_SHARED(movement_path, "data/c3d/pycgm_Movement_trial.c3d");
  const io::VskSubject subject = io::readVsk(vsk_path);
  HumanModelOptions base;
  base.dimensions = HumanDimensions::fromHeight(subject.height());
  base.mass = subject.mass();
  const io::MarkerSet set = io::scaledMarkerSet(io::builtinMarkerSet("human66_plugin_gait"), subject.height());
  const io::MarkerTrajectories still = io::readC3dMarkers(static_path);
  const io::MarkerTrajectories walk = io::readC3dMarkers(movement_path);

  const HumanScaling s = fitHumanScales(base, set, still);
  EXPECT_LT(s.rms_after, s.rms_before);
  std::cout << "scaling: static RMS with the textbook offsets " << 1e3 * s.rms_before << " mm → " << 1e3 * s.rms_after
            << " mm with the scales";
  for (const auto& [g, f] : s.scales) std::cout << " " << g << " " << f;
  std::cout << "\n";
  for (const auto& [g, f] : s.scales) {
    EXPECT_GT(f, 0.6) << g;
    EXPECT_LT(f, 1.6) << g;
  }
  auto model = std::make_shared<const Model>(makeHuman66(s.options));
  const MarkerCalibration cal = calibrateMarkers(model, s.markers, still);
  EXPECT_LT(cal.rms_after, 1e-6);
  solveWalk("scaled + static calibration", model, cal.markers, cal.poses[0], walk, 0.02);
}

TEST(HumanScaling, PlugInGaitFunctionalRefinementCrossValidated) {
  // Static calibration, then a multi-pose calibration on 10 frames of the first 1.3 s of the
  // movement trial; the frames after 1.4 s (never seen by the calibration) are checked.
  KINETRACK_REQUIRE_SHARED(vsk_path, "data/c3d/pycgm_Test.vsk");
  KINETRACK_REQUIRE_SHARED(static_path, "data/c3d/pycgm_Static_trial.c3d");
  KINETRACK_REQUIRE_SHARED(movement_path, "data/c3d/pycgm_Movement_trial.c3d");
  const io::VskSubject subject = io::readVsk(vsk_path);
  HumanModelOptions mo;
  mo.dimensions = HumanDimensions::fromHeight(subject.height());
  mo.mass = subject.mass();
  auto model = std::make_shared<const Model>(makeHuman66(mo));
  const io::MarkerSet set = io::scaledMarkerSet(io::builtinMarkerSet("human66_plugin_gait"), subject.height());
  const io::MarkerTrajectories still = io::readC3dMarkers(static_path);
  const io::MarkerTrajectories walk = io::readC3dMarkers(movement_path);
  const MarkerCalibration cal = calibrateMarkers(model, set, still);
  MarkerCalibrationOptions o;
  o.poses = 10;
  o.time_end = 1.3;
  o.max_rounds = 50;
  o.tolerance = 1e-5;
  const MarkerCalibration refined = calibrateMarkers(model, cal.markers, walk, o);
  EXPECT_EQ(refined.frames_used, 10);
  EXPECT_LT(refined.rms_after, 0.5 * refined.rms_before);
  solveWalk("static + functional calibration (frames after 1.4 s)", model, refined.markers, cal.poses[0], walk, 0.01,
            1.4);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::subject
