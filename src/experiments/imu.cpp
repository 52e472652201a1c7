#include "kinetrack/experiments/imu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/opensense_setup.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "kinetrack/track/imu_tracking.hpp"
#include "kinetrack/track/virtual_imus.hpp"

namespace kinetrack::experiments {

namespace {

constexpr double kDeg = 180.0 / M_PI;
const std::vector<std::string> kBodies = {"torso",   "pelvis",  "tibia_r", "femur_r",
                                          "tibia_l", "femur_l", "calcn_r", "calcn_l"};

// A body's IMU mount: a rotation drawn per seed; the pelvis IMU's z axis along the body's X
// (forward, the base heading axis), pitched by a drawn angle about the body's Z.
Matrix3d mount(const std::string& body, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-M_PI, M_PI);
  if (body == "pelvis") {
    Matrix3d z_forward;  // the IMU's x, y, z along the body's Y, Z, X
    z_forward.col(0) = Vector3d::UnitY();
    z_forward.col(1) = Vector3d::UnitZ();
    z_forward.col(2) = Vector3d::UnitX();
    return Eigen::AngleAxisd(0.3 * u(rng) / M_PI, Vector3d::UnitZ()).toRotationMatrix() * z_forward;
  }
  const Vector3d w(u(rng), u(rng), u(rng));
  return so3::exp(w.normalized() * std::abs(u(rng)));
}

}  // namespace

std::vector<ImuScenario> imuScenarios() {
  return {
      {"exact", 0, 0, 0, 0},
      {"exact, calibrated facing 180°", 0, 0, 0, 180},
      {"noise 1°", 1, 0, 0, 0},
      {"noise 2°", 2, 0, 0, 0},
      {"drift 60°/min", 0, 60, 0, 0},
      {"calibration pose 5° off", 0, 0, 5, 0},
      {"noise 1° + drift 60°/min + pose 3° + facing 150°", 1, 60, 3, 150},
  };
}

ImuExperimentResult runImuExperiment(const ImuExperimentOptions& o, const app::Reporter& reporter) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(o.data) / "opensim" / "gait2354_walk";
  ImuExperimentResult res;
  res.model = (dir / "subject01_simbody.osim").string();
  res.motion = (dir / "subject01_walk1_ik_REFERENCE.mot").string();
  // The model's text read once: parsed here, and edited afresh by every run's placement.
  std::ifstream file(res.model, std::ios::binary);
  if (!file) throw ParseError(res.model, 0, "cannot open the file");
  const std::string osim_text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const io::OpenSimModel osim = io::parseOpenSimModel(osim_text, res.model);
  const io::MotTable motion = io::readMot(res.motion);
  const std::vector<Configuration> truth = track::openSimConfigurations(osim, motion);
  const Matrix3d R_S = io::sensorToOpenSimRotation(Vector3d(-M_PI / 2, 0, 0));
  // The IMUs' world: Z up, turned 40° about its vertical (measured = W · R_GI).
  const Matrix3d W = Eigen::AngleAxisd(40.0 / kDeg, Vector3d::UnitZ()).toRotationMatrix() * R_S.transpose();
  std::vector<std::string> names;
  for (const std::string& b : kBodies) names.push_back(b + "_imu");
  // Scored: every coordinate an IMU observes (on the path from the ground to an IMU's body) but
  // the pelvis' (the IMUs' heading is their own) and locked ones.
  std::vector<int> scored;
  auto observed = [&](JointId j) {
    for (const std::string& b : kBodies) {
      const auto& s = osim.model->support(osim.model->frameLink(osim.model->frameId(b)));
      if (std::find(s.begin(), s.end(), j.value) != s.end()) return true;
    }
    return false;
  };
  for (std::size_t c = 0; c < osim.coordinates.size(); ++c) {
    const io::OpenSimCoordinate& co = osim.coordinates[c];
    if (co.locked || co.name.starts_with("pelvis_") || !observed(co.joint)) continue;
    if (std::find(motion.columns.begin(), motion.columns.end(), co.name) == motion.columns.end()) continue;
    scored.push_back(static_cast<int>(c));
    res.coordinates.push_back(co.name);
  }
  const std::vector<ImuScenario> scenarios = imuScenarios();
  const int total = static_cast<int>(scenarios.size()) * o.seeds;
  int done = 0;
  for (const ImuScenario& sc : scenarios) {
    for (int s = 0; s < o.seeds; ++s) {
      const std::uint64_t seed = o.seed + 100 * static_cast<std::uint64_t>(s);
      reporter.report(done, total, sc.name);
      std::mt19937_64 rng(seed);
      // The subject with its IMUs as mounted.
      ModelBuilder b(*osim.model);
      for (const std::string& body : kBodies)
        b.addFrame(body + "_imu", body, Transform{mount(body, rng), Vector3d::Zero()});
      const Model mounted = b.build();
      // The standing sample: the default pose facing the scenario's way, joints off by the pose error.
      Configuration standing = osim.defaultConfiguration();
      std::normal_distribution<double> pose(0.0, sc.calibration_pose_deg / kDeg);
      for (const io::OpenSimCoordinate& co : osim.coordinates) {
        if (co.locked || !co.rotational) continue;
        if (co.name == "pelvis_rotation")
          standing.joints[co.joint.value] += sc.facing_deg / kDeg;
        else if (!co.name.starts_with("pelvis_"))
          standing.joints[co.joint.value] += pose(rng);
      }
      track::VirtualImuOptions vo;
      vo.world = W;
      vo.noise_deg = sc.noise_deg;
      vo.seed = seed + 1;
      const io::OrientationTable calibration = track::virtualImuTable(mounted, names, {0.0}, {standing}, vo);
      // Placement, written into the model as OpenSense writes it, read back.
      track::ImuPlacementOptions po;
      po.sensor_to_opensim = R_S;
      po.base_imu = "pelvis_imu";
      po.base_heading_axis = "z";
      const track::ImuPlacement placement = track::placeImus(osim, calibration, po);
      io::OpenSimModelDocument doc(osim_text, res.model);
      doc.setOffsetFrames(placement.frames);
      const io::OpenSimModel calibrated = io::parseOpenSimModel(doc.text(), res.model + " (calibrated)");
      // The walk.
      vo.drift_deg_per_min = sc.drift_deg_per_min;
      vo.seed = seed + 2;
      const io::OrientationTable walk = track::virtualImuTable(mounted, names, motion.times, truth, vo);
      track::ImuIkSpec spec = track::imuIkSpec(calibrated, walk.names);
      spec.data_rotation = R_S;
      const track::ImuTrialResult r = track::solveImuTrial(spec, walk);
      ImuExperimentRun run;
      run.scenario = sc.name;
      run.seed = seed;
      run.frames = static_cast<int>(r.frames.size());
      run.heading_correction_deg = placement.heading_correction * kDeg;
      double all = 0.0;
      long n = 0;
      for (int c : scored) {
        const io::OpenSimCoordinate& co = osim.coordinates[static_cast<std::size_t>(c)];
        double sum = 0.0;
        for (std::size_t k = 0; k < r.frames.size(); ++k) {
          const double e = (r.configurations[k].joints[co.joint.value] - truth[k].joints[co.joint.value]) *
                           (co.rotational ? kDeg : 1e3);
          sum += e * e;
          run.joint_max_deg = std::max(run.joint_max_deg, std::abs(e));
        }
        run.coordinate_rms_deg.push_back(std::sqrt(sum / static_cast<double>(r.frames.size())));
        all += sum;
        n += static_cast<long>(r.frames.size());
      }
      run.joint_rms_deg = std::sqrt(all / static_cast<double>(n));
      double e2 = 0.0;
      long ne = 0;
      std::vector<double> us;
      for (double e : r.errors)
        if (!std::isnan(e)) e2 += e * e, ++ne;
      for (const track::ImuFrame& f : r.frames) us.push_back(f.solve_microseconds);
      run.orientation_rms_deg = ne > 0 ? std::sqrt(e2 / static_cast<double>(ne)) * kDeg : 0.0;
      run.us_median = metrics::summarize(us).median;
      res.runs.push_back(std::move(run));
      ++done;
    }
  }
  reporter.report(total, total);
  if (!o.out.empty()) {
    app::prepareDirectory(o.out);
    std::string csv =
        "scenario,seed,frames,joint_rms_deg,joint_max_deg,orientation_rms_deg,heading_correction_deg,us_median";
    for (const std::string& c : res.coordinates) csv += "," + c + "_rms_deg";
    csv += "\n";
    for (const ImuExperimentRun& r : res.runs) {
      csv += fmt::format("{},{},{},{:.6f},{:.6f},{:.6f},{:.3f},{:.2f}", r.scenario, r.seed, r.frames, r.joint_rms_deg,
                         r.joint_max_deg, r.orientation_rms_deg, r.heading_correction_deg, r.us_median);
      for (double v : r.coordinate_rms_deg) csv += fmt::format(",{:.6f}", v);
      csv += "\n";
    }
    res.csv = (fs::path(o.out) / "imu.csv").string();
    app::writeTextFile(res.csv, csv);
  }
  return res;
}

std::string summaryText(const ImuExperimentResult& res) {
  // Mean over seeds per scenario; coordinates grouped (hip, knee, ankle, lumbar).
  const std::vector<std::pair<std::string, std::string>> groups = {
      {"hip", "hip_"}, {"knee", "knee_"}, {"ankle", "ankle_"}, {"lumbar", "lumbar_"}};
  std::string x = fmt::format("virtual IMUs on {} along OpenSim's IK of the walk ({} coordinates scored: {})\n",
                              res.model, res.coordinates.size(), fmt::format("{}", fmt::join(res.coordinates, ", ")));
  x += fmt::format("{:<50} {:>9} {:>9} {:>7} {:>7} {:>7} {:>7} {:>9} {:>8}\n", "scenario", "joint RMS", "max", "hip",
                   "knee", "ankle", "lumbar", "orient.", "µs/frame");
  std::vector<std::string> order;
  for (const ImuExperimentRun& r : res.runs)
    if (std::find(order.begin(), order.end(), r.scenario) == order.end()) order.push_back(r.scenario);
  for (const std::string& sc : order) {
    double rms = 0, mx = 0, orient = 0, us = 0;
    std::vector<double> g(groups.size(), 0.0), gn(groups.size(), 0.0);
    int n = 0;
    for (const ImuExperimentRun& r : res.runs) {
      if (r.scenario != sc) continue;
      ++n;
      rms += r.joint_rms_deg, mx = std::max(mx, r.joint_max_deg), orient += r.orientation_rms_deg, us += r.us_median;
      for (std::size_t c = 0; c < res.coordinates.size(); ++c)
        for (std::size_t k = 0; k < groups.size(); ++k)
          if (res.coordinates[c].starts_with(groups[k].second))
            g[k] += r.coordinate_rms_deg[c] * r.coordinate_rms_deg[c], gn[k] += 1;
    }
    x += fmt::format("{:<50} {:>8.3f}° {:>8.3f}°", sc, rms / n, mx);
    for (std::size_t k = 0; k < groups.size(); ++k)
      x += gn[k] > 0 ? fmt::format(" {:>6.2f}°", std::sqrt(g[k] / gn[k])) : fmt::format(" {:>7}", "-");
    x += fmt::format(" {:>8.2f}° {:>8.1f}\n", orient / n, us / n);
  }
  x += "joint RMS: mean over seeds of the RMS over every scored coordinate and frame; max: over seeds; hip … lumbar: "
       "RMS over the group's coordinates and the seeds; orient.: tracking's orientation error RMS.\n";
  if (!res.csv.empty()) x += "wrote " + res.csv + "\n";
  return x;
}

}  // namespace kinetrack::experiments
