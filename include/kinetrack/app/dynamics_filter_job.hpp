#pragma once
// `kinetrack dynamics filter` as a job (docs/dynamics_filter.md): a motion (joint CSV, OpenSim
// coordinates with an .osim model, or a BVH clip tracked on the model first) through the Nakamura
// dynamics filter (NAK Eq. 1–5), contacts detected from the motion, given by force plates (their
// wrenches applied, or their intervals only) or, on a slope (the seed's Fig. 6), scheduled from
// the level walk; the filtered motion in the input's layout, torques, the summary (text, JSON) and
// a per-frame report.
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/dynamics/com_adjustment.hpp"
#include "kinetrack/dynamics/dynamics_filter.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::app {

/// The options of `kinetrack dynamics filter` (each field's CLI flag in its comment). Strings
/// take the values listed; runDynamicsFilter and prepareFilterInput throw InvalidArgument naming
/// the flag for another value.
struct FilterJobOptions {
  io::ModelSpec model;  ///< --model (built-in, URDF with inertials or .osim), --height, --mass
  std::string input;    ///< --input: joint CSV, OpenSim coordinates (.mot/.sto, .osim model) or BVH
  std::string grf;      ///< --grf: OpenSim ExternalLoads XML (force plates); empty: none
  /// Files written when set (empty: not written, --out too): --out the filtered motion in the
  /// input's layout (joint CSV, or .mot for OpenSim), --torques (CSV, or .sto for OpenSim),
  /// --summary-json, --report-csv (the per-frame report).
  std::string out, torques, summary_json, report_csv;
  double slope_deg = 0.0;  ///< deg, --slope-deg: the level walk put on a down slope; within (-45, 45)
  double time_start = -std::numeric_limits<double>::infinity();  ///< s, --start
  double time_end = std::numeric_limits<double>::infinity();     ///< s, --end
  double cutoff = 6.0;    ///< Hz, zero-lag low-pass of the reference before differentiating (0: none)
  double friction = 0.8;  ///< --friction: coefficient of the pyramid (> 0)
  /// Contact detection (--contact-height m, --contact-speed m/s): sole height above ground, speed.
  double contact_height = 0.05, contact_speed = 0.8;
  /// Feedback gains (1/s², 1/s); NaN: DynamicsFilterOptions' defaults, or measuredLoads()'s.
  double kp = std::numeric_limits<double>::quiet_NaN(), kd = std::numeric_limits<double>::quiet_NaN();
  /// Base / unactuated coordinates' gains (1/s², 1/s); NaN: kp, kd.
  double kp_base = std::numeric_limits<double>::quiet_NaN(), kd_base = std::numeric_limits<double>::quiet_NaN();
  double force_tracking = 0.0;  ///< --force-tracking: weight towards the plates (needs grf_mode "contacts")
  /// With --grf: "apply" (ContactForces::Measured) or "contacts" (plates give intervals only).
  std::string grf_mode = "apply";
  std::string weighting = "unit";  ///< --weighting: "unit" or "inertia" (ChangeWeighting)
  std::string adjust_com;          ///< --adjust-com: body whose mass centre is adjusted (RRA), empty: none
  /// --residual-softness (dimensionless, >= 0); NaN: the mode's default (0, 0.03 with the plates applied).
  double residual_softness = std::numeric_limits<double>::quiet_NaN();
  double grf_threshold = 20.0;  ///< N, a plate's normal force above which its foot is in contact
  double ground_height = std::numeric_limits<double>::quiet_NaN();  ///< m along up; NaN: from the feet
  bool no_skyhook = false;                                          ///< --no-skyhook: no skyhook control of the head
  bool no_pin = false;               ///< contacts by Baumgarte damping only (DynamicsFilterOptions::pin_contacts off)
  bool anchor_at_reference = false;  ///< DynamicsFilterOptions::anchor_at_reference
  double weight_base = std::numeric_limits<double>::quiet_NaN();  ///< NaN: the default
  /// "stance" (fitSolesToStance: the soles tilted to the reference's flat stances), "model"
  /// (footContacts at the zero pose, the only choice until 2026-11-25) or "auto": stance for the
  /// built-in humans (retargeted captures), model for OpenSim models
  std::string sole = "auto";
};

/// The motion the filter runs on, with what the report needs to interpret it.
struct FilterInput {
  std::shared_ptr<const Model> model;
  std::optional<io::OpenSimModel> osim;
  std::string kind;  ///< "joint CSV", "OpenSim coordinates", "BVH tracked on <model>"
  std::vector<Configuration> q;
  std::vector<double> t;
  TrajectoryDerivatives derivatives;
  Vector3d up = Vector3d::UnitZ(), gravity = kStandardGravity;
  std::vector<int> unactuated;        ///< velocity indices (empty: the floating base)
  std::vector<int> force_rows;        ///< residual entries that are forces (N)
  std::vector<int> moment_rows;       ///< residual entries that are moments (N m)
  LinkId head, root;                  ///< skyhook link; the body whose position gives the walking direction
  io::MotTable mot;                   ///< OpenSim input: columns and degree flag for the output
  std::vector<std::uint8_t> contact;  ///< frames × bodies when given (plates or slope schedule)
  std::vector<std::vector<ExternalWrench>> plates;  ///< per frame, per body: the measured wrench (GRF)
  GroundPlane ground;
  std::string ground_note;
  DynamicsFilterOptions options;     ///< what the filter ran with (for the report)
  std::optional<ComAdjustment> com;  ///< --adjust-com: the offset applied to com_body
  std::string com_body;
  std::vector<ContactBody> feet;      ///< the contact bodies the filter ran with (--sole)
  std::string sole;                   ///< the soles used: "stance" or "model"
  std::vector<double> sole_tilt_deg;  ///< per foot: the sole's tilt against the model's zero pose
};

/// Per-frame results and the summary numbers.
struct FilterReport {
  double residual_force_rms_before = 0, residual_force_rms_after = 0, residual_force_max_before = 0,
         residual_force_max_after = 0;
  double residual_moment_rms_before = 0, residual_moment_rms_after = 0, residual_moment_max_before = 0,
         residual_moment_max_after = 0;
  double joint_change_rms_deg = 0, joint_change_max_deg = 0, base_change_rms_m = 0;
  /// Mean speed along the ground of the touching sole points of feet in contact (mm/s), filtered /
  /// input; the same of the feet's link origins (the ankle: moves while the foot rolls).
  double foot_slide_mm = 0, foot_slide_input_mm = 0, foot_slide_origin_mm = 0, foot_slide_origin_input_mm = 0;
  int frames = 0, frames_in_contact = 0, frames_binding = 0, frames_unilateral = 0, frames_friction = 0;
  /// Frames by the word their outcome is written as (outcomeName).
  struct OutcomeCounts {
    int ok = 0, no_contact = 0, invalid_reference = 0, solver_limit = 0, reset = 0;
  } outcomes;
  double step_us_p50 = 0, step_us_p95 = 0;
  std::vector<double> plate_rms;  ///< per axis x, y, z (N): filter's contact force vs plates, both feet
};

/// The summary numbers of a filtered motion.
FilterReport summarize(const FilterInput& in, const FilteredMotion& out);

/// The per-frame report as data (the columns of --report-csv but the status): `values` is
/// (frames × columns): time (s), contacts (contact bodies active), force_before, force_after (N,
/// norm of the residual's force rows, the reference's and the filtered motion's), moment_before,
/// moment_after (N m), root_up_input, root_up_filtered (m, the root body's height along up; NaN
/// for an input frame with non-finite values), then per contact body <link>_fx, _fy, _fz (N, the
/// filter's contact force in world) followed, with plates, by plate_<link>_fx, _fy, _fz (N).
struct FilterFrameReport {
  std::vector<std::string> columns;
  Eigen::MatrixXd values;
  std::vector<std::string> status;  ///< per frame: outcomeName(frame)
};

/// A table of numbers with its column names: `values` is (frames × columns.size()).
struct FilterTable {
  std::vector<std::string> columns;
  Eigen::MatrixXd values;
};

struct FilterJobResult {
  FilterInput input;         ///< the motion the filter ran on and what it ran with
  FilteredMotion motion;     ///< per frame: q, ν, ν̇, τ, contacts, status, residuals
  FilterReport report;       ///< the summary numbers
  FilterFrameReport frames;  ///< the per-frame report (--report-csv)
  /// The filtered motion in the input's layout, as --out holds it: an OpenSim model's
  /// coordinates (OpenSim's names; rotational ones in degrees when the input's are), else the
  /// joint CSV's base_x, base_y, base_z (m), base_qw, base_qx, base_qy, base_qz (w >= 0), joints.
  FilterTable filtered;
  /// The generalised forces as --torques holds them (N m / N): an OpenSim model's coordinates
  /// (<coordinate>_moment / _force), else base_fx … base_mz for a floating base and the joints.
  FilterTable torques;
};

/// Checks the options that need no file (ranges, the string options' values, combinations of
/// flags). Throws InvalidArgument naming the flag.
void checkOptions(const FilterJobOptions& options);

/// The input of the filter: the motion loaded (a BVH tracked first, progress per frame through
/// `reporter`), the time range, the plates, the RRA mass centre, the ground, a treadmill belt,
/// the soles (FilterInput::feet, the contact bodies the filter runs with) and the slope. Throws
/// InvalidArgument (checkOptions, a model or input that does not fit), ParseError (bad files).
FilterInput prepareFilterInput(const FilterJobOptions& options, const Reporter& reporter = {});

/// Runs `kinetrack dynamics filter`: prepareFilterInput, the filter (progress per frame), the
/// summary, the per-frame report and the tables, and the files of the options written (only
/// those whose path is set). Throws InvalidArgument / ParseError.
FilterJobResult runDynamicsFilter(const FilterJobOptions& options, const Reporter& reporter = {});
/// The summary table `kinetrack dynamics filter` prints.
std::string summaryText(const FilterJobResult& r, const FilterJobOptions& options);
/// The summary as JSON text (--summary-json).
std::string summaryJson(const FilterJobResult& r, const FilterJobOptions& options);
/// The per-frame report of a filtered motion.
FilterFrameReport filterFrameReport(const FilterInput& in, const FilteredMotion& out);
/// The per-frame report as the CSV --report-csv holds (time, status, then the other columns).
std::string filterReportCsv(const FilterFrameReport& report);

}  // namespace kinetrack::app
