// The labeller (markers/labeller.hpp) on real and synthetic data: 100 % on clean shuffled real
// trials (gait2354 walk, Plug-in Gait on human66), the noisy / dropout / ghost / swap /
// occlusion scenarios (reduced), re-acquisition, one output row per frame with points never
// moved, bad input (empty frames, thousands of ghosts, NaN points, time going back, unknown
// markers), and no allocation per frame once warm.
#include "kinetrack/markers/labeller.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <Eigen/Geometry>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "kinetrack/markers/scenarios.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"
#include "tracking_allocations.hpp"

namespace kinetrack::markers {
namespace KINETRACK_UNITY_ID {

constexpr double kDeg = M_PI / 180.0;

// The Plug-in Gait subject's height (pycgm_Test.vsk); joints bounded by clinical limits, as
// `kinetrack markers label` builds human66 for labelling.
HumanModelOptions human66Options() {
  HumanModelOptions o;
  o.dimensions = HumanDimensions::fromHeight(1.679);
  o.clinical_limits = true;
  return o;
}

// The gait2354 walk: the scaled model's markers that the trial has, the trial in the model's
// world (Y up, m).
struct Gait {
  io::MarkerTrajectories trial;
  std::shared_ptr<const LabellerModel> model;
};

Gait loadGait(const std::string& osim_path, const std::string& trc_path) {
  Gait g;
  const io::OpenSimModel osim = io::readOpenSimModel(osim_path);
  g.trial = io::readTrc(trc_path, {.y_up = false});
  std::vector<std::string> names;
  for (const io::OpenSimMarker& mk : osim.markers)
    if (std::find(g.trial.names.begin(), g.trial.names.end(), mk.name) != g.trial.names.end()) names.push_back(mk.name);
  g.model = std::make_shared<const LabellerModel>(labellerModel(subject::markerModel(osim, names)));
  return g;
}

#define KINETRACK_GAIT(g)                                                                    \
  KINETRACK_REQUIRE_SHARED(osim_path_, "data/opensim/gait2354_walk/subject01_simbody.osim"); \
  KINETRACK_REQUIRE_SHARED(trc_path_, "data/opensim/gait2354_walk/subject01_walk1.trc");     \
  const Gait g = loadGait(osim_path_, trc_path_)

// The Plug-in Gait trial on human66 (clinical limits) calibrated on its static trial.
struct Pig {
  io::MarkerTrajectories trial;
  std::shared_ptr<const LabellerModel> model;
};

Pig loadPig(const std::string& static_path, const std::string& trial_path) {
  auto human = std::make_shared<const Model>(makeHuman66(human66Options()));
  const io::MarkerSet set = io::scaledMarkerSet(io::builtinMarkerSet("human66_plugin_gait"), 1.679);
  const subject::MarkerCalibration cal = subject::calibrateMarkers(human, set, io::readC3dMarkers(static_path));
  return {io::readC3dMarkers(trial_path), std::make_shared<const LabellerModel>(labellerModel(
                                              subject::markerModel(human, cal.markers, cal.poses.front())))};
}

#define KINETRACK_PIG(p)                                                      \
  KINETRACK_REQUIRE_SHARED(static_path_, "data/c3d/pycgm_Static_trial.c3d");  \
  KINETRACK_REQUIRE_SHARED(trial_path_, "data/c3d/pycgm_Movement_trial.c3d"); \
  const Pig p = loadPig(static_path_, trial_path_)

LabellingScore run(const Gait& g, const ScenarioOptions& o, LabelTrialResult* out = nullptr,
                   ScenarioTrial* scenario = nullptr) {
  ScenarioTrial s = makeScenario(g.trial, g.model->names(), o);
  LabelTrialResult r = labelTrial(g.model, s.cloud);
  EXPECT_EQ(r.frames.size(), static_cast<std::size_t>(g.trial.numFrames()));  // one row per frame
  const LabellingScore sc = scoreLabelling(s, r);
  if (out) *out = std::move(r);
  if (scenario) *scenario = std::move(s);
  return sc;
}

TEST(Labeller, GaitWalkCleanShuffledIsAllCorrect) {
  KINETRACK_GAIT(g);
  EXPECT_EQ(g.model->numMarkers(), 31);  // the model's markers the trial has
  LabelTrialResult r;
  ScenarioTrial s;
  const LabellingScore sc = run(g, {.seed = 1}, &r, &s);
  EXPECT_EQ(sc.correct, sc.present);
  EXPECT_EQ(sc.ghosts_labelled, 0);  // the trial's arm markers are not in the model: never labelled
  EXPECT_EQ(r.initialisations(), 1);
  EXPECT_EQ(r.lostFrames(), 0);
  // A label picks a point, it never moves it: the labelled trajectories are input points.
  const io::MarkerTrajectories t = r.trajectories(s.cloud);
  for (int f = 0; f < t.numFrames(); ++f)
    for (int i = 0; i < t.numMarkers(); ++i) {
      const int c =
          static_cast<int>(std::find(g.trial.names.begin(), g.trial.names.end(), t.names[static_cast<std::size_t>(i)]) -
                           g.trial.names.begin());
      if (g.trial.isValid(f, c)) {
        EXPECT_EQ(t.position(f, i), g.trial.position(f, c));
      }
    }
}

// The target case: 2 mm noise, 5 % dropouts, 3 ghosts per frame (2 within 3 cm of a
// marker, 1 uniform), over the experiment's five seeds (`experiment labelling --seeds 5`). Goal
// ≥ 99.5 % on the mean (Release: 99.84 / 99.12 / 99.95 / 99.89 / 99.20 %, mean 99.60 %). Seeds 112
// and 412 lost their first frame before the rigid fits also started ±init_vertical_offset along
// the vertical (the fit from the cloud's median locked onto points one marker spacing off): with
// the offset 0 they still do.
TEST(Labeller, GaitWalkNoiseDropoutsAndGhosts) {
  KINETRACK_GAIT(g);
  double sum = 0.0;
  for (std::uint64_t seed : {12, 112, 212, 312, 412}) {
    const ScenarioOptions o{
        .seed = seed, .noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2};
    LabelTrialResult r;
    const LabellingScore sc = run(g, o, &r);
    EXPECT_GE(sc.accuracy(), 0.985) << "seed " << seed << ": " << sc.correct << "/" << sc.present;
    EXPECT_LE(sc.ghosts_labelled, sc.ghost_points / 100) << "seed " << seed;
    EXPECT_NE(r.frames.front().state, TrackState::Lost) << "seed " << seed;
    RecordProperty("seed " + std::to_string(seed), std::to_string(sc.accuracy()));
    sum += sc.accuracy();
    if (seed == 112 || seed == 412) {
      LabellerOptions median_only;
      median_only.init_vertical_offset = 0.0;
      const ScenarioTrial s = makeScenario(g.trial, g.model->names(), o);
      EXPECT_EQ(labelTrial(g.model, s.cloud, median_only).frames.front().state, TrackState::Lost) << "seed " << seed;
    }
  }
  RecordProperty("mean", std::to_string(sum / 5.0));
  EXPECT_GE(sum / 5.0, 0.995);
}

// Beyond the goals: 3 mm, 20 % dropouts in runs up to 1 s, 5 ghosts (Release: 99.28 / 98.99 %).
TEST(Labeller, GaitWalkHeavyDropoutsAndFiveGhosts) {
  KINETRACK_GAIT(g);
  for (std::uint64_t seed : {1, 2}) {
    const LabellingScore sc =
        run(g, {.seed = seed, .noise_sigma = 0.003, .dropout_fraction = 0.2, .ghosts_uniform = 2, .ghosts_near = 3});
    EXPECT_GE(sc.accuracy(), 0.97) << "seed " << seed << ": " << sc.correct << "/" << sc.present;
    RecordProperty("seed " + std::to_string(seed), std::to_string(sc.accuracy()));
  }
}

TEST(Labeller, PlantedSwapsAreLabelledRight) {
  KINETRACK_GAIT(g);
  const LabellingScore sc = run(g, {.seed = 5, .swaps = 4});
  EXPECT_GT(sc.swapped_present, 0);
  EXPECT_EQ(sc.swapped_correct, sc.swapped_present);
}

TEST(Labeller, ReacquiresAfterFullOcclusion) {
  KINETRACK_GAIT(g);
  LabelTrialResult r;
  const LabellingScore sc = run(g, {.seed = 2, .occlusion_start = 0.8, .occlusion_duration = 1.0}, &r);
  ASSERT_GE(sc.reacquire_frames, 0);
  EXPECT_LE(sc.reacquire_frames, 3);
  EXPECT_GE(r.initialisations(), 2);  // the first frame and after the occlusion
  EXPECT_GT(r.lostFrames(), 0);       // the occluded frames: rows of gaps, held pose
  EXPECT_EQ(sc.correct, sc.present);
}

TEST(Labeller, SegmentOcclusionAndReacquisitionOfSingleMarkers) {
  KINETRACK_GAIT(g);
  // Hide the right shank's and foot's markers for 0.5 s (a whole segment), and one thigh marker
  // for 1 s: they come back with their labels.
  io::MarkerTrajectories t = g.trial;
  for (int f = 0; f < t.numFrames(); ++f)
    for (int c = 0; c < t.numMarkers(); ++c) {
      const std::string& n = t.names[static_cast<std::size_t>(c)];
      const double time = t.times[static_cast<std::size_t>(f)];
      const bool shank = n.rfind("R.Shank", 0) == 0 && time >= 0.5 && time < 1.0;
      const bool thigh = n == "L.Thigh.Front" && time >= 0.3 && time < 1.3;
      if (shank || thigh) t.positions[static_cast<std::size_t>(f * t.numMarkers() + c)] = Vector3d::Constant(NAN);
    }
  const Gait h{t, g.model};
  const LabellingScore sc = run(h, {.seed = 4});
  EXPECT_EQ(sc.correct, sc.present);
}

TEST(Labeller, PlugInGaitOnHuman66CleanShuffledIsAllCorrect) {
  KINETRACK_PIG(pig);
  const auto& lm = pig.model;
  const io::MarkerTrajectories& trial = pig.trial;
  const ScenarioTrial s = makeScenario(trial, lm->names(), {.seed = 9});
  const LabelTrialResult r = labelTrial(lm, s.cloud);
  const LabellingScore sc = scoreLabelling(s, r);
  EXPECT_EQ(sc.correct, sc.present);
  EXPECT_EQ(r.initialisations(), 1);
}

// Plug-in Gait on human66 (clinical joint limits): the trial starts on a stair step (right knee
// 97°) and noise or ghosts beside markers make limbs go wrong (a wrist bar swapped, an arm's labels
// shifted along its points). With the per-limb re-search and the swap check they come back;
// without, they stay wrong. Each case runs two seeds of the experiment's scenario and is judged
// on the mean, with margins both ways (Release, marker-space prediction: noise 3 mm 100 % with,
// 94.1 % without; 3 ghosts near 99.91 % with, 97.1 % without — 99.75 / 71.5 and 99.90 / 92.3 %
// with the joint-space prediction; the means are in the XML report): a few marker-frames that
// flip with floating-point rounding (Debug against Release) cannot change the verdict. Also: no
// allocation per frame while limbs are re-searched and pairs swapped.
TEST(Labeller, PlugInGaitNoisyLimbsAreSearchedAgain) {
  KINETRACK_PIG(pig);
  const auto& lm = pig.model;
  const io::MarkerTrajectories& trial = pig.trial;
  LabellerOptions off;
  off.limb_search = false;
  off.swap_check_distance = 0.0;
  struct Case {
    const char* name;
    ScenarioOptions o;
    std::uint64_t seeds[2];
  };
  for (const Case& c :
       {Case{"noise 3 mm", {.noise_sigma = 0.003}, {4, 104}}, Case{"3 ghosts near", {.ghosts_near = 3}, {8, 108}}}) {
    double with = 0.0, without = 0.0;
    long relabelled = 0;
    for (std::uint64_t seed : c.seeds) {
      ScenarioOptions o = c.o;
      o.seed = seed;
      const ScenarioTrial s = makeScenario(trial, lm->names(), o);
      const LabelTrialResult r = labelTrial(lm, s.cloud);
      const LabellingScore sc = scoreLabelling(s, r);
      with += sc.accuracy() / 2.0;
      for (const LabelledFrame& f : r.frames) relabelled += f.relabelled;
      without += scoreLabelling(s, labelTrial(lm, s.cloud, off)).accuracy() / 2.0;
      EXPECT_GE(sc.accuracy(), 0.98) << c.name << ", seed " << seed << ": " << sc.correct << "/" << sc.present;
    }
    // The measured means, in the XML report (--gtest_output=xml).
    RecordProperty(std::string(c.name) + " with", std::to_string(with));
    RecordProperty(std::string(c.name) + " without", std::to_string(without));
    EXPECT_GE(with, 0.99) << c.name;
    EXPECT_LE(without, 0.985) << c.name;
    EXPECT_GT(relabelled, 0) << c.name;
  }
  // No allocation while tracking, limb searches and swap checks included.
  const ScenarioTrial s =
      makeScenario(trial, lm->names(),
                   {.seed = 12, .noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2});
  Labeller labeller(lm);
  for (int f = 0; f < 10; ++f) (void)labeller.label(s.cloud.frame(f), s.cloud.times[static_cast<std::size_t>(f)]);
  long allocations = 0, relabelled = 0;
  for (int f = 10; f < s.cloud.numFrames(); ++f) {
    testing::AllocationCounter counter;
    const FrameLabels& L = labeller.label(s.cloud.frame(f), s.cloud.times[static_cast<std::size_t>(f)]);
    allocations += counter.count();
    relabelled += L.relabelled;
  }
  EXPECT_GT(relabelled, 0);
  EXPECT_EQ(allocations, 0);
}

// The target case on Plug-in Gait / human66: 2 mm noise, 5 % dropouts in runs, 3 ghosts a
// frame (2 within 3 cm of markers), the experiment's five seeds (Release: 99.93 / 99.90 / 99.88 /
// 99.93 / 99.91 %, mean 99.91 %). The bar is the 99.5 % on the mean, 99 % for each seed.
// Seed 212 is the failure mode the marker-space prediction fixed: with the pose extrapolated on the
// configuration manifold (PredictionSpace::Joints, the labeller before) the left arm's joints
// wander while LUPA is hidden, the extrapolated forearm lands 15–20 cm off, the hand markers fall
// out of their gates and a limb search takes the arm's labels shifted by one marker for about
// 100 frames (93.5 %).
TEST(Labeller, PlugInGaitNoiseDropoutsAndGhosts) {
  KINETRACK_PIG(pig);
  const auto& lm = pig.model;
  const io::MarkerTrajectories& trial = pig.trial;
  double sum = 0.0;
  for (std::uint64_t seed : {12, 112, 212, 312, 412}) {
    const ScenarioTrial s = makeScenario(
        trial, lm->names(),
        {.seed = seed, .noise_sigma = 0.002, .dropout_fraction = 0.05, .ghosts_uniform = 1, .ghosts_near = 2});
    const LabellingScore sc = scoreLabelling(s, labelTrial(lm, s.cloud));
    EXPECT_GE(sc.accuracy(), 0.99) << "seed " << seed << ": " << sc.correct << "/" << sc.present;
    EXPECT_LE(sc.ghosts_labelled, sc.ghost_points / 50) << "seed " << seed;
    RecordProperty("seed " + std::to_string(seed), std::to_string(sc.accuracy()));
    sum += sc.accuracy();
    if (seed == 212) {
      LabellerOptions joints;
      joints.prediction = PredictionSpace::Joints;
      const double before = scoreLabelling(s, labelTrial(lm, s.cloud, joints)).accuracy();
      RecordProperty("seed 212, joint-space prediction", std::to_string(before));
      EXPECT_LE(before, 0.985);  // 93.5 % before issue 40's checks at the solved pose, 97.8 % with them
    }
  }
  RecordProperty("mean", std::to_string(sum / 5.0));
  EXPECT_GE(sum / 5.0, 0.995);
}

// Synthetic: human48 with markers on every segment, a smooth motion walking off with a turn; the
// exact markers shuffled are labelled 100 % and the IK recovers the joint angles.
TEST(Labeller, SyntheticHuman48RecoversLabelsAndPose) {
  auto base = std::make_shared<const Model>(makeHuman48());
  io::MarkerSet set;
  set.name = "synthetic";
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.08, 0.08);
  for (int l = 1; l < base->numLinks(); ++l)
    for (int k = 0; k < 3; ++k)
      set.markers.push_back({base->linkName(LinkId(l)) + "_" + std::to_string(k), base->linkName(LinkId(l)),
                             randomVector3(u, rng), 1.0, false});
  auto lm = std::make_shared<const LabellerModel>(labellerModel(subject::markerModel(base, set)));
  const Model& m = *lm->model;
  Data d(m);
  io::PointCloud cloud;
  std::vector<Configuration> truth;
  std::vector<std::vector<int>> marker_at;  // per frame: marker → shuffled index
  for (int f = 0; f < 120; ++f) {
    const double t = f / 100.0;
    Configuration q(m);
    const double yaw = 2.0 + 0.6 * t;  // facing away from the reference, turning
    q.base_rotation = Eigen::AngleAxisd(yaw, Vector3d::UnitZ()).toRotationMatrix();
    q.base_position = Vector3d(0.8 * t, 1.0, 0.95);
    for (int j = 0; j < m.numJoints(); ++j)
      q.joints[j] =
          std::clamp(0.3 * std::sin(2.0 * t + j), m.lowerPositionLimits()[j] + 0.01, m.upperPositionLimits()[j] - 0.01);
    forwardKinematics(m, d, q);
    std::vector<Vector3d> pts;
    for (FrameId fr : lm->frame_ids) pts.push_back(updateFramePlacement(m, d, fr).p);
    std::vector<int> order(pts.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<Vector3d> shuffled(pts.size());
    std::vector<int> at(pts.size());
    for (std::size_t k = 0; k < order.size(); ++k)
      shuffled[k] = pts[static_cast<std::size_t>(order[k])],
      at[static_cast<std::size_t>(order[k])] = static_cast<int>(k);
    cloud.addFrame(f + 1, t, shuffled);
    truth.push_back(q);
    marker_at.push_back(at);
  }
  const LabelTrialResult r = labelTrial(lm, cloud);
  for (int f = 0; f < 120; ++f)
    for (int i = 0; i < lm->numMarkers(); ++i)
      ASSERT_EQ(r.point(f, i), marker_at[static_cast<std::size_t>(f)][static_cast<std::size_t>(i)]) << f << " " << i;
  double worst = 0.0;
  for (int f = 0; f < 120; ++f)
    worst = std::max(worst, (r.poses[static_cast<std::size_t>(f)].joints - truth[static_cast<std::size_t>(f)].joints)
                                .cwiseAbs()
                                .maxCoeff());
  EXPECT_LT(worst, 0.5 * kDeg);
}

TEST(Labeller, BadInputNeverCrashesNorDropsFrames) {
  KINETRACK_GAIT(g);
  Labeller labeller(g.model);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  // Position of each labeller marker in trial frame f (the truth), NaN when missing.
  auto truth = [&](int f, int i) {
    const auto it =
        std::find(g.trial.names.begin(), g.trial.names.end(), g.model->markers[static_cast<std::size_t>(i)].name);
    return g.trial.position(f, static_cast<int>(it - g.trial.names.begin()));
  };
  auto points = [&](int f) {
    std::vector<Vector3d> pts;
    for (int c = 0; c < g.trial.numMarkers(); ++c)
      if (g.trial.isValid(f, c)) pts.push_back(g.trial.position(f, c));
    return pts;
  };
  double t = 0.0;
  // Frames with zero points before the subject appears: rows of gaps.
  for (int k = 0; k < 3; ++k) {
    const FrameLabels& L = labeller.label({}, t += 1.0 / 60.0);
    EXPECT_EQ(L.state, TrackState::Lost);
    EXPECT_EQ(L.gaps, g.model->numMarkers());
  }
  // The subject appears; then thousands of ghosts and a NaN point every frame: labels stay right.
  for (int f = 0; f < 30; ++f) {
    std::vector<Vector3d> pts = points(f);
    if (f > 0) {
      for (int k = 0; k < 3000; ++k) pts.push_back(randomVector3(u, rng) + Vector3d(0.0, 1.0, 0.0));
      pts.emplace_back(NAN, 0.0, 0.0);
    }
    std::shuffle(pts.begin(), pts.end(), rng);
    const FrameLabels& L = labeller.label(pts, t += 1.0 / 60.0);
    EXPECT_EQ(L.invalid_points, f > 0 ? 1 : 0);
    EXPECT_NE(L.state, TrackState::Lost) << f;
    for (int i = 0; i < g.model->numMarkers(); ++i) {
      const int p = L.marker_point[static_cast<std::size_t>(i)];
      if (truth(f, i).allFinite()) {
        ASSERT_GE(p, 0) << f << " " << g.model->markers[static_cast<std::size_t>(i)].name;
        EXPECT_EQ(pts[static_cast<std::size_t>(p)], truth(f, i)) << f;
      }
    }
  }
  // A frame of nothing but ghosts: no crash, a row, (almost) nothing labelled.
  std::vector<Vector3d> ghosts;
  for (int k = 0; k < 2000; ++k) ghosts.push_back(randomVector3(u, rng) + Vector3d(0.0, 1.0, 0.0));
  const FrameLabels& G = labeller.label(ghosts, t += 1.0 / 60.0);
  EXPECT_EQ(static_cast<int>(G.marker_point.size()), g.model->numMarkers());
  EXPECT_THROW(labeller.label(points(40), t), InvalidArgument);  // time does not increase
  EXPECT_THROW(labeller.label(points(40), NAN), InvalidArgument);
  // A marker set naming a marker the model lacks.
  const io::OpenSimModel osim = io::readOpenSimModel(osim_path_);
  EXPECT_THROW((void)subject::markerModel(osim, {"R.ASIS", "L.ASIS", "No.Such.Marker"}), InvalidArgument);
  LabellerOptions bad;
  bad.gate_radius = -1.0;
  EXPECT_THROW(Labeller(g.model, bad), InvalidArgument);
}

TEST(Labeller, DoesNotAllocatePerFrameOnceWarm) {
  KINETRACK_GAIT(g);
  const ScenarioTrial s = makeScenario(g.trial, g.model->names(),
                                       {.seed = 3, .noise_sigma = 0.001, .dropout_fraction = 0.05, .ghosts_near = 2});
  Labeller labeller(g.model);
  const testing_support::TrackingAllocations t = testing_support::trackingAllocations(labeller, s);
  EXPECT_EQ(t.tracked, t.frames);
  EXPECT_EQ(t.allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::markers
