// Kernel densities of joint angles per workspace cell and the gradient of their inverse (GPM Eq. 5).
#include "kinetrack/prior/density.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::prior {

namespace {

constexpr double kDeg = M_PI / 180.0;
constexpr int kMaxBins = 20000;
/// Below this fraction of the peak the density counts as zero (tails, gaps between clusters).
constexpr double kTiny = 1e-12;

double quantile(std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const std::size_t j = std::min(i + 1, sorted.size() - 1);
  return sorted[i] + (pos - static_cast<double>(i)) * (sorted[j] - sorted[i]);
}

}  // namespace

double silvermanBandwidth(std::span<const double> samples) {
  if (samples.empty()) throw InvalidArgument("silvermanBandwidth: no samples");
  const auto n = static_cast<double>(samples.size());
  double mean = 0.0;
  for (double s : samples) mean += s;
  mean /= n;
  double var = 0.0;
  for (double s : samples) var += (s - mean) * (s - mean);
  const double sigma = samples.size() > 1 ? std::sqrt(var / (n - 1.0)) : 0.0;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const double iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25);
  const double spread = iqr > 0.0 ? std::min(sigma, iqr / 1.34) : sigma;
  return 0.9 * spread * std::pow(n, -0.2);
}

JointDensity::JointDensity(std::span<const double> samples, const DensityOptions& options) {
  if (samples.empty()) throw InvalidArgument("JointDensity: no samples (an empty cell has no density)");
  for (double s : samples)
    if (!std::isfinite(s)) throw InvalidArgument("JointDensity: non-finite sample");
  if (options.table_resolution < 1 || !(options.min_bandwidth > 0.0) || !(options.max_gradient > 0.0))
    throw InvalidArgument("JointDensity: table_resolution >= 1, min_bandwidth > 0 and max_gradient > 0 required");
  samples_ = static_cast<int>(samples.size());
  max_gradient_ = options.max_gradient;
  bandwidth_ = std::max(silvermanBandwidth(samples), options.min_bandwidth);
  const double h = bandwidth_;
  const auto [mn, mx] = std::minmax_element(samples.begin(), samples.end());
  lo_ = *mn - 4.0 * h;
  const double hi = *mx + 4.0 * h;
  step_ = std::min(h / options.table_resolution, 1.0 * kDeg);
  if ((hi - lo_) / step_ + 1.0 > kMaxBins) step_ = (hi - lo_) / (kMaxBins - 1);
  const int bins = static_cast<int>(std::ceil((hi - lo_) / step_)) + 1;

  // Linear binning of the samples, then the Gaussian kernel and its derivative as a convolution
  // (a binned KDE: exact to O(step²)).
  std::vector<double> counts(static_cast<std::size_t>(bins), 0.0);
  for (double s : samples) {
    const double u = (s - lo_) / step_;
    const int b = std::clamp(static_cast<int>(std::floor(u)), 0, bins - 2);
    const double f = u - b;
    counts[static_cast<std::size_t>(b)] += 1.0 - f;
    counts[static_cast<std::size_t>(b) + 1] += f;
  }
  const int m = static_cast<int>(std::ceil(5.0 * h / step_));
  std::vector<double> K(static_cast<std::size_t>(2 * m + 1)), dK(K.size());
  const double norm = 1.0 / (static_cast<double>(samples_) * h * std::sqrt(2.0 * M_PI));
  for (int j = -m; j <= m; ++j) {
    const double x = j * step_;  // θ − sample
    K[static_cast<std::size_t>(j + m)] = norm * std::exp(-0.5 * x * x / (h * h));
    dK[static_cast<std::size_t>(j + m)] = -x / (h * h) * K[static_cast<std::size_t>(j + m)];
  }
  density_.assign(static_cast<std::size_t>(bins), 0.0);
  std::vector<double> dp(static_cast<std::size_t>(bins), 0.0);
  for (int b = 0; b < bins; ++b) {
    const double c = counts[static_cast<std::size_t>(b)];
    if (c == 0.0) continue;
    for (int j = std::max(-m, -b); j <= m && b + j < bins; ++j) {
      density_[static_cast<std::size_t>(b + j)] += c * K[static_cast<std::size_t>(j + m)];
      dp[static_cast<std::size_t>(b + j)] += c * dK[static_cast<std::size_t>(j + m)];
    }
  }
  const double pmax = *std::max_element(density_.begin(), density_.end());
  // Eq. 5: d/dθ (p_max / p) = −p_max p′ / p². Where p underflows, point back to the nearest
  // bin that carries density, at the cap.
  gradient_.assign(static_cast<std::size_t>(bins), 0.0);
  const double tiny = kTiny * pmax;
  int last_good = -1;
  std::vector<int> next_good(static_cast<std::size_t>(bins), -1);
  for (int b = bins - 1, nxt = -1; b >= 0; --b) {
    if (density_[static_cast<std::size_t>(b)] >= tiny) nxt = b;
    next_good[static_cast<std::size_t>(b)] = nxt;
  }
  for (int b = 0; b < bins; ++b) {
    const double p = density_[static_cast<std::size_t>(b)];
    double g;
    if (p >= tiny) {
      g = -pmax * dp[static_cast<std::size_t>(b)] / (p * p);
      last_good = b;
    } else {
      const int nxt = next_good[static_cast<std::size_t>(b)];
      const int dl = last_good < 0 ? bins : b - last_good, dr = nxt < 0 ? bins : nxt - b;
      g = dr <= dl ? -max_gradient_ : max_gradient_;  // descend towards the nearer density
    }
    gradient_[static_cast<std::size_t>(b)] = std::clamp(g, -max_gradient_, max_gradient_);
  }
}

JointDensity JointDensity::fromTables(double lo, double step, double bandwidth, int samples,
                                      std::vector<double> density, std::vector<double> gradient, double max_gradient) {
  if (density.size() < 2 || density.size() != gradient.size() || !(step > 0.0) || !std::isfinite(lo) ||
      !(bandwidth > 0.0) || samples < 1 || !(max_gradient > 0.0))
    throw InvalidArgument("JointDensity::fromTables: inconsistent table");
  for (std::size_t i = 0; i < density.size(); ++i)
    if (!std::isfinite(density[i]) || density[i] < 0.0 || !std::isfinite(gradient[i]))
      throw InvalidArgument("JointDensity::fromTables: non-finite or negative entry " + std::to_string(i));
  JointDensity d;
  d.lo_ = lo;
  d.step_ = step;
  d.bandwidth_ = bandwidth;
  d.samples_ = samples;
  d.max_gradient_ = max_gradient;
  d.density_ = std::move(density);
  d.gradient_ = std::move(gradient);
  return d;
}

namespace {
/// Linear interpolation of table t (first entry at lo, spacing step) at θ inside the table.
double interpolate(const std::vector<double>& t, double lo, double step, double theta) {
  const double u = (theta - lo) / step;
  const auto last = static_cast<int>(t.size()) - 1;
  const int b = std::clamp(static_cast<int>(std::floor(u)), 0, last - 1);
  const double f = u - b;
  return (1.0 - f) * t[static_cast<std::size_t>(b)] + f * t[static_cast<std::size_t>(b) + 1];
}
}  // namespace

double JointDensity::density(double theta) const {
  if (density_.empty() || !(theta >= lo_ && theta <= upper())) return 0.0;
  return interpolate(density_, lo_, step_, theta);
}

double JointDensity::gradient(double theta) const {
  if (gradient_.empty() || !std::isfinite(theta)) return 0.0;
  if (theta < lo_) return -max_gradient_;
  if (theta > upper()) return max_gradient_;
  return interpolate(gradient_, lo_, step_, theta);
}

int WorkspaceGrid::cell(const Vector3d& p) const {
  int index = 0;
  for (int a = 0; a < 3; ++a) {
    const double span = upper[a] - lower[a];
    int i = 0;
    if (span > 0.0 && std::isfinite(p[a]))
      i = std::clamp(static_cast<int>(std::floor((p[a] - lower[a]) / span * inc)), 0, inc - 1);
    index = index * inc + i;
  }
  return index;
}

DensityPrior::DensityPrior(const PriorSamples& samples, std::vector<std::vector<int>> groups,
                           const DensityOptions& options)
    : num_joints_(samples.num_joints), groups_(std::move(groups)), options_(options) {
  if (options.inc < 1 || options.inc > 100) throw InvalidArgument("DensityPrior: inc must be 1 … 100");
  if (options.min_samples < 1) throw InvalidArgument("DensityPrior: min_samples must be >= 1");
  if (num_joints_ < 1) throw InvalidArgument("DensityPrior: num_joints must be >= 1");
  const int n = samples.size();
  const int G = numGroups();
  if (G < 1) throw InvalidArgument("DensityPrior: no joint groups");
  if (samples.joints.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(num_joints_) ||
      samples.key_points.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(G))
    throw InvalidArgument("DensityPrior: expected " + std::to_string(n) + " x " + std::to_string(G) +
                          " key points and " + std::to_string(num_joints_) + " joints per sample, got " +
                          std::to_string(samples.key_points.size()) + " key points");
  std::vector<int> owner(static_cast<std::size_t>(num_joints_), -1);
  for (int g = 0; g < G; ++g)
    for (int j : groups_[static_cast<std::size_t>(g)]) {
      if (j < 0 || j >= num_joints_ || owner[static_cast<std::size_t>(j)] >= 0)
        throw InvalidArgument("DensityPrior: group " + std::to_string(g) + ": joint " + std::to_string(j) +
                              " is out of range or already in a group");
      owner[static_cast<std::size_t>(j)] = g;
    }
  std::vector<int> usable;
  for (int s = 0; s < n; ++s) {
    bool ok = true;
    for (int j = 0; j < num_joints_ && ok; ++j)
      ok = std::isfinite(samples.joints[static_cast<std::size_t>(s) * num_joints_ + j]);
    for (int g = 0; g < G && ok; ++g) ok = samples.key_points[static_cast<std::size_t>(s) * G + g].allFinite();
    if (ok) usable.push_back(s);
  }
  if (usable.empty()) throw InvalidArgument("DensityPrior: no sample with finite joints and key points");
  grid_.inc = options.inc;
  grid_.lower = Vector3d::Constant(std::numeric_limits<double>::infinity());
  grid_.upper = -grid_.lower;
  for (int s : usable)
    for (int g = 0; g < G; ++g) {
      const Vector3d& p = samples.key_points[static_cast<std::size_t>(s) * G + g];
      grid_.lower = grid_.lower.cwiseMin(p);
      grid_.upper = grid_.upper.cwiseMax(p);
    }
  grid_.lower.array() -= 0.01;
  grid_.upper.array() += 0.01;
  const int cells = options.inc * options.inc * options.inc;
  cell_slot_.assign(static_cast<std::size_t>(G), std::vector<int>(static_cast<std::size_t>(cells), -1));
  densities_.assign(static_cast<std::size_t>(G), {});
  std::vector<double> values;
  for (int g = 0; g < G; ++g) {
    std::vector<std::vector<int>> members(static_cast<std::size_t>(cells));
    for (int s : usable)
      members[static_cast<std::size_t>(grid_.cell(samples.key_points[static_cast<std::size_t>(s) * G + g]))].push_back(
          s);
    const auto& joints = groups_[static_cast<std::size_t>(g)];
    for (int c = 0; c < cells; ++c) {
      const auto& mem = members[static_cast<std::size_t>(c)];
      if (static_cast<int>(mem.size()) < options.min_samples || joints.empty()) continue;
      cell_slot_[static_cast<std::size_t>(g)][static_cast<std::size_t>(c)] =
          static_cast<int>(densities_[static_cast<std::size_t>(g)].size() / joints.size());
      for (int j : joints) {
        values.clear();
        for (int s : mem) values.push_back(samples.joints[static_cast<std::size_t>(s) * num_joints_ + j]);
        densities_[static_cast<std::size_t>(g)].emplace_back(values, options);
      }
    }
  }
}

DensityPrior DensityPrior::fromParts(int num_joints, std::vector<std::vector<int>> groups, const WorkspaceGrid& grid,
                                     const DensityOptions& options, std::vector<std::vector<int>> cell_slots,
                                     std::vector<std::vector<JointDensity>> densities) {
  const std::size_t cells = static_cast<std::size_t>(grid.inc) * grid.inc * grid.inc;
  if (num_joints < 1 || groups.empty() || cell_slots.size() != groups.size() || densities.size() != groups.size() ||
      grid.inc < 1)
    throw InvalidArgument("DensityPrior::fromParts: inconsistent parts");
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (cell_slots[g].size() != cells) throw InvalidArgument("DensityPrior::fromParts: wrong cell count");
    for (int j : groups[g])
      if (j < 0 || j >= num_joints) throw InvalidArgument("DensityPrior::fromParts: joint out of range");
    if (!groups[g].empty() && densities[g].size() % groups[g].size() != 0)
      throw InvalidArgument("DensityPrior::fromParts: density count is not a multiple of the group size");
    const std::size_t slots = groups[g].empty() ? 0 : densities[g].size() / groups[g].size();
    for (int s : cell_slots[g])
      if (s >= static_cast<int>(slots)) throw InvalidArgument("DensityPrior::fromParts: slot out of range");
  }
  DensityPrior p;
  p.num_joints_ = num_joints;
  p.groups_ = std::move(groups);
  p.grid_ = grid;
  p.options_ = options;
  p.options_.inc = grid.inc;
  p.cell_slot_ = std::move(cell_slots);
  p.densities_ = std::move(densities);
  return p;
}

const JointDensity* DensityPrior::cellDensities(int g, int cell) const {
  const int slot = cell_slot_[static_cast<std::size_t>(g)][static_cast<std::size_t>(cell)];
  if (slot < 0) return nullptr;
  return densities_[static_cast<std::size_t>(g)].data() +
         static_cast<std::size_t>(slot) * groups_[static_cast<std::size_t>(g)].size();
}

int DensityPrior::occupiedCells(int g) const {
  const auto& slots = cell_slot_[static_cast<std::size_t>(g)];
  return static_cast<int>(std::count_if(slots.begin(), slots.end(), [](int s) { return s >= 0; }));
}

int DensityPrior::gradient(std::span<const double> theta, std::span<const Vector3d> key_points,
                           std::span<double> gradient) const {
  std::fill(gradient.begin(), gradient.end(), 0.0);
  int fallbacks = 0;
  for (int g = 0; g < numGroups(); ++g) {
    const JointDensity* d = cellDensities(g, grid_.cell(key_points[static_cast<std::size_t>(g)]));
    if (d == nullptr) {
      ++fallbacks;
      continue;
    }
    const auto& joints = groups_[static_cast<std::size_t>(g)];
    for (std::size_t k = 0; k < joints.size(); ++k)
      gradient[static_cast<std::size_t>(joints[k])] = d[k].gradient(theta[static_cast<std::size_t>(joints[k])]);
  }
  return fallbacks;
}

}  // namespace kinetrack::prior
