#include "kinetrack/markers/scenarios.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"

namespace kinetrack::markers {

io::MarkerTrajectories resampleTrajectories(const io::MarkerTrajectories& trial, double rate) {
  if (!(rate > 0.0) || !std::isfinite(rate))
    throw InvalidArgument("resampleTrajectories: rate must be positive, got " + std::to_string(rate));
  if (trial.numFrames() < 2)
    throw InvalidArgument("resampleTrajectories: " + trial.source + " has fewer than 2 frames");
  io::MarkerTrajectories out;
  out.source = trial.source;
  out.names = trial.names;
  out.up = trial.up;
  out.data_rate = rate;
  const std::size_t nm = trial.names.size();
  const double t0 = trial.times.front(), t1 = trial.times.back();
  std::size_t k = 0;
  for (long i = 0;; ++i) {
    const double t = t0 + static_cast<double>(i) / rate;
    if (t > t1 + 1e-9) break;
    while (k + 2 < trial.times.size() && trial.times[k + 1] <= t) ++k;
    const double a = std::clamp((t - trial.times[k]) / (trial.times[k + 1] - trial.times[k]), 0.0, 1.0);
    out.times.push_back(t);
    for (std::size_t m = 0; m < nm; ++m) {
      const Vector3d& p = trial.positions[k * nm + m];
      const Vector3d& q = trial.positions[(k + 1) * nm + m];
      out.positions.push_back(a == 0.0 ? p : a == 1.0 ? q : Vector3d((1.0 - a) * p + a * q));
    }
  }
  return out;
}

ScenarioTrial makeScenario(const io::MarkerTrajectories& trial, const std::vector<std::string>& names,
                           const ScenarioOptions& o) {
  const int nf = trial.numFrames(), nc = trial.numMarkers();
  if (nf == 0) throw InvalidArgument("makeScenario: the trial has no frame");
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  std::normal_distribution<double> gauss(0.0, 1.0);
  // Marker of the set for each trial column (−1: not in the set).
  std::vector<int> marker_of(static_cast<std::size_t>(nc), -1);
  for (int c = 0; c < nc; ++c) {
    const auto it = std::find(names.begin(), names.end(), trial.names[static_cast<std::size_t>(c)]);
    if (it != names.end()) marker_of[static_cast<std::size_t>(c)] = static_cast<int>(it - names.begin());
  }
  // Hidden marker-frames: dropout runs until the fraction is reached, then the occlusion.
  std::vector<char> hidden(static_cast<std::size_t>(nf) * static_cast<std::size_t>(nc), 0);
  const double dt = nf > 1 ? (trial.times.back() - trial.times.front()) / (nf - 1) : 1.0;
  long present = 0;
  for (std::size_t k = 0; k < hidden.size(); ++k) present += trial.positions[k].allFinite();
  const long target = static_cast<long>(std::llround(o.dropout_fraction * static_cast<double>(present)));
  long dropped = 0;
  for (int guard = 0; dropped < target && guard < 100000; ++guard) {
    const int c = static_cast<int>(uni(rng) * nc) % nc;
    const double len = o.dropout_min + uni(rng) * (o.dropout_max - o.dropout_min);
    const int run = std::max(1, static_cast<int>(std::lround(len / dt)));
    const int start = static_cast<int>(uni(rng) * nf) % nf;
    for (int f = start; f < std::min(nf, start + run) && dropped < target; ++f) {
      const std::size_t k = static_cast<std::size_t>(f) * static_cast<std::size_t>(nc) + static_cast<std::size_t>(c);
      if (hidden[k] || !trial.positions[k].allFinite()) continue;
      hidden[k] = 1;
      ++dropped;
    }
  }
  ScenarioTrial s;
  if (std::isfinite(o.occlusion_start) && o.occlusion_duration > 0.0) {
    for (int f = 0; f < nf; ++f) {
      const double t = trial.times[static_cast<std::size_t>(f)];
      if (t < o.occlusion_start || t >= o.occlusion_start + o.occlusion_duration) continue;
      if (s.occlusion_first < 0) s.occlusion_first = f;
      s.occlusion_last = f;
      for (int c = 0; c < nc; ++c)
        hidden[static_cast<std::size_t>(f) * static_cast<std::size_t>(nc) + static_cast<std::size_t>(c)] = 1;
    }
  }
  // Planted swaps: a marker and its nearest neighbour (first frame) over a window.
  const std::size_t nm = names.size();
  s.swapped.assign(static_cast<std::size_t>(nf) * nm, 0);
  for (int w = 0; w < o.swaps; ++w) {
    const int a = static_cast<int>(uni(rng) * nc) % nc;
    if (marker_of[static_cast<std::size_t>(a)] < 0) continue;
    int b = -1;
    double best = 1e300;
    const int f0 = static_cast<int>(uni(rng) * nf) % nf;
    for (int c = 0; c < nc; ++c) {
      if (c == a || marker_of[static_cast<std::size_t>(c)] < 0) continue;
      const double d = (trial.position(f0, a) - trial.position(f0, c)).norm();
      if (d < best) best = d, b = c;
    }
    if (b < 0) continue;
    const int run = std::max(1, static_cast<int>(std::lround(o.swap_duration / dt)));
    for (int f = f0; f < std::min(nf, f0 + run); ++f) {
      s.swapped[static_cast<std::size_t>(f) * nm + static_cast<std::size_t>(marker_of[static_cast<std::size_t>(a)])] =
          1;
      s.swapped[static_cast<std::size_t>(f) * nm + static_cast<std::size_t>(marker_of[static_cast<std::size_t>(b)])] =
          1;
    }
  }
  // Bounding box of the trial, for uniform ghosts.
  Vector3d lo = Vector3d::Constant(1e300), hi = Vector3d::Constant(-1e300);
  for (const Vector3d& p : trial.positions)
    if (p.allFinite()) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  lo.array() -= 0.5;
  hi.array() += 0.5;

  s.cloud.source = trial.source;
  s.cloud.offsets.push_back(0);
  std::vector<Vector3d> frame;
  std::vector<int> truth, order;
  for (int f = 0; f < nf; ++f) {
    frame.clear();
    truth.clear();
    for (int c = 0; c < nc; ++c) {
      const std::size_t k = static_cast<std::size_t>(f) * static_cast<std::size_t>(nc) + static_cast<std::size_t>(c);
      if (hidden[k] || !trial.positions[k].allFinite()) continue;
      Vector3d p = trial.positions[k];
      if (o.noise_sigma > 0.0) p += o.noise_sigma * randomVector3(gauss, rng);
      frame.push_back(p);
      truth.push_back(marker_of[static_cast<std::size_t>(c)]);
    }
    const std::size_t real = frame.size();
    for (int g = 0; g < o.ghosts_uniform && real > 0; ++g) {
      frame.push_back(lo + randomVector3(uni, rng).cwiseProduct(hi - lo));
      truth.push_back(-1);
    }
    for (int g = 0; g < o.ghosts_near && real > 0; ++g) {
      const Vector3d& anchor = frame[static_cast<std::size_t>(uni(rng) * static_cast<double>(real)) % real];
      Vector3d d;
      do d = 2.0 * randomVector3(uni, rng) - Vector3d::Ones();
      while (d.squaredNorm() > 1.0);
      frame.push_back(anchor + o.ghost_near_radius * d);
      truth.push_back(-1);
    }
    order.resize(frame.size());
    std::iota(order.begin(), order.end(), 0);
    if (o.shuffle) std::shuffle(order.begin(), order.end(), rng);
    std::vector<Vector3d> shuffled(frame.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      shuffled[k] = frame[static_cast<std::size_t>(order[k])];
      s.truth.push_back(truth[static_cast<std::size_t>(order[k])]);
    }
    s.cloud.addFrame(f + 1, trial.times[static_cast<std::size_t>(f)], shuffled);
  }
  return s;
}

void ScenarioTrial::truePoints(int frame, std::vector<int>& point_of) const {
  std::fill(point_of.begin(), point_of.end(), -1);
  const std::size_t off = cloud.offsets[static_cast<std::size_t>(frame)];
  const std::size_t end = cloud.offsets[static_cast<std::size_t>(frame) + 1];
  for (std::size_t p = off; p < end; ++p)
    if (truth[p] >= 0) point_of[static_cast<std::size_t>(truth[p])] = static_cast<int>(p - off);
}

LabellingScore scoreLabelling(const ScenarioTrial& s, const LabelTrialResult& r, std::vector<char>* frame_ok) {
  LabellingScore sc;
  const int nf = s.cloud.numFrames();
  const std::size_t nm = r.names.size();
  if (static_cast<int>(r.frames.size()) != nf)
    throw InvalidArgument("scoreLabelling: result and scenario differ in frames");
  if (frame_ok) frame_ok->assign(static_cast<std::size_t>(nf), 0);
  std::vector<int> point_of(nm);
  std::vector<double> frame_accuracy(static_cast<std::size_t>(nf), 1.0);
  for (int f = 0; f < nf; ++f) {
    const std::size_t off = s.cloud.offsets[static_cast<std::size_t>(f)];
    const int np = static_cast<int>(s.cloud.offsets[static_cast<std::size_t>(f) + 1] - off);
    s.truePoints(f, point_of);
    long present = 0, correct = 0;
    for (std::size_t i = 0; i < nm; ++i) {
      const int got = r.point(f, static_cast<int>(i));
      if (got >= 0 && s.truth[off + static_cast<std::size_t>(got)] < 0) ++sc.ghosts_labelled;
      if (point_of[i] < 0) continue;
      ++present;
      const bool right = got == point_of[i];
      correct += right;
      if (!right) (got < 0 ? sc.missed : sc.wrong)++;
      if (s.swapped[static_cast<std::size_t>(f) * nm + i]) {
        ++sc.swapped_present;
        sc.swapped_correct += right;
      }
    }
    for (int p = 0; p < np; ++p) sc.ghost_points += s.truth[off + static_cast<std::size_t>(p)] < 0;
    sc.present += present;
    sc.correct += correct;
    frame_accuracy[static_cast<std::size_t>(f)] = present > 0 ? static_cast<double>(correct) / present : 1.0;
    if (present == correct) {
      ++sc.frames_all_correct;
      if (frame_ok) (*frame_ok)[static_cast<std::size_t>(f)] = 1;
    }
  }
  if (s.occlusion_last >= 0) {
    sc.reacquire_frames = -1;
    for (int f = s.occlusion_last + 1; f < nf; ++f)
      if (frame_accuracy[static_cast<std::size_t>(f)] >= 0.9) {
        sc.reacquire_frames = f - s.occlusion_last - 1;
        break;
      }
  }
  return sc;
}

}  // namespace kinetrack::markers
