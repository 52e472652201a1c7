#pragma once
// OpenSim ExternalLoads (`*_grf.xml` and its data file, e.g. force-plate readings in a .mot) and
// the InverseDynamicsTool setup (Setup_InverseDynamics.xml). Errors name the file, line and
// element or column (kinetrack::ParseError).
//
// An <ExternalForce> applies to `applied_to_body` a force read from three data columns
// `<force_identifier>x/y/z` (N), expressed in `force_expressed_in_body`; optionally at the point
// `<point_identifier>x/y/z` (m) expressed in `point_expressed_in_body` (else the body origin),
// and a free torque `<torque_identifier>x/y/z` (N·m, in the force's frame). Each identifier is a
// column prefix: x, y, z (or "1", "2", "3") appended (docs/musculoskeletal.md). Values between
// samples are interpolated linearly.
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {

/// One <ExternalForce> as written in the file.
struct ExternalForceSpec {
  std::string name;
  bool disabled = false;
  std::string applied_to_body;
  std::string force_expressed_in_body = "ground";
  std::string point_expressed_in_body = "ground";
  std::string force_identifier, point_identifier, torque_identifier;  ///< "" when absent
  std::string data_source_name;
  int line = 0;  ///< line of the <ExternalForce> element
};

/// An ExternalLoads file.
struct ExternalLoadsSpec {
  std::string source;     ///< the XML file
  std::string directory;  ///< its folder: `datafile` is relative to it
  std::string name;
  std::string datafile;  ///< as written ("" when absent)
  int datafile_line = 0;
  std::vector<ExternalForceSpec> forces;  ///< file order, disabled ones included

  /// `file` resolved against `directory` (absolute paths kept).
  [[nodiscard]] std::string resolve(const std::string& file) const;
};

/// Reads an ExternalLoads XML file (any OpenSimDocument version). Throws ParseError for a
/// missing file, malformed XML, no <ExternalLoads>, an <ExternalForce> without a name, an
/// applied_to_body or a force_identifier.
ExternalLoadsSpec readExternalLoadsSpec(const std::string& path);
ExternalLoadsSpec parseExternalLoadsSpec(const std::string& xml_text, const std::string& source);

/// The data columns of one enabled external force: indices into ExternalLoads::data.columns
/// (x, y, z), −1 when the force has no point or no torque.
struct ExternalForceColumns {
  int force[3] = {-1, -1, -1};
  int point[3] = {-1, -1, -1};
  int torque[3] = {-1, -1, -1};
};

/// One external force at one instant, in the frames the spec names (not yet in the world).
struct ExternalForceSample {
  Vector3d force = Vector3d::Zero();
  Vector3d point = Vector3d::Zero();
  Vector3d torque = Vector3d::Zero();
  bool has_point = false;
};

/// An ExternalLoads file with its data table, the enabled forces bound to their columns.
struct ExternalLoads {
  ExternalLoadsSpec spec;
  std::string data_source;  ///< the data file read
  MotTable data;
  std::vector<ExternalForceSpec> forces;  ///< the enabled forces, in file order
  std::vector<ExternalForceColumns> columns;
  /// What reading repaired (a <datafile> found beside the XML instead of where it points).
  std::vector<std::string> notices;

  [[nodiscard]] double firstTime() const { return data.times.front(); }
  [[nodiscard]] double lastTime() const { return data.times.back(); }
  /// Every enabled force at time t (s), interpolated linearly between samples; `out` has one
  /// entry per force. Throws InvalidArgument for t outside [firstTime(), lastTime()] (beyond a
  /// 1e-6 s tolerance) or a wrong `out` size. Does not allocate.
  void sample(double t, std::vector<ExternalForceSample>& out) const;
};

/// Reads an ExternalLoads file and its data file (`data_file` overrides the spec's <datafile>,
/// "" keeps it; a <datafile> that does not exist where it points but does beside the XML —
/// pipelines copied out of their folders — is read from there, with a notice). Throws ParseError naming the file and
/// line for: everything readExternalLoadsSpec refuses, no data file, a force, point or torque column that the data file
/// lacks (naming the ExternalForce, its line and the column), a NaN or infinite value in a used column (naming the
/// column and time), fewer than 2 rows.
ExternalLoads readExternalLoads(const std::string& path, const std::string& data_file = "");
/// Binds a parsed spec to a data table already read (`data_source` names it in errors).
ExternalLoads bindExternalLoads(ExternalLoadsSpec spec, MotTable data, const std::string& data_source);

/// An InverseDynamicsTool setup. File names are as written (resolve them against `directory`).
struct IdSetup {
  std::string source;
  std::string directory;
  std::string name;
  std::string model_file, coordinates_file, external_loads_file, output_gen_force_file, results_directory;
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  /// Low-pass cut-off for the coordinates (Hz); negative: no filtering (OpenSim's default −1).
  double lowpass_cutoff_hz = -1.0;
  std::vector<std::string> forces_to_exclude;  ///< e.g. "Muscles" (case as written)
  /// <coordinates_in_degrees> when present (legacy setups); otherwise the file's header decides.
  int coordinates_in_degrees = -1;  ///< −1 absent, 0 false, 1 true

  [[nodiscard]] std::string resolve(const std::string& file) const;
};

/// Reads a Setup_InverseDynamics.xml. Throws ParseError for a missing file, malformed XML, no
/// <InverseDynamicsTool>, a time_range that is not two finite numbers with start ≤ end, a cut-off
/// that is not a number.
IdSetup readIdSetup(const std::string& path);
IdSetup parseIdSetup(const std::string& xml_text, const std::string& source);

}  // namespace kinetrack::io
