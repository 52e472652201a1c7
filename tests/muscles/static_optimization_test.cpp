// Static optimisation of OpenSim's arm26 test against OpenSim's own references
// (../shared/data/opensim/arm26_static_optimization, README there), and the Eq. 13 QP/LP.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/muscles/muscle_trial.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::muscles {
namespace KINETRACK_UNITY_ID {

constexpr const char* kDir = "data/opensim/arm26_static_optimization/";

std::string readText(const std::string& path);

struct Arm26Run {
  MuscleTrialResult result;
  io::MotTable activation_ref, force_ref;
};

// Runs `model` with `setup` over the whole motion, as the AnalyzeTool does it.
Arm26Run runArm26(const std::string& model, const std::string& setup_file, const std::string& reference,
                  Method method) {
  const std::string dir = testing::sharedFile(kDir);
  const io::StaticOptimizationSetup setup = io::readStaticOptimizationSetup(dir + setup_file);
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(dir + model));
  auto paths = std::make_shared<MusclePaths>(osim, io::readOpenSimMuscles(dir + model));
  const std::string motion_path = setup.resolve(setup.coordinates_file);
  const io::MotTable motion = io::readMot(motion_path);
  MuscleTrialOptions o;
  o.forces.method = method;
  o.forces.use_muscle_physiology = setup.use_muscle_physiology;
  o.lowpass_hz = setup.lowpass_hz;
  o.time_start = setup.time_start;
  o.time_end = setup.time_end;
  o.in_degrees = motInDegrees(readText(motion_path));
  Arm26Run r;
  r.result = solveMuscleTrial(paths, motion, motion_path, o);
  r.activation_ref = io::readMot(dir + "std_Thelen2003Muscle_" + reference + "_StaticOptimization_activation.sto");
  r.force_ref = io::readMot(dir + "std_Thelen2003Muscle_" + reference + "_StaticOptimization_force.sto");
  return r;
}

std::string readText(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::string s;
  if (!f) return s;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

// RMS over our frames of (ours − reference linearly interpolated at our times), per column.
double rmsAgainst(const MuscleTrialResult& r, bool forces, const io::MotTable& ref, const std::string& column) {
  const auto it = std::find(r.names.begin(), r.names.end(), column);
  const auto jt = std::find(ref.columns.begin(), ref.columns.end(), column);
  EXPECT_TRUE(it != r.names.end() && jt != ref.columns.end()) << column;
  const Eigen::Index c = it - r.names.begin(), k = jt - ref.columns.begin();
  double sum = 0.0;
  for (std::size_t f = 0; f < r.times.size(); ++f) {
    const double t = r.times[f];
    std::size_t j = 1;
    while (j + 1 < ref.times.size() && ref.times[j] < t) ++j;
    const double a = (t - ref.times[j - 1]) / (ref.times[j] - ref.times[j - 1]);
    const double v =
        (1 - a) * ref.values(static_cast<Eigen::Index>(j - 1), k) + a * ref.values(static_cast<Eigen::Index>(j), k);
    const double ours = forces ? r.force(static_cast<Eigen::Index>(f), c) : r.control(static_cast<Eigen::Index>(f), c);
    sum += (ours - v) * (ours - v);
  }
  return std::sqrt(sum / static_cast<double>(r.times.size()));
}

TEST(StaticOptimization, Arm26MatchesOpenSimWithinItsTestTolerances) {
  KINETRACK_REQUIRE_SHARED(dir, kDir);
  const Arm26Run run =
      runArm26("arm26.osim", "arm26_Setup_StaticOptimization.xml", "arm26", Method::StaticOptimization);
  ASSERT_GT(run.result.times.size(), 50u);
  EXPECT_EQ(run.result.infeasibleFrames(), 0);
  for (const std::string& m : run.activation_ref.columns) {
    const double ra = rmsAgainst(run.result, false, run.activation_ref, m);
    const double rf = rmsAgainst(run.result, true, run.force_ref, m);
    std::printf("%-9s activation RMS %.4f  force RMS %.3f N\n", m.c_str(), ra, rf);
    EXPECT_LT(ra, 0.025) << m;  // OpenSim's testStaticOptimization tolerances
    EXPECT_LT(rf, 4.0) << m;
  }
}

TEST(StaticOptimization, Arm26BoundedVariantMatchesOpenSim) {
  KINETRACK_REQUIRE_SHARED(dir, kDir);
  const Arm26Run run = runArm26("arm26_bounds.osim", "arm26_bounds_Setup_StaticOptimization.xml", "arm26_bounds",
                                Method::StaticOptimization);
  ASSERT_GT(run.result.times.size(), 30u);
  for (const std::string& m : run.activation_ref.columns) {
    const double ra = rmsAgainst(run.result, false, run.activation_ref, m);
    const double rf = rmsAgainst(run.result, true, run.force_ref, m);
    std::printf("%-9s activation RMS %.4f  force RMS %.3f N\n", m.c_str(), ra, rf);
    EXPECT_LT(ra, 0.025) << m;
    EXPECT_LT(rf, 4.0) << m;
  }
  EXPECT_GE(run.result.control.leftCols(6).minCoeff(), 0.01 - 1e-9);  // min_control 0.01
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::muscles

namespace kinetrack::muscles {
namespace KINETRACK_UNITY_ID {

// gait2354 walk with its ground reactions (OpenSim ID pipeline of branch msk), pelvis residuals and
// the CMC reserve actuators: every frame feasible, and the on/off timing of the 54 muscles loosely
// like OpenSim's CMC activations (a different method: a sanity check, not a match).
TEST(StaticOptimization, Gait2354WalkOnOffTimingLooselyLikeCmc) {
  KINETRACK_REQUIRE_SHARED(dir, "data/opensim/gait2354_walk/");
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(dir + "subject01_simbody.osim"));
  auto paths = std::make_shared<MusclePaths>(osim, io::readOpenSimMuscles(dir + "subject01_simbody.osim"));
  const io::ExternalLoads loads = io::readExternalLoads(dir + "subject01_walk1_grf.xml");
  const std::string motion_path = dir + "subject01_walk1_ik_REFERENCE.mot";
  MuscleTrialOptions o;
  o.forces.actuators = io::readOpenSimActuators(dir + "gait2354_CMC_Actuators.xml");
  for (const char* p : {"pelvis_tx", "pelvis_ty", "pelvis_tz", "pelvis_tilt", "pelvis_list", "pelvis_rotation"}) {
    io::OpenSimCoordinateActuator a;
    a.name = std::string(p) + "_residual";
    a.coordinate = p;
    o.forces.actuators.push_back(a);
  }
  o.lowpass_hz = 6.0;
  o.time_start = 0.4;
  o.time_end = 1.6;
  o.in_degrees = motInDegrees(readText(motion_path));
  o.loads = &loads;
  const MuscleTrialResult r = solveMuscleTrial(paths, io::readMot(motion_path), motion_path, o);
  ASSERT_EQ(r.times.size(), 73u);
  EXPECT_EQ(r.infeasibleFrames(), 0);
  EXPECT_TRUE(r.control.allFinite());
  EXPECT_GE(r.control.leftCols(54).minCoeff(), 0.0);
  EXPECT_LE(r.control.leftCols(54).maxCoeff(), 1.0);
  const io::MotTable cmc = io::readMot(dir + "ResultsCMC_REFERENCE/subject01_walk1_states.sto");
  std::vector<double> agreement;
  for (int i = 0; i < 54; ++i) {
    const auto it = std::find(cmc.columns.begin(), cmc.columns.end(), r.names[i] + ".activation");
    ASSERT_NE(it, cmc.columns.end()) << r.names[i];
    const Eigen::Index k = it - cmc.columns.begin();
    std::vector<double> ours, ref;
    for (std::size_t f = 0; f < r.times.size(); ++f) {
      const double t = r.times[f];
      if (t < cmc.times.front() || t > cmc.times.back()) continue;
      std::size_t j = 1;
      while (j + 1 < cmc.times.size() && cmc.times[j] < t) ++j;
      const double a = (t - cmc.times[j - 1]) / (cmc.times[j] - cmc.times[j - 1]);
      ours.push_back(r.control(static_cast<Eigen::Index>(f), i));
      ref.push_back((1 - a) * cmc.values(static_cast<Eigen::Index>(j - 1), k) +
                    a * cmc.values(static_cast<Eigen::Index>(j), k));
    }
    // "On": above half of the muscle's own peak in the window (never on when the peak < 0.02).
    const double mo = *std::max_element(ours.begin(), ours.end()), mr = *std::max_element(ref.begin(), ref.end());
    int same = 0;
    for (std::size_t f = 0; f < ours.size(); ++f)
      same += ((mo > 0.02 && ours[f] > 0.5 * mo) == (mr > 0.02 && ref[f] > 0.5 * mr)) ? 1 : 0;
    agreement.push_back(static_cast<double>(same) / static_cast<double>(ours.size()));
  }
  std::sort(agreement.begin(), agreement.end());
  const double median = agreement[agreement.size() / 2];
  std::printf("on/off agreement with CMC over 0.83-1.2 s: median %.2f, lowest %.2f\n", median, agreement.front());
  EXPECT_GT(median, 0.7);
}

bool sameBytes(const MatrixXd& a, const MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

TEST(StaticOptimization, AWholeTrialOnAnyNumberOfThreadsGivesTheSameBytes) {
  KINETRACK_REQUIRE_SHARED(dir, "data/opensim/gait2354_walk/");
  auto osim = std::make_shared<io::OpenSimModel>(io::readOpenSimModel(dir + "subject01_simbody.osim"));
  auto paths = std::make_shared<MusclePaths>(osim, io::readOpenSimMuscles(dir + "subject01_simbody.osim"));
  const io::ExternalLoads loads = io::readExternalLoads(dir + "subject01_walk1_grf.xml");
  const std::string motion_path = dir + "subject01_walk1_ik_REFERENCE.mot";
  const io::MotTable motion = io::readMot(motion_path);
  MuscleTrialOptions o;
  o.forces.actuators = io::readOpenSimActuators(dir + "gait2354_CMC_Actuators.xml");
  for (const char* p : {"pelvis_tx", "pelvis_ty", "pelvis_tz", "pelvis_tilt", "pelvis_list", "pelvis_rotation"}) {
    io::OpenSimCoordinateActuator a;
    a.name = std::string(p) + "_residual";
    a.coordinate = p;
    o.forces.actuators.push_back(a);
  }
  o.lowpass_hz = 6.0;
  o.time_start = 0.4;
  o.time_end = 1.6;
  o.in_degrees = motInDegrees(readText(motion_path));
  o.loads = &loads;
  for (const Method method : {Method::StaticOptimization, Method::QP, Method::LP}) {
    o.forces.method = method;
    o.threads = 1;
    int last_progress = 0;
    const MuscleTrialResult one =
        solveMuscleTrial(paths, motion, motion_path, o, [&](int done, int) { last_progress = done; });
    ASSERT_EQ(one.times.size(), 73u);
    EXPECT_EQ(last_progress, 73);
    for (const int threads : {2, 3, 7}) {
      o.threads = threads;
      const MuscleTrialResult many = solveMuscleTrial(paths, motion, motion_path, o);
      EXPECT_EQ(many.times, one.times) << toString(method) << ", " << threads << " threads";
      EXPECT_EQ(many.feasible, one.feasible) << toString(method) << ", " << threads << " threads";
      EXPECT_TRUE(sameBytes(many.control, one.control)) << toString(method) << ", " << threads << " threads";
      EXPECT_TRUE(sameBytes(many.force, one.force)) << toString(method) << ", " << threads << " threads";
      EXPECT_TRUE(sameBytes(many.residual, one.residual)) << toString(method) << ", " << threads << " threads";
    }
  }
  o.threads = -1;
  EXPECT_THROW((void)solveMuscleTrial(paths, motion, motion_path, o), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::muscles
