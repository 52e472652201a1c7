// A glove recording tracked by FABRIK or by marker IK on the same hand model; summary figures.
#include "kinetrack/hand/hand_trial.hpp"

#include "kinetrack/hand/hand_frame_solver.hpp"
#include "kinetrack/track/stream_tracker.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>
#include <utility>

#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::hand {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kRestartTipError = 1e-3;  // m: an LM digit further from its tip is restarted

struct FrameMarkers {
  std::array<Vector3d, 3> triad;
  std::array<Vector3d, kDigits> tips, middles;
};

FrameMarkers gather(const io::MarkerTrajectories& rec, const HandMarkerIndex& mk, int f) {
  FrameMarkers m;
  for (std::size_t i = 0; i < 3; ++i) m.triad[i] = rec.position(f, mk.triad[i]);
  for (std::size_t d = 0; d < kDigits; ++d) {
    m.tips[d] = rec.position(f, mk.tip[d]);
    m.middles[d] = rec.position(f, mk.middle[d]);
  }
  return m;
}

// Median and p95 of a sample (NaN for an empty one).
std::pair<double, double> medianP95(std::vector<double> v) {
  if (v.empty()) return {kNaN, kNaN};
  const metrics::Summary s = metrics::summarize(std::move(v));
  return {s.median, s.p95};
}

bool complete(const std::array<Vector3d, 3>& triad) {
  return triad[0].allFinite() && triad[1].allFinite() && triad[2].allFinite();
}

void progressEvery(const std::function<void(int, int)>& progress, int f, int n) {
  if (progress && (f % 200 == 0 || f + 1 == n)) progress(f + 1, n);
}

HandTrial trackFabrik(const io::MarkerTrajectories& rec, const HandMarkerIndex& mk, const HandGeometry& geometry,
                      const TrackerOptions& options, const std::function<void(int, int)>& progress) {
  HandTrial trial;
  trial.solver = HandSolver::Fabrik;
  trial.use_middle_markers = options.use_middle_markers;
  // FABRIK under the stream tracker like every frame solver: one target per glove marker (a
  // missing marker is NaN, held by the tracker), never a stream gap (the hand holds its own).
  auto solver = std::make_unique<HandFrameSolver>(geometry, options);
  const HandFrameSolver& hand = *solver;
  std::vector<track::StreamTarget> targets;
  for (const char* t : {"hand_top", "hand_left", "hand_right"}) targets.push_back({t, false, true, 1.0});
  for (const char* kind : {"_tip", "_middle"})
    for (int d = 0; d < kDigits; ++d) targets.push_back({std::string(digitName(d)) + kind, false, true, 1.0});
  const std::vector<Matrix3d> R(targets.size(), Matrix3d::Identity());  // unused: markers are positions
  std::vector<Vector3d> p(targets.size());
  track::StreamTracker stream(std::move(solver), std::move(targets));
  const int n = rec.numFrames();
  trial.rows.reserve(static_cast<std::size_t>(n));
  for (int f = 0; f < n; ++f) {
    const FrameMarkers m = gather(rec, mk, f);
    std::copy(m.triad.begin(), m.triad.end(), p.begin());
    std::copy(m.tips.begin(), m.tips.end(), p.begin() + 3);
    std::copy(m.middles.begin(), m.middles.end(), p.begin() + 3 + kDigits);
    HandTrialRow row;
    row.time = rec.times[static_cast<std::size_t>(f)];
    const auto t0 = std::chrono::steady_clock::now();
    stream.track(row.time, R, p);
    const auto t1 = std::chrono::steady_clock::now();
    row.gap = hand.last().gap;
    row.digits = hand.last().digits;
    row.seconds = std::chrono::duration<double>(t1 - t0).count();
    row.q = stream.state();
    trial.rows.push_back(std::move(row));
    progressEvery(progress, f, n);
  }
  return trial;
}

HandTrial trackLm(const io::MarkerTrajectories& rec, const HandMarkerIndex& mk, const HandGeometry& geometry,
                  const TrackerOptions& options, const std::function<void(int, int)>& progress) {
  HandTrial trial;
  trial.solver = HandSolver::Lm;
  trial.use_middle_markers = options.use_middle_markers;
  auto model = std::make_shared<const Model>(buildHandModel(geometry));
  ik::MarkerIkOptions lm_options;
  lm_options.relative_tolerance = 1e-12;
  lm_options.accuracy = 1e-7;
  ik::MarkerIk solver(model, lm_options);
  // The triad pins the hand frame (weight 100: the plate is rigid to 0.08 mm); tips weigh 1;
  // middle markers 1 when used, else 0 (held out, still reported).
  ik::TaskSet& tasks = solver.tasks();
  for (const char* name : {"hand_top", "hand_left", "hand_right"}) tasks.addMarker(name, 100.0);
  std::array<ik::MarkerTaskId, kDigits> tip_index{}, mid_index{};
  for (int d = 0; d < kDigits; ++d) {
    tip_index[static_cast<std::size_t>(d)] = tasks.addMarker(std::string(digitName(d)) + "_tip", 1.0);
  }
  for (int d = 0; d < kDigits; ++d) {
    mid_index[static_cast<std::size_t>(d)] =
        tasks.addMarker(std::string(digitName(d)) + "_middle", options.use_middle_markers ? 1.0 : 0.0);
  }
  for (int d = 0; d < kDigits; ++d) {
    const DigitGeometry& g = geometry.digits[static_cast<std::size_t>(d)];
    if (g.coupling != 0.0 && !options.use_middle_markers) {
      tasks.addCoupler(std::string(digitName(d)) + "_coupling", jointName(d, 3), jointName(d, 2),
                       ScalarFunction::linear(g.coupling, 0.0));
    }
  }
  solver.bounds().clampAll();
  std::vector<Vector3d> obs(13);
  // Start pose: planes at 0, flexions 0.3 rad (in range; DIP = k·PIP when coupled).
  Configuration start(*model), restart(*model), kept(*model);
  for (int d = 0; d < kDigits; ++d) {
    const DigitGeometry& g = geometry.digits[static_cast<std::size_t>(d)];
    for (int j = 0; j < 4; ++j) {
      const int i = 4 * d + j;
      start.joints[i] =
          std::clamp(j == 0 ? 0.0 : 0.3, model->lowerPositionLimits()[i], model->upperPositionLimits()[i]);
    }
    if (g.coupling != 0.0 && !options.use_middle_markers)
      start.joints[4 * d + 3] = g.coupling * start.joints[4 * d + 2];
  }
  const int n = rec.numFrames();
  trial.rows.reserve(static_cast<std::size_t>(n));
  bool started = false;
  for (int f = 0; f < n; ++f) {
    const FrameMarkers m = gather(rec, mk, f);
    HandTrialRow row;
    row.time = rec.times[static_cast<std::size_t>(f)];
    row.gap = !complete(m.triad);
    if (!started && !row.gap) {
      // Start from the bent start pose at the triad's frame.
      Transform T;
      handFrame(m.triad[0], m.triad[1], m.triad[2], T);
      start.base_position = T.p;
      start.base_rotation = T.R;
      solver.setState(start);
      started = true;
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (!row.gap) {
      for (std::size_t i = 0; i < 3; ++i) obs[i] = m.triad[i];
      for (std::size_t d = 0; d < kDigits; ++d) {
        obs[3 + d] = m.tips[d];
        obs[8 + d] = options.use_middle_markers ? m.middles[d] : Vector3d::Constant(kNaN);
      }
      ik::MarkerIkResult res = solver.solve(obs);
      int iterations = res.iterations;
      // The straight-finger trap: a nearly straight digit held at its PIP bound whose tip is a
      // few mm short has no descent direction (the tip distance is stationary in the PIP angle
      // there), so a warm-started LM stays in it for whole seconds. As FABRIK's stall restart,
      // restart once from the bent start pose (digits more than 1 mm off only) and keep the
      // better fit.
      auto offTip = [&](std::size_t d) {
        return m.tips[d].allFinite() && (solver.modelMarker(tip_index[d]) - m.tips[d]).norm() > kRestartTipError;
      };
      bool stuck = false;
      for (std::size_t d = 0; d < kDigits; ++d) stuck = stuck || offTip(d);
      if (stuck) {
        kept = solver.state();
        restart = kept;
        for (int d = 0; d < kDigits; ++d) {
          if (!offTip(static_cast<std::size_t>(d))) continue;
          for (int j = 1; j < 4; ++j) restart.joints[4 * d + j] = start.joints[4 * d + j];
        }
        solver.setState(restart);
        const ik::MarkerIkResult again = solver.solve(obs);
        iterations += again.iterations;
        if (again.cost < res.cost) {
          res = again;
        } else {
          solver.setState(kept);
        }
      }
      for (auto& dr : row.digits) {
        dr.iterations = iterations;
        dr.status = res.status;
      }
    }
    const auto t1 = std::chrono::steady_clock::now();
    row.seconds = std::chrono::duration<double>(t1 - t0).count();
    row.q = solver.state();
    for (int d = 0; d < kDigits; ++d) {
      const auto ds = static_cast<std::size_t>(d);
      DigitResult& dr = row.digits[ds];
      dr.gap = row.gap || !m.tips[ds].allFinite();
      dr.used_middle = options.use_middle_markers && m.middles[ds].allFinite();
      dr.tip_error = m.tips[ds].allFinite() ? (solver.modelMarker(tip_index[ds]) - m.tips[ds]).norm() : kNaN;
      dr.middle_error = m.middles[ds].allFinite() ? (solver.modelMarker(mid_index[ds]) - m.middles[ds]).norm() : kNaN;
      DigitPose p;
      p.psi = row.q.joints[4 * d];
      for (int j = 0; j < 3; ++j) p.theta[static_cast<std::size_t>(j)] = row.q.joints[4 * d + j + 1];
      const DigitGeometry& g = geometry.digits[ds];
      dr.violation = rangeViolation(g, p);
      if (g.coupling != 0.0 && !options.use_middle_markers) {
        dr.violation = std::max(dr.violation, std::abs(p.theta[2] - g.coupling * p.theta[1]));
      }
    }
    trial.rows.push_back(std::move(row));
    progressEvery(progress, f, n);
  }
  return trial;
}

}  // namespace

const char* toString(HandSolver s) { return s == HandSolver::Fabrik ? "fabrik" : "lm"; }

HandTrial trackHandRecording(const io::MarkerTrajectories& recording, const HandMarkerIndex& markers,
                             const HandGeometry& geometry, HandSolver solver, const TrackerOptions& options,
                             const std::function<void(int, int)>& progress) {
  return solver == HandSolver::Fabrik ? trackFabrik(recording, markers, geometry, options, progress)
                                      : trackLm(recording, markers, geometry, options, progress);
}

HandSummary summarize(const HandTrial& trial, int exclude_first, int exclude_end) {
  HandSummary s;
  s.solver = trial.solver;
  s.use_middle_markers = trial.use_middle_markers;
  std::vector<double> tip_all, mid_all, us;
  std::array<std::vector<double>, kDigits> tip, mid;
  double iterations = 0.0;
  int solved = 0;
  for (int f = 0; f < static_cast<int>(trial.rows.size()); ++f) {
    if (f >= exclude_first && f < exclude_end) continue;
    const HandTrialRow& r = trial.rows[static_cast<std::size_t>(f)];
    ++s.frames;
    s.gaps += r.gap ? 1 : 0;
    us.push_back(r.seconds * 1e6);
    for (std::size_t d = 0; d < kDigits; ++d) {
      const DigitResult& dr = r.digits[d];
      if (std::isfinite(dr.tip_error)) {
        tip[d].push_back(dr.tip_error * 1e3);
        tip_all.push_back(dr.tip_error * 1e3);
      }
      if (std::isfinite(dr.middle_error)) {
        mid[d].push_back(dr.middle_error * 1e3);
        mid_all.push_back(dr.middle_error * 1e3);
      }
      s.digits[d].held += dr.gap ? 1 : 0;
      if (!dr.gap) {
        ++solved;
        iterations += dr.iterations;
        s.not_converged += dr.status != ik::Status::Converged ? 1 : 0;
        s.planes_clamped += dr.plane_clamped ? 1 : 0;
        s.constraint_violation_max_rad = std::max(s.constraint_violation_max_rad, dr.violation);
        s.bone_length_drift_max_m = std::max(s.bone_length_drift_max_m, dr.length_drift);
      }
    }
  }
  for (std::size_t d = 0; d < kDigits; ++d) {
    DigitSummary& ds = s.digits[d];
    ds.tip_samples = static_cast<int>(tip[d].size());
    ds.middle_samples = static_cast<int>(mid[d].size());
    std::tie(ds.tip_p50_mm, ds.tip_p95_mm) = medianP95(std::move(tip[d]));
    std::tie(ds.middle_median_mm, ds.middle_p95_mm) = medianP95(std::move(mid[d]));
  }
  std::tie(s.tip_error_mm_p50, s.tip_error_mm_p95) = medianP95(std::move(tip_all));
  std::tie(s.middle_error_mm_median, s.middle_error_mm_p95) = medianP95(std::move(mid_all));
  std::tie(s.us_per_frame_p50, s.us_per_frame_p95) = medianP95(std::move(us));
  s.iterations_mean = solved > 0 ? iterations / solved : 0.0;
  return s;
}

}  // namespace kinetrack::hand
