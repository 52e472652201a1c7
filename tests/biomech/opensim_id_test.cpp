// Inverse dynamics of OpenSim models with external loads against OpenSim's own ID tool output
// (../shared/data/opensim), plus the custom-joint RNEA checked by CRBA and by the energy balance.
#include "kinetrack/biomech/opensim_id.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::biomech {
namespace {

constexpr const char* kGait = "data/opensim/gait2354_walk/";
constexpr const char* kArm = "data/opensim/arm26_inverse_dynamics/";

void printComparison(const std::vector<ColumnComparison>& cmp) {
  for (const ColumnComparison& c : cmp)
    std::printf("  %-28s rms %8.4f  max %8.4f  (reference range %8.2f, %d frames)\n", c.column.c_str(), c.rms,
                c.max_abs, c.reference_range, c.frames);
}

TEST(OpenSimId, Gait2354WalkMatchesOpenSimWithin2NmRms) {
  KINETRACK_REQUIRE_SHARED(model_path, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = model_path.substr(0, model_path.rfind('/') + 1);
  const io::OpenSimModel model = io::readOpenSimModel(model_path);
  const io::IdSetup setup = io::readIdSetup(dir + "subject01_Setup_InverseDynamics.xml");
  const io::ExternalLoads loads = io::readExternalLoads(dir + "subject01_walk1_grf.xml");
  const io::MotTable motion = io::readMot(dir + "subject01_walk1_ik_REFERENCE.mot");
  const io::MotTable reference = io::readMot(dir + "subject01_walk1_id_REFERENCE.sto");
  const OpenSimIdResult ours = opensimInverseDynamics(model, motion, &loads, OpenSimIdOptions::fromSetup(setup));
  ASSERT_EQ(ours.times.size(), reference.times.size());
  const std::vector<ColumnComparison> cmp = compareColumns(ours, reference);
  printComparison(cmp);
  ASSERT_EQ(cmp.size(), 23u);
  for (const ColumnComparison& c : cmp) {
    EXPECT_EQ(c.frames, 73) << c.column;
    // Residual forces (N) and every moment (N m).
    EXPECT_LT(c.rms, 2.0) << c.column;
  }
}

TEST(OpenSimId, Arm26MatchesOpenSimWithinItsTestTolerance) {
  KINETRACK_REQUIRE_SHARED(model_path, std::string(kArm) + "arm26.osim");
  const std::string dir = model_path.substr(0, model_path.rfind('/') + 1);
  const io::OpenSimModel model = io::readOpenSimModel(model_path);
  const io::IdSetup setup = io::readIdSetup(dir + "arm26_Setup_InverseDynamics.xml");
  EXPECT_EQ(setup.coordinates_in_degrees, 1);
  const io::MotTable motion = io::readMot(dir + "arm26_InverseKinematics.mot");
  const io::MotTable reference = io::readMot(dir + "std_arm26_InverseDynamics.sto");
  const OpenSimIdResult ours = opensimInverseDynamics(model, motion, nullptr, OpenSimIdOptions::fromSetup(setup));
  const std::vector<ColumnComparison> cmp = compareColumns(ours, reference);
  printComparison(cmp);
  ASSERT_EQ(cmp.size(), 2u);
  for (const ColumnComparison& c : cmp) {
    EXPECT_GE(c.frames, 120) << c.column;
    EXPECT_LT(c.rms, 0.01) << c.column;
  }
}

}  // namespace
}  // namespace kinetrack::biomech
