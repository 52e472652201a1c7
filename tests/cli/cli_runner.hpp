#pragma once
// Running the `kinetrack` binary from tests: capture stdout, stderr and the exit status, and
// scratch directories unique to a test. testing::cliPath() is the binary.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "testing/shared_paths.hpp"

namespace kinetrack::testing {

namespace fs = std::filesystem;

struct RunResult {
  int status = -1;  ///< exit code, or -1 when the process did not exit normally (signal)
  std::string out;
  std::string err;
};

inline std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// A summary without the figures that change from run to run (wall times, rates).
inline nlohmann::json withoutTimings(nlohmann::json j) {
  if (!j.is_object()) return j;
  for (auto it = j.begin(); it != j.end();) {
    const std::string& k = it.key();
    if (k.find("_us") != std::string::npos || k.rfind("us_", 0) == 0 || k.find("second") != std::string::npos ||
        k.find("time") != std::string::npos)
      it = j.erase(it);
    else
      (*it = withoutTimings(*it)), ++it;
  }
  return j;
}

inline std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A scratch directory unique to this test and process, removed at the end of the test.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix = "kinetrack_cli_") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = prefix + info->test_suite_name() + "_" + info->name() + "_" + std::to_string(::getpid());
    for (char& c : name)
      if (c == '/') c = '_';
    path_ = fs::temp_directory_path() / name;
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return file(name);
  }

 private:
  fs::path path_;
};

/// Runs `kinetrack args...` (in `cwd` when given), capturing stdout, stderr and the exit status.
inline RunResult runCli(const std::vector<std::string>& args, const fs::path& cwd = {}) {
  static int counter = 0;
  const fs::path base =
      fs::temp_directory_path() / ("kinetrack_cli_run_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string out = base.string() + ".out", err = base.string() + ".err";
  std::string cmd = cwd.empty() ? std::string() : "cd " + shellQuote(cwd.string()) + " && ";
  cmd += shellQuote(kinetrack::testing::cliPath());
  for (const auto& a : args) cmd.append(" ").append(shellQuote(a));
  cmd.append(" >").append(shellQuote(out)).append(" 2>").append(shellQuote(err));
  const int raw = std::system(cmd.c_str());
  RunResult r;
  // The shell reports a child killed by signal N as exit status 128 + N.
  if (raw != -1 && WIFEXITED(raw) && WEXITSTATUS(raw) < 128) r.status = WEXITSTATUS(raw);
  r.out = readFile(out);
  r.err = readFile(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

}  // namespace kinetrack::testing
