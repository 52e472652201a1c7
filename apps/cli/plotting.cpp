#include "plotting.hpp"

#include "cli_common.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace kinetrack::cli {
namespace fs = std::filesystem;
namespace {

/// Exit status of the plot scripts when matplotlib cannot be imported.
constexpr int kPlotMissingMatplotlib = 3;
constexpr const char* kPython = "/usr/bin/python3";

/// Runs `python3 script args…` and returns its exit status (−1 when it could not be run).
int runPython(const fs::path& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv_s = {kPython, script.string()};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::execv(kPython, argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

fs::path findScript(const std::string& explicit_path, const std::string& name) {
  if (!explicit_path.empty()) return explicit_path;
  const fs::path relative = fs::path("scripts") / name;
  std::error_code ec;
  if (fs::is_regular_file(relative, ec)) return fs::absolute(relative, ec);
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path candidate = exe.parent_path() / ".." / ".." / ".." / relative;
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal();
  }
  return {};
}

void runPlot(const fs::path& script, const std::string& name, const std::vector<std::string>& args,
             const fs::path& png) {
  if (script.empty()) {
    fmt::print(stderr,
               "kinetrack: warning: no plot: scripts/{} not found (run from the source tree or give --plot-script "
               "PATH); the data files are written\n",
               name);
    return;
  }
  if (::access(kPython, X_OK) != 0) {
    fmt::print(stderr,
               "kinetrack: warning: no plot: {} not found (install python3 and python3-matplotlib); the data files "
               "are written\n",
               kPython);
    return;
  }
  const int status = runPython(script, args);
  if (status == 0) {
    out("wrote {}\n", png.string());
  } else if (status == kPlotMissingMatplotlib) {
    fmt::print(stderr,
               "kinetrack: warning: no plot: python3 has no matplotlib (Debian: apt-get install python3-matplotlib); "
               "the data files are written\n");
  } else {
    fmt::print(stderr, "kinetrack: warning: no plot: {} {} failed (exit status {}); the data files are written\n",
               kPython, script.string(), status);
  }
}

}  // namespace kinetrack::cli
