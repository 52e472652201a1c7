#include "kinetrack/experiments/dyn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <random>

#include "kinetrack/app/job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/track/segment_pairs.hpp"

namespace kinetrack::experiments {

using namespace kinetrack::track;  // the pipeline these experiments run

// --- Fig. 8 ----------------------------------------------------------------------------------------

namespace {

constexpr double kDeg = M_PI / 180.0;

bool hasHumanSegments(const Model& m) {
  const auto& names = humanSegmentNames();
  return std::all_of(names.begin(), names.end(), [&](const std::string& s) { return m.findLink(s).has_value(); });
}

}  // namespace

void ConvergenceOptions::validate() const {
  if (gains.empty()) throw InvalidArgument("ConvergenceOptions::gains: give at least one gain");
  for (double k : gains)
    if (!std::isfinite(k) || k < 0.0)
      throw InvalidArgument(
          fmt::format("ConvergenceOptions::gains: gain {} is negative or not finite; gains K are >= 0 (1/s)", k));
  if (!std::isfinite(rate) || rate <= 0.0)
    throw InvalidArgument(fmt::format("ConvergenceOptions::rate: {} Hz; need a finite rate > 0", rate));
  if (!std::isfinite(duration) || duration <= 0.0)
    throw InvalidArgument(fmt::format("ConvergenceOptions::duration: {} s; need a finite duration > 0", duration));
  const double n = std::round(duration * rate);
  if (n < 1.0)
    throw InvalidArgument(fmt::format("ConvergenceOptions: duration {} s at rate {} Hz gives no step", duration, rate));
  if (n > 1e7)
    throw InvalidArgument(fmt::format("ConvergenceOptions: duration x rate = {:g} steps per gain; at most 1e7", n));
  if (!std::isfinite(joint_range) || joint_range < 0.0)
    throw InvalidArgument("ConvergenceOptions::joint_range must be finite and >= 0");
  if (!std::isfinite(base_radius) || base_radius < 0.0)
    throw InvalidArgument("ConvergenceOptions::base_radius must be finite and >= 0");
}

long ConvergenceOptions::steps() const { return static_cast<long>(std::round(duration * rate)); }

ConvergenceTarget convergenceTarget(const Model& m, const ConvergenceOptions& options) {
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  ConvergenceTarget t;
  t.q = Configuration(m);
  const double range = options.joint_range * kDeg;
  for (int j = 0; j < m.numJoints(); ++j) {
    double lo = std::max(m.lowerPositionLimits()[j], -range), hi = std::min(m.upperPositionLimits()[j], range);
    if (lo > hi) {  // limits entirely outside ±range: both are finite here
      lo = m.lowerPositionLimits()[j];
      hi = m.upperPositionLimits()[j];
    }
    t.q.joints[j] = std::uniform_real_distribution<double>(lo, hi)(rng);
  }
  if (m.baseType() == BaseType::Floating) {
    Vector3d p;
    do p = randomVector3(unit, rng);
    while (p.squaredNorm() > 1.0);
    t.q.base_position = options.base_radius * p;
    t.yaw = M_PI * unit(rng);
    t.q.base_rotation = so3::exp(Vector3d(0.0, 0.0, t.yaw));
  }
  if (hasHumanSegments(m)) {
    for (const std::string& s : humanSegmentNames()) t.orientation.push_back(m.frameName(m.linkFrame(m.linkId(s))));
  } else {
    for (int l = 0; l < m.numLinks(); ++l) t.orientation.push_back(m.frameName(m.linkFrame(LinkId(l))));
  }
  if (m.baseType() == BaseType::Floating) t.position = m.frameName(m.linkFrame(LinkId(0)));

  Data data(m);
  framesForwardKinematics(m, data, t.q);
  for (const std::string& f : t.orientation) t.R.push_back(data.frame[static_cast<std::size_t>(m.frameId(f).value)].R);
  if (t.position) t.p = data.frame[static_cast<std::size_t>(m.frameId(*t.position).value)].p;
  return t;
}

GainRun runConvergenceGain(const Model& m, const ConvergenceTarget& target, double gain,
                           const ConvergenceOptions& options) {
  DynamicalIkOptions o;
  o.gain_mode = GainMode::Continuous;
  o.midpoint_jacobian = options.midpoint_jacobian;
  DynamicalIk ik(m, o);
  for (std::size_t i = 0; i < target.orientation.size(); ++i) {
    const TargetId id = ik.tasks().addOrientation(target.orientation[i], {.gain = gain});
    ik.tasks().setOrientation(id, target.R[i], Vector3d::Zero());  // static pose: ω = 0
  }
  if (target.position) {
    const TargetId id = ik.tasks().addPosition(*target.position, {.gain = gain});
    ik.tasks().setPosition(id, target.p, Vector3d::Zero());
  }
  ik.setState(Configuration(m));

  const long steps = options.steps();
  const double dt = 1.0 / options.rate;
  GainRun run;
  run.gain = gain;
  run.mnte.reserve(static_cast<std::size_t>(steps) + 1);
  run.mnte.push_back(ik.mnte());
  for (long k = 0; k < steps; ++k) {
    const StepResult r = ik.step(dt);
    run.unstable_gain = run.unstable_gain || r.unstable_gain;
    run.diverging = run.diverging || r.diverging;
    run.last_residual = r.residual_norm;
    if (r.qp_status != qp::Status::Optimal) {
      ++run.qp_not_optimal;
      run.worst_status = r.qp_status;
    }
    run.mnte.push_back(ik.mnte());
  }
  return run;
}

ConvergenceResult runConvergence(const Model& model, const ConvergenceOptions& options) {
  options.validate();
  ConvergenceResult result;
  result.target = convergenceTarget(model, options);
  for (double k : options.gains) result.runs.push_back(runConvergenceGain(model, result.target, k, options));
  return result;
}

std::string convergenceCsv(const std::vector<GainRun>& runs, double rate) {
  std::string csv = "time,gain,mnte\n";
  auto out = std::back_inserter(csv);
  for (const GainRun& r : runs)
    for (std::size_t k = 0; k < r.mnte.size(); ++k)
      fmt::format_to(out, "{},{},{}\n", static_cast<double>(k) / rate, r.gain, r.mnte[k]);
  return csv;
}

// --- Fig. 7 ----------------------------------------------------------------------------------------

const std::vector<CompareScenario>& compareScenarios() {
  static const std::vector<CompareScenario> s = {
      {"T-pose", "bvh/cmu_cgspeed/cmu_01_01.bvh", true},
      {"walking", "bvh/bandai/dataset-2_walk_normal_001.bvh", false},
      {"running", "bvh/bandai/dataset-2_run_normal_001.bvh", false},
  };
  return s;
}

Capture holdFirstFrame(const Capture& c, double seconds) {
  Capture h = c;
  const double dt = c.clip.numFrames() > 1 ? c.clip.times[1] - c.clip.times[0] : 1.0 / 120.0;
  const int n = std::max(2, static_cast<int>(std::lround(seconds / dt)));
  const std::size_t ns = c.clip.segment_names.size();
  h.clip.times.resize(static_cast<std::size_t>(n));
  h.clip.poses.resize(static_cast<std::size_t>(n) * ns);
  h.clip.valid.resize(static_cast<std::size_t>(n) * ns);
  for (int f = 0; f < n; ++f) {
    h.clip.times[static_cast<std::size_t>(f)] = f * dt;
    for (std::size_t s = 0; s < ns; ++s) {
      h.clip.poses[static_cast<std::size_t>(f) * ns + s] = c.clip.poses[s];
      h.clip.valid[static_cast<std::size_t>(f) * ns + s] = c.clip.valid[s];
    }
  }
  h.clip.linear_velocity.clear();
  h.clip.angular_velocity.clear();
  return h;
}

namespace {

double log10Floor(double v) { return std::log10(std::max(v, 1e-16)); }

}  // namespace

CompareResult runCompare(const CompareOptions& options, const CompareProgress& progress) {
  if (options.methods.empty()) throw InvalidArgument("runCompare: no method given");
  CompareResult result;
  std::vector<std::pair<std::string, Model>> models = {{"human66", makeHuman66()}, {"human48", makeHuman48()}};
  std::error_code ec;
  if (std::filesystem::is_regular_file(options.icub, ec)) {
    models.emplace_back("iCub", icubForRetargeting(io::loadUrdf(options.icub)));
  } else {
    result.warnings.push_back(options.icub + " not found: iCub left out");
  }
  const int total = static_cast<int>(compareScenarios().size() * models.size() * options.methods.size());
  int index = 0;
  for (const CompareScenario& sc : compareScenarios()) {
    const std::filesystem::path file = std::filesystem::path(options.data) / sc.file;
    Capture capture = loadCapture(file.string());
    if (sc.hold_first) capture = holdFirstFrame(capture, options.tpose_seconds);
    const io::SegmentMap clip_map = io::resolveSegmentMap(capture.clip.segment_names, "");
    for (const auto& [model_name, model] : models) {
      const bool robot = isIcub(model);
      const std::vector<SegmentPair> pairs =
          robot ? composeMaps(clip_map, io::builtinRobotMap("icub")) : segmentPairsOnModel(model, clip_map).pairs;
      PlanOptions po;
      po.calibration = "first";
      const Retargeting plan = planTracking(model, capture, pairs, po);
      for (const Method method : options.methods) {
        if (progress) progress(index++, total, model_name, sc.name, method);
        TrackerOptions to;
        to.method = method;
        to.dynamical.use_model_velocity_limits = robot;
        to.pairwise.threads = options.threads;
        const TrackRecord r = runTracking(model, capture, plan, to, {});
        CompareSeries s{model_name, sc.name, method, {}, {}, {}};
        const double t0 = r.times.front();
        const double cut = transientCut(r.times, options.transient);
        for (std::size_t f = 0; f < r.times.size(); ++f) {
          if (r.gap[f] || r.times[f] - t0 < cut) continue;
          s.log_mnte.push_back(log10Floor(r.mnte[f]));
          s.log_rmse.push_back(log10Floor(r.rmse[f]));
          s.time_us.push_back(r.step_us[f]);
        }
        result.series.push_back(std::move(s));
      }
    }
  }
  return result;
}

std::string compareCsv(const CompareResult& result) {
  std::string csv = "model,scenario,method,frame,log10_mnte,log10_rmse,time_us\n";
  auto out = std::back_inserter(csv);
  for (const CompareSeries& s : result.series)
    for (std::size_t f = 0; f < s.time_us.size(); ++f)
      fmt::format_to(out, "{},{},{},{},{:.6g},{:.6g},{:.6g}\n", s.model, s.scenario, toString(s.method), f,
                     s.log_mnte[f], s.log_rmse[f], s.time_us[f]);
  return csv;
}

namespace {

std::string iqrCell(const std::vector<double>& v, const char* format) {
  if (v.empty()) return "-";
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  auto q = [&](double p) {
    const double x = p * static_cast<double>(s.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    return i + 1 < s.size() ? s[i] + (x - static_cast<double>(i)) * (s[i + 1] - s[i]) : s.back();
  };
  return fmt::format(fmt::runtime(format), q(0.5), q(0.75) - q(0.25));
}

}  // namespace

std::string compareTable(const CompareResult& result, double transient) {
  std::string t = fmt::format("DYN Fig. 7 on real captures: median (IQR) after a {:g} s transient\n\n", transient);
  t += fmt::format("{:<8} {:<8} {:<16} {:>18} {:>18} {:>18}\n", "model", "scenario", "method", "log10 MNTE",
                   "log10 RMSE", "time (us)");
  for (const CompareSeries& s : result.series)
    t += fmt::format("{:<8} {:<8} {:<16} {:>18} {:>18} {:>18}\n", s.model, s.scenario, track::toString(s.method),
                     iqrCell(s.log_mnte, "{:.2f} ({:.2f})"), iqrCell(s.log_rmse, "{:.2f} ({:.2f})"),
                     iqrCell(s.time_us, "{:.1f} ({:.1f})"));
  return t;
}

CompareExperimentResult runCompareExperiment(const CompareOptions& options, const std::string& out,
                                             const CompareProgress& progress) {
  if (options.threads < 0) throw InvalidArgument("--threads: expected ≥ 0, got " + std::to_string(options.threads));
  app::prepareDirectory(out);
  CompareExperimentResult r;
  r.transient = options.transient;
  r.compare = runCompare(options, progress);
  r.csv = (std::filesystem::path(out) / "compare.csv").string();
  io::writeFileAtomically(r.csv, compareCsv(r.compare));
  return r;
}

std::string summaryText(const CompareExperimentResult& result) {
  return compareTable(result.compare, result.transient) + fmt::format("\nwrote {}\n", result.csv);
}

}  // namespace kinetrack::experiments
