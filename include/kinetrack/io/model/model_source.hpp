#pragma once
// Model registry: a model named on a command line or in a config, either a built-in human
// model (builtinModelNames(): "human66", "human48") or the path of a URDF, MJCF or OpenSim file,
// loaded into a Model. The library never prints: reader warnings (e.g. mimic joints) are returned.
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// Which model to load.
struct ModelSpec {
  std::string model;                          ///< built-in name (builtinModelNames()) or model file path
  std::optional<double> height;               ///< body height (m), built-in models only; default 1.75 m
  bool fixed_base = false;                    ///< fixed instead of floating base (BaseType)
  std::optional<double> mass = std::nullopt;  ///< body mass (kg), built-in models only; default 73 kg
};

/// A loaded model and where it came from.
struct LoadedModel {
  Model model;
  std::string source;                 ///< "built-in" or the URDF path
  std::optional<double> height;       ///< body height of a built-in model (m); empty for a URDF
  std::optional<double> mass;         ///< body mass of a built-in model (kg); empty for a URDF
  std::vector<std::string> warnings;  ///< URDF reader warnings (mimic joints, ignored elements)
};

/// Loads the model named by `spec`: a built-in human model at spec.height (1.75 m when empty)
/// and spec.mass (73 kg when empty), or else an OpenSim model when the path ends in ".osim"
/// (readOpenSimModel: fixed base at ground; what the reader ignored is in `warnings`), or else an
/// MJCF file when the path ends in ".mjcf" or, for any other ending but ".urdf" (".xml"), when the
/// file's first element is <mujoco> (loadMjcf: the base from the file — floating when a top-level
/// body has a free joint — unless spec.fixed_base), or else the URDF file at the path spec.model
/// (loadUrdf: floating unless spec.fixed_base).
///
/// Throws InvalidArgument when spec.model is neither a built-in name nor an existing file and
/// does not look like a path (no '/' or '.'): "unknown model 'x': not a built-in model (human66,
/// human48) and no such file"; when spec.height or spec.mass is given for an existing URDF
/// file; or when the height is outside [0.5, 2.5] m (HumanDimensions::fromHeight) or the mass
/// outside [20, 300] kg. Throws ParseError(file, line, …)
/// for a missing, unreadable or malformed model file, or a directory.
LoadedModel loadModel(const ModelSpec& spec);

}  // namespace kinetrack::io
