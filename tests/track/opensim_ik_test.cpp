// OpenSim's IK on kinetrack, on OpenSim's own example (gait2354 walk, subject01): the Setup_IK.xml
// problem solved with ik::MarkerIk reproduces OpenSim's IK result (OutputReference .mot) to well
// inside the bounds (0.5° RMS per rotation, 2 mm per pelvis translation), and the
// objective we reach is never worse than OpenSim's own solution evaluated through our forward
// kinematics (the like-for-like figure); plus the binding's errors.
#include "kinetrack/track/opensim_ik.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kDeg = 180.0 / M_PI;

struct Gait {
  io::OpenSimModel model;
  io::IkSetup setup;
  io::MarkerTrajectories trial;
  io::MotTable reference;
};

// Weighted objective Σ w‖m − m̂‖² and unweighted Σ‖m − m̂‖² of the spec's markers at q, frame k.
void objectiveAt(const track::MarkerIkSpec& spec, const io::MarkerTrajectories& trial, int k, const Configuration& q,
                 double& weighted, double& unweighted) {
  const Model& m = *spec.model;
  Data d(m);
  forwardKinematics(m, d, q);
  weighted = unweighted = 0.0;
  for (const auto& mk : spec.markers) {
    int c = 0;
    while (trial.names[static_cast<std::size_t>(c)] != mk.name) ++c;
    const Vector3d e = frameOrigin(m, d, m.frameId(mk.frame)) - trial.position(k, c);
    weighted += mk.weight * e.squaredNorm();
    unweighted += e.squaredNorm();
  }
}

TEST(OpenSimIk, Gait2354WalkMatchesOpenSimsIkResult) {
  KINETRACK_REQUIRE_SHARED(setup_path, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  KINETRACK_REQUIRE_SHARED(ref_path, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  const io::IkSetup setup = io::readIkSetup(setup_path);
  const io::OpenSimModel model = io::readOpenSimModel(setup.resolve(setup.model_file));
  const io::MarkerTrajectories trial = io::readTrc(setup.resolve(setup.marker_file), {.y_up = false});
  const io::MotTable ref = io::readMot(ref_path);
  const track::OpenSimIkBinding b = track::bindOpenSimIk(model, &setup, trial);
  EXPECT_TRUE(b.warnings.empty());
  EXPECT_EQ(b.spec.markers.size(), 31u);
  EXPECT_EQ(b.spec.coordinate_tasks.size(), 4u);  // subtalar and mtp held at 0 (w = 1000)
  track::MarkerTrialOptions opt;
  opt.time_start = setup.time_start;
  opt.time_end = setup.time_end;
  const track::MarkerTrialResult r = track::solveMarkerTrial(b.spec, trial, opt);
  ASSERT_EQ(r.frames.size(), ref.times.size());
  const io::MotTable ours = track::openSimCoordinates(model, r);
  ASSERT_EQ(ours.columns, ref.columns);
  for (std::size_t k = 0; k < ref.times.size(); ++k) {
    EXPECT_NEAR(ours.times[k], ref.times[k], 1e-6);
    EXPECT_EQ(r.frames[k].status, ik::Status::Converged) << k;
  }
  for (std::size_t c = 0; c < ref.columns.size(); ++c) {
    const auto d =
        (ours.values.col(static_cast<Eigen::Index>(c)) - ref.values.col(static_cast<Eigen::Index>(c))).eval();
    const double rms = std::sqrt(d.squaredNorm() / static_cast<double>(d.size()));
    const std::string& name = ref.columns[c];
    const bool translation = name == "pelvis_tx" || name == "pelvis_ty" || name == "pelvis_tz";
    // Issue bounds: 0.5° and 2 mm; measured 0.036° (lumbar_rotation) and < 0.05 mm. The tighter
    // bounds here catch a regression long before it reaches the issue's.
    EXPECT_LT(rms, translation ? 2e-4 : 0.1) << ref.columns[c] << (translation ? " (m)" : " (deg)");
  }
  // Like for like: OpenSim's solution through our FK never fits the markers better than ours, in
  // the objective both minimise; the unweighted RMS is within 1 % of it.
  double ours_w = 0, ref_w = 0, ours_u = 0, ref_u = 0;
  const std::vector<double> times = io::trialTimes(trial);
  for (std::size_t k = 0; k < ref.times.size(); ++k) {
    int frame = 0;
    while (std::abs(times[static_cast<std::size_t>(frame)] - ref.times[k]) > 1e-6) ++frame;
    Configuration q(*model.model);
    for (std::size_t c = 0; c < model.coordinates.size(); ++c) {
      const auto& co = model.coordinates[c];
      q.joints[co.joint.value] =
          ref.values(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c)) / (co.rotational ? kDeg : 1.0);
    }
    double w, u;
    objectiveAt(b.spec, trial, frame, q, w, u);
    ref_w += w, ref_u += u;
    objectiveAt(b.spec, trial, frame, r.configurations[k], w, u);
    ours_w += w, ours_u += u;
  }
  EXPECT_LE(ours_w, ref_w * (1.0 + 1e-9));
  const double n = static_cast<double>(ref.times.size() * b.spec.markers.size());
  EXPECT_NEAR(std::sqrt(ours_u / n), std::sqrt(ref_u / n), 0.01 * std::sqrt(ref_u / n));
  RecordProperty("marker_rms_ours_mm", std::to_string(1e3 * std::sqrt(ours_u / n)));
  RecordProperty("marker_rms_opensim_mm", std::to_string(1e3 * std::sqrt(ref_u / n)));
}

// The same weighted-marker problem through kinetrack's whole-body instantaneous IK (position
// targets with weights w: F = Σ w ½‖r‖², the same minimiser) lands on the same solution.
TEST(OpenSimIk, WholeBodySolverFindsTheSameSolution) {
  KINETRACK_REQUIRE_SHARED(setup_path, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  const io::IkSetup setup = io::readIkSetup(setup_path);
  const io::OpenSimModel model = io::readOpenSimModel(setup.resolve(setup.model_file));
  const io::MarkerTrajectories trial = io::readTrc(setup.resolve(setup.marker_file), {.y_up = false});
  track::OpenSimIkBinding b = track::bindOpenSimIk(model, &setup, trial);
  b.spec.coordinate_tasks.clear();  // the whole-body solver has no coordinate tasks
  b.spec.options.accuracy = 1e-9;
  b.spec.options.relative_tolerance = 0.0;
  track::MarkerTrialOptions opt;
  opt.time_start = 0.4;
  opt.time_end = 0.7;
  const track::MarkerTrialResult r = track::solveMarkerTrial(b.spec, trial, opt);
  InstantaneousIkOptions o;
  o.position_tolerance = 1e-12;
  o.max_iterations = 200;
  InstantaneousIk wb(b.spec.model, o);
  std::vector<TargetId> ids;
  std::vector<int> cols;
  for (const auto& mk : b.spec.markers) {
    ids.push_back(wb.tasks().addPosition(mk.frame, {mk.weight}));
    cols.push_back(static_cast<int>(std::find(trial.names.begin(), trial.names.end(), mk.name) - trial.names.begin()));
  }
  const std::vector<double> times = io::trialTimes(trial);
  wb.setState(b.spec.reference);
  std::size_t row = 0;
  for (int k = 0; k < trial.numFrames() && row < r.frames.size(); ++k) {
    if (std::abs(times[static_cast<std::size_t>(k)] - r.frames[row].time) > 1e-9) continue;
    for (std::size_t i = 0; i < ids.size(); ++i) wb.tasks().setPosition(ids[i], trial.position(k, cols[i]));
    (void)wb.solve();
    const VectorXd d = wb.state().joints - r.configurations[row].joints;
    EXPECT_LT(d.cwiseAbs().maxCoeff(), 1e-5) << "t = " << r.frames[row].time;  // rad or m
    ++row;
  }
  EXPECT_EQ(row, r.frames.size());
}

// OpenSim's arm26 test data (the 1.9 file format): arm26_InverseKinematics.mot holds OpenSim's IK
// coordinates and the three measured markers it fitted (columns <marker>_tx/ty/tz). Fitting the
// markers with every weight 1 recovers OpenSim's angles.
TEST(OpenSimIk, Arm26MatchesOpenSimsIkAngles) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/arm26_inverse_dynamics/arm26.osim");
  KINETRACK_REQUIRE_SHARED(mot, "data/opensim/arm26_inverse_dynamics/arm26_InverseKinematics.mot");
  const io::OpenSimModel model = io::readOpenSimModel(osim);
  const io::MotTable t = io::readMot(mot);
  io::MarkerTrajectories trial;
  trial.source = mot;
  trial.times = t.times;
  trial.data_rate = 120.0;
  for (const io::OpenSimMarker& mk : model.markers) trial.names.push_back(mk.name);
  for (std::size_t k = 0; k < t.times.size(); ++k)
    for (const std::string& name : trial.names) {
      const auto c = std::find(t.columns.begin(), t.columns.end(), name + "_tx") - t.columns.begin();
      ASSERT_LT(c + 2, static_cast<long>(t.columns.size())) << name;
      const auto row = static_cast<Eigen::Index>(k);
      trial.positions.emplace_back(t.values(row, c), t.values(row, c + 1), t.values(row, c + 2));
    }
  const track::OpenSimIkBinding b = track::bindOpenSimIk(model, nullptr, trial);
  ASSERT_EQ(b.spec.markers.size(), 3u);
  const track::MarkerTrialResult r = track::solveMarkerTrial(b.spec, trial);
  const io::MotTable ours = track::openSimCoordinates(model, r);
  ASSERT_EQ(ours.times.size(), t.times.size());
  for (const std::string name : {"r_shoulder_elev", "r_elbow_flex"}) {
    const auto a = std::find(ours.columns.begin(), ours.columns.end(), name) - ours.columns.begin();
    const auto b2 = std::find(t.columns.begin(), t.columns.end(), name) - t.columns.begin();
    const auto d = (ours.values.col(a) - t.values.col(b2)).eval();
    const double rms = std::sqrt(d.squaredNorm() / static_cast<double>(d.size()));
    EXPECT_LT(rms, 0.5) << name << " (deg)";
    RecordProperty(name + "_rms_deg", std::to_string(rms));
  }
}

// Coordinate tasks with value_type from_file read the setup's coordinate_file (degrees → rad,
// interpolated at the trial's times): a heavy task on knee_angle_r from OpenSim's result pins
// that coordinate to it; manual_value pins to the value.
TEST(OpenSimIk, CoordinateTasksFromFileAndManualValue) {
  KINETRACK_REQUIRE_SHARED(setup_path, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  KINETRACK_REQUIRE_SHARED(ref_path, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  io::IkSetup setup = io::readIkSetup(setup_path);
  const io::OpenSimModel model = io::readOpenSimModel(setup.resolve(setup.model_file));
  const io::MarkerTrajectories trial = io::readTrc(setup.resolve(setup.marker_file), {.y_up = false});
  const io::MotTable ref = io::readMot(ref_path);
  setup.coordinate_file = ref_path;  // absolute: resolve() keeps it
  io::IkCoordinateTaskSpec knee;
  knee.name = "knee_angle_r";
  knee.weight = 1e6;
  knee.value_type = io::IkCoordinateTaskSpec::ValueType::FromFile;
  setup.coordinate_tasks.push_back(knee);
  io::IkCoordinateTaskSpec lumbar;
  lumbar.name = "lumbar_rotation";
  lumbar.weight = 1e6;
  lumbar.value_type = io::IkCoordinateTaskSpec::ValueType::ManualValue;
  lumbar.value = 0.1;  // rad
  setup.coordinate_tasks.push_back(lumbar);
  const track::OpenSimIkBinding b = track::bindOpenSimIk(model, &setup, trial);
  ASSERT_EQ(b.spec.coordinate_tasks.size(), 6u);
  EXPECT_EQ(b.spec.coordinate_tasks[4].values.size(), static_cast<std::size_t>(trial.numFrames()));
  track::MarkerTrialOptions opt;
  opt.time_start = setup.time_start;
  opt.time_end = setup.time_end;
  const track::MarkerTrialResult r = track::solveMarkerTrial(b.spec, trial, opt);
  const io::MotTable ours = track::openSimCoordinates(model, r);
  const auto kc = std::find(ref.columns.begin(), ref.columns.end(), "knee_angle_r") - ref.columns.begin();
  const auto lc = std::find(ref.columns.begin(), ref.columns.end(), "lumbar_rotation") - ref.columns.begin();
  for (Eigen::Index k = 0; k < ref.values.rows(); ++k) {
    EXPECT_NEAR(ours.values(k, kc), ref.values(k, kc), 1e-3) << k;  // degrees
    EXPECT_NEAR(ours.values(k, lc), 0.1 * kDeg, 1e-3) << k;
  }
  // A from_file task without a coordinate file is an error naming the setup line.
  setup.coordinate_file.clear();
  EXPECT_THROW((void)track::bindOpenSimIk(model, &setup, trial), ParseError);
}

// The Rajagopal 2015 full-body model (walker knee: rotations and translations on splines of the
// knee angle; patella coordinates coupled to the knee angles; clamped ranges): three synthetic
// markers per body, generated at random configurations that satisfy the couplers, are fitted
// exactly from the default pose, the couplers hold and the clamped ranges are respected.
TEST(OpenSimIk, RajagopalRecoversSyntheticMarkersWithCouplers) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/opensense_imu_walk/Rajagopal2015_opensense.osim");
  io::OpenSimModel model = io::readOpenSimModel(osim);
  ASSERT_EQ(model.couplers.size(), 2u);
  ModelBuilder builder(*model.model);
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-0.08, 0.08);
  io::MarkerTrajectories trial;
  trial.source = "synthetic";
  for (const std::string& body : model.bodies)
    for (int k = 0; k < 3; ++k) {
      const std::string name = body + "_m" + std::to_string(k);
      const Vector3d at = randomVector3(u, rng);
      builder.addFrame(name, body, Transform{Matrix3d::Identity(), at});
      trial.names.push_back(name);
      io::OpenSimMarker mk;
      mk.name = name;
      mk.body = body;
      mk.location = at;
      model.markers.push_back(mk);
    }
  model.model = std::make_shared<const Model>(builder.build());
  const track::OpenSimIkBinding b = track::bindOpenSimIk(model, nullptr, trial);
  ASSERT_EQ(b.spec.markers.size(), trial.names.size());
  ASSERT_EQ(b.spec.couplers.size(), 2u);
  // Three frames: the default pose moved a little, twice more (warm starts).
  const Model& m = *model.model;
  Configuration q = model.defaultConfiguration();
  Data d(m);
  std::uniform_real_distribution<double> du(-0.15, 0.15);
  for (int f = 0; f < 3; ++f) {
    for (const io::OpenSimCoordinate& c : model.coordinates) {
      double& v = q.joints[c.joint.value];
      if (c.locked) continue;
      v = std::clamp(v + (c.rotational ? du(rng) : 0.1 * du(rng)), c.range_min, c.range_max);
    }
    for (const io::OpenSimCoupler& k : model.couplers) {
      const io::OpenSimCoordinate* dep = model.findCoordinate(k.dependent);
      const io::OpenSimCoordinate* ind = model.findCoordinate(k.independent);
      q.joints[dep->joint.value] = k.function.value(q.joints[ind->joint.value]);
    }
    forwardKinematics(m, d, q);
    trial.times.push_back(0.01 * f);
    for (const std::string& name : trial.names) trial.positions.push_back(frameOrigin(m, d, m.frameId(name)));
  }
  trial.data_rate = 100.0;
  track::MarkerIkSpec spec = b.spec;
  spec.options.accuracy = 1e-10;
  spec.options.relative_tolerance = 0.0;
  const track::MarkerTrialResult r = track::solveMarkerTrial(spec, trial);
  ASSERT_EQ(r.frames.size(), 3u);
  for (const track::MarkerFrame& f : r.frames) EXPECT_LT(f.max_error, 1e-6) << f.time;
  const Configuration& last = r.configurations.back();
  for (const io::OpenSimCoupler& k : model.couplers) {
    const double dep = last.joints[model.findCoordinate(k.dependent)->joint.value];
    const double ind = last.joints[model.findCoordinate(k.independent)->joint.value];
    EXPECT_NEAR(dep, k.function.value(ind), 1e-9) << k.name;
  }
  for (const io::OpenSimCoordinate& c : model.coordinates)
    if (c.clamped) {
      EXPECT_GE(last.joints[c.joint.value], c.range_min - 1e-12) << c.name;
      EXPECT_LE(last.joints[c.joint.value], c.range_max + 1e-12) << c.name;
    }
}

TEST(OpenSimIk, BindingRejectsUnknownMarkersAndCoordinates) {
  KINETRACK_REQUIRE_SHARED(setup_path, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  io::IkSetup setup = io::readIkSetup(setup_path);
  const io::OpenSimModel model = io::readOpenSimModel(setup.resolve(setup.model_file));
  const io::MarkerTrajectories trial = io::readTrc(setup.resolve(setup.marker_file), {.y_up = false});
  // Without a setup: every model marker in the trial, weight 1.
  const track::OpenSimIkBinding plain = track::bindOpenSimIk(model, nullptr, trial);
  EXPECT_GE(plain.spec.markers.size(), 31u);
  io::IkSetup bad = setup;
  bad.marker_tasks[0].name = "NoSuchMarker";
  try {
    (void)track::bindOpenSimIk(model, &bad, trial);
    FAIL() << "expected ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), setup_path);
    EXPECT_GT(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("NoSuchMarker"), std::string::npos);
  }
  bad = setup;
  bad.coordinate_tasks[0].name = "no_such_coordinate";
  EXPECT_THROW((void)track::bindOpenSimIk(model, &bad, trial), ParseError);
  // A setup marker the trial lacks is a warning and drops out.
  io::MarkerTrajectories fewer = trial;
  fewer.names[0] = "Renamed";
  const track::OpenSimIkBinding w = track::bindOpenSimIk(model, &setup, fewer);
  EXPECT_EQ(w.warnings.size(), 1u);
  EXPECT_EQ(w.spec.markers.size(), 30u);
}

TEST(OpenSimIk, SetupReaderReadsTasksAndRejectsBadValues) {
  KINETRACK_REQUIRE_SHARED(setup_path, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  const io::IkSetup s = io::readIkSetup(setup_path);
  EXPECT_EQ(s.model_file, "subject01_simbody.osim");
  EXPECT_EQ(s.marker_file, "subject01_walk1.trc");
  EXPECT_DOUBLE_EQ(s.constraint_weight, 20.0);
  EXPECT_DOUBLE_EQ(s.accuracy, 1e-5);
  EXPECT_DOUBLE_EQ(s.time_start, 0.4);
  EXPECT_DOUBLE_EQ(s.time_end, 1.6);
  EXPECT_EQ(s.marker_tasks.size(), 31u);
  EXPECT_EQ(s.coordinate_tasks.size(), 4u);
  EXPECT_DOUBLE_EQ(s.marker_tasks[3].weight, 0.1);  // Top.Head
  auto xml = [](const std::string& body) {
    return "<OpenSimDocument><InverseKinematicsTool name=\"t\">\n" + body +
           "\n</InverseKinematicsTool></OpenSimDocument>";
  };
  EXPECT_THROW(io::parseIkSetup(xml("<accuracy>abc</accuracy>"), "s.xml"), ParseError);
  EXPECT_THROW(io::parseIkSetup(xml("<time_range>2 1</time_range>"), "s.xml"), ParseError);
  EXPECT_THROW(
      io::parseIkSetup(xml("<IKTaskSet><objects><IKMarkerTask name=\"A\"><weight>-1</weight></IKMarkerTask></objects>"
                           "</IKTaskSet>"),
                       "s.xml"),
      ParseError);
  EXPECT_THROW(io::parseIkSetup(xml("<IKTaskSet><objects><IKCoordinateTask name=\"c\"><value_type>guess</value_type>"
                                    "</IKCoordinateTask></objects></IKTaskSet>"),
                                "s.xml"),
               ParseError);
  EXPECT_THROW(io::parseIkSetup("<OpenSimDocument><Other/></OpenSimDocument>", "s.xml"), ParseError);
  EXPECT_THROW(io::parseIkSetup("<OpenSimDocument><InverseKinematicsTool>", "s.xml"), ParseError);
  EXPECT_THROW(io::readIkSetup("/no/such/setup.xml"), ParseError);
  try {
    (void)io::parseIkSetup(xml("<accuracy>nan</accuracy>"), "s.xml");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 2);
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
