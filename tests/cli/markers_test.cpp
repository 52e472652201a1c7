// `kinetrack markers ik` end to end on OpenSim's gait2354 walk: the setup's files resolved beside
// the setup, files on the command line overriding them, OpenSim's .mot layout and marker-error
// table, the JSON summary's fields, and bad input (unknown marker in the setup, malformed number,
// missing file, a model that is not .osim) exiting with 2 and a message naming file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::readFile;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_markers_") {}
};

TEST(CliMarkers, Gait2354WalkWithTheSetup) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  KINETRACK_REQUIRE_SHARED(ref, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  ScratchDir dir;
  const std::string mot = dir.file("ik.mot"), err = dir.file("errors.sto"), js = dir.file("s.json");
  const RunResult r =
      runCli({"markers", "ik", "--quiet", "--setup", setup, "--out", mot, "--errors", err, "--summary-json", js});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("marker RMS"), std::string::npos) << r.out;
  const kinetrack::io::MotTable ours = kinetrack::io::readMot(mot), theirs = kinetrack::io::readMot(ref);
  EXPECT_EQ(ours.columns, theirs.columns);
  EXPECT_EQ(ours.times.size(), theirs.times.size());
  EXPECT_TRUE(ours.in_degrees);
  const kinetrack::io::MotTable e = kinetrack::io::readMot(err);
  EXPECT_EQ(e.columns, (std::vector<std::string>{"total_squared_error", "marker_error_RMS", "marker_error_max"}));
  EXPECT_EQ(e.times.size(), theirs.times.size());
  const nlohmann::json j = nlohmann::json::parse(readFile(js));
  EXPECT_EQ(j["frames"], 73);
  EXPECT_EQ(j["gaps"], 0);
  EXPECT_EQ(j["markers"], 31);
  // OpenSim's own solution leaves 22.0 mm RMS on this trial through our FK (tests/track/opensim_ik_test).
  EXPECT_NEAR(j["marker_rms_m"].get<double>(), 0.022, 0.001);
  EXPECT_GT(j["marker_max_m"].get<double>(), j["marker_rms_m"].get<double>());
  EXPECT_TRUE(j.contains("solve_us_median"));
}

// --out *.csv on an OpenSim model: kinetrack's joint CSV (the same coordinates as the .mot, in
// radians), which `kinetrack view` reads; it used to be .mot content under a .csv name.
TEST(CliMarkers, OpenSimModelToAJointCsv) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  ScratchDir dir;
  const std::string csv = dir.file("ik.csv"), mot = dir.file("ik.mot");
  ASSERT_EQ(runCli({"markers", "ik", "--quiet", "--setup", setup, "--out", csv}).status, 0);
  ASSERT_EQ(runCli({"markers", "ik", "--quiet", "--setup", setup, "--out", mot}).status, 0);
  const kinetrack::io::JointTrajectory q = kinetrack::io::readJointCsv(csv);
  const kinetrack::io::MotTable m = kinetrack::io::readMot(mot);
  ASSERT_EQ(q.numFrames(), static_cast<int>(m.times.size()));
  const auto knee = std::find(q.joint_names.begin(), q.joint_names.end(), "knee_angle_r") - q.joint_names.begin();
  const auto knee_mot = std::find(m.columns.begin(), m.columns.end(), "knee_angle_r") - m.columns.begin();
  for (int k = 0; k < q.numFrames(); ++k)  // the .mot prints degrees to its digits
    EXPECT_NEAR(q.joints(k, knee) * 180.0 / M_PI, m.values(k, knee_mot), 1e-4) << k;
  // OpenSim's ID reads it as well as the .mot.
  const std::string id_csv = dir.file("id_csv.sto"), id_mot = dir.file("id_mot.sto");
  ASSERT_EQ(runCli({"dynamics", "id", "--model", osim, "--motion", csv, "--cutoff", "6", "--out", id_csv}).status, 0);
  ASSERT_EQ(runCli({"dynamics", "id", "--model", osim, "--motion", mot, "--cutoff", "6", "--out", id_mot}).status, 0);
  const kinetrack::io::MotTable a = kinetrack::io::readMot(id_csv), b = kinetrack::io::readMot(id_mot);
  ASSERT_EQ(a.columns, b.columns);
  ASSERT_EQ(a.values.rows(), b.values.rows());
  EXPECT_LT((a.values - b.values).cwiseAbs().maxCoeff(), 1e-6);  // N m, N (4e-11 measured)
  const RunResult v = runCli({"view", "--model", osim, "--result", csv, "--out", dir.file("view")});
  if (v.err.find("not built into this kinetrack") == std::string::npos) {
    EXPECT_EQ(v.status, 0) << v.err;
  }
}

// Plug-in Gait C3D on the built-in human66: calibrated on the static trial, every frame of the
// movement trial within OpenSim's best-practice bound (2 cm marker RMS), one row per frame.
TEST(CliMarkers, PlugInGaitC3dOnHuman66) {
  KINETRACK_REQUIRE_SHARED(movement, "data/c3d/pycgm_Movement_trial.c3d");
  KINETRACK_REQUIRE_SHARED(still, "data/c3d/pycgm_Static_trial.c3d");
  KINETRACK_REQUIRE_SHARED(vsk, "data/c3d/pycgm_Test.vsk");
  ScratchDir dir;
  const std::string csv = dir.file("pig.csv"), err = dir.file("pig.sto"), js = dir.file("pig.json");
  const RunResult r =
      runCli({"markers", "ik", "--quiet", "--model", "human66", "--markerset", "human66_plugin_gait", "--vsk", vsk,
              "--static", still, "--markers", movement, "--out", csv, "--errors", err, "--summary-json", js});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("static calibration"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(readFile(js));
  EXPECT_EQ(j["frames"], 323);
  EXPECT_EQ(j["markers"], 39);
  EXPECT_EQ(j["held_frames"], 0);
  const kinetrack::io::MotTable e = kinetrack::io::readMot(err);
  ASSERT_EQ(e.times.size(), 323u);
  for (Eigen::Index k = 0; k < e.values.rows(); ++k) EXPECT_LT(e.values(k, 1), 0.02) << "frame " << k;
  const kinetrack::io::JointTrajectory q = kinetrack::io::readJointCsv(csv);
  EXPECT_EQ(q.numFrames(), 323);
  // A set marker the trial lacks, a missing set, a setup with a built-in model: exit 2.
  RunResult bad = runCli({"markers", "ik", "--quiet", "--model", "human66", "--markers", movement, "--out", csv});
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_NE(bad.err.find("--markerset"), std::string::npos) << bad.err;
  bad = runCli({"markers", "ik", "--quiet", "--model", "human66", "--markerset", "no_such_set", "--markers", movement,
                "--out", csv});
  EXPECT_EQ(bad.status, 2) << bad.err;
}

// Every command that takes --model reads .osim files too (io::loadModel): model info shows the
// function-driven knee and the note about the ignored muscles.
TEST(CliMarkers, ModelInfoReadsOsim) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  const RunResult r = runCli({"model", "info", osim});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("knee_angle_r"), std::string::npos);
  EXPECT_NE(r.out.find("custom"), std::string::npos);
  EXPECT_NE(r.out.find("DoF     23"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("ForceSet"), std::string::npos) << r.err;
}

TEST(CliMarkers, BadInputExitsWithTwo) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(trc, "data/opensim/gait2354_walk/subject01_walk1.trc");
  ScratchDir dir;
  const std::string mot = dir.file("ik.mot");
  // An IKMarkerTask naming a marker the model does not have: setup file and line.
  std::string text = readFile(setup);
  const std::size_t at = text.find("name=\"Top.Head\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 15, "name=\"Top.Hat\"");
  const std::string bad_setup = dir.write("bad_setup.xml", text);
  RunResult r =
      runCli({"markers", "ik", "--quiet", "--setup", bad_setup, "--model", osim, "--markers", trc, "--out", mot});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("bad_setup.xml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Top.Hat"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(mot));
  // A malformed number in the trial: file, line and marker.
  std::string trc_text = readFile(trc);
  const std::size_t row = trc_text.find("\n10\t");
  ASSERT_NE(row, std::string::npos);
  const std::size_t field = trc_text.find('\t', trc_text.find('\t', row + 1) + 1);
  trc_text.replace(field + 1, 3, "x.5");
  const std::string bad_trc = dir.write("bad.trc", trc_text);
  r = runCli({"markers", "ik", "--quiet", "--setup", setup, "--model", osim, "--markers", bad_trc, "--out", mot});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("bad.trc:"), std::string::npos) << r.err;
  // Missing files, a model that is not .osim, no output.
  r = runCli({"markers", "ik", "--quiet", "--model", dir.file("none.osim"), "--markers", trc, "--out", mot});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("none.osim"), std::string::npos) << r.err;
  r = runCli({"markers", "ik", "--quiet", "--model", osim, "--markers", dir.file("none.trc"), "--out", mot});
  EXPECT_EQ(r.status, 2) << r.err;
  r = runCli({"markers", "ik", "--quiet", "--model", "human66", "--setup", setup, "--markers", trc, "--out", mot});
  EXPECT_EQ(r.status, 2) << r.err;
  r = runCli({"markers", "ik", "--quiet", "--model", osim, "--markers", trc});
  EXPECT_EQ(r.status, 2) << r.err;
  // A time range outside the trial.
  r = runCli(
      {"markers", "ik", "--quiet", "--model", osim, "--markers", trc, "--out", mot, "--start", "50", "--end", "60"});
  EXPECT_EQ(r.status, 2) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
