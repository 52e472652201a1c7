// `kinetrack experiment mapping`: the human figure ↔ musculoskeletal model mapping of the Nakamura
// seed (Eq. 14–15, Fig. 14; SPEC §5). Real clips are tracked on the human figure (human66 or
// human48) and on the musculoskeletal model (gait2354) from the same segment orientations
// (track::pairPostures); φ = M f(θ) and θ = N g(φ) are fitted on the pairs of the training clips by
// the truncated SVD pseudo-inverse (biomech::PolynomialMapFit) and tested on the other clips, for
// every number of singular values. Writes DIR/mapping_error.csv, mapping_coordinates.csv,
// mapping_series.csv, mapping_clips.csv and mapping.png (scripts/plot_mapping.py).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/experiments/mapping.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct MappingConfig {
  experiments::MappingExperimentOptions job;
  bool no_plot = false, quiet = false;
  std::string plot_script;
};

int runMappingExperimentCommand(const MappingConfig& cfg) {
  printOut(experiments::summaryText(experiments::runMappingExperiment(cfg.job, cliReporter(!cfg.quiet, "clip"))));
  const std::filesystem::path dir(cfg.job.out);
  if (!cfg.no_plot)
    runPlot(findScript(cfg.plot_script, "plot_mapping.py"), "plot_mapping.py",
            {dir.string(), (dir / "mapping.png").string()}, dir / "mapping.png");
  return kExitOk;
}

}  // namespace

void addMappingExperiment(CLI::App& experiment, Action& action) {
  auto cfg = std::make_shared<MappingConfig>();
  CLI::App* cmd = experiment.add_subcommand(
      "mapping",
      "Nakamura Eq. 14-15 / Fig. 14: polynomial human figure <-> musculoskeletal model mapping fitted on real "
      "clips by a truncated SVD pseudo-inverse; error vs number of singular values, in and out of sample");
  cmd->add_option("--out", cfg->job.out, "output directory (created if needed)")->required();
  cmd->add_option("--human", cfg->job.human, "human figure: human66, human48 or a URDF")->capture_default_str();
  cmd->add_option("--model", cfg->job.model, "musculoskeletal model (.osim)")->capture_default_str();
  cmd->add_option("--map", cfg->job.map, "robot map of the musculoskeletal model (built-in name or JSON)")
      ->capture_default_str();
  cmd->add_option("--train", cfg->job.train, "clips whose pairs fit the maps (BVH, MVNX)");
  cmd->add_option("--test", cfg->job.test, "clips the maps are tested on");
  cmd->add_option("--roundtrip", cfg->job.roundtrip,
                  "model coordinates (.mot, e.g. OpenSim IK) mapped to the human figure and back (empty: none)")
      ->capture_default_str();
  cmd->add_option("--degree", cfg->job.degree, "degree of the polynomials f, g (1 to 4)")->capture_default_str();
  cmd->add_option("--rate", cfg->job.rate, "pairs kept per second of clip, at most (frames are subsampled)")
      ->capture_default_str();
  cmd->add_option("--transient", cfg->job.transient, "seconds at the start of each clip not used")
      ->capture_default_str();
  cmd->add_option("--max-mnte", cfg->job.max_mnte, "pairs where either model tracks worse than this MNTE are dropped")
      ->capture_default_str();
  cmd->add_option("--limit-margin-deg", cfg->job.limit_margin_deg,
                  "pairs where a model coordinate is this close to its range limit are dropped (negative: kept)")
      ->capture_default_str();
  cmd->add_option("--solver", cfg->job.solver, "tracker of both models: dynamical, wholebody, pairwise")
      ->capture_default_str();
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSVs only");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->add_option("--plot-script", cfg->plot_script, "path of plot_mapping.py (default: scripts/ of the source tree)");
  cmd->callback([&action, cfg] { action = [cfg] { return runMappingExperimentCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
