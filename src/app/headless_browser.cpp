#include "headless_browser.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::app::detail {

namespace fs = std::filesystem;

std::string findChromium() {
  if (const char* env = std::getenv("KINETRACK_CHROMIUM"); env != nullptr && *env != '\0') return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

namespace {

std::string tail(const std::string& file, int lines) {
  std::ifstream in(file);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);)
    if (line.find("dbus") == std::string::npos) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > static_cast<std::size_t>(lines) ? all.size() - static_cast<std::size_t>(lines) : 0;
       i < all.size(); ++i)
    out += "\n  " + all[i];
  return out;
}

}  // namespace

void screenshot(const Screenshot& shot) {
  const std::string browser = findChromium();
  if (!browser.empty() && ::access(browser.c_str(), X_OK) != 0)
    throw InvalidArgument("--png: the browser '" + browser +
                          "' ($KINETRACK_CHROMIUM) is not an executable file: point it at a Chrome/Chromium binary");
  if (browser.empty())
    throw InvalidArgument(
        "--png needs a Chromium to render the page headlessly: install Debian's chromium (scripts/setup.sh does) or "
        "set KINETRACK_CHROMIUM to a Chrome/Chromium binary");
  std::error_code ec;
  const fs::path work = fs::temp_directory_path(ec) / ("kinetrack-png-" + std::to_string(::getpid()));
  fs::create_directories(work, ec);
  const std::string log = (work / "browser.log").string();
  fs::remove(shot.png, ec);
  std::vector<std::string> args = {browser,
                                   "--headless",
                                   "--no-sandbox",
                                   "--use-angle=swiftshader",
                                   "--enable-unsafe-swiftshader",
                                   "--disable-gpu-sandbox",
                                   "--hide-scrollbars",
                                   "--no-first-run",
                                   "--user-data-dir=" + (work / "profile").string(),
                                   "--window-size=" + std::to_string(shot.width) + "," + std::to_string(shot.height),
                                   "--virtual-time-budget=" + std::to_string(static_cast<long>(shot.budget_ms)),
                                   "--screenshot=" + fs::absolute(shot.png).string(),
                                   shot.url};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw ParseError(shot.png, 0, "cannot start the browser (fork failed)");
  if (pid == 0) {
    ::setpgid(0, 0);  // its own process group: a timeout stops the browser's helpers too
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool done = false;
  while (!done) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      done = true;
      break;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > shot.timeout_s) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      fs::remove_all(work, ec);
      throw ParseError(shot.png, 0,
                       "the browser (" + browser + ") did not finish within " +
                           std::to_string(static_cast<int>(shot.timeout_s)) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);  // helpers left behind, if any
  const std::string last = tail(log, 4);
  fs::remove_all(work, ec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(shot.png, ec) || fs::file_size(shot.png, ec) == 0)
    throw ParseError(shot.png, 0,
                     "the browser (" + browser + ") wrote no image (exit " +
                         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")" + last);
}

}  // namespace kinetrack::app::detail
