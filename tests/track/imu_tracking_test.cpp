// IMUs on OpenSim models (track/imu_tracking.hpp, OpenSense's IMUPlacer and IMU IK):
// - virtual IMUs on the gait2354 walk (experiments::runImuExperiment): OpenSim's IK recovered
//   exactly from exact orientations, whichever way the subject faced at calibration, and within
//   stated bounds with noise, drift and a calibration pose off the default;
// - the real OpenSense walk: placed from its calibration file and tracked end to end; its
//   calibration sample turned 180° about the vertical (the subject facing the other way) gives
//   the same placement and the same joint angles (OpenSim's own test: < 10° per coordinate);
// - the placement written into the .osim and read back as frames; setups and their errors;
//   missing samples as gaps; no allocation per tracked frame.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/experiments/imu.hpp"
#include "kinetrack/io/model/opensense_setup.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"
#include "kinetrack/io/table/orientation_table.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/track/imu_tracking.hpp"
#include "kinetrack/track/opensim_ik.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kDeg = 180.0 / M_PI;

const experiments::ImuExperimentRun& runOf(const experiments::ImuExperimentResult& r, const std::string& scenario,
                                           int seed_index = 0) {
  int k = 0;
  for (const auto& run : r.runs)
    if (run.scenario == scenario && k++ == seed_index) return run;
  throw InvalidArgument("no run " + scenario);
}

TEST(ImuTracking, VirtualImusOnTheGaitWalkRecoverOpenSimsIk) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  experiments::ImuExperimentOptions o;
  o.data = testing::sharedDir() + "/data";
  o.seeds = 2;
  const experiments::ImuExperimentResult r = experiments::runImuExperiment(o);
  ASSERT_GE(r.coordinates.size(), 11U);  // hips, knees, ankles, subtalar, lumbar
  for (int s = 0; s < 2; ++s) {
    // Exact orientations: OpenSim's IK recovered to round-off, facing either way at calibration.
    EXPECT_LT(runOf(r, "exact", s).joint_max_deg, 1e-3);
    EXPECT_LT(runOf(r, "exact, calibrated facing 180°", s).joint_max_deg, 1e-3);
    EXPECT_NEAR(std::abs(runOf(r, "exact, calibrated facing 180°", s).heading_correction_deg -
                         runOf(r, "exact", s).heading_correction_deg),
                180.0, 1e-6);
    // Stated bounds (docs/imu.md): 1° of noise per axis gives about 2° RMS on the joints (each
    // joint angle is the difference of two noisy sensors); a 5° calibration pose error 4°; a
    // heading drift of 60°/min (1.2 s of walk) below 1°; all together about 3°.
    EXPECT_LT(runOf(r, "noise 1°", s).joint_rms_deg, 2.5);
    EXPECT_LT(runOf(r, "drift 60°/min", s).joint_rms_deg, 1.0);
    EXPECT_LT(runOf(r, "calibration pose 5° off", s).joint_rms_deg, 5.0);
    EXPECT_LT(runOf(r, "noise 1° + drift 60°/min + pose 3° + facing 150°", s).joint_rms_deg, 4.5);
  }
}

struct OpenSenseWalk {
  std::string dir = testing::sharedFile("data/opensim/opensense_imu_walk");
  std::string model() const { return dir + "/Rajagopal2015_opensense.osim"; }
};

// Placement and tracking of the real walk, with the calibration sample as given or turned.
struct RealRun {
  track::ImuPlacement placement;
  io::OpenSimModel calibrated;
  track::ImuTrialResult trial;
};

RealRun placeAndTrack(const OpenSenseWalk& w, const Matrix3d& turn_calibration, double start, double end) {
  const io::ImuPlacerSetup ps = io::readImuPlacerSetup(w.dir + "/imuPlacer_Setup.xml");
  io::OrientationTable cal = io::readOrientationTable(ps.resolve(ps.orientation_file_for_calibration));
  for (Eigen::Quaterniond& q : cal.orientations) q = Eigen::Quaterniond(turn_calibration) * q;
  const io::OpenSimModel osim = io::readOpenSimModel(w.model());
  track::ImuPlacementOptions po;
  po.sensor_to_opensim = io::sensorToOpenSimRotation(ps.sensor_to_opensim_rotations);
  po.base_imu = ps.base_imu_label;
  po.base_heading_axis = ps.base_heading_axis;
  RealRun r;
  r.placement = track::placeImus(osim, cal, po);
  io::OpenSimModelDocument doc = io::OpenSimModelDocument::read(w.model());
  doc.setOffsetFrames(r.placement.frames);
  r.calibrated = io::parseOpenSimModel(doc.text(), "calibrated");
  const io::ImuIkSetup is = io::readImuIkSetup(w.dir + "/imuInverseKinematics_Setup.xml");
  const io::OrientationTable walk = io::readOrientationTable(is.resolve(is.orientations_file));
  track::ImuIkSpec spec = track::imuIkSpec(r.calibrated, walk.names);
  spec.data_rotation = io::sensorToOpenSimRotation(is.sensor_to_opensim_rotations);
  track::ImuTrialOptions to;
  to.time_start = start;
  to.time_end = end;
  r.trial = track::solveImuTrial(spec, walk, to);
  return r;
}

TEST(ImuTracking, RealWalkIsTrackedEndToEnd) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  const RealRun r = placeAndTrack({}, Matrix3d::Identity(), 10.5, 17.0);
  EXPECT_EQ(r.placement.frames.size(), 8U);
  EXPECT_TRUE(r.placement.warnings.empty());
  ASSERT_EQ(r.calibrated.offset_frames.size(), 8U);
  ASSERT_EQ(r.trial.frames.size(), 651U);  // 10.5 … 17 s at 100 Hz: one row per input frame
  EXPECT_EQ(r.trial.gaps(), 0);
  double sum = 0.0;
  int n = 0;
  for (std::size_t k = 0; k < r.trial.frames.size(); ++k) {
    const track::ImuFrame& f = r.trial.frames[k];
    EXPECT_NE(f.status, ik::Status::Failed) << k;
    EXPECT_EQ(f.sensors_used, 8);
    EXPECT_LE(f.limit_violation, 1e-9);
    EXPECT_LE(f.row_violation, 1e-9);  // knee_angle_beta = knee_angle (the couplers)
    sum += f.rms_error * f.rms_error;
    ++n;
  }
  // Measured: 6.9° RMS orientation error (the model locks the lumbar joints, so the torso and
  // pelvis IMUs cannot both be matched, and the subtalar and toe joints).
  EXPECT_LT(std::sqrt(sum / n) * kDeg, 8.0);
  // A walk: the knees flex by 50° or more in swing.
  const Model& m = *r.calibrated.model;
  const int knee = m.jointId("knee_angle_r").value;
  double knee_max = 0.0;
  for (const Configuration& q : r.trial.configurations) knee_max = std::max(knee_max, q.joints[knee] * kDeg);
  EXPECT_GT(knee_max, 50.0);
  EXPECT_LT(knee_max, 100.0);
}

TEST(ImuTracking, CalibratingFacingTheOtherWayGivesTheSameAngles) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  // The IMUs' world is Z up (sensor_to_opensim turns it to OpenSim's Y up): the subject facing
  // the other way at calibration turns every calibration orientation by 180° about Z.
  const Matrix3d turn = Eigen::AngleAxisd(M_PI, Vector3d::UnitZ()).toRotationMatrix();
  const RealRun a = placeAndTrack({}, Matrix3d::Identity(), 10.5, 12.0);
  const RealRun b = placeAndTrack({}, turn, 10.5, 12.0);
  EXPECT_NEAR(std::remainder(b.placement.heading_correction - a.placement.heading_correction - M_PI, 2 * M_PI), 0.0,
              1e-9);
  for (std::size_t i = 0; i < a.placement.frames.size(); ++i)
    EXPECT_LT(so3::log(a.placement.frames[i].X_BF.R.transpose() * b.placement.frames[i].X_BF.R).norm(), 1e-9);
  double worst = 0.0;
  for (std::size_t k = 0; k < a.trial.configurations.size(); ++k)
    worst =
        std::max(worst, (a.trial.configurations[k].joints - b.trial.configurations[k].joints).cwiseAbs().maxCoeff());
  EXPECT_LT(worst * kDeg, 1e-6);  // OpenSim's test allows 10°
}

TEST(ImuTracking, PlacementIsWrittenIntoTheOsimAndReadBackAsFrames) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  const RealRun r = placeAndTrack({}, Matrix3d::Identity(), 10.5, 10.6);
  const Model& m = *r.calibrated.model;
  Data d(m);
  framesForwardKinematics(m, d, r.calibrated.defaultConfiguration());
  for (const io::OpenSimOffsetFrame& placed : r.placement.frames) {
    const io::OpenSimOffsetFrame* f = r.calibrated.findOffsetFrame(placed.name);
    ASSERT_NE(f, nullptr) << placed.name;
    EXPECT_EQ(f->body, placed.body);
    EXPECT_LT((f->X_BF.R - placed.X_BF.R).cwiseAbs().maxCoeff(), 1e-12);  // 17 digits in the file
    EXPECT_LT((f->X_BF.p - placed.X_BF.p).norm(), 1e-12);
    // The frame sits on its body: the body's orientation times R_BI.
    const Matrix3d R_GB = d.frame[static_cast<std::size_t>(m.frameId(f->body).value)].R;
    EXPECT_LT((d.frame[static_cast<std::size_t>(f->frame.value)].R - R_GB * f->X_BF.R).cwiseAbs().maxCoeff(), 1e-12);
  }
  // Placing again on the calibrated model updates the frames (no second frame of the same name).
  io::OpenSimModelDocument doc(io::OpenSimModelDocument::read(OpenSenseWalk{}.model()));
  doc.setOffsetFrames(r.placement.frames);
  doc.setOffsetFrames(r.placement.frames);
  const io::OpenSimModel again = io::parseOpenSimModel(doc.text(), "twice");
  EXPECT_EQ(again.offset_frames.size(), 8U);
}

TEST(ImuTracking, MissingSamplesAreDroppedAndEmptyFramesHeld) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  const RealRun r = placeAndTrack({}, Matrix3d::Identity(), 10.5, 10.6);
  const io::ImuIkSetup is = io::readImuIkSetup(OpenSenseWalk{}.dir + "/imuInverseKinematics_Setup.xml");
  io::OrientationTable walk = io::readOrientationTable(is.resolve(is.orientations_file));
  const int first =
      static_cast<int>(std::lower_bound(walk.times.begin(), walk.times.end(), 10.5 - 1e-9) - walk.times.begin());
  const Eigen::Quaterniond nan(NAN, NAN, NAN, NAN);
  auto at = [&](int k, int i) -> Eigen::Quaterniond& {
    return walk.orientations[static_cast<std::size_t>(k) * walk.names.size() + static_cast<std::size_t>(i)];
  };
  at(first + 2, 0) = nan;                                              // one sample missing
  for (int i = 0; i < walk.numSensors(); ++i) at(first + 3, i) = nan;  // every sample missing
  track::ImuIkSpec spec = track::imuIkSpec(r.calibrated, walk.names);
  spec.data_rotation = io::sensorToOpenSimRotation(is.sensor_to_opensim_rotations);
  track::ImuTrialOptions to;
  to.time_start = 10.5;
  to.time_end = 10.6;
  const track::ImuTrialResult t = track::solveImuTrial(spec, walk, to);
  ASSERT_EQ(t.frames.size(), 11U);
  EXPECT_EQ(t.frames[2].sensors_missing, 1);
  EXPECT_FALSE(t.frames[2].gap);
  EXPECT_TRUE(std::isnan(t.errors[2 * 8 + 0]));
  EXPECT_TRUE(t.frames[3].gap);
  EXPECT_EQ(t.configurations[3].joints, t.configurations[2].joints);  // held
  EXPECT_EQ(t.gaps(), 1);
  const io::MotTable e = track::orientationErrorTable(t);
  EXPECT_TRUE(std::isnan(e.values(3, 0)));
  EXPECT_FALSE(std::isnan(e.values(4, 0)));
}

TEST(ImuTracking, TrackingDoesNotAllocatePerFrame) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/opensense_imu_walk/imuPlacer_Setup.xml");
  const RealRun r = placeAndTrack({}, Matrix3d::Identity(), 10.5, 10.51);
  const io::ImuIkSetup is = io::readImuIkSetup(OpenSenseWalk{}.dir + "/imuInverseKinematics_Setup.xml");
  const io::OrientationTable walk = io::readOrientationTable(is.resolve(is.orientations_file));
  track::ImuIkSpec spec = track::imuIkSpec(r.calibrated, walk.names);
  spec.data_rotation = io::sensorToOpenSimRotation(is.sensor_to_opensim_rotations);
  track::ImuStreamTracker tracker(spec);
  std::vector<Eigen::Quaterniond> sample(8);
  auto gather = [&](int k) {
    for (int i = 0; i < 8; ++i) sample[static_cast<std::size_t>(i)] = walk.orientation(k, i);
  };
  gather(1050);
  (void)tracker.track(walk.times[1050], sample);
  long allocations = 0;
  for (int k = 1051; k < 1150; ++k) {
    gather(k);
    if (k % 10 == 0) sample[3] = Eigen::Quaterniond(NAN, NAN, NAN, NAN);
    testing::AllocationCounter counter;
    const track::ImuFrame f = tracker.track(walk.times[static_cast<std::size_t>(k)], sample);
    allocations += counter.count();
    EXPECT_NE(f.status, ik::Status::Failed);
  }
  EXPECT_EQ(allocations, 0);
}

TEST(ImuTracking, SetupsAndBadInput) {
  const io::ImuPlacerSetup p = io::parseImuPlacerSetup(
      "<OpenSimDocument><IMUPlacer><base_imu_label>pelvis_imu</base_imu_label><base_heading_axis>-x</base_heading_axis>"
      "<sensor_to_opensim_rotations>-1.5707963 0 0</sensor_to_opensim_rotations>"
      "<orientation_file_for_calibration>cal.sto</orientation_file_for_calibration></IMUPlacer></OpenSimDocument>",
      "dir/placer.xml");
  EXPECT_EQ(p.base_heading_axis, "-x");
  EXPECT_EQ(p.resolve(p.orientation_file_for_calibration), "dir/cal.sto");
  EXPECT_NEAR(p.sensor_to_opensim_rotations.x(), -1.5707963, 1e-12);
  auto placerError = [](const std::string& body) {
    try {
      (void)io::parseImuPlacerSetup("<OpenSimDocument><IMUPlacer>\n" + body + "</IMUPlacer></OpenSimDocument>",
                                    "p.xml");
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(placerError("<base_heading_axis>w</base_heading_axis>").find("p.xml:2"), std::string::npos);
  EXPECT_NE(placerError("<sensor_to_opensim_rotations>1 2</sensor_to_opensim_rotations>").find("three angles"),
            std::string::npos);
  EXPECT_NE(placerError("<base_imu_label>pelvis_imu</base_imu_label>").find("base_heading_axis"), std::string::npos);
  EXPECT_THROW((void)io::parseImuPlacerSetup("<OpenSimDocument><IKTool/></OpenSimDocument>", "x.xml"), ParseError);

  const io::ImuIkSetup s = io::parseImuIkSetup(
      "<OpenSimDocument><IMUInverseKinematicsTool><time_range>1 2</time_range><accuracy>1e-5</accuracy>"
      "<orientation_weights><OrientationWeightSet><objects><OrientationWeight name=\"pelvis_imu\"><weight>2"
      "</weight></OrientationWeight></objects></OrientationWeightSet></orientation_weights>"
      "</IMUInverseKinematicsTool></OpenSimDocument>",
      "ik.xml");
  EXPECT_EQ(s.time_start, 1.0);
  EXPECT_EQ(s.accuracy, 1e-5);
  ASSERT_EQ(s.orientation_weights.size(), 1U);
  EXPECT_EQ(s.orientation_weights[0].weight, 2.0);
  EXPECT_THROW((void)io::parseImuIkSetup("<IMUInverseKinematicsTool><time_range>2 1</time_range>"
                                         "</IMUInverseKinematicsTool>",
                                         "ik.xml"),
               ParseError);
  EXPECT_THROW((void)io::parseImuIkSetup("<IMUInverseKinematicsTool><accuracy>0</accuracy></IMUInverseKinematicsTool>",
                                         "ik.xml"),
               ParseError);
  EXPECT_THROW((void)io::readImuIkSetup("/nonexistent/ik.xml"), ParseError);
  EXPECT_EQ(track::imuBody("femur_r_imu"), "femur_r");
  EXPECT_EQ(track::imuBody("femur_r"), "");
}

TEST(ImuTracking, PlacementRefusesWhatItCannotPlace) {
  KINETRACK_REQUIRE_SHARED(osim_path, "data/opensim/opensense_imu_walk/Rajagopal2015_opensense.osim");
  const io::OpenSimModel osim = io::readOpenSimModel(osim_path);
  io::OrientationTable t;
  t.source = "t.sto";
  t.names = {"hand_imu", "pelvis_imu"};
  t.times = {0.0};
  t.orientations = {Eigen::Quaterniond::Identity(), Eigen::Quaterniond::Identity()};
  track::ImuPlacementOptions o;
  const track::ImuPlacement p = track::placeImus(osim, t, o);
  EXPECT_EQ(p.frames.size(), 1U);  // hand_imu: the model has no body "hand" (warned)
  ASSERT_EQ(p.warnings.size(), 1U);
  EXPECT_NE(p.warnings[0].find("hand_imu"), std::string::npos);
  o.base_imu = "torso_imu";
  o.base_heading_axis = "z";
  EXPECT_THROW((void)track::placeImus(osim, t, o), InvalidArgument);  // not a column
  o.base_imu = "pelvis_imu";
  o.base_heading_axis = "y";  // the identity's y is OpenSim's vertical
  EXPECT_THROW((void)track::placeImus(osim, t, o), InvalidArgument);
  t.names = {"hand_imu", "head_imu"};
  EXPECT_THROW((void)track::placeImus(osim, t, {}), InvalidArgument);  // nothing to place
  // Tracking a model without IMU frames says what to do.
  EXPECT_THROW((void)track::imuIkSpec(osim, {"pelvis_imu"}), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
