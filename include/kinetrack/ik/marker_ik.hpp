#pragma once
// Marker-based inverse kinematics, the problem OpenSim's IK tool solves (SPEC §5, behaviour
// capture: "from any number of markers to joint data of any model"):
//
//   min_q  Σ_i w_i ‖m_i(q) − m̂_i‖²  +  Σ_o w_o ‖log(R̂_o R_o(q)ᵀ)‖²  +  Σ_c w_c (s_c − ŝ_c)²  [+ Σ_k w_k (s_dep −
//   f_k(s_ind))²]
//          + Σ_p Σ_j w_pj (s_j − ŝ_pj)²
//   s.t.   lower ≤ s ≤ upper                        (clamped coordinates; locked: lower = upper)
//          s_dep = f_k(s_ind)                        (coupler constraints, when enforced exactly)
//
// The problem is the solver's task and limit objects (mink's split): tasks() is an ik::TaskSet
// holding the marker tasks (m_i(q) the world position of marker frame i, m̂_i its measurement; a
// missing marker, NaN, drops out of that frame's sum), orientation targets (frame tasks of type
// Orientation: R_o(q) the world orientation of a model frame, R̂_o its measurement, e.g. an IMU's,
// the angle between them squared: OpenSim's OrientationsReference; a target disabled for a frame
// is a missing sample), coordinate tasks (ŝ_c per frame, NaN: off),
// coupler tasks (OpenSim's CoordinateCouplerConstraint: an exact equality with weight +infinity,
// OpenSim's default, else the weighted penalty in brackets) and posture tasks; bounds() is an
// ik::CoordinateBounds (OpenSim's clamped and locked coordinates).
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

#include "kinetrack/ik/limits.hpp"
#include "kinetrack/ik/status.hpp"
#include "kinetrack/ik/tasks.hpp"
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
  double initial_cost = 0.0;           ///< objective at the warm start
  double cost = 0.0;                   ///< objective at the solution (marker, coordinate and penalty terms)
  int markers_used = 0;                ///< weighted markers present in the frame
  double total_squared_error = 0.0;    ///< Σ ‖m_i − m̂_i‖² (m²)
  double rms_error = 0.0;              ///< √(total_squared_error / markers_used) (m)
  double max_error = 0.0;              ///< m
  int worst_marker = -1;               ///< marker task id of the largest error, −1 if none
  int orientations_used = 0;           ///< orientation targets with a weight and a value, enabled
  double orientation_rms_error = 0.0;  ///< √(Σ θ² / orientations_used), θ the angle of R̂ Rᵀ (rad)
  double orientation_max_error = 0.0;  ///< rad
  int worst_orientation = -1;          ///< target id of the largest angle, −1 if none
  double coupler_violation = 0.0;      ///< largest |s_dep − f(s_ind)| at the solution
};

class MarkerIk {
 public:
  /// No tasks; every coordinate free (OpenSim enforces a coordinate's range only when it is
  /// clamped: bounds().clamp(joint), or bounds().clampAll() to keep every joint inside its range).
  explicit MarkerIk(std::shared_ptr<const Model> model, MarkerIkOptions options = {});
  ~MarkerIk();
  MarkerIk(MarkerIk&&) noexcept;
  MarkerIk& operator=(MarkerIk&&) noexcept;

  [[nodiscard]] const Model& model() const;
  [[nodiscard]] const MarkerIkOptions& options() const;
  /// Throws InvalidArgument for a non-positive accuracy or iteration count, or bad damping.
  void setOptions(const MarkerIkOptions& options);

  // --- problem -----------------------------------------------------------------------------------
  /// The tasks: marker, orientation (frame targets of type Orientation; position and pose
  /// targets are refused: a position is a marker task), coordinate, coupler and posture tasks. Adding allocates;
  /// setting weights, enabling and setting the per-frame values (setMeasurement, setValue, …) do not. A marker task's
  /// id is its column in solve(markers, …) and in MarkerIkResult::worst_marker.
  [[nodiscard]] TaskSet& tasks();
  [[nodiscard]] const TaskSet& tasks() const;
  /// The coordinate bounds (every coordinate free until set).
  [[nodiscard]] CoordinateBounds& bounds();
  [[nodiscard]] const CoordinateBounds& bounds() const;

  // --- state ---------------------------------------------------------------------------------
  /// The warm start of the next solve (clamped into the bounds by the solve); the next solve is
  /// a first solve (first_solve_iterations). Throws InvalidArgument on a wrong size or NaN.
  void setState(const Configuration& q);
  [[nodiscard]] const Configuration& state() const;
  /// Kinematics at the state: every link, and data().frame of every marker and orientation task's frame (updated
  /// after setState and after each solve; other frames are not).
  [[nodiscard]] const Data& data() const;

  // --- solving (no allocation) ---------------------------------------------------------------
  /// Solves one frame on the values in tasks(): the marker measurements, coordinate values and
  /// posture values set since (a value stays until set again).
  MarkerIkResult solve();
  /// Writes this frame's values into tasks() and solves: `markers` one measured world position
  /// per marker task ever added, in id order (NaN components for a missing marker), `coordinates`
  /// one value per coordinate task (NaN: off for this frame), or none: every coordinate task off.
  /// Throws InvalidArgument on wrong sizes only.
  MarkerIkResult solve(std::span<const Vector3d> markers, std::span<const double> coordinates = {});

  /// Distance (m) between marker m's model frame and its measurement at the state of the last
  /// solve; NaN when it did not count (missing, weight 0, disabled) or was added since. Throws
  /// InvalidArgument for an invalid id.
  [[nodiscard]] double markerError(MarkerTaskId marker) const;
  /// Angle (rad) between orientation target t's model frame and its value at the state of the last
  /// solve; NaN when it did not count (no value, weight 0, disabled) or was added since. Throws
  /// InvalidArgument for an invalid id.
  [[nodiscard]] double orientationError(TargetId target) const;
  /// World position of marker m's model frame at the state.
  [[nodiscard]] Vector3d modelMarker(MarkerTaskId marker) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack::ik
