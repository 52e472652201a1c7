// `kinetrack scale`: OpenSim's Scale tool on gait2354 (the factors table, the files), a setup
// naming a marker the static trial lacks (exit 2, the setup's file and line), and the required
// --setup.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

using kinetrack::testing::readFile;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;
using kinetrack::testing::ScratchDir;

TEST(CliScale, Gait2354) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_Scale.xml");
  KINETRACK_REQUIRE_SHARED(model, "data/opensim/gait2354_walk/gait2354_simbody_GENERIC.osim");
  ScratchDir dir("kinetrack_cli_scale_");
  const RunResult r = runCli({"scale", "--setup", setup, "--model", model, "--out", dir.file("s01.osim"),
                              "--static-pose", dir.file("static.mot")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("femur_r  1.1472  1.1472  1.1472"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pelvis  1.0246  1.0246  1.0246"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measurement torso                1.07972 (1 pairs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("75.165 → 72.600 kg"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("static pose marker error"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("body 'patella_r' is not a body of the model"), std::string::npos) << r.err;
  const kinetrack::io::OpenSimModel scaled = kinetrack::io::readOpenSimModel(dir.file("s01.osim"));
  EXPECT_EQ(scaled.markers.size(), 39u);
  const kinetrack::io::MotTable pose = kinetrack::io::readMot(dir.file("static.mot"));
  EXPECT_EQ(pose.times.size(), 1u);
  EXPECT_TRUE(pose.in_degrees);
  EXPECT_EQ(pose.columns.size(), 23u);
  // --strict: the setup's patella bodies, absent from the model, are an error.
  const RunResult strict = runCli({"scale", "--setup", setup, "--model", model, "--out", dir.file("x.osim"),
                                   "--static-pose", dir.file("x.mot"), "--strict"});
  EXPECT_EQ(strict.status, 2);
  EXPECT_NE(strict.err.find("subject01_Setup_Scale.xml:118: Measurement 'thigh': body 'patella_r'"), std::string::npos)
      << strict.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("x.osim")));
}

TEST(CliScale, MarkerAbsentFromTheTrialNamesTheSetupLine) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_Scale.xml");
  KINETRACK_REQUIRE_SHARED(model, "data/opensim/gait2354_walk/gait2354_simbody_GENERIC.osim");
  KINETRACK_REQUIRE_SHARED(markerset, "data/opensim/gait2354_walk/gait2354_Scale_MarkerSet.xml");
  KINETRACK_REQUIRE_SHARED(trc, "data/opensim/gait2354_walk/subject01_static.trc");
  ScratchDir dir("kinetrack_cli_scale_bad_");
  // The trial without Top.Head (renamed in its header).
  std::string text = readFile(trc);
  text.replace(text.find("Top.Head"), 8, "Top.Hat_");
  const std::string static_trc = dir.write("static.trc", text);
  const RunResult r = runCli({"scale", "--setup", setup, "--model", model, "--marker-set", markerset, "--markers",
                              static_trc, "--out", dir.file("s.osim"), "--static-pose", dir.file("s.mot")});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.err.find("subject01_Setup_Scale.xml:43: Measurement 'torso': marker 'Top.Head' is not in the static "
                       "trial"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.osim")));
  const RunResult none = runCli({"scale", "--model", model});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("--setup"), std::string::npos) << none.err;
}

TEST(CliScale, SetupOutputsOnlyWithoutOut) {
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_Scale.xml");
  KINETRACK_REQUIRE_SHARED(model, "data/opensim/gait2354_walk/gait2354_simbody_GENERIC.osim");
  KINETRACK_REQUIRE_SHARED(markerset, "data/opensim/gait2354_walk/gait2354_Scale_MarkerSet.xml");
  KINETRACK_REQUIRE_SHARED(trc, "data/opensim/gait2354_walk/subject01_static.trc");
  // The setup copied into a scratch folder: its outputs are written beside it.
  ScratchDir dir("kinetrack_cli_scale_outputs_");
  const std::string copy = dir.write("Setup_Scale.xml", readFile(setup));
  const std::vector<std::string> inputs = {"scale",        "--setup", copy,        "--model", model,
                                           "--marker-set", markerset, "--markers", trc,       "--quiet"};
  std::vector<std::string> with_out = inputs;
  with_out.insert(with_out.end(), {"--out", dir.file("given.osim")});
  const RunResult a = runCli(with_out);
  ASSERT_EQ(a.status, 0) << a.err;
  for (const char* name : {"subject01_simbody.osim", "subject01_static_output.mot", "subject01_scaleSet_applied.xml",
                           "subject01_scaledOnly.osim"})
    EXPECT_FALSE(std::filesystem::exists(dir.file(name))) << name;
  const RunResult b = runCli(inputs);
  ASSERT_EQ(b.status, 0) << b.err;
  for (const char* name : {"subject01_simbody.osim", "subject01_static_output.mot", "subject01_scaleSet_applied.xml",
                           "subject01_scaledOnly.osim"})
    EXPECT_TRUE(std::filesystem::exists(dir.file(name))) << name;
  EXPECT_EQ(readFile(dir.file("subject01_simbody.osim")), readFile(dir.file("given.osim")));
}

}  // namespace KINETRACK_UNITY_ID
