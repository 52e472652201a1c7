// `kinetrack batch`: every input of a manifest or a directory tracked like `kinetrack track`, on
// a thread pool over the inputs (all cores by default) or across MPI ranks (--mpi), with a
// report of every input (batch.hpp).
#include <memory>

#include "cli_common.hpp"
#include "kinetrack/app/batch.hpp"
#include "kinetrack/app/batch_mpi.hpp"

namespace kinetrack::cli {
namespace {

struct BatchConfig {
  app::BatchRunOptions job;
  bool mpi = false, quiet = false;
};

int runBatch(BatchConfig cfg) {
  if (cfg.mpi) cfg.job.distribute = app::runBatchMpi;
  const app::BatchRunResult r = app::runBatch(cfg.job, {}, cliReporter(!cfg.quiet, "input"));
  if (!r.primary) return kExitOk;
  out("{}", r.report.text);
  return r.report.exit;
}

}  // namespace

void addBatchCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<BatchConfig>();
  app::TrackOptions& t = cfg->job.defaults.track;
  CLI::App* cmd = app.add_subcommand(
      "batch",
      "run track, retarget, markers ik, hand track or dynamics id over many inputs (a manifest or a directory) on "
      "every core or across MPI ranks");
  cmd->add_option(
      "--manifest", cfg->job.manifest,
      "CSV (header: input[,command,model,height,mass,map,calibration,solver,units,rate,kappa,transient,args]) "
      "or JSON array of the same fields; relative inputs are relative to the manifest (docs/batch.md)");
  cmd->add_option("--input-dir", cfg->job.input_dir,
                  "every input file of this directory (track, retarget: .bvh, .mvnx; markers ik: .trc, .c3d; hand "
                  "track: .tsv; dynamics id: .csv)");
  cmd->add_option("--command", cfg->job.defaults.command,
                  "command of every input without a command cell: track, retarget, \"markers ik\", \"hand track\", "
                  "\"dynamics id\"")
      ->capture_default_str();
  cmd->add_option("--args", cfg->job.defaults.args,
                  "commands other than track: extra options of the single command for every input without an args "
                  "cell (e.g. \"--setup s.xml\")");
  cmd->add_option("--model", t.model.model,
                  "model of every input without a model cell: human66, human48, a URDF path or from-clip");
  cmd->add_option("--height", t.model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", t.model.mass, kMassHelp);
  cmd->add_option("--map", t.map, "segment map (as `kinetrack track --map`)");
  cmd->add_option("--calibration", t.calibration, "calibration pose (as `kinetrack track --calibration`)");
  cmd->add_option("--solver", t.solver, "dynamical, wholebody, wholebody-ipopt or pairwise")->capture_default_str();
  cmd->add_option("--units", t.units, "BVH length unit: auto, m, cm, in, cmu")->capture_default_str();
  cmd->add_option("--rate", t.rate, "frame rate of the inputs (Hz), replacing the files' frame times");
  cmd->add_option("--kappa", t.kappa, "DYN per-step gain kappa = K*dt")->capture_default_str();
  cmd->add_option("--transient", t.transient, "seconds excluded from the accuracy statistics")->capture_default_str();
  cmd->add_option("--out", cfg->job.out, "output directory: <stem>.csv, <stem>.json, status/<stem>.json, report.csv")
      ->required();
  cmd->add_option("--threads", cfg->job.threads, "inputs tracked at once (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_flag("--mpi", cfg->mpi, "distribute the inputs over the ranks of `mpirun -np N kinetrack batch --mpi …`");
  cmd->add_flag("--resume", cfg->job.resume, "skip the inputs with a complete result in --out; rebuild the report");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([&action, cfg] { action = [cfg] { return runBatch(*cfg); }; });
}

}  // namespace kinetrack::cli
