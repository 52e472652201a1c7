// `kinetrack serve` and `kinetrack replay` as processes: a replay with every fault type into a
// live server, stopped with SIGTERM, prints a summary that counts exactly the injected faults;
// bad input is a clear error with exit code 2.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <thread>

#include "cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::testing {
namespace {

/// The number in the summary row `label` of a text table, or −1.
long tableValue(const std::string& text, const std::string& label) {
  const std::regex re("\\n\\s*" + label + "\\s+(-?[0-9.]+)");
  std::smatch m;
  return std::regex_search(text, m, re) ? std::stol(m[1]) : -1;
}

TEST(ServeCli, ReplayWithFaultsIntoServeThenSigtermPrintsTheSummary) {
  KINETRACK_REQUIRE_SHARED(mvnx, "data/mvnx/test_mocap.mvnx");
  const ScratchDir dir;
  const std::string out = dir.file("serve.out"), err = dir.file("serve.err");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string cmd = "exec " + shellQuote(KINETRACK_CLI_PATH) + " serve --layout " + shellQuote(mvnx) +
                            " --port 0 --udp-port 0 >" + shellQuote(out) + " 2>" + shellQuote(err);
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::smatch m;
  std::string first;
  const std::regex udp("MXTP UDP 127\\.0\\.0\\.1:([0-9]+)");
  for (int i = 0; i < 200 && !std::regex_search(first, m, udp); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    first = readFile(out);
  }
  ASSERT_TRUE(std::regex_search(first, m, udp)) << first << readFile(err);
  const std::string port = m[1];
  const RunResult replay = runCli({"replay", "--input", mvnx, "--to", "127.0.0.1:" + port, "--rate", "240", "--loops",
                                   "3", "--faults", "all", "--fault-every", "7", "--quiet"});
  ASSERT_EQ(replay.status, 0) << replay.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "serve did not exit cleanly on SIGTERM";
  EXPECT_EQ(WEXITSTATUS(status), 0) << readFile(err);
  const std::string summary = readFile(out);
  EXPECT_EQ(tableValue(summary, "frames tracked"), tableValue(replay.out, "well-formed frames sent in order"))
      << summary << replay.out;
  EXPECT_EQ(tableValue(summary, "truncated \\(dropped\\)"), tableValue(replay.out, "injected truncated"));
  EXPECT_EQ(tableValue(summary, "oversized \\(dropped\\)"), tableValue(replay.out, "injected oversized"));
  EXPECT_EQ(tableValue(summary, "malformed \\(dropped\\)"), tableValue(replay.out, "injected malformed"));
  EXPECT_EQ(tableValue(summary, "duplicates \\(dropped\\)"), tableValue(replay.out, "injected duplicate"));
  EXPECT_EQ(tableValue(summary, "out of order \\(dropped\\)"),
            tableValue(replay.out, "injected reorder \\(late frames\\)"));
  EXPECT_GT(tableValue(replay.out, "injected reorder \\(late frames\\)"), 0);
  EXPECT_EQ(tableValue(summary, "datagrams received"), tableValue(replay.out, "datagrams sent"));
}

TEST(ServeCli, BadInputIsAClearErrorWithExitCode2) {
  KINETRACK_REQUIRE_SHARED(mvnx, "data/mvnx/test_mocap.mvnx");
  RunResult r = runCli({"serve", "--model", "no_such_model", "--layout", mvnx, "--port", "0", "--udp-port", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no_such_model"), std::string::npos) << r.err;
  r = runCli({"serve", "--layout", "/nonexistent/x.mvnx", "--port", "0", "--udp-port", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/nonexistent/x.mvnx"), std::string::npos) << r.err;
  r = runCli({"serve", "--port", "0", "--udp-port", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--layout"), std::string::npos) << r.err;
  r = runCli({"replay", "--input", mvnx, "--faults", "bogus"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bogus"), std::string::npos) << r.err;
  r = runCli({"replay", "--input", mvnx, "--to", "localhost"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--to"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kinetrack::testing
