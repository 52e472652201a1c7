#pragma once
// Marker-based inverse kinematics, the problem OpenSim's IK tool solves (SPEC §5, behaviour
// capture: "from any number of markers to joint data of any model"):
//
//   min_q  Σ_i w_i ‖m_i(q) − m̂_i‖²  +  Σ_c w_c (s_c − ŝ_c)²  [+ w_k Σ_k (s_dep − f_k(s_ind))²]
//   s.t.   lower ≤ s ≤ upper                        (clamped coordinates; locked: lower = upper)
//          s_dep = f_k(s_ind)                        (coupler constraints, when enforced exactly)
//
// m_i(q) is the world position of marker frame i, m̂_i its measurement (a missing marker, NaN,
// drops out of that frame's sum), ŝ_c a coordinate task's value. Couplers are OpenSim's
// CoordinateCouplerConstraint: exact equalities when MarkerIkOptions::constraint_weight is
// infinite (OpenSim's default), else the weighted penalty term in brackets.
//
// Solver: Gauss–Newton with Levenberg–Marquardt damping on the configuration manifold, each step
// a bound-constrained QP (qp::TreeBoxSolver on the Hessian's tree sparsity, or the dense
// qp::Solver when couplers connect joints of different branches). H = Σ JᵀWJ is assembled from
// per-link composite blocks as in DYN (no per-marker Jacobian is formed), so one iteration costs a
// forward-kinematics pass and O(Σ depth²). Warm-started frame to frame: the state after a solve
// is the next frame's start. solve() does not allocate.
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/ik/status.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/joint_function.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::ik {

struct MarkerIkOptions {
  /// Convergence (OpenSim's <accuracy>): a solve ends once an accepted step changes no
  /// coordinate by more than this (rad or m; base rotation in rad) ...
  double accuracy = 1e-5;
  /// ... or lowers the objective by less than this fraction of it. On a redundant model (a
  /// spine of spherical joints under a few trunk markers) ill-conditioned directions keep the
  /// steps above `accuracy` for many iterations that no longer change the fit: on human66 with
  /// Plug-in Gait markers 1e-6 takes the median iterations from 19 to 4 with the same marker RMS
  /// to 0.01 mm, and leaves the gait2354 agreement with OpenSim unchanged (0.036°).
  double relative_tolerance = 1e-6;
  /// Gauss–Newton iterations (accepted and rejected) of a warm-started solve.
  int max_iterations = 50;
  /// Iterations of the first solve after construction, setState or reset: it starts from a pose
  /// that may be far from the markers (OpenSim starts its first frame from the default pose too).
  int first_solve_iterations = 1000;
  /// Weight of the coupler constraints; +infinity enforces them exactly (OpenSim's
  /// constraint_weight, whose default is also infinity).
  double constraint_weight = std::numeric_limits<double>::infinity();
  /// Levenberg–Marquardt damping μ (added as μ·max(diag H)·I): first value and bounds. μ falls
  /// after a good step and grows after a rejected one (Nielsen's rule).
  double initial_damping = 1e-8;
  double min_damping = 1e-12;
  double max_damping = 1e8;
};

/// One frame's result. Marker errors are unweighted distances between model and measured
/// markers with a non-zero weight that are present in the frame (OpenSim's marker error report).
struct MarkerIkResult : Result {
  int rejected_steps = 0;
  double initial_cost = 0.0;         ///< objective at the warm start
  double cost = 0.0;                 ///< objective at the solution (marker, coordinate and penalty terms)
  int markers_used = 0;              ///< weighted markers present in the frame
  double total_squared_error = 0.0;  ///< Σ ‖m_i − m̂_i‖² (m²)
  double rms_error = 0.0;            ///< √(total_squared_error / markers_used) (m)
  double max_error = 0.0;            ///< m
  int worst_marker = -1;             ///< index (addMarker order) of the largest error, −1 if none
  double coupler_violation = 0.0;    ///< largest |s_dep − f(s_ind)| at the solution
};

class MarkerIk {
 public:
  /// Bounds default to none (OpenSim enforces a coordinate's range only when it is clamped:
  /// call setBounds with the clamped ranges, or with the model limits to keep every joint inside).
  explicit MarkerIk(std::shared_ptr<const Model> model, MarkerIkOptions options = {});
  ~MarkerIk();
  MarkerIk(MarkerIk&&) noexcept;
  MarkerIk& operator=(MarkerIk&&) noexcept;

  [[nodiscard]] const Model& model() const;
  [[nodiscard]] const MarkerIkOptions& options() const;
  /// Throws InvalidArgument for a non-positive accuracy or iteration count, or bad damping.
  void setOptions(const MarkerIkOptions& options);

  // --- problem (set-up: these allocate) ------------------------------------------------------
  /// A marker on model frame `frame` with weight w ≥ 0; returns its index (the order of the
  /// observations passed to solve). Throws InvalidArgument for an unknown frame (listing them)
  /// or a negative / non-finite weight.
  int addMarker(std::string_view frame, double weight = 1.0);
  /// A coordinate task pulling joint `joint` towards the value given per frame; returns its index.
  int addCoordinateTask(std::string_view joint, double weight = 1.0);
  /// s_dependent = f(s_independent). Throws InvalidArgument for unknown or equal joints.
  void addCoupler(std::string name, std::string_view dependent, std::string_view independent, ScalarFunction f);
  void setMarkerWeight(int marker, double weight);
  void setCoordinateTaskWeight(int task, double weight);
  /// Joint bounds (size numJoints, ±infinity for none, lower ≤ upper; lower = upper locks).
  void setBounds(const VectorXd& lower, const VectorXd& upper);
  /// Locks a joint at `value` (both bounds).
  void lock(std::string_view joint, double value);
  [[nodiscard]] const VectorXd& lowerBounds() const;
  [[nodiscard]] const VectorXd& upperBounds() const;
  [[nodiscard]] int numMarkers() const;
  [[nodiscard]] int numCoordinateTasks() const;
  [[nodiscard]] const std::string& markerName(int marker) const;

  // --- state ---------------------------------------------------------------------------------
  /// The warm start of the next solve (clamped into the bounds by the solve); the next solve is
  /// a first solve (first_solve_iterations). Throws InvalidArgument on a wrong size or NaN.
  void setState(const Configuration& q);
  [[nodiscard]] const Configuration& state() const;
  /// Kinematics at the state: every link, and data().frame of every marker's frame (updated
  /// after setState and after each solve; other frames are not).
  [[nodiscard]] const Data& data() const;

  // --- solving (no allocation) ---------------------------------------------------------------
  /// Solves one frame: `markers` holds one measured world position per marker (NaN components
  /// for a missing marker), `coordinates` one value per coordinate task (NaN: the task is off for
  /// this frame). Throws InvalidArgument on wrong sizes only.
  MarkerIkResult solve(std::span<const Vector3d> markers, std::span<const double> coordinates = {});

  /// Distance (m) of marker i between the model and its measurement at the state of the last
  /// solve; NaN when missing or weight 0.
  [[nodiscard]] double markerError(int marker) const;
  /// World position of marker i's model frame at the state.
  [[nodiscard]] Vector3d modelMarker(int marker) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack::ik
