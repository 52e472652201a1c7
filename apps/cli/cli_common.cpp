#include "cli_common.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/urdf.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::cli {

const std::vector<std::string>& segmentNames() { return humanSegmentNames(); }

bool hasSegments(const Model& model) {
  return std::all_of(segmentNames().begin(), segmentNames().end(),
                     [&](const std::string& s) { return model.findLink(s).has_value(); });
}

double parseFiniteDouble(std::string_view text, std::string_view what) {
  std::string_view t = text;
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);  // from_chars rejects a leading '+'
  double value = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size())
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a number");
  if (!std::isfinite(value)) throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a finite number");
  return value;
}

LoadedModel loadModel(const ModelSpec& spec) {
  const auto& builtins = builtinModelNames();
  const bool builtin = std::find(builtins.begin(), builtins.end(), spec.model) != builtins.end();
  const BaseType base = spec.fixed_base ? BaseType::Fixed : BaseType::Floating;

  if (builtin) {
    const double h = spec.height.value_or(1.75);
    HumanModelOptions options;
    options.dimensions = HumanDimensions::fromHeight(h);  // throws InvalidArgument out of [0.5, 2.5] m
    options.base = base;
    Model m = spec.model == "human66" ? makeHuman66(options) : makeHuman48(options);
    return {std::move(m), "built-in", h};
  }

  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(spec.model, ec);
  const bool looks_like_path = spec.model.find_first_of("/.") != std::string::npos;
  if (!fs::exists(status) && !looks_like_path) {
    std::string valid;
    for (const auto& n : builtins) valid += (valid.empty() ? "" : ", ") + n;
    throw UsageError("unknown model '" + spec.model + "': not a built-in model (" + valid +
                     ") and no such file");
  }
  if (fs::is_directory(status)) throw ParseError(spec.model, 0, "is a directory, not a URDF file");
  if (spec.height && fs::exists(status))
    throw UsageError("--height applies only to built-in models, not to the URDF file '" + spec.model + "'");

  io::UrdfOptions options;
  options.base = base;
  std::vector<std::string> warnings;
  Model m = io::loadUrdf(spec.model, options, &warnings);
  for (const auto& w : warnings) std::cerr << "kinetrack: warning: " << w << '\n';
  return {std::move(m), spec.model, std::nullopt};
}

void prepareOutputDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) throw UsageError("--out: empty directory name");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw ParseError(dir, 0, "--out exists and is not a directory");
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) throw ParseError(dir, 0, "cannot create output directory: " + ec.message());
}

void writeFileAtomically(const std::string& path_text, const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path path(path_text);
  const fs::path tmp = path.parent_path() / (("." + path.filename().string() + ".tmp") + std::to_string(static_cast<long>(::getpid())));
  std::error_code ec;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw ParseError(path_text, 0, std::string("cannot write: ") + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      fs::remove(tmp, ec);
      throw ParseError(path_text, 0, "cannot write: write failed");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw ParseError(path_text, 0, "cannot write: " + ec.message());
  }
}

}  // namespace kinetrack::cli
