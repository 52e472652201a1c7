// Sparse-input tracking study: LN vs the learned prior (leave one subject out) vs DYN.
#include "kinetrack/prior/sparse_study.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/prior/prior_posture.hpp"
#include "kinetrack/track/frame_solver.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/retarget.hpp"
#include "kinetrack/track/synthetic.hpp"

namespace kinetrack::prior {

int ReferenceMotion::frames() const {
  int n = 0;
  for (const auto& c : clips) n += static_cast<int>(c.size());
  return n;
}

ReferenceMotion referenceMotion(const Model& model, const StudySubject& subject, double rate) {
  ReferenceMotion out;
  out.subject = subject.name;
  out.dt = 1.0 / rate;
  for (const std::string& path : subject.clips) {
    const track::Capture capture = track::loadCapture(path);
    track::PlanOptions po;
    po.calibration = "first";
    const track::TrackSetup setup = track::setupOnModel(model, capture, "", po);
    const auto& times = capture.clip.times;
    const double dt = times.size() > 1 ? (times.back() - times.front()) / static_cast<double>(times.size() - 1) : 1.0;
    const int stride = std::max(1, static_cast<int>(std::lround(1.0 / (rate * dt))));
    std::vector<Configuration> kept;
    track::runTracking(
        setup.model, capture, setup.plan, track::TrackerOptions{},
        [&](int f, const Configuration& q, const track::FrameOutcome& o) {
          // Skip gaps, failures and the first 0.2 s (reaching the first frame).
          if (o.gap || o.non_finite || f % stride != 0 || times[static_cast<std::size_t>(f)] - times.front() < 0.2)
            return;
          kept.push_back(q);
        });
    if (!kept.empty()) out.clips.push_back(std::move(kept));
  }
  return out;
}

namespace {

struct Runner {
  const Model& model;
  std::vector<FrameId> frames;
  std::vector<Transform> targets;
  Data data;
  /// The 23 segments' rotations relative to their parents (Euler-triple independent): a clip
  /// with the segment tree of the model's Xsens frames gives SphericalJointError its segments.
  io::MotionClip segments;
  track::SphericalJointError error;
  Runner(const Model& m, const std::vector<std::string>& names)
      : model(m), data(m), segments(track::syntheticWalk(m, 0.05, 100.0).clip), error(m, segments) {
    for (const auto& n : names) frames.push_back(m.frameId(n));
    targets.resize(frames.size());
  }
  void targetsOf(const Configuration& q) {
    framesForwardKinematics(model, data, q);
    for (std::size_t k = 0; k < frames.size(); ++k) targets[k] = data.frame[static_cast<std::size_t>(frames[k].value)];
  }
};

struct Accumulator {
  double joint2 = 0.0, hand2 = 0.0, us = 0.0;
  long joints = 0, frames = 0;
  SparseRow row(const std::string& subject, const std::string& method) const {
    return {subject, method, std::sqrt(joint2 / static_cast<double>(std::max(1L, joints))) * 180.0 / M_PI,
            1e3 * std::sqrt(hand2 / static_cast<double>(std::max(1L, frames))),
            us / static_cast<double>(std::max(1L, frames))};
  }
};

using Clock = std::chrono::steady_clock;

/// Replays every clip of `motion` through `ik` (anything with setState and state()): `step(run)`
/// solves one frame toward run.targets and returns the largest target position error (m).
template <class Solver, class Step>
SparseRow replay(const Model& model, const ReferenceMotion& motion, const SparseStudyOptions& o, Solver& ik, Step step,
                 const char* method) {
  Runner run(model, o.targets);
  Accumulator acc;
  for (const auto& clip : motion.clips) {
    ik.setState(clip.front());
    for (const Configuration& truth : clip) {
      run.targetsOf(truth);
      const auto t0 = Clock::now();
      const double position_error = step(run);
      acc.us += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      int count = 0;
      acc.joint2 += run.error.sumSquared(ik.state(), truth, count);
      acc.joints += count;
      acc.hand2 += position_error * position_error;
      ++acc.frames;
    }
  }
  return acc.row(motion.subject, method);
}

SparseRow runGradientProjection(const std::shared_ptr<const Model>& model, const ReferenceMotion& motion,
                                const SparseStudyOptions& o, const HumanPrior* prior) {
  SparsePriorIk ik(model, o.targets, prior, o.ik);
  return replay(
      *model, motion, o, ik, [&](const Runner& run) { return ik.solve(run.targets, prior != nullptr).position_error; },
      prior ? "GP" : "LN");
}

SparseRow runDynamical(const std::shared_ptr<const Model>& model, const ReferenceMotion& motion,
                       const SparseStudyOptions& o, const HumanPrior* prior) {
  SparseDynamicalIk ik(model, o.targets, prior, o.posture);
  return replay(
      *model, motion, o, ik, [&](const Runner& run) { return ik.solve(run.targets, motion.dt).position_error; },
      prior ? "DYN+GP" : "DYN");
}

}  // namespace

std::vector<SparseRow> runSparseStudy(const Model& model, const std::vector<ReferenceMotion>& motions,
                                      const SparseStudyOptions& options) {
  if (motions.size() < 2) throw InvalidArgument("runSparseStudy: need at least 2 subjects (leave one out)");
  const auto shared = std::make_shared<const Model>(model);
  std::vector<SparseRow> rows;
  const int total = static_cast<int>(motions.size());
  for (std::size_t s = 0; s < motions.size(); ++s) {
    if (options.progress) options.progress(static_cast<int>(s), total, motions[s].subject);
    std::vector<std::vector<Configuration>> training;
    for (std::size_t o = 0; o < motions.size(); ++o)
      if (o != s) training.insert(training.end(), motions[o].clips.begin(), motions[o].clips.end());
    const HumanPrior prior = buildHumanPrior(model, training, options.density);
    rows.push_back(runGradientProjection(shared, motions[s], options, nullptr));
    rows.push_back(runGradientProjection(shared, motions[s], options, &prior));
    if (options.dyn_peer) {
      rows.push_back(runDynamical(shared, motions[s], options, nullptr));
      rows.push_back(runDynamical(shared, motions[s], options, &prior));
    }
  }
  if (options.progress) options.progress(total, total, "");
  return rows;
}

std::string sparseCsv(const std::vector<SparseRow>& rows) {
  std::string s = "subject,method,joint_rms_deg,hand_error_mm,frame_us\n";
  for (const SparseRow& r : rows)
    s += fmt::format("{},{},{:.6f},{:.6f},{:.3f}\n", r.subject, r.method, r.joint_rms_deg, r.hand_error_mm, r.frame_us);
  return s;
}

}  // namespace kinetrack::prior
