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

/// A subject of the study and its reference length.
struct SparseSubject {
  std::string name;
  int frames = 0;  ///< frames of the reference motion
};

struct SparseExperimentResult {
  std::string out;
  bool dyn = true;                      ///< the DYN peers ran
  std::vector<SparseSubject> subjects;  ///< in the order of the table
  std::vector<prior::SparseRow> rows;   ///< sparse.csv: one row per subject and method
};

/// Tracks every subject's reference, runs the study and writes OUT/sparse.csv; notes the set-up
/// first. Throws InvalidArgument naming the flag.
SparseExperimentResult runSparseExperiment(const SparseExperimentOptions& options, const app::Reporter& reporter = {});
/// The table and the means `kinetrack experiment sparse` prints after its set-up line, and the
/// "wrote" line (sparse.csv: prior::sparseCsv).
std::string summaryText(const SparseExperimentResult& result);

}  // namespace kinetrack::experiments
