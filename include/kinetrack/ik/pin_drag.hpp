#pragma once
// NAK — pin-and-drag whole-body IK (SPEC §5; Nakamura seed, Eq. 6–12).
//
// Every update at the current configuration q:
//  1. the drag links' stacked Jacobian J_P and the joint velocity θ̇₀ = J_P^# ṙ_P^ref of Eq. 6–7,
//     with J_P^# the weighted pseudo-inverse M J_Pᵀ(J_P M J_Pᵀ + k_P I)⁻¹ (M = diag of joint
//     mobilities, the inverse of the paper's weights) and W = E − J_P^# J_P;
//  2. the constraints' desired velocities ṗ_aux^d: pinned links by Eq. 8, ṙ_F^d = K_F(r_F^ref − r_F)
//     (and K_F·log(R_ref R_Fᵀ) for a pinned orientation), and joint-range return velocities
//     K_L(clamp(s) − s) for joints out of their (margin-shrunk) motion range;
//  3. J_aux, the Jacobian of those constraints (Eq. 9);
//  4. S = J_aux W and Δṗ_aux = ṗ_aux^d − J_aux θ̇₀ (Eq. 10–11), y = S^* Δṗ_aux with the
//     singularity-robust inverse S^* = M Sᵀ(S M Sᵀ + k I)⁻¹ (Eq. 12), θ̇ = θ̇₀ + W y (Eq. 7).
// Desired joint values enter last, in what the pins leave free: y += (E − S^*S) M K_D(s_d − s).
//
// Singularity rule (Nakamura–Hanafusa, stated once for both inverses): w is a lower bound of the
// smallest singular value of the (mobility-weighted) S, w = 1/sqrt(trace(A⁻¹)) with A = S M Sᵀ
// (from its LDLᵀ factor); k = k0 (1 − w/w0)² when w < w0, else k = 0. The paper's
// manipulability sqrt(det A) is not used because rows join and leave (limits, role switches) and
// a determinant's scale changes with the row count; the bound does not.
//
// Hard guarantees after the solve: a joint whose step would cross its position limit is locked
// (mobility 0, velocity that lands it on the limit) and the solve repeated; then ν is scaled
// uniformly so that no joint (or base component) exceeds its velocity limit. Joint limits are the
// model's; velocity limits are the model's where finite, else PinDragOptions::max_joint_velocity.
//
// The model's linear rows lower ≤ a·s ≤ upper (the iCub's coupled shoulder and forearm rows,
// URDF mimic equalities) are hard limits the same way: a row whose step would leave its range
// (or that is outside and not returning at K_L·(bound − a·s)) becomes active, a·ν = b with b the
// velocity that lands it on the bound (or the return velocity), and the solve is repeated in the
// rows' null space: the diagonal mobility M is replaced by M' = M − M Aᵀ(A M Aᵀ)⁻¹A M (A the
// active rows) and ν by ν_p + ν' with the particular ν_p = M Aᵀ(A M Aᵀ)⁻¹ b, so the drag, the pins
// and the posture term all act within what the coupling allows. The uniform velocity scale keeps a
// row inside (its range is convex).
//
// Pins and drags are frame tasks (ik/tasks.hpp), one TaskSet each: pins() and drags(). A task's
// value is the reference r_F^ref (pins) or the target (drags), the velocity given with it the
// feed-forward, TaskGain::gain the gain K_F or K_P (1/s); a component of weight 0 is left out, other
// weights are not read (the drags' rows are met by the pseudo-inverse, the pins' by the SR-inverse
// in its null space: priority, not weighting). A component whose value was never set is taken at the
// frame's current placement on the next update ("pin where it is"). pin(), drag(), release() and
// role() are thin layers over the two sets. Limits are the library's (ik/limits.hpp): JointLimits,
// RowLimits and a BaseVelocityLimit from the options.
//
// The Model is immutable and shared; a PinDragIk holds all per-thread state. update() does not
// allocate unless the tasks' structure changed since the last update (a task added, removed,
// enabled or disabled, a weight becoming or ceasing to be zero: the workspace is re-sized then).
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <Eigen/Cholesky>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/ik/status.hpp"
#include "kinetrack/ik/target.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::ik {

/// The role of a frame in the pin-and-drag IK.
enum class PinDragRole : std::uint8_t { Free, Pinned, Dragged };

struct PinDragOptions {
  /// Drag feedback gain K_P (1/s) of drag() when none is given: ṙ_P^ref = v_target + K_P (r_target − r_P).
  /// Stable for K_P·Δt < 2.
  double drag_gain = 20.0;
  /// Pin feedback gain K_F of Eq. 8 (1/s, scalar times identity) of pin() when none is given.
  double pin_gain = 50.0;
  /// Joint-range return gain K_L (1/s): desired velocity K_L (clamp(s) − s) for joints outside
  /// their motion range shrunk by limit_margin.
  double limit_return_gain = 10.0;
  /// Margin (rad or m) inside each finite position limit where the return velocity starts.
  double limit_margin = 0.02;
  /// Desired joint values gain K_D (1/s); 0 disables the desired-joint-values term.
  double posture_gain = 0.0;
  /// SR-inverse: largest damping k0 (units of the rows squared: m² for position rows).
  double sr_max_damping = 1e-3;
  /// SR-inverse: threshold w0 of the singular-value estimate below which k is raised.
  double sr_threshold = 0.05;
  /// Velocity limit (rad/s or m/s) of joints whose model velocity limit is not finite.
  double max_joint_velocity = 5.0;
  /// Velocity limits of the floating base (m/s, rad/s per component): the solver's
  /// BaseVelocityLimit.
  double max_base_linear_velocity = 2.0;
  double max_base_angular_velocity = 5.0;
  /// Mobility of the six floating-base columns (0 fixes the base in place; 1 = like a joint). Low
  /// by default: a drag then bends the body rather than carrying the pelvis (and straightening
  /// the legs of pinned feet).
  double base_mobility = 0.05;
  /// How often the solve is repeated after locking joints that would cross a limit (plus one pass
  /// per model row).
  int max_lock_passes = 3;
};

/// Outcome of one update. The ik::Result fields:
///  - status: Converged when the step was taken as solved; IterationLimit when the lock passes ran
///    out with a joint still crossing its limit (it was clipped onto the limit instead of locked and
///    re-solved) or a model row still leaving its range; Failed when ν was not finite (it was set to
///    zero: the state is held). Infeasible and Stationary are not reported: the SR-inverse always
///    gives a step, and how far the targets are missed is in pin_*_error and drag_error.
///  - iterations: solves (lock passes) of this update, ≥ 1;
///  - mnte: MNTE (DYN Eq. 15) over the orientation components of the pins and drags after the step
///    (0 without any);
///  - limit_violation, row_violation: the largest joint-limit and model-row violation after the step
///    (rad or m; 0 when every limit and row holds).
struct PinDragResult : Result {
  /// Largest pinned-position error ‖r_ref − r‖ (m) and orientation error ‖log(R_ref Rᵀ)‖ (rad),
  /// measured after the step (0 without pins).
  double pin_position_error = 0.0;
  double pin_orientation_error = 0.0;
  /// Largest drag error (m, position rows; rad for orientation-only drags), after the step.
  double drag_error = 0.0;
  /// Damping used by the drag inverse (k_P) and by the SR-inverse of S (k); 0 away from singularity.
  double drag_damping = 0.0;
  double sr_damping = 0.0;
  /// Uniform scale applied to ν for the velocity limits (1 when none was hit).
  double velocity_scale = 1.0;
  /// Joints locked at a position limit this update.
  int locked_joints = 0;
  /// Rows of S (pins and joint-range returns).
  int aux_rows = 0;
  /// Model rows (coupling, mimic) active this update.
  int active_rows = 0;
};

/// Pin-and-drag IK over one Model. Roles are per frame: any frame (link or fixed frame) can be
/// pinned, dragged or released between updates, and any number may be pinned or dragged.
class PinDragIk {
 public:
  /// Copies `model` (or shares it). Throws InvalidArgument for a negative gain, damping, threshold
  /// or velocity limit, a mobility outside [0, ∞), or a null model.
  explicit PinDragIk(const Model& model, const PinDragOptions& options = {});
  explicit PinDragIk(std::shared_ptr<const Model> model, const PinDragOptions& options = {});

  [[nodiscard]] const Model& model() const { return *model_; }
  [[nodiscard]] const std::shared_ptr<const Model>& sharedModel() const { return model_; }
  [[nodiscard]] const PinDragOptions& options() const { return options_; }

  /// Sets the configuration (joint count must match; finite). Pins keep their references.
  void setState(const Configuration& q);
  [[nodiscard]] const Configuration& state() const { return q_; }
  /// Velocity ν (nv) of the last update (rad/s, m/s; base (ṗ_B, ω_B) world frame first).
  [[nodiscard]] const VectorXd& velocity() const { return nu_; }
  /// The velocity limits update() enforces (nv): the base's from baseVelocityLimit(), the joints'
  /// the model's finite limits (JointLimits::velocity), else options().max_joint_velocity.
  [[nodiscard]] const VectorXd& velocityLimits() const { return vmax_; }

  // --- tasks -------------------------------------------------------------------------------------
  /// The pins (Eq. 8): frame tasks on any model frame; the value set is the reference r_F^ref
  /// (p_WF in m, R_WF), the velocity given with it a feed-forward added to ṙ_F^d, TaskGain::gain
  /// K_F (1/s). Any number; added, removed, enabled between updates.
  [[nodiscard]] TaskSet& pins() { return pins_; }
  [[nodiscard]] const TaskSet& pins() const { return pins_; }
  /// The drags (Eq. 6): the value set is the target r_target, the velocity given with it the
  /// feed-forward v_target (m/s, rad/s), TaskGain::gain K_P (1/s).
  [[nodiscard]] TaskSet& drags() { return drags_; }
  [[nodiscard]] const TaskSet& drags() const { return drags_; }

  // --- convenience over pins() and drags() ---------------------------------------------------------
  /// Pins frame f at its current placement with gain K_F (1/s, ≥ 0; none: options().pin_gain),
  /// after releasing it. Returns the pin's task in pins(). Throws InvalidArgument for a negative or
  /// non-finite gain or an unknown frame.
  TargetId pin(FrameId f, TargetType type = TargetType::Position, std::optional<double> gain = std::nullopt);
  TargetId pin(std::string_view frame, TargetType type = TargetType::Position,
               std::optional<double> gain = std::nullopt);
  /// Pins frame f at the world position p_W (m) and orientation R_W (projected onto SO(3); used for
  /// the types with it).
  TargetId pinAt(FrameId f, const Vector3d& p_W, const Matrix3d& R_W, TargetType type = TargetType::Position,
                 std::optional<double> gain = std::nullopt);
  /// Makes f a drag link, after releasing it; its target starts at its current placement with zero
  /// feed-forward (gain K_P in 1/s, ≥ 0; none: options().drag_gain). Returns the task in drags().
  TargetId drag(FrameId f, TargetType type = TargetType::Position, std::optional<double> gain = std::nullopt);
  TargetId drag(std::string_view frame, TargetType type = TargetType::Position,
                std::optional<double> gain = std::nullopt);
  /// Moves the target of f's (latest) position or pose drag: position p_W (m), feed-forward
  /// velocity v_W (m/s). Throws InvalidArgument when f has no such drag or a value is not finite.
  void setDragTarget(FrameId f, const Vector3d& p_W, const Vector3d& v_W = Vector3d::Zero());
  /// Target orientation R_W (projected onto SO(3)) of f's orientation or pose drag, angular
  /// velocity ω_W (rad/s).
  void setDragOrientation(FrameId f, const Matrix3d& R_W, const Vector3d& w_W = Vector3d::Zero());
  /// Removes every pin and drag task on f (no-op when free).
  void release(FrameId f);
  /// Removes every pin and drag task.
  void releaseAll();
  /// Pinned when f has a live, enabled pin task; else Dragged when it has such a drag task; else Free.
  [[nodiscard]] PinDragRole role(FrameId f) const;

  // --- limits (ik/limits.hpp) ------------------------------------------------------------------
  [[nodiscard]] const JointLimits& jointLimits() const { return joint_limits_; }
  [[nodiscard]] const RowLimits& rowLimits() const { return row_limits_; }
  [[nodiscard]] const BaseVelocityLimit& baseVelocityLimit() const { return base_limit_; }

  /// Desired joint values s_d (numJoints, rad or m) of the posture term; default: zeros.
  void setDesiredJoints(const Eigen::Ref<const VectorXd>& s_d);
  /// Joint mobilities (numJoints, ≥ 0; 0 freezes a joint); the weighted pseudo-inverse's weights
  /// are their inverses. Default: ones.
  void setJointMobility(const Eigen::Ref<const VectorXd>& mobility);

  /// One step of Eq. 6–12 over dt (s, > 0): computes ν at the current state and integrates it.
  /// Does not allocate (unless the tasks' structure changed). Throws InvalidArgument for dt ≤ 0 or
  /// not finite.
  PinDragResult update(double dt);

 private:
  /// One task of pins() or drags() in the solve: its id and which components give rows.
  struct Active {
    TargetId task;
    bool position = false, orientation = false;
  };
  void checkFrame(FrameId f) const;
  [[nodiscard]] TargetId findDrag(FrameId f, bool position) const;
  void syncTasks();  ///< the active lists and workspace, when the TaskSets' revisions changed
  void collect(const TaskSet& set, std::vector<Active>& list, int& rows) const;
  void fillUnsetValues();  ///< components never given a value: the current placement (FK current)
  void reserveWorkspace();
  void stackTasks();
  void solve(double dt, PinDragResult& result);
  void prepareMobility();                   ///< M (diagonal, or M' in the active rows' null space) and fixed_
  int activateRows(double dt, bool apply);  ///< rows whose step leaves their range (activated when apply)
  [[nodiscard]] double dampingFor(double w) const;

  std::shared_ptr<const Model> model_;
  PinDragOptions options_;
  Data data_;
  Configuration q_;
  VectorXd nu_;
  TaskSet pins_, drags_;
  JointLimits joint_limits_;
  RowLimits row_limits_;
  BaseVelocityLimit base_limit_;
  // The tasks in the solve (rebuilt when a TaskSet's revisions change), in id order.
  std::vector<Active> active_pins_, active_drags_;
  std::uint64_t pin_structure_ = ~0ull, pin_weights_ = ~0ull, drag_structure_ = ~0ull, drag_weights_ = ~0ull;
  VectorXd vmax_;                      // velocity limits (nv)
  VectorXd mobility_, base_mobility_;  // user mobilities (nj), effective (nv)
  VectorXd desired_;                   // s_d (nj)
  VectorXd m_;                         // effective mobility of this pass (nv)
  VectorXd fixed_;                     // fixed velocity of locked coordinates (nv)
  // Workspace (sized on structure changes): drag rows (np), aux rows (na ≤ pins + nj).
  Matrix6Xd Jframe_;
  MatrixXd JP_, PM_, XP_, JPinv_, AP_;  // drag: J_P (np×nv), J_P M, A_P⁻¹ J_P M, J_P^#, A_P
  MatrixXd Jaux_, S_, MSt_, AS_, C_;    // aux: J_aux, S (na×nv), M Sᵀ, S M Sᵀ + kI, J_aux J_P^#
  VectorXd rP_, vP_, xP_, daux_, vS_, xS_, y_, z_, w_;
  MatrixXd invP_, invS_;  // inverses for the singular-value bound
  Eigen::LDLT<MatrixXd> ldltP_, ldltS_;
  int aux_rows_ = 0;
  int np_ = 0, npin_ = 0;
  // The model's linear rows (nr, row_limits_): the active rows' matrix, target velocities b, the
  // dense mobility M' when rows are active, and its workspace.
  MatrixXd rowAct_, AD_, G_, XG_, Mfull_;
  VectorXd rowVal_, rowB_, rr_, xr_, fixedJ_, zt_;
  Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1> active_;
  Eigen::LDLT<MatrixXd> ldltG_;
  bool dense_ = false;
};

}  // namespace kinetrack::ik
