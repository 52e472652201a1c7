#pragma once
// `kinetrack markers ik` as a job: marker IK of a trial (TRC or C3D) on an OpenSim model (with an
// optional Setup_IK.xml: marker and coordinate tasks, time range, accuracy; the problem OpenSim's
// IK tool solves) or on a built-in model / URDF with a marker set (optionally calibrated on a
// static trial, the subject's height and mass from a .vsk). Writes the coordinates (.mot in
// OpenSim's layout, or kinetrack's joint CSV), OpenSim's marker-error table and the summary.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/track/marker_trial.hpp"

namespace kinetrack::app {

struct MarkerIkOptions {
  std::string model;    ///< .osim (default: the setup's <model_file>), or a built-in model / URDF with markerset
  std::string markers;  ///< marker trial (.trc/.c3d); default: the setup's <marker_file>
  std::string setup;    ///< OpenSim IK setup (Setup_IK.xml); files given here override the paths inside it
  // Built-in models: marker set, static calibration trial, subject file, body size.
  std::string markerset, static_trial, vsk;
  std::optional<double> height, mass;
  std::string marker_axes = "auto";                           ///< auto | y-up | z-up
  double time_start = std::nan(""), time_end = std::nan("");  ///< s; NaN: the setup's range, else the trial's
  // Files (empty: not written).
  std::string out;     ///< .mot (OpenSim layout, degrees); for a built-in model the joint CSV unless it ends in .mot
  std::string errors;  ///< marker-error table (.sto)
  std::string summary_json;  ///< the summary
  std::string mot_copy;      ///< also the coordinates as .mot here (a built-in model's plot reads a .mot)
  /// With out empty: write the setup's <output_motion_file> (the CLI: one of them is required);
  /// false: write no coordinates file then (Python: the arrays are the result).
  bool setup_output = true;
};

struct MarkerIkSummary {
  int frames = 0, failed_frames = 0, gaps = 0, held_frames = 0, coordinates = 0;
  std::size_t markers = 0;
  double marker_rms_m = 0, marker_max_m = 0, worst_time = 0;
  std::string worst_marker = "-";
  double frame_rms_median_m = 0, frame_rms_p95_m = 0, frame_rms_max_m = 0;
  double solve_us_median = 0, solve_us_p95 = 0, iterations_median = 0, frames_per_second = 0, wall_seconds = 0;
};

struct MarkerIkResult {
  std::string model_path, marker_path, out_path;  ///< as resolved from the options and the setup
  std::string model_name;
  std::shared_ptr<const Model> model;  ///< the model solved on, with its marker frames
  track::MarkerTrialResult trial;      ///< per frame: time, status, errors, the configuration
  io::MotTable coordinates;            ///< the coordinates as written to a .mot (OpenSim's columns, or motTable's)
  MarkerIkSummary summary;
  struct Calibration {
    int frames_used = 0;
    double rms_before = 0, rms_after = 0;  ///< m
  };
  std::optional<Calibration> calibration;  ///< a built-in model's static calibration, when run
  /// 0, or 1 when a frame failed (the CLI's exit status).
  [[nodiscard]] int exitStatus() const { return summary.failed_frames > 0 ? 1 : 0; }
};

/// Runs `kinetrack markers ik`: notes its stages, warns of markers of the set the trial lacks and
/// of what the model reader ignored, reports progress per frame. Throws InvalidArgument for
/// missing or contradictory options, ParseError for bad files.
/// `loaded` (optional) replaces loading a built-in model or URDF (Python passes its Model).
MarkerIkResult runMarkerIk(const MarkerIkOptions& options, const Reporter& reporter = {},
                           const Model* loaded = nullptr);
/// The summary stage as printed ("[3/3] marker IK of …" and its table, up to the wall time).
std::string summaryText(const MarkerIkResult& r);
/// The summary as JSON text.
std::string summaryJson(const MarkerIkResult& r, const MarkerIkOptions& options);
/// The line `kinetrack markers ik` closes with: "wrote OUT (N rows)[ and ERRORS]\n".
std::string wroteLine(const MarkerIkResult& r, const MarkerIkOptions& options);

}  // namespace kinetrack::app
