#pragma once
// Inverse dynamics of an OpenSim model on a recorded motion with external loads, as OpenSim's
// InverseDynamicsTool does it (docs/musculoskeletal.md):
//   1. pad every coordinate column by half its length with an odd reflection about each end,
//   2. low-pass it with a 3rd-order Butterworth IIR run forward then backward (zero lag) at the
//      setup's cut-off (skipped for a negative cut-off), degrees → radians,
//   3. fit a quintic spline through each padded, filtered column and take q, q̇, q̈ from it at the
//      file's own time stamps within the time range,
//   4. per frame, RNEA with gravity and the external loads (muscles are not in the model).
// The output pairs with OpenSim's: one column per coordinate in OpenSim's order, named
// `<coordinate>_moment` (rotational, N·m) or `<coordinate>_force` (translational, N).
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::biomech {

struct OpenSimIdOptions {
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  /// Coordinate low-pass cut-off (Hz); negative: no filtering (OpenSim's default).
  double lowpass_cutoff_hz = -1.0;
  /// Angles of the motion in degrees: −1 as the file's header says (inDegrees; degrees when the
  /// header has no inDegrees line, as OpenSim reads legacy .mot files), 0 no, 1 yes.
  int in_degrees = -1;

  /// The time range, cut-off and degree flag of an InverseDynamicsTool setup.
  static OpenSimIdOptions fromSetup(const io::IdSetup& setup);
};

/// q, q̇, q̈ per output frame and per OpenSim coordinate (columns in OpenSimModel::coordinates
/// order; rad or m). A coordinate missing from the motion stays at its default value.
struct CoordinateTrajectory {
  std::vector<double> times;
  Eigen::MatrixXd q, qd, qdd;        ///< frames × coordinates
  std::vector<std::string> missing;  ///< coordinates not in the motion (held at their default)
};

/// OpenSim's 3rd-order Butterworth low-pass (bilinear, pre-warped at `cutoff_hz`) run forward
/// then backward over `x` in place, sampled every `dt` s; the first three samples of each pass
/// are copied, as OpenSim's Signal::LowpassIIR does. A cut-off at or above half the sampling
/// rate is lowered to 0.49 fs as OpenSim does. Throws InvalidArgument for dt ≤ 0, a cut-off ≤ 0
/// or fewer than 4 samples.
void butterworth3ZeroLag(std::vector<double>& x, double dt, double cutoff_hz);

/// Steps 1–3 above on a motion table. Throws InvalidArgument naming the source for fewer than 4
/// rows, non-uniform or non-increasing times, non-finite values, or a time range that selects no
/// frame.
CoordinateTrajectory prepareCoordinates(const io::OpenSimModel& model, const io::MotTable& motion,
                                        const OpenSimIdOptions& options, const std::string& source = "motion");

/// The generalised forces of every frame of `coordinates`, OpenSim's layout (time + one column
/// per coordinate).
struct OpenSimIdResult {
  std::vector<double> times;
  std::vector<std::string> columns;
  Eigen::MatrixXd values;                        ///< frames × coordinates
  std::vector<std::string> missing_coordinates;  ///< not in the motion: held at their default value
  [[nodiscard]] io::MotTable table() const;
};

/// The OpenSim coordinate's output column: `<name>_moment` or `<name>_force`.
std::string generalizedForceColumn(const io::OpenSimCoordinate& c);

/// Per-frame solver: RNEA of an OpenSim model with its external loads. Immutable inputs, own
/// workspace (one per thread); solve() does not allocate.
class OpenSimIdSolver {
 public:
  /// Resolves every external force's bodies in the model. Throws ParseError naming the loads
  /// file and the <ExternalForce> line for an unknown body (listing the model's bodies).
  /// `loads` may be null (no external loads); it must outlive the solver.
  OpenSimIdSolver(const io::OpenSimModel& model, const io::ExternalLoads* loads);

  /// Generalised forces (one per OpenSim coordinate, in its order) at time t for coordinate
  /// values, speeds and accelerations in OpenSim order. Throws InvalidArgument when t is outside
  /// the loads' time range.
  const Eigen::VectorXd& solve(double t, const Eigen::Ref<const Eigen::VectorXd>& q,
                               const Eigen::Ref<const Eigen::VectorXd>& qd,
                               const Eigen::Ref<const Eigen::VectorXd>& qdd);
  /// The world wrenches of the last solve().
  [[nodiscard]] const std::vector<ExternalWrench>& wrenches() const { return wrenches_; }
  /// The external loads alone at time t, as solve() applies them (one world wrench per enabled
  /// ExternalForce, file order: force at the point, plus the free torque), with the model posed at
  /// q (used only for forces or points expressed in a body). Empty without loads. Throws
  /// InvalidArgument when t is outside the loads' time range or q has the wrong size. Does not
  /// allocate.
  const std::vector<ExternalWrench>& externalWrenches(double t, const Configuration& q);

 private:
  struct BoundForce {
    LinkId link;
    FrameId applied, force_frame, point_frame;  ///< invalid = ground
  };
  void sampleLoads(double t, const Configuration& q);
  const io::OpenSimModel* model_;
  const io::ExternalLoads* loads_;
  std::vector<BoundForce> bound_;
  bool needs_frames_ = false;
  DynamicsData dynamics_;
  Data kinematics_;
  Configuration config_;
  VectorXd v_, a_;
  Eigen::VectorXd out_;
  std::vector<io::ExternalForceSample> samples_;
  std::vector<ExternalWrench> wrenches_;
};

/// Steps 1–4 over a whole motion. Throws as prepareCoordinates and OpenSimIdSolver, and
/// InvalidArgument when the selected frames leave the loads' time range (naming both files).
/// `progress(done, total)` is called after each frame when given.
OpenSimIdResult opensimInverseDynamics(const io::OpenSimModel& model, const io::MotTable& motion,
                                       const io::ExternalLoads* loads, const OpenSimIdOptions& options,
                                       const std::string& motion_source = "motion",
                                       const std::function<void(int, int)>& progress = {});

/// Per column of `ours`, the RMS difference against `reference` over our frames, the reference
/// interpolated linearly in time (frames outside its range skipped). Columns the reference lacks
/// get NaN.
struct ColumnComparison {
  std::string column;
  double rms = 0.0, max_abs = 0.0, reference_range = 0.0;  ///< reference max − min
  int frames = 0;
};
std::vector<ColumnComparison> compareColumns(const OpenSimIdResult& ours, const io::MotTable& reference);

}  // namespace kinetrack::biomech
