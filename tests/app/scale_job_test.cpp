// app::runScale, OpenSim's ScaleTool end to end: gait2354's generic model, Setup_Scale.xml and
// static trial against OpenSim's subject01_simbody.osim (muscle fibre/tendon lengths, markers) and
// its static pose; the Rajagopal 2016 model scaled and its markers placed (no OpenSim output is
// shipped for it: the factors must be sane and the run clean). Figures: docs/scaling.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "../cli/cli_runner.hpp"
#include "kinetrack/app/scale_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/io/model/opensim_scale_setup.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

using namespace kinetrack;
using kinetrack::testing::ScratchDir;

constexpr double kDeg = 180.0 / M_PI;

app::ScaleOptions gaitOptions(const std::string& dir) {
  app::ScaleOptions o;
  o.setup = dir + "subject01_Setup_Scale.xml";
  o.model = dir + "gait2354_simbody_GENERIC.osim";  // the setup names gait2354_simbody.osim
  o.setup_outputs = false;
  return o;
}

/// Per body, the largest distance (m) between a marker of `a` and the same marker of `b`.
std::map<std::string, double> markerDifferences(const io::OpenSimModel& a, const io::OpenSimModel& b) {
  std::map<std::string, double> worst;
  for (const io::OpenSimMarker& mb : b.markers)
    for (const io::OpenSimMarker& ma : a.markers)
      if (ma.name == mb.name) worst[mb.body] = std::max(worst[mb.body], (ma.location - mb.location).norm());
  return worst;
}

TEST(AppScale, Gait2354IsOpenSimsSubject01) {
  KINETRACK_REQUIRE_SHARED(reference, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(static_ref, "data/opensim/gait2354_walk/subject01_static_output_REFERENCE.mot");
  const std::string dir = std::filesystem::path(reference).parent_path().string() + "/";
  ScratchDir scratch("kinetrack_scale_");
  app::ScaleOptions o = gaitOptions(dir);
  o.out = scratch.file("s01.osim");
  o.static_pose = scratch.file("static.mot");
  o.scale_file = scratch.file("scaleset.xml");
  o.scaled_only = scratch.file("scaled_only.osim");
  const app::ScaleResult r = app::runScale(o);
  // The ScaleSet file (OpenSim's output_scale_file) and the model before marker placement.
  const std::string scaleset = kinetrack::testing::readFile(o.scale_file);
  EXPECT_NE(scaleset.find("<scales>1.14724 1.14724 1.14724</scales>\n\t\t\t\t<segment>femur_r</segment>"),
            std::string::npos)
      << scaleset;
  EXPECT_EQ(io::readOpenSimModel(o.scaled_only).markers.size(), 39u);
  ASSERT_TRUE(std::filesystem::exists(o.out));
  ASSERT_TRUE(r.placement.has_value());
  EXPECT_EQ(r.placement->solve.frames.front().status, ik::Status::Converged);
  const io::OpenSimModel ours = io::parseOpenSimModel(r.osim, o.out);
  const io::OpenSimModel ref = io::readOpenSimModel(reference);
  EXPECT_EQ(ours.markers.size(), ref.markers.size());

  // Muscles: optimal fibre and tendon slack lengths × the path-length ratio. Measured: 5e-15
  // relative (OpenSim printed 17 digits; the paths of gait2354 wrap over nothing).
  const io::OpenSimMuscleSet mo = io::parseOpenSimMuscles(r.osim, o.out);
  const io::OpenSimMuscleSet mr = io::readOpenSimMuscles(reference);
  ASSERT_EQ(mo.muscles.size(), 54u);
  double worst_length = 0.0;
  for (std::size_t i = 0; i < mr.muscles.size(); ++i) {
    worst_length =
        std::max(worst_length, std::abs(mo.muscles[i].optimal_fiber_length / mr.muscles[i].optimal_fiber_length - 1));
    worst_length =
        std::max(worst_length, std::abs(mo.muscles[i].tendon_slack_length / mr.muscles[i].tendon_slack_length - 1));
  }
  EXPECT_LT(worst_length, 1e-12);
  EXPECT_EQ(r.muscle_ratios.size(), 54u);

  // The static pose as the setup states it (subtalar and mtp held at 0, lumbar extension at 0,
  // weight 1000) is not the reference's: OpenSim 3.x let the subtalar angles go (5.2° and 14.9°)
  // and held the lumbar extension only part way (−2.9°). Measured: 14.9° (subtalar_angle_l) and
  // up to 16.8 mm on the left leg's markers, 36.7 mm on Top.Head.
  const io::MotTable ref_pose = io::readMot(static_ref);
  auto refValue = [&](const std::string& name) {
    const auto it = std::find(ref_pose.columns.begin(), ref_pose.columns.end(), name);
    return ref_pose.values(0, it - ref_pose.columns.begin());
  };
  double worst_angle = 0.0;
  for (std::size_t c = 0; c < r.placement->coordinates.columns.size(); ++c) {
    const std::string& name = r.placement->coordinates.columns[c];
    if (name.rfind("pelvis_t", 0) == 0 && name != "pelvis_tilt") continue;
    worst_angle = std::max(worst_angle, std::abs(r.placement->coordinates.values(0, static_cast<Eigen::Index>(c)) -
                                                 refValue(name) * kDeg));
  }
  EXPECT_GT(worst_angle, 10.0);
  EXPECT_LT(worst_angle, 16.0);
}

TEST(AppScale, Gait2354WithoutTheCoordinateTasksIsTheReferencePose) {
  // The marker placer without the setup's coordinate tasks: the legs and the pelvis then find
  // OpenSim 3.x's pose, so the placed markers agree with the reference's; the lumbar extension
  // still differs (−6.3° here, −2.9° OpenSim), which moves the torso's markers.
  KINETRACK_REQUIRE_SHARED(reference, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(static_ref, "data/opensim/gait2354_walk/subject01_static_output_REFERENCE.mot");
  const std::string dir = std::filesystem::path(reference).parent_path().string() + "/";
  const app::ScaleResult scaled = app::runScale([&] {
    app::ScaleOptions o = gaitOptions(dir);
    return o;
  }());
  // Place again on the scaled model (markers as the GenericModelMaker gave them, scaled) with
  // the marker tasks only.
  const io::ScaleSetup setup = io::readScaleSetup(dir + "subject01_Setup_Scale.xml");
  io::IkSetup ik = setup.ikSetup();
  ik.coordinate_tasks.clear();
  io::OpenSimModelDocument doc = io::OpenSimModelDocument::read(dir + "gait2354_simbody_GENERIC.osim");
  doc.setMarkers(io::readOpenSimMarkerSet(dir + "gait2354_Scale_MarkerSet.xml"));
  std::vector<std::pair<std::string, Vector3d>> factors;
  for (const subject::BodyScaleFactors& b : scaled.factors.bodies) factors.emplace_back(b.body, b.factors);
  doc.scale(factors, setup.mass, true);
  const io::OpenSimModel model = io::parseOpenSimModel(doc.text(), "scaled.osim");
  const io::MarkerTrajectories trial = io::readMarkerTrial(dir + "subject01_static.trc", true);
  const track::MarkerPlacement p = track::placeOpenSimMarkers(model, &ik, trial, {.time_start = 1.0, .time_end = 1.01});

  const io::MotTable ref_pose = io::readMot(static_ref);
  double worst_leg = 0.0, lumbar = 0.0;
  for (std::size_t c = 0; c < p.coordinates.columns.size(); ++c) {
    const std::string& name = p.coordinates.columns[c];
    const auto it = std::find(ref_pose.columns.begin(), ref_pose.columns.end(), name);
    ASSERT_NE(it, ref_pose.columns.end()) << name;
    const double ref = ref_pose.values(0, it - ref_pose.columns.begin());
    const double ours = p.coordinates.values(0, static_cast<Eigen::Index>(c));
    if (name == "pelvis_tx" || name == "pelvis_ty" || name == "pelvis_tz") continue;
    if (name.rfind("lumbar", 0) == 0)
      lumbar = std::max(lumbar, std::abs(ours - ref * kDeg));
    else
      worst_leg = std::max(worst_leg, std::abs(ours - ref * kDeg));
  }
  // Measured: 0.23° (hip_flexion_l); lumbar 3.41°.
  EXPECT_LT(worst_leg, 0.3);
  EXPECT_LT(lumbar, 3.5);
  // Markers moved onto the trial at that pose, against OpenSim's. Measured: pelvis and legs
  // 0.47 mm (L.ASIS), torso 39.9 mm (Top.Head: the lumbar angle).
  doc.setMarkers([&] {
    std::vector<io::OpenSimMarker> moved;
    for (const track::PlacedMarker& m : p.markers)
      if (m.in_trial && !m.fixed) moved.push_back({m.name, m.body, m.after, false, {}, 0});
    return moved;
  }());
  const io::OpenSimModel placed = io::parseOpenSimModel(doc.text(), "placed.osim");
  const std::map<std::string, double> diff = markerDifferences(placed, io::readOpenSimModel(reference));
  for (const auto& [body, d] : diff)
    if (body != "torso") EXPECT_LT(d, 0.6e-3) << body;
  EXPECT_LT(diff.at("torso"), 45e-3);
}

TEST(AppScale, RajagopalScalesCleanly) {
  KINETRACK_REQUIRE_SHARED(model, "data/opensim/rajagopal_run_walk/Rajagopal2016_GENERIC.osim");
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/rajagopal_run_walk/scale_setup_walk.xml");
  KINETRACK_REQUIRE_SHARED(trial, "data/opensim/rajagopal_run_walk/static_walk_1.trc");
  KINETRACK_REQUIRE_SHARED(markerset, "data/opensim/rajagopal_run_walk/markerset_walk_preScale.xml");
  KINETRACK_REQUIRE_SHARED(setup_run, "data/opensim/rajagopal_run_walk/scale_setup_run.xml");
  KINETRACK_REQUIRE_SHARED(trial_run, "data/opensim/rajagopal_run_walk/static_run.trc");
  // The walk's setup has no measurements and no scales (its scaling_order is empty): the factors
  // stay 1 and only the marker placer runs, with the walk's marker set.
  app::ScaleOptions o;
  o.setup = setup;
  o.model = model;
  o.markers = trial;
  o.marker_set = markerset;
  o.setup_outputs = false;
  std::vector<std::string> warnings;
  app::Reporter reporter;
  reporter.warning = [&](const std::string& w) { warnings.push_back(w); };
  const app::ScaleResult walk = app::runScale(o, reporter);
  for (const subject::BodyScaleFactors& b : walk.factors.bodies) EXPECT_EQ(b.factors, Vector3d::Ones()) << b.body;
  ASSERT_TRUE(walk.placement.has_value());
  EXPECT_EQ(walk.placement->solve.frames.front().status, ik::Status::Converged);
  // static_walk_1 is a T-pose (elbows level with the shoulders, forearms down) of a subject
  // facing 90° away from the model: solved from the default pose, as OpenSim does, the shoulders
  // end at their coordinate limits (arm_rot_r −90°, arm_flex_l 90°), the arm markers far (L.Wrist
  // 149 mm) and the trunk twisted with them (L.Shoulder 137 mm); the second start (the pelvis
  // fitted first) and a start adding the markers by tree depth (tried, not kept) end no better.
  // Measured: RMS 74.6 mm. The markers the placer then moves on the arms and trunk are not to be
  // trusted.
  EXPECT_LT(walk.placement->rms_error, 0.08);
  double off_arms = 0.0;
  std::string worst = "-";
  for (const track::PlacedMarker& m : walk.placement->markers) {
    const bool arm = m.body.rfind("humerus", 0) == 0 || m.body.rfind("ulna", 0) == 0 ||
                     m.body.rfind("radius", 0) == 0 || m.body.rfind("hand", 0) == 0;
    if (!arm && std::isfinite(m.error) && m.error > off_arms) off_arms = m.error, worst = m.name;
  }
  std::printf("Rajagopal walk static: RMS %.1f mm, largest off the arms %.1f mm (%s)\n",
              walk.placement->rms_error * 1e3, off_arms * 1e3, worst.c_str());
  EXPECT_LT(off_arms, 0.15);
  // The run's setup measures 9 segments on the run's static trial with the model's own markers.
  o.setup = setup_run;
  o.markers = trial_run;
  o.marker_set.clear();
  const app::ScaleResult run = app::runScale(o, reporter);
  int scaled = 0;
  for (const subject::BodyScaleFactors& b : run.factors.bodies) {
    EXPECT_GE(b.factors.minCoeff(), 0.8) << b.body;
    EXPECT_LE(b.factors.maxCoeff(), 1.3) << b.body;
    scaled += b.factors != Vector3d::Ones();
  }
  EXPECT_GE(scaled, 15);
  EXPECT_NEAR(run.scaling.mass_after, 72.84, 1e-9);
  EXPECT_GT(run.scaling.wrap_objects, 10);
  EXPECT_EQ(run.muscle_ratios.size(), 80u);
  EXPECT_TRUE(run.notices.empty()) << run.notices.front();
  for (const auto& [name, ratio] : run.muscle_ratios) {
    EXPECT_GT(ratio, 0.8) << name;
    EXPECT_LT(ratio, 1.3) << name;
  }
  std::printf("Rajagopal run factors:");
  for (const subject::BodyScaleFactors& b : run.factors.bodies)
    std::printf(" %s %.4f/%.4f/%.4f", b.body.c_str(), b.factors.x(), b.factors.y(), b.factors.z());
  ASSERT_TRUE(run.placement.has_value());
  std::printf("\nRajagopal run static: RMS %.1f mm, largest %.1f mm (%s)\n", run.placement->rms_error * 1e3,
              run.placement->max_error * 1e3, run.placement->worst_marker.c_str());
  EXPECT_EQ(run.placement->solve.frames.front().status, ik::Status::Converged);
  // The scaled model reads back.
  EXPECT_NO_THROW(io::parseOpenSimModel(run.osim, "run.osim"));
  EXPECT_NO_THROW(io::parseOpenSimMuscles(run.osim, "run.osim"));
}

TEST(AppScale, MissingFilesAndOptions) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_Scale.xml");
  app::ScaleOptions o;
  EXPECT_THROW(app::runScale(o), InvalidArgument);  // no setup
  o.setup = "/nonexistent/Setup_Scale.xml";
  EXPECT_THROW(app::runScale(o), ParseError);
  o.setup = setup;  // names gait2354_simbody.osim, which is not there
  o.setup_outputs = false;
  try {
    app::runScale(o);
    ADD_FAILURE() << "no error";
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("gait2354_simbody.osim"), std::string::npos) << e.what();
  }
}

}  // namespace KINETRACK_UNITY_ID
