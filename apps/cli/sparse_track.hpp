#pragma once
// `kinetrack track --targets head,hands [--prior prior.bin]`: a capture tracked from a few pose
// targets by the gradient-projection IK with an optional learned prior (prior_command.cpp).
#include <CLI/CLI.hpp>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::cli {

struct SparseTrackOptions {
  std::string input, out;
  std::string targets;         ///< e.g. "head,hands" (prior::parseTargetSpec)
  std::string prior;           ///< prior file, or empty (damped least norm)
  std::string solver = "dyn";  ///< "dyn": DYN with the prior as its posture term; "gp": gradient projection
  bool quiet = false;
};

/// Tracks `capture` on setup.model from the targets only; writes the joint CSV and prints a
/// summary. Throws UsageError for a target the capture does not drive, InvalidArgument /
/// ParseError for a prior of another model or a broken prior file.
int runSparseTrackJob(const track::TrackSetup& setup, const track::Capture& capture, const SparseTrackOptions& options);

/// Registers `kinetrack prior build` on `app` and `kinetrack experiment sparse` on `experiment`.
void addPriorCommands(CLI::App& app, CLI::App& experiment, Action& action);

}  // namespace kinetrack::cli
