// `kinetrack batch`: every input of a manifest or a directory tracked like `kinetrack track`, on
// a thread pool over the inputs (all cores by default) or across MPI ranks (--mpi), with a
// report of every input (batch.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "batch.hpp"
#include "kinetrack/app/batch.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

struct BatchConfig {
  app::BatchDefaults defaults;
  std::string manifest, input_dir, out;
  int threads = 0;
  bool mpi = false, resume = false, quiet = false;
};

int runBatch(const BatchConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (cfg.manifest.empty() == cfg.input_dir.empty()) throw UsageError("give either --manifest or --input-dir");
  if (cfg.threads < 0) throw UsageError("--threads: expected ≥ 0, got " + std::to_string(cfg.threads));
  if (cfg.mpi && cfg.threads > 1)
    throw UsageError("--threads with --mpi: each rank runs one input at a time (start more ranks instead)");
  std::vector<app::BatchJob> jobs;
  if (cfg.manifest.empty()) {
    try {
      jobs = app::jobsFromDirectory(cfg.input_dir, cfg.defaults);
    } catch (const InvalidArgument& e) {
      throw UsageError(std::string("--command: ") + e.what());
    }
  } else {
    jobs = app::readManifest(cfg.manifest, cfg.defaults);
  }
  prepareOutputDirectory(cfg.out);
  prepareOutputDirectory((fs::path(cfg.out) / "status").string());

  // Resume: the inputs with a complete result on disk are kept, the others (re)done.
  std::vector<app::BatchRecord> records(jobs.size());
  std::vector<int> pending;
  for (const int i : app::largestFirst(jobs)) {
    const app::BatchJob& job = jobs[static_cast<std::size_t>(i)];
    if (cfg.resume && app::jobComplete(job, cfg.out))
      records[static_cast<std::size_t>(i)] = app::readRecord(job, cfg.out);
    else
      pending.push_back(i);
  }
  const app::BatchModels models(jobs, cliReporter(false));
  const bool progress = !cfg.quiet;

  if (cfg.mpi) {
    int rank = 0;
    const std::map<int, app::BatchRecord> done = runBatchMpi(jobs, pending, models, cfg.out, progress, rank);
    if (rank != 0) return kExitOk;
    for (const auto& [i, r] : done) records[static_cast<std::size_t>(i)] = r;
  } else {
    const int threads =
        cfg.threads > 0 ? cfg.threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    fmt::print("batch: {} inputs ({} to do, {} already done) on {} threads\n", jobs.size(), pending.size(),
               jobs.size() - pending.size(), threads);
    std::fflush(stdout);
    const std::vector<app::BatchRecord> run =
        app::runBatchPool(jobs, pending, models, {cfg.out, threads}, runCommandLine, cliReporter(progress, "input"));
    for (const int i : pending) records[static_cast<std::size_t>(i)] = run[static_cast<std::size_t>(i)];
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const app::BatchReport report = app::writeBatchReport(jobs, records, cfg.out, seconds);
  fmt::print("{}", report.text);
  return report.exit;
}

}  // namespace

int runCommandLine(const std::vector<std::string>& args, std::string& log) {
  CLI::App app{"kinetrack", "kinetrack"};
  Action action;
  addTrackCommand(app, action);
  addRetargetCommand(app, action);
  addMarkersCommand(app, action);
  addHandCommand(app, action);
  addDynamicsCommand(app, action);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw InvalidArgument(fmt::format("`kinetrack {}`: {}", fmt::join(args, " "), e.what()));
  }
  if (!action) throw InvalidArgument("no command in the row's arguments");
  const OutputCapture capture(log);
  try {
    return action();
  } catch (const UsageError& e) {
    throw InvalidArgument(e.what());  // bad input, as the single command's exit status 2
  }
}

void addBatchCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<BatchConfig>();
  app::TrackOptions& t = cfg->defaults.track;
  CLI::App* cmd = app.add_subcommand(
      "batch",
      "run track, retarget, markers ik, hand track or dynamics id over many inputs (a manifest or a directory) on "
      "every core or across MPI ranks");
  cmd->add_option(
      "--manifest", cfg->manifest,
      "CSV (header: input[,command,model,height,mass,map,calibration,solver,units,rate,kappa,transient,args]) "
      "or JSON array of the same fields; relative inputs are relative to the manifest (docs/batch.md)");
  cmd->add_option("--input-dir", cfg->input_dir,
                  "every input file of this directory (track, retarget: .bvh, .mvnx; markers ik: .trc, .c3d; hand "
                  "track: .tsv; dynamics id: .csv)");
  cmd->add_option("--command", cfg->defaults.command,
                  "command of every input without a command cell: track, retarget, \"markers ik\", \"hand track\", "
                  "\"dynamics id\"")
      ->capture_default_str();
  cmd->add_option("--args", cfg->defaults.args,
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
  cmd->add_option("--out", cfg->out, "output directory: <stem>.csv, <stem>.json, status/<stem>.json, report.csv")
      ->required();
  cmd->add_option("--threads", cfg->threads, "inputs tracked at once (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_flag("--mpi", cfg->mpi, "distribute the inputs over the ranks of `mpirun -np N kinetrack batch --mpi …`");
  cmd->add_flag("--resume", cfg->resume, "skip the inputs with a complete result in --out; rebuild the report");
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->callback([&action, cfg] { action = [cfg] { return runBatch(*cfg); }; });
}

}  // namespace kinetrack::cli
