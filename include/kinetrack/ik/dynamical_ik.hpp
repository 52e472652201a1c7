#pragma once
// DYN — dynamical inverse kinematics (SPEC §2; DYN paper §3, Eq. 5–14).
//
// Every step: residuals r in the world frame at the previous state, corrected velocities
// v* = v + K r (Eq. 9), the constrained least-squares QP (Eq. 10) with tanh-shaped joint-limit
// bounds (Eq. 12) and linear coupled rows (Eq. 13), then integration of ν over Δt with a
// Baumgarte-stabilised base orientation (Eq. 14). One QP per frame: constant cost, no iterations.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/collision.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/ik/status.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/qp/qp.hpp"
#include "kinetrack/qp/tree_box_qp.hpp"

namespace kinetrack {

/// How the base orientation is integrated (§3.3).
enum class BaseIntegrator : std::uint8_t {
  /// R ← exp(sk(ω Δt))·R, then the Baumgarte term Δt·ρ/2·R((RᵀR)⁻¹ − I) removes round-off drift
  /// (default: exact on SO(3) and self-correcting).
  ExponentialBaumgarte,
  /// R ← exp(sk(ω Δt))·R only.
  Exponential,
  /// The paper's Eq. 14 with explicit Euler: R ← R + Δt (sk(ω) R + ρ/2 R((RᵀR)⁻¹ − I)).
  EulerBaumgarte,
};

/// Where target velocities come from when a setTarget call gives none.
enum class TargetVelocitySource : std::uint8_t {
  Zero,              ///< v = 0 (pure position/orientation tracking)
  FiniteDifference,  ///< backward difference of the target stream (SO(3) log for rotations)
};

/// How Eq. 9 is discretised.
enum class Discretization : std::uint8_t {
  /// v* = v(t_k) + K r(q_{k−1}, x(t_k)), literally. The residual already contains the target's
  /// motion over the step and the feed-forward adds it again, so a target moving at speed v is
  /// tracked with a steady lead of Δt·v (e.g. 0.6° at 1 rad/s and 100 Hz) for any K > 0.
  Paper,
  /// v* = (1 − KΔt)·v̄ + K r(q_{k−1}, x(t_k)) with v̄ the mean target velocity over the step
  /// ((v(t_{k−1}) + v(t_k))/2 when both are given; the chord for finite differences). Same
  /// stability range 0 < KΔt < 2 and the same continuous-time limit; no lead; dead-beat at
  /// KΔt = 1 for linear tasks. Default.
  Consistent,
};

/// How per-target gains are read.
enum class GainMode : std::uint8_t {
  Continuous,  ///< K in 1/s, used as is at every Δt (stable when K·Δt < 2)
  PerStep,     ///< the gain is κ = K·Δt (dimensionless, 0 < κ < 2); K(t_k) = κ / Δt_k (Remark 2)
};

struct DynamicalIkOptions {
  double damping = 1e-9;  ///< λ in ½λ‖ν‖²: keeps the QP strictly convex when J is singular
  /// Slope k of the tanh limit shaping (Eq. 12–13), 1/rad: the allowed velocity towards a limit
  /// starts to shrink about 2/k from it.
  double limit_gain = 20.0;
  /// Velocity bound (rad/s or m/s) used in the shaping for joints (and linear rows) whose model
  /// has no finite velocity limit.
  double default_velocity_limit = 20.0;
  /// Also bound each step so that a joint (or linear row) inside its limit cannot cross it within
  /// Δt: ṡ ≤ (s_max − s)/Δt. Off reproduces the paper exactly (overshoot possible for large k·V·Δt).
  bool discrete_safe_limits = true;
  /// Use the model's joint velocity limits as hard bounds (off: only the shaping value above and
  /// the position limits act — the human-gazebo URDFs carry placeholder limits of 1 rad/s).
  bool use_model_velocity_limits = false;
  /// Optional base velocity bounds (‖·‖∞ per component); infinity = free base.
  double base_linear_velocity_limit = std::numeric_limits<double>::infinity();
  double base_angular_velocity_limit = std::numeric_limits<double>::infinity();
  BaseIntegrator integrator = BaseIntegrator::ExponentialBaumgarte;
  double baumgarte_gain = 10.0;  ///< ρ (1/s); clamped so that ρ·Δt ≤ 1
  TargetVelocitySource velocity_source = TargetVelocitySource::Zero;
  GainMode gain_mode = GainMode::Continuous;
  Discretization discretization = Discretization::Consistent;
  /// Evaluate the task Jacobians at the mid-step configuration q ⊕ ½Δt·ν_{k−1} (one extra FK)
  /// rather than at q_{k−1}: the step's frame displacement is then second-order accurate, which
  /// removes most of the steady tracking error of fast motions. Off = the paper's J(q_{k−1}).
  bool midpoint_jacobian = true;
  /// QP backend: when the model has no linear rows, the branch-sparse box solver
  /// (qp::TreeBoxSolver, O(Σ depth²) per factorisation) instead of the dense Goldfarb–Idnani one.
  /// With collision rows (and no linear rows of the model) the tree solver takes them too, by its
  /// row iterations (qp/tree_box_qp.hpp); when those do not settle, the dense solver solves the
  /// step (StepResult::dense_qp).
  bool sparse_qp = true;
  qp::Options qp;  ///< QP solver options
  /// Ground and self-collision rows (ik/collision.hpp): off by default (the QP is then exactly
  /// the one without them). They act once DynamicalIk::setCollisionProxies has given the proxies.
  ik::CollisionOptions collision;
  /// λ added to `damping` while collision rows are active in the QP. A row can ask for a motion the
  /// targets leave free or nearly free (a foot turning about its held sole, a joint no target
  /// moves); with λ = 1e-9 the QP's optimum then moves along that direction by tens of rad/s in
  /// one step and the linearisation breaks (measured on the G1 with its soles held: 72 rad/s at a
  /// row's first step, the held sole thrown 0.2 m). 1e-3 (per (rad/s)², against the targets'
  /// weight 1 per (rad/s)²) keeps such steps small and changes a tracked frame by ~0.1 %.
  double collision_damping = 1e-3;
};

/// Outcome of one step (status, QP steps = 1, limit and row violations at q_k: ik::Result).
/// Numerical trouble is reported here, never thrown. status: Converged when the QP was solved,
/// Infeasible / IterationLimit from the QP, Failed for non-finite data or a non-convex QP (ν = 0,
/// state held). Unlike the per-frame solvers, `mnte` is at q_{k−1}, where the step evaluates its
/// residuals (DynamicalIk::mnte() gives it at q_k).
struct StepResult : ik::Result {
  qp::Status qp_status = qp::Status::Optimal;
  int qp_iterations = 0;
  int active_bounds = 0;
  /// max of K·Δt over the enabled frame targets and the posture tasks pulling towards a pose
  double max_gain_dt = 0.0;
  bool unstable_gain = false;  ///< max_gain_dt ≥ 2: the discrete loop diverges (Remark 2)
  bool diverging = false;      ///< the residual grew for 3 consecutive steps with unstable_gain
  /// The QP data were not finite (a diverged state, e.g. after K·Δt ≥ 2): no QP was solved and
  /// ν was set to 0; the state is held.
  bool non_finite = false;
  double residual_norm = 0.0;  ///< ‖r‖ at q_{k−1} (before the step)
  /// Collision rows in this step's QP (ground + self-collision, those within their activation
  /// distance at q_{k−1}), and how many of them were at their bound in the solution.
  int collision_rows = 0;
  int collision_rows_active = 0;
  /// The dense QP solved the step with collision rows (the model has linear rows, sparse_qp is
  /// off, or the tree solver's row iterations did not settle).
  bool dense_qp = false;
  /// Collision figures at q_k (ik::CollisionViolation: depth below the ground, deepest
  /// penetration and its pair, rows the next step will have); all zero without collision limits.
  ik::CollisionViolation collision;
};

/// The DYN solver for one model. Built once; targets may be added, removed, enabled and
/// re-weighted between steps. step() does not allocate (adding a target does).
class DynamicalIk {
 public:
  /// Copies `model` (or shares it: docs/conventions.md, ownership).
  explicit DynamicalIk(const Model& model, DynamicalIkOptions options = {});
  explicit DynamicalIk(std::shared_ptr<const Model> model, DynamicalIkOptions options = {});
  ~DynamicalIk();
  DynamicalIk(DynamicalIk&&) noexcept;
  DynamicalIk& operator=(DynamicalIk&&) noexcept;

  [[nodiscard]] const Model& model() const;
  [[nodiscard]] const std::shared_ptr<const Model>& sharedModel() const;
  [[nodiscard]] const DynamicalIkOptions& options() const;
  /// Changing options between steps is allowed (the QP's sizes do not depend on them, except
  /// through the collision options: with proxies set, the collision limits are rebuilt).
  void setOptions(const DynamicalIkOptions& options);

  // --- targets ---------------------------------------------------------------------------------
  /// The targets (ik/tasks.hpp): positions, orientations and poses on model frames with weights
  /// W (the QP's, per component) and gains K in 1/s (or κ with GainMode::PerStep). Values and
  /// their velocities are set between steps; a value given without velocity uses
  /// options().velocity_source. Also posture tasks (ik::PostureTask): a secondary objective
  /// ½ Σ_j w_j (ν_j − v*_j)² over the joints, the joint velocity reference v* a pull towards a
  /// pose (K(ŝ − s)), a given velocity, or both; with w small against the targets' weights it acts
  /// where the targets leave freedom, e.g. a learned prior's gradient (prior::PriorPosture,
  /// docs/gpm.md). Other kinds are refused.
  [[nodiscard]] ik::TaskSet& tasks();
  [[nodiscard]] const ik::TaskSet& tasks() const;

  // --- state ---------------------------------------------------------------------------------
  /// Sets q (and clears ν); throws InvalidArgument on a wrong size or non-finite value.
  void setState(const Configuration& q);
  [[nodiscard]] const Configuration& state() const;
  /// ν of the last step (size nv).
  [[nodiscard]] const VectorXd& velocity() const;
  /// Kinematics data at the current state (valid after setState / step).
  [[nodiscard]] const Data& data() const;

  // --- collisions ------------------------------------------------------------------------------
  /// The collision proxies (capsules on links, model/collision_proxy.hpp) of the ground and
  /// self-collision rows that options().collision enables: builds the ik::CollisionLimits
  /// (pair filter, reference overlaps) and sizes the QP for their rows. An empty list removes
  /// them. Throws InvalidArgument as ik::CollisionLimits does (a proxy's link, size, the options).
  /// Allocates: call between steps, not in the loop.
  void setCollisionProxies(std::vector<CollisionProxy> proxies);
  /// The collision limits in use, or nullptr (no proxies, or options().collision disabled).
  [[nodiscard]] const ik::CollisionLimits* collisionLimits() const;

  /// One DYN step of Δt seconds (Δt > 0, finite; throws InvalidArgument otherwise).
  StepResult step(double dt);

  /// The QP of the last step (Eq. 10): H = Σ J_tᵀW_tJ_t + λI (+ Σ_p diag w_p, posture tasks;
  /// lower triangle), g = −Σ J_tᵀW_t v*_t (− Σ_p w_p∘v*_p),
  /// bounds and rows (the model's linear rows, then the collision rows when there are any). For
  /// inspection and tests.
  [[nodiscard]] const qp::Problem& lastProblem() const;

  /// MNTE of the orientation (and pose) targets at the current state.
  [[nodiscard]] double mnte() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack
