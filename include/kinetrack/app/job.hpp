#pragma once
// The application layer (kinetrack::app): one job per capability that the CLI, Python, the
// server and batch all call. A job takes typed options (files or arrays) and returns a typed
// result: arrays with their column names, per-frame status, the summary as data; the writers
// (CSV, MOT/STO, TRC, JSON, the summary text) sit beside it. Jobs never print and never exit:
// they report progress through a callback and throw InvalidArgument (bad options) or ParseError
// (bad files). docs/architecture.md, "Where to add things".
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/model_source.hpp"

namespace kinetrack::app {

/// Progress of a job: `done` of `total` items (frames, inputs, clips) are finished; `label` names
/// what runs now (may be empty). Called from the job's thread; may be empty (no progress).
using Progress = std::function<void(int done, int total, std::string_view label)>;

/// Calls `progress` when it is set.
inline void report(const Progress& progress, int done, int total, std::string_view label = {}) {
  if (progress) progress(done, total, label);
}

/// How a job tells its caller what happens while it runs: progress, notes, and warnings (a URDF's
/// ignored elements, a default that differs from the reference tool's) as they arise. Both may be
/// empty. The CLI draws a progress bar and prints warnings to stderr; Python collects them.
struct Reporter {
  Progress progress;
  std::function<void(const std::string& message)> warning;
  /// What the job is about to do, for a person watching (the CLI prints it to stdout).
  std::function<void(const std::string& message)> note;
  void report(int done, int total, std::string_view label = {}) const { app::report(progress, done, total, label); }
  void warn(const std::string& message) const {
    if (warning) warning(message);
  }
  void say(const std::string& message) const {
    if (note) note(message);
  }
};

/// io::loadModel(spec) with its warnings sent to `reporter`. Throws as io::loadModel, and
/// InvalidArgument for a height or mass given with a model file (they scale built-in models only).
io::LoadedModel loadModel(const io::ModelSpec& spec, const Reporter& reporter = {});

/// A marker set by name: a JSON file (ending in .json) or a built-in name, its offsets scaled to
/// `height` when given and the set says its reference height (io::scaledMarkerSet). Throws
/// InvalidArgument listing the built-in sets when `spec` is empty.
io::MarkerSet loadMarkerSet(const std::string& spec, std::optional<double> height, const std::string& model_name);

/// Creates the output directory `dir` (and parents). Throws InvalidArgument for an empty name,
/// ParseError when it exists as a file or cannot be created.
void prepareDirectory(const std::string& dir);

/// Writes `text` to `path` atomically (temporary file + rename); ParseError when it cannot.
void writeTextFile(const std::string& path, const std::string& text);

/// A plain text table, columns right-aligned to their widest cell, two spaces apart, the last
/// column left as is; rows may have different lengths; each row ends with a newline.
std::string textTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace kinetrack::app
