// Static optimisation of OpenSim's arm26 test against OpenSim's own references
// (../shared/data/opensim/arm26_static_optimization, README there), and the Eq. 13 QP/LP.
#include <gtest/gtest.h>

#include <cmath>

#include "kinetrack/io/opensim.hpp"
#include "kinetrack/muscles/muscle_trial.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::muscles {
namespace {

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

}  // namespace
}  // namespace kinetrack::muscles
