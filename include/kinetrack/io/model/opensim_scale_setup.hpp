#pragma once
// OpenSim's ScaleTool setup (Setup_Scale.xml, format versions 2.x–4.x): the subject's mass, the
// GenericModelMaker (model and marker-set files), the ModelScaler (scaling order, measurements of
// marker pairs applied to bodies' axes, manual scales, static trial, time range, mass rule) and
// the MarkerPlacer (IK task weights, static trial, time range, output files). File names are kept
// as written ("Unassigned" read as empty); resolve them against the setup's folder as OpenSim does.
// Errors are ParseError naming the file, the line and the item.
#include <array>
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/model/opensim_setup.hpp"

namespace kinetrack::io {

/// Two markers whose distance (trial over model) gives a scale factor.
struct ScaleMarkerPair {
  std::string first, second;
  int line = 0;
};

/// A body scaled by a measurement along some of its axes (X, Y, Z of the body frame).
struct ScaleBodyAxes {
  std::string body;
  std::array<bool, 3> axes{false, false, false};
  int line = 0;
};

/// A <Measurement>: the mean over its pairs of (trial distance / model distance), applied to the
/// listed axes of the listed bodies.
struct ScaleMeasurement {
  std::string name;
  bool apply = true;
  std::vector<ScaleMarkerPair> pairs;
  std::vector<ScaleBodyAxes> bodies;
  int line = 0;
};

/// A <Scale> of the manual ScaleSet: the factors of one body.
struct ManualScale {
  std::string body;
  Vector3d factors = Vector3d::Ones();
  bool apply = true;
  int line = 0;
};

struct ScaleSetup {
  std::string source;     ///< the setup file
  std::string directory;  ///< its folder ("" for the working directory)
  std::string name;
  double mass = -1.0;  ///< subject mass (kg); ≤ 0: the masses are not scaled to a total
  // GenericModelMaker
  std::string model_file, marker_set_file;
  // ModelScaler
  bool scaler_apply = true;
  /// "measurements" and/or "manualScale", in the order they are applied.
  std::vector<std::string> scaling_order;
  std::vector<ScaleMeasurement> measurements;
  std::vector<ManualScale> manual_scales;
  std::string scaler_marker_file;
  double scaler_time_start = -std::numeric_limits<double>::infinity();
  double scaler_time_end = std::numeric_limits<double>::infinity();
  bool preserve_mass_distribution = false;
  std::string scaler_output_model_file, output_scale_file;
  // MarkerPlacer
  bool placer_apply = true;
  std::vector<IkMarkerTaskSpec> marker_tasks;
  std::vector<IkCoordinateTaskSpec> coordinate_tasks;
  std::string placer_marker_file, coordinate_file;
  double placer_time_start = -std::numeric_limits<double>::infinity();
  double placer_time_end = std::numeric_limits<double>::infinity();
  std::string output_model_file, output_motion_file, output_marker_file;
  double max_marker_movement = -1.0;  ///< m; < 0: unchecked
  int line = 0;                       ///< of <ScaleTool>

  /// `file` resolved against `directory` (absolute paths kept; "" stays "").
  [[nodiscard]] std::string resolve(const std::string& file) const;
  /// The setup's marker tasks and coordinate tasks as an IK setup (same file, same lines), for
  /// the marker placer's static pose.
  [[nodiscard]] IkSetup ikSetup() const;
};

/// Reads a Setup_Scale.xml (an <IKTaskSet file="…"> is read from that file). Throws ParseError
/// (file, line, item) for a missing file, malformed XML, no <ScaleTool>, a number that does not
/// parse, a scaling_order word other than measurements/manualScale, a marker pair without exactly
/// two markers ("Measurement 'torso': <markers> 'V.Sacral' names 1 marker, expected 2"), a
/// BodyScale without a name or with an axis other than X, Y, Z, a Scale without a segment or
/// three factors, or a time range that starts after it ends.
ScaleSetup readScaleSetup(const std::string& path);
ScaleSetup parseScaleSetup(const std::string& xml_text, const std::string& source);

}  // namespace kinetrack::io
