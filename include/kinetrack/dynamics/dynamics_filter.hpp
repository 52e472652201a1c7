#pragma once
// NAK — the dynamics filter (SPEC §5; Nakamura seed, "Motion generation of human figures
// considering physical consistency", Eq. 1–5): a captured motion made physically consistent, frame
// by frame, for a figure with unactuated coordinates (the 6-DoF floating base, or an OpenSim
// model's pelvis coordinates) and contacts with the ground (docs/dynamics_filter.md).
//
// Every step, at the filter's own state (q, ν):
//  (A) desired acceleration: resolved-acceleration feedback to the reference on every coordinate
//      including the base, ν̇ᵈ = ν̇_ref + K_d (ν_ref − ν) + K_p (q_ref ⊖ q), then the skyhook: ν̇ᵈ is
//      changed by the least change J_h⁺(…) that gives the head link the acceleration of a
//      spring-damper to its reference pose in the world;
//  (B) the acceleration change Δν̇ that makes Eq. 2 hold, contacts being link-to-world
//      constraints (J_c ν̇ + J̇_c ν = Baumgarte term towards the link's pose at touch-down):
//        minimise  ½‖Δν̇‖²_W + ½ε‖f‖²/m² (+ ½w‖P f − w_meas‖²/m²)
//        s.t.      M_U (ν̇ᵈ + Δν̇) + h_U = (Σ J_cᵀ P f)_U        (unactuated rows of Eq. 1: no residual)
//                  J_c (ν̇ᵈ + Δν̇) + J̇_c ν = a_c                   (contact rows of Eq. 1)
//                  f_n ≥ 0, |f_t1|, |f_t2| ≤ μ f_n at every contact point (friction pyramid)
//      f the point forces of the contact points (ground frame), P their map to the link wrench;
//      a_c = −K_d J_c ν − K_p e − J̇_c ν with K_d = 1/Δt when contacts are pinned (no slide).
//      Without the inequalities and with ε → 0 this is Eq. 3–5: the weighted pseudo-inverse
//      solution space of Eq. 2 with the acceleration change reduced over its null space (the
//      test suite checks the two against each other). Δν̇ is eliminated in closed form (its
//      weighted least-norm value given f, Eq. 3), leaving a small QP in f (qp::Solver);
//  (C) joint torques τ = M ν̇ + h − Σ J_cᵀ w (actuated rows), then ν ← ν + Δt ν̇, q ← q ⊕ Δt ν
//      (semi-implicit Euler, as Simulator with Integrator::SemiImplicitEuler: ABA under these τ and
//      contact wrenches reproduces the filtered motion).
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/ik/status.hpp"
#include "kinetrack/qp/qp.hpp"

namespace kinetrack {

/// The ground: the plane {p : n·p = offset} with unit normal n pointing into free space.
struct GroundPlane {
  Vector3d normal = Vector3d::UnitZ();
  double offset = 0.0;  ///< m
  /// Velocity of the surface along the plane (m/s, world): a treadmill's belt. Welded contacts
  /// move with it; detection measures speeds relative to it.
  Vector3d velocity = Vector3d::Zero();
  /// The plane through `point` whose normal is `up` tilted by `degrees` so that the ground falls
  /// along the horizontal direction `downhill` (a down slope for a figure walking that way).
  /// Throws InvalidArgument for |degrees| ≥ 60 or directions that are zero or parallel.
  static GroundPlane slope(const Vector3d& up, const Vector3d& downhill, double degrees, const Vector3d& point);
  /// Signed height of p above the plane (m).
  [[nodiscard]] double height(const Vector3d& p) const { return normal.dot(p) - offset; }
};

/// A link that can touch the ground, with its sole as contact points (link frame, m): the
/// corners of its support polygon. While flat on the ground the link is welded to the world (6
/// rows); while only one or two points touch (a rolling foot) their centroid is held (3 rows).
struct ContactBody {
  std::string name;  ///< for reports ("right foot")
  LinkId link;
  std::vector<Vector3d> points;
};

/// Two feet for the models kinetrack knows: the built-in human models (RightFoot / LeftFoot,
/// the sole from the ankle → ball-of-foot joint) and OpenSim gait models (calcn_r / calcn_l, the
/// sole from the mtp joint), four points each: the ball of the foot and the heel, each ± half a
/// foot width, on the sole plane through the ball normal to `up` (world) at the zero pose.
/// Throws InvalidArgument naming the links it looked for otherwise.
std::vector<ContactBody> footContacts(const Model& model, const Vector3d& up = Vector3d::UnitZ());

/// The soles of `contacts` refitted to how a motion puts its feet down: for each body, the
/// frames where its link origin moves at most `still_speed` (m/s, relative to `ground`'s
/// surface; central differences over `times`, s) are its flat stances; the mean of the ground
/// normal seen in the link frame over those frames is the sole's normal, and every point is moved
/// along it onto the plane through the lowest of them (their footprint seen along that normal is
/// kept). Why: a capture retargeted onto a model may hold its feet pitched against the model's
/// zero pose (the Bandai walk on human66: 17° toe down while standing), so that only the ball
/// points of the model's sole touch — a contact without a support polygon along the foot, and a
/// figure that falls backward over the balls (docs/dynamics_filter.md). A body with fewer than
/// `min_frames` still frames is left as it is. Throws InvalidArgument for sizes that differ,
/// fewer than 3 frames, times not increasing, or still_speed ≤ 0.
std::vector<ContactBody> fitSolesToStance(const Model& model, std::vector<ContactBody> contacts,
                                          std::span<const Configuration> q, std::span<const double> times,
                                          const GroundPlane& ground, double still_speed = 0.15, int min_frames = 5);
/// Tilt (rad) between each body's sole normal and the one footContacts gives at the zero pose
/// (`up`): how far fitSolesToStance moved the sole plane.
double soleTilt(const Model& model, const ContactBody& body, const Vector3d& up = Vector3d::UnitZ());

/// Where the contact set of each frame comes from.
enum class ContactSource : std::uint8_t {
  /// From the reference motion: a body is in contact when its lowest point is at most
  /// `contact_height` above the ground and its touching points (within
  /// `contact_point_tolerance` of the lowest) move at most `contact_speed` (their mean).
  Detect,
  /// Given per frame by the caller (force-plate intervals, annotations).
  Given,
};

/// The Detect rule for one body: its lowest point at most `height` (m) above `ground` and the
/// mean speed (relative to the ground's surface) of its touching points — those within
/// `point_tolerance` (m) of the lowest; infinity: all points — at most `speed` (m/s), at the
/// kinematics `data` (forwardKinematics done) with velocity ν (nv). `J` is scratch (6 × nv).
/// Does not allocate.
bool touchesGround(const Model& model, const Data& data, const ContactBody& body, const VectorXd& v,
                   const GroundPlane& ground, double height, double speed, Matrix6Xd& J,
                   double point_tolerance = std::numeric_limits<double>::infinity());

/// Where the contact forces come from.
enum class ContactForces : std::uint8_t {
  /// The filter's own: contacts are link-to-world constraints, their forces a QP over the
  /// friction pyramid (the seed's Eq. 1–5).
  Solved,
  /// Measured (force plates): step()'s `measured` wrenches enter Eq. 1 as known external loads
  /// on the contact links and the filter changes only the accelerations, so that the unactuated
  /// rows balance, M_U ν̇ + h_U = (Σ J_kᵀ w_meas,k)_U — what OpenSim's RRA does (kinematics
  /// adjusted, measured forces kept). No contact rows: the feet follow their reference through
  /// the feedback (A) only.
  Measured,
};

/// The metric W of the acceleration change ½‖Δν̇‖²_W (Eq. 3's weighted pseudo-inverse).
enum class ChangeWeighting : std::uint8_t {
  /// W = diag(weight_base, weight_joint): every coordinate alike (rad/s² next to m/s²).
  Constant,
  /// W = diag(M(q)) × the same weights, updated every step: each coordinate's change weighted
  /// by the inertia it moves (kg m², kg), so that heavy proximal joints (lumbar, hips) change
  /// less than light distal ones for the same acceleration.
  InertiaDiagonal,
};

/// Gains and weights of the filter; every field states its unit.
struct DynamicsFilterOptions {
  // (A) resolved-acceleration feedback (seed: "feedback controller used in resolved acceleration
  // control applied to all the joints including the 6 DOF of the body joint").
  /// 1/s², base position and orientation (floating base) and every unactuated coordinate (an
  /// OpenSim model's pelvis coordinates)
  double kp_base = 100.0;
  double kd_base = 20.0;    ///< 1/s
  double kp_joint = 100.0;  ///< 1/s², every joint coordinate (also unactuated joints)
  double kd_joint = 20.0;   ///< 1/s
  // Skyhook on the head (seed: "feedback the Cartesian position of the head to keep the balance").
  LinkId head;                 ///< invalid: no skyhook
  double kp_head = 50.0;       ///< 1/s², head position and orientation towards the reference's
  double kd_head = 14.0;       ///< 1/s
  double head_damping = 1e-6;  ///< λ of J_h⁺ = J_hᵀ(J_h J_hᵀ + λ1)⁻¹ (dimensionless, × trace/6)
  // (B) weights of the solution space (Eq. 3's weighted pseudo-inverse).
  double weight_base = 1.0;   ///< weight of the acceleration change of unactuated coordinates
  double weight_joint = 1.0;  ///< weight of the acceleration change of actuated coordinates
  ChangeWeighting weighting = ChangeWeighting::Constant;
  /// σ (dimensionless, ≥ 0): 0 = the unactuated rows balance exactly (no residual); σ > 0 lets
  /// them keep a residual s at the cost ½‖s‖²/(σm)² next to ½‖Δν̇‖²_W (m the total mass), as
  /// OpenSim RRA's weighted residual actuators do: a residual of σ·m·1 m/s² (N, or N m) costs
  /// as much as a change of 1 m/s² (rad/s²) in one unit-weight coordinate. With measured loads
  /// a constant offset in them (a mass-centre error, plate calibration) otherwise has to be
  /// absorbed by the kinematics (the whole body's momentum is fixed by the loads).
  double residual_softness = 0.0;
  /// Solved: the filter's contact forces (QP); Measured: step()'s `measured` wrenches applied.
  ContactForces contact_forces = ContactForces::Solved;
  /// ε: contact forces penalised as ε‖f‖²/m² next to ‖Δν̇‖² (m the total mass; dimensionless).
  /// Small: the acceleration change is reduced first (Eq. 4–5), the forces are then least.
  double force_regularisation = 1e-6;
  /// w: the contact wrenches pulled towards the measured ones (step()'s `measured`) as
  /// w‖P f − w_meas‖²/m² (dimensionless; 0 = ignore the measurement).
  double force_tracking = 0.0;
  double friction = 0.8;  ///< μ of the friction pyramid (|f_t| ≤ μ f_n per tangent axis)
  // Contacts.
  ContactSource contact_source = ContactSource::Detect;
  double contact_height = 0.05;  ///< m, Detect: lowest point at most this high above the ground
  double contact_speed = 0.8;    ///< m/s, Detect: mean speed of the touching points at most this
  /// m: the points of a body in contact within this height of its lowest point carry force; with
  /// three or more the link is welded (6 rows), with one or two (heel strike, toe-off: the foot
  /// rolls) only their centroid is held (3 rows).
  double contact_point_tolerance = 0.025;
  /// rad or m: a filtered coordinate further than this from the reference's (or a non-finite
  /// state) restarts the filter from the reference (DynamicsFilterFrame::reset).
  double max_deviation = 1.0;
  double contact_kp = 400.0;  ///< 1/s², Baumgarte stiffness of the weld to the touch-down pose
  double contact_kd = 40.0;   ///< 1/s (unused with pin_contacts)
  /// Pin held contacts: the contact rows remove the held point's (a weld: the link's) velocity
  /// relative to the surface within the step, K_d = 1/Δt and K_p capped at 1/Δt², so that the
  /// filtered contact does not slide (a touch-down is a plastic impact). false: contact_kd, a
  /// critically damped approach over ~1/ω (ω = 20/s by default) that lets a foot touching down
  /// with speed slide on for a few frames.
  bool pin_contacts = true;
  /// The touch-down pose is moved along the ground normal so that the lowest point lies on the
  /// ground (the weld then pulls the foot onto it); false keeps the pose as it is.
  bool snap_to_ground = true;
  /// Anchor a new contact at the reference's pose of the link (true) rather than the filtered
  /// one: the welds then pull the feet to where the capture put them, so drift (a capture whose
  /// stance feet slide) does not accumulate step after step.
  bool anchor_at_reference = false;
  GroundPlane ground;
  Vector3d gravity = kStandardGravity;  ///< m/s², world frame
  /// Velocity indices with no actuator (the residual rows); empty: the floating base's six.
  std::vector<int> unactuated;
  /// Also compute residual_before (the reference motion's residual with the best feasible
  /// contact forces, a second dynamics pass and QP at the reference): costs about a third more.
  bool residual_before = true;
  qp::Options qp;

  /// The preset for measured loads (force plates), tuned on OpenSim's gait2354 walk
  /// (docs/dynamics_filter.md, "Measured loads"): contact_forces = Measured, contact_source =
  /// Given; joints stiff, kp_joint 900 /s², kd_joint 60 /s (critically damped, ω = 30 /s ≈ 4.8 Hz,
  /// below the 6 Hz input low-pass): a persistent acceleration change d leaves a joint error of
  /// only d/kp, so the posture is kept; the base (OpenSim pelvis) soft, kp_base 10 /s², kd_base
  /// 6 /s (ω ≈ 3.2 /s): the whole body's translation and rotation, fixed by the loads, carry the
  /// change; residual_softness 0.03 (a residual of 0.03 m × 1 m/s² ≈ 2 N for 73 kg costs as much
  /// as 1 m/s² of change): constant offsets of the loads or the model stay a small residual
  /// instead of a drift that grows with time.
  static DynamicsFilterOptions measuredLoads();
};

/// One filtered frame (all preallocated; valid until the next step()). Its outcome is an
/// ik::Result: status the contact-force QP's (Converged: optimal, or no QP with measured loads;
/// IterationLimit: it stopped at its iteration cap, forces of the last iterate; Infeasible; Failed:
/// not convex, or non-finite QP data: no forces), iterations the force QPs solved (0 or 1), gap:
/// NaN/inf in the reference (or its contact data), the last valid one held. mnte and the
/// violations are not computed (0). Two events are flags beside it: no_contact and reset.
struct DynamicsFilterFrame : ik::Result {
  bool no_contact = false;  ///< no contact this frame: the base follows the ballistic motion
  /// The state left the reference by more than max_deviation (or was not finite): restarted there.
  bool reset = false;
  Configuration q;        ///< filtered configuration at this frame (before the step)
  VectorXd v;             ///< filtered velocity (nv)
  VectorXd acceleration;  ///< ν̇ = ν̇ᵈ + Δν̇ (nv), applied over the step
  VectorXd desired;       ///< ν̇ᵈ after feedback and skyhook (nv)
  VectorXd change;        ///< Δν̇ (nv)
  /// Generalised forces τ = M ν̇ + h − Σ J_cᵀ w (nv): joint torques (N m / N); the unactuated
  /// entries are residual_after.
  VectorXd tau;
  VectorXd residual_before;              ///< (n_u) the reference's residual with the best feasible contacts
  VectorXd residual_after;               ///< (n_u) the filtered motion's residual with the filter's contacts
  std::vector<std::uint8_t> in_contact;  ///< per contact body
  std::vector<ExternalWrench> wrenches;  ///< per contact body at its link origin (zero if off)
  std::vector<Vector3d> point_forces;    ///< per contact point, world frame (N)
  int active_contacts = 0;
  int binding_unilateral = 0;  ///< contact points with f_n = 0 at the optimum
  int binding_friction = 0;    ///< friction-pyramid rows active at the optimum
  int qp_iterations = 0;
};

/// The word a frame's outcome is written as (the filter's report and Python): "reset" (reset),
/// else "invalid_reference" (gap), else "solver_limit" (status not Converged), else "no_contact"
/// (no_contact), else "ok".
const char* outcomeName(const DynamicsFilterFrame& frame);

/// The filter: built once for a model and its contact bodies; step() does not allocate.
class DynamicsFilter {
 public:
  /// Throws InvalidArgument for a model without mass (checkMassProperties), custom joints (the
  /// forward dynamics check needs ABA; the filter itself only needs RNEA/CRBA: allowed),
  /// unactuated indices out of range or repeated, none for a fixed base, a contact body without
  /// points or on an unknown link, an invalid head link, negative gains or weights, μ ≤ 0, or a
  /// non-unit ground normal.
  DynamicsFilter(std::shared_ptr<const Model> model, std::vector<ContactBody> contacts,
                 const DynamicsFilterOptions& options = {});

  [[nodiscard]] const Model& model() const { return *model_; }
  [[nodiscard]] const DynamicsFilterOptions& options() const { return options_; }
  [[nodiscard]] const std::vector<ContactBody>& contacts() const { return contacts_; }
  [[nodiscard]] const std::vector<int>& unactuated() const { return unactuated_; }

  /// Starts from (q, ν) (ν of size nv); contacts all released. Throws InvalidArgument for wrong
  /// sizes or non-finite values.
  void reset(const Configuration& q, const VectorXd& v);

  /// One frame: reference configuration, velocity and acceleration (nv), the step Δt > 0 (s) to
  /// the next frame; `contact` (one flag per contact body) with ContactSource::Given, else
  /// ignored (may be empty); `measured` (one wrench per contact body, world frame: force at a
  /// point plus a free moment; its `link` is ignored, the body's link is used) required with
  /// ContactForces::Measured, used when force_tracking > 0, else may be empty. The first step after construction starts
  /// from the reference (reset(q_ref, ν_ref)). Non-finite reference values or measured wrenches give
  /// a gap (ik::Result::gap) and the last valid reference is held (zero velocity and
  /// acceleration); the output stays finite. Throws InvalidArgument for wrong sizes or Δt ≤ 0.
  const DynamicsFilterFrame& step(const Configuration& q_ref, const VectorXd& v_ref, const VectorXd& a_ref, double dt,
                                  std::span<const std::uint8_t> contact = {},
                                  std::span<const ExternalWrench> measured = {});

  [[nodiscard]] const DynamicsFilterFrame& frame() const { return frame_; }

 private:
  struct Work;
  void detectContacts(const VectorXd& v_ref, std::span<const std::uint8_t> given);
  void updateAnchors();
  void desiredAcceleration(const Configuration& q_ref, const VectorXd& v_ref, const VectorXd& a_ref);
  void buildContactRows();
  void solveForces(std::span<const ExternalWrench> measured);
  void residualBefore(const Configuration& q_ref, const VectorXd& v_ref, const VectorXd& a_ref);
  void finish(double dt);
  // ContactForces::Measured (dynamics_filter_measured.cpp).
  void applyMeasured(std::span<const ExternalWrench> measured, bool valid);
  void residualBeforeMeasured(const Configuration& q_ref, const VectorXd& v_ref, const VectorXd& a_ref);
  void finishMeasured();

  std::shared_ptr<const Model> model_;
  std::vector<ContactBody> contacts_;
  DynamicsFilterOptions options_;
  std::vector<int> unactuated_;
  std::shared_ptr<Work> work_;  // preallocated scratch (dynamics_filter.cpp)
  DynamicsFilterFrame frame_;
  bool started_ = false;
};

/// A whole motion through the filter (offline driver of step()): reference derivatives by
/// central differences on the manifold (differentiate()), so the reference at frame k uses
/// frame k + 1 (one frame of latency when run live). Frames with a non-finite value are gaps
/// (held: gap, as are their neighbours, whose differences use them).
/// `contact` (frames × bodies, row-major) for ContactSource::Given; `measured` (one list per
/// frame, one wrench per body) for force tracking. Returns one frame per input configuration.
/// `progress(done, total)` after each frame. Throws InvalidArgument for sizes that disagree and
/// as differentiate().
struct FilteredMotion {
  std::vector<DynamicsFilterFrame> frames;
  std::vector<double> seconds_per_frame;  ///< wall time of each step()
};
FilteredMotion filterMotion(DynamicsFilter& filter, const std::vector<Configuration>& q, const std::vector<double>& t,
                            std::span<const std::uint8_t> contact = {},
                            std::span<const std::vector<ExternalWrench>> measured = {},
                            const std::function<void(int, int)>& progress = {});
/// Same with the reference's velocities and accelerations given (e.g. OpenSim's spline
/// derivatives); frames with `derivatives.valid` = 0 are held.
FilteredMotion filterMotion(DynamicsFilter& filter, const std::vector<Configuration>& q, const std::vector<double>& t,
                            const TrajectoryDerivatives& derivatives, std::span<const std::uint8_t> contact = {},
                            std::span<const std::vector<ExternalWrench>> measured = {},
                            const std::function<void(int, int)>& progress = {});

}  // namespace kinetrack
