#pragma once
// `kinetrack experiment labelling` (issue 16): labelling of stripped, shuffled real trials with
// noise, dropouts, ghosts, swaps and occlusion; OUT/labelling.csv, labelling_frames.csv and, with
// events, labelling_events.csv.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/markers/scenarios.hpp"

namespace kinetrack::experiments {

struct LabellingExperimentOptions {
  std::string out;
  std::string data = "../shared/data";
  std::uint64_t seed = 1;
  int seeds = 1;                  // runs of every scenario, base seeds seed, seed + 100, …
  std::vector<std::string> only;  // run only "trial: scenario" containing one of these (any case)
  bool events = false;            // write labelling_events.csv: every marker-frame labelled wrong or missed
};

/// One run: a trial under one scenario and seed (a row of labelling.csv and of the table).
struct LabellingRun {
  std::string trial, scenario;
  std::uint64_t seed = 0;
  markers::LabellingScore score;
  int initialisations = 0, lost = 0, frames = 0;
  double angle_rms_deg = NAN, angle_max_deg = NAN;  ///< against true-label marker IK (NaN: no frame)
  double us_median = 0.0, us_p95 = 0.0;             ///< labelling time per tracked frame (µs)
};

/// One frame of one run (a row of labelling_frames.csv).
struct LabellingFrame {
  std::string trial, scenario;
  std::uint64_t seed = 0;
  int frame = 0;
  double time = 0.0;  ///< s
  int present = 0, correct = 0, ghosts_labelled = 0;
  std::string state;  ///< the labeller's track state
};

/// A marker-frame labelled wrong or missed, or an absent marker given a point (labelling_events.csv).
struct LabellingEvent {
  std::string trial, scenario;
  std::uint64_t seed = 0;
  int frame = 0;
  double time = 0.0;               ///< s
  std::string marker, kind, took;  ///< kind: wrong, missed, absent_labelled; took: a marker, ghost or -
  double distance = NAN;           ///< m between the point taken and the right one
  std::string state;
  int relabelled = 0, rigid = 0;
};

struct LabellingExperimentResult {
  std::string out;
  int seeds = 1;
  bool events = false;  ///< events were collected (options.events)
  std::vector<LabellingRun> runs;
  std::vector<LabellingFrame> frames;
  std::vector<LabellingEvent> event_rows;
};

/// Runs every trial × scenario (× seed) that `only` selects and writes OUT/labelling.csv,
/// labelling_frames.csv (and labelling_events.csv); notes the trials first. Throws
/// InvalidArgument naming the flag (--data, --only).
LabellingExperimentResult runLabellingExperiment(const LabellingExperimentOptions& options,
                                                 const app::Reporter& reporter = {});
std::string labellingCsv(const LabellingExperimentResult& result);        ///< labelling.csv
std::string labellingFramesCsv(const LabellingExperimentResult& result);  ///< labelling_frames.csv
std::string labellingEventsCsv(const LabellingExperimentResult& result);  ///< labelling_events.csv
/// The table, the "wrote" lines, the means over seeds and the goals, as the CLI prints them after
/// the trials.
std::string summaryText(const LabellingExperimentResult& result);

}  // namespace kinetrack::experiments
