#pragma once
// OpenSim models (.osim, format versions 1.9 = 10901, 2.x/3.0 = 2xxxx/30000 and 4.0 = 40000) read
// into a kinetrack Model, and OpenSim marker-set files (a Scale tool's <MarkerSet>).
//
// The mapping (docs/formats.md, "OpenSim models", has the details):
// - Fixed base: the root link is "ground"; OpenSim's world frame is kept as it is (Y up).
// - Every OpenSim coordinate is exactly one kinetrack joint named after the coordinate, so the
//   columns of an OpenSim .mot file are joint names. A multi-coordinate OpenSim joint becomes a
//   chain of one-coordinate joints joined by massless links named "<child body>/<coordinate>";
//   joints come in tree order (parents first), OpenSimModel::coordinates keeps OpenSim's order.
// - Pure axes map to the fast built-in types (a rotation by s: Revolute, a translation by s:
//   Prismatic); anything else (splines, scales, constants, several axes) is JointType::Custom.
// - Every body B is the frame named after it (`model.frameId("femur_r")`): the link itself when
//   the link frame (the joint's child offset frame M) coincides with B, else a User frame. Every
//   marker is a User frame named after the marker, and so is every PhysicalOffsetFrame of a body's
//   <components> (an IMU frame placed by OpenSense).
// - Forces, muscles, controllers, contact geometry, probes, wrap objects and constraints other
//   than CoordinateCouplerConstraint are ignored and counted in OpenSimModel::notices.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/joint_function.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// One OpenSim coordinate (a kinetrack joint of the same name).
struct OpenSimCoordinate {
  std::string name;
  JointId joint;               ///< the kinetrack joint named `name`
  bool rotational = true;      ///< rad (true) or m; drives a rotation axis (4.0) or motion_type (old files)
  double default_value = 0.0;  ///< rad or m
  double range_min = 0.0, range_max = 0.0;  ///< rad or m; also the model's joint limits
  bool clamped = false;                     ///< OpenSim enforces the range
  bool locked = false;                      ///< OpenSim holds it at its default value
};

/// One marker of a model or of a marker-set file.
struct OpenSimMarker {
  std::string name;
  std::string body;                      ///< the OpenSim body it is fixed to ("ground" included)
  Vector3d location = Vector3d::Zero();  ///< in the body frame B (m)
  bool fixed = false;                    ///< OpenSim's Scale-tool flag, kept as information
  FrameId frame;                         ///< its User frame in the model (invalid outside a model)
  int line = 0;                          ///< line of the <Marker> element in its file (0: not from a file)
};

/// A PhysicalOffsetFrame fixed to a body: one in a body's (or the ground's) <components>, such as
/// an IMU frame OpenSense's IMUPlacer adds. A User frame of the model named after it.
struct OpenSimOffsetFrame {
  std::string name;
  std::string body;  ///< the body it is fixed to ("ground" included), through any chain of frames
  Transform X_BF;    ///< its placement in the body frame B
  FrameId frame;     ///< its frame in the model (invalid outside a model)
  int line = 0;      ///< line of the <PhysicalOffsetFrame> element
};

/// A CoordinateCouplerConstraint: dependent = function(independent).
struct OpenSimCoupler {
  std::string name;
  std::string dependent;    ///< coordinate name
  std::string independent;  ///< coordinate name
  ScalarFunction function;  ///< scale_factor folded in
  bool enforced = true;     ///< isEnforced (4.0) / not isDisabled (old files)
};

/// A model read from an .osim file.
struct OpenSimModel {
  std::shared_ptr<const Model> model;
  std::string source;
  int version = 0;  ///< the file's OpenSimDocument Version: 10901, 20xxx, 30000, 40000, …
  Vector3d gravity = Vector3d(0.0, -9.80665, 0.0);  ///< m/s², ground frame
  std::vector<OpenSimCoordinate> coordinates;       ///< OpenSim order (joint file order, then coordinate order)
  std::vector<OpenSimMarker> markers;               ///< file order
  std::vector<OpenSimCoupler> couplers;
  /// Offset frames in the bodies' and the ground's <components> (4.0 files), file order. A frame
  /// whose name is taken (a body, a marker) is left out with a notice.
  std::vector<OpenSimOffsetFrame> offset_frames;
  std::vector<std::string> bodies;  ///< OpenSim bodies in file order (ground excluded)
  /// What was ignored or approximated, one line each ("ignored: ForceSet with 54 elements …").
  std::vector<std::string> notices;

  /// The fixed base at the origin and every coordinate at its default_value.
  [[nodiscard]] Configuration defaultConfiguration() const;
  /// The coordinate of that name, or nullptr.
  [[nodiscard]] const OpenSimCoordinate* findCoordinate(std::string_view name) const;
  /// The offset frame of that name, or nullptr.
  [[nodiscard]] const OpenSimOffsetFrame* findOffsetFrame(std::string_view name) const;
};

struct OpenSimReadOptions {
  /// Replaces the model's own MarkerSet (e.g. by readOpenSimMarkerSet of a Scale tool's marker
  /// file): every marker's body must be a body of the model.
  std::optional<std::vector<OpenSimMarker>> markers;
  /// File the replacement markers come from, for error messages (their `line` refers to it).
  std::string markers_source;
};

/// Reads an .osim file. Throws ParseError(file, line, message) for: a missing file, malformed
/// XML, a number that does not parse or is not finite ("Coordinate 'knee_angle_r': range: 'abc'
/// is not a number"), a joint naming an unknown body or frame (listing the known ones), a marker
/// on an unknown body, an unsupported joint or function type, a reversed joint, a TransformAxis
/// driven by several coordinates, a coordinate that drives two rotations with another coordinate
/// between them, a coupler with several independent coordinates, a body not connected to ground
/// or with two parent joints. Nothing unsupported is skipped silently: what is ignored is listed
/// in `notices`.
OpenSimModel readOpenSimModel(const std::string& path, const OpenSimReadOptions& options = {});
/// Same for .osim text held in memory; `source` names it in errors.
OpenSimModel parseOpenSimModel(const std::string& xml_text, const std::string& source,
                               const OpenSimReadOptions& options = {});

/// Reads the markers of a marker-set file (<OpenSimDocument><MarkerSet> of any version, or the
/// MarkerSet of an .osim model). A 4.0 marker names its frame by path: "/bodyset/torso" gives the
/// body "torso". Throws ParseError as readOpenSimModel.
std::vector<OpenSimMarker> readOpenSimMarkerSet(const std::string& path);
std::vector<OpenSimMarker> parseOpenSimMarkerSet(const std::string& xml_text, const std::string& source);

}  // namespace kinetrack::io
