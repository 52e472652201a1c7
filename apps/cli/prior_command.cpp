// The learned joint-angle prior beyond the GPM seed (docs/gpm.md, "Sparse-input tracking"):
//   kinetrack prior build --out prior.bin CLIP...      clips tracked onto the model, densities learned
//   kinetrack track ... --targets head,hands [--prior prior.bin]   few targets, prior in the null space
//   kinetrack experiment sparse --out DIR              held-out subjects: LN vs prior vs DYN
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/prior_job.hpp"
#include "kinetrack/experiments/sparse.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

// --- prior build ------------------------------------------------------------------------------

int runBuild(const app::PriorBuildOptions& o) {
  const app::PriorBuildResult r = app::runPriorBuild(o, cliReporter(true, "clip"));
  fmt::print("{}", app::summaryText(r, o.out));
  return kExitOk;
}

// --- experiment sparse ------------------------------------------------------------------------

struct SparseConfig {
  experiments::SparseExperimentOptions job;
  bool no_plot = false;
  std::string plot_script;
};

int runSparse(const SparseConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  fs::path script;
  if (!cfg.no_plot) script = findScript(cfg.plot_script, "plot_gpm.py");
  printOut(experiments::summaryText(experiments::runSparseExperiment(cfg.job, cliReporter(true, "subject"))));
  const fs::path csv = fs::path(cfg.job.out) / "sparse.csv";
  if (!cfg.no_plot)
    runPlot(script, "plot_gpm.py", {"sparse", csv.string(), (fs::path(cfg.job.out) / "sparse.png").string()},
            fs::path(cfg.job.out) / "sparse.png");
  fmt::print("done in {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return kExitOk;
}

}  // namespace

void addPriorCommands(CLI::App& parent, CLI::App& experiment, Action& action) {
  auto build = std::make_shared<app::PriorBuildOptions>();
  CLI::App* prior =
      parent.add_subcommand("prior", "learned joint-angle priors (GPM densities) for sparse-input tracking");
  prior->require_subcommand(1);
  CLI::App* b = prior->add_subcommand("build", "track clips onto a model and learn its joint-angle densities");
  b->add_option("clips", build->clips, "captures (.bvh, .mvnx)")->required();
  b->add_option("--out", build->out, "prior file to write (binary, docs/gpm.md)")->required();
  b->add_option("--model", build->model.model, "built-in model (human66, human48) or URDF")->capture_default_str();
  b->add_option("--rate", build->rate, "frames kept per second of capture (Hz)")->capture_default_str();
  b->add_option("--inc", build->inc, "workspace divisions per axis of the hands' cells")->capture_default_str();
  b->add_option("--min-samples", build->min_samples, "cells with fewer samples stay empty")->capture_default_str();
  b->callback([&action, build] { action = [build] { return runBuild(*build); }; });

  auto sp = std::make_shared<SparseConfig>();
  CLI::App* s = experiment.add_subcommand(
      "sparse", "held-out subjects tracked from few targets: damped least norm vs the learned prior vs DYN");
  s->add_option("--out", sp->job.out, "output directory: sparse.csv, sparse.png")->required();
  s->add_option("--data", sp->job.data, "the shared data folder (holding bvh/)")->capture_default_str();
  s->add_option("--targets", sp->job.targets, "targets: head, hands, feet, pelvis or frame names")
      ->capture_default_str();
  s->add_option("--subjects", sp->job.subjects, "only these subjects (comma-separated)")->delimiter(',');
  s->add_option("--rate", sp->job.rate, "frames kept per second (Hz)")->capture_default_str();
  s->add_option("--inc", sp->job.inc, "workspace divisions per axis of the prior")->capture_default_str();
  s->add_flag("--no-dyn", sp->job.no_dyn, "skip the DYN peer");
  s->add_option("--gain", sp->job.ik.gain, "k of the prior gradient")->capture_default_str();
  s->add_option("--max-prior-step", sp->job.ik.max_prior_step, "cap of |grad H_i| per update (rad)")
      ->capture_default_str();
  s->add_option("--iterations", sp->job.ik.iterations, "updates per frame")->capture_default_str();
  s->add_option("--dyn-weight", sp->job.posture.weight, "DYN+prior: weight mu of the posture term")
      ->capture_default_str();
  s->add_option("--dyn-gain", sp->job.posture.gain, "DYN+prior: k of the prior gradient")->capture_default_str();
  s->add_option("--dyn-max-step", sp->job.posture.max_step, "DYN+prior: cap of k|grad H_i| per step (rad)")
      ->capture_default_str();
  s->add_flag("--no-plot", sp->no_plot, "write the CSV only");
  s->add_option("--plot-script", sp->plot_script, "path of plot_gpm.py");
  s->callback([&action, sp] { action = [sp] { return runSparse(*sp); }; });
}

}  // namespace kinetrack::cli
