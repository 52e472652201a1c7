// End-to-end tests of `kinetrack batch` (issue 20): the same manifest on 1 thread, 2 threads and
// 2 / 3 MPI ranks gives byte-identical per-input outputs; broken inputs fail alone and are
// reported; a run killed mid-way completes with --resume to the same outputs.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::readFile;
using kinetrack::testing::RunResult;
using kinetrack::testing::shellQuote;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_batch_") {}
};

RunResult run(const std::vector<std::string>& args) { return kinetrack::testing::runCli(args); }

/// A manifest of the first `count` shared BVH clips on human66 (`extra` columns appended).
std::string clipManifest(const ScratchDir& dir, std::size_t count, const std::string& name = "manifest.csv") {
  std::string text = "input,model\n";
  const std::vector<std::string> clips = kinetrack::testing::sharedBvhClips();
  for (std::size_t i = 0; i < clips.size() && i < count; ++i)
    text += kinetrack::testing::sharedFile("data/" + clips[i]) + ",human66\n";
  return dir.write(name, text);
}

/// Every per-input output file of an output directory (report and status records excluded).
std::map<std::string, std::string> outputs(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename() != "report.csv")
      files[e.path().filename().string()] = readFile(e.path());
  return files;
}

std::size_t countFiles(const fs::path& dir) {
  std::error_code ec;
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir, ec)) n += e.path().extension() == ".json" ? 1 : 0;
  return n;
}

void expectSameOutputs(const std::map<std::string, std::string>& a, const fs::path& dir) {
  const std::map<std::string, std::string> b = outputs(dir);
  ASSERT_EQ(a.size(), b.size()) << dir;
  for (const auto& [name, text] : a) {
    ASSERT_EQ(b.count(name), 1U) << name;
    EXPECT_TRUE(b.at(name) == text) << dir / name << " differs";
  }
}

#ifdef KINETRACK_TEST_MPIEXEC
std::string mpiCommand(int ranks, const std::vector<std::string>& args) {
  // Leak checking off in the ranks (exported with -x): OpenMPI's runtime (libopen-pal) leaks its
  // argv copies at exit, which LeakSanitizer reports in the sanitizer build. The thread-pool runs
  // of the same tests keep it on.
  std::string cmd = "ASAN_OPTIONS=detect_leaks=0 " + shellQuote(KINETRACK_TEST_MPIEXEC) +
                    " -x ASAN_OPTIONS --allow-run-as-root --oversubscribe -np " + std::to_string(ranks) + " " +
                    shellQuote(kinetrack::testing::cliPath()) + " batch --mpi";
  for (const std::string& a : args) cmd += " " + shellQuote(a);
  return cmd;
}
#endif

TEST(CliBatch, ThreadsAndMpiRanksGiveByteIdenticalOutputs) {
  if (kinetrack::testing::sharedBvhClips().size() < 6) GTEST_SKIP() << "../shared BVH clips not found";
  ScratchDir dir;
  const std::string manifest = clipManifest(dir, 6);
  const RunResult one = run({"batch", "--manifest", manifest, "--out", dir.file("t1"), "--threads", "1"});
  ASSERT_EQ(one.status, 0) << one.out << one.err;
  EXPECT_NE(one.out.find("6 inputs: 6 ok, 0 failed"), std::string::npos) << one.out;
  const std::map<std::string, std::string> reference = outputs(dir.file("t1"));
  ASSERT_EQ(reference.size(), 12U);  // <stem>.csv and <stem>.json per input

  const RunResult two = run({"batch", "--manifest", manifest, "--out", dir.file("t2"), "--threads", "2"});
  ASSERT_EQ(two.status, 0) << two.out << two.err;
  expectSameOutputs(reference, dir.file("t2"));
#ifdef KINETRACK_TEST_MPIEXEC
  for (const int ranks : {2, 3}) {
    const std::string out = dir.file("mpi" + std::to_string(ranks));
    const std::string cmd = mpiCommand(ranks, {"--manifest", manifest, "--out", out, "--quiet"}) + " > " +
                            shellQuote(out + ".log") + " 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << readFile(out + ".log");
    expectSameOutputs(reference, out);
    const std::string report = readFile(fs::path(out) / "report.csv");
    EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 7) << report;  // header + 6 rows, on rank 0 only
  }
#else
  GTEST_SKIP() << "kinetrack built without MPI: the thread runs were compared, the MPI runs skipped";
#endif
}

TEST(CliBatch, BrokenInputsFailAloneAndAreReported) {
  KINETRACK_REQUIRE_SHARED(good, "data/bvh/xsens/xsens_test_mocap.bvh");
  ScratchDir dir;
  const std::string truncated = dir.write("truncated.bvh", readFile(good).substr(0, 3000));
  const std::string garbage = dir.write("garbage.bvh", "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 nan\n");
  const std::string manifest =
      dir.write("m.csv", "input,model\n" + good + ",human66\n" + truncated + ",human66\nmissing.bvh,human66\n" +
                             garbage + ",human66\n" + good.substr(0, good.size() - 4) + ".bvh,no-such-model\n");
  // The last row repeats the good input's stem: rejected before anything runs.
  RunResult r = run({"batch", "--manifest", manifest, "--out", dir.file("out")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("same stem"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("m.csv:6"), std::string::npos) << r.err;

  const std::string m3 = dir.write("m3.csv", "input,model\n" + good + ",human66\n" + truncated +
                                                 ",human66\nmissing.bvh,human66\n" + garbage + ",human66\n");
  r = run({"batch", "--manifest", m3, "--out", dir.file("out"), "--threads", "2"});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("4 inputs: 1 ok, 3 failed"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir.file("out/xsens_test_mocap.csv")));
  EXPECT_TRUE(fs::exists(dir.file("out/xsens_test_mocap.json")));
  for (const char* stem : {"truncated", "missing", "garbage"}) {
    EXPECT_FALSE(fs::exists(dir.file(std::string("out/") + stem + ".csv"))) << stem;
    EXPECT_FALSE(fs::exists(dir.file(std::string("out/") + stem + ".csv.part"))) << stem;
  }
  const std::string report = readFile(dir.file("out/report.csv"));
  EXPECT_NE(report.find("xsens_test_mocap,track,human66,ok,0,112,"), std::string::npos) << report;
  EXPECT_NE(report.find("missing,track,human66,failed,2,"), std::string::npos) << report;
  EXPECT_NE(report.find("cannot open file"), std::string::npos) << report;
  EXPECT_NE(report.find("truncated,track,human66,failed,2,"), std::string::npos) << report;
  EXPECT_NE(report.find("garbage,track,human66,failed,2,"), std::string::npos) << report;

  // A bad manifest cell names the file, line and field.
  const std::string bad = dir.write("bad.csv", "input,model,rate\n" + good + ",human66,fast\n");
  r = run({"batch", "--manifest", bad, "--out", dir.file("out2")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.csv:2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'rate'"), std::string::npos) << r.err;
  const std::string unknown = dir.write("unknown.csv", "input,modle\n" + good + ",human66\n");
  r = run({"batch", "--manifest", unknown, "--out", dir.file("out3")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown column 'modle'"), std::string::npos) << r.err;
}

TEST(CliBatch, ResumeRedoesOnlyWhatIsMissing) {
  if (kinetrack::testing::sharedBvhClips().size() < 4) GTEST_SKIP() << "../shared BVH clips not found";
  ScratchDir dir;
  const std::string manifest = clipManifest(dir, 4);
  const std::string out = dir.file("out");
  ASSERT_EQ(run({"batch", "--manifest", manifest, "--out", out}).status, 0);
  const std::map<std::string, std::string> reference = outputs(out);
  // Lose one input's CSV, another's status record, leave a stale .part: two inputs to redo.
  const std::vector<std::string> clips = kinetrack::testing::sharedBvhClips();
  const std::string a = fs::path(clips[0]).stem().string(), b = fs::path(clips[1]).stem().string();
  fs::remove(fs::path(out) / (a + ".csv"));
  fs::remove(fs::path(out) / "status" / (b + ".json"));
  std::ofstream(fs::path(out) / (a + ".csv.part")) << "partial";
  fs::remove(fs::path(out) / "report.csv");
  const RunResult r = run({"batch", "--manifest", manifest, "--out", out, "--resume"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 inputs (2 to do, 2 already done)"), std::string::npos) << r.out;
  fs::remove(fs::path(out) / (a + ".csv.part"));
  expectSameOutputs(reference, out);
  EXPECT_TRUE(fs::exists(fs::path(out) / "report.csv"));
}

#ifdef KINETRACK_TEST_MPIEXEC
TEST(CliBatch, KilledRankThenResumeCompletesWithIdenticalOutputs) {
  if (kinetrack::testing::sharedBvhClips().size() < 12) GTEST_SKIP() << "../shared BVH clips not found";
  ScratchDir dir;
  const std::string manifest = clipManifest(dir, 100);
  const std::vector<std::string> common = {"--manifest", manifest, "--solver", "wholebody", "--quiet"};
  std::vector<std::string> args = common;
  args.insert(args.end(), {"--out", dir.file("reference"), "--threads", "1"});
  ASSERT_EQ(run([&] {
              std::vector<std::string> a{"batch"};
              a.insert(a.end(), args.begin(), args.end());
              return a;
            }())
                .status,
            0);
  const std::map<std::string, std::string> reference = outputs(dir.file("reference"));

  // Start 2 ranks in the background; once the first input is done, SIGKILL one rank.
  const std::string out = dir.file("out"), pidfile = dir.file("mpirun.pid");
  std::vector<std::string> margs = common;
  margs.insert(margs.end(), {"--out", out});
  const std::string cmd = "(" + mpiCommand(2, margs) + " > " + shellQuote(dir.file("mpi.log")) + " 2>&1 & echo $! > " +
                          shellQuote(pidfile) + ")";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (countFiles(fs::path(out) / "status") == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int mpirun = std::stoi(readFile(pidfile));
  const std::string children = fs::path(dir.file("ranks")).string();
  ASSERT_EQ(std::system(("pgrep -P " + std::to_string(mpirun) + " > " + shellQuote(children)).c_str()), 0);
  const int rank = std::stoi(readFile(children));
  ASSERT_EQ(::kill(rank, SIGKILL), 0);
  while (fs::exists("/proc/" + std::to_string(mpirun)) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::size_t done = countFiles(fs::path(out) / "status");
  EXPECT_LT(done, reference.size() / 2) << "the run finished before the kill: " << readFile(dir.file("mpi.log"));

  margs.push_back("--resume");
  const std::string resume = mpiCommand(2, margs) + " > " + shellQuote(dir.file("resume.log")) + " 2>&1";
  ASSERT_EQ(std::system(resume.c_str()), 0) << readFile(dir.file("resume.log"));
  EXPECT_NE(readFile(dir.file("resume.log")).find("already done"), std::string::npos);
  for (const auto& e : fs::directory_iterator(out)) EXPECT_NE(e.path().extension(), ".part") << e.path();
  expectSameOutputs(reference, out);
}
#endif

}  // namespace KINETRACK_UNITY_ID
