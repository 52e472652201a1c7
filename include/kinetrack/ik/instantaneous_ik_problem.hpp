#pragma once
// The per-frame nonlinear least-squares problem of the whole-body instantaneous IK (SPEC §3,
// DYN §5.1), shared by its solvers (the native Levenberg–Marquardt of instantaneous_ik.hpp and
// the Ipopt backend of kinetrack/ik_ipopt):
//
//   minimise   F(q) = Σ_t ( ½ w_p,t ‖r_p,t(q)‖² + w_o,t f_o(θ_t(q)) )
//   subject to s_min ≤ s ≤ s_max,   lower ≤ a·s ≤ upper  (the model's linear rows, DYN Eq. 11)
//
// with the world-frame position residual of SPEC §2.1, r_p = p_t − h_p(q), θ_t the angle between
// target orientation R_t and frame orientation h_o(q), and the weight w = K_r² of the SPEC. The
// orientation term (OrientationResidual):
//   Chordal (default): f_o = 1 − cos θ = ½ tr(I − h_oᵀR_t) = ½‖(R_t − h_o)/√2‖²_F, the MNTE term
//     (Eq. 15). Its gradient is −J_ωᵀ r_o with SPEC's residual r_o = sk(R_t h_oᵀ)^∨ (= sin θ ·
//     axis), its Gauss–Newton Hessian J_ωᵀJ_ω: DYN's QP blocks.
//   Sine (SPEC §3 read literally): f_o = ½‖r_o‖² = ½ sin²θ. Identical to second order near θ = 0,
//     but θ = π is a local minimum (sin π = 0): a target flipped by more than π/2 from the warm
//     start can be "reached" upside down. Kept for comparison.
//
// q lives on R³ × SO(3) × Rⁿ; solvers work in the local chart around a centre configuration q̄:
//   x ∈ R^nv ↦ q(x) = (p̄ + x_p, exp(sk(x_ω))·R̄, s̄ + x_s),    x = (x_p, x_ω, x_s),
// in which the bounds and rows are linear: s_min − s̄ ≤ x_s ≤ s_max − s̄ and
// lower − a·s̄ ≤ a·x_s ≤ upper − a·s̄. A solver evaluates at x, asks for the Gauss–Newton model
// (gradient and H = JᵀWJ in chart coordinates) and finally moves the centre to its solution.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// The orientation term of the objective (see above).
enum class OrientationResidual : std::uint8_t {
  Chordal,  ///< w(1 − cos θ): smooth, single minimum at θ = 0 (default)
  Sine,     ///< ½w sin²θ = ½w‖sk(R_t hᵀ)^∨‖²: SPEC §3 literally; spurious minimum at θ = π
};

/// Residual summary at one configuration.
struct PoseError {
  double cost = 0.0;             ///< F
  double max_orientation = 0.0;  ///< largest angle (rad) between a target orientation and its frame
  double max_position = 0.0;     ///< largest distance (m) between a target position and its frame
  double mnte = 0.0;             ///< MNTE (DYN Eq. 15) of the orientation targets (0 when none)
  int orientation_targets = 0;   ///< orientation residuals counted (enabled, set, weight > 0)
  int position_targets = 0;      ///< position residuals counted
};

/// Targets, evaluation and derivatives of the whole-body NLP for one model. Storage is sized at
/// construction; evaluate(), gradient/derivatives() and recentre() do not allocate (adding a
/// target does).
class InstantaneousIkProblem {
 public:
  /// Copies `model` (or shares it: docs/conventions.md, ownership).
  explicit InstantaneousIkProblem(const Model& model, OrientationResidual residual = OrientationResidual::Chordal);
  explicit InstantaneousIkProblem(std::shared_ptr<const Model> model,
                                  OrientationResidual residual = OrientationResidual::Chordal);
  ~InstantaneousIkProblem();
  InstantaneousIkProblem(InstantaneousIkProblem&&) noexcept;
  InstantaneousIkProblem& operator=(InstantaneousIkProblem&&) noexcept;

  [[nodiscard]] const Model& model() const;
  [[nodiscard]] const std::shared_ptr<const Model>& sharedModel() const;
  [[nodiscard]] OrientationResidual orientationResidual() const;
  /// Switches the orientation term (re-evaluates the centre).
  void setOrientationResidual(OrientationResidual residual);
  [[nodiscard]] int numVariables() const;  ///< nv (chart dimension)
  [[nodiscard]] int numRows() const;       ///< linear rows m of the model

  // --- targets ---------------------------------------------------------------------------------
  /// The targets (ik/tasks.hpp): weights w_p, w_o multiply the target's terms of F (gains are
  /// not used). A target counts when it is enabled, has a value and a weight > 0.
  [[nodiscard]] ik::TaskSet& tasks();
  [[nodiscard]] const ik::TaskSet& tasks() const;

  // --- chart ------------------------------------------------------------------------------------
  /// Sets the centre q̄ and evaluates there (x = 0). Throws InvalidArgument on a wrong size or a
  /// non-finite configuration.
  void setCentre(const Configuration& q);
  [[nodiscard]] const Configuration& centre() const;
  /// Kinematics (forwardKinematics) at the centre.
  [[nodiscard]] const Data& centreData() const;
  /// Residual summary at the centre (as of the last setCentre / recentre / refreshCentre).
  [[nodiscard]] const PoseError& centreError() const;
  /// Re-evaluates the centre, e.g. after targets changed; returns its summary.
  const PoseError& refreshCentre();

  /// Evaluates at q(x) (x of size nv; not checked in release builds): forward kinematics,
  /// residuals, cost and pose errors.
  const PoseError& evaluate(const Eigen::Ref<const VectorXd>& x);
  /// q(x) of the last evaluate (or the centre after setCentre / recentre).
  [[nodiscard]] const Configuration& evaluated() const;
  [[nodiscard]] const PoseError& evaluatedError() const;
  /// Makes the last evaluated point the centre (no kinematics recomputed).
  void recentre();

  /// Gauss–Newton model at the last evaluated point, in chart coordinates: g = ∇ₓF (nv) and
  /// H = Σ_t Jₓᵀ W_t Jₓ (nv × nv, lower triangle) with the exact residual Jacobians (Sine:
  /// ∂r_o/∂ω = −½(tr(E)·I − Eᵀ) for E = R_t h_oᵀ). Only the entries of pattern() are written;
  /// the others must be zero already and are left untouched. Throws InvalidArgument on sizes.
  void derivatives(Eigen::Ref<MatrixXd> H, Eigen::Ref<VectorXd> g);
  /// The gradient alone (cheaper than derivatives()).
  void gradient(Eigen::Ref<VectorXd> g);

  /// Lower-triangle sparsity of H: (row, column) pairs, column ≤ row, row-major order. The base
  /// block is dense; joint row c holds the base columns and the joints supporting c's link.
  [[nodiscard]] const std::vector<std::pair<int, int>>& pattern() const;

  /// Bounds of x at the current centre: lb, ub (nv; ±infinity for the base and unlimited
  /// joints), and the row bounds lbA ≤ A x ≤ ubA (m). Sizes are checked.
  void chartBounds(Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub, Eigen::Ref<VectorXd> lbA,
                   Eigen::Ref<VectorXd> ubA) const;
  /// The constant row matrix A (m × nv) of the chart: base columns zero, joint columns a.
  [[nodiscard]] const MatrixXd& rowMatrix() const;

  /// Largest violation of the position limits and of the rows at the centre (0 when inside).
  [[nodiscard]] double limitViolation() const;
  [[nodiscard]] double rowViolation() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack
