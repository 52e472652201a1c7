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
#include "kinetrack/io/opensim.hpp"
#include "kinetrack/io/opensim_model.hpp"

namespace kinetrack::app {

struct FilterJobOptions {
  io::ModelSpec model;
  std::string input, grf;
  std::string out, torques, summary_json, report_csv;  ///< files (empty: not written; out too)
  double slope_deg = 0.0;
  double time_start = -std::numeric_limits<double>::infinity();  ///< s, --start
  double time_end = std::numeric_limits<double>::infinity();     ///< s, --end
  double cutoff = 6.0;  ///< Hz, zero-lag low-pass of the reference before differentiating (0: none)
  double friction = 0.8;
  double contact_height = 0.05, contact_speed = 0.8;
  /// Feedback gains (1/s², 1/s); NaN: DynamicsFilterOptions' defaults, or measuredLoads()'s.
  double kp = std::numeric_limits<double>::quiet_NaN(), kd = std::numeric_limits<double>::quiet_NaN();
  /// Base / unactuated coordinates' gains (1/s², 1/s); NaN: kp, kd.
  double kp_base = std::numeric_limits<double>::quiet_NaN(), kd_base = std::numeric_limits<double>::quiet_NaN();
  double force_tracking = 0.0;
  /// With --grf: "apply" (ContactForces::Measured) or "contacts" (plates give intervals only).
  std::string grf_mode = "apply";
  std::string weighting = "unit";
  std::string adjust_com;  ///< body whose mass centre is adjusted (RRA), empty: none
  double residual_softness = std::numeric_limits<double>::quiet_NaN();  ///< NaN: the mode's default  ///< "unit" or
                                                                        ///< "inertia" (ChangeWeighting)
  double grf_threshold = 20.0;  ///< N, a plate's normal force above which its foot is in contact
  double ground_height = std::numeric_limits<double>::quiet_NaN();
  bool no_skyhook = false;
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
  int status_count[5] = {0, 0, 0, 0, 0};
  double step_us_p50 = 0, step_us_p95 = 0;
  std::vector<double> plate_rms;  ///< per axis x, y, z (N): filter's contact force vs plates, both feet
};

/// The summary numbers of a filtered motion.
FilterReport summarize(const FilterInput& in, const FilteredMotion& out);

struct FilterJobResult {
  FilterInput input;      ///< the motion the filter ran on and what it ran with
  FilteredMotion motion;  ///< per frame: q, ν, ν̇, τ, contacts, status, residuals
  FilterReport report;
};

/// Runs `kinetrack dynamics filter`: the motion loaded (a BVH tracked first, progress per frame),
/// the plates, the ground, a treadmill belt, the soles, the slope, the filter (progress per
/// frame), and the files of the options written. Throws InvalidArgument / ParseError.
FilterJobResult runDynamicsFilter(const FilterJobOptions& options, const Reporter& reporter = {});
/// The summary table `kinetrack dynamics filter` prints.
std::string summaryText(const FilterJobResult& r, const FilterJobOptions& options);
/// The summary as JSON text.
std::string summaryJson(const FilterJobResult& r, const FilterJobOptions& options);
/// Per-frame diagnostics: time, status, contacts, residual force/moment norms before/after, the
/// filter's contact force per foot (x, y, z) and the plates' (when given).
std::string filterReportCsv(const FilterInput& in, const FilteredMotion& out);

namespace detail {
/// The input of the filter (dynamics_filter_input.cpp): motion, derivatives, plates, ground, belt,
/// soles and slope; `feet` are the contact bodies the filter will run with.
void prepareFilterInput(const FilterJobOptions& cfg, FilterInput& in, std::vector<ContactBody>& feet,
                        const Reporter& reporter);
}  // namespace detail

}  // namespace kinetrack::app
