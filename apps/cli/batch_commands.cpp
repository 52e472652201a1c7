// Batch inputs of the commands other than track (retarget, markers ik, hand track, dynamics id):
// each runs as the single command itself, a child `kinetrack <command> …` process of this
// executable with the input, model and output flags of the row (outputs OUTDIR/<stem>.<ext>) and
// the row's extra options, its output in OUTDIR/logs/<stem>.log. The outputs are those of the
// single command by construction; a crash of one input cannot take the batch down.
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "batch.hpp"
#include "kinetrack/core/errors.hpp"

extern char** environ;

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

const std::vector<BatchCommand>& commands() {
  static const std::vector<BatchCommand> all{
      {"track",
       {"track"},
       "--input",
       "--model",
       true,
       {{"--out", ".csv"}, {"--summary-json", ".json"}},
       {".bvh", ".mvnx"}},
      {"retarget",
       {"retarget"},
       "--input",
       "--robot",
       true,
       {{"--out", ".csv"}, {"--summary-json", ".json"}},
       {".bvh", ".mvnx"}},
      {"markers ik",
       {"markers", "ik"},
       "--markers",
       "--model",
       false,
       {{"--out", ".mot"}, {"--summary-json", ".json"}},
       {".trc", ".c3d"}},
      {"hand track",
       {"hand", "track"},
       "--input",
       "",
       false,
       {{"--out", ".csv"}, {"--summary-json", ".json"}},
       {".tsv"}},
      {"dynamics id", {"dynamics", "id"}, "--motion", "--model", true, {{"--out", ".csv"}}, {".csv"}},
  };
  return all;
}

std::vector<std::string> splitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string selfExecutable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("batch: cannot find the kinetrack executable (/proc/self/exe)");
  return p.string();
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

}  // namespace

const BatchCommand& batchCommand(const std::string& name) {
  for (const BatchCommand& c : commands())
    if (c.name == name) return c;
  std::string valid;
  for (const BatchCommand& c : commands()) valid += (valid.empty() ? "" : ", ") + c.name;
  throw InvalidArgument(fmt::format("'{}' is not a batch command (supported: {})", name, valid));
}

std::vector<std::string> batchOutputs(const BatchJob& job, const std::string& outdir) {
  std::vector<std::string> out;
  for (const auto& [flag, ext] : batchCommand(job.command).outputs)
    out.push_back((fs::path(outdir) / (job.stem + ext)).string());
  return out;
}

std::vector<std::string> commandArguments(const BatchJob& job, const std::string& outdir) {
  const BatchCommand& c = batchCommand(job.command);
  std::vector<std::string> args = c.words;
  args.insert(args.end(), {c.input_flag, job.input});
  if (!c.model_flag.empty() && !job.track.model.model.empty())
    args.insert(args.end(), {c.model_flag, job.track.model.model});
  const std::vector<std::string> outputs = batchOutputs(job, outdir);
  for (std::size_t i = 0; i < outputs.size(); ++i) args.insert(args.end(), {c.outputs[i].first, outputs[i]});
  args.emplace_back("--quiet");
  const std::vector<std::string> extra = splitWords(job.args);
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

void runCommandJob(const BatchJob& job, const std::string& outdir, BatchRecord& r) {
  const fs::path logs = fs::path(outdir) / "logs";
  fs::create_directories(logs);
  const std::string log = (logs / (job.stem + ".log")).string();
  std::vector<std::string> args = commandArguments(job, outdir);
  args.insert(args.begin(), selfExecutable());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, STDIN_FILENO);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) throw std::runtime_error(fmt::format("batch: cannot start {}: {}", argv[0], std::strerror(err)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    r.status = "failed", r.exit = kExitFailure;
    r.error =
        fmt::format("{}: `kinetrack {}` killed by signal {} (log: {})", job.input, job.command, WTERMSIG(status), log);
    return;
  }
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
  if (r.exit != kExitOk) {
    r.status = "failed";
    r.error = fmt::format("{}: {} (log: {})", job.input, lastLine(log), log);
    return;
  }
  r.status = "ok";
  r.frames = countFrames(batchOutputs(job, outdir));
  r.mnte_median = r.mnte_p95 = r.limit_violation_max_rad = std::nan("");  // the track figures only
}

}  // namespace kinetrack::cli
