#pragma once
// Limits: the constraints every IK method honours, as objects that write QP bounds and rows.
//  - JointLimits: the model's joint position limits s_min ≤ s ≤ s_max and velocity limits;
//  - RowLimits: the model's linear rows lower ≤ a·s ≤ upper (DYN Eq. 11; coupled joints, mimics);
//  - BaseVelocityLimit: optional bounds on the floating base's velocity;
//  - CoordinateBounds: per-coordinate bounds set joint by joint, as OpenSim's IK takes them
//    (free, clamped to the model's range or an interval, locked at a value): MarkerIk's.
// Two forms, one per family of solvers:
//  - velocity bounds for DYN, whose QP variable is ν: position limits become the tanh-shaped
//    velocity bounds of DYN Eq. 12–13 (shapedVelocityBounds), rows the same on the row value;
//  - displacement bounds for the per-frame solvers, whose QP variable is the chart step δ of
//    InstantaneousIkProblem: s_min − s ≤ δ_s ≤ s_max − s, lower − a·s ≤ a·δ_s ≤ upper − a·s.
// Built once from a Model (they copy what they need); the bound functions do not allocate.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::ik {

/// Parameters of the tanh shaping of DYN Eq. 12–13.
struct LimitShaping {
  /// Slope k (1/rad): the allowed velocity towards a limit starts to shrink about 2/k from it.
  double gain = 20.0;
  /// Velocity bound V (rad/s or m/s) of the shaping where the model gives none.
  double default_velocity = 20.0;
  /// Also bound each step so that a coordinate inside its limit cannot cross it within Δt,
  /// ṡ ≤ (s_max − s)/Δt; past a limit, the push back is capped at what lands on the limit.
  bool discrete_safe = true;
};

/// DYN Eq. 12 for one coordinate at `value` with limits [lower, upper] (±infinity for none):
/// the velocity bounds (lo, hi) = (−V tanh(k(s − s_min)), V tanh(k(s_max − s))), V = `vmax`
/// when finite, else shaping.default_velocity; a side without a limit is bounded by ±vmax.
/// Past a limit the tanh changes sign and pushes back in. Δt > 0 (s) serves the discrete guard.
std::pair<double, double> shapedVelocityBounds(double value, double lower, double upper, double vmax,
                                               const LimitShaping& shaping, double dt);

/// The model's joint position and velocity limits.
class JointLimits {
 public:
  explicit JointLimits(const Model& model);
  [[nodiscard]] int size() const { return static_cast<int>(lower_.size()); }
  /// DYN: bounds lb ≤ ṡ ≤ ub (n, rad/s or m/s) at joint values s (n) by Eq. 12. With
  /// `hard_velocity` the model's velocity limits are the amplitude V (and bound unlimited
  /// sides); else only the shaping's default V acts.
  void velocityBounds(const VectorXd& s, double dt, const LimitShaping& shaping, bool hard_velocity,
                      Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const;
  /// Per-frame solvers: bounds on the step δ_s (n) from s: s_min − s ≤ δ_s ≤ s_max − s
  /// (±infinity stays infinite).
  void displacementBounds(const VectorXd& s, Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const;
  /// Largest position-limit violation of s (0 when inside; rad or m).
  [[nodiscard]] double violation(const VectorXd& s) const;
  /// The model's position limits s_min, s_max (n, rad or m; ±infinity for none) and velocity
  /// limits (n, rad/s or m/s; the model's upper velocity limits, infinity for none).
  [[nodiscard]] const VectorXd& lower() const { return lower_; }
  [[nodiscard]] const VectorXd& upper() const { return upper_; }
  [[nodiscard]] const VectorXd& velocity() const { return velocity_; }

 private:
  VectorXd lower_, upper_, velocity_;
};

/// The model's linear rows lower ≤ a·s ≤ upper (Model::linearConstraints).
class RowLimits {
 public:
  explicit RowLimits(const Model& model);
  [[nodiscard]] int size() const { return static_cast<int>(rows_.size()); }
  [[nodiscard]] bool empty() const { return rows_.empty(); }
  /// The constant row matrix over the whole velocity / chart vector (m × nv): base columns
  /// zero, joint columns a.
  [[nodiscard]] const MatrixXd& matrix() const { return A_; }
  /// DYN Eq. 13: bounds lbA ≤ a·ṡ ≤ ubA (m) shaped on the row values a·s with each row's velocity
  /// bound b_ν (the shaping's default V where infinite); a side without a limit is unbounded.
  void velocityBounds(const VectorXd& s, double dt, const LimitShaping& shaping, Eigen::Ref<VectorXd> lbA,
                      Eigen::Ref<VectorXd> ubA) const;
  /// Per-frame solvers: lower − a·s ≤ a·δ_s ≤ upper − a·s (m).
  void displacementBounds(const VectorXd& s, Eigen::Ref<VectorXd> lbA, Eigen::Ref<VectorXd> ubA) const;
  /// Largest row violation of s (0 when every row holds).
  [[nodiscard]] double violation(const VectorXd& s) const;
  /// The rows (ranges lower, upper and velocity bounds), in the order of matrix().
  [[nodiscard]] const std::vector<LinearConstraint>& rows() const { return rows_; }

 private:
  std::vector<LinearConstraint> rows_;
  MatrixXd A_;
};

/// Bounds on the floating base's velocity ν_B = (v; ω), per component (‖·‖∞); infinity = free.
struct BaseVelocityLimit {
  double linear = std::numeric_limits<double>::infinity();   ///< m/s
  double angular = std::numeric_limits<double>::infinity();  ///< rad/s
  /// Writes the first nb (0 or 6) entries of lb, ub.
  void bounds(int nb, Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const;
};

/// Position bounds per coordinate, set joint by joint: a coordinate is free (±infinity, the
/// default: OpenSim enforces a range only on a clamped coordinate), clamped to the model's range
/// or to a given interval, or locked at a value (lower = upper). The per-frame solver's step
/// bounds, the projection of a start into the bounds and the violation figure come from here.
/// Setting bounds validates them (messages name the joint and `owner`); the per-frame functions
/// do not allocate.
class CoordinateBounds {
 public:
  /// Every joint of `model` free. Throws InvalidArgument for a null model.
  explicit CoordinateBounds(std::shared_ptr<const Model> model, std::string owner = "IK");

  [[nodiscard]] int size() const { return static_cast<int>(lower_.size()); }
  [[nodiscard]] const Model& model() const { return *model_; }

  // --- setting (by joint name: an unknown one throws InvalidArgument listing the joints) ------------
  void free(std::string_view joint);
  /// The model's position limits of the joint (a side without one stays free).
  void clamp(std::string_view joint);
  /// [lower, upper] (±infinity for no bound). Throws InvalidArgument unless lower ≤ upper, neither
  /// is NaN, lower < +infinity and upper > −infinity.
  void clamp(std::string_view joint, double lower, double upper);
  /// lower = upper = value. Throws InvalidArgument for a non-finite value.
  void lock(std::string_view joint, double value);
  void freeAll();
  /// Every joint clamped to the model's position limits.
  void clampAll();
  /// Every joint at once (numJoints entries each, checked as clamp).
  void set(const VectorXd& lower, const VectorXd& upper);

  // --- reading -------------------------------------------------------------------------------------
  [[nodiscard]] const VectorXd& lower() const { return lower_; }
  [[nodiscard]] const VectorXd& upper() const { return upper_; }
  [[nodiscard]] bool locked(JointId j) const { return lower_[j.value] == upper_[j.value]; }
  [[nodiscard]] bool isFree(JointId j) const;
  /// Changes whenever a bound changes.
  [[nodiscard]] std::uint64_t revision() const { return revision_; }

  // --- per frame (no allocation) -------------------------------------------------------------------
  /// Moves s (numJoints) into the bounds (a locked joint to its value).
  void project(VectorXd& s) const;
  /// Bounds on the step δ_s from s: lower − s ≤ δ_s ≤ upper − s (±infinity stays infinite).
  void displacementBounds(const VectorXd& s, Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub) const;
  /// Largest bound violation of s (0 when inside; rad or m).
  [[nodiscard]] double violation(const VectorXd& s) const;

 private:
  void setOne(int j, double lower, double upper, std::string_view where);
  std::shared_ptr<const Model> model_;
  std::string owner_;
  VectorXd lower_, upper_;
  std::uint64_t revision_ = 0;
};

}  // namespace kinetrack::ik
