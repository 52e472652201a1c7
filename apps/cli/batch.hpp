#pragma once
// `kinetrack batch`: many inputs, each tracked like `kinetrack track` into OUTDIR/<stem>.csv and
// OUTDIR/<stem>.json, on a thread pool (batch_command.cpp) or across MPI ranks (batch_mpi.cpp).
// Every finished input leaves a status record OUTDIR/status/<stem>.json (written last,
// atomically); the report OUTDIR/report.csv is rebuilt from those records, so `--resume` redoes
// only the inputs without a successful record.
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"

namespace kinetrack::cli {

/// One input of a batch: a manifest row or a file of --input-dir.
struct BatchJob {
  std::string input;  ///< capture path
  std::string stem;   ///< output name: OUTDIR/<stem>.csv, .json
  std::string command = "track";
  app::TrackOptions track;   ///< its `kinetrack track` options (model, map, solver, …)
  std::string args;          ///< other commands: extra options of the single command (whitespace-separated)
  std::string origin;        ///< "manifest.csv:3" or the directory, for messages
  std::uintmax_t bytes = 0;  ///< input size (0 when missing): larger inputs start first
};

/// What one input produced (also its status record on disk and its report row).
struct BatchRecord {
  std::string input, stem, command, model;
  std::string status;  ///< "ok", "non-finite" (outputs written, some steps non-finite) or "failed"
  int exit = 0;        ///< the exit status `kinetrack track` would have returned
  std::int64_t frames = 0;
  int gaps = 0;
  double mnte_median = 0.0, mnte_p95 = 0.0, limit_violation_max_rad = 0.0;
  double seconds = 0.0;
  std::string error;  ///< the error message of a failed input
};

/// A command a batch row can run: its words, the flags of its input, model and outputs (flag,
/// extension of OUTDIR/<stem><ext>). `track` runs in-process (trackInput); the others as a child
/// `kinetrack <words> …` process (batch_commands.cpp).
struct BatchCommand {
  std::string name;
  std::vector<std::string> words;
  std::string input_flag, model_flag;  ///< model_flag empty: the command takes no model
  bool model_required = false;
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<std::string> extensions;  ///< the input files --input-dir takes
};
/// The command of a name ("track", "retarget", "markers ik", "hand track", "dynamics id");
/// throws InvalidArgument listing the valid ones.
const BatchCommand& batchCommand(const std::string& name);
/// The output files of `job` (OUTDIR/<stem><ext>, the command's outputs in order).
std::vector<std::string> batchOutputs(const BatchJob& job, const std::string& outdir);
/// The arguments of the single command a non-track row runs (after `kinetrack`): the command's
/// words, input, model, output flags, --quiet, then the row's extra options.
std::vector<std::string> commandArguments(const BatchJob& job, const std::string& outdir);
/// Runs a non-track row as its single command in a child process (log OUTDIR/logs/<stem>.log)
/// and fills `r` (status, exit, frames; the error is the log's last line).
void runCommandJob(const BatchJob& job, const std::string& outdir, BatchRecord& r);

/// The defaults of the command line applied to every input (manifest cells override them).
struct BatchDefaults {
  app::TrackOptions track;
  std::string command = "track";
  std::string args;
};

/// Reads a manifest: CSV with a header row (column `input` required; `command`, `model`,
/// `height`, `mass`, `map`, `calibration`, `solver`, `units`, `rate`, `kappa`, `transient`,
/// `args` optional, an empty cell taking the command-line default) or JSON (an array of objects with
/// the same keys). Relative input paths are relative to the manifest's directory. Throws
/// ParseError naming the file, line and field for an unknown column, a bad number, an unknown
/// command, a missing model or two inputs with the same stem.
std::vector<BatchJob> readManifest(const std::string& path, const BatchDefaults& defaults);
/// Every input file of `dir` for the default command (batchCommand().extensions; not recursive),
/// sorted by name.
std::vector<BatchJob> jobsFromDirectory(const std::string& dir, const BatchDefaults& defaults);

/// The indices of `jobs` from the largest input to the smallest (ties in manifest order).
std::vector<int> largestFirst(const std::vector<BatchJob>& jobs);

/// Loads every distinct model of `jobs` once (from-clip models are built per input). A model
/// that fails to load is kept as its error message, reported by each of its inputs.
class BatchModels {
 public:
  explicit BatchModels(const std::vector<BatchJob>& jobs);
  /// The loaded model of `job`, nullptr for from-clip; throws the load error again as
  /// InvalidArgument.
  [[nodiscard]] const Model* find(const BatchJob& job) const;

 private:
  std::map<std::string, Model> models_;
  std::map<std::string, std::string> errors_;
};

/// Runs one input: its outputs, then its status record. Never throws: an error becomes a
/// "failed" record with the message. Increments `frames_done` per tracked frame.
BatchRecord runBatchJob(const BatchJob& job, const BatchModels& models, const std::string& outdir,
                        std::atomic<std::int64_t>* frames_done);

/// The status record of `job` on disk, or nullptr-like (status empty) when there is none.
BatchRecord readRecord(const BatchJob& job, const std::string& outdir);
/// True when `job` has an "ok" record and all of its outputs exist (resume skips it).
bool jobComplete(const BatchJob& job, const std::string& outdir);

/// A record as one JSON text and back (status files, MPI gathering).
std::string recordToJson(const BatchRecord& r);
BatchRecord recordFromJson(const std::string& text, const std::string& origin);

/// Writes OUTDIR/report.csv (one row per job, manifest order) and prints the summary table and
/// the failures. Returns the exit status: 0 when every input is ok, else the largest job exit.
int writeBatchReport(const std::vector<BatchJob>& jobs, const std::vector<BatchRecord>& records,
                     const std::string& outdir, double seconds);

/// Runs the pending jobs over the MPI ranks (batch_mpi.cpp); every rank returns the records of
/// all `pending` jobs on rank 0 (empty on the others). Throws UsageError when kinetrack was
/// built without MPI.
std::map<int, BatchRecord> runBatchMpi(const std::vector<BatchJob>& jobs, const std::vector<int>& pending,
                                       const BatchModels& models, const std::string& outdir, bool progress, int& rank);

}  // namespace kinetrack::cli
