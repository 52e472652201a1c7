#pragma once
// One interface over every tracking method: a FrameSolver takes one frame's targets and moves
// the model's configuration to them. DYN (integrating its velocity QP over adaptive sub-steps)
// and the per-frame optimisers of SPEC §3 (whole-body Levenberg–Marquardt, the same through
// Ipopt, pair-wise), marker IK and pin-and-drag all implement it, so the StreamTracker, the clip
// tracker, the pipeline, the CLI and the bindings treat them alike. The registry of frame solvers
// is open: the built-in ones are registered under their names (frameSolvers()), a module or an
// application adds its own with registerFrameSolver, and makeFrameSolver(name, model, options)
// builds any of them. Solvers that need more than a model (the sparse prior's HumanPrior) wrap
// their solver in a FrameSolver of their own module and hand it to the StreamTracker.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/ik/instantaneous_ik.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/ik/pairwise_ik.hpp"
#include "kinetrack/ik/pin_drag.hpp"
#include "kinetrack/ik/status.hpp"

namespace kinetrack::track {

/// The tracking methods (DYN paper §5.1 names them DYN, whole-body and pair-wise).
enum class Method : std::uint8_t {
  Dynamical,       ///< DYN: one velocity QP per step, adaptive sub-steps between frames (default)
  WholeBody,       ///< per-frame whole-body IK, native Levenberg–Marquardt (InstantaneousIk)
  WholeBodyIpopt,  ///< the same problem through Ipopt (kinetrack::ik_ipopt)
  Pairwise,        ///< per-frame pair-wise IK on a thread pool (PairwiseIk)
};
/// "dynamical", "wholebody", "wholebody-ipopt", "pairwise".
const char* toString(Method m);
/// The method of a name above; throws InvalidArgument listing the valid names.
Method parseMethod(std::string_view name);
/// Every method, in enum order.
const std::vector<Method>& allMethods();

/// Options of a tracking run and of every method's frame solver. Units are stated per field.
struct TrackerOptions {
  Method method = Method::Dynamical;
  /// The name of a registered frame solver (frameSolvers(): "marker-ik", "pin-drag" or one a
  /// module registered). Empty: the built-in `method`.
  std::string solver;
  // --- DYN ---
  /// Per-step gain κ = K·Δt of every target (dimensionless, 0 < κ < 2; 1 = dead-beat, Remark 2):
  /// the gain stays the same fraction of the error per step whatever the frame rate and
  /// sub-stepping. (The K of DynamicalIk's continuous gains, in 1/s, is K = κ/Δt.)
  double kappa = 1.0;
  /// Adaptive sub-stepping: a frame is split into n steps, the targets interpolated on SO(3)
  /// (geodesic) and linearly in position between the previous and the current frame, so that
  /// no orientation target turns by more than this angle (rad) per step. DYN's step is a
  /// linearisation; bounding the motion per step bounds its error (30 Hz clips need it).
  double max_step_rotation = 5.0 * 3.14159265358979323846 / 180.0;
  int max_substeps = 64;  ///< 1 disables sub-stepping
  /// DYN's options; gain_mode is forced to PerStep. The velocity bound of joints with position
  /// limits (default_velocity_limit) is raised to 200 rad/s: Euler-angle chains near gimbal
  /// lock need coordinate rates far above any segment's angular velocity, and the discrete-time
  /// guard still keeps every step inside the limits.
  DynamicalIkOptions dynamical = dynamicalTrackingOptions();
  /// DYN: the capsules of the ground and self-collision rows that dynamical.collision enables
  /// (DynamicalIk::setCollisionProxies; e.g. io::collisionProxies of the model's geometry).
  std::vector<CollisionProxy> collision_proxies;
  // --- per-frame optimisers ---
  /// Whole-body solver options (the backend follows `method`).
  InstantaneousIkOptions wholebody;
  /// Pair-wise options; coupled rows (the iCub shoulder) are enforced by merging the subsystems
  /// they span (merge_coupled_subsystems = true). threads = 0: one per hardware thread.
  PairwiseIkOptions pairwise = pairwiseTrackingOptions();
  /// Per-frame optimisers: the first frame, reached from an arbitrary initial state, gets at
  /// least this many iterations (later frames: the solver's own cap).
  int first_frame_iterations = 500;
  // --- marker IK ("marker-ik"): every slot is a marker (a position target on a model frame) ---
  ik::MarkerIkOptions marker_ik;
  // --- pin-and-drag ("pin-drag"): every slot is a drag target ---
  ik::PinDragOptions pin_drag;
  // --- stream ---
  /// Assumed time (s) from the initial state to the first frame: DYN's first-frame steps and
  /// target velocities use it (the clip tracker sets the clip's mean frame interval).
  double first_frame_interval = 0.01;

  static DynamicalIkOptions dynamicalTrackingOptions() {
    DynamicalIkOptions o;
    o.default_velocity_limit = 200.0;
    return o;
  }
  static PairwiseIkOptions pairwiseTrackingOptions() {
    PairwiseIkOptions o;
    o.merge_coupled_subsystems = true;
    return o;
  }
  /// Throws InvalidArgument for values out of range (κ, sub-stepping, iterations, interval).
  void validate() const;
};

/// One frame's targets as a StreamTracker hands them to its solver, indexed by slot (the order
/// of FrameSolver::addTarget). Entries of a kind a slot lacks are ignored.
struct FrameTargets {
  double dt = 0.0;    ///< s since the previous solved frame (first frame: first_frame_interval)
  bool first = true;  ///< the first frame: reached from the current state, not from a frame
  /// Per-frame optimisers: at least this many iterations (the tracker asks for
  /// TrackerOptions::first_frame_iterations on the first frame, 0 = the solver's own cap after).
  int min_iterations = 0;
  std::vector<Matrix3d> R;  ///< target orientations R_WT (model world)
  std::vector<Vector3d> p;  ///< target positions (m, model world)
  // Not first: the previous solved frame's targets and the chords to this frame.
  std::vector<Matrix3d> R_prev;
  std::vector<Vector3d> p_prev;
  std::vector<Vector3d> rotation;     ///< log(R·R_prevᵀ) (rad, world), zero for slots without orientation
  std::vector<Vector3d> translation;  ///< p − p_prev (m), zero for slots without position
  /// Per slot: 1 = the slot's targets hold this frame (the default), 0 = the slot is left out of
  /// the frame (e.g. a sole pinned only while the foot is down); its values are ignored. A slot
  /// that comes back has zero chords (its previous values are this frame's).
  std::vector<std::uint8_t> active;
  void resize(std::size_t slots);
};

/// A tracking method over one model, driven one frame at a time.
class FrameSolver {
 public:
  virtual ~FrameSolver() = default;
  /// The solver's registry name ("dynamical", "wholebody", "wholebody-ipopt", "pairwise",
  /// "marker-ik", "pin-drag", or the name a module registered).
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual const Model& model() const = 0;
  /// Adds the targets of one slot (orientation and/or position on `frame`, weight w) and returns
  /// the slot index. Throws InvalidArgument for a target the method cannot hold (unknown frame;
  /// neither kind; pair-wise: a position target off the root link).
  virtual int addTarget(const std::string& frame, bool orientation, bool position, double weight) = 0;
  [[nodiscard]] virtual int numSlots() const = 0;
  virtual void setState(const Configuration& q) = 0;
  [[nodiscard]] virtual const Configuration& state() const = 0;
  /// Kinematics at state(); the placements of the target frames are current after setState()
  /// and solve().
  [[nodiscard]] virtual const Data& data() const = 0;
  /// Moves the state to one frame's targets. DYN: sub-steps over `targets.dt` (first frame:
  /// steps of at least 10 ms, then 5 polishing steps), then unwinds revolute joints with ranges
  /// wider than 2π; per-frame optimisers: iterate to convergence from the state. Returns the
  /// frame's status (the worst of DYN's steps), iterations (DYN: steps), MNTE at the new state,
  /// limit and row violations (the largest over DYN's steps; pair-wise: unenforced rows
  /// included). Does not allocate (after the first frame).
  virtual ik::Result solve(const FrameTargets& targets) = 0;
  /// The wrapped solver of each method, or null.
  [[nodiscard]] virtual const DynamicalIk* dynamical() const { return nullptr; }
  [[nodiscard]] virtual const InstantaneousIk* instantaneous() const { return nullptr; }
  [[nodiscard]] virtual const PairwiseIk* pairwise() const { return nullptr; }
  [[nodiscard]] virtual const ik::MarkerIk* markerIk() const { return nullptr; }
  [[nodiscard]] virtual const ik::PinDragIk* pinDrag() const { return nullptr; }
};

/// The frame solver of `options.method` on `model` (shared, immutable), without targets. Throws
/// InvalidArgument for invalid options.
std::unique_ptr<FrameSolver> makeFrameSolver(Method method, std::shared_ptr<const Model> model,
                                             const TrackerOptions& options = {});
/// Wraps solvers built by the caller (targets are added through the FrameSolver; the solver
/// should have none). DYN: its options' gain_mode is forced to PerStep; κ and sub-stepping
/// come from `options`.
std::unique_ptr<FrameSolver> makeFrameSolver(DynamicalIk solver, const TrackerOptions& options = {});
std::unique_ptr<FrameSolver> makeFrameSolver(InstantaneousIk solver);
std::unique_ptr<FrameSolver> makeFrameSolver(PairwiseIk solver);
/// Marker IK under the stream: each slot (position targets only; an orientation is refused) is a
/// marker on its frame with the slot's weight, and a slot whose position is not finite is a
/// missing marker this frame (not an error). The first solve after setState runs the solver's
/// first_solve_iterations. Marker tasks the caller added before keep the values the caller sets.
std::unique_ptr<FrameSolver> makeFrameSolver(ik::MarkerIk solver);
/// Pin-and-drag under the stream: each slot is a drag target (position, orientation or pose;
/// the weight is not used: drags are the primary task, their gain is PinDragOptions::drag_gain),
/// driven with the chord velocity over the frame as its feed-forward; one update of the frame's
/// interval per frame. The first frame is reached from the state with up to
/// FrameTargets::min_iterations updates of `first_frame_interval` (until every drag is within
/// 1e-6 m / rad). Pins set on `solver` before (e.g. the feet) stay. Status, MNTE and the limit and
/// row violations are the last update's; iterations the updates made.
std::unique_ptr<FrameSolver> makeFrameSolver(ik::PinDragIk solver);

// --- registry ------------------------------------------------------------------------------------

/// Builds a frame solver of one kind on `model` (shared, immutable), without targets.
using FrameSolverFactory =
    std::function<std::unique_ptr<FrameSolver>(std::shared_ptr<const Model>, const TrackerOptions&)>;
/// A registered frame solver.
struct FrameSolverInfo {
  std::string name;         ///< what TrackerOptions::solver and makeFrameSolver take
  std::string description;  ///< one line for listings (CLI help, Python)
  bool orientation = true;  ///< it holds orientation targets
  bool position = true;     ///< it holds position targets
};
/// Registers a frame solver under `info.name` (thread-safe). Throws InvalidArgument for an empty
/// name, a name taken, or an empty factory.
void registerFrameSolver(FrameSolverInfo info, FrameSolverFactory make);
/// Every registered solver, the built-ins first (the four methods, "marker-ik", "pin-drag").
std::vector<FrameSolverInfo> frameSolvers();
/// The registered solver `name` on `model`. Throws InvalidArgument for an unknown name (listing
/// the registered ones) or invalid options.
std::unique_ptr<FrameSolver> makeFrameSolver(std::string_view name, std::shared_ptr<const Model> model,
                                             const TrackerOptions& options = {});

}  // namespace kinetrack::track
