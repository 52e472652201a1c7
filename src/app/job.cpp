#include "kinetrack/app/job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::app {

io::LoadedModel loadModel(const io::ModelSpec& spec, const Reporter& reporter) {
  namespace fs = std::filesystem;
  const auto& builtins = builtinModelNames();
  std::error_code ec;
  // The library says "height"/"mass"; the user typed --height/--mass (exit code 2 either way).
  const bool file = std::find(builtins.begin(), builtins.end(), spec.model) == builtins.end() &&
                    fs::exists(spec.model, ec) && !fs::is_directory(spec.model, ec);
  if (file && spec.height)
    throw InvalidArgument("--height applies only to built-in models, not to the URDF file '" + spec.model + "'");
  if (file && spec.mass)
    throw InvalidArgument("--mass applies only to built-in models, not to the URDF file '" + spec.model + "'");
  io::LoadedModel lm = io::loadModel(spec);
  for (const auto& w : lm.warnings) reporter.warn(w);
  return lm;
}

io::MarkerSet loadMarkerSet(const std::string& spec, std::optional<double> height, const std::string& model_name) {
  if (spec.empty()) {
    std::string builtins;
    for (const auto& n : io::builtinMarkerSetNames()) builtins += (builtins.empty() ? "" : ", ") + n;
    throw InvalidArgument("--markerset is required with model '" + model_name + "' (built-in: " + builtins +
                          ", or a marker-set JSON file)");
  }
  const bool json = spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0;
  io::MarkerSet set = json ? io::readMarkerSet(spec) : io::builtinMarkerSet(spec);
  if (set.reference_height > 0.0 && height) set = io::scaledMarkerSet(set, *height);
  return set;
}

void prepareDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) throw InvalidArgument("--out: empty directory name");
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw ParseError(dir, 0, "--out exists and is not a directory");
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec)) throw ParseError(dir, 0, "cannot create output directory: " + ec.message());
}

void writeTextFile(const std::string& path, const std::string& text) { io::writeFileAtomically(path, text); }

std::string textTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t c = 0; c + 1 < row.size(); ++c) out += fmt::format("{:>{}}  ", row[c], widths[c]);
    if (!row.empty()) out += row.back();
    out += '\n';
  }
  return out;
}

}  // namespace kinetrack::app
