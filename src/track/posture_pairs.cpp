#include "kinetrack/track/posture_pairs.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/track/segment_pairs.hpp"

namespace kinetrack::track {

namespace {

struct Tracked {
  std::vector<VectorXd> joints;  ///< per clip frame
  std::vector<std::uint8_t> ok;  ///< per clip frame: tracked, finite
  std::vector<double> mnte;
};

Tracked trackAll(const Model& model, const Capture& capture, const Retargeting& plan, const TrackerOptions& options) {
  Tracked t;
  const auto n = static_cast<std::size_t>(capture.clip.numFrames());
  t.joints.resize(n);
  t.ok.assign(n, 0);
  const TrackRecord record =
      runTracking(model, capture, plan, options, [&](int f, const Configuration& q, const FrameOutcome& o) {
        const auto k = static_cast<std::size_t>(f);
        t.joints[k] = q.joints;
        t.ok[k] = static_cast<std::uint8_t>(!o.gap && !o.non_finite && q.joints.allFinite());
      });
  t.mnte = record.mnte;
  return t;
}

bool atLimit(const Model& m, const VectorXd& q, double margin) {
  if (margin < 0.0) return false;
  for (int j = 0; j < m.numJoints(); ++j)
    if (q[j] <= m.lowerPositionLimits()[j] + margin || q[j] >= m.upperPositionLimits()[j] - margin) return true;
  return false;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

PosturePairs pairPostures(const Model& first, const Model& second, const Capture& capture,
                          const PosturePairOptions& options) {
  if (options.stride < 1)
    throw InvalidArgument("pairPostures: stride must be ≥ 1, got " + std::to_string(options.stride));
  if (!(options.transient >= 0.0)) throw InvalidArgument("pairPostures: transient must be ≥ 0");
  const SegmentPairs a = resolveSegmentPairs(first, capture, options.segment_map);
  const SegmentPairs b = resolveRobotPairs(second, capture, options.segment_map, options.model_map);
  const Retargeting plan_a = planTracking(first, capture, a.pairs, options.plan);
  PlanOptions plan = options.plan;
  plan.model_up = options.second_up;
  const Retargeting plan_b = planTracking(second, capture, b.pairs, plan);
  const Tracked ta = trackAll(first, capture, plan_a, options.tracker);
  const Tracked tb = trackAll(second, capture, plan_b, options.tracker);

  const io::MotionClip& clip = capture.clip;
  std::vector<int> keep;
  PosturePairs out;
  std::vector<double> ma, mb;
  for (int f = 0; f < clip.numFrames(); f += options.stride) {
    const auto k = static_cast<std::size_t>(f);
    if (clip.times[k] - clip.times.front() < options.transient) continue;
    if (ta.ok[k] == 0 || tb.ok[k] == 0) {
      ++out.gaps;
      continue;
    }
    if (!(ta.mnte[k] <= options.max_mnte && tb.mnte[k] <= options.max_mnte) ||
        atLimit(second, tb.joints[k], options.limit_margin)) {
      ++out.poor;
      continue;
    }
    keep.push_back(f);
    out.times.push_back(clip.times[k]);
    ma.push_back(ta.mnte[k]);
    mb.push_back(tb.mnte[k]);
  }
  out.first.resize(first.numJoints(), static_cast<Eigen::Index>(keep.size()));
  out.second.resize(second.numJoints(), static_cast<Eigen::Index>(keep.size()));
  for (std::size_t j = 0; j < keep.size(); ++j) {
    const auto k = static_cast<std::size_t>(keep[j]);
    out.first.col(static_cast<Eigen::Index>(j)) = ta.joints[k];
    out.second.col(static_cast<Eigen::Index>(j)) = tb.joints[k];
  }
  out.first_mnte = median(ma);
  out.second_mnte = median(mb);
  return out;
}

std::vector<int> postureJoints(const Model& model, const std::string& root_frame,
                               const std::vector<std::string>& frames) {
  const std::vector<std::int32_t>& root = model.support(model.frameLink(model.frameId(root_frame)));
  std::vector<std::uint8_t> used(static_cast<std::size_t>(model.numJoints()), 0);
  for (const std::string& name : frames)
    for (std::int32_t j : model.support(model.frameLink(model.frameId(name))))
      if (std::find(root.begin(), root.end(), j) == root.end()) used[static_cast<std::size_t>(j)] = 1;
  std::vector<int> out;
  for (int j = 0; j < model.numJoints(); ++j)
    if (used[static_cast<std::size_t>(j)] != 0) out.push_back(j);
  return out;
}

}  // namespace kinetrack::track
