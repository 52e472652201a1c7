#include "track_job.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/bvh_writer.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/io/opensim.hpp"
#include "track_report.hpp"

namespace kinetrack::cli {
namespace {

double meanFrameTime(const std::vector<double>& t) {
  return t.size() > 1 ? (t.back() - t.front()) / static_cast<double>(t.size() - 1) : 1.0 / 60.0;
}

}  // namespace

track::Method parseMethodFlag(const std::string& solver) {
  try {
    return track::parseMethod(solver);
  } catch (const InvalidArgument&) {
    throw UsageError("--solver: expected dynamical, wholebody, wholebody-ipopt or pairwise, got '" + solver + "'");
  }
}

void setSolver(track::TrackerOptions& options, const std::string& solver, int threads) {
  if (threads < 0) throw UsageError("--threads: expected ≥ 0, got " + std::to_string(threads));
  options.method = parseMethodFlag(solver);
  options.pairwise.threads = threads;
}

TrackJobResult runTrackJob(const Model& model, const track::Capture& capture, const track::Retargeting& plan,
                           const track::TrackerOptions& options, const TrackOutput& output, const std::string& input,
                           const std::vector<Configuration>* truth, const std::vector<std::string>& skipped,
                           const std::vector<std::string>& unmapped, std::chrono::steady_clock::time_point start) {
  if (output.out.empty()) throw UsageError("--out is required");
  if (!(output.transient >= 0.0)) throw UsageError("--transient must be ≥ 0");
  io::JointCsvWriter writer(model, output.out);
  std::vector<Configuration> tracked;
  const bool keep = !output.bvh_out.empty() || !output.mot_out.empty();
  if (keep) tracked.reserve(static_cast<std::size_t>(capture.clip.numFrames()));
  ProgressBar bar(capture.clip.numFrames(), !output.quiet);
  const track::TrackRecord record = track::runTracking(
      model, capture, plan, options,
      [&](int f, const Configuration& q, const track::FrameOutcome& o) {
        writer.write(capture.clip.times[static_cast<std::size_t>(f)], q, o.gap);
        if (keep) tracked.push_back(q);
        if (output.frames_done != nullptr) output.frames_done->fetch_add(1, std::memory_order_relaxed);
        bar.update(f + 1);
      },
      truth);
  TrackJobResult result;
  result.summary = track::summarize(record, output.transient, truth != nullptr);
  const track::TrackSummary& s = result.summary;

  // Secondary outputs first, the main CSV last: a failure leaves no complete-looking output.
  if (!output.bvh_out.empty()) io::writeBvh(model, tracked, meanFrameTime(capture.clip.times), output.bvh_out);
  if (!output.mot_out.empty()) io::writeMot(motTable(model, capture.clip.times, tracked), output.mot_out);
  if (!output.summary_json.empty()) {
    nlohmann::json j = summaryJson(s, model, input, plan, skipped, unmapped);
    if (!output.timing)
      for (const char* key : {"step_us_p50", "step_us_p99", "step_us_max"}) j.erase(key);
    writeSummaryJson(output.summary_json, j);
  }
  writer.commit();
  result.status = s.non_finite > 0 ? kExitFailure : kExitOk;
  if (!output.report) return result;

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  printSummary(s, model, input, plan, skipped, unmapped, seconds);
  fmt::print("wrote {} ({} rows)", output.out, writer.rows());
  for (const std::string* f : {&output.summary_json, &output.bvh_out, &output.mot_out})
    if (!f->empty()) fmt::print(", {}", *f);
  fmt::print("\n");
  return result;
}

}  // namespace kinetrack::cli
