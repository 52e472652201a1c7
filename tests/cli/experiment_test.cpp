// End-to-end tests of `kinetrack experiment convergence` (DYN Fig. 8): runs the built binary
// (testing::cliPath()) and checks the CSV's shape, the physics it records (K = 0 constant, a
// moderate K converges by orders of magnitude, K·Δt ≥ 2 is reported unstable), the plot, and the
// exit status 2 with a message for every kind of bad input.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include "cli_runner.hpp"
#include "testing/shared_paths.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

/// Source-tree scripts/.
const fs::path kPlotScript = fs::path(kinetrack::testing::sourceDir()) / "scripts" / "plot_convergence.py";
const fs::path kSourceRoot = fs::path(kinetrack::testing::sourceDir());

using kinetrack::testing::readFile;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_exp_") {}
};

RunResult run(const std::vector<std::string>& args, const fs::path& cwd = {}) {
  return kinetrack::testing::runCli(args, cwd);
}

struct Row {
  double time, gain, mnte;
};

/// Parses convergence.csv; fails the test on a malformed header or row.
std::vector<Row> readCsv(const fs::path& p, std::string* header = nullptr) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  if (header) *header = line;
  std::vector<Row> rows;
  int n = 1;
  while (std::getline(in, line)) {
    ++n;
    Row r{};
    char c1 = 0, c2 = 0;
    std::istringstream ss(line);
    if (!(ss >> r.time >> c1 >> r.gain >> c2 >> r.mnte) || c1 != ',' || c2 != ',') {
      ADD_FAILURE() << p << ":" << n << ": bad row '" << line << "'";
      break;
    }
    rows.push_back(r);
  }
  return rows;
}

/// Rows per gain, in file order.
std::map<double, std::vector<Row>> byGain(const std::vector<Row>& rows) {
  std::map<double, std::vector<Row>> m;
  for (const Row& r : rows) m[r.gain].push_back(r);
  return m;
}

/// The summary-table line of gain K (the line starting with K after padding).
std::string summaryLine(const std::string& out, const std::string& gain) {
  std::istringstream ss(out);
  std::string line;
  while (std::getline(ss, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == gain) return line;
  }
  return {};
}

bool pythonHasMatplotlib() { return std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0; }

bool isPng(const fs::path& p) {
  const std::string head = readFile(p).substr(0, 8);
  return head == std::string("\x89PNG\r\n\x1a\n", 8);
}

// --- the experiment -------------------------------------------------------------------------

TEST(ExperimentConvergence, Human66CsvShapeAndPhysics) {
  ScratchDir dir;
  const fs::path out = dir.path() / "new" / "sub";  // created on demand
  const RunResult r = run({"experiment", "convergence", "--model", "human66", "--gains", "0,1,10,250", "--rate", "100",
                           "--duration", "2", "--out", out.string(), "--no-plot"});
  ASSERT_EQ(r.status, 0) << r.err;

  std::string header;
  const std::vector<Row> rows = readCsv(out / "convergence.csv", &header);
  EXPECT_EQ(header, "time,gain,mnte");
  const int steps = 200;
  ASSERT_EQ(rows.size(), 4u * (steps + 1));
  EXPECT_FALSE(fs::exists(out / "convergence.png"));

  const auto runs = byGain(rows);
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& [gain, g] : runs) {
    ASSERT_EQ(g.size(), static_cast<std::size_t>(steps + 1)) << "K = " << gain;
    for (int k = 0; k <= steps; ++k) EXPECT_NEAR(g[k].time, k * 0.01, 1e-12) << "K = " << gain;
  }

  // Every run starts from the zero configuration: the same, clearly non-zero initial error.
  const double e0 = runs.at(0.0).front().mnte;
  EXPECT_GT(e0, 0.05);
  for (const auto& [gain, g] : runs) EXPECT_DOUBLE_EQ(g.front().mnte, e0) << "K = " << gain;

  // K = 0: no correction, the error stays where it started.
  for (const Row& row : runs.at(0.0)) EXPECT_NEAR(row.mnte, e0, 1e-12 * e0) << "t = " << row.time;

  // K = 1: decreases, slowly (about e^{-2Kt} in MNTE near the target).
  EXPECT_LT(runs.at(1.0).back().mnte, 0.9 * e0);

  // K = 10: converges by many orders of magnitude within 2 s.
  EXPECT_LT(runs.at(10.0).back().mnte, 1e-6 * e0);
  EXPECT_LT(std::abs(runs.at(10.0).back().mnte), 1e-6);

  // K = 250 at 100 Hz: K·Δt = 2.5 ≥ 2, no convergence, and reported unstable.
  EXPECT_GT(runs.at(250.0).back().mnte, 1e-2);
  const std::string unstable = summaryLine(r.out, "250");
  ASSERT_FALSE(unstable.empty()) << r.out;
  EXPECT_NE(unstable.find("UNSTABLE"), std::string::npos) << unstable;
  EXPECT_NE(unstable.find("2.5"), std::string::npos) << unstable;
  for (const char* k : {"0", "1", "10"})
    EXPECT_EQ(summaryLine(r.out, k).find("UNSTABLE"), std::string::npos) << summaryLine(r.out, k);
  EXPECT_NE(summaryLine(r.out, "10").find(" s "), std::string::npos) << "K = 10 should reach MNTE < 1e-6\n" << r.out;
  EXPECT_NE(summaryLine(r.out, "0").find("never"), std::string::npos) << r.out;
}

TEST(ExperimentConvergence, DeterministicForASeedAndDifferentAcrossSeeds) {
  ScratchDir dir;
  auto csv = [&](const std::string& sub, const std::string& seed) {
    const RunResult r = run({"experiment", "convergence", "--gains", "0,10", "--duration", "0.2", "--seed", seed,
                             "--out", dir.file(sub), "--no-plot"});
    EXPECT_EQ(r.status, 0) << r.err;
    return readFile(dir.path() / sub / "convergence.csv");
  };
  const std::string a = csv("a", "3"), b = csv("b", "3"), c = csv("c", "4");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(ExperimentConvergence, Human48AndStableRateForLargeGain) {
  // At 1 kHz the same K = 250 has K·Δt = 0.25: stable, and it converges.
  ScratchDir dir;
  const RunResult r = run({"experiment", "convergence", "--model", "human48", "--gains", "0,250", "--rate", "1000",
                           "--duration", "0.5", "--seed", "2", "--out", dir.file("o"), "--no-plot"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto runs = byGain(readCsv(dir.path() / "o" / "convergence.csv"));
  ASSERT_EQ(runs.at(250.0).size(), 501u);
  EXPECT_LT(runs.at(250.0).back().mnte, 1e-6 * runs.at(250.0).front().mnte);
  EXPECT_EQ(summaryLine(r.out, "250").find("UNSTABLE"), std::string::npos) << r.out;
}

TEST(ExperimentConvergence, PaperJacobianConvergesUpToTheStabilityBound) {
  // With J(q_{k-1}) (the paper's scheme) K·Δt = 1.5 still converges: the linearised error map is
  // r_{k+1} = (1 − KΔt) r_k, contracting for 0 < KΔt < 2.
  ScratchDir dir;
  const RunResult r = run({"experiment", "convergence", "--jacobian", "previous", "--gains", "150", "--duration", "1",
                           "--out", dir.file("o"), "--no-plot"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("previous configuration (paper)"), std::string::npos) << r.out;
  const auto runs = byGain(readCsv(dir.path() / "o" / "convergence.csv"));
  EXPECT_LT(runs.at(150.0).back().mnte, 1e-6 * runs.at(150.0).front().mnte);
}

TEST(ExperimentConvergence, WritesThePlot) {
  if (!pythonHasMatplotlib())
    GTEST_SKIP() << "/usr/bin/python3 has no matplotlib (Debian: apt-get install python3-matplotlib)";
  ScratchDir dir;
  // Explicit script path.
  RunResult r = run({"experiment", "convergence", "--gains", "0,10,250", "--duration", "1", "--out", dir.file("a"),
                     "--plot-script", kPlotScript.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(isPng(dir.path() / "a" / "convergence.png")) << r.out << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  // Found as scripts/plot_convergence.py under the working directory.
  r = run({"experiment", "convergence", "--gains", "5", "--duration", "0.1", "--out", dir.file("b")}, kSourceRoot);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(isPng(dir.path() / "b" / "convergence.png")) << r.out << r.err;
}

TEST(ExperimentConvergence, MissingPlotScriptWarnsAndKeepsTheCsv) {
  ScratchDir dir;
  // From a directory without scripts/ and with a binary outside a source tree the script may not
  // be found; either way the command succeeds with the CSV. A failing script gives a warning.
  const std::string bad_script = dir.file("broken.py");
  std::ofstream(bad_script) << "import sys\nsys.exit(5)\n";
  const RunResult r = run({"experiment", "convergence", "--gains", "1", "--duration", "0.1", "--out", dir.file("o"),
                           "--plot-script", bad_script});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.path() / "o" / "convergence.csv"));
  EXPECT_NE(r.err.find("warning: no plot"), std::string::npos) << r.err;
}

// --- bad input: exit 2, one message, no output file ------------------------------------------

struct BadCase {
  std::vector<std::string> args;
  std::string message;  ///< expected in stderr
};

TEST(ExperimentConvergence, BadInputExitsWithTwo) {
  ScratchDir dir;
  const std::string blocker = dir.file("a_file");
  std::ofstream(blocker) << "not a directory\n";
  const std::string out = dir.file("o");
  const std::vector<BadCase> cases = {
      {{"--model", "no_such_model", "--out", out}, "unknown model 'no_such_model'"},
      {{"--model", "/nonexistent/model.urdf", "--out", out}, "/nonexistent/model.urdf"},
      {{"--gains", "1,abc", "--out", out}, "'abc' is not a number"},
      {{"--gains", "1,-5", "--out", out}, "negative"},
      {{"--gains=-5", "--out", out}, "negative"},
      {{"--gains", "1,nan", "--out", out}, "not a finite number"},
      {{"--rate", "0", "--out", out}, "--rate"},
      {{"--rate", "-100", "--out", out}, "--rate"},
      {{"--rate", "fast", "--out", out}, "--rate"},
      {{"--duration", "0", "--out", out}, "--duration"},
      {{"--duration", "0.001", "--rate", "100", "--out", out}, "no step"},
      {{"--out", blocker + "/sub"}, "a_file/sub"},
      {{"--out", blocker}, "not a directory"},
      {{"--gains", "1"}, "--out"},
      {{"--plot-script", dir.file("missing.py"), "--out", out}, "--plot-script"},
      {{"--jacobian", "sideways", "--out", out}, "--jacobian"},
  };
  for (const BadCase& c : cases) {
    std::vector<std::string> args = {"experiment", "convergence"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    if (std::find(c.args.begin(), c.args.end(), "--duration") == c.args.end()) {
      args.push_back("--duration");
      args.push_back("0.1");
    }
    const RunResult r = run(args);
    std::string cmd;
    for (const auto& a : c.args) cmd += " " + a;
    EXPECT_EQ(r.status, 2) << cmd << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << cmd << "\nstderr: " << r.err;
    EXPECT_FALSE(fs::exists(fs::path(out) / "convergence.csv")) << cmd;
  }
  // No temporary files left behind anywhere in the scratch directory.
  for (const auto& e : fs::recursive_directory_iterator(dir.path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(ExperimentConvergence, UnknownExperimentIsBadInput) {
  const RunResult r = run({"experiment", "nonsense"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("convergence"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID

namespace KINETRACK_UNITY_ID {

// `kinetrack experiment compare` (DYN Fig. 7, issue 5) on the real captures: every model ×
// scenario × method present in the CSV, the table printed, bad methods rejected.
TEST(ExperimentCompare, WritesEveryCombinationAndTheTable) {
  KINETRACK_REQUIRE_SHARED(data, "data/bvh/CLIPS.csv");
  ScratchDir dir;
  const fs::path out = dir.path() / "cmp";
  const RunResult r = run(
      {"experiment", "compare", "--out", out.string(), "--methods", "dynamical,wholebody,pairwise", "--no-plot",
       "--tpose-seconds", "2.5", "--data", (fs::path(data).parent_path().parent_path()).string(), "--icub",
       (fs::path(data).parent_path().parent_path().parent_path() / "models/icub/iCubGazeboV2_5_model.urdf").string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string csv = readFile(out / "compare.csv");
  for (const char* model : {"human66,", "human48,", "iCub,"})
    for (const char* scenario : {"T-pose,", "walking,", "running,"})
      for (const char* method : {"dynamical,", "wholebody,", "pairwise,"})
        EXPECT_NE(csv.find(std::string(model) + scenario + method), std::string::npos) << model << scenario << method;
  EXPECT_NE(r.out.find("log10 MNTE"), std::string::npos) << r.out;
  const RunResult bad = run({"experiment", "compare", "--out", out.string(), "--methods", "dynamical,magic"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("magic"), std::string::npos) << bad.err;
}

}  // namespace KINETRACK_UNITY_ID
