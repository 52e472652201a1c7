// The inputs of a batch (manifest or directory), its models, the commands a row can run, status
// records and the report (kinetrack/app/batch.hpp).
#include "kinetrack/app/batch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::app {
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
       {{"--out", ".csv"}, {"--summary-json", ".json"}, {"--quality-json", ".quality.json"}},
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
      // The day per trial: its output directory is OUTDIR/<stem> (setups and loads in the args column).
      {"gait", {"gait"}, "--trial", "--model", true, {{"--out", ""}}, {".trc", ".c3d"}},
  };
  return all;
}

std::vector<std::string> splitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

const std::set<std::string>& manifestColumns() {
  static const std::set<std::string> columns{"input",  "command", "model", "height", "mass",      "map", "calibration",
                                             "solver", "units",   "rate",  "kappa",  "transient", "args"};
  return columns;
}

double numberCell(const std::string& text, const std::string& file, int line, const std::string& field) {
  double v = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v))
    throw ParseError(file, line, fmt::format("field '{}': expected a finite number, got '{}'", field, text));
  return v;
}

/// Applies one manifest cell to `job` (an empty value keeps the default).
void setField(BatchJob& job, const std::string& field, const std::string& value, const std::string& file, int line,
              const fs::path& base) {
  if (value.empty()) return;
  app::TrackOptions& t = job.track;
  if (field == "input") {
    const fs::path p(value);
    job.input = p.is_absolute() ? value : (base / p).lexically_normal().string();
  } else if (field == "command") {
    job.command = value;
  } else if (field == "model") {
    t.model.model = value;
  } else if (field == "height") {
    t.model.height = numberCell(value, file, line, field);
  } else if (field == "mass") {
    t.model.mass = numberCell(value, file, line, field);
  } else if (field == "map") {
    t.map = value;
  } else if (field == "calibration") {
    t.calibration = value;
  } else if (field == "solver") {
    t.solver = value;
  } else if (field == "units") {
    t.units = value;
  } else if (field == "rate") {
    t.rate = numberCell(value, file, line, field);
  } else if (field == "kappa") {
    t.kappa = numberCell(value, file, line, field);
  } else if (field == "transient") {
    t.transient = numberCell(value, file, line, field);
  } else if (field == "args") {
    job.args = value;
  } else {
    throw ParseError(
        file, line, fmt::format("unknown field '{}' (expected one of: {})", field, fmt::join(manifestColumns(), ", ")));
  }
}

BatchJob defaultJob(const BatchDefaults& d) {
  BatchJob job;
  job.track = d.track;
  job.command = d.command;
  job.args = d.args;
  return job;
}

/// Checks a finished job description: command, input, model; sets stem and size.
void finishJob(BatchJob& job, const std::string& file, int line) {
  const BatchCommand* command = nullptr;
  try {
    command = &batchCommand(job.command);
  } catch (const InvalidArgument& e) {
    throw ParseError(file, line, std::string("field 'command': ") + e.what());
  }
  if (job.input.empty()) throw ParseError(file, line, "field 'input': missing");
  if (command->model_required && job.track.model.model.empty())
    throw ParseError(file, line, "field 'model': missing (give a model column or --model)");
  if (job.command == "track" && !job.args.empty())
    throw ParseError(file, line, "field 'args': track rows take their options as columns (model, solver, …)");
  job.stem = fs::path(job.input).stem().string();
  job.origin = line > 0 ? fmt::format("{}:{}", file, line) : file;
  std::error_code ec;
  const auto size = fs::file_size(job.input, ec);
  job.bytes = ec ? 0 : size;
}

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    const auto b = cell.find_first_not_of(" \t\r");
    const auto e = cell.find_last_not_of(" \t\r");
    cells.push_back(b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
  }
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

std::vector<BatchJob> readCsvManifest(const std::string& path, const BatchDefaults& defaults) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, "cannot open the manifest");
  const fs::path base = fs::path(path).parent_path();
  std::vector<BatchJob> jobs;
  std::vector<std::string> header;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
    if (line.find('"') != std::string::npos) throw ParseError(path, number, "quoted cells are not supported");
    const std::vector<std::string> cells = splitCsv(line);
    if (header.empty()) {
      for (const std::string& c : cells)
        if (manifestColumns().count(c) == 0)
          throw ParseError(path, number,
                           fmt::format("unknown column '{}' (expected: {})", c, fmt::join(manifestColumns(), ", ")));
      if (std::find(cells.begin(), cells.end(), "input") == cells.end())
        throw ParseError(path, number, "the header has no 'input' column");
      header = cells;
      continue;
    }
    if (cells.size() > header.size())
      throw ParseError(path, number, fmt::format("{} fields, the header has {}", cells.size(), header.size()));
    BatchJob job = defaultJob(defaults);
    for (std::size_t i = 0; i < cells.size(); ++i) setField(job, header[i], cells[i], path, number, base);
    finishJob(job, path, number);
    jobs.push_back(std::move(job));
  }
  if (header.empty()) throw ParseError(path, 0, "empty manifest (no header row)");
  return jobs;
}

std::vector<BatchJob> readJsonManifest(const std::string& path, const BatchDefaults& defaults) {
  std::ifstream in(path);
  if (!in) throw ParseError(path, 0, "cannot open the manifest");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(path, 0, std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_array()) throw ParseError(path, 0, "expected an array of objects");
  const fs::path base = fs::path(path).parent_path();
  std::vector<BatchJob> jobs;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", path, i);
    if (!j[i].is_object()) throw ParseError(where, 0, "expected an object");
    BatchJob job = defaultJob(defaults);
    for (const auto& [key, value] : j[i].items()) {
      if (!value.is_string() && !value.is_number())
        throw ParseError(where, 0, fmt::format("field '{}': expected a string or a number", key));
      const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      setField(job, key, text, where, 0, base);
    }
    finishJob(job, where, 0);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

void checkStems(const std::vector<BatchJob>& jobs) {
  std::map<std::string, const BatchJob*> seen;
  for (const BatchJob& job : jobs) {
    const auto [it, fresh] = seen.emplace(job.stem, &job);
    if (!fresh)
      throw ParseError(job.origin, 0,
                       fmt::format("input '{}' has the same stem '{}' as {} ('{}'): their outputs would collide",
                                   job.input, job.stem, it->second->origin, it->second->input));
  }
}

std::string modelKey(const app::TrackOptions& t) {
  return fmt::format("{}|{}|{}", t.model.model, t.model.height ? *t.model.height : 0.0,
                     t.model.mass ? *t.model.mass : 0.0);
}

std::string statusPath(const std::string& outdir, const BatchJob& job) {
  return (fs::path(outdir) / "status" / (job.stem + ".json")).string();
}

/// A statistic of the report: empty for a failed input, a command other than track or a missing
/// value.
std::string metric(const BatchRecord& r, double v) {
  if (r.command != "track") return "";
  return r.status == "ok" || r.status == "non-finite" ? (std::isfinite(v) ? fmt::format("{:.6e}", v) : "nan") : "";
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

std::vector<BatchJob> readManifest(const std::string& path, const BatchDefaults& defaults) {
  const std::string ext = fs::path(path).extension().string();
  std::vector<BatchJob> jobs = ext == ".json" ? readJsonManifest(path, defaults) : readCsvManifest(path, defaults);
  checkStems(jobs);
  return jobs;
}

std::vector<BatchJob> jobsFromDirectory(const std::string& dir, const BatchDefaults& defaults) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ParseError(dir, 0, "--input-dir: not a directory");
  const BatchCommand* command = nullptr;
  try {
    command = &batchCommand(defaults.command);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("--command: ") + e.what());
  }
  const std::vector<std::string>& extensions = command->extensions;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && std::find(extensions.begin(), extensions.end(), ext) != extensions.end())
      files.push_back(entry.path().string());
  }
  if (ec) throw ParseError(dir, 0, "cannot list the directory: " + ec.message());
  std::sort(files.begin(), files.end());
  std::vector<BatchJob> jobs;
  for (const std::string& f : files) {
    BatchJob job = defaultJob(defaults);
    job.input = f;
    finishJob(job, dir, 0);
    jobs.push_back(std::move(job));
  }
  checkStems(jobs);
  return jobs;
}

std::vector<int> largestFirst(const std::vector<BatchJob>& jobs) {
  std::vector<int> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return jobs[static_cast<std::size_t>(a)].bytes > jobs[static_cast<std::size_t>(b)].bytes;
  });
  return order;
}

BatchModels::BatchModels(const std::vector<BatchJob>& jobs, const Reporter& reporter) {
  for (const BatchJob& job : jobs) {
    if (job.command != "track" || job.track.model.model == "from-clip") continue;  // others load their own
    const std::string key = modelKey(job.track);
    if (models_.count(key) != 0 || errors_.count(key) != 0) continue;
    try {
      models_.emplace(key, loadModel(job.track.model, reporter).model);
    } catch (const std::exception& e) {
      errors_.emplace(key, e.what());
    }
  }
}

const Model* BatchModels::find(const BatchJob& job) const {
  if (job.track.model.model == "from-clip") return nullptr;
  const std::string key = modelKey(job.track);
  if (const auto e = errors_.find(key); e != errors_.end()) throw InvalidArgument("model: " + e->second);
  return &models_.at(key);
}

std::string recordToJson(const BatchRecord& r) {
  nlohmann::json j;
  j["input"] = r.input;
  j["stem"] = r.stem;
  j["command"] = r.command;
  j["model"] = r.model;
  j["status"] = r.status;
  j["exit"] = r.exit;
  j["frames"] = r.frames;
  j["gaps"] = r.gaps;
  // NaN is not JSON: a missing statistic is null.
  const auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  j["mnte_median"] = num(r.mnte_median);
  j["mnte_p95"] = num(r.mnte_p95);
  j["limit_violation_max_rad"] = num(r.limit_violation_max_rad);
  j["seconds"] = r.seconds;
  j["error"] = r.error;
  return j.dump(1) + "\n";
}

BatchRecord recordFromJson(const std::string& text, const std::string& origin) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    const auto num = [&](const char* key) { return j.at(key).is_null() ? std::nan("") : j.at(key).get<double>(); };
    BatchRecord r;
    r.input = j.at("input").get<std::string>();
    r.stem = j.at("stem").get<std::string>();
    r.command = j.at("command").get<std::string>();
    r.model = j.at("model").get<std::string>();
    r.status = j.at("status").get<std::string>();
    r.exit = j.at("exit").get<int>();
    r.frames = j.at("frames").get<std::int64_t>();
    r.gaps = j.at("gaps").get<int>();
    r.mnte_median = num("mnte_median");
    r.mnte_p95 = num("mnte_p95");
    r.limit_violation_max_rad = num("limit_violation_max_rad");
    r.seconds = j.at("seconds").get<double>();
    r.error = j.at("error").get<std::string>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(origin, 0, std::string("broken status record: ") + e.what());
  }
}

BatchRecord readRecord(const BatchJob& job, const std::string& outdir) {
  const std::string path = statusPath(outdir, job);
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    return recordFromJson(text, path);
  } catch (const ParseError&) {
    return {};  // a broken record counts as missing: the input is redone
  }
}

bool jobComplete(const BatchJob& job, const std::string& outdir) {
  const BatchRecord r = readRecord(job, outdir);
  if (r.status != "ok" || r.input != job.input) return false;
  for (const std::string& o : batchOutputs(job, outdir))
    if (!fs::exists(o)) return false;
  return true;
}

namespace {

/// The retarget rows' quality reports (<stem>.quality.json) side by side and in total: a table
/// (text) and OUTDIR/quality.json. Empty when no retarget row finished.
std::string retargetQualityReport(const std::vector<BatchJob>& jobs, const std::vector<BatchRecord>& records,
                                  const std::string& outdir) {
  nlohmann::ordered_json clips = nlohmann::ordered_json::array();
  std::vector<std::vector<std::string>> table{{"retargeted", "frames", "slide p95 (mm)", "below ground (mm)",
                                               "self-pen. (mm)", "limit excess", "worst pose median"}};
  double slide = 0.0, below = 0.0, penetration = -1.0, limit = 0.0, worst = 0.0;
  std::string worst_name;
  std::int64_t frames = 0;
  auto number = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : std::nan(""); };
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].command != "retarget" || records[i].status != "ok") continue;
    const fs::path path = fs::path(outdir) / (jobs[i].stem + ".quality.json");
    std::ifstream in(path);
    const nlohmann::json q = nlohmann::json::parse(in, nullptr, false);
    if (!q.is_object() || !q.contains("pose_agreement_deg")) continue;
    double clip_worst = 0.0;
    std::string clip_angle = "-";
    for (const auto& [angle, v] : q["pose_agreement_deg"].items())
      if (const double m = number(v["median"]); std::isfinite(m) && m > clip_worst) clip_worst = m, clip_angle = angle;
    const double s = number(q["foot_slide_mm"]["p95"]), b = number(q["below_ground_mm"]),
                 p = number(q["self_penetration_mm"]), l = number(q["limit_excess"]);
    table.push_back({jobs[i].stem, std::to_string(q["frames"].get<std::int64_t>()),
                     std::isfinite(s) ? fmt::format("{:.2f}", s) : "-", fmt::format("{:.1f}", b),
                     std::isfinite(p) ? fmt::format("{:.1f}", p) : "-", fmt::format("{:.1e}", l),
                     fmt::format("{:.1f} deg ({})", clip_worst, clip_angle)});
    nlohmann::ordered_json c;
    c["stem"] = jobs[i].stem;
    c["input"] = jobs[i].input;
    c["quality"] = q;
    clips.push_back(std::move(c));
    frames += q["frames"].get<std::int64_t>();
    if (std::isfinite(s)) slide = std::max(slide, s);
    below = std::max(below, b);
    if (std::isfinite(p)) penetration = std::max(penetration, p);
    limit = std::max(limit, l);
    if (clip_worst > worst) worst = clip_worst, worst_name = jobs[i].stem + " " + clip_angle;
  }
  if (clips.empty()) return {};
  nlohmann::ordered_json total;
  total["clips"] = clips.size();
  total["frames"] = frames;
  total["foot_slide_p95_mm_max"] = slide;
  total["below_ground_mm_max"] = below;
  total["self_penetration_mm_max"] =
      penetration >= 0.0 ? nlohmann::ordered_json(penetration) : nlohmann::ordered_json(nullptr);
  total["limit_excess_max"] = limit;
  total["pose_median_deg_worst"] = worst;
  nlohmann::ordered_json all;
  all["total"] = total;
  all["clips"] = clips;
  const std::string file = (fs::path(outdir) / "quality.json").string();
  io::writeFileAtomically(file, all.dump(2) + "\n");
  return textTable(table) +
         fmt::format(
             "retarget quality over {} clips ({} frames): slide p95 ≤ {:.2f} mm, ≤ {:.1f} mm below the ground, "
             "limit excess ≤ {:.1e}, worst pose median {:.1f} deg ({}); wrote {}\n",
             clips.size(), frames, slide, below, limit, worst, worst_name, file);
}

}  // namespace

BatchReport writeBatchReport(const std::vector<BatchJob>& jobs, const std::vector<BatchRecord>& records,
                             const std::string& outdir, double seconds) {
  std::string csv =
      "input,stem,command,model,status,exit,frames,gaps,mnte_median_m,mnte_p95_m,limit_violation_max_rad,seconds,"
      "error\n";
  int status = 0, ok = 0, failed = 0;
  std::int64_t frames = 0;
  double cpu = 0.0;
  std::vector<std::vector<std::string>> table{{"input", "status", "frames", "gaps", "MNTE median (m)", "time (s)"}};
  std::vector<std::string> failures;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    BatchRecord r = records[i];
    if (r.status.empty()) r.status = "missing", r.exit = 1, r.error = "no result (run with --resume)";
    std::string error = r.error;
    std::replace(error.begin(), error.end(), ',', ';');
    std::replace(error.begin(), error.end(), '\n', ' ');
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.3f},{}\n", jobs[i].input, jobs[i].stem, jobs[i].command,
                       jobs[i].track.model.model, r.status, r.exit, r.frames, r.gaps, metric(r, r.mnte_median),
                       metric(r, r.mnte_p95), metric(r, r.limit_violation_max_rad), r.seconds, error);
    table.push_back({jobs[i].stem, r.status, std::to_string(r.frames), std::to_string(r.gaps),
                     r.status == "failed" || r.status == "missing" || r.command != "track"
                         ? "-"
                         : fmt::format("{:.2e}", r.mnte_median),
                     fmt::format("{:.2f}", r.seconds)});
    if (r.status == "ok") {
      ++ok;
    } else {
      ++failed;
      failures.push_back(r.error.empty() ? fmt::format("{}: {}", jobs[i].input, r.status) : r.error);
    }
    frames += r.frames;
    cpu += r.seconds;
    status = std::max(status, r.exit);
  }
  io::writeFileAtomically((fs::path(outdir) / "report.csv").string(), csv);
  BatchReport report;
  report.text = textTable(table);
  report.text += fmt::format(
      "{} inputs: {} ok, {} failed; {} frames in {:.2f} s ({:.0f} frames/s, {:.2f} s summed over inputs)\n",
      jobs.size(), ok, failed, frames, seconds, seconds > 0 ? static_cast<double>(frames) / seconds : 0.0, cpu);
  for (const std::string& f : failures) report.text += fmt::format("failed: {}\n", f);
  report.text += retargetQualityReport(jobs, records, outdir);
  report.text += fmt::format("wrote {}\n", (fs::path(outdir) / "report.csv").string());
  report.exit = status;
  report.ok = ok;
  report.failed = failed;
  report.frames = frames;
  return report;
}

}  // namespace kinetrack::app
