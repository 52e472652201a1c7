#pragma once
// `kinetrack markers label` as a job (issue 16): the labelling subject (the labeller's model from
// an OpenSim model, or a built-in model with a marker set calibrated on a labelled static trial),
// the input read as unlabelled points, every frame labelled causally, and the labelled TRC, the
// joint angles, the per-frame report and the summary written. Also the subject loading that
// `kinetrack experiment labelling` and Python's Labeller share.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/core/types.hpp"
#include "kinetrack/io/capture/point_cloud.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/markers/labelling_trial.hpp"

namespace kinetrack::app {

struct LabellingSubjectOptions {
  std::string model;         ///< .osim, built-in name or URDF
  std::string markerset;     ///< built-in models: set name or JSON file; .osim: an OpenSim MarkerSet (.xml)
  std::string static_trial;  ///< labelled static trial (.trc/.c3d): calibration / start pose
  /// .osim models: OpenSim's Scale tool setup (Setup_Scale.xml) run on static_trial before
  /// labelling (its measurements, then its marker placement). Without it, a static trial
  /// calibrates the model itself (calibrateOpenSimForLabelling).
  std::string scale_setup;
  std::string vsk;  ///< built-in models: Vicon subject file (its Height)
  std::optional<double> height;
  std::string marker_axes = "auto";  ///< auto | y-up | z-up (of the trial files)
  bool quiet = false;                ///< no note of the static calibration
  /// human66: bound its joints by clinical limits (HumanModelOptions::clinical_limits) for the
  /// calibration and the labeller's IK; false: its continuous joints.
  bool joint_limits = true;
};

/// What the static calibration of an .osim model did (calibrateOpenSimForLabelling or the Scale tool).
struct OpenSimLabellingCalibration {
  std::string method;       ///< "uniform scale + marker placement", "marker placement (…)" or "Scale tool (SETUP)"
  double scale = 1.0;       ///< the uniform factor (1 with a Scale tool setup, or when not applied)
  int scale_markers = 0;    ///< markers whose height ratios the uniform factor is the median of
  int frames = 0;           ///< static frames averaged
  int markers_placed = 0;   ///< markers moved onto the static trial
  double rms_before = 0.0;  ///< marker RMS of the static pose before placement (m; after it they sit on the trial)
  std::string osim;         ///< the calibrated model's text
};

/// Calibrates an OpenSim model (its text; `osim_path` names it in messages) for labelling from a labelled static trial
/// (positions in the model's Y-up world, m) when no Scale setup is at hand:
/// - uniform scale: the median over the shared markers at least 0.5 m above the lowest one (a
///   foot marker) of their height above it in the static trial over the model's (default pose) —
///   heights do not depend on the arms' pose nor on where a generic set puts its cluster markers;
///   not applied within 2 % of 1 (a model scaled already);
/// - the static pose by iteratively reweighted IK (4 rounds, weight 1 / (1 + (e / 3 cm)²) of the
///   last error e), so that cluster markers a generic set puts anywhere do not pull it off;
/// - every marker of the trial moved onto its mean static position in its body at that pose
///   (OpenSim's MarkerPlacer, track::placeOpenSimMarkers, fixed markers too).
/// Segments keep the generic model's proportions, but each marker cluster gets the subject's exact
/// geometry, which is what labelling needs. Throws InvalidArgument for fewer than 3 shared markers.
OpenSimLabellingCalibration calibrateOpenSimForLabelling(const std::string& osim_text, const std::string& osim_path,
                                                         const io::MarkerTrajectories& static_trial);

struct LabellingSubject {
  std::shared_ptr<const markers::LabellerModel> model;
  std::optional<io::OpenSimModel> osim;                    ///< set for an .osim model
  bool y_up = false;                                       ///< the model's world is Y up (OpenSim)
  std::string description;                                 ///< "gait2354 (23 coordinates), 39 markers"
  std::optional<OpenSimLabellingCalibration> calibration;  ///< an .osim model calibrated on its static trial
};

/// Loads the model and its marker set. `names`, when not empty, restricts the set to those
/// markers (in the set's order; names the set lacks are ignored). Notes the static calibration's
/// figures unless options.quiet. Throws InvalidArgument / ParseError naming what is wrong.
LabellingSubject loadLabellingSubject(const LabellingSubjectOptions& options,
                                      const std::vector<std::string>& names = {}, const Reporter& reporter = {});

/// True for a file name ending in `suffix` (lower case; the name's case is ignored).
bool hasSuffix(const std::string& path, const std::string& suffix);

/// Rotation taking file axes to the model's world (a permutation of the axes): a TRC is Y up and
/// a C3D Z up unless `axes` says otherwise (as io::readMarkerTrial); a CSV is in the model's
/// axes unless said.
Matrix3d fileToModelAxes(const std::string& path, const std::string& axes, bool model_y_up);

/// The joint angles of labelled frames: an OpenSim .mot (coordinates, degrees) for an .osim
/// model, else kinetrack's coordinate table (motTable).
io::MotTable jointTable(const LabellingSubject& subject, const markers::LabelTrialResult& result);

struct LabelOptions {
  LabellingSubjectOptions subject;
  std::string input;  ///< long CSV frame,time,x,y,z; a C3D (labels ignored); a labelled .trc/.c3d with strip_labels
  bool strip_labels = false;
  std::string units = "mm";               ///< of a CSV input: mm or m
  std::vector<std::string> marker_names;  ///< only these markers of the set (empty: all, or those a stripped file wore)
  /// The labeller's options (gates, confidence, drop_unsure: unsure labels left out of the output).
  markers::LabellerOptions labeller;
  // The files written (empty: not written).
  std::string out;         ///< labelled TRC (the model's marker order, the file's axes and units)
  std::string ik_out;      ///< joint angles of the same frames (.mot)
  std::string model_out;   ///< .osim model calibrated on the static trial (its markers placed), as labelled
  std::string report;      ///< per-frame report CSV
  std::string confidence;  ///< per-frame, per-marker label confidence CSV (labelConfidenceCsv)
  std::string summary_json;
};

/// The summary figures of a labelled trial.
struct LabelSummary {
  int frames = 0, markers = 0;
  double labelled_median = 0, labelled_min = 0, labelled_max = 0;
  long gaps = 0, rigid_rejections = 0, relabelled = 0, points = 0, points_dropped_nan = 0;
  int unsure_frames = 0;        ///< frames with a label below LabellerOptions::unsure_threshold
  long unsure_labels = 0;       ///< labels below it (left out of the output with drop_unsure)
  long swaps_corrected = 0;     ///< marker pairs found swapped and exchanged
  double min_confidence = 1.0;  ///< lowest label confidence of the trial (1 when nothing is labelled)
  double ghosts_median = 0, ghosts_max = 0;
  int initialisations = 0, lost_frames = 0;
  double ik_rms_median_m = 0, ik_rms_p95_m = 0;
  double frame_us_median = 0, frame_us_p95 = 0, labelling_us_median = 0, labelling_us_p95 = 0;
  double wall_seconds = 0;
};

struct LabelResult {
  LabellingSubject subject;
  markers::LabelTrialResult trial;
  io::MarkerTrajectories labelled;  ///< the labelled points in the file's axes (NaN = gap)
  LabelSummary summary;
};

/// Runs `kinetrack markers label`: notes its three stages, reports progress per frame.
LabelResult runLabel(const LabelOptions& options, const Reporter& reporter = {});
/// The summary stage as printed ("[3/3] labelled …" and the table).
std::string summaryText(const LabelResult& r, const LabelOptions& options);
/// The summary as JSON text.
std::string summaryJson(const LabelResult& r, const LabelOptions& options);
/// The per-frame report CSV text (frame, time, points, assigned, gaps, ghosts, state, IK …, then
/// swaps_corrected, unsure and min_confidence).
std::string labelReportCsv(const markers::LabelTrialResult& r);
/// The label confidences as CSV: `frame,time,<marker>…`, one row per frame, each marker's
/// confidence in [0, 1] (LabelTrialResult::confidence), empty for a gap.
std::string labelConfidenceCsv(const markers::LabelTrialResult& r);

}  // namespace kinetrack::app
