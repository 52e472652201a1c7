#pragma once
// `kinetrack dynamics id` as a job, on either kind of model:
// - an OpenSim model (.osim) on coordinates (.mot/.sto, or a table in memory: what marker IK just
//   returned) with ExternalLoads, as OpenSim's InverseDynamicsTool does it (biomech/opensim_id.hpp),
//   OpenSim's .sto out, optionally compared per column with a reference result;
// - a URDF or built-in model on a joint trajectory (the CSV `kinetrack track` writes, or arrays):
//   optional zero-lag low-pass, finite differences on the configuration manifold, RNEA per frame
//   with the external wrenches of a wrench CSV, the generalised forces per row (the floating
//   base's residual first) and the residual against the body weight.
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/biomech/opensim_id.hpp"
#include "kinetrack/io/table/joint_csv.hpp"

namespace kinetrack::app {

struct InverseDynamicsOptions {
  io::ModelSpec model;  ///< .osim, URDF with inertials or a built-in model with masses
  std::string motion;   ///< .mot/.sto or the model's joint CSV for an .osim model, else a joint CSV (unless in memory)
  std::string out;      ///< .sto (OpenSim) or generalised-forces CSV; empty: not written
  // URDF / built-in models.
  double gravity = 9.80665;              ///< m/s², along −z
  std::string wrench_file;               ///< external-wrench CSV (empty: no external load)
  std::string wrench_outside = "error";  ///< motion rows outside the wrench file's times: error | zero
  std::string derivatives = "fd";        ///< fd | butterworth
  std::optional<double> cutoff;          ///< Hz: butterworth's −3 dB frequency (6 when empty); OpenSim's low-pass
  // OpenSim models.
  std::string loads;             ///< ExternalLoads XML or a C3D (its plates: app::c3dExternalLoads); else the setup's
                                 ///< external_loads_file, else none
  std::string setup;             ///< InverseDynamicsTool setup (time range, cut-off, loads)
  std::string reference;         ///< an ID .sto to compare with (OpenSim's)
  std::string com_offset;        ///< BODY:X,Y,Z: move the body's mass centre (m, its frame) first
  std::string degrees = "auto";  ///< motion angles: auto (header) | yes | no
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
};

/// The motion in memory instead of options.motion: OpenSim coordinates (a .mot table) for an
/// .osim model, a joint trajectory otherwise.
struct InverseDynamicsMotion {
  std::optional<io::MotTable> coordinates;
  std::optional<io::JointTrajectory> joints;
};

struct InverseDynamicsResult {
  bool opensim = false;
  std::string model_name, motion;
  std::vector<double> times;
  std::vector<std::string> columns;              ///< the generalised forces' names (OpenSim's, or base and joint names)
  Eigen::MatrixXd values;                        ///< frames × columns: N m, N
  std::vector<std::uint8_t> valid;               ///< per frame (a gap in the difference stencil: 0, values zero)
  std::vector<std::string> missing_coordinates;  ///< OpenSim: not in the motion, held at their defaults
  std::vector<biomech::ColumnComparison> comparison;  ///< against options.reference
  std::string text;                                   ///< the summary as printed (without the wall time)
  double wall_seconds = 0;
};

/// Runs `kinetrack dynamics id`. `motion` (optional) replaces reading options.motion. Warns when
/// OpenSim coordinates with external loads are differentiated without a low-pass (OpenSim's
/// default, unlike its example setups). Throws InvalidArgument / ParseError.
/// `loaded` (optional) replaces loading a URDF / built-in model.
InverseDynamicsResult runInverseDynamics(const InverseDynamicsOptions& options, const Reporter& reporter = {},
                                         const InverseDynamicsMotion& motion = {}, const Model* loaded = nullptr);
/// The lines `kinetrack dynamics id` closes with after r.text: the wall time and
/// "wrote OUT (N rows)\n".
std::string closingLines(const InverseDynamicsResult& r, const InverseDynamicsOptions& options);

}  // namespace kinetrack::app
