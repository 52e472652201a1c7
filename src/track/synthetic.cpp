#include "kinetrack/track/synthetic.hpp"

#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::track {
namespace {

constexpr double kDeg = M_PI / 180.0;

struct Wave {
  const char* joint;
  double mean, amplitude, phase;  ///< rad, rad, fraction of the stride
  bool half = false;              ///< only the positive half-wave (knee flexion)
};

// Sign conventions of the human models: hip flexion is −roty, knee flexion +roty, ankle
// dorsiflexion −roty; at zero the arms point sideways, rotx ∓90° at the shoulders lowers them.
const Wave kWalk[] = {
    {"jRightHip_roty", -10 * kDeg, 22 * kDeg, 0.0},
    {"jLeftHip_roty", -10 * kDeg, 22 * kDeg, 0.5},
    {"jRightKnee_roty", 5 * kDeg, 55 * kDeg, 0.15, true},
    {"jLeftKnee_roty", 5 * kDeg, 55 * kDeg, 0.65, true},
    {"jRightAnkle_roty", 0.0, 12 * kDeg, 0.3},
    {"jLeftAnkle_roty", 0.0, 12 * kDeg, 0.8},
    {"jRightHip_rotx", 2 * kDeg, 4 * kDeg, 0.25},
    {"jLeftHip_rotx", -2 * kDeg, 4 * kDeg, 0.25},
    {"jRightShoulder_rotx", 80 * kDeg, 3 * kDeg, 0.0},
    {"jLeftShoulder_rotx", -80 * kDeg, 3 * kDeg, 0.0},
    {"jRightShoulder_roty", 0.0, 20 * kDeg, 0.5},
    {"jLeftShoulder_roty", 0.0, 20 * kDeg, 0.0},
    {"jRightElbow_rotz", 15 * kDeg, 10 * kDeg, 0.5},
    {"jLeftElbow_rotz", -15 * kDeg, 10 * kDeg, 0.0},
    {"jL5S1_rotz", 0.0, 4 * kDeg, 0.5},
    {"jT9T8_rotz", 0.0, 5 * kDeg, 0.0},
    {"jL5S1_roty", -3 * kDeg, 2 * kDeg, 0.0},
    {"jC1Head_rotz", 0.0, 3 * kDeg, 0.5},
};

}  // namespace

SyntheticWalk syntheticWalk(const Model& model, double duration, double rate, double speed) {
  if (!(duration > 0.0) || !(rate > 0.0) || !std::isfinite(duration * rate))
    throw InvalidArgument("syntheticWalk: duration and rate must be positive");
  const std::vector<std::string>& names = humanSegmentNames();
  std::vector<FrameId> frames;
  for (const std::string& s : names) frames.push_back(model.frameId(s));  // throws, listing frames
  SyntheticWalk out;
  io::MotionClip& clip = out.clip;
  clip.source = "synthetic walk";
  clip.segment_names = names;
  // Parent segment: the nearest ancestor link that is a segment.
  for (std::size_t s = 0; s < names.size(); ++s) {
    int parent = -1;
    for (LinkId l = model.parent(model.frameLink(frames[s])); l.valid() && parent < 0; l = model.parent(l))
      for (std::size_t k = 0; k < names.size(); ++k)
        if (model.frameLink(frames[k]) == l) parent = static_cast<int>(k);
    clip.segment_parent.push_back(parent);
  }
  std::vector<std::pair<int, const Wave*>> waves;
  for (const Wave& w : kWalk)
    if (auto j = model.findJoint(w.joint)) waves.emplace_back(j->value, &w);
  const int n = static_cast<int>(std::floor(duration * rate)) + 1;
  const double period = 1.1, omega = 2.0 * M_PI / period;
  Data data(model);
  const std::size_t ns = names.size();
  clip.poses.resize(static_cast<std::size_t>(n) * ns);
  clip.valid.assign(static_cast<std::size_t>(n) * ns, 1);
  Configuration q(model);
  for (int f = 0; f < n; ++f) {
    const double t = f / rate;
    // Start from standing still: the gait fades in over the first stride.
    const double ramp = std::min(1.0, t / period);
    q.joints.setZero();
    for (const auto& [j, w] : waves) {
      double s = std::sin(omega * t - 2.0 * M_PI * w->phase);
      if (w->half) s = std::max(0.0, s);
      double v = w->mean + ramp * w->amplitude * s;
      v = std::clamp(v, model.lowerPositionLimits()[j], model.upperPositionLimits()[j]);
      q.joints[j] = v;
    }
    const double heading = 8 * kDeg * std::sin(0.25 * omega * t);  // a gentle meander
    q.base_rotation =
        so3::exp(Vector3d(0, 0, heading)) * so3::exp(Vector3d(ramp * 3 * kDeg * std::sin(omega * t), 0, 0));
    const double x =
        speed * (t - (t < period ? t * t / (2 * period) : period / 2));  // accelerate over the first stride
    q.base_position = Vector3d(x, 0.03 * ramp * std::sin(omega * t), 0.02 * ramp * std::cos(2 * omega * t));
    framesForwardKinematics(model, data, q);
    clip.times.push_back(t);
    for (std::size_t s = 0; s < ns; ++s) clip.poses[static_cast<std::size_t>(f) * ns + s] = data.frame[frames[s].value];
    out.truth.push_back(q);
  }
  io::computeVelocities(clip);
  return out;
}

}  // namespace kinetrack::track
