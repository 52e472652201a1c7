#pragma once
// Whole-body instantaneous IK — the per-frame optimisation baseline of DYN §5.1 (SPEC §3).
//
// Every frame: minimise F(q) = Σ_t w_t f_t(q, x_k) (SPEC §2.1 residuals, w = K_r²: ½‖r_p‖² for
// positions, 1 − cos θ — the MNTE term — for orientations by default; see
// instantaneous_ik_problem.hpp) subject to the joint position limits and the model's linear rows
// (A s ≤ b, DYN Eq. 11), starting from the previous frame's solution, until every target is
// within the pose-error tolerance or an iteration cap is reached.
//
// Native backend: projected Levenberg–Marquardt on the configuration manifold. Each iteration
// solves the bound- and row-constrained Gauss–Newton QP
//   min_δ gᵀδ + ½δᵀ(H + μI)δ   s.t.  s_min ≤ s + δ_s ≤ s_max,  lower ≤ a·(s + δ_s) ≤ upper
// (g = ∇F, H = Σ JᵀWJ with the exact residual Jacobians, assembled from subtree composites like
// DYN's Eq. 10 Hessian) with the QP solvers of DYN (qp::TreeBoxSolver when the model has no
// rows, else qp::Solver), applies q ⊕ δ (base rotation through exp) and adapts μ from the ratio
// of actual to predicted decrease (Nielsen's rule). Every iterate satisfies the limits and rows
// (a state set outside them is brought back by the first step).
//
// Ipopt backend: the same NLP through Ipopt; it lives in the kinetrack::ik_ipopt library (see
// kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp, makeInstantaneousIk) so that kinetrack::ik
// does not depend on Ipopt. It plugs in through InstantaneousIkExternalSolver.
#include <cstdint>
#include <memory>
#include <string_view>

#include "kinetrack/ik/instantaneous_ik_problem.hpp"
#include "kinetrack/ik/status.hpp"
#include "kinetrack/qp/qp.hpp"

namespace kinetrack {

enum class InstantaneousIkBackend : std::uint8_t {
  Native,  ///< Levenberg–Marquardt with kinetrack's QP solvers (this library)
  Ipopt,   ///< Ipopt (kinetrack::ik_ipopt; construct with makeInstantaneousIk)
};

/// Hessian used by the Ipopt backend.
enum class IpoptHessian : std::uint8_t {
  GaussNewton,    ///< Σ JᵀWJ (exact Jacobians; the residual-curvature term dropped)
  LimitedMemory,  ///< Ipopt's L-BFGS (hessian_approximation = limited-memory)
};

struct InstantaneousIkOptions {
  InstantaneousIkBackend backend = InstantaneousIkBackend::Native;
  /// Pose-error tolerances: the solve stops once every orientation target is within this angle
  /// (rad) and every position target within this distance (m). 1e-6 rad is an MNTE of 5e-13.
  double orientation_tolerance = 1e-6;
  double position_tolerance = 1e-6;
  /// The orientation term of F (see instantaneous_ik_problem.hpp).
  OrientationResidual orientation_residual = OrientationResidual::Chordal;
  /// Iterations (Native: QP solves, accepted or rejected; Ipopt: its iterations) per solve.
  int max_iterations = 50;
  /// Native: an accepted step with ‖δ‖∞ below this (rad or m) ends the solve (Stationary unless
  /// the tolerances hold), and so does a predicted decrease below function_tolerance·F.
  double step_tolerance = 1e-10;
  double function_tolerance = 1e-15;
  /// Limit and row violations accepted at a converged state (rad or m).
  double feasibility_tolerance = 1e-9;
  /// Levenberg–Marquardt damping μ of ½μ‖δ‖² (units of the weights): first value, floor and
  /// ceiling (reaching the ceiling is Failed). μ is divided by up to 3 after a good step and
  /// multiplied by 2, 4, 8, … after consecutive rejected ones (Nielsen).
  double initial_damping = 1e-3;
  double min_damping = 1e-9;
  double max_damping = 1e12;
  /// Start each solve from the previous solve's final μ (clamped to [min, initial]) rather than
  /// from initial_damping: consecutive frames are alike.
  bool keep_damping = true;
  /// Native: qp::TreeBoxSolver when the model has no linear rows (else the dense qp::Solver).
  bool sparse_qp = true;
  qp::Options qp;
  // --- Ipopt backend ---
  IpoptHessian ipopt_hessian = IpoptHessian::GaussNewton;
  /// Ipopt's own convergence tolerance (its scaled KKT error); ends Stationary solves.
  double ipopt_tolerance = 1e-10;
  /// Start Ipopt from the previous frame's multipliers (warm_start_init_point).
  bool ipopt_warm_start = true;
  int ipopt_print_level = 0;  ///< 0 = silent (the library never prints by default)
};

/// True when every target of an evaluation is within the options' pose-error tolerances.
inline bool withinTolerances(const PoseError& e, const InstantaneousIkOptions& o) {
  return e.max_orientation <= o.orientation_tolerance && e.max_position <= o.position_tolerance;
}

/// Outcome of one solve (ik::Result: status, iterations — Native: QP solves, accepted and
/// rejected; Ipopt: its iterations —, MNTE, limit and row violations at the returned state).
struct SolveResult : ik::Result {
  int rejected_steps = 0;              ///< Native: steps rejected by the decrease test
  int qp_iterations = 0;               ///< Native: active-set changes summed over the QPs
  int evaluations = 0;                 ///< residual evaluations (forward kinematics passes)
  double initial_cost = 0.0;           ///< F at the start (warm start)
  double cost = 0.0;                   ///< F at the returned state
  double max_orientation_error = 0.0;  ///< rad, at the returned state
  double max_position_error = 0.0;     ///< m
  double damping = 0.0;                ///< Native: final μ
};

/// A solver for the NLP from outside kinetrack::ik (the Ipopt backend). solve() starts at the
/// problem's centre (the previous state) and must leave its solution as the centre.
class InstantaneousIkExternalSolver {
 public:
  virtual ~InstantaneousIkExternalSolver() = default;
  virtual SolveResult solve(InstantaneousIkProblem& problem, const InstantaneousIkOptions& options) = 0;
  /// Forget warm-start information (called by setState).
  virtual void reset() {}
};

/// Whole-body instantaneous IK for one model, API parallel to DynamicalIk: built once; targets
/// may be added, removed, enabled and re-weighted between frames; solve() with the Native
/// backend does not allocate (adding a target does).
class InstantaneousIk {
 public:
  /// Throws InvalidArgument for invalid options, or for backend Ipopt (which needs the solver of
  /// kinetrack::ik_ipopt: use makeInstantaneousIk from kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp).
  explicit InstantaneousIk(const Model& model, InstantaneousIkOptions options = {});
  explicit InstantaneousIk(std::shared_ptr<const Model> model, InstantaneousIkOptions options = {});
  /// With an external solver for backend Ipopt (may be null for Native).
  InstantaneousIk(std::shared_ptr<const Model> model, InstantaneousIkOptions options,
                  std::unique_ptr<InstantaneousIkExternalSolver> external);
  ~InstantaneousIk();
  InstantaneousIk(InstantaneousIk&&) noexcept;
  InstantaneousIk& operator=(InstantaneousIk&&) noexcept;

  [[nodiscard]] const Model& model() const;
  [[nodiscard]] const std::shared_ptr<const Model>& sharedModel() const;
  [[nodiscard]] const InstantaneousIkOptions& options() const;
  /// Changing options between solves is allowed; throws InvalidArgument for invalid values or
  /// for backend Ipopt without an external solver.
  void setOptions(const InstantaneousIkOptions& options);

  // --- targets -------------------------------------------------------------------------------
  /// The targets (ik/tasks.hpp; static poses per frame: gains and velocities are not used).
  /// Weights w (the K_r² of SPEC §3) multiply the target's terms of F: ½‖r_p‖² (m²) and
  /// 1 − cos θ (or ½ sin²θ).
  [[nodiscard]] ik::TaskSet& tasks();
  [[nodiscard]] const ik::TaskSet& tasks() const;

  // --- state ---------------------------------------------------------------------------------
  /// Sets q (the warm start of the next solve); throws InvalidArgument on a wrong size or
  /// non-finite value. Resets the backend's warm-start memory (QP active sets, multipliers).
  void setState(const Configuration& q);
  [[nodiscard]] const Configuration& state() const;
  /// Kinematics data at the current state.
  [[nodiscard]] const Data& data() const;

  /// Solves the current frame from the current state; the state becomes the solution.
  SolveResult solve();

  /// MNTE of the orientation (and pose) targets at the current state and current targets (one
  /// forward-kinematics pass).
  [[nodiscard]] double mnte() const;

  /// The NLP (for inspection, tests and external solvers).
  [[nodiscard]] InstantaneousIkProblem& problem();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack
