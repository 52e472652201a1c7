// Marker calibration: synthetic ground truth (markers generated from human66 at known poses with
// the built-in Plug-in Gait set; calibration from perturbed offsets recovers the offsets and the
// poses) and the pyCGM Vicon trials (static calibration, then marker IK of every frame of the
// movement trial under OpenSim's 2 cm RMS bound).
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/metrics/tracking.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/model/vsk.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::subject {
namespace KINETRACK_UNITY_ID {

// Markers that, with the joints, fix the placement of every link carrying a marker (three
// non-collinear points per link, its joint counting as one): they keep their true offsets.
const std::set<std::string> kAnchors = {"LASI", "RASI", "RPSI", "C7",   "CLAV", "STRN", "LFHD", "RFHD", "LBHD",
                                        "LSHO", "RSHO", "LUPA", "RUPA", "LELB", "RELB", "LWRA", "RWRA", "LWRB",
                                        "RWRB", "LFIN", "RFIN", "LTHI", "RTHI", "LKNE", "RKNE", "LTIB", "RTIB",
                                        "LANK", "RANK", "LHEE", "RHEE", "LTOE", "RTOE"};
// Links whose placement the markers determine (the hands turn about the wrist → FIN line).
const std::vector<std::string> kDeterminedLinks = {"Pelvis",        "T8",           "Head",         "RightUpperArm",
                                                   "RightForeArm",  "LeftUpperArm", "LeftForeArm",  "RightUpperLeg",
                                                   "RightLowerLeg", "RightFoot",    "LeftUpperLeg", "LeftLowerLeg",
                                                   "LeftFoot"};

// `frames` poses of human66: every joint uniform in ±amplitude (rad), base turned and moved.
std::vector<Configuration> randomPoses(const Model& model, int frames, double amplitude, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Configuration> out;
  for (int k = 0; k < frames; ++k) {
    Configuration q(model);
    for (int j = 0; j < model.numJoints(); ++j) q.joints[j] = amplitude * u(rng);
    const Vector3d r = randomVector3(u, rng);
    q.base_position = Vector3d(0.3 * r.x(), 0.3 * r.y(), 0.95 + 0.02 * r.z());
    q.base_rotation = so3::exp(randomVector3(u, rng).cwiseProduct(Vector3d(0.1, 0.1, 3.0)));
    out.push_back(q);
  }
  return out;
}

// The markers of `set` on `model` at each pose, as a trial at 100 Hz.
io::MarkerTrajectories syntheticTrial(const Model& model, const io::MarkerSet& set,
                                      const std::vector<Configuration>& poses) {
  const Model with = io::withMarkers(model, set);
  io::MarkerTrajectories t;
  t.source = "synthetic";
  t.names = set.names();
  t.data_rate = 100.0;
  Data d(with);
  for (std::size_t k = 0; k < poses.size(); ++k) {
    t.times.push_back(0.01 * static_cast<double>(k));
    framesForwardKinematics(with, d, poses[k]);
    for (const auto& m : set.markers) t.positions.push_back(d.frame[with.frameId(m.name).value].p);
  }
  return t;
}

// The truth, and the same set with the non-anchor markers moved by 2–3 cm in random directions
// and flagged free (the anchors fixed).
struct Perturbed {
  io::MarkerSet truth, start;
};
Perturbed perturbedSet(unsigned seed) {
  Perturbed p;
  p.truth = io::builtinMarkerSet("human66_plugin_gait");
  p.start = p.truth;
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  std::uniform_real_distribution<double> len(0.02, 0.03);
  for (auto& m : p.start.markers) {
    m.fixed = kAnchors.contains(m.name);
    if (!m.fixed) {  // the length drawn first, as g++ evaluated the former one-line product
      const double length = len(rng);
      const Vector3d direction = randomVector3(n, rng).normalized();
      m.offset += direction * length;
    }
  }
  return p;
}

void expectRecovered(const Model& model, const Perturbed& p, const MarkerCalibration& c,
                     const std::vector<Configuration>& truth_poses) {
  int free_markers = 0;
  for (std::size_t i = 0; i < p.truth.markers.size(); ++i) {
    const auto& m = c.placements[i];
    EXPECT_LT((m.offset - p.truth.markers[i].offset).norm(), 1e-4) << m.name;
    if (!m.fixed) {
      ++free_markers;
      EXPECT_GT(m.moved, 0.015) << m.name;
      EXPECT_GT(m.error_before, 1e-3) << m.name;
    }
    EXPECT_LT(m.error_after, 1e-4) << m.name;
  }
  EXPECT_EQ(free_markers, 6);
  EXPECT_LT(c.rms_after, 1e-5);
  ASSERT_EQ(c.poses.size(), truth_poses.size());
  Data a(model), b(model);
  for (std::size_t k = 0; k < truth_poses.size(); ++k) {
    forwardKinematics(model, a, c.poses[k]);
    forwardKinematics(model, b, truth_poses[k]);
    for (const auto& link : kDeterminedLinks) {
      const int l = model.linkId(link).value;
      EXPECT_LT((a.link[l].p - b.link[l].p).norm(), 1e-4) << link << " pose " << k;
      EXPECT_LT(so3::log(a.link[l].R.transpose() * b.link[l].R).norm(), 1e-3) << link << " pose " << k;
    }
  }
}

TEST(MarkerCalibration, StaticPoseRecoversPerturbedOffsets) {
  // One standing pose (joints within ±0.25 rad), repeated over 50 frames as in a static trial.
  auto model = std::make_shared<const Model>(makeHuman66());
  const Perturbed p = perturbedSet(7);
  const std::vector<Configuration> pose = randomPoses(*model, 1, 0.25, 11);
  const io::MarkerTrajectories trial = syntheticTrial(*model, p.truth, std::vector<Configuration>(50, pose[0]));
  MarkerCalibrationOptions o;
  o.max_rounds = 1000;
  o.tolerance = 1e-7;
  o.ik.accuracy = 1e-10;
  const MarkerCalibration c = calibrateMarkers(model, p.start, trial, o);
  EXPECT_EQ(c.frames_used, 50);
  EXPECT_LT(c.rounds, o.max_rounds);
  EXPECT_GT(c.rms_before, 3e-3);
  expectRecovered(*model, p, c, pose);
  // Anchors are never moved.
  for (const auto& m : c.placements) {
    if (m.fixed) {
      EXPECT_EQ(m.moved, 0.0) << m.name;
    }
  }
}

TEST(MarkerCalibration, SeveralPosesRecoverOffsetsAndPoses) {
  auto model = std::make_shared<const Model>(makeHuman66());
  const Perturbed p = perturbedSet(3);
  const std::vector<Configuration> poses = randomPoses(*model, 6, 0.4, 5);
  const io::MarkerTrajectories trial = syntheticTrial(*model, p.truth, poses);
  MarkerCalibrationOptions o;
  o.poses = 6;
  o.max_rounds = 1000;
  o.tolerance = 1e-7;
  o.ik.accuracy = 1e-10;
  const MarkerCalibration c = calibrateMarkers(model, p.start, trial, o);
  EXPECT_EQ(c.frames_used, 6);
  expectRecovered(*model, p, c, poses);
}

TEST(MarkerCalibration, RegularizationAndErrors) {
  auto model = std::make_shared<const Model>(makeHuman66());
  Perturbed p = perturbedSet(3);
  for (auto& m : p.start.markers) m.fixed = false;
  const io::MarkerTrajectories trial = syntheticTrial(*model, p.truth, randomPoses(*model, 1, 0.2, 2));
  MarkerCalibrationOptions o;
  o.regularization = 1.0;  // a marker moves half-way towards its measured place
  o.max_rounds = 1;
  const MarkerCalibration half = calibrateMarkers(model, p.start, trial, o);
  o.regularization = 0.0;
  const MarkerCalibration full = calibrateMarkers(model, p.start, trial, o);
  for (std::size_t i = 0; i < half.placements.size(); ++i)
    EXPECT_NEAR(half.placements[i].moved, 0.5 * full.placements[i].moved, 1e-9) << half.placements[i].name;
  EXPECT_LT(full.rms_after, 1e-9);  // every marker free: a perfect static fit

  o.poses = 0;
  EXPECT_THROW((void)calibrateMarkers(model, p.start, trial, o), InvalidArgument);
  o.poses = 1;
  o.time_start = 5.0;
  EXPECT_THROW((void)calibrateMarkers(model, p.start, trial, o), InvalidArgument);
  o.time_start = -1.0;
  io::MarkerSet bad = p.start;
  bad.markers[0].link = "Skull";
  EXPECT_THROW((void)calibrateMarkers(model, bad, trial, o), InvalidArgument);
}

// Per-marker RMS distance over the frames of a solved trial.
std::map<std::string, double> perMarkerRms(const track::MarkerIkSpec& spec, const io::MarkerTrajectories& trial,
                                           const track::MarkerTrialResult& r) {
  const Model& m = *spec.model;
  Data d(m);
  std::map<std::string, double> sum;
  std::map<std::string, int> n;
  for (std::size_t k = 0; k < r.configurations.size(); ++k) {
    framesForwardKinematics(m, d, r.configurations[k]);
    for (const auto& mk : spec.markers) {
      const auto col = std::find(trial.names.begin(), trial.names.end(), mk.name) - trial.names.begin();
      const Vector3d x = trial.position(static_cast<int>(k), static_cast<int>(col));
      if (!x.allFinite()) continue;
      sum[mk.name] += (d.frame[m.frameId(mk.frame).value].p - x).squaredNorm();
      ++n[mk.name];
    }
  }
  for (auto& [name, s] : sum) s = std::sqrt(s / n[name]);
  return sum;
}

TEST(MarkerCalibration, PlugInGaitStaticThenMovementTrialUnder2cm) {
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
  const MarkerCalibration cal = calibrateMarkers(model, set, still);
  EXPECT_EQ(cal.frames_used, 498);
  EXPECT_LT(cal.rms_after, 1e-6);  // every marker free: placed where measured
  std::vector<MarkerPlacement> moved = cal.placements;
  std::sort(moved.begin(), moved.end(), [](const auto& a, const auto& b) { return a.moved > b.moved; });
  std::cout << "static fit: " << cal.frames_used << " frames averaged, RMS with the initial offsets "
            << 1e3 * cal.rms_before << " mm, after placement " << 1e3 * cal.rms_after << " mm; largest moves:";
  for (int i = 0; i < 6; ++i) std::cout << " " << moved[i].name << " " << 1e3 * moved[i].moved << " mm";
  std::cout << "\n";

  const io::MarkerTrajectories walk = io::readC3dMarkers(movement_path);
  ASSERT_EQ(walk.numFrames(), 323);
  const track::MarkerIkSpec spec = track::markerIkSpec(markerModel(model, cal.markers, cal.poses[0]));
  ASSERT_EQ(spec.markers.size(), 39u);
  // human66's joints are continuous: its limits are ±infinity, so the bounds bind nothing.
  for (int j = 0; j < model->numJoints(); ++j) EXPECT_TRUE(std::isinf(spec.lower[j]) && std::isinf(spec.upper[j]));
  const track::MarkerTrialResult r = track::solveMarkerTrial(spec, walk);
  ASSERT_EQ(r.frames.size(), 323u);
  EXPECT_EQ(r.gaps(), 0);
  std::vector<double> rms, us;
  std::map<std::string, int> worst;
  for (const track::MarkerFrame& f : r.frames) {
    EXPECT_LT(f.rms_error, 0.02) << "t = " << f.time;
    EXPECT_EQ(f.markers_used, 39);
    rms.push_back(f.rms_error);
    us.push_back(f.solve_microseconds);
    ++worst[r.marker_names[static_cast<std::size_t>(f.worst_marker)]];
  }
  const auto per_marker = perMarkerRms(spec, walk, r);
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [name, e] : per_marker) ranked.emplace_back(e, name);
  std::sort(ranked.rbegin(), ranked.rend());
  const metrics::Summary srms = metrics::summarize(rms), sus = metrics::summarize(us);
  std::cout << "movement trial: " << r.frames.size() << " frames, marker RMS median " << 1e3 * srms.median
            << " mm, p95 " << 1e3 * srms.p95 << " mm, max " << 1e3 * srms.max << " mm; solve time per frame median "
            << sus.median << " us, p95 " << sus.p95 << " us, max " << sus.max
            << " us\nworst markers (RMS over the trial):";
  for (int i = 0; i < 6; ++i)
    std::cout << " " << ranked[static_cast<std::size_t>(i)].second << " "
              << 1e3 * ranked[static_cast<std::size_t>(i)].first << " mm";
  std::cout << "\nworst marker of a frame:";
  for (const auto& [name, count] : worst) std::cout << " " << name << " ×" << count;
  std::cout << "\n";
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::subject
