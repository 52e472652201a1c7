#pragma once
// Muscle forces that realise given generalised forces τ at one frame (docs/muscles.md):
//
//   τ_j = Σ_i r_ji F_i x_i + Σ_k o_k x_k      for every coordinate j that is not locked
//
// with r = −∂l/∂q the moment arms (MusclePaths), x the variables and F their force per unit:
// - Method::StaticOptimization (OpenSim's): x = activations a ∈ [min_control, max_control],
//   F_i = F_max·f_L(l̃)·f_V(ṽ)·cos α (Thelen 2003, inextensible tendon, with
//   `use_muscle_physiology`; F_max alone without), minimise Σ x² (muscles and actuators).
// - Method::QP (Nakamura Eq. 13): x = muscle forces f ∈ [0, F_max] (F = 1), minimise Σ f².
// - Method::LP (Eq. 13): the same constraints, minimise Σ f (GLPK simplex).
// Coordinate actuators (reserves, from the model or a force-set file) enter with their
// optimal force o_k and control bounds (x² in the QPs, |x|·o_k in the LP). When no x within the
// bounds satisfies the equations, the frame is infeasible: x is the closest (least ℓ1 violation
// for the QPs; for the LP the cheapest point with elastic rows costing 1e6 per unit) and the
// residual τ − (what x produces) is reported;
// nothing is ever NaN. solve() does not allocate for the QP methods (tested); the LP reuses its
// GLPK problem, but GLPK allocates inside its simplex.
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/muscles/muscle_paths.hpp"

namespace kinetrack::muscles {

enum class Method : std::uint8_t { StaticOptimization, QP, LP };
const char* toString(Method m);

/// Thelen 2003 curves as OpenSim's Thelen2003Muscle defines them (normalised fibre length l̃ =
/// l/l_opt, velocity ṽ = v/(v_max l_opt), lengthening > 0).
double thelenActiveForceLength(const io::OpenSimMuscle& m, double normalized_length);
/// Force-velocity multiplier at full activation (Thelen 2003 Eq. 6 solved for the force).
double thelenForceVelocity(const io::OpenSimMuscle& m, double normalized_velocity);

/// Fibre state with a rigid tendon at muscle-tendon length l (m) and speed v (m/s).
struct FiberState {
  double length = 0.0, velocity = 0.0;  ///< fibre (m, m/s)
  double cos_pennation = 1.0;
  double force_length = 0.0, force_velocity = 1.0;
  double unit_force = 0.0;  ///< F_max·f_L·f_V·cos α: the tendon force at activation 1
};
FiberState rigidTendonFiber(const io::OpenSimMuscle& m, double mt_length, double mt_speed);

struct MuscleForceOptions {
  Method method = Method::StaticOptimization;
  bool use_muscle_physiology = true;  ///< StaticOptimization only
  /// Actuators added to (or, with `replace_actuators`, replacing) the model's own.
  std::vector<io::OpenSimCoordinateActuator> actuators;
  bool replace_actuators = false;
  bool use_model_actuators = true;
  /// Start each frame from the previous frame's active set (QP) or simplex basis (LP). false:
  /// every frame is solved from the same start, so its result does not depend on which frames
  /// the solver saw before (solveMuscleTrial: any split of a trial across threads gives
  /// byte-identical results).
  bool warm_start = true;
};

/// Result of one frame.
struct FrameForces {
  bool feasible = true;
  VectorXd control;   ///< (n_muscles + n_actuators): activations / forces, then actuator controls
  VectorXd force;     ///< (n_muscles + n_actuators): N (actuators: N or N m)
  VectorXd residual;  ///< (nv): τ − what the forces produce (0 on locked coordinates)
  double max_residual = 0.0;
};

class MuscleForceSolver {
 public:
  /// Throws ParseError for an actuator on an unknown coordinate (naming its file and line) and
  /// InvalidArgument for a model whose muscles use their path coordinates nowhere.
  MuscleForceSolver(std::shared_ptr<const MusclePaths> paths, MuscleForceOptions options);
  ~MuscleForceSolver();
  MuscleForceSolver(MuscleForceSolver&&) noexcept;

  [[nodiscard]] const MusclePaths& paths() const { return *paths_; }
  [[nodiscard]] int numMuscles() const { return paths_->numMuscles(); }
  [[nodiscard]] const std::vector<io::OpenSimCoordinateActuator>& actuators() const { return actuators_; }
  /// Column names: muscles then actuators.
  [[nodiscard]] std::vector<std::string> names() const;

  /// Forces at configuration q, coordinate speeds v (nv) and generalised forces tau (nv, e.g.
  /// inverse dynamics) into `out` (sized on first use). Non-finite inputs throw InvalidArgument.
  void solve(const Configuration& q, const VectorXd& v, const VectorXd& tau, MusclePathData& data, FrameForces& out);

 private:
  struct Impl;
  std::shared_ptr<const MusclePaths> paths_;
  MuscleForceOptions options_;
  std::vector<io::OpenSimCoordinateActuator> actuators_;
  std::vector<int> actuator_dof_;
  std::vector<int> rows_;  ///< constrained dofs
  std::unique_ptr<Impl> impl_;
};

/// Frees the LP solver's (GLPK's) per-thread environment. A thread of your own that ran
/// MuscleForceSolvers calls it once their last one is destroyed, before the thread ends; without
/// it each such thread leaves ~47 KB behind (LeakSanitizer reports it). The solver objects are
/// tied to the thread that made them: build, use and destroy them on one thread.
void releaseThreadSolverMemory();

}  // namespace kinetrack::muscles
