#pragma once
// Shared by `kinetrack markers label` and `kinetrack experiment labelling`: the labeller's model
// from an OpenSim model or a built-in model with a marker set (optionally calibrated on a
// labelled static trial), and trials read into the model's world.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/opensim.hpp"
#include "kinetrack/io/opensim_model.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/markers/labelling_trial.hpp"

namespace kinetrack::cli {

struct LabellingSubjectSpec {
  std::string model;         ///< .osim, built-in name or URDF
  std::string markerset;     ///< built-in models: set name or JSON file
  std::string static_trial;  ///< labelled static trial (.trc/.c3d): calibration / start pose
  std::string vsk;
  std::optional<double> height;
  std::string marker_axes = "auto";  ///< auto | y-up | z-up (of the trial files)
  bool quiet = false;                ///< no notes on stdout
  /// human66: bound its joints by clinical limits (HumanModelOptions::clinical_limits) for the
  /// calibration and the labeller's IK; false: its continuous joints.
  bool joint_limits = true;
};

struct LabellingSubject {
  std::shared_ptr<const markers::LabellerModel> model;
  std::optional<io::OpenSimModel> osim;  ///< set for an .osim model
  bool y_up = false;                     ///< the model's world is Y up (OpenSim)
  std::string description;               ///< "gait2354 (23 coordinates), 39 markers"
};

/// Loads the model and its marker set. `names`, when not empty, restricts the set to those
/// markers (in the set's order; names the set lacks are ignored). Throws UsageError /
/// InvalidArgument / ParseError naming what is wrong.
LabellingSubject loadLabellingSubject(const LabellingSubjectSpec& spec, const std::vector<std::string>& names = {});

/// True for a file name ending in `suffix` (case-insensitive).
bool hasSuffix(const std::string& path, const std::string& suffix);

/// Rotation taking file axes to the model's world (a permutation of the axes): a TRC is Y up and
/// a C3D Z up unless `axes` says otherwise (as track::readMarkerTrial); a CSV is in the model's
/// axes unless said.
Matrix3d fileToModelAxes(const std::string& path, const std::string& axes, bool model_y_up);

/// The joint angles of labelled frames: an OpenSim .mot (coordinates, degrees) for an .osim
/// model, else kinetrack's coordinate table.
io::MotTable jointTable(const LabellingSubject& subject, const markers::LabelTrialResult& result);

}  // namespace kinetrack::cli
