#pragma once
// Vicon subject files (.vsk, XML), read for their subject parameters: the <StaticParameter> and
// <Parameter> elements (NAME, VALUE) of <KinematicModel><Parameters>, e.g. Plug-in Gait's
// Bodymass (kg), Height, LeftLegLength, … (mm). The skeleton and marker definitions are not read.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kinetrack::io {

struct VskSubject {
  std::string source;
  std::string model;  ///< KinematicModel MODEL attribute ("PlugInGait FullBody Ai"), "" when absent
  /// Every parameter with a VALUE, in file order, as written (lengths in mm, angles in rad).
  std::vector<std::pair<std::string, double>> parameters;

  /// The value of parameter `name`, or nothing when the file has none with a VALUE.
  [[nodiscard]] std::optional<double> parameter(const std::string& name) const;
  /// Height (m) from the "Height" parameter (mm); throws InvalidArgument when absent.
  [[nodiscard]] double height() const;
  /// Body mass (kg) from the "Bodymass" parameter; throws InvalidArgument when absent.
  [[nodiscard]] double mass() const;
};

/// Reads a .vsk file. Throws ParseError (file, line) for a missing or malformed file, a root
/// element other than <KinematicModel>, a parameter without NAME, a VALUE that is not a finite
/// number, or a name given two values.
VskSubject readVsk(const std::string& path);
/// The same on the file's text; `source` names it in errors.
VskSubject parseVsk(const std::string& xml_text, const std::string& source);

}  // namespace kinetrack::io
