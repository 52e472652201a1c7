// app::runBatch without a command-line callback (issue 37): the rows of retarget, markers ik, hand
// track and dynamics id are parsed with the options the library declares for those commands and
// run in-process (app::runCommandLine), giving the files of the single commands run by the CLI
// (byte-identical; the summaries equal once their wall-time figures are dropped, the logs once
// the lines of times are). A row with an option the library does not declare (the CLI's --plot)
// fails alone, naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../cli/cli_runner.hpp"
#include "kinetrack/app/batch.hpp"
#include "kinetrack/core/errors.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::readFile;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;
using kinetrack::testing::ScratchDir;
using kinetrack::testing::withoutTimings;
namespace app = kinetrack::app;

/// The lines of a printed text without those of times ("wall time …", "… frames/s", "… us"), sorted (the
/// single command prints warnings to stderr, a row's log has them in their place).
std::vector<std::string> linesWithoutTimes(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> kept;
  for (std::string line; std::getline(in, line);)
    if (line.find("wall time") == std::string::npos && line.find("/s") == std::string::npos &&
        line.find("µs") == std::string::npos && line.find(" us") == std::string::npos)
      kept.push_back(line);
  std::sort(kept.begin(), kept.end());
  return kept;
}

TEST(AppBatch, OtherCommandsRunWithoutACallbackAsTheSingleCommands) {
  KINETRACK_REQUIRE_SHARED(run, "data/bvh/bandai/dataset-2_run_normal_001.bvh");
  KINETRACK_REQUIRE_SHARED(icub, "models/icub/iCubGazeboV2_5_model.urdf");
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(trc, "data/opensim/gait2354_walk/subject01_walk1.trc");
  KINETRACK_REQUIRE_SHARED(setup, "data/opensim/gait2354_walk/subject01_Setup_IK.xml");
  KINETRACK_REQUIRE_SHARED(mot, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  KINETRACK_REQUIRE_SHARED(tsv, "data/hand/dfki_glove_recording_20210826.tsv");
  ScratchDir dir("kinetrack_app_batch_");
  fs::create_directories(dir.file("plot"));
  const std::string bad = dir.file("plot/walk1.trc");
  fs::copy_file(trc, bad);
  const std::string manifest = dir.write(
      "m.csv", "input,command,model,args\n" + run + ",retarget," + icub + ",\n" + trc + ",markers ik," + osim +
                   ",--setup " + setup + "\n" + tsv + ",hand track,,--backend cga\n" + mot + ",dynamics id," + osim +
                   ",--cutoff 6\n" + bad + ",markers ik," + osim + ",--setup " + setup + " --plot p.png\n");
  app::BatchRunOptions o;
  o.manifest = manifest;
  o.out = dir.file("lib");
  o.threads = 2;
  const app::BatchRunResult r = app::runBatch(o);  // no BatchCommandLine: the library's
  EXPECT_EQ(r.report.ok, 4) << r.report.text;
  EXPECT_EQ(r.report.failed, 1) << r.report.text;
  EXPECT_EQ(r.report.exit, 2);
  // The CLI's --plot is not a library option: that row fails alone, naming it.
  EXPECT_NE(r.report.text.find("--plot"), std::string::npos) << r.report.text;

  const std::vector<app::BatchJob> jobs = app::readManifest(manifest, {});
  ASSERT_EQ(jobs.size(), 5U);
  fs::create_directories(dir.file("single"));
  for (std::size_t i = 0; i < 4; ++i) {
    const app::BatchJob& job = jobs[i];
    // The single command with the row's arguments, writing into single/.
    const std::vector<std::string> args = app::commandArguments(job, dir.file("single"));
    const RunResult single = runCli(args);
    ASSERT_EQ(single.status, 0) << job.command << ": " << single.out << single.err;
    std::string log = readFile(dir.file("lib/logs/" + job.stem + ".log"));
    for (auto at = log.find(dir.file("lib")); at != std::string::npos; at = log.find(dir.file("lib")))
      log.replace(at, dir.file("lib").size(), dir.file("single"));  // the "wrote …" lines
    EXPECT_EQ(linesWithoutTimes(log), linesWithoutTimes(single.out + single.err)) << job.command;
    const std::vector<std::string> lib = app::batchOutputs(job, dir.file("lib")),
                                   cli = app::batchOutputs(job, dir.file("single"));
    for (std::size_t k = 0; k < lib.size(); ++k) {
      const std::string a = readFile(lib[k]), b = readFile(cli[k]);
      ASSERT_FALSE(b.empty()) << cli[k];
      if (fs::path(lib[k]).extension() == ".json")
        EXPECT_EQ(withoutTimings(nlohmann::json::parse(a)), withoutTimings(nlohmann::json::parse(b))) << lib[k];
      else
        EXPECT_TRUE(a == b) << lib[k] << " differs from the CLI's " << cli[k];
    }
  }
}

TEST(AppBatch, RunCommandLineRefusesWhatTheCommandDoesNotTake) {
  std::string log;
  try {
    app::runCommandLine({"hand", "track", "--input", "x.tsv", "--out", "x.csv", "--plot", "x.png"}, log);
    FAIL() << "--plot accepted";
  } catch (const kinetrack::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("--plot"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      app::runCommandLine({"hand", "track", "--input", "x.tsv", "--out", "x.csv", "--calibration-frames", "10:x"}, log),
      kinetrack::InvalidArgument);
  EXPECT_THROW(app::runCommandLine({"track", "--input", "x.bvh"}, log), kinetrack::InvalidArgument);
  EXPECT_TRUE(log.empty()) << log;
}

}  // namespace KINETRACK_UNITY_ID
