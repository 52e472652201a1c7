#pragma once
// OpenSim tool setups: the InverseKinematicsTool file (Setup_IK.xml) — marker and coordinate
// tasks with weights, files, time range, accuracy and constraint weight. Errors name the file,
// line and element (kinetrack::ParseError).
#include <limits>
#include <string>
#include <vector>

namespace kinetrack::io {

/// An <IKMarkerTask>: fit marker `name` with `weight` when `apply`.
struct IkMarkerTaskSpec {
  std::string name;
  bool apply = true;
  double weight = 1.0;
  int line = 0;  ///< line in the setup (or task-set) file, for messages
};

/// An <IKCoordinateTask>: pull coordinate `name` towards a value.
struct IkCoordinateTaskSpec {
  enum class ValueType : std::uint8_t {
    DefaultValue,  ///< the coordinate's default value in the model
    ManualValue,   ///< `value` (the model's units: rad or m)
    FromFile,      ///< the coordinate's column in the setup's coordinate_file, per frame
  };
  std::string name;
  bool apply = true;
  double weight = 1.0;
  ValueType value_type = ValueType::DefaultValue;
  double value = 0.0;
  int line = 0;
};

/// An InverseKinematicsTool setup. File names are as written in the setup (resolve them against
/// `directory`, the setup's own folder, as OpenSim does).
struct IkSetup {
  std::string source;     ///< the setup file
  std::string directory;  ///< its folder ("" for the working directory)
  std::string name;
  std::string model_file, marker_file, coordinate_file, output_motion_file;
  double constraint_weight = std::numeric_limits<double>::infinity();
  double accuracy = 1e-5;
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  bool report_errors = true;
  bool report_marker_locations = false;
  std::vector<IkMarkerTaskSpec> marker_tasks;
  std::vector<IkCoordinateTaskSpec> coordinate_tasks;

  /// `file` resolved against `directory` (absolute paths kept).
  [[nodiscard]] std::string resolve(const std::string& file) const;
};

/// Reads a Setup_IK.xml (an <IKTaskSet file="…"> is read from that file, relative to the setup).
/// Throws ParseError for a missing file, malformed XML, no <InverseKinematicsTool>, a weight or
/// time that is not a finite number (weights ≥ 0), an unknown value_type, or a time range with
/// start > end.
IkSetup readIkSetup(const std::string& path);
IkSetup parseIkSetup(const std::string& xml_text, const std::string& source);

}  // namespace kinetrack::io
