#pragma once
// `kinetrack experiment sparse`: held-out subjects tracked from few targets (docs/gpm.md): damped
// least norm vs the learned prior vs DYN with the prior as its posture term, each subject left out
// of its prior; OUT/sparse.csv and the table.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/prior/prior_posture.hpp"
#include "kinetrack/prior/sparse_study.hpp"

namespace kinetrack::experiments {

struct SparseExperimentOptions {
  std::string out, data = "../shared/data", targets = "head,hands";
  std::vector<std::string> subjects;
  double rate = 30.0;
  int inc = 1;
  bool no_dyn = false;
  prior::SparseIkOptions ik;
  prior::PriorPostureOptions posture;
};

/// Tracks every subject's reference, runs the study, writes OUT/sparse.csv and notes the table.
void runSparseExperiment(const SparseExperimentOptions& options, const app::Reporter& reporter = {});

}  // namespace kinetrack::experiments
