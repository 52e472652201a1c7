#include "cli_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <optional>

#include <filesystem>
#include <iostream>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::cli {

double parseFiniteDouble(std::string_view text, std::string_view what) {
  std::string_view t = text;
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);  // from_chars rejects a leading '+'
  double value = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size())
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a number");
  if (!std::isfinite(value))
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a finite number");
  return value;
}

LoadedModel loadModelAndWarn(const ModelSpec& spec) { return app::loadModel(spec, cliReporter(false)); }

void printOut(std::string_view text) { fmt::print("{}", text); }

void printErr(std::string_view text) {
  std::fflush(stdout);
  fmt::print(stderr, "{}", text);
}

app::Reporter cliReporter(bool progress, const std::string& unit) {
  app::Reporter r;
  if (progress) {
    auto bar = std::make_shared<std::optional<ProgressBar>>();
    r.progress = [bar, unit](int done, int total, std::string_view label) {
      if (!*bar || (*bar)->total() != total) bar->emplace(total, true, unit);
      (*bar)->update(done, label);
    };
  }
  r.warning = [](const std::string& w) { printErr("kinetrack: warning: " + w + "\n"); };
  r.note = [](const std::string& n) {
    printOut(n);
    std::fflush(stdout);  // a note says what runs now
  };
  return r;
}

ProgressBar::ProgressBar(int total, bool enabled, std::string unit)
    : total_(total), enabled_(enabled && isatty(STDERR_FILENO)), unit_(std::move(unit)) {}

void ProgressBar::update(int done, std::string_view label) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total_ && label.empty() && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const int width = 40, filled = total_ ? static_cast<int>(static_cast<long>(width) * done / total_) : width;
  std::fprintf(stderr, "\r[%s%s] %3d%%  %s %d/%d%s%.*s\033[K",
               std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), total_ ? 100 * done / total_ : 100,
               unit_.c_str(), done, total_, label.empty() ? "" : "  ", static_cast<int>(label.size()), label.data());
  if (done >= total_) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace kinetrack::cli
