#pragma once
// `kinetrack experiment gpm`: the GPM seed's study (SPEC §6) on the performers of ../shared/data: LN
// and GP for inc = 1 … 20 with every subject in the densities and left out (Fig. 4), the robustness
// test of Table II (Fig. 5); OUT/gpm.csv, gpm_robustness.csv, gpm_fits.csv.
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/prior/density.hpp"
#include "kinetrack/prior/gpm_study.hpp"
#include "kinetrack/prior/gradient_projection.hpp"
#include "kinetrack/prior/subject_fit.hpp"

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

/// How well one subject's fitted model holds the capture (a row of gpm_fits.csv).
struct GpmFitRow {
  std::string subject;
  int clips = 0;
  prior::FitQuality quality;
};

struct GpmExperimentResult {
  std::string out;
  std::vector<int> incs;
  std::vector<GpmFitRow> fits;
  std::vector<prior::StudyRow> rows;             ///< gpm.csv (Fig. 4)
  std::vector<prior::RobustnessRow> robustness;  ///< gpm_robustness.csv (Fig. 5; empty when skipped)
};

/// Fits the subjects, runs the study and writes OUT/gpm.csv, gpm_robustness.csv, gpm_fits.csv;
/// notes the set-up first. Throws InvalidArgument naming the flag.
GpmExperimentResult runGpmExperiment(const GpmExperimentOptions& options, const app::Reporter& reporter = {});
/// gpm_fits.csv (gpm.csv and gpm_robustness.csv: prior::studyCsv, prior::robustnessCsv).
std::string gpmFitsCsv(const std::vector<GpmFitRow>& fits);
/// The tables `kinetrack experiment gpm` prints after its set-up line, and the "wrote" line.
std::string summaryText(const GpmExperimentResult& result);

}  // namespace kinetrack::experiments
