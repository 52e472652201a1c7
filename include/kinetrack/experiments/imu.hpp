#pragma once
// `kinetrack experiment imu` (issue 41): virtual IMUs on the gait2354 walk. The eight IMUs of
// OpenSense's walk (pelvis, torso, both femurs, tibias and calcanei) are mounted on the subject's
// bodies at orientations drawn per seed (the pelvis IMU's z axis forward, its heading axis), read
// through the model along OpenSim's own IK result of the walk, in a world of their own (Z up,
// turned 40° about the vertical), with the scenario's noise, heading drift and calibration-pose
// error; placed from a standing sample (facing the scenario's direction) as OpenSense's IMUPlacer
// does, then tracked; the joint coordinates are scored against OpenSim's IK. OUT/imu.csv and a
// table.
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"

namespace kinetrack::experiments {

struct ImuExperimentOptions {
  std::string out;  ///< folder of imu.csv ("": none)
  std::string data = "../shared/data";
  std::uint64_t seed = 1;
  int seeds = 3;
};

struct ImuScenario {
  std::string name;
  double noise_deg = 0.0;             ///< white noise per axis and sample
  double drift_deg_per_min = 0.0;     ///< heading drift per sensor (±[0.5, 1.5] × this)
  double calibration_pose_deg = 0.0;  ///< the standing sample's joints off the default pose (σ, per joint)
  double facing_deg = 0.0;            ///< the subject's heading in the standing sample
};

/// The scenarios, in the table's order.
std::vector<ImuScenario> imuScenarios();

struct ImuExperimentRun {
  std::string scenario;
  std::uint64_t seed = 0;
  std::vector<double> coordinate_rms_deg;  ///< per scored coordinate (ImuExperimentResult::coordinates)
  double joint_rms_deg = 0.0;              ///< over every scored coordinate and frame
  double joint_max_deg = 0.0;
  double orientation_rms_deg = 0.0;  ///< tracking's orientation error over every sample
  double heading_correction_deg = 0.0;
  double us_median = 0.0;  ///< solve time per frame
  int frames = 0;
};

struct ImuExperimentResult {
  std::string model, motion;
  std::string csv;                       ///< OUT/imu.csv ("" when not written)
  std::vector<std::string> coordinates;  ///< the scored joint coordinates (not the pelvis', not locked)
  std::vector<ImuExperimentRun> runs;
};

/// Runs every scenario for `seeds` seeds. Throws InvalidArgument / ParseError for missing data.
ImuExperimentResult runImuExperiment(const ImuExperimentOptions& options, const app::Reporter& reporter = {});
/// The table: per scenario the mean over seeds of the joint RMS and max, per coordinate group RMS,
/// the orientation error and the time per frame; then the CSV written.
std::string summaryText(const ImuExperimentResult& result);

}  // namespace kinetrack::experiments
