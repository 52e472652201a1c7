#pragma once
// Inverse dynamics of a recorded motion: optionally a zero-lag low-pass of the sampled joint
// trajectory, velocities and accelerations by finite differences on the configuration manifold,
// then RNEA per frame with the external wrenches of each frame (docs/dynamics.md).
#include <cstdint>
#include <span>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"

namespace kinetrack {

/// ν and ν̇ of every frame of a trajectory sampled at increasing times `t` (s), by finite
/// differences on the manifold (kinematics' difference(): the base rotation through log, world
/// frame):
///   ν_k  = (q_{k+1} ⊖ q_{k−1}) / (t_{k+1} − t_{k−1})                      (central; one-sided at
///   ν̇_k = 2 [(q_{k+1} ⊖ q_k)/(t_{k+1} − t_k) − (q_k ⊖ q_{k−1})/(t_k − t_{k−1})] / (t_{k+1} − t_{k−1})
/// the ends, where ν̇ copies its neighbour). Second-order accurate for uniform sampling; noise
/// in q is amplified by 1/Δt in ν and 1/Δt² in ν̇ — low-pass a measured motion first
/// (lowPassMotion below).
/// Frames flagged in `gap` (held states) and their neighbours get `valid` = 0. Throws
/// InvalidArgument for fewer than 3 frames, sizes that differ, or times that do not increase.
struct TrajectoryDerivatives {
  std::vector<VectorXd> velocity, acceleration;  ///< nv each, per frame
  std::vector<std::uint8_t> valid;               ///< 0 where a gap touches the stencil
};
TrajectoryDerivatives differentiate(const Model& model, const std::vector<Configuration>& q,
                                    const std::vector<double>& t, std::span<const std::uint8_t> gap = {});

/// Generalised forces τ_k = RNEA(q_k, ν_k, ν̇_k) of every frame (nv; a floating base's residual
/// force and moment first), zero where `derivatives.valid` is 0. Throws InvalidArgument when the
/// derivatives do not have one entry per configuration.
std::vector<VectorXd> inverseDynamics(const Model& model, const std::vector<Configuration>& q,
                                      const TrajectoryDerivatives& derivatives,
                                      const Vector3d& gravity = kStandardGravity);

/// Same with external loads: τ_k = RNEA(q_k, ν_k, ν̇_k, wrenches[k]), `wrenches[k]` the world-frame
/// wrenches acting in frame k (any number per frame, several on one link add up). A floating
/// base's residual is then what the wrenches leave unexplained: ~0 when they are the whole ground
/// reaction. Throws InvalidArgument when `wrenches` does not have one list per frame, or a wrench
/// is on an unknown link or has a NaN or infinite value (naming the frame). Allocates only the
/// result.
std::vector<VectorXd> inverseDynamics(const Model& model, const std::vector<Configuration>& q,
                                      const TrajectoryDerivatives& derivatives,
                                      std::span<const std::vector<ExternalWrench>> wrenches,
                                      const Vector3d& gravity = kStandardGravity);

/// Zero-lag low-pass filter of uniformly sampled values `x` (in place), at `sample_rate_hz`: a
/// 2nd-order Butterworth section (bilinear transform, pre-warped) run forward, then backward (a
/// 4th-order zero-phase filter, "filtfilt"), designed at a cutoff raised by 1/c, c = (√2 − 1)^¼ ≈
/// 0.802 (Winter, Biomechanics and Motor Control of Human Movement, 4th ed., 2009: the correction
/// for a filter run twice), so that the −3 dB frequency of the two passes together is
/// `cutoff_hz`. Gain at frequency f: G(f) = 1 / (1 + (√2 − 1)(tan(πf/fs) / tan(πf_c/fs))⁴) =
/// 1 − 0.41 (f/f_c)⁴ + …, so polynomials up to degree 3 pass unchanged away from the ends. The
/// ends are padded by odd reflection (x₋ⱼ = 2x₀ − xⱼ, which continues a linear trend) over
/// min(n − 1, ⌈3 fs/f_c⌉) samples, and each pass starts in the steady state of its first value.
/// Throws InvalidArgument unless 0 < cutoff_hz < sample_rate_hz / 2 (both finite) and x is
/// finite.
void lowPassFilter(std::span<double> x, double sample_rate_hz, double cutoff_hz);
/// The zero-lag high-pass twin of lowPassFilter (the same padding and passes; the two passes
/// together 3 dB down at `cutoff_hz`, a constant removed). Throws as lowPassFilter.
void highPassFilter(std::span<double> x, double sample_rate_hz, double cutoff_hz);

/// A motion low-passed by lowPassFilter at `cutoff_hz`, coordinate by coordinate: base position,
/// the base orientation as its quaternion (w, x, y, z) made sign-continuous (q_k · q_{k−1} ≥ 0,
/// so it never jumps between q and −q) then normalised after filtering, and every joint
/// coordinate. Runs of frames between gaps (frames flagged in `gap`, copied unchanged) are
/// filtered separately, each at its own mean sampling rate. Throws InvalidArgument for sizes
/// that differ, times that do not increase, a run whose sampling is not uniform (an interval
/// more than 30 % away from the run's mean interval: resample first) or whose Nyquist frequency
/// is at or below the cutoff, and a cutoff that is not finite and > 0.
std::vector<Configuration> lowPassMotion(const Model& model, const std::vector<Configuration>& q,
                                         const std::vector<double>& t, double cutoff_hz,
                                         std::span<const std::uint8_t> gap = {});

}  // namespace kinetrack
