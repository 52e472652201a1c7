// OpenSim reader, joints: the coordinates of a joint and its motion X_FM(q) as translations (in
// F) then body-fixed rotations, for every supported joint type. Simbody's mobilizers behind them:
//   PinJoint       Pin: rotation by q about the common Z axis of F and M
//   SliderJoint    Slider: translation by q along the common X axis
//   UniversalJoint Universal: rotation about X, then about the new Y (body-fixed X-Y)
//   BallJoint      Ball: body-fixed X-Y-Z Euler angles (OpenSim's three coordinates rx, ry, rz;
//                  Simbody integrates a quaternion, the coordinates are these angles)
//   GimbalJoint    Gimbal: body-fixed X-Y-Z Euler angles
//   FreeJoint      Free: coordinates rx, ry, rz (body-fixed X-Y-Z) then tx, ty, tz along the axes
//                  of the parent frame F: X_FM = (Rx·Ry·Rz, (tx, ty, tz))
//   PlanarJoint    Planar: coordinates rz, tx, ty: X_FM = (Rz, (tx, ty, 0))
//   WeldJoint      Weld: no coordinate, M = F
//   CustomJoint    FunctionBased: the SpatialTransform's six TransformAxis, rotations 1–3 in
//                  order (body-fixed), translations summed in F.
#include <cmath>
#include <cstring>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "opensim_model_impl.hpp"

namespace kinetrack::io::detail::osim {

namespace {

constexpr const char* kSupportedJoints =
    "CustomJoint, PinJoint, SliderJoint, UniversalJoint, BallJoint, GimbalJoint, FreeJoint, PlanarJoint, WeldJoint";

// The <Coordinate> elements of a joint: <coordinates> (4.0) or <CoordinateSet><objects> (old).
std::vector<const XMLElement*> coordinateElements(const XMLElement* joint) {
  std::vector<const XMLElement*> out;
  const XMLElement* list = Xml::child(joint, "coordinates");
  if (!list) list = Xml::child(Xml::child(joint, "CoordinateSet"), "objects");
  for (const XMLElement* c = list ? list->FirstChildElement("Coordinate") : nullptr; c;
       c = c->NextSiblingElement("Coordinate"))
    out.push_back(c);
  return out;
}

CoordinateDef readCoordinate(const Xml& xml, const XMLElement* e, const std::string& joint) {
  CoordinateDef c;
  c.name = Xml::name(e);
  c.joint = joint;
  c.line = e->GetLineNum();
  if (c.name.empty()) xml.fail(e, "joint '" + joint + "': a Coordinate without a name");
  const std::string owner = "Coordinate '" + c.name + "'";
  c.default_value = xml.number(e, "default_value", owner, 0.0);
  c.range_min = -std::numeric_limits<double>::infinity();
  c.range_max = std::numeric_limits<double>::infinity();
  if (const XMLElement* r = Xml::child(e, "range")) {
    const std::vector<double> v = xml.numbers(r, owner, 2);
    if (v[0] > v[1]) xml.fail(r, owner + ": range: minimum " + Xml::text(r) + " exceeds the maximum");
    c.range_min = v[0];
    c.range_max = v[1];
  }
  c.clamped = xml.boolean(e, "clamped", owner, false);
  c.locked = xml.boolean(e, "locked", owner, false);
  if (const XMLElement* m = Xml::child(e, "motion_type")) {
    const std::string t = Xml::text(m);
    if (t == "rotational") c.rotational = true;
    if (t == "translational") c.rotational = false;
    // "coupled" (or anything else): decided by the axes the coordinate drives.
  }
  return c;
}

// One axis of a built-in joint type, driven by its k-th coordinate with f(q) = q.
AxisDef builtinAxis(const std::string& name, const Vector3d& axis, int coordinate, int line) {
  AxisDef a;
  a.name = name;
  a.axis = axis;
  a.function = ScalarFunction::linear(1.0, 0.0);
  a.coordinate = coordinate;
  a.line = line;
  return a;
}

// The SpatialTransform of a CustomJoint.
void readSpatialTransform(const Xml& xml, const XMLElement* joint_element, JointDef& joint, const Document& doc) {
  const std::string owner = "CustomJoint '" + joint.name + "'";
  const XMLElement* st = Xml::child(joint_element, "SpatialTransform");
  if (!st && Xml::child(joint_element, "TransformAxisSet"))
    xml.fail(Xml::child(joint_element, "TransformAxisSet"),
             owner + ": <TransformAxisSet> (files older than version 10901) is not supported");
  static const char* kNames[6] = {"rotation1",    "rotation2",    "rotation3",
                                  "translation1", "translation2", "translation3"};
  const XMLElement* axes[6] = {};
  for (const XMLElement* t = st ? st->FirstChildElement("TransformAxis") : nullptr; t;
       t = t->NextSiblingElement("TransformAxis")) {
    const std::string n = Xml::name(t);
    int k = 0;
    while (k < 6 && n != kNames[k]) ++k;
    if (k == 6) xml.fail(t, owner + ": TransformAxis '" + n + "': expected rotation1–3 or translation1–3");
    if (axes[k]) xml.fail(t, owner + ": TransformAxis '" + n + "' appears twice");
    axes[k] = t;
  }
  for (int k = 0; k < 6; ++k) {
    AxisDef a;
    a.name = kNames[k];
    a.axis = Vector3d::Unit(k % 3);  // OpenSim's defaults: X, Y, Z for both triples
    a.line = joint.line;
    const XMLElement* t = axes[k];
    if (!t) {
      (k < 3 ? joint.rotations : joint.translations).push_back(a);  // Constant 0
      continue;
    }
    a.line = t->GetLineNum();
    const std::string what = owner + ": TransformAxis '" + a.name + "'";
    const std::vector<std::string> coords = Xml::words(Xml::child(t, "coordinates"));
    if (coords.size() > 1) {
      std::string list;
      for (const std::string& c : coords) list += (list.empty() ? "" : ", ") + c;
      xml.fail(t, what + " depends on " + std::to_string(coords.size()) + " coordinates (" + list +
                      "): not supported (one coordinate per axis)");
    }
    if (coords.size() == 1) {
      for (int c : joint.coordinates)
        if (doc.coordinates[static_cast<std::size_t>(c)].name == coords[0]) a.coordinate = c;
      if (a.coordinate < 0)
        xml.fail(Xml::child(t, "coordinates"),
                 what + ": coordinate '" + coords[0] + "' is not a coordinate of the joint");
    }
    if (const XMLElement* ax = Xml::child(t, "axis")) {
      a.axis = xml.vector3(ax, what);
      if (a.axis.norm() < 1e-12) xml.fail(ax, what + ": the axis is the zero vector");
      // An axis of huge entries would overflow the norm: scale before normalising.
      a.axis = a.axis.stableNormalized();
    }
    const XMLElement* function = nullptr;
    for (const XMLElement* c = t->FirstChildElement(); c; c = c->NextSiblingElement()) {
      const char* tag = c->Name();
      if (std::strcmp(tag, "coordinates") == 0 || std::strcmp(tag, "axis") == 0) continue;
      if (std::strcmp(tag, "function") == 0 || Xml::isFunctionTag(tag) || Xml::name(c) == "function") {
        if (function) xml.fail(c, what + ": more than one function");
        function = c;
      }
    }
    if (function && Xml::name(function) == "function" && !Xml::isFunctionTag(function->Name()) &&
        std::strcmp(function->Name(), "function") != 0)
      xml.fail(function, what + ": function type '" + function->Name() +
                             "' is not supported (supported: Constant, LinearFunction, PolynomialFunction, "
                             "SimmSpline, NaturalCubicSpline, MultiplierFunction)");
    if (function)
      a.function = xml.function(function, what);
    else if (a.coordinate >= 0)
      a.function = ScalarFunction::linear(1.0, 0.0);  // OpenSim's default for a driven axis
    if (a.function.isConstant()) {
      a.coordinate = -1;  // drives nothing
    } else if (a.coordinate < 0) {
      xml.fail(function, what + ": a " + a.function.describe() + " needs a coordinate");
    }
    (k < 3 ? joint.rotations : joint.translations).push_back(a);
  }
}

}  // namespace

void readJointMotion(const Xml& xml, const XMLElement* e, JointDef& joint, Document& doc) {
  const std::string type = e->Name();
  joint.type = type;
  const std::string owner = type + " '" + joint.name + "'";
  if (const XMLElement* r = Xml::child(e, "reverse"); r && xml.boolean(r, owner))
    xml.fail(r, owner + ": reverse = true is not supported");

  static const std::set<std::string> kKnown = {"CustomJoint", "PinJoint",  "SliderJoint", "UniversalJoint", "BallJoint",
                                               "GimbalJoint", "FreeJoint", "PlanarJoint", "WeldJoint"};
  if (!kKnown.count(type))
    xml.fail(e, owner + ": joint type '" + type + "' is not supported (supported: " + kSupportedJoints + ")");

  for (const XMLElement* c : coordinateElements(e)) {
    CoordinateDef def = readCoordinate(xml, c, joint.name);
    for (const CoordinateDef& other : doc.coordinates)
      if (other.name == def.name)
        xml.fail(c, "Coordinate '" + def.name + "' of joint '" + joint.name +
                        "': the name is already a coordinate of joint '" + other.joint + "'");
    joint.coordinates.push_back(static_cast<int>(doc.coordinates.size()));
    doc.coordinates.push_back(std::move(def));
  }
  const int n = static_cast<int>(joint.coordinates.size());
  auto need = [&](int count) {
    if (n != count)
      xml.fail(e, owner + ": declares " + std::to_string(n) + " coordinate" + (n == 1 ? "" : "s") + ", a " + type +
                      " has " + std::to_string(count));
  };
  auto c = [&](int k) { return joint.coordinates[static_cast<std::size_t>(k)]; };
  const int line = e->GetLineNum();
  const Vector3d X = Vector3d::UnitX(), Y = Vector3d::UnitY(), Z = Vector3d::UnitZ();
  if (type == "CustomJoint") {
    readSpatialTransform(xml, e, joint, doc);
  } else if (type == "WeldJoint") {
    need(0);
  } else if (type == "PinJoint") {
    need(1);
    joint.rotations = {builtinAxis("rz", Z, c(0), line)};
  } else if (type == "SliderJoint") {
    need(1);
    joint.translations = {builtinAxis("tx", X, c(0), line)};
  } else if (type == "UniversalJoint") {
    need(2);
    joint.rotations = {builtinAxis("rx", X, c(0), line), builtinAxis("ry", Y, c(1), line)};
  } else if (type == "BallJoint" || type == "GimbalJoint") {
    need(3);
    joint.rotations = {builtinAxis("rx", X, c(0), line), builtinAxis("ry", Y, c(1), line),
                       builtinAxis("rz", Z, c(2), line)};
  } else if (type == "FreeJoint") {
    need(6);
    joint.rotations = {builtinAxis("rx", X, c(0), line), builtinAxis("ry", Y, c(1), line),
                       builtinAxis("rz", Z, c(2), line)};
    joint.translations = {builtinAxis("tx", X, c(3), line), builtinAxis("ty", Y, c(4), line),
                          builtinAxis("tz", Z, c(5), line)};
  } else if (type == "PlanarJoint") {
    need(3);
    joint.rotations = {builtinAxis("rz", Z, c(0), line)};
    joint.translations = {builtinAxis("tx", X, c(1), line), builtinAxis("ty", Y, c(2), line)};
  }
  // Rotational unless told otherwise (old files' motion_type) or driving translations only.
  for (int k : joint.coordinates) {
    CoordinateDef& def = doc.coordinates[static_cast<std::size_t>(k)];
    if (def.rotational) continue;
    bool rotation = false, translation = false;
    for (const AxisDef& a : joint.rotations) rotation = rotation || a.coordinate == k;
    for (const AxisDef& a : joint.translations) translation = translation || a.coordinate == k;
    def.rotational = rotation || !translation;
  }
}

}  // namespace kinetrack::io::detail::osim
