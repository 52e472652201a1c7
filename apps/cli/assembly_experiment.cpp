// `kinetrack experiment assembly`: Table 1 of the Nakamura seed (SPEC §5) and the 40-DoF-figure
// timings. Serial chains of 8 … N links and a human figure hanging from a bar by 0, 1 or 2 hands,
// each with the serial and the parallel schedule on 1 … T threads: the measured time of one
// forward-dynamics call (median over batches, ABA in the same run for scale) and the counted
// operations of the schedule — total work, critical path (the time on unlimited processors) and
// the split on T threads — so the O(log N) height shows by counting, not by this 2-core machine.
// Writes DIR/assembly.csv and DIR/assembly.png (scripts/plot_assembly.py) and prints the table.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/experiments/assembly.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct AssemblyConfig {
  experiments::AssemblyExperimentOptions job;
  bool no_plot = false;
  std::string plot_script;
};

int runAssemblyExperimentCommand(const AssemblyConfig& cfg) {
  printOut(experiments::summaryText(experiments::runAssemblyExperiment(cfg.job, cliReporter(true, "run"))));
  const std::filesystem::path dir(cfg.job.out);
  if (!cfg.no_plot)
    runPlot(findScript(cfg.plot_script, "plot_assembly.py"), "plot_assembly.py",
            {(dir / "assembly.csv").string(), (dir / "assembly.png").string()}, dir / "assembly.png");
  return kExitOk;
}

}  // namespace

void addAssemblyExperiment(CLI::App& experiment, Action& action) {
  auto cfg = std::make_shared<AssemblyConfig>();
  CLI::App* cmd = experiment.add_subcommand(
      "assembly",
      "Nakamura Table 1: assembly–disassembly forward dynamics on serial chains and a figure on a bar, "
      "serial vs parallel schedule, 1..N threads (time and counted critical path)");
  cmd->add_option("--out", cfg->job.out, "output directory (created if needed): assembly.csv, assembly.png")
      ->required();
  cmd->add_option("--max-links", cfg->job.max_links, "longest chain (8, 16, … up to this)")->capture_default_str();
  cmd->add_option("--threads", cfg->job.max_threads, "measure 1 … this many threads")->capture_default_str();
  cmd->add_option("--figure", cfg->job.figure, "the figure on the bar: human48 or human66")
      ->check(CLI::IsMember({"human48", "human66"}))
      ->capture_default_str();
  cmd->add_option("--batches", cfg->job.batches, "timed batches per case (the median is reported)")
      ->capture_default_str();
  cmd->add_option("--batch-ms", cfg->job.batch_ms, "length of one batch (ms)")->capture_default_str();
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSV only");
  cmd->add_option("--plot-script", cfg->plot_script, "path of plot_assembly.py (default: scripts/ of the source tree)");
  cmd->callback([&action, cfg] { action = [cfg] { return runAssemblyExperimentCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
