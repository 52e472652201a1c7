#include "streams.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/track/synthetic.hpp"

namespace kinetrack::bench {
namespace {
constexpr double kTwoPi = 2.0 * 3.14159265358979323846;
constexpr double kBasePeriod = 10.0;  // s
}  // namespace

WaveMotion::WaveMotion(const Model& m) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = m.numJoints();
  c_.resize(n), a_.resize(n), f_.resize(n), ph_.resize(n);
  for (int j = 0; j < n; ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    const bool bounded = std::isfinite(lo) && std::isfinite(hi);
    c_[j] = bounded ? 0.5 * (lo + hi) : 0.0;
    a_[j] = bounded ? 0.4 * 0.5 * (hi - lo) : 0.6;
    f_[j] = 0.1 * static_cast<double>(3 + static_cast<int>(8.0 * u(rng)));
    ph_[j] = kTwoPi * u(rng);
  }
}

void WaveMotion::at(double t, Configuration& q, VectorXd* nu) const {
  const double w0 = kTwoPi / kBasePeriod;
  const auto n = c_.size();
  const auto nv_base = nu != nullptr ? nu->size() - n : 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    q.joints[j] = c_[j] + a_[j] * std::sin(kTwoPi * f_[j] * t + ph_[j]);
    if (nu != nullptr) (*nu)[nv_base + j] = a_[j] * kTwoPi * f_[j] * std::cos(kTwoPi * f_[j] * t + ph_[j]);
  }
  q.base_position = Vector3d(0.3 * std::sin(w0 * t), 0.0, 1.0);
  if (nu != nullptr && nv_base > 0) {
    nu->head(nv_base).setZero();
    (*nu)[0] = 0.3 * w0 * std::cos(w0 * t);
  }
}

PoseStream makeWaveStream(const Model& m, const std::vector<std::string>& frames, const std::string& root, int count) {
  const WaveMotion wave(m);
  Data d(m);
  PoseStream s;
  for (int k = 0; k < count; ++k) {
    Configuration q(m);
    wave.at(k * kStreamDt, q);
    framesForwardKinematics(m, d, q);
    std::vector<Matrix3d> R;
    for (const auto& name : frames) R.push_back(d.frame[static_cast<std::size_t>(m.frameId(name).value)].R);
    s.R.push_back(std::move(R));
    s.p.push_back(d.frame[static_cast<std::size_t>(m.frameId(root).value)].p);
    s.truth.push_back(q);
  }
  return s;
}

PoseStream makeWalkStream(const Model& m) {
  const track::SyntheticWalk walk = track::syntheticWalk(m, 10.0, 1.0 / kStreamDt);
  PoseStream s;
  s.periodic = false;
  const int ns = walk.clip.numSegments();
  for (int f = 0; f < walk.clip.numFrames(); ++f) {
    std::vector<Matrix3d> R;
    for (int seg = 0; seg < ns; ++seg) R.push_back(walk.clip.pose(f, seg).R);
    s.R.push_back(std::move(R));
    s.p.push_back(walk.clip.pose(f, 0).p);  // segment 0 is the Pelvis
    s.truth.push_back(walk.truth[static_cast<std::size_t>(f)]);
  }
  return s;
}

void reportPercentiles(benchmark::State& state, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  state.counters["p50_us"] = us[us.size() / 2];
  state.counters["p99_us"] = us[static_cast<std::size_t>(0.99 * static_cast<double>(us.size() - 1))];
  state.counters["max_us"] = us.back();
}

}  // namespace kinetrack::bench
