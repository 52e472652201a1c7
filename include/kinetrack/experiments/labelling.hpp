#pragma once
// `kinetrack experiment labelling` (issue 16): labelling of stripped, shuffled real trials with
// noise, dropouts, ghosts, swaps and occlusion; OUT/labelling.csv, labelling_frames.csv and, with
// events, labelling_events.csv.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"

namespace kinetrack::experiments {

struct LabellingExperimentOptions {
  std::string out;
  std::string data = "../shared/data";
  std::uint64_t seed = 1;
  int seeds = 1;                  // runs of every scenario, base seeds seed, seed + 100, …
  std::vector<std::string> only;  // run only "trial: scenario" containing one of these (any case)
  bool events = false;            // write labelling_events.csv: every marker-frame labelled wrong or missed
};

/// Runs every trial × scenario (× seed) that `only` selects, writes the CSVs and notes the tables.
void runLabellingExperiment(const LabellingExperimentOptions& options, const app::Reporter& reporter = {});

}  // namespace kinetrack::experiments
