#pragma once
// One description of a marker problem: the model that carries one frame per marker, the markers
// (trial column or label, model frame, weight), the coupler constraints, the joint bounds, the
// pose a solve or a search starts from and the world's up direction. The marker IK of a trial
// (track::MarkerIkSpec: + coordinate tasks, base alignment, solver options) and the labeller
// (markers::LabellerModel: + the resolved frames, links and same-link pairs) are built on it.
//
// One builder per source: an OpenSim model with its MarkerSet, or a kinetrack model (built-in,
// URDF) with an io::MarkerSet; the subject's static trial places the start (staticPose) or
// calibrates the set first (markerSetProblem, marker_calibration.hpp).
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/joint_function.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::subject {

struct MarkerModel {
  std::shared_ptr<const Model> model;  ///< carries one frame per marker
  struct Marker {
    std::string name;   ///< the trial column / the label
    std::string frame;  ///< model frame
    double weight = 1.0;
  };
  /// A coupler constraint (OpenSim's CoordinateCouplerConstraint): dependent = f(independent).
  struct Coupler {
    std::string name, dependent, independent;
    ScalarFunction function;
    /// +infinity: exact (OpenSim's default constraint_weight); else the penalty weight.
    double weight = std::numeric_limits<double>::infinity();
  };
  std::vector<Marker> markers;
  std::vector<Coupler> couplers;
  /// Joint bounds (size numJoints; ±infinity: none; lower = upper: locked). Empty: none.
  VectorXd lower, upper;
  /// The pose the first frame (marker IK) or the initialisation (labeller) starts from: the
  /// default or static pose. Empty joints: the zero configuration.
  Configuration reference;
  Vector3d up = Vector3d::UnitZ();  ///< world vertical (unit)

  [[nodiscard]] int numMarkers() const { return static_cast<int>(markers.size()); }
  /// Index of the marker named `name`, or −1.
  [[nodiscard]] int find(const std::string& name) const;
  /// The marker names, in order.
  [[nodiscard]] std::vector<std::string> names() const;
};

/// From an OpenSim model: its MarkerSet (or the subset `names`, in that order; empty = all), each
/// marker its own frame with weight 1; bounds = the clamped coordinates' ranges, locked
/// coordinates held at their default, the rest free; the enforced couplers, exact; reference =
/// the default pose; up = −gravity (+Y without gravity). Throws InvalidArgument for a name that
/// is not a marker of the model (listing them).
MarkerModel markerModel(const io::OpenSimModel& osim, const std::vector<std::string>& names = {});

/// From a kinetrack model without the markers and a marker set: the model with the set's markers
/// (io::withMarkers), one marker per set marker (trial column = frame = marker name, the set's
/// weight), bounds = the model's position limits, reference = `reference` (the zero
/// configuration when empty), up = +Z. Throws InvalidArgument for a null model, a set that does
/// not fit the model (see withMarkers) or a reference of the wrong size.
MarkerModel markerModel(std::shared_ptr<const Model> model, const io::MarkerSet& set,
                        const Configuration& reference = {});

/// The marker IK the model states (ik::MarkerIk): its markers with their weights, its couplers,
/// its bounds (when set), the state at the reference pose. Throws InvalidArgument for a marker on
/// a frame the model lacks or bad bounds.
ik::MarkerIk makeMarkerIk(const MarkerModel& model, const ik::MarkerIkOptions& options = {});

/// The pose OpenSim's IK gives the mean marker positions of `static_trial` (every frame) from the
/// reference pose: the subject's static pose, a start for a model whose markers are not
/// calibrated. Throws InvalidArgument when the trial has fewer than 3 of the model's markers.
Configuration staticPose(const MarkerModel& model, const io::MarkerTrajectories& static_trial);

}  // namespace kinetrack::subject
