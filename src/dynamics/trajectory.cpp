#include "kinetrack/dynamics/trajectory.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"

namespace kinetrack {

namespace {

// One 2nd-order section y = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²) x; `dc` its gain at
// 0 Hz (1 low-pass, 0 high-pass).
struct Biquad {
  double b0, b1, b2, a1, a2, dc;
};

// 2nd-order Butterworth low-pass by the bilinear transform, pre-warped so that the two passes
// of filtfilt together are 3 dB down at `cutoff_hz`: K = tan(π f_c / fs) / c with
// c = (√2 − 1)^¼ (one pass has |H|² = 1 / (1 + (tan(πf/fs)/K)⁴); two passes square it).
Biquad butterworthLowPass(double sample_rate_hz, double cutoff_hz) {
  const double c = std::pow(std::numbers::sqrt2 - 1.0, 0.25);
  const double k = std::tan(std::numbers::pi * cutoff_hz / sample_rate_hz) / c;
  const double k2 = k * k, norm = 1.0 / (1.0 + std::numbers::sqrt2 * k + k2);
  const double b0 = k2 * norm;
  return {b0, 2.0 * b0, b0, 2.0 * (k2 - 1.0) * norm, (1.0 - std::numbers::sqrt2 * k + k2) * norm, 1.0};
}

// The high-pass twin: K = tan(π f_c / fs) · c (one pass has |H|² = 1 / (1 + (K / tan(πf/fs))⁴)),
// so that the two passes together are 3 dB down at `cutoff_hz`.
Biquad butterworthHighPass(double sample_rate_hz, double cutoff_hz) {
  const double c = std::pow(std::numbers::sqrt2 - 1.0, 0.25);
  const double k = std::tan(std::numbers::pi * cutoff_hz / sample_rate_hz) * c;
  const double k2 = k * k, norm = 1.0 / (1.0 + std::numbers::sqrt2 * k + k2);
  return {norm, -2.0 * norm, norm, 2.0 * (k2 - 1.0) * norm, (1.0 - std::numbers::sqrt2 * k + k2) * norm, 0.0};
}

// Runs the section over x[0], x[step], … (step ±1, `count` values) in place, transposed direct
// form II, starting in the steady state of the first value (no start-up transient for a constant).
void runBiquad(const Biquad& f, double* x, std::ptrdiff_t count, std::ptrdiff_t step) {
  double z1 = x[0] * (f.dc - f.b0), z2 = x[0] * (f.b2 - f.a2 * f.dc);
  for (std::ptrdiff_t i = 0; i < count; ++i, x += step) {
    const double in = *x, out = f.b0 * in + z1;
    z1 = f.b1 * in - f.a1 * out + z2;
    z2 = f.b2 * in - f.a2 * out;
    *x = out;
  }
}

// filtfilt of x (n values) with odd-reflection padding, using `work` as the padded buffer.
void filtfilt(const Biquad& f, std::ptrdiff_t pad, double* x, std::ptrdiff_t n, std::vector<double>& work) {
  if (n < 2) return;
  pad = std::min(pad, n - 1);
  work.resize(static_cast<std::size_t>(n + 2 * pad));
  double* w = work.data();
  for (std::ptrdiff_t j = 0; j < n; ++j) w[pad + j] = x[j];
  for (std::ptrdiff_t j = 1; j <= pad; ++j) {
    w[pad - j] = 2.0 * x[0] - x[j];
    w[pad + n - 1 + j] = 2.0 * x[n - 1] - x[n - 1 - j];
  }
  const std::ptrdiff_t total = n + 2 * pad;
  runBiquad(f, w, total, 1);
  runBiquad(f, w + total - 1, total, -1);
  for (std::ptrdiff_t j = 0; j < n; ++j) x[j] = w[pad + j];
}

void checkCutoff(double sample_rate_hz, double cutoff_hz, const char* what) {
  if (!std::isfinite(cutoff_hz) || !(cutoff_hz > 0.0))
    throw InvalidArgument(std::string(what) + ": cutoff " + std::to_string(cutoff_hz) + " Hz must be finite and > 0");
  if (!std::isfinite(sample_rate_hz) || !(cutoff_hz < 0.5 * sample_rate_hz))
    throw InvalidArgument(std::string(what) + ": cutoff " + std::to_string(cutoff_hz) +
                          " Hz must be below the Nyquist frequency " + std::to_string(0.5 * sample_rate_hz) +
                          " Hz of the sampling");
}

// Padding: ⌈3 fs / f_c⌉ samples, three cutoff periods, over which the start-up transient of a
// pass (poles damped at ζω_n = 2π f_c / (√2 c) ≈ 5.5 f_c) decays below 1e-7.
std::ptrdiff_t padLength(double sample_rate_hz, double cutoff_hz) {
  return static_cast<std::ptrdiff_t>(std::ceil(3.0 * sample_rate_hz / cutoff_hz));
}

}  // namespace

TrajectoryDerivatives differentiate(const Model& model, const std::vector<Configuration>& q,
                                    const std::vector<double>& t, std::span<const std::uint8_t> gap) {
  const std::size_t n = q.size();
  if (n < 3) throw InvalidArgument("differentiate: need at least 3 frames, got " + std::to_string(n));
  if (t.size() != n)
    throw InvalidArgument("differentiate: " + std::to_string(n) + " configurations but " + std::to_string(t.size()) +
                          " times");
  if (!gap.empty() && gap.size() != n)
    throw InvalidArgument("differentiate: " + std::to_string(gap.size()) + " gap flags for " + std::to_string(n) +
                          " frames");
  for (std::size_t k = 1; k < n; ++k)
    if (!(t[k] > t[k - 1]) || !std::isfinite(t[k]))
      throw InvalidArgument("differentiate: time " + std::to_string(t[k]) + " s at frame " + std::to_string(k) +
                            " does not increase");
  const int nv = model.nv();
  // Forward chords (q_{k+1} ⊖ q_k)/(t_{k+1} − t_k), k = 0 … n−2.
  std::vector<VectorXd> chord(n - 1, VectorXd(nv));
  for (std::size_t k = 0; k + 1 < n; ++k) {
    difference(model, q[k], q[k + 1], chord[k]);
    chord[k] /= t[k + 1] - t[k];
  }
  TrajectoryDerivatives d;
  d.velocity.assign(n, VectorXd::Zero(nv));
  d.acceleration.assign(n, VectorXd::Zero(nv));
  d.valid.assign(n, 1);
  VectorXd span(nv);
  for (std::size_t k = 1; k + 1 < n; ++k) {
    difference(model, q[k - 1], q[k + 1], span);
    d.velocity[k] = span / (t[k + 1] - t[k - 1]);
    d.acceleration[k] = 2.0 * (chord[k] - chord[k - 1]) / (t[k + 1] - t[k - 1]);
  }
  d.velocity[0] = chord[0];
  d.velocity[n - 1] = chord[n - 2];
  d.acceleration[0] = d.acceleration[1];
  d.acceleration[n - 1] = d.acceleration[n - 2];
  if (!gap.empty())
    for (std::size_t k = 0; k < n; ++k)
      if (gap[k])
        for (std::size_t j = k > 1 ? k - 2 : 0; j <= std::min(n - 1, k + 2); ++j) d.valid[j] = 0;
  return d;
}

std::vector<VectorXd> inverseDynamics(const Model& model, const std::vector<Configuration>& q,
                                      const TrajectoryDerivatives& derivatives, const Vector3d& gravity) {
  if (derivatives.velocity.size() != q.size() || derivatives.acceleration.size() != q.size() ||
      derivatives.valid.size() != q.size())
    throw InvalidArgument("inverseDynamics: derivatives of " + std::to_string(derivatives.velocity.size()) +
                          " frames for " + std::to_string(q.size()) + " configurations");
  DynamicsData data(model);
  std::vector<VectorXd> tau(q.size(), VectorXd::Zero(model.nv()));
  for (std::size_t k = 0; k < q.size(); ++k)
    if (derivatives.valid[k])
      tau[k] = rnea(model, data, q[k], derivatives.velocity[k], derivatives.acceleration[k], {}, gravity);
  return tau;
}

}  // namespace kinetrack

namespace kinetrack {

std::vector<VectorXd> inverseDynamics(const Model& model, const std::vector<Configuration>& q,
                                      const TrajectoryDerivatives& derivatives,
                                      std::span<const std::vector<ExternalWrench>> wrenches, const Vector3d& gravity) {
  if (derivatives.velocity.size() != q.size() || derivatives.acceleration.size() != q.size() ||
      derivatives.valid.size() != q.size())
    throw InvalidArgument("inverseDynamics: derivatives of " + std::to_string(derivatives.velocity.size()) +
                          " frames for " + std::to_string(q.size()) + " configurations");
  if (wrenches.size() != q.size())
    throw InvalidArgument("inverseDynamics: external wrenches for " + std::to_string(wrenches.size()) +
                          " frames, the motion has " + std::to_string(q.size()));
  for (std::size_t k = 0; k < wrenches.size(); ++k)
    for (const ExternalWrench& w : wrenches[k]) {
      if (!w.link.valid() || w.link.value >= model.numLinks())
        throw InvalidArgument("inverseDynamics: frame " + std::to_string(k) + ": external wrench on link id " +
                              std::to_string(w.link.value) + ", the model has " + std::to_string(model.numLinks()) +
                              " links");
      if (!w.force.allFinite() || !w.point.allFinite() || !w.moment.allFinite())
        throw InvalidArgument("inverseDynamics: frame " + std::to_string(k) + ": external wrench on link '" +
                              model.linkName(w.link) + "' has a NaN or infinite value");
    }
  DynamicsData data(model);
  std::vector<VectorXd> tau(q.size(), VectorXd::Zero(model.nv()));
  for (std::size_t k = 0; k < q.size(); ++k)
    if (derivatives.valid[k])
      tau[k] = rnea(model, data, q[k], derivatives.velocity[k], derivatives.acceleration[k], wrenches[k], gravity);
  return tau;
}

namespace {

// The zero-lag (forward-backward) Butterworth filter of x in place: `who` names the caller in
// errors.
template <class Sections>
void zeroLagFilter(std::span<double> x, double sample_rate_hz, double cutoff_hz, const char* who, Sections sections) {
  checkCutoff(sample_rate_hz, cutoff_hz, who);
  for (const double v : x)
    if (!std::isfinite(v)) throw InvalidArgument(std::string(who) + ": the values must be finite");
  std::vector<double> work;
  filtfilt(sections(sample_rate_hz, cutoff_hz), padLength(sample_rate_hz, cutoff_hz), x.data(),
           static_cast<std::ptrdiff_t>(x.size()), work);
}

}  // namespace

void lowPassFilter(std::span<double> x, double sample_rate_hz, double cutoff_hz) {
  zeroLagFilter(x, sample_rate_hz, cutoff_hz, "lowPassFilter",
                [](double fs, double fc) { return butterworthLowPass(fs, fc); });
}

void highPassFilter(std::span<double> x, double sample_rate_hz, double cutoff_hz) {
  zeroLagFilter(x, sample_rate_hz, cutoff_hz, "highPassFilter",
                [](double fs, double fc) { return butterworthHighPass(fs, fc); });
}

std::vector<Configuration> lowPassMotion(const Model& model, const std::vector<Configuration>& q,
                                         const std::vector<double>& t, double cutoff_hz,
                                         std::span<const std::uint8_t> gap) {
  const std::size_t n = q.size();
  if (t.size() != n)
    throw InvalidArgument("lowPassMotion: " + std::to_string(n) + " configurations but " + std::to_string(t.size()) +
                          " times");
  if (!gap.empty() && gap.size() != n)
    throw InvalidArgument("lowPassMotion: " + std::to_string(gap.size()) + " gap flags for " + std::to_string(n) +
                          " frames");
  if (!std::isfinite(cutoff_hz) || !(cutoff_hz > 0.0))
    throw InvalidArgument("lowPassMotion: cutoff " + std::to_string(cutoff_hz) + " Hz must be finite and > 0");
  for (std::size_t k = 0; k < n; ++k) {
    if (!std::isfinite(t[k]) || (k > 0 && !(t[k] > t[k - 1])))
      throw InvalidArgument("lowPassMotion: time " + std::to_string(t[k]) + " s at frame " + std::to_string(k) +
                            " is not finite or does not increase");
    if (q[k].joints.size() != model.numJoints())
      throw InvalidArgument("lowPassMotion: frame " + std::to_string(k) + " has " + std::to_string(q[k].joints.size()) +
                            " joint coordinates, the model " + std::to_string(model.numJoints()));
  }
  std::vector<Configuration> out = q;
  const bool floating = model.nvBase() == 6;
  const int nj = model.numJoints();
  const int ncoord = (floating ? 7 : 0) + nj;  // p (3), quaternion (4), joints
  std::vector<double> column, work;
  Eigen::MatrixXd values;  // (run length × ncoord)
  std::size_t begin = 0;
  while (begin < n) {
    if (!gap.empty() && gap[begin]) {
      ++begin;
      continue;
    }
    std::size_t end = begin;  // one past the run of frames without a gap
    while (end < n && (gap.empty() || !gap[end])) ++end;
    const auto len = static_cast<std::ptrdiff_t>(end - begin);
    if (len >= 2) {
      const double mean_dt = (t[end - 1] - t[begin]) / static_cast<double>(len - 1);
      for (std::size_t k = begin + 1; k < end; ++k)
        if (std::abs(t[k] - t[k - 1] - mean_dt) > 0.3 * mean_dt)
          throw InvalidArgument("lowPassMotion: the sampling is not uniform: the interval before frame " +
                                std::to_string(k) + " (t = " + std::to_string(t[k]) + " s) is " +
                                std::to_string(t[k] - t[k - 1]) + " s, the mean " + std::to_string(mean_dt) +
                                " s (more than 30 % away); resample the motion first");
      const double rate = 1.0 / mean_dt;
      checkCutoff(rate, cutoff_hz, "lowPassMotion");
      values.resize(len, ncoord);
      Eigen::Vector4d previous = Eigen::Vector4d::Zero();
      for (std::ptrdiff_t i = 0; i < len; ++i) {
        const Configuration& c = q[begin + static_cast<std::size_t>(i)];
        if (floating) {
          values.row(i).head<3>() = c.base_position.transpose();
          Eigen::Vector4d quat = so3::toQuaternionWxyz(c.base_rotation);
          if (i > 0 && quat.dot(previous) < 0.0) quat = -quat;  // stay on one sheet of the double cover
          previous = quat;
          values.row(i).segment<4>(3) = quat.transpose();
        }
        values.row(i).tail(nj) = c.joints.transpose();
      }
      const Biquad filter = butterworthLowPass(rate, cutoff_hz);
      const std::ptrdiff_t pad = padLength(rate, cutoff_hz);
      column.resize(static_cast<std::size_t>(len));
      for (int j = 0; j < ncoord; ++j) {
        for (std::ptrdiff_t i = 0; i < len; ++i) column[static_cast<std::size_t>(i)] = values(i, j);
        filtfilt(filter, pad, column.data(), len, work);
        for (std::ptrdiff_t i = 0; i < len; ++i) values(i, j) = column[static_cast<std::size_t>(i)];
      }
      for (std::ptrdiff_t i = 0; i < len; ++i) {
        Configuration& c = out[begin + static_cast<std::size_t>(i)];
        if (floating) {
          c.base_position = values.row(i).head<3>().transpose();
          c.base_rotation = so3::fromQuaternionWxyz(values.row(i).segment<4>(3).transpose());  // normalises
        }
        c.joints = values.row(i).tail(nj).transpose();
      }
    }
    begin = end;
  }
  return out;
}

}  // namespace kinetrack
