// `kinetrack batch` rows of the commands other than track (retarget, markers ik, hand track,
// dynamics id; issue 20): each input's outputs are those of the single command run by hand with
// the same options (byte-identical; the summaries equal once their wall-time figures are
// dropped), a failing row fails alone with the command's message, an unknown command is refused
// naming the manifest line.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::readFile;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;
using kinetrack::testing::withoutTimings;

struct Row {
  std::string input, command, model, args;
  std::vector<std::string> single;                           ///< the single command, without its output flags
  std::vector<std::pair<std::string, std::string>> outputs;  ///< flag, extension
};

TEST(CliBatch, OtherCommandsGiveTheSingleCommandsOutputs) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  KINETRACK_REQUIRE_SHARED(icub, "models/icub/iCubGazeboV2_5_model.urdf");
  KINETRACK_REQUIRE_SHARED(human, "models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf");
  KINETRACK_REQUIRE_SHARED(movement, "data/c3d/pycgm_Movement_trial.c3d");
  KINETRACK_REQUIRE_SHARED(still, "data/c3d/pycgm_Static_trial.c3d");
  KINETRACK_REQUIRE_SHARED(vsk, "data/c3d/pycgm_Test.vsk");
  KINETRACK_REQUIRE_SHARED(tsv, "data/hand/dfki_glove_recording_20210826.tsv");
  kinetrack::testing::ScratchDir dir("kinetrack_batch_commands_");
  // The motion of `dynamics id`: the walk tracked on the human URDF.
  const std::string q = dir.file("walk_q.csv");
  RunResult r = runCli({"track", "--quiet", "--model", human, "--input", bvh, "--out", q});
  ASSERT_EQ(r.status, 0) << r.out << r.err;

  const std::string markers_args = "--markerset human66_plugin_gait --vsk " + vsk + " --static " + still;
  const std::vector<Row> rows{
      {bvh,
       "retarget",
       icub,
       "",
       {"retarget", "--robot", icub, "--input", bvh},
       {{"--out", ".csv"}, {"--summary-json", ".json"}}},
      {movement,
       "markers ik",
       "human66",
       markers_args,
       {"markers", "ik", "--model", "human66", "--markers", movement, "--markerset", "human66_plugin_gait", "--vsk",
        vsk, "--static", still},
       {{"--out", ".mot"}, {"--summary-json", ".json"}}},
      {tsv, "hand track", "", "", {"hand", "track", "--input", tsv}, {{"--out", ".csv"}, {"--summary-json", ".json"}}},
      {q, "dynamics id", human, "", {"dynamics", "id", "--model", human, "--motion", q}, {{"--out", ".csv"}}},
  };
  std::string manifest = "input,command,model,args\n";
  for (const Row& row : rows) manifest += row.input + "," + row.command + "," + row.model + "," + row.args + "\n";
  manifest += dir.file("missing.tsv") + ",hand track,,\n";  // fails alone
  r = runCli({"batch", "--manifest", dir.write("m.csv", manifest), "--out", dir.file("out"), "--threads", "2"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("5 inputs: 4 ok, 1 failed"), std::string::npos) << r.out;
  const std::string report = readFile(dir.file("out/report.csv"));
  EXPECT_NE(report.find("missing,hand track,,failed,2,"), std::string::npos) << report;
  EXPECT_NE(report.find("missing.tsv"), std::string::npos) << report;
  EXPECT_NE(report.find("walk_q,dynamics id,"), std::string::npos) << report;

  fs::create_directories(dir.file("single"));
  for (const Row& row : rows) {
    const std::string stem = fs::path(row.input).stem().string();
    std::vector<std::string> args = row.single;
    for (const auto& [flag, ext] : row.outputs) args.insert(args.end(), {flag, dir.file("single/" + stem + ext)});
    args.emplace_back("--quiet");
    r = runCli(args);
    ASSERT_EQ(r.status, 0) << row.command << ": " << r.out << r.err;
    EXPECT_NE(report.find(stem + "," + row.command + ","), std::string::npos) << report;
    for (const auto& [flag, ext] : row.outputs) {
      const std::string batch = readFile(dir.file("out/" + stem + ext)),
                        single = readFile(dir.file("single/" + stem + ext));
      ASSERT_FALSE(single.empty()) << stem << ext;
      if (ext == ".json")
        EXPECT_EQ(withoutTimings(nlohmann::json::parse(batch)), withoutTimings(nlohmann::json::parse(single)))
            << row.command << " " << stem << ext;
      else
        EXPECT_TRUE(batch == single) << row.command << ": " << stem << ext << " differs from the single command's";
    }
  }

  // An unknown command: refused before anything runs, naming the line.
  r = runCli({"batch", "--manifest", dir.write("bad.csv", "input,command\n" + tsv + ",hand trak\n"), "--out",
              dir.file("out2")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.csv:2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hand trak"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
