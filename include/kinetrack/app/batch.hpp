#pragma once
// Batch runs (`kinetrack batch`, kt.batch): many inputs, each run as one command's job into
// OUTDIR/<stem>.<ext>, on a thread pool (or, in the CLI, across MPI ranks), all in this process.
// Every finished input leaves a status record OUTDIR/status/<stem>.json (written last,
// atomically); the report OUTDIR/report.csv is rebuilt from those records, so a resumed run
// redoes only the inputs without a successful record.
//
// `track` rows carry their options as manifest columns (TrackOptions) and run app::runTrack. The
// other commands (retarget, markers ik, hand track, dynamics id) take the row's `args`, options of
// the single command: runCommandLine parses them with the options the library declares for that
// command (the same declarations `kinetrack <command>` parses with) and runs its job in this
// process; what the command would print goes to OUTDIR/logs/<stem>.log.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "kinetrack/app/track_job.hpp"

namespace kinetrack::app {

/// One input of a batch: a manifest row or a file of an input directory.
struct BatchJob {
  std::string input;  ///< input path
  std::string stem;   ///< output name: OUTDIR/<stem>.csv, .json
  std::string command = "track";
  TrackOptions track;        ///< a track row's options (model, map, solver, …); the model of other rows
  std::string args;          ///< other commands: extra options of the single command (whitespace-separated)
  std::string origin;        ///< "manifest.csv:3" or the directory, for messages
  std::uintmax_t bytes = 0;  ///< input size (0 when missing): larger inputs start first
};

/// What one input produced (also its status record on disk and its report row).
struct BatchRecord {
  std::string input, stem, command, model;
  std::string status;  ///< "ok", "non-finite" (outputs written, some steps non-finite) or "failed"
  int exit = 0;        ///< the exit status the single command would have returned
  std::int64_t frames = 0;
  int gaps = 0;
  double mnte_median = 0.0, mnte_p95 = 0.0, limit_violation_max_rad = 0.0;
  double seconds = 0.0;
  std::string error;  ///< the error message of a failed input
};

/// A command a batch row can run: its words, the flags of its input, model and outputs (flag,
/// extension of OUTDIR/<stem><ext>), the input files a directory run takes.
struct BatchCommand {
  std::string name;
  std::vector<std::string> words;
  std::string input_flag, model_flag;  ///< model_flag empty: the command takes no model
  bool model_required = false;
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<std::string> extensions;
};
/// The command of a name ("track", "retarget", "markers ik", "hand track", "dynamics id");
/// throws InvalidArgument listing the valid ones.
const BatchCommand& batchCommand(const std::string& name);
/// The output files of `job` (OUTDIR/<stem><ext>, the command's outputs in order).
std::vector<std::string> batchOutputs(const BatchJob& job, const std::string& outdir);
/// The command line of a non-track row (without the program name): the command's words, input,
/// model, output flags, --quiet, then the row's extra options.
std::vector<std::string> commandArguments(const BatchJob& job, const std::string& outdir);

/// The defaults every input starts from (manifest cells override them).
struct BatchDefaults {
  TrackOptions track;
  std::string command = "track";
  std::string args;
};

/// Reads a manifest: CSV with a header row (column `input` required; `command`, `model`,
/// `height`, `mass`, `map`, `calibration`, `solver`, `units`, `rate`, `kappa`, `transient`,
/// `args` optional, an empty cell taking the default) or JSON (an array of objects with the same
/// keys). Relative input paths are relative to the manifest's directory. Throws ParseError naming
/// the file, line and field for an unknown column, a bad number, an unknown command, a missing
/// model or two inputs with the same stem.
std::vector<BatchJob> readManifest(const std::string& path, const BatchDefaults& defaults);
/// Every input file of `dir` for the default command (BatchCommand::extensions; not recursive),
/// sorted by name.
std::vector<BatchJob> jobsFromDirectory(const std::string& dir, const BatchDefaults& defaults);

/// The indices of `jobs` from the largest input to the smallest (ties in manifest order).
std::vector<int> largestFirst(const std::vector<BatchJob>& jobs);

/// Loads every distinct model of the track rows once (from-clip models are built per input). A
/// model that fails to load is kept as its error message, reported by each of its inputs.
class BatchModels {
 public:
  explicit BatchModels(const std::vector<BatchJob>& jobs, const Reporter& reporter = {});
  /// The loaded model of `job`, nullptr for from-clip; throws the load error again as
  /// InvalidArgument.
  [[nodiscard]] const Model* find(const BatchJob& job) const;

 private:
  std::map<std::string, Model> models_;
  std::map<std::string, std::string> errors_;
};

/// Runs a non-track row's command line in this process on the calling thread: returns its exit
/// status and appends what it printed to `log`; may throw (the row then fails with the message).
using BatchCommandLine = std::function<int(const std::vector<std::string>& args, std::string& log)>;

/// The BatchCommandLine of every batch (an empty BatchCommandLine below means this one): `args`
/// (commandArguments: "markers ik --markers … --quiet …") parsed with the library's declarations of
/// that command's options (the single command's, without its plot options), its job run on the
/// calling thread; `log` gets what the single command prints (its notes, "kinetrack: warning: …"
/// lines, its summary and "wrote …" lines). Returns the command's exit status (0, or 1 when the
/// job reports failed frames). Throws InvalidArgument for arguments the command does not take
/// (naming them and the command line), and what the job throws (InvalidArgument, ParseError).
int runCommandLine(const std::vector<std::string>& args, std::string& log);

/// Runs one input: its outputs, then its status record. Never throws: an error becomes a "failed"
/// record with the message. Adds the input's frames to `frames_done` as they are tracked (track
/// rows) or once done (others). Non-track rows run through `command_line` (empty: runCommandLine).
BatchRecord runBatchJob(const BatchJob& job, const BatchModels& models, const std::string& outdir,
                        std::atomic<std::int64_t>* frames_done, const BatchCommandLine& command_line = {});

struct BatchPoolOptions {
  std::string outdir;
  int threads = 0;  ///< inputs at once (0 = one per hardware thread)
};
/// Runs the `pending` jobs on a thread pool, largest first; progress counts inputs (the label: the
/// frames so far and the last input). Returns one record per job (empty for those not pending).
std::vector<BatchRecord> runBatchPool(const std::vector<BatchJob>& jobs, const std::vector<int>& pending,
                                      const BatchModels& models, const BatchPoolOptions& options,
                                      const BatchCommandLine& command_line = {}, const Reporter& reporter = {});

/// The status record of `job` on disk, or an empty one (status "") when there is none.
BatchRecord readRecord(const BatchJob& job, const std::string& outdir);
/// True when `job` has an "ok" record and all of its outputs exist (a resumed run skips it).
bool jobComplete(const BatchJob& job, const std::string& outdir);

/// A record as one JSON text and back (status files, MPI gathering).
std::string recordToJson(const BatchRecord& r);
BatchRecord recordFromJson(const std::string& text, const std::string& origin);

/// The report of a finished batch: OUTDIR/report.csv written, the summary table and failures as
/// text, and the exit status (0 when every input is ok, else the largest job exit).
struct BatchReport {
  std::string text;
  int exit = 0;
  int ok = 0, failed = 0;
  std::int64_t frames = 0;
};
BatchReport writeBatchReport(const std::vector<BatchJob>& jobs, const std::vector<BatchRecord>& records,
                             const std::string& outdir, double seconds);

/// Runs the pending jobs elsewhere than on this process's thread pool (MPI ranks:
/// app/batch_mpi.hpp): returns the records by job index on the primary process (rank 0) and sets
/// `primary`; the other processes return nothing and get primary = false.
using BatchDistributor = std::function<std::map<int, BatchRecord>(
    const std::vector<BatchJob>& jobs, const std::vector<int>& pending, const BatchModels& models,
    const std::string& outdir, const BatchCommandLine& command_line, const Reporter& reporter, bool& primary)>;

/// `kinetrack batch`: the inputs of a manifest or a directory, each row's command, a report.
struct BatchRunOptions {
  BatchDefaults defaults;       ///< cells of rows that leave them empty
  std::string manifest;         ///< CSV or JSON manifest (docs/batch.md) ...
  std::string input_dir;        ///< ... or every input file of a directory (exactly one of the two)
  std::string out;              ///< output directory (results, status/, report.csv)
  int threads = 0;              ///< inputs at once on the thread pool (0 = one per hardware thread)
  bool resume = false;          ///< keep the inputs with a complete result in `out`
  BatchDistributor distribute;  ///< empty: this process's thread pool
};
struct BatchRunResult {
  BatchReport report;   ///< written on the primary process only
  bool primary = true;  ///< false on the secondary MPI ranks (they report nothing)
  int inputs = 0, pending = 0;
};
/// Reads the inputs, skips the complete ones when resuming, runs the others largest first (notes
/// "batch: N inputs (…) on …"; progress counts inputs) and writes the report. Throws
/// InvalidArgument for a bad manifest, directory or option (both or neither of manifest and
/// input_dir, negative threads, threads with a distributor), ParseError for an unwritable `out`.
/// `command_line` (empty: runCommandLine) runs the rows of commands other than track.
BatchRunResult runBatch(const BatchRunOptions& options, const BatchCommandLine& command_line = {},
                        const Reporter& reporter = {});

}  // namespace kinetrack::app
