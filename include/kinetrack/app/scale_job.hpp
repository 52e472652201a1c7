#pragma once
// `kinetrack scale` as a job: OpenSim's ScaleTool from its setup (Setup_Scale.xml). The generic
// model gets the setup's marker set (GenericModelMaker), the ModelScaler's factors
// (subject::computeOpenSimScaleFactors: measurements of marker pairs on the static trial, manual
// scales, in the setup's order) scale it as OpenSim does (io::OpenSimModelDocument::scale, the
// subject's mass; the muscles' fibre and tendon slack lengths by their path-length ratio in the
// default pose), then the MarkerPlacer solves the static pose and moves the free markers onto the
// trial (track::placeOpenSimMarkers). Writes the scaled .osim (the generic document with the new
// numbers) and the static pose (.mot, degrees). docs/scaling.md.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"
#include "kinetrack/subject/opensim_scale.hpp"
#include "kinetrack/track/opensim_marker_placer.hpp"

namespace kinetrack::app {

struct ScaleOptions {
  std::string setup;        ///< Setup_Scale.xml (required); the files below override the ones it names
  std::string model;        ///< generic .osim (default: <GenericModelMaker><model_file>)
  std::string markers;      ///< static trial .trc/.c3d (default: the scaler's and the placer's <marker_file>)
  std::string marker_set;   ///< marker-set file (default: <marker_set_file>; none: the model's markers)
  std::string out;          ///< scaled .osim (default: the placer's <output_model_file>, else the scaler's)
  std::string static_pose;  ///< static pose .mot (default: the placer's <output_motion_file>)
  std::string scale_file;   ///< the factors as an OpenSim ScaleSet (default: the scaler's <output_scale_file>)
  std::string scaled_only;  ///< the model scaled, markers not placed (default: the scaler's <output_model_file>)
  std::string marker_axes = "auto";  ///< auto | y-up | z-up (readMarkerTrial)
  /// A body of the setup that the model lacks is an error (OpenSim, and the default, ignore it
  /// with a warning).
  bool strict = false;
  /// With out empty, write the setup's output files (the model, and the static pose, scale set
  /// and scaled-only model unless given; the CLI); with out given, only the paths given. false:
  /// only the paths given (Python: the result holds the model text).
  bool setup_outputs = true;
};

struct ScaleResult {
  std::string setup_path, model_path, marker_path, marker_set_path, out_path, static_pose_path;
  std::string scale_file_path, scaled_only_path;  ///< written when set
  std::string model_name;
  subject::OpenSimScaleFactors factors;  ///< per body and per measurement
  bool scaled = false;                   ///< the ModelScaler ran
  io::OpenSimScaleReport scaling;        ///< what scaling changed (masses before/after)
  /// Per muscle: path length after / before scaling, default pose (fibre and tendon lengths × it).
  std::vector<std::pair<std::string, double>> muscle_ratios;
  std::optional<track::MarkerPlacement> placement;  ///< when the MarkerPlacer ran
  std::string osim;                                 ///< the scaled model's text (as written)
  std::vector<std::string> notices;                 ///< what was left out (also sent as warnings)
  double wall_seconds = 0.0;
};

/// Runs the ScaleTool. Throws InvalidArgument for missing options (no setup, no model, a
/// measurements step without a trial, no output path when the setup names none and
/// setup_outputs), ParseError for bad files and what subject::computeOpenSimScaleFactors and
/// track::placeOpenSimMarkers throw (setup errors name its file and line).
ScaleResult runScale(const ScaleOptions& options, const Reporter& reporter = {});

/// The factors as OpenSim's ScaleSet file (what its ModelScaler writes to output_scale_file).
std::string scaleSetXml(const subject::OpenSimScaleFactors& factors);

/// The summary as printed: per body the factors x/y/z, the markers moved on it and their largest
/// move; the measurements; masses; the static pose's marker RMS and largest error.
std::string summaryText(const ScaleResult& r);

}  // namespace kinetrack::app
