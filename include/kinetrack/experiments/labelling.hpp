#pragma once
// `kinetrack experiment labelling` (issue 16): labelling of stripped, shuffled real trials with
// noise, dropouts, ghosts, swaps and occlusion; OUT/labelling.csv, labelling_markers.csv,
// labelling_frames.csv and, with events, labelling_events.csv. Trials marked held out (issue 40:
// the Rajagopal walk) are kept out of tuning and reported in a section of their own.
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

/// The scenario the goals are set at (">= 99.5 % at 2 mm + 5% + 3 ghosts"); the per-marker table
/// is over its seeds.
inline constexpr const char* kLabellingTargetScenario = "2 mm + 5% + 3 ghosts";

/// One run: a trial under one scenario and seed (a row of labelling.csv and of the table).
struct LabellingRun {
  std::string trial, scenario;
  std::uint64_t seed = 0;
  bool held_out = false;  ///< the trial is kept out of tuning (reported in its own section)
  markers::LabellingScore score;
  // The labels' confidence against the truth (markers::FrameLabels::confidence; the threshold is
  // LabellerOptions::unsure_threshold).
  int unsure_frames = 0;     ///< frames with a label below the threshold
  long swaps_corrected = 0;  ///< marker pairs the labeller found swapped and exchanged
  long wrong_labels = 0;     ///< labels given to a point that is not the marker's (another marker's, a ghost)
  long wrong_flagged = 0;    ///< … of which below the threshold (the labeller said it was unsure)
  long wrong_silent = 0;     ///< … of which at or above it (wrong and confident)
  long right_flagged = 0;    ///< right labels below the threshold (false alarms)
  int initialisations = 0, lost = 0, frames = 0;
  double angle_rms_deg = NAN, angle_max_deg = NAN;  ///< against true-label marker IK (NaN: no frame)
  double us_median = 0.0, us_p95 = 0.0;             ///< labelling time per tracked frame (µs)
};

/// One marker of one run (a row of labelling_markers.csv): its present marker-frames scored as
/// LabellingScore scores them, and the mean confidence of its right and of its wrong labels.
struct LabellingMarker {
  std::string trial, scenario;
  std::uint64_t seed = 0;
  bool held_out = false;
  std::string marker;
  long present = 0, correct = 0, wrong = 0, missed = 0;
  double confidence_right = NAN;  ///< mean confidence of its right labels (NaN: none)
  /// Mean confidence of its wrong labels: every label it gave to a point not its own, an absent
  /// marker's label included (NaN: none).
  double confidence_wrong = NAN;
  [[nodiscard]] double accuracy() const { return present > 0 ? static_cast<double>(correct) / present : 1.0; }
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
  std::vector<LabellingMarker> marker_rows;  ///< per run, per marker (the runs' order)
  std::vector<LabellingFrame> frames;
  std::vector<LabellingEvent> event_rows;
};

/// Runs every trial × scenario (× seed) that `only` selects and writes OUT/labelling.csv,
/// labelling_markers.csv, labelling_frames.csv (and labelling_events.csv); notes the trials
/// first (only those a run selects are loaded). Throws InvalidArgument naming the flag (--data,
/// --only).
LabellingExperimentResult runLabellingExperiment(const LabellingExperimentOptions& options,
                                                 const app::Reporter& reporter = {});
std::string labellingCsv(const LabellingExperimentResult& result);         ///< labelling.csv
std::string labellingMarkersCsv(const LabellingExperimentResult& result);  ///< labelling_markers.csv
std::string labellingFramesCsv(const LabellingExperimentResult& result);   ///< labelling_frames.csv
std::string labellingEventsCsv(const LabellingExperimentResult& result);   ///< labelling_events.csv
/// The table (held-out trials in a section of their own), the worst markers of every trial ×
/// scenario below 100 % (over the seeds), the "wrote" lines, the means over seeds, the per-marker
/// table of the target scenario and the goals per trial, as the CLI prints them after the trials.
std::string summaryText(const LabellingExperimentResult& result);

}  // namespace kinetrack::experiments
