#pragma once
// The adversarial-frames campaign (issue 20): streams of kFrames frames of one attack each (NaN,
// ±inf, 1e9, π rotations, singular poses, teleports) fed to a solver or tracker, with the checks
// every frame must pass: a row (an outcome or an explicit refusal), a valid status, a finite
// state and joint limits kept to 1e-6.
//
// In a stream, three frames of four carry the attack (in one target, in half of them, in all of
// them, cycling) and the fourth is clean, so that recovery after the attack is exercised too.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/core/random.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/core/types.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"
#include "testing/sanitizer.hpp"

namespace kinetrack::testing {

// 10,000 frames per attack; 2,000 in the sanitizer build (Debug + ASan runs marker IK ~30× slower,
// and the sanitizer looks for memory errors, which 500 cycles of every attack pattern exercise).
#if KINETRACK_TEST_ASAN
inline constexpr int kAdversarialFrames = 2000;
#else
inline constexpr int kAdversarialFrames = 10000;
#endif
inline constexpr double kLimitTolerance = 1e-6;

enum class Attack : std::uint8_t { NaN, Inf, Huge, PiRotation, Singular, Teleport };
inline const std::array<Attack, 6> kAttacks{Attack::NaN,        Attack::Inf,      Attack::Huge,
                                            Attack::PiRotation, Attack::Singular, Attack::Teleport};

inline const char* attackName(Attack a) {
  switch (a) {
    case Attack::NaN: return "NaN";
    case Attack::Inf: return "Inf";
    case Attack::Huge: return "Huge";
    case Attack::PiRotation: return "PiRotation";
    case Attack::Singular: return "Singular";
    case Attack::Teleport: return "Teleport";
  }
  return "?";
}

/// gtest parameter name printer.
struct AttackName {
  template <class P>
  std::string operator()(const ::testing::TestParamInfo<P>& info) const {
    return attackName(info.param);
  }
};

/// Does frame f carry the attack, and in which targets (of n): one, half or all; every 4th
/// frame is clean.
class AttackPlan {
 public:
  AttackPlan(Attack attack, std::uint64_t seed) : attack_(attack), rng_(seed) {}
  [[nodiscard]] Attack attack() const { return attack_; }
  std::mt19937_64& rng() { return rng_; }

  /// Marks `hit` (size n) for frame f; returns whether any target is hit.
  bool plan(int f, std::vector<std::uint8_t>& hit) {
    const auto n = static_cast<int>(hit.size());
    std::fill(hit.begin(), hit.end(), std::uint8_t{0});
    const int phase = f % 4;
    if (phase == 3 || n == 0) return false;
    const int count = phase == 0 ? 1 : phase == 1 ? std::max(1, n / 2) : n;
    for (int k = 0; k < count; ++k) {
      int i = std::uniform_int_distribution<int>(0, n - 1)(rng_);
      while (count < n && hit[static_cast<std::size_t>(i)] != 0) i = (i + 1) % n;
      hit[static_cast<std::size_t>(i)] = 1;
    }
    return true;
  }

  /// The scalar of a NaN / Inf / Huge attack (random sign for the infinities and 1e9).
  double badValue() {
    const double sign = std::bernoulli_distribution(0.5)(rng_) ? 1.0 : -1.0;
    switch (attack_) {
      case Attack::NaN: return std::numeric_limits<double>::quiet_NaN();
      case Attack::Inf: return sign * std::numeric_limits<double>::infinity();
      default: return sign * 1e9;
    }
  }
  /// Corrupts one component of p (NaN, Inf) or moves it by 1e9 m (Huge) along a random axis.
  void corruptPosition(Vector3d& p) {
    const int c = std::uniform_int_distribution<int>(0, 2)(rng_);
    if (attack_ == Attack::Huge)
      p += badValue() * unit();
    else
      p[c] = badValue();
  }
  /// Corrupts one entry of R (NaN, Inf) or scales R by 1e9 (Huge: not a rotation any more).
  void corruptRotation(Matrix3d& R) {
    const int c = std::uniform_int_distribution<int>(0, 8)(rng_);
    if (attack_ == Attack::Huge)
      R *= 1e9;
    else
      R(c / 3, c % 3) = badValue();
  }
  /// R turned by π about a random axis (on alternate frames the flip comes back: a target that
  /// jumps by π every frame).
  Matrix3d flipped(const Matrix3d& R) { return R * so3::exp(std::numbers::pi * unit()); }
  Vector3d unit() {
    std::normal_distribution<double> g;
    Vector3d v = randomVector3(g, rng_);
    return v.normalized();
  }

 private:
  Attack attack_;
  std::mt19937_64 rng_;
};

/// Per-stream tally: rows, refusals, statuses, the worst limit excess and non-finite states.
struct Tally {
  int rows = 0, refused = 0, non_finite_state = 0, non_finite_output = 0;
  std::array<int, 8> status{};
  double limit_excess = 0.0;
  int limit_frame = -1;

  void addStatus(int s) {
    ++rows;
    ++status[static_cast<std::size_t>(std::clamp(s, 0, 7))];
  }
  void addRefused() {
    ++rows;
    ++refused;
  }
  /// Checks q (finite, inside the model's limits + kLimitTolerance) after frame f.
  void checkState(const Model& m, const Configuration& q, int f) {
    const bool finite = q.joints.allFinite() && q.base_position.allFinite() && q.base_rotation.allFinite();
    if (!finite) ++non_finite_state;
    checkJoints(m.lowerPositionLimits(), m.upperPositionLimits(), q.joints, f);
  }
  void checkJoints(const Eigen::Ref<const VectorXd>& lower, const Eigen::Ref<const VectorXd>& upper,
                   const Eigen::Ref<const VectorXd>& s, int f) {
    if (!s.allFinite()) ++non_finite_state;
    for (Eigen::Index j = 0; j < s.size(); ++j) {
      const double excess = std::max(lower[j] - s[j], s[j] - upper[j]);
      if (excess > limit_excess) {
        limit_excess = excess;
        limit_frame = f;
      }
    }
  }
  void checkOutput(std::initializer_list<double> values) {
    for (double v : values)
      if (!std::isfinite(v)) {
        ++non_finite_output;
        return;
      }
  }
  /// The campaign's assertions for a stream of `frames` frames.
  void expectClean(int frames, const std::string& what) const {
    EXPECT_EQ(rows, frames) << what << ": every frame a row";
    EXPECT_EQ(non_finite_state, 0) << what << ": frames whose state is not finite";
    EXPECT_EQ(non_finite_output, 0) << what << ": frames with a non-finite reported figure";
    EXPECT_LE(limit_excess, kLimitTolerance) << what << ": worst limit excess at frame " << limit_frame;
  }
  [[nodiscard]] std::string summary() const {
    std::string s = "rows " + std::to_string(rows) + ", refused " + std::to_string(refused) + ", status";
    for (std::size_t k = 0; k < status.size(); ++k)
      if (status[k] != 0) s += " " + std::to_string(k) + ":" + std::to_string(status[k]);
    return s;
  }
};

}  // namespace kinetrack::testing
