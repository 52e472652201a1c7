// `kinetrack batch`: every input of a manifest or a directory tracked like `kinetrack track`, on
// a thread pool over the inputs (all cores by default) or across MPI ranks (--mpi), with a
// report of every input (batch.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "batch.hpp"
#include "kinetrack/core/worker_pool.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

struct BatchConfig {
  BatchDefaults defaults;
  std::string manifest, input_dir, out;
  int threads = 0;
  bool mpi = false, resume = false, quiet = false;
};

/// The thread-pool run: each worker claims the next pending input (largest first).
struct PoolRun {
  const std::vector<BatchJob>* jobs;
  const std::vector<int>* pending;
  const BatchModels* models;
  const std::string* outdir;
  std::vector<BatchRecord>* records;
  std::atomic<std::int64_t> frames{0};
  std::atomic<int> finished{0};
  ProgressBar* bar;
  std::mutex bar_mutex;

  static void task(void* context, int i) {
    auto& run = *static_cast<PoolRun*>(context);
    const int job = (*run.pending)[static_cast<std::size_t>(i)];
    const BatchJob& j = (*run.jobs)[static_cast<std::size_t>(job)];
    (*run.records)[static_cast<std::size_t>(job)] = runBatchJob(j, *run.models, *run.outdir, &run.frames);
    const int done = run.finished.fetch_add(1) + 1;
    const std::lock_guard<std::mutex> lock(run.bar_mutex);
    run.bar->update(done, fmt::format("{} frames, last {}", run.frames.load(), j.stem));
  }
};

int runBatch(const BatchConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (cfg.manifest.empty() == cfg.input_dir.empty()) throw UsageError("give either --manifest or --input-dir");
  if (cfg.threads < 0) throw UsageError("--threads: expected ≥ 0, got " + std::to_string(cfg.threads));
  if (cfg.mpi && cfg.threads > 1)
    throw UsageError("--threads with --mpi: each rank runs one input at a time (start more ranks instead)");
  const std::vector<BatchJob> jobs =
      cfg.manifest.empty() ? jobsFromDirectory(cfg.input_dir, cfg.defaults) : readManifest(cfg.manifest, cfg.defaults);
  prepareOutputDirectory(cfg.out);
  prepareOutputDirectory((fs::path(cfg.out) / "status").string());

  // Resume: the inputs with a complete result on disk are kept, the others (re)done.
  std::vector<BatchRecord> records(jobs.size());
  std::vector<int> pending;
  for (const int i : largestFirst(jobs)) {
    const BatchJob& job = jobs[static_cast<std::size_t>(i)];
    if (cfg.resume && jobComplete(job, cfg.out))
      records[static_cast<std::size_t>(i)] = readRecord(job, cfg.out);
    else
      pending.push_back(i);
  }
  const BatchModels models(jobs);
  const bool progress = !cfg.quiet;

  if (cfg.mpi) {
    int rank = 0;
    const std::map<int, BatchRecord> done = runBatchMpi(jobs, pending, models, cfg.out, progress, rank);
    if (rank != 0) return kExitOk;
    for (const auto& [i, r] : done) records[static_cast<std::size_t>(i)] = r;
  } else {
    const int threads =
        cfg.threads > 0 ? cfg.threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    fmt::print("batch: {} inputs ({} to do, {} already done) on {} threads\n", jobs.size(), pending.size(),
               jobs.size() - pending.size(), threads);
    ProgressBar bar(static_cast<int>(pending.size()), progress, "input");
    PoolRun run{&jobs, &pending, &models, &cfg.out, &records, {0}, {0}, &bar, {}};
    detail::WorkerPool pool(std::min<int>(threads, std::max<int>(1, static_cast<int>(pending.size()))), 0.0);
    pool.run(static_cast<int>(pending.size()), &PoolRun::task, &run);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return writeBatchReport(jobs, records, cfg.out, seconds);
}

}  // namespace

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
