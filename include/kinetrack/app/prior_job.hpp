#pragma once
// The learned joint-angle prior's jobs (docs/gpm.md): `kinetrack prior build` (clips tracked onto
// a model, densities learned, written) and `kinetrack track --targets … [--prior …]` (a capture
// tracked from a few pose targets, the prior as DYN's posture term or in the gradient
// projection's null space).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/prior/density.hpp"

namespace kinetrack::app {

struct PriorBuildOptions {
  io::ModelSpec model{"human66", std::nullopt, false};
  std::vector<std::string> clips;  ///< captures (.bvh, .mvnx)
  std::string out;                 ///< prior file to write (empty: not written)
  double rate = 30.0;              ///< frames kept per second of capture (Hz)
  int inc = 1;                     ///< workspace divisions per axis of the hands' cells (1 … 40)
  int min_samples = prior::DensityOptions{}.min_samples;  ///< cells with fewer samples stay empty
};
struct PriorBuildResult {
  std::string model_name;
  int joints = 0, inc = 1;
  std::vector<std::pair<std::string, int>> frames_kept;  ///< per clip
  struct Group {
    std::string name;
    int joints = 0, occupied = 0, cells = 0;
  };
  std::vector<Group> groups;
};
/// Tracks every clip onto the model, learns the densities and writes the prior file. Progress
/// counts clips.
PriorBuildResult runPriorBuild(const PriorBuildOptions& options, const Reporter& reporter = {});
/// What `kinetrack prior build` prints: the clips' table, the groups, "wrote …".
std::string summaryText(const PriorBuildResult& r, const std::string& out);

struct SparseTrackOptions {
  TrackOptions track;          ///< model, input, map, calibration, units, rate; files.joints is written
  std::string targets;         ///< e.g. "head,hands" (prior::parseTargetSpec)
  std::string prior;           ///< prior file, or empty (damped least norm / DYN without posture term)
  std::string solver = "dyn";  ///< "dyn": DYN with the prior as its posture term; "gp": gradient projection
};
struct SparseTrackResult {
  std::shared_ptr<const Model> model;
  std::string input;
  std::vector<std::string> frames;  ///< the target frames
  std::vector<double> times;
  std::vector<Configuration> q;  ///< one per input frame (held at gaps)
  std::vector<std::uint8_t> gap;
  std::vector<double> frame_us, position_error_mm;  ///< per solved frame
  int gaps = 0, fallbacks = 0;
  long rows_written = 0;
  double seconds = 0.0;
};
/// Tracks options.track.input from the targets only. Throws InvalidArgument for a target the
/// capture does not drive or an unknown solver, ParseError/InvalidArgument for a prior of another
/// model or a broken prior file.
SparseTrackResult runSparseTrack(const SparseTrackOptions& options, const Reporter& reporter = {});
/// What `kinetrack track --targets` prints: the summary table and "wrote …".
std::string summaryText(const SparseTrackResult& r, const SparseTrackOptions& options);

}  // namespace kinetrack::app
