#include "kinetrack/app/prior_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/prior/prior_posture.hpp"
#include "kinetrack/prior/sparse_frame_solver.hpp"
#include "kinetrack/prior/sparse_study.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/stream_tracker.hpp"

namespace kinetrack::app {
namespace {

using Clock = std::chrono::steady_clock;
using namespace kinetrack::prior;

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  const auto k = static_cast<std::size_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return v[k];
}

}  // namespace

PriorBuildResult runPriorBuild(const PriorBuildOptions& o, const Reporter& reporter) {
  if (o.clips.empty()) throw InvalidArgument("give at least one clip");
  if (!(o.rate > 0.0) || !std::isfinite(o.rate)) throw InvalidArgument("--rate: need a finite rate > 0 (Hz)");
  if (o.inc < 1 || o.inc > 40) throw InvalidArgument("--inc: 1 … 40");
  const io::LoadedModel lm = loadModel(o.model, reporter);
  std::vector<std::vector<Configuration>> motions;
  PriorBuildResult r;
  const int n = static_cast<int>(o.clips.size());
  for (int i = 0; i < n; ++i) {
    const std::string& clip = o.clips[static_cast<std::size_t>(i)];
    reporter.report(i, n, clip);
    ReferenceMotion m = referenceMotion(lm.model, {clip, {clip}}, o.rate);
    r.frames_kept.emplace_back(clip, m.frames());
    for (auto& c : m.clips) motions.push_back(std::move(c));
  }
  reporter.report(n, n);
  DensityOptions d;
  d.inc = o.inc;
  d.min_samples = o.min_samples;
  const HumanPrior prior = buildHumanPrior(lm.model, motions, d);
  if (!o.out.empty()) writeHumanPrior(o.out, prior);
  r.model_name = lm.model.name();
  r.joints = lm.model.numJoints();
  r.inc = o.inc;
  const char* names[] = {"right arm", "left arm", "trunk, neck, legs"};
  for (int g = 0; g < prior.density.numGroups(); ++g)
    r.groups.push_back({names[g], static_cast<int>(prior.density.group(g).size()), prior.density.occupiedCells(g),
                        o.inc * o.inc * o.inc});
  return r;
}

std::string summaryText(const PriorBuildResult& r, const std::string& out) {
  std::vector<std::vector<std::string>> table = {{"clip", "frames kept"}};
  for (const auto& [clip, frames] : r.frames_kept) table.push_back({clip, std::to_string(frames)});
  std::string t = textTable(table);
  for (const auto& g : r.groups)
    t += fmt::format("{}: {} joints, {} of {} cells with densities\n", g.name, g.joints, g.occupied, g.cells);
  t += fmt::format("wrote {} (model {}, {} joints, inc {})\n", out, r.model_name, r.joints, r.inc);
  return t;
}

SparseTrackResult runSparseTrack(const SparseTrackOptions& o, const Reporter& reporter) {
  const auto start = Clock::now();
  const track::Capture capture = loadTrackCapture(o.track);
  const track::TrackSetup setup = setupTrack(o.track, capture, reporter);
  SparseTrackResult r;
  r.input = o.track.input;
  auto model = std::make_shared<const Model>(setup.model);
  r.model = model;
  r.frames = parseTargetSpec(*model, o.targets);
  std::vector<track::TargetBinding> bindings;
  for (const std::string& f : r.frames) {
    auto it = std::find_if(setup.plan.bindings.begin(), setup.plan.bindings.end(),
                           [&](const track::TargetBinding& b) { return b.frame == f; });
    if (it == setup.plan.bindings.end()) {
      std::string have;
      for (const auto& b : setup.plan.bindings) have += (have.empty() ? "" : ", ") + b.frame;
      throw InvalidArgument("--targets: no segment of the capture drives '" + f + "' (driven: " + have + ")");
    }
    track::TargetBinding b = *it;
    b.position = b.orientation = true;
    bindings.push_back(b);
  }
  std::unique_ptr<HumanPrior> prior;
  if (!o.prior.empty()) {
    prior = std::make_unique<HumanPrior>(readHumanPrior(o.prior));
    checkPriorMatchesModel(*prior, *model, o.prior);
  }
  if (o.solver != "dyn" && o.solver != "gp")
    throw InvalidArgument("--sparse-solver: '" + o.solver + "' is not one of dyn, gp");
  // The sparse solver under the stream tracker, like every other method: gaps hold the state,
  // the first frame is reached from the initial pose (kFirstFrameRepeats solves of one frame
  // interval), later frames step over the time since the last valid frame.
  auto solver = std::make_unique<SparseFrameSolver>(model, r.frames, prior.get(), o.solver == "dyn");
  const SparseFrameSolver& sparse = *solver;
  const io::MotionClip& clip = capture.clip;
  const int n = clip.numFrames();
  const double nominal_dt = n > 1 ? (clip.times.back() - clip.times.front()) / (n - 1) : 0.0;
  track::TrackerOptions options;
  options.first_frame_interval = nominal_dt > 0.0 && std::isfinite(nominal_dt) ? nominal_dt : 1.0 / 60.0;
  std::vector<track::StreamTarget> targets;
  for (const std::string& f : r.frames) targets.push_back({f, true, true, 1.0});
  track::StreamTracker tracker(std::move(solver), std::move(targets), options);
  tracker.setState(setup.plan.initial);
  std::vector<Matrix3d> R(bindings.size());
  std::vector<Vector3d> p(bindings.size());
  std::optional<io::JointCsvWriter> writer;
  if (!o.track.files.joints.empty()) writer.emplace(*model, o.track.files.joints);
  r.q.reserve(static_cast<std::size_t>(n));
  for (int f = 0; f < n; ++f) {
    const double time = clip.times[static_cast<std::size_t>(f)];
    const bool ok = track::clipFrameTargets(clip, bindings, setup.plan.alignment, f, R, p);
    const auto t0 = Clock::now();
    const track::FrameOutcome out = tracker.track(time, R, p, ok);
    if (ok) {
      r.frame_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      r.position_error_mm.push_back(1e3 * sparse.last().position_error);
      r.fallbacks += sparse.fallbacks();
    } else {
      ++r.gaps;
    }
    const Configuration& q = tracker.state();
    if (writer) writer->write(time, q, out.gap);
    r.times.push_back(time);
    r.q.push_back(q);
    r.gap.push_back(ok ? 0 : 1);
    reporter.report(f + 1, n);
  }
  if (writer) {
    writer->commit();
    r.rows_written = writer->rows();
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

std::string summaryText(const SparseTrackResult& r, const SparseTrackOptions& o) {
  const bool use_dyn = o.solver == "dyn";
  std::string names;
  for (const auto& f : r.frames) names += (names.empty() ? "" : ", ") + f;
  std::vector<std::vector<std::string>> t = {
      {"input", r.input},
      {"targets", names},
      {"solver", use_dyn ? "DYN (prior as its posture term)" : "gradient projection (prior in the null space)"},
      {"prior", o.prior.empty() ? (use_dyn ? "none" : "none (damped least norm)") : o.prior},
      {"frames", std::to_string(r.q.size())},
      {"gaps", std::to_string(r.gaps)},
      {"target position error p50 / max [mm]",
       fmt::format("{:.1f} / {:.1f}", percentile(r.position_error_mm, 0.5), percentile(r.position_error_mm, 1.0))},
      {"frame time p50 / p95 [us]",
       fmt::format("{:.1f} / {:.1f}", percentile(r.frame_us, 0.5), percentile(r.frame_us, 0.95))}};
  if (!o.prior.empty()) t.push_back({"prior lookups in an empty cell", std::to_string(r.fallbacks)});
  return textTable(t) +
         fmt::format("wrote {} ({} rows) in {:.1f} s\n", o.track.files.joints, r.rows_written, r.seconds);
}

}  // namespace kinetrack::app
