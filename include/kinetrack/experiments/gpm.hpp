#pragma once
// `kinetrack experiment gpm`: the GPM seed's study (SPEC §6) on the performers of ../shared/data: LN
// and GP for inc = 1 … 20 with every subject in the densities and left out (Fig. 4), the robustness
// test of Table II (Fig. 5); OUT/gpm.csv, gpm_robustness.csv, gpm_fits.csv.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/prior/density.hpp"
#include "kinetrack/prior/gradient_projection.hpp"

namespace kinetrack::experiments {

struct GpmExperimentOptions {
  std::string out, data = "../shared/data";
  std::vector<int> incs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  std::vector<std::string> subjects;
  double rate = 30.0;
  int robustness_inc = 5;
  bool no_loo = false, raw_twists = false;
  prior::GpmOptions gpm;
  int min_samples = prior::DensityOptions{}.min_samples;
};

/// Fits the subjects, runs the study, writes the CSVs and notes the tables. Returns the rows of
/// the robustness test (0 when skipped).
int runGpmExperiment(const GpmExperimentOptions& options, const app::Reporter& reporter = {});

}  // namespace kinetrack::experiments
