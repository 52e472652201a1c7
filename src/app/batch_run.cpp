// One input of a batch run in this process, and the thread pool over the inputs
// (kinetrack/app/batch.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "kinetrack/app/batch.hpp"
#include "kinetrack/app/job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/worker_pool.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::app {
namespace {

namespace fs = std::filesystem;

std::string statusPath(const std::string& outdir, const BatchJob& job) {
  return (fs::path(outdir) / "status" / (job.stem + ".json")).string();
}

std::string outputPath(const std::string& outdir, const BatchJob& job, const char* ext) {
  return (fs::path(outdir) / (job.stem + ext)).string();
}

/// The last non-empty line of a log (the child's error message).
std::string lastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

/// Frames of a finished input: the summary JSON's "frames" when there is one, else the rows of
/// the primary output after its header (CSV) or its "endheader" line (MOT).
std::int64_t countFrames(const std::vector<std::string>& outputs) {
  for (const std::string& o : outputs) {
    if (fs::path(o).extension() != ".json") continue;
    std::ifstream in(o);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_object() && j.contains("frames") && j["frames"].is_number_integer())
      return j["frames"].get<std::int64_t>();
  }
  std::ifstream in(outputs.front());
  std::string line;
  std::int64_t rows = 0;
  bool header_done = fs::path(outputs.front()).extension() != ".mot";
  bool first = true;
  while (std::getline(in, line)) {
    if (!header_done) {
      header_done = line.rfind("endheader", 0) == 0;
      first = true;
      continue;
    }
    if (first) {  // the column names
      first = false;
      continue;
    }
    if (!line.empty()) ++rows;
  }
  return rows;
}

/// A track row, in-process: `kinetrack track`'s outputs and figures into `r`.
void trackJob(const BatchJob& job, const BatchModels& models, const std::string& outdir,
              std::atomic<std::int64_t>* frames_done, BatchRecord& r) {
  app::TrackOptions o = job.track;
  o.input = job.input;
  o.threads = 1;  // the batch is parallel over inputs
  o.files.joints = outputPath(outdir, job, ".csv");
  o.files.summary_json = outputPath(outdir, job, ".json");
  o.files.timing = false;
  app::Reporter reporter;
  if (frames_done != nullptr)
    reporter.progress = [frames_done](int, int, std::string_view) {
      frames_done->fetch_add(1, std::memory_order_relaxed);
    };
  const app::TrackResult result = app::runTrack(o, reporter, models.find(job));
  const track::TrackSummary& s = result.summary;
  r.exit = result.exitStatus();
  r.status = r.exit == 0 ? "ok" : "non-finite";
  r.frames = s.frames;
  r.gaps = s.gaps;
  r.mnte_median = s.mnte_median;
  r.mnte_p95 = s.mnte_p95;
  r.limit_violation_max_rad = s.limit_violation_max_rad;
}

/// A row of another command: its command line run in this process (runCommandLine: the library's
/// declarations of that command's options and its job), its printed text in OUTDIR/logs/<stem>.log.
void commandJob(const BatchJob& job, const std::string& outdir, const BatchCommandLine& command_line, BatchRecord& r) {
  const fs::path logs = fs::path(outdir) / "logs";
  fs::create_directories(logs);
  const std::string log_path = (logs / (job.stem + ".log")).string();
  std::string log;
  int exit = 1;
  try {
    const std::vector<std::string> args = commandArguments(job, outdir);
    exit = command_line ? command_line(args, log) : runCommandLine(args, log);
  } catch (const std::exception& e) {
    log += fmt::format("kinetrack: error: {}\n", e.what());
    io::writeFileAtomically(log_path, log);
    throw;
  }
  io::writeFileAtomically(log_path, log);
  r.exit = exit;
  if (r.exit != 0) {
    r.status = "failed";
    r.error = fmt::format("{}: {} (log: {})", job.input, lastLine(log_path), log_path);
    return;
  }
  r.status = "ok";
  r.frames = countFrames(batchOutputs(job, outdir));
  r.mnte_median = r.mnte_p95 = r.limit_violation_max_rad = std::nan("");  // the track figures only
}

/// The thread-pool run: each worker claims the next pending input (largest first).
struct PoolRun {
  const std::vector<BatchJob>* jobs;
  const std::vector<int>* pending;
  const BatchModels* models;
  const std::string* outdir;
  const BatchCommandLine* command_line;
  const Reporter* reporter;
  std::vector<BatchRecord>* records;
  std::atomic<std::int64_t> frames{0};
  std::atomic<int> finished{0};
  std::mutex progress_mutex;

  static void task(void* context, int i) {
    auto& run = *static_cast<PoolRun*>(context);
    const int job = (*run.pending)[static_cast<std::size_t>(i)];
    const BatchJob& j = (*run.jobs)[static_cast<std::size_t>(job)];
    (*run.records)[static_cast<std::size_t>(job)] =
        runBatchJob(j, *run.models, *run.outdir, &run.frames, *run.command_line);
    const int done = run.finished.fetch_add(1) + 1;
    const std::lock_guard<std::mutex> lock(run.progress_mutex);
    run.reporter->report(done, static_cast<int>(run.pending->size()),
                         fmt::format("{} frames, last {}", run.frames.load(), j.stem));
  }
};

}  // namespace

BatchRecord runBatchJob(const BatchJob& job, const BatchModels& models, const std::string& outdir,
                        std::atomic<std::int64_t>* frames_done, const BatchCommandLine& command_line) {
  const auto start = std::chrono::steady_clock::now();
  BatchRecord r;
  r.input = job.input;
  r.stem = job.stem;
  r.command = job.command;
  r.model = job.track.model.model;
  try {
    if (job.command != "track") {
      commandJob(job, outdir, command_line, r);
      if (frames_done != nullptr) *frames_done += r.frames;
    } else {
      trackJob(job, models, outdir, frames_done, r);
    }
  } catch (const ParseError& e) {
    r.status = "failed", r.exit = 2, r.error = e.what();
  } catch (const InvalidArgument& e) {
    r.status = "failed", r.exit = 2, r.error = e.what();
  } catch (const std::exception& e) {
    r.status = "failed", r.exit = 1, r.error = e.what();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  try {
    io::writeFileAtomically(statusPath(outdir, job), recordToJson(r));
  } catch (const std::exception& e) {
    r.status = "failed", r.exit = 1, r.error += std::string(r.error.empty() ? "" : "; ") + e.what();
  }
  return r;
}

std::vector<BatchRecord> runBatchPool(const std::vector<BatchJob>& jobs, const std::vector<int>& pending,
                                      const BatchModels& models, const BatchPoolOptions& options,
                                      const BatchCommandLine& command_line, const Reporter& reporter) {
  if (options.threads < 0) throw InvalidArgument("--threads: expected ≥ 0, got " + std::to_string(options.threads));
  const int threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  std::vector<BatchRecord> records(jobs.size());
  PoolRun run{&jobs, &pending, &models, &options.outdir, &command_line, &reporter, &records, {0}, {0}, {}};
  detail::WorkerPool pool(std::min<int>(threads, std::max<int>(1, static_cast<int>(pending.size()))), 0.0);
  pool.run(static_cast<int>(pending.size()), &PoolRun::task, &run);
  return records;
}

BatchRunResult runBatch(const BatchRunOptions& o, const BatchCommandLine& command_line, const Reporter& reporter) {
  const auto start = std::chrono::steady_clock::now();
  if (o.manifest.empty() == o.input_dir.empty()) throw InvalidArgument("give either --manifest or --input-dir");
  if (o.threads < 0) throw InvalidArgument("--threads: expected ≥ 0, got " + std::to_string(o.threads));
  if (o.distribute && o.threads > 1)
    throw InvalidArgument("--threads with --mpi: each rank runs one input at a time (start more ranks instead)");
  std::vector<BatchJob> jobs;
  if (o.manifest.empty()) {
    try {
      jobs = jobsFromDirectory(o.input_dir, o.defaults);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string("--command: ") + e.what());
    }
  } else {
    jobs = readManifest(o.manifest, o.defaults);
  }
  prepareDirectory(o.out);
  prepareDirectory((fs::path(o.out) / "status").string());

  // Resume: the inputs with a complete result on disk are kept, the others (re)done.
  std::vector<BatchRecord> records(jobs.size());
  std::vector<int> pending;
  for (const int i : largestFirst(jobs)) {
    const BatchJob& job = jobs[static_cast<std::size_t>(i)];
    if (o.resume && jobComplete(job, o.out))
      records[static_cast<std::size_t>(i)] = readRecord(job, o.out);
    else
      pending.push_back(i);
  }
  BatchRunResult result;
  result.inputs = static_cast<int>(jobs.size());
  result.pending = static_cast<int>(pending.size());
  Reporter quiet = reporter;
  quiet.progress = {};
  const BatchModels models(jobs, quiet);
  if (o.distribute) {
    const std::map<int, BatchRecord> done =
        o.distribute(jobs, pending, models, o.out, command_line, reporter, result.primary);
    if (!result.primary) return result;
    for (const auto& [i, r] : done) records[static_cast<std::size_t>(i)] = r;
  } else {
    const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    reporter.say(fmt::format("batch: {} inputs ({} to do, {} already done) on {} threads\n", jobs.size(),
                             pending.size(), jobs.size() - pending.size(), threads));
    const std::vector<BatchRecord> run = runBatchPool(jobs, pending, models, {o.out, threads}, command_line, reporter);
    for (const int i : pending) records[static_cast<std::size_t>(i)] = run[static_cast<std::size_t>(i)];
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.report = writeBatchReport(jobs, records, o.out, seconds);
  return result;
}

}  // namespace kinetrack::app
