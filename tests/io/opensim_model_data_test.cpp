// OpenSim .osim reader on the shared real models (../shared/data/opensim): all five load with the
// right coordinates, bodies, masses and markers; the arm26 model in formats 1.9, 3.0 and 4.0 gives
// the same kinematics; gait2354 at OpenSim's own IK solution puts its markers on the measured ones
// (a strong check of knee splines, offsets and axis orders); frame Jacobians match finite
// differences; a Scale tool's marker-set file replaces a model's markers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/data.hpp"
#include "testing/finite_diff.hpp"
#include "testing/format.hpp"
#include "testing/mutations.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using testing::sci;

constexpr const char* kGait = "data/opensim/gait2354_walk/subject01_simbody.osim";
constexpr const char* kRajagopal = "data/opensim/opensense_imu_walk/Rajagopal2015_opensense.osim";
constexpr const char* kArm19 = "data/opensim/arm26_inverse_dynamics/arm26.osim";
constexpr const char* kArm30 = "data/opensim/arm26_static_optimization/arm26.osim";
constexpr const char* kArm40 = "data/opensim/arm26_static_optimization/arm26_v40_opensim-models.osim";

// Sum of the <mass> values inside <BodySet> of an .osim file, read as plain text.
double massInFile(const std::string& path) {
  const std::string text = testing::slurp(path);
  const std::size_t end = text.find("</BodySet>");
  double sum = 0.0;
  for (std::size_t at = text.find("<BodySet"); (at = text.find("<mass>", at)) < end; at += 6)
    sum += std::stod(text.substr(at + 6, text.find("</mass>", at) - at - 6));
  return sum;
}

bool noticed(const OpenSimModel& m, const std::string& s) {
  return std::any_of(m.notices.begin(), m.notices.end(),
                     [&](const std::string& n) { return n.find(s) != std::string::npos; });
}

const Transform& pose(const Model& model, const Data& data, const std::string& frame) {
  return data.frame[static_cast<std::size_t>(model.frameId(frame).value)];
}

TEST(OpenSimModelData, Gait2354) {
  KINETRACK_REQUIRE_SHARED(path, kGait);
  const OpenSimModel m = readOpenSimModel(path);
  const Model& model = *m.model;
  EXPECT_EQ(m.version, 40000);
  EXPECT_EQ(m.bodies.size(), 12u);
  EXPECT_EQ(m.markers.size(), 39u);
  EXPECT_EQ(model.numJoints(), 23);
  EXPECT_NEAR(m.gravity.y(), -9.80665, 1e-12);
  // The coordinates in OpenSim's order are the columns of OpenSim's own IK output.
  KINETRACK_REQUIRE_SHARED(mot, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  const MotTable ik = readMot(mot);
  std::vector<std::string> names;
  for (const OpenSimCoordinate& c : m.coordinates) names.push_back(c.name);
  EXPECT_EQ(names, ik.columns);
  const OpenSimCoordinate* knee = m.findCoordinate("knee_angle_r");
  ASSERT_NE(knee, nullptr);
  EXPECT_DOUBLE_EQ(knee->range_min, -2.0943950999999998);
  EXPECT_DOUBLE_EQ(knee->range_max, 0.17453293);
  EXPECT_TRUE(knee->rotational);
  EXPECT_FALSE(knee->clamped);
  EXPECT_FALSE(m.findCoordinate("pelvis_ty")->rotational);
  EXPECT_DOUBLE_EQ(m.findCoordinate("pelvis_ty")->default_value, 1.015);
  EXPECT_DOUBLE_EQ(m.defaultConfiguration().joints[model.jointId("pelvis_ty").value], 1.015);
  // The knee translates along splines of its angle: one Custom joint; the rest are built-in types.
  EXPECT_EQ(model.jointType(model.jointId("knee_angle_r")), JointType::Custom);
  EXPECT_EQ(model.jointMotion(model.jointId("knee_angle_r")).translations.size(), 2u);
  EXPECT_EQ(model.jointType(model.jointId("hip_flexion_r")), JointType::Revolute);
  EXPECT_EQ(model.jointType(model.jointId("pelvis_tx")), JointType::Prismatic);
  EXPECT_EQ(model.jointType(model.jointId("ankle_angle_r")), JointType::Revolute);
  EXPECT_NEAR(model.totalMass(), massInFile(path), 1e-9);
  EXPECT_NEAR(model.totalMass(), 72.6, 0.05);
  for (const std::string& b : m.bodies) EXPECT_TRUE(model.findFrame(b).has_value()) << b;
  EXPECT_TRUE(noticed(m, "ForceSet with 54 elements"));
  EXPECT_TRUE(m.couplers.empty());
}

TEST(OpenSimModelData, Rajagopal) {
  KINETRACK_REQUIRE_SHARED(path, kRajagopal);
  const OpenSimModel m = readOpenSimModel(path);
  const Model& model = *m.model;
  EXPECT_EQ(m.version, 40000);
  EXPECT_EQ(m.bodies.size(), 22u);
  EXPECT_EQ(m.coordinates.size(), 39u);
  EXPECT_EQ(model.numJoints(), 39);
  EXPECT_TRUE(m.markers.empty());
  EXPECT_NEAR(model.totalMass(), massInFile(path), 1e-9);
  // Walker knee: rotations by splines of the knee angle plus translations; the patella follows
  // the knee through a coupler, which is also a mimic of the model.
  EXPECT_EQ(model.jointType(model.jointId("knee_angle_r")), JointType::Custom);
  EXPECT_EQ(model.jointMotion(model.jointId("knee_angle_r")).rotations.size(), 3u);
  EXPECT_EQ(model.jointType(model.jointId("knee_angle_r_beta")), JointType::Custom);
  EXPECT_EQ(model.jointType(model.jointId("ankle_angle_r")), JointType::Revolute);  // PinJoint
  EXPECT_EQ(model.jointType(model.jointId("wrist_dev_l")), JointType::Revolute);    // UniversalJoint
  EXPECT_EQ(model.frameKind(model.frameId("tibia_r")), FrameKind::User);            // offset frames not at the body
  EXPECT_EQ(model.frameKind(model.frameId("pelvis")), FrameKind::Link);
  ASSERT_EQ(m.couplers.size(), 2u);
  EXPECT_EQ(m.couplers[0].dependent, "knee_angle_r_beta");
  EXPECT_EQ(m.couplers[0].independent, "knee_angle_r");
  EXPECT_TRUE(m.couplers[0].enforced);
  EXPECT_EQ(model.mimics().size(), 2u);
  EXPECT_TRUE(m.findCoordinate("subtalar_angle_r")->locked);
  EXPECT_TRUE(m.findCoordinate("knee_angle_r")->clamped);
  EXPECT_DOUBLE_EQ(m.findCoordinate("knee_angle_r_beta")->range_max, 99999.899999999994);
  EXPECT_TRUE(noticed(m, "wrap object"));
}

TEST(OpenSimModelData, Arm26InFormats19And30And40) {
  KINETRACK_REQUIRE_SHARED(p19, kArm19);
  KINETRACK_REQUIRE_SHARED(p30, kArm30);
  KINETRACK_REQUIRE_SHARED(p40, kArm40);
  const OpenSimModel a19 = readOpenSimModel(p19), a30 = readOpenSimModel(p30), a40 = readOpenSimModel(p40);
  EXPECT_EQ(a19.version, 10901);
  EXPECT_EQ(a30.version, 30000);
  EXPECT_EQ(a40.version, 40000);
  for (const OpenSimModel* m : {&a19, &a30, &a40}) {
    ASSERT_EQ(m->coordinates.size(), 2u);
    EXPECT_EQ(m->coordinates[0].name, "r_shoulder_elev");
    EXPECT_EQ(m->coordinates[1].name, "r_elbow_flex");
    EXPECT_DOUBLE_EQ(m->coordinates[0].range_min, -1.57079633);
    EXPECT_DOUBLE_EQ(m->coordinates[1].range_max, 2.26892803);
    EXPECT_EQ(m->markers.size(), 3u);
    EXPECT_NEAR(m->model->totalMass(), 1.864572 + 1.534315, 1e-12);
    EXPECT_TRUE(noticed(*m, "ForceSet with 6 elements"));
  }
  EXPECT_TRUE(a19.coordinates[0].clamped);
  EXPECT_FALSE(a30.coordinates[0].clamped);
  EXPECT_EQ(a40.bodies.size(), 3u);  // the welded base
  EXPECT_EQ(a40.model->frameKind(a40.model->frameId("base")), FrameKind::Fixed);

  // Same kinematics at random coordinates; the 4.0 file sits on a base welded at y = +0.8 m.
  std::mt19937_64 rng(26);
  std::uniform_real_distribution<double> elev(-1.5, 3.1), elbow(0.0, 2.2);
  Data d19(*a19.model), d30(*a30.model), d40(*a40.model);
  const Vector3d base(0, 0.8, 0);
  const std::vector<std::string> frames = {"r_humerus", "r_ulna_radius_hand", "r_acromion", "r_humerus_epicondyle",
                                           "r_radius_styloid"};
  for (int k = 0; k < 50; ++k) {
    const double q[2] = {elev(rng), elbow(rng)};
    for (auto [m, d] : {std::pair{&a19, &d19}, std::pair{&a30, &d30}, std::pair{&a40, &d40}}) {
      Configuration c(*m->model);
      for (int i = 0; i < 2; ++i) c.joints[m->coordinates[static_cast<std::size_t>(i)].joint.value] = q[i];
      framesForwardKinematics(*m->model, *d, c);
    }
    for (const std::string& f : frames) {
      EXPECT_LT((pose(*a19.model, d19, f).p - pose(*a30.model, d30, f).p).norm(), 1e-9) << f;
      EXPECT_LT((pose(*a40.model, d40, f).p - base - pose(*a30.model, d30, f).p).norm(), 1e-9) << f;
      EXPECT_LT((pose(*a19.model, d19, f).R - pose(*a40.model, d40, f).R).norm(), 1e-8) << f;
    }
  }
}

TEST(OpenSimModelData, Arm26MarkersMatchTheMotFileColumns) {
  // arm26_InverseKinematics.mot holds, beside the two angles (degrees), the three markers' ground
  // positions in the 1.9/3.0 model's frame: measured-like positions with ~1 mm of noise (the
  // acromion, fixed to the ground in the model, wanders by the same amount along x, y and z).
  KINETRACK_REQUIRE_SHARED(p19, kArm19);
  KINETRACK_REQUIRE_SHARED(mot, "data/opensim/arm26_inverse_dynamics/arm26_InverseKinematics.mot");
  const OpenSimModel m = readOpenSimModel(p19);
  const MotTable t = readMot(mot);
  auto column = [&](const std::string& name) {
    const auto it = std::find(t.columns.begin(), t.columns.end(), name);
    EXPECT_NE(it, t.columns.end()) << name;
    return static_cast<Eigen::Index>(it - t.columns.begin());
  };
  Data data(*m.model);
  double worst = 0.0, sum = 0.0;
  int n = 0;
  for (Eigen::Index r = 0; r < t.values.rows(); ++r) {
    Configuration q(*m.model);
    for (const OpenSimCoordinate& c : m.coordinates) q.joints[c.joint.value] = t.values(r, column(c.name)) * M_PI / 180;
    framesForwardKinematics(*m.model, data, q);
    for (const OpenSimMarker& mk : m.markers) {
      const Vector3d expected(t.values(r, column(mk.name + "_tx")), t.values(r, column(mk.name + "_ty")),
                              t.values(r, column(mk.name + "_tz")));
      const double d = (pose(*m.model, data, mk.name).p - expected).norm();
      worst = std::max(worst, d);
      sum += d * d;
      ++n;
    }
  }
  const double rms = std::sqrt(sum / n);
  RecordProperty("rms_marker_error_mm", sci(1e3 * rms));
  RecordProperty("worst_marker_error_mm", sci(1e3 * worst));
  EXPECT_LT(rms, 1.5e-3);
  EXPECT_LT(worst, 3e-3);
}

TEST(OpenSimModelData, Gait2354StaticPoseMatchesOpenSimsOwnMarkerPositions) {
  // The Scale tool's static-pose output holds OpenSim's coordinates (rad, m) and the positions it
  // computed for every model marker (8 decimals): an exact oracle of our forward kinematics.
  KINETRACK_REQUIRE_SHARED(path, kGait);
  KINETRACK_REQUIRE_SHARED(mot, "data/opensim/gait2354_walk/subject01_static_output_REFERENCE.mot");
  const OpenSimModel m = readOpenSimModel(path);
  const MotTable t = readMot(mot);
  ASSERT_FALSE(t.in_degrees);
  auto column = [&](const std::string& name) {
    const auto it = std::find(t.columns.begin(), t.columns.end(), name);
    EXPECT_NE(it, t.columns.end()) << name;
    return static_cast<Eigen::Index>(it - t.columns.begin());
  };
  Configuration q = m.defaultConfiguration();
  for (const OpenSimCoordinate& c : m.coordinates) q.joints[c.joint.value] = t.values(0, column(c.name));
  Data data(*m.model);
  framesForwardKinematics(*m.model, data, q);
  double worst = 0.0;
  for (const OpenSimMarker& mk : m.markers) {
    const Eigen::Index k = column(mk.name + "_tx");
    const Vector3d expected(t.values(0, k), t.values(0, k + 1), t.values(0, k + 2));
    worst = std::max(worst, (pose(*m.model, data, mk.name).p - expected).norm());
  }
  RecordProperty("worst_marker_error_m", sci(worst));
  EXPECT_LT(worst, 1e-6);  // 0.6 µm: the 8-decimal printing of the coordinates
}

// ---- gait2354 at OpenSim's IK solution against the measured markers -------------------------------

// Marker weights of an IK setup file (IKMarkerTask name, apply, weight), read as plain text.
std::map<std::string, double> markerWeights(const std::string& path) {
  std::map<std::string, double> w;
  const std::string text = testing::slurp(path);
  const std::string open = "<IKMarkerTask name=\"";
  for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
    const std::size_t b = at + open.size();
    const std::string name = text.substr(b, text.find('"', b) - b);
    const std::string block = text.substr(at, text.find("</IKMarkerTask>", at) - at);
    const std::size_t wb = block.find("<weight>");
    const bool apply = block.find("<apply>true</apply>") != std::string::npos;
    w[name] = apply && wb != std::string::npos ? std::stod(block.substr(wb + 8)) : 0.0;
  }
  return w;
}

// Per-frame RMS distances (m) between the model's markers at the coordinates of an IK result and
// the measured markers, over the markers weighted > 0 in the IK setup: plain, weighted by the IK
// weights (what OpenSim minimises), and over the lower-limb markers only.
struct IkFit {
  std::vector<double> all, weighted, legs;
  double worst_marker = 0.0;
  int markers = 0;
};

bool legMarker(const std::string& name) {
  for (const char* part : {"Thigh", "Knee", "Shank", "Ankle", "Heel", "Midfoot", "Toe"})
    if (name.find(part) != std::string::npos) return true;
  return false;
}

IkFit fitOf(const OpenSimModel& m, const MotTable& ik, const MarkerTrajectories& trc,
            const std::map<std::string, double>& weights) {
  const Model& model = *m.model;
  Data data(model);
  struct Used {
    FrameId frame;
    int column;
    double weight;
    bool leg;
  };
  std::vector<Used> used;
  for (const OpenSimMarker& mk : m.markers) {
    const auto w = weights.find(mk.name);
    const auto it = std::find(trc.names.begin(), trc.names.end(), mk.name);
    if (w != weights.end() && w->second > 0.0 && it != trc.names.end())
      used.push_back({mk.frame, static_cast<int>(it - trc.names.begin()), w->second, legMarker(mk.name)});
  }
  IkFit fit;
  fit.markers = static_cast<int>(used.size());
  for (std::size_t r = 0; r < ik.times.size(); ++r) {
    Configuration q = m.defaultConfiguration();
    for (std::size_t c = 0; c < ik.columns.size(); ++c) {
      const OpenSimCoordinate* coordinate = m.findCoordinate(ik.columns[c]);
      if (!coordinate) continue;
      const double v = ik.values(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c));
      q.joints[coordinate->joint.value] = ik.in_degrees && coordinate->rotational ? v * M_PI / 180 : v;
    }
    int frame = -1;
    for (int f = 0; f < trc.numFrames(); ++f)
      if (std::abs(trc.times[static_cast<std::size_t>(f)] - ik.times[r]) < 0.5 / trc.data_rate) frame = f;
    EXPECT_GE(frame, 0) << "no TRC frame at t = " << ik.times[r];
    if (frame < 0) continue;
    framesForwardKinematics(model, data, q);
    double sum = 0.0, wsum = 0.0, w = 0.0, lsum = 0.0;
    int n = 0, nl = 0;
    for (const Used& u : used) {
      if (!trc.isValid(frame, u.column)) continue;
      const double d = (data.frame[static_cast<std::size_t>(u.frame.value)].p - trc.position(frame, u.column)).norm();
      fit.worst_marker = std::max(fit.worst_marker, d);
      sum += d * d;
      wsum += u.weight * d * d;
      w += u.weight;
      ++n;
      if (u.leg) {
        lsum += d * d;
        ++nl;
      }
    }
    if (n == 0 || nl == 0) continue;
    fit.all.push_back(std::sqrt(sum / n));
    fit.weighted.push_back(std::sqrt(wsum / w));
    fit.legs.push_back(std::sqrt(lsum / nl));
  }
  return fit;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}
double maximum(const std::vector<double>& v) { return v.empty() ? NAN : *std::max_element(v.begin(), v.end()); }

TEST(OpenSimModelData, Gait2354AtOpenSimsIkSolutionFitsTheMeasuredMarkers) {
  // OpenSim's own IK result for the walk, put through our forward kinematics, against the measured
  // markers. The residual is OpenSim's fit, not ours: the torso markers sit 2–8 cm off (the
  // acromia most), the lower-limb markers ~1 cm. The bounds are the figures measured when this
  // test was written plus ~15 %: a mis-modelled knee, offset or axis order moves them (swapping
  // the right hip's first and third rotations raises the maximum RMS from 26 to 36 mm).
  KINETRACK_REQUIRE_SHARED(path, kGait);
  KINETRACK_REQUIRE_SHARED(trc_path, "data/opensim/gait2354_walk/subject01_walk1.trc");
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  KINETRACK_REQUIRE_SHARED(reference, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  KINETRACK_REQUIRE_SHARED(older, "data/opensim/gait2354_walk/subject01_walk1_ik_OLDER.mot");
  const OpenSimModel m = readOpenSimModel(path);
  const MarkerTrajectories trc = readTrc(trc_path, TrcOptions{.y_up = false});  // OpenSim's Y-up frame, m
  const std::map<std::string, double> weights = markerWeights(setup);
  for (const auto& [file, label] : {std::pair{reference, "REFERENCE"}, std::pair{older, "OLDER"}}) {
    const MotTable ik = readMot(file);
    ASSERT_EQ(ik.times.size(), 73u);
    const IkFit fit = fitOf(m, ik, trc, weights);
    ASSERT_EQ(fit.all.size(), 73u) << label;
    EXPECT_EQ(fit.markers, 31) << label;
    std::printf(
        "gait2354 %s IK, per-frame RMS over %d markers: median %.1f mm, max %.1f mm; IK-weighted: "
        "median %.1f, max %.1f; lower limbs: median %.1f, max %.1f; worst single marker %.1f mm\n",
        label, fit.markers, 1e3 * median(fit.all), 1e3 * maximum(fit.all), 1e3 * median(fit.weighted),
        1e3 * maximum(fit.weighted), 1e3 * median(fit.legs), 1e3 * maximum(fit.legs), 1e3 * fit.worst_marker);
    RecordProperty(std::string(label) + "_median_rms_mm", sci(1e3 * median(fit.all)));
    RecordProperty(std::string(label) + "_max_rms_mm", sci(1e3 * maximum(fit.all)));
    EXPECT_LT(median(fit.all), 0.025) << label;
    EXPECT_LT(maximum(fit.all), 0.030) << label;
    EXPECT_LT(median(fit.weighted), 0.013) << label;
    EXPECT_LT(maximum(fit.weighted), 0.018) << label;
    EXPECT_LT(median(fit.legs), 0.014) << label;
    EXPECT_LT(maximum(fit.legs), 0.022) << label;
    EXPECT_LT(fit.worst_marker, 0.10) << label;
  }
}

// ---- Jacobians ----------------------------------------------------------------------------------

void checkJacobians(const Model& model, int configs, std::uint64_t seed) {
  Data data(model);
  std::mt19937_64 rng(seed);
  const std::vector<FrameId> frames = testing::allFrames(model);
  std::vector<Matrix6Xd> fd;
  Matrix6Xd J(6, model.nv());
  double worst = 0.0;
  for (int k = 0; k < configs; ++k) {
    const Configuration q = randomConfiguration(model, rng);
    framesForwardKinematics(model, data, q);
    testing::finiteDifferenceFrameJacobians(model, q, frames, fd);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      frameJacobian(model, data, frames[i], J);
      const double err = (J - fd[i]).cwiseAbs().maxCoeff() / std::max(1.0, J.cwiseAbs().maxCoeff());
      worst = std::max(worst, err);
      EXPECT_LT(err, 1e-6) << model.name() << " frame " << model.frameName(frames[i]) << " config " << k;
    }
  }
  ::testing::Test::RecordProperty(model.name() + "_worst_relative_error", sci(worst));
}

#ifdef NDEBUG
constexpr int kConfigs = 40;
#else
constexpr int kConfigs = 3;
#endif

TEST(OpenSimModelData, FrameJacobiansMatchFiniteDifferences) {
  KINETRACK_REQUIRE_SHARED(gait, kGait);
  KINETRACK_REQUIRE_SHARED(rajagopal, kRajagopal);
  checkJacobians(*readOpenSimModel(gait).model, kConfigs, 1);
  checkJacobians(*readOpenSimModel(rajagopal).model, kConfigs, 2);
}

// ---- marker sets ----------------------------------------------------------------------------------

TEST(OpenSimModelData, ScaleMarkerSetReplacesTheModelsMarkers) {
  KINETRACK_REQUIRE_SHARED(path, kGait);
  KINETRACK_REQUIRE_SHARED(set_path, "data/opensim/gait2354_walk/gait2354_Scale_MarkerSet.xml");
  const std::vector<OpenSimMarker> markers = readOpenSimMarkerSet(set_path);
  ASSERT_EQ(markers.size(), 39u);
  EXPECT_EQ(markers[0].name, "Sternum");
  EXPECT_EQ(markers[0].body, "torso");
  EXPECT_EQ(markers[0].location, Vector3d(0.07, 0.3, 0.0));
  EXPECT_GT(markers[0].line, 1);
  EXPECT_FALSE(markers[0].frame.valid());
  // The model's own MarkerSet reads the same way (4.0 paths give the body).
  const std::vector<OpenSimMarker> own = readOpenSimMarkerSet(path);
  ASSERT_EQ(own.size(), 39u);
  EXPECT_EQ(own[0].body, "torso");

  OpenSimReadOptions options;
  options.markers = markers;
  options.markers_source = set_path;
  const OpenSimModel m = readOpenSimModel(path, options);
  ASSERT_EQ(m.markers.size(), 39u);
  Data data(*m.model);
  framesForwardKinematics(*m.model, data, m.defaultConfiguration());
  const Transform& torso = pose(*m.model, data, "torso");
  EXPECT_LT((pose(*m.model, data, "Sternum").p - (torso.p + torso.R * Vector3d(0.07, 0.3, 0.0))).norm(), 1e-14);
  EXPECT_EQ(m.markers[0].frame, m.model->frameId("Sternum"));

  // A marker on a body the model lacks: the error names the marker file and the marker's line.
  std::vector<OpenSimMarker> bad = markers;
  bad[5].body = "forearm";
  options.markers = bad;
  try {
    readOpenSimModel(path, options);
    ADD_FAILURE() << "no ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), set_path);
    EXPECT_EQ(e.line(), markers[5].line);
    EXPECT_NE(std::string(e.what()).find("body 'forearm' is not a body of the model"), std::string::npos) << e.what();
  }
  EXPECT_THROW(readOpenSimMarkerSet("/nonexistent/markers.xml"), ParseError);
  EXPECT_THROW(parseOpenSimMarkerSet("<OpenSimDocument Version=\"40000\"/>", "m.xml"), ParseError);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
