#pragma once
// `kinetrack track`'s command line (also one row of a batch manifest): the library's tracking
// job (kinetrack/app/track_job.hpp) plus sparse tracking's flags and --quiet.
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"

namespace kinetrack::cli {

struct TrackConfig {
  app::TrackOptions job;
  std::string targets, prior;  ///< --targets / --prior: sparse tracking (kinetrack/app/prior_job.hpp)
  std::string sparse_solver = "dyn";
  bool quiet = false;  ///< no progress bar
};

/// `kinetrack track` on one input: the job (or sparse tracking with --targets), its summary and
/// "wrote …" line printed. Returns the exit status.
int runTrackCommand(const TrackConfig& cfg);

}  // namespace kinetrack::cli
