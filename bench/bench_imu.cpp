// IMU tracking (issue 41) on the OpenSense walk: the Rajagopal model (39 coordinates, 26 locked,
// two knee couplers) with 8 IMUs placed from the walk's calibration file as `kinetrack imu place`
// places them, then one frame of OpenSense's IMU IK per iteration (track::ImuStreamTracker: the
// per-frame solve to the setup's accuracy 1e-6, warm-started), against one DYN step per frame
// (ik::DynamicalIk, the same orientation targets with K = 50/s, the model's couplers as its
// linear rows, the locked coordinates pulled to their values by a posture task of weight 100) in
// the same binary. Frames replay forwards then backwards (consecutive frames stay consecutive).
// Counters: frames/s, and the RMS angle between model and measured orientations over the run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/io/model/opensense_setup.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"
#include "kinetrack/io/table/orientation_table.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/track/imu_tracking.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

struct Walk {
  bool ok = false;
  kt::io::OpenSimModel model;  // calibrated: the IMU frames placed
  kt::track::ImuIkSpec spec;
  std::vector<std::vector<Eigen::Quaterniond>> frames;  // spec order, palindrome
  double dt = 0.01;
};

const Walk& walk() {
  static const Walk w = [] {
    Walk w;
    const std::string dir = kt::testing::sharedFile("data/opensim/opensense_imu_walk");
    if (dir.empty()) return w;
    const kt::io::ImuPlacerSetup ps = kt::io::readImuPlacerSetup(dir + "/imuPlacer_Setup.xml");
    const std::string osim = dir + "/Rajagopal2015_opensense.osim";
    kt::track::ImuPlacementOptions po;
    po.sensor_to_opensim = kt::io::sensorToOpenSimRotation(ps.sensor_to_opensim_rotations);
    po.base_imu = ps.base_imu_label;
    po.base_heading_axis = ps.base_heading_axis;
    const kt::track::ImuPlacement placement =
        kt::track::placeImus(kt::io::readOpenSimModel(osim),
                             kt::io::readOrientationTable(ps.resolve(ps.orientation_file_for_calibration)), po);
    kt::io::OpenSimModelDocument doc = kt::io::OpenSimModelDocument::read(osim);
    doc.setOffsetFrames(placement.frames);
    w.model = kt::io::parseOpenSimModel(doc.text(), "calibrated");
    const kt::io::ImuIkSetup is = kt::io::readImuIkSetup(dir + "/imuInverseKinematics_Setup.xml");
    const kt::io::OrientationTable table = kt::io::readOrientationTable(is.resolve(is.orientations_file));
    w.spec = kt::track::imuIkSpec(w.model, table.names);
    w.spec.data_rotation = kt::io::sensorToOpenSimRotation(is.sensor_to_opensim_rotations);
    w.spec.options.accuracy = is.accuracy;
    std::vector<int> order;
    for (int k = 0; k < table.numFrames(); ++k)
      if (table.times[static_cast<std::size_t>(k)] >= is.time_start &&
          table.times[static_cast<std::size_t>(k)] <= is.time_end)
        order.push_back(k);
    for (int i = static_cast<int>(order.size()) - 2; i > 0; --i) order.push_back(order[static_cast<std::size_t>(i)]);
    for (int k : order) {
      std::vector<Eigen::Quaterniond> f;
      for (const auto& s : w.spec.sensors) f.push_back(table.orientation(k, table.find(s.name)));
      w.frames.push_back(f);
    }
    w.dt = table.data_rate > 0 ? 1.0 / table.data_rate : 0.01;
    w.ok = true;
    return w;
  }();
  return w;
}

void BM_ImuIkFrame(benchmark::State& state) {
  const Walk& w = walk();
  if (!w.ok) {
    state.SkipWithError("../shared/data/opensim/opensense_imu_walk not found");
    return;
  }
  kt::track::ImuStreamTracker tracker(w.spec);
  (void)tracker.track(0.0, w.frames[0]);
  std::size_t k = 1;
  double sum = 0.0;
  long n = 0;
  for (auto _ : state) {
    const kt::track::ImuFrame f = tracker.track(0.0, w.frames[k]);
    benchmark::DoNotOptimize(f);
    sum += f.rms_error * f.rms_error;
    ++n;
    k = (k + 1) % w.frames.size();
  }
  state.counters["frames_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["orient_rms_deg"] = std::sqrt(sum / std::max<long>(n, 1)) * 180.0 / M_PI;
}
BENCHMARK(BM_ImuIkFrame)->Unit(benchmark::kMicrosecond);

void BM_DynOrientationStep(benchmark::State& state) {
  const Walk& w = walk();
  if (!w.ok) {
    state.SkipWithError("../shared/data/opensim/opensense_imu_walk not found");
    return;
  }
  const kt::Model& m = *w.model.model;
  kt::DynamicalIk dyn(w.model.model);
  std::vector<kt::TargetId> targets;
  for (const auto& s : w.spec.sensors) targets.push_back(dyn.tasks().addOrientation(s.frame, {1.0, 100.0}));
  kt::VectorXd weights = kt::VectorXd::Zero(m.numJoints()), values = kt::VectorXd::Zero(m.numJoints());
  const kt::Configuration q0 = w.model.defaultConfiguration();
  for (const kt::io::OpenSimCoordinate& c : w.model.coordinates)
    if (c.locked) weights[c.joint.value] = 100.0, values[c.joint.value] = c.default_value;
  const kt::ik::PostureTaskId posture = dyn.tasks().addPosture(weights, 100.0);
  dyn.tasks().setValues(posture, values);
  // Start at the per-frame solve of the first frame (DYN tracks; it does not assemble).
  kt::track::ImuStreamTracker start(w.spec);
  (void)start.track(0.0, w.frames[0]);
  dyn.setState(start.state());
  kt::Data d(m);
  std::size_t k = 1;
  double sum = 0.0;
  long n = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < targets.size(); ++i)
      dyn.tasks().setOrientation(targets[i], w.spec.data_rotation * w.frames[k][i].toRotationMatrix());
    const auto r = dyn.step(w.dt);
    benchmark::DoNotOptimize(r);
    state.PauseTiming();
    kt::framesForwardKinematics(m, d, dyn.state());
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const kt::ik::FrameTask& t = dyn.tasks()[targets[i]];
      sum += kt::so3::log(t.R * d.frame[static_cast<std::size_t>(t.frame.value)].R.transpose()).squaredNorm();
      ++n;
    }
    state.ResumeTiming();
    k = (k + 1) % w.frames.size();
  }
  state.counters["frames_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["orient_rms_deg"] = std::sqrt(sum / std::max<long>(n, 1)) * 180.0 / M_PI;
}
BENCHMARK(BM_DynOrientationStep)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
