#pragma once
// The application layer (kinetrack::app): one job per capability that the CLI, Python, the
// server and batch all call. A job takes typed options (files or arrays) and returns a typed
// result: arrays with their column names, per-frame status, the summary as data; the writers
// (CSV, MOT/STO, TRC, JSON, the summary text) sit beside it. Jobs never print and never exit:
// they report progress through a callback and throw InvalidArgument (bad options) or ParseError
// (bad files). docs/architecture.md, "Where to add things".
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetrack::app {

/// Progress of a job: `done` of `total` items (frames, inputs, clips) are finished; `label` names
/// what runs now (may be empty). Called from the job's thread; may be empty (no progress).
using Progress = std::function<void(int done, int total, std::string_view label)>;

/// Calls `progress` when it is set.
inline void report(const Progress& progress, int done, int total, std::string_view label = {}) {
  if (progress) progress(done, total, label);
}

/// A plain text table, columns right-aligned to their widest cell, two spaces apart, the last
/// column left as is; rows may have different lengths; each row ends with a newline.
std::string textTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace kinetrack::app
