#pragma once
// The muscles of an OpenSim model (.osim, 3.0 and 4.0 formats): muscle-tendon parameters, the
// GeometryPath (PathPoint, ConditionalPathPoint, MovingPathPoint and the PathWrapSet), the wrap
// objects of the bodies (WrapCylinder, WrapEllipsoid, WrapSphere) and the CoordinateActuators of
// the ForceSet (reserve actuators). Read from the same XML as readOpenSimModel; the geometry and
// the solvers are in kinetrack/muscles/ (docs/muscles.md).
#include <limits>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/joint_function.hpp"

namespace kinetrack::io {

/// One point of a muscle path, in its body frame.
struct OpenSimPathPoint {
  enum class Kind : std::uint8_t { Fixed, Conditional, Moving };
  std::string name;
  Kind kind = Kind::Fixed;
  std::string body;                      ///< OpenSim body ("ground" included)
  Vector3d location = Vector3d::Zero();  ///< m, body frame (Fixed, Conditional)
  /// Conditional: the point is on the path while coordinate ∈ [range_min, range_max] (rad or m).
  std::string coordinate;
  double range_min = 0.0, range_max = 0.0;
  /// Moving: location(k) = function[k](value of coordinates[k]); an empty coordinate keeps
  /// location(k).
  ScalarFunction function[3];
  std::string coordinates[3];
  int line = 0;
};

/// A wrap object fixed to a body: a cylinder (axis z of its frame), an ellipsoid (semi-axes
/// `dimensions`) or a sphere, at (rotation, translation) in the body frame.
struct OpenSimWrapObject {
  enum class Kind : std::uint8_t { Cylinder, Ellipsoid, Sphere };
  std::string name;
  Kind kind = Kind::Cylinder;
  std::string body;
  Matrix3d rotation = Matrix3d::Identity();  ///< wrap frame in the body frame (xyz_body_rotation)
  Vector3d translation = Vector3d::Zero();
  bool active = true;
  int quadrant_axis = -1;                  ///< 0, 1, 2 for x, y, z; −1 for "all" (no constraint)
  int quadrant_sign = 1;                   ///< +1 or −1 ("-y")
  double radius = 0.0;                     ///< cylinder, sphere (m)
  double length = 0.0;                     ///< cylinder (m); kept as information: wrapping treats it as infinite
  Vector3d dimensions = Vector3d::Zero();  ///< ellipsoid semi-axes (m)
  int line = 0;
};

/// A <PathWrap>: wrap the segments of the path points range_begin…range_end (1-based indices
/// into the path points, −1 for the first/last) over `wrap_object` (index into the set's list).
struct OpenSimPathWrap {
  int wrap_object = -1;
  int range_begin = -1, range_end = -1;
  int line = 0;
};

/// A muscle: Thelen 2003 parameters (OpenSim's defaults when the file omits one).
struct OpenSimMuscle {
  std::string name, type;                  ///< type: the XML class ("Thelen2003Muscle", …)
  double max_isometric_force = 0.0;        ///< N
  double optimal_fiber_length = 0.0;       ///< m
  double tendon_slack_length = 0.0;        ///< m
  double pennation_angle = 0.0;            ///< rad at optimal fibre length
  double max_contraction_velocity = 10.0;  ///< optimal fibre lengths per second
  double min_control = 0.0, max_control = 1.0;
  double kshape_active = 0.45, kshape_passive = 5.0, af = 0.25, flen = 1.8;
  double fmax_muscle_strain = 0.6, fmax_tendon_strain = 0.033;
  std::vector<OpenSimPathPoint> points;
  std::vector<OpenSimPathWrap> wraps;
  int line = 0;
};

/// A CoordinateActuator: generalised force = control · optimal_force on `coordinate`.
struct OpenSimCoordinateActuator {
  std::string name, coordinate;
  double optimal_force = 1.0;
  double min_control = -std::numeric_limits<double>::infinity();
  double max_control = std::numeric_limits<double>::infinity();
  int line = 0;
};

struct OpenSimMuscleSet {
  std::string source;
  std::vector<OpenSimWrapObject> wrap_objects;
  std::vector<OpenSimMuscle> muscles;
  std::vector<OpenSimCoordinateActuator> actuators;
  std::vector<std::string> notices;  ///< forces that are neither muscles nor coordinate actuators
};

/// Reads the muscles of an .osim file. Throws ParseError(file, line, message) for a missing
/// file, malformed XML, a number that is not finite, a muscle without path points, a path point
/// on a frame that is not a body, a PathWrap naming an unknown wrap object, an unsupported wrap
/// object type (WrapTorus, WrapDoubleCylinderObst, …: named) or a bad quadrant.
OpenSimMuscleSet readOpenSimMuscles(const std::string& path);
OpenSimMuscleSet parseOpenSimMuscles(const std::string& xml_text, const std::string& source);
/// Actuators of a force-set file (a static-optimisation setup's <force_set_files>, e.g. reserve
/// actuators): CoordinateActuators only, others listed in notices.
std::vector<OpenSimCoordinateActuator> readOpenSimActuators(const std::string& path,
                                                            std::vector<std::string>* notices = nullptr);

/// An AnalyzeTool setup with a StaticOptimization analysis (paths as written; `resolve`).
struct StaticOptimizationSetup {
  std::string source, directory;
  std::string model_file, coordinates_file, external_loads_file;
  std::vector<std::string> force_set_files;
  bool replace_force_set = false;
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  double lowpass_hz = -1.0;  ///< ≤ 0: no filtering
  double activation_exponent = 2.0;
  bool use_muscle_physiology = true;
  bool use_model_force_set = true;
  [[nodiscard]] std::string resolve(const std::string& file) const;
};
/// Throws ParseError (file, line, element) for a missing file, malformed XML, no <AnalyzeTool>
/// or no <StaticOptimization> in it, a non-numeric value, or an activation_exponent other than 2
/// (the only one solved).
StaticOptimizationSetup readStaticOptimizationSetup(const std::string& path);

}  // namespace kinetrack::io
