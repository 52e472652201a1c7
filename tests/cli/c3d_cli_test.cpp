// `kinetrack c3d info|export` end to end on OpenSim's walking2.c3d: the TRC equal to OpenSim's
// marker reading (std_walking2_markers.trc, Mokka's 5 significant digits), the GRF .mot and ExternalLoads XML
// read back by the ID job's own reader with each plate under the foot that stood on it, the
// analog .sto; bad input → exit 2 naming the file and item, nothing written.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "kinetrack/app/c3d_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_c3d_") {}
};

constexpr const char* kWalk = "data/c3d_forceplates/walking2.c3d";

TEST(CliC3d, ExportWritesOpenSimsFilesEqualToItsReading) {
  KINETRACK_REQUIRE_SHARED(c3d, kWalk);
  KINETRACK_REQUIRE_SHARED(std_trc, "data/c3d_forceplates/std_walking2_markers.trc");
  ScratchDir scratch;
  const std::string trc = scratch.file("w.trc"), grf = scratch.file("w_grf.mot"), xml = scratch.file("w_grf.xml"),
                    sto = scratch.file("w_analog.sto");
  const RunResult r = runCli({"c3d", "export", c3d, "--trc", trc, "--grf", grf, "--external-loads", xml, "--analog",
                              sto, "--force-location", "cop", "--channels", "Fz1,Fz2", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("44 markers at 250 Hz, 1249 frames"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("calcn_r"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("wrote " + xml + " (plate 1 → calcn_r, plate 2 → calcn_l)"), std::string::npos) << r.out;

  // Markers: ours (mm, lab axes) against OpenSim's at the rows it wrote.
  const kinetrack::io::MarkerTrajectories ours = kinetrack::io::readTrc(trc, {.y_up = false});
  const kinetrack::io::MarkerTrajectories ref = kinetrack::io::readTrc(std_trc, {.y_up = false});
  ASSERT_EQ(ours.names, ref.names);
  double worst = 0;
  int compared = 0;
  for (int f = 0; f < ref.numFrames(); ++f) {
    const int k = static_cast<int>(std::lround(ref.times[static_cast<std::size_t>(f)] * 250.0));
    ASSERT_LT(k, ours.numFrames());
    for (int m = 0; m < ref.numMarkers(); ++m) {
      EXPECT_EQ(ours.isValid(k, m), ref.isValid(f, m)) << ref.names[static_cast<std::size_t>(m)] << " frame " << k;
      if (!ref.isValid(f, m) || !ours.isValid(k, m)) continue;
      // Relative to the value: the reference holds 5 significant digits (1711.25 mm is 1711.3).
      for (int a = 0; a < 3; ++a)
        worst = std::max(worst, std::abs(ours.position(k, m)[a] - ref.position(f, m)[a]) /
                                    std::max(std::abs(ref.position(f, m)[a]), 1e-3));
      ++compared;
    }
  }
  EXPECT_EQ(compared, 2735);
  EXPECT_LE(worst, 5.0001e-5) << "relative: half a unit of the reference's 5th significant digit";

  // The loads, bound by the reader `dynamics id --loads` uses.
  const kinetrack::io::ExternalLoads loads = kinetrack::io::readExternalLoads(xml);
  ASSERT_EQ(loads.forces.size(), 2u);
  EXPECT_EQ(loads.forces[0].applied_to_body, "calcn_r");
  EXPECT_EQ(loads.forces[1].applied_to_body, "calcn_l");
  EXPECT_EQ(loads.data.columns.size(), 18u);
  EXPECT_NEAR(loads.lastTime(), 9991 / 2000.0, 1e-12);

  const kinetrack::io::MotTable a = kinetrack::io::readMot(sto);
  ASSERT_EQ(a.columns, (std::vector<std::string>{"Fz1", "Fz2"}));
  EXPECT_EQ(a.values.rows(), 9992);
  EXPECT_NEAR(a.values(1000, 0), 15.08336734771729, 1e-12);  // OpenSim's analog table at 0.5 s
}

TEST(CliC3d, RotationToOpenSimsYUpMovesTheVerticalForceToY) {
  KINETRACK_REQUIRE_SHARED(c3d, kWalk);
  kinetrack::app::C3dExportOptions o;
  o.input = c3d;
  const kinetrack::app::C3dExportResult lab = kinetrack::app::runC3dExport(o);
  o.rotate = "y-up";
  const kinetrack::app::C3dExportResult up = kinetrack::app::runC3dExport(o);
  const auto& f0 = lab.reactions.plates[0].force[3000];
  const auto& f1 = up.reactions.plates[0].force[3000];
  EXPECT_DOUBLE_EQ(f1.y(), f0.z());
  EXPECT_DOUBLE_EQ(f1.x(), f0.y());
  EXPECT_TRUE(kinetrack::app::parseRotation("x:-90").isApprox(
      (kinetrack::Matrix3d() << 1, 0, 0, 0, 0, 1, 0, -1, 0).finished(), 1e-12));
  EXPECT_TRUE(kinetrack::app::parseRotation("z:-90,x:-90").isApprox(kinetrack::app::parseRotation("y-up"), 1e-12));
  EXPECT_THROW(kinetrack::app::parseRotation("w:90"), kinetrack::InvalidArgument);
  EXPECT_THROW(kinetrack::app::parseRotation("x:ninety"), kinetrack::InvalidArgument);
}

TEST(CliC3d, BadInputIsAClearErrorAndNothingIsWritten) {
  KINETRACK_REQUIRE_SHARED(c3d, kWalk);
  ScratchDir scratch;
  const std::string trc = scratch.file("w.trc"), sto = scratch.file("a.sto");
  RunResult r = runCli({"c3d", "export", c3d, "--trc", trc, "--analog", sto, "--channels", "GMAX"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no analog channel 'GMAX' (channels: Fx1, Fy1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(trc));

  r = runCli({"c3d", "export", c3d, "--trc", trc, "--rotate", "q:90"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("'q:90' is not AXIS:DEGREES"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(trc));

  r = runCli({"c3d", "export", c3d, "--grf", scratch.file("g.mot"), "--external-loads", scratch.file("g.xml"),
              "--apply-to", "3=calcn_r"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("has 2 force plates"), std::string::npos) << r.err;

  r = runCli({"c3d", "export", scratch.file("missing.c3d"), "--trc", trc});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.c3d"), std::string::npos) << r.err;

  r = runCli({"c3d", "export", c3d});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("nothing to write"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID

namespace KINETRACK_UNITY_ID {

// `dynamics id --loads walk.c3d` equals exporting the plates (centre of pressure, 20 N, Y up)
// and giving the ExternalLoads XML: the plumbing, on gait2354's model and motion (walking2's
// plates belong to another subject, so the moments themselves mean nothing here).
TEST(CliC3d, InverseDynamicsTakesTheC3dsPlatesDirectly) {
  KINETRACK_REQUIRE_SHARED(c3d, kWalk);
  KINETRACK_REQUIRE_SHARED(model, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(motion, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  ScratchDir scratch;
  const std::string grf = scratch.file("g.mot"), xml = scratch.file("g.xml");
  RunResult r = runCli({"c3d", "export", c3d, "--grf", grf, "--external-loads", xml, "--force-location", "cop",
                        "--threshold", "20", "--rotate", "y-up", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string a = scratch.file("a.sto"), b = scratch.file("b.sto");
  r = runCli(
      {"dynamics", "id", "--quiet", "--model", model, "--motion", motion, "--cutoff", "6", "--loads", c3d, "--out", a});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("2 forces"), std::string::npos) << r.out;
  r = runCli(
      {"dynamics", "id", "--quiet", "--model", model, "--motion", motion, "--cutoff", "6", "--loads", xml, "--out", b});
  ASSERT_EQ(r.status, 0) << r.err;
  const kinetrack::io::MotTable ta = kinetrack::io::readMot(a), tb = kinetrack::io::readMot(b);
  ASSERT_EQ(ta.columns, tb.columns);
  // The .mot holds 17 significant digits: the two runs agree to rounding.
  EXPECT_LT((ta.values - tb.values).cwiseAbs().maxCoeff(), 1e-9);
}

}  // namespace KINETRACK_UNITY_ID
