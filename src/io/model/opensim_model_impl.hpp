#pragma once
// Private to the OpenSim model reader: the document as read from the XML (bodies, joints as
// generic "translations then rotations" of their coordinates, coordinates, markers, couplers),
// before it is turned into a kinetrack Model.
//
//   opensim_model_xml.cpp     XML helpers: text, numbers, booleans, functions, errors with lines
//   opensim_model_parse.cpp   the document: 4.0 (JointSet, PhysicalOffsetFrame paths) and the
//                             old nested formats (1.9, 2.x, 3.0: joints inside bodies)
//   opensim_model_joints.cpp  joint types and SpatialTransform axes → JointDef
//   opensim_model_build.cpp   JointDef chains → ModelBuilder (tree order, one joint per coordinate)
//   opensim_model.cpp         the public entry points
#include <tinyxml2.h>

#include <Eigen/Geometry>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::io::detail::osim {

using tinyxml2::XMLElement;

// ---- XML helpers (opensim_model_xml.cpp) ------------------------------------------------------

/// Reads values from elements of one file; every error is a ParseError(source, element line, …).
class Xml {
 public:
  explicit Xml(std::string source) : source_(std::move(source)) {}
  [[nodiscard]] const std::string& source() const { return source_; }

  [[noreturn]] void fail(const XMLElement* e, const std::string& message) const;

  /// The element's text (all its text nodes), without surrounding whitespace.
  [[nodiscard]] static std::string text(const XMLElement* e);
  /// The whitespace-separated words of the element's text.
  [[nodiscard]] static std::vector<std::string> words(const XMLElement* e);
  /// First child element with that tag, or nullptr.
  [[nodiscard]] static const XMLElement* child(const XMLElement* e, const char* tag);
  /// The name attribute, or "".
  [[nodiscard]] static std::string name(const XMLElement* e);

  /// Finite numbers of the element's text, exactly `count` of them (any number when count < 0).
  /// `owner` starts the message: "Coordinate 'knee_angle_r': range: 'abc' is not a number".
  [[nodiscard]] std::vector<double> numbers(const XMLElement* e, const std::string& owner, int count) const;
  [[nodiscard]] double number(const XMLElement* e, const std::string& owner) const;
  [[nodiscard]] Vector3d vector3(const XMLElement* e, const std::string& owner) const;
  [[nodiscard]] bool boolean(const XMLElement* e, const std::string& owner) const;

  /// Optional children: the value when the child exists, else `fallback`.
  [[nodiscard]] double number(const XMLElement* parent, const char* tag, const std::string& owner,
                              double fallback) const;
  [[nodiscard]] Vector3d vector3(const XMLElement* parent, const char* tag, const std::string& owner,
                                 const Vector3d& fallback) const;
  [[nodiscard]] bool boolean(const XMLElement* parent, const char* tag, const std::string& owner, bool fallback) const;

  /// The function an element holds: `e` is a function element (<SimmSpline>, …) or a wrapper
  /// (<function>, <coupled_coordinates_function>) around one. Throws for an unknown or
  /// unsupported function type, naming it.
  [[nodiscard]] ScalarFunction function(const XMLElement* e, const std::string& owner) const;
  /// True for the tag of an OpenSim function element, supported or not.
  [[nodiscard]] static bool isFunctionTag(const char* tag);

 private:
  [[nodiscard]] ScalarFunction functionElement(const XMLElement* f, const std::string& owner, int depth) const;
  std::string source_;
};

/// Rotation of OpenSim's body-fixed X-Y-Z Euler angles: Rx(a)·Ry(b)·Rz(c).
Matrix3d bodyFixedXyz(const Vector3d& angles);

// ---- the document -------------------------------------------------------------------------------

/// One axis of a joint's motion X_FM(q) = Trans(Σ t_k g_k) · R(r_1, f_1) · R(r_2, f_2) · R(r_3, f_3).
struct AxisDef {
  std::string name;                   ///< "rotation1" … "translation3", or the built-in joint's coordinate role
  Vector3d axis = Vector3d::UnitX();  ///< unit, in F (translations) / the rotated frame (rotations)
  ScalarFunction function = ScalarFunction::constant(0.0);  ///< angle (rad) or displacement (m)
  int coordinate = -1;                                      ///< index into Document::coordinates; −1: a constant
  int line = 0;
};

struct CoordinateDef {
  std::string name;
  std::string joint;  ///< the OpenSim joint it belongs to
  double default_value = 0.0;
  double range_min = 0.0, range_max = 0.0;
  bool clamped = false, locked = false;
  std::optional<bool> rotational;  ///< from <motion_type> (old files); else from the axes
  int line = 0;
};

struct JointDef {
  std::string name, type;
  int line = 0;
  std::string parent_body, child_body;  ///< "ground" for the ground
  Transform X_PF;                       ///< parent offset frame F in the parent body frame
  Transform X_BM;                       ///< child offset frame M in the child body frame
  std::vector<int> coordinates;         ///< into Document::coordinates, in file order
  std::vector<AxisDef> translations;    ///< summed, in F
  std::vector<AxisDef> rotations;       ///< applied in order, body-fixed
};

struct BodyDef {
  std::string name;
  Inertial inertial;  ///< in the body frame B
  int line = 0;
};

struct CouplerDef {
  OpenSimCoupler coupler;
  int line = 0;
};

/// Geometry attached to a body (or one of its offset frames) for display: 4.0 <attached_geometry>
/// (Mesh, Sphere, Brick, Cylinder, Ellipsoid) or the old <VisibleObject> (geometry files).
struct VisualDef {
  std::string name;
  std::string body;  ///< "ground" for the ground
  Transform X_BG;    ///< shape frame in the body frame (a cylinder's axis already turned to z)
  GeomShape shape = GeomShape::Mesh;
  Vector3d size = Vector3d::Ones();  ///< as Geom::size (a mesh's scale factors)
  std::string mesh_file;             ///< as written (resolved when the model is built)
  Vector4d rgba = Vector4d::Ones();
  int line = 0;
};

/// The display geometry of a body or frame element: its 4.0 <attached_geometry> and its old
/// <VisibleObject>, placed at X_BF in body `body`. opensim_model_geometry.cpp.
void readVisuals(const Xml& xml, const XMLElement* frame_element, const std::string& body, const Transform& X_BF,
                 std::vector<VisualDef>& out);

struct Document {
  std::string source;
  int version = 0;
  std::string name;
  Vector3d gravity = Vector3d(0.0, -9.80665, 0.0);
  std::vector<BodyDef> bodies;             ///< file order, ground excluded
  std::vector<JointDef> joints;            ///< file order
  std::vector<CoordinateDef> coordinates;  ///< OpenSim order
  std::vector<OpenSimMarker> markers;
  std::vector<CouplerDef> couplers;
  std::vector<OpenSimOffsetFrame> offset_frames;  ///< body components, resolved to their body
  std::vector<VisualDef> visuals;                 ///< display geometry, file order
  std::vector<std::string> notices;
};

/// Parses the document (any supported version). opensim_model_parse.cpp.
Document parseDocument(const std::string& xml_text, const std::string& source);

/// A marker as written: `frame` is the 4.0 <socket_parent_frame> path ("/bodyset/torso") or the
/// old <body> name; `marker.body` and `marker.location` still refer to that frame.
struct MarkerDef {
  OpenSimMarker marker;
  std::string frame;
  const XMLElement* element = nullptr;
};
/// The <Marker> elements of a <MarkerSet> (4.0 or old), in file order. opensim_model_parse.cpp.
std::vector<MarkerDef> readMarkerElements(const Xml& xml, const XMLElement* marker_set);
/// The body a frame path names without the model at hand: the part after "bodyset/" ("torso" in
/// "/bodyset/torso"), "ground" for "/ground", the path itself when it has no '/'; "" otherwise.
std::string bodyOfPath(const std::string& path);

// ---- joints (opensim_model_joints.cpp) ----------------------------------------------------------

/// Appends the joint's coordinates (<coordinates> in 4.0, <CoordinateSet> in old files) to
/// `doc.coordinates` and fills `joint.coordinates`, `joint.translations` and `joint.rotations`
/// from the joint type (PinJoint, SliderJoint, UniversalJoint, BallJoint, GimbalJoint, FreeJoint,
/// PlanarJoint, WeldJoint, CustomJoint with its SpatialTransform). Throws ParseError for an
/// unsupported joint type, a reversed joint, an axis driven by several coordinates or by an
/// unknown one.
void readJointMotion(const Xml& xml, const XMLElement* joint_element, JointDef& joint, Document& doc);

// ---- building (opensim_model_build.cpp) ---------------------------------------------------------

/// The kinetrack model of the document (markers replaced when `options.markers` is set).
OpenSimModel buildModel(Document doc, const OpenSimReadOptions& options);

}  // namespace kinetrack::io::detail::osim
