#pragma once
// The output stage shared by `kinetrack track` and `kinetrack retarget`: track every frame,
// write the joint CSV (committed last), the optional summary JSON, BVH and MOT files, print the
// summary table.
#include <chrono>
#include <string>
#include <vector>

#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::cli {

struct TrackOutput {
  std::string out;           ///< joint CSV (required)
  std::string summary_json;  ///< optional
  std::string bvh_out;       ///< optional
  std::string mot_out;       ///< optional
  double transient = 2.0;    ///< s excluded from the statistics
  bool quiet = false;        ///< no progress bar
};

struct TrackJobResult {
  int status = 0;  ///< exit status: 0, or 1 when a step was non-finite
  track::TrackSummary summary;
};

/// The Method of a `--solver` / `--methods` name; throws UsageError listing the valid names.
track::Method parseMethodFlag(const std::string& solver);

/// Sets the method of `--solver` (track::parseMethod: dynamical, wholebody, wholebody-ipopt,
/// pairwise) and the pair-wise `--threads` (0 = one per hardware thread). Throws UsageError for
/// an unknown name or negative threads.
void setSolver(track::TrackerOptions& options, const std::string& solver, int threads = 0);

/// Runs the tracker over `capture` and writes every requested output. Throws UsageError for a
/// missing --out or a negative transient, ParseError when a file cannot be written.
TrackJobResult runTrackJob(const Model& model, const track::Capture& capture, const track::Retargeting& plan,
                           const track::TrackerOptions& options, const TrackOutput& output, const std::string& input,
                           const std::vector<Configuration>* truth, const std::vector<std::string>& skipped,
                           const std::vector<std::string>& unmapped, std::chrono::steady_clock::time_point start);

}  // namespace kinetrack::cli
