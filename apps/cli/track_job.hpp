#pragma once
// The output stage shared by `kinetrack track` and `kinetrack retarget`: track every frame,
// write the joint CSV (committed last), the optional summary JSON, BVH and MOT files, print the
// summary table.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::cli {

struct TrackOutput {
  std::string out;           ///< joint CSV (required)
  std::string summary_json;  ///< optional
  std::string bvh_out;       ///< optional
  std::string mot_out;       ///< optional
  double transient = 2.0;    ///< s excluded from the statistics
  bool quiet = false;        ///< no progress bar
  bool report = true;        ///< print the summary table and the "wrote …" line
  bool timing = true;        ///< step_us_* in the summary JSON (batch: off, so outputs are reproducible)
  std::atomic<std::int64_t>* frames_done = nullptr;  ///< optional: incremented once per tracked frame
};

/// Everything `kinetrack track` reads from its command line (also one row of a batch manifest).
struct TrackConfig {
  ModelSpec model;
  std::string input, map, calibration, units = "auto";
  std::string solver = "dynamical";
  double kappa = 1.0, rate = 0.0, max_step_deg = 5.0;
  int max_substeps = 64, threads = 0;
  TrackOutput output;
  std::string targets, prior;  ///< --targets / --prior: sparse tracking (sparse_track.hpp)
  std::string sparse_solver = "dyn";
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

/// `kinetrack track` on one input: loads the capture, sets the model up (`loaded`, when given,
/// replaces loading cfg.model: a batch loads each distinct model once), tracks and writes the
/// outputs. Returns the exit status and the summary (empty for sparse tracking).
TrackJobResult trackInput(const TrackConfig& cfg, const Model* loaded = nullptr);

}  // namespace kinetrack::cli
