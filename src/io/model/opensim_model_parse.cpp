// OpenSim reader, the document: bodies, joints (placement of their offset frames, coordinates,
// motion), markers, coupler constraints, and notices for what is ignored.
//
// 4.0 (Version ≥ 40000): <BodySet> and <JointSet> side by side; a joint names its parent and child
// frames by component path (socket_parent_frame, socket_child_frame), usually a
// PhysicalOffsetFrame in its own <frames> whose socket_parent is a body ("/bodyset/femur_r") or
// "/ground". Paths are absolute ("/…") or relative to the component that holds the socket.
// Older (1.9 = 10901, 2.x, 3.0 = 30000): each <Body> holds its parent joint in <Joint>, placed by
// parent_body, location_in_parent, orientation_in_parent (F in the parent) and location,
// orientation (M in the body); the ground is the body named "ground".
// Orientations are body-fixed X-Y-Z Euler angles (rad) in every version.
#include <algorithm>
#include <cstring>
#include <map>

#include "kinetrack/core/errors.hpp"
#include "opensim_model_impl.hpp"

namespace kinetrack::io::detail::osim {

namespace {

constexpr int kFirstModernVersion = 40000;
constexpr int kOldestVersion = 10901;

// A frame resolved to its body: X_BF places it in the body frame B.
struct ResolvedFrame {
  std::string body;
  Transform X_BF;
};

Transform offset(const Vector3d& translation, const Vector3d& orientation) {
  return {bodyFixedXyz(orientation), translation};
}

Inertial readInertial(const Xml& xml, const XMLElement* body, const std::string& owner) {
  Inertial in;
  in.mass = xml.number(body, "mass", owner, 0.0);
  if (in.mass < 0.0)
    xml.fail(Xml::child(body, "mass"), owner + ": mass: " + Xml::text(Xml::child(body, "mass")) + " is negative");
  in.com = xml.vector3(body, "mass_center", owner, Vector3d::Zero());
  double I[6] = {0, 0, 0, 0, 0, 0};  // xx yy zz xy xz yz
  if (const XMLElement* e = Xml::child(body, "inertia")) {
    const std::vector<double> v = xml.numbers(e, owner, 6);
    std::copy(v.begin(), v.end(), I);
  } else {
    const char* tags[6] = {"inertia_xx", "inertia_yy", "inertia_zz", "inertia_xy", "inertia_xz", "inertia_yz"};
    for (int k = 0; k < 6; ++k) I[k] = xml.number(body, tags[k], owner, 0.0);
  }
  in.inertia << I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2];
  return in;
}

// Element counts by tag, in first-seen order.
using Census = std::vector<std::pair<std::string, int>>;

void count(Census& census, const std::string& kind) {
  auto it = std::find_if(census.begin(), census.end(), [&](const auto& k) { return k.first == kind; });
  if (it == census.end())
    census.emplace_back(kind, 1);
  else
    ++it->second;
}

int total(const Census& census) {
  int n = 0;
  for (const auto& k : census) n += k.second;
  return n;
}

// "Thelen2003Muscle ×54, PointActuator ×3".
std::string describe(const Census& census) {
  std::string s;
  for (const auto& [kind, n] : census) s += (s.empty() ? "" : ", ") + kind + " ×" + std::to_string(n);
  return s;
}

void countChildren(Census& census, const XMLElement* objects) {
  for (const XMLElement* o = objects ? objects->FirstChildElement() : nullptr; o; o = o->NextSiblingElement())
    count(census, o->Name());
}

void noticeIgnoredSets(const XMLElement* model, std::vector<std::string>& notices) {
  static const std::map<std::string, std::string> kWhy = {
      {"ForceSet", "forces are not part of the rigid-body model"},
      {"ControllerSet", "controllers are not modelled"},
      {"ContactGeometrySet", "contact is not modelled"},
      {"ProbeSet", "probes are not modelled"},
      {"ComponentSet", "components other than bodies, joints and markers are not read"},
      {"ActuatorSet", "actuators are not modelled"}};
  for (const XMLElement* s = model->FirstChildElement(); s; s = s->NextSiblingElement()) {
    const std::string tag = s->Name();
    if (tag.size() < 3 || tag.compare(tag.size() - 3, 3, "Set") != 0) continue;
    if (tag == "BodySet" || tag == "JointSet" || tag == "MarkerSet" || tag == "ConstraintSet") continue;
    Census census;
    countChildren(census, Xml::child(s, "objects"));
    const int n = total(census);
    if (n == 0) continue;
    const auto why = kWhy.find(tag);
    std::string what = why == kWhy.end() ? "not modelled" : why->second;
    if (tag == "ForceSet") {
      // Muscles (anything with a GeometryPath) and CoordinateActuators are read for the muscle
      // solvers by io::readOpenSimMuscles; the other forces nowhere.
      int used = 0;
      for (const XMLElement* f = Xml::child(Xml::child(s, "objects"), nullptr); f; f = f->NextSiblingElement())
        used += (Xml::child(f, "GeometryPath") != nullptr || std::string(f->Name()) == "CoordinateActuator") ? 1 : 0;
      what += "; " + std::to_string(used) +
              " muscle(s) and coordinate actuator(s) are read by `kinetrack muscles` "
              "(io::readOpenSimMuscles)";
      if (used < n) what += ", the other " + std::to_string(n - used) + " force(s) are not modelled";
    }
    notices.push_back("ignored: " + tag + " with " + std::to_string(n) + " element" + (n == 1 ? "" : "s") + " (" +
                      describe(census) + "): " + what);
  }
}

// ---- 4.0 frames by path ------------------------------------------------------------------------

std::string normalizePath(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    const std::string p = path.substr(i, j - i);
    if (p == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!p.empty() && p != ".") {
      parts.push_back(p);
    }
    i = j + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

// Every frame a socket can name: the ground, the bodies and the PhysicalOffsetFrames of joints,
// bodies and the ground, by absolute path.
class Frames {
 public:
  explicit Frames(const Xml& xml) : xml_(xml) {}

  void addBody(const std::string& path, const std::string& body) { entries_[path] = {body, "", {}, nullptr}; }
  void addOffsetFrame(const std::string& path, const XMLElement* e) {
    const std::string owner = "PhysicalOffsetFrame '" + path + "'";
    const XMLElement* parent = Xml::child(e, "socket_parent");
    if (!parent || Xml::text(parent).empty()) xml_.fail(e, owner + ": no socket_parent");
    entries_[path] = {"", Xml::text(parent),
                      offset(xml_.vector3(e, "translation", owner, Vector3d::Zero()),
                             xml_.vector3(e, "orientation", owner, Vector3d::Zero())),
                      e};
  }
  void addBodyName(const std::string& body) { body_names_.push_back(body); }

  /// The frame `path` names, seen from the component at `owner` (an absolute path).
  ResolvedFrame resolve(const std::string& path, const std::string& owner, const XMLElement* where,
                        const std::string& what, int depth = 0) const {
    if (depth > 64) xml_.fail(where, what + ": frame '" + path + "' is part of a cycle of offset frames");
    const std::string full = normalizePath(path.starts_with("/") ? path : owner + "/" + path);
    const auto it = entries_.find(full);
    if (it != entries_.end()) {
      const Entry& e = it->second;
      if (!e.body.empty()) return {e.body, Transform{}};
      const ResolvedFrame p =
          resolve(e.socket_parent, full, e.element, "PhysicalOffsetFrame '" + full + "'", depth + 1);
      return {p.body, compose(p.X_BF, e.X)};
    }
    // Older 4.0 conversions name bodies by relative paths that do not resolve from the socket's
    // owner ("../femur_r"): a last part that is a body name (or "ground") names that body.
    const std::string last = full.substr(full.rfind('/') + 1);
    if (last == "ground" || std::find(body_names_.begin(), body_names_.end(), last) != body_names_.end())
      return {last, Transform{}};
    std::string known;
    const std::string local = owner + "/";
    for (const auto& [p, e] : entries_)
      if (!e.body.empty() || p.starts_with(local)) known += (known.empty() ? "" : ", ") + p;
    xml_.fail(where,
              what + ": frame '" + path + "' (" + full + ") is not a body or frame of the model; known: " + known);
  }

 private:
  struct Entry {
    std::string body;           // a body frame: the body; else an offset frame:
    std::string socket_parent;  // its parent's path, relative to the frame itself
    Transform X;                // its placement in the parent
    const XMLElement* element;
  };
  const Xml& xml_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> body_names_;
};

std::string setName(const XMLElement* set, const char* fallback) {
  const std::string n = Xml::name(set);
  return n.empty() ? fallback : n;
}

void countWrapObjects(const XMLElement* frame, Census& wraps) {
  countChildren(wraps, Xml::child(Xml::child(frame, "WrapObjectSet"), "objects"));
}

// Joints of a 4.0 model and their frames.
void parseModern(const Xml& xml, const XMLElement* model, Document& doc, Frames& frames, Census& wraps) {
  const XMLElement* ground = Xml::child(model, "Ground");
  frames.addBody("/ground", "ground");
  std::vector<std::pair<std::string, const XMLElement*>> components;  // body components' frames
  if (ground) {
    countWrapObjects(ground, wraps);
    readVisuals(xml, ground, "ground", {}, doc.visuals);
    for (const XMLElement* f = Xml::child(Xml::child(ground, "components"), "PhysicalOffsetFrame"); f;
         f = f->NextSiblingElement("PhysicalOffsetFrame")) {
      components.emplace_back("/ground/" + Xml::name(f), f);
      frames.addOffsetFrame(components.back().first, f);
    }
  }
  const XMLElement* body_set = Xml::child(model, "BodySet");
  const std::string bodyset = "/" + setName(body_set, "bodyset");
  for (const XMLElement* b = Xml::child(Xml::child(body_set, "objects"), "Body"); b;
       b = b->NextSiblingElement("Body")) {
    BodyDef body{Xml::name(b), {}, b->GetLineNum()};
    if (body.name.empty()) xml.fail(b, "a Body without a name");
    if (body.name == "ground") xml.fail(b, "Body 'ground': the name is the ground's");
    for (const BodyDef& other : doc.bodies)
      if (other.name == body.name) xml.fail(b, "Body '" + body.name + "' appears twice");
    body.inertial = readInertial(xml, b, "Body '" + body.name + "'");
    frames.addBody(bodyset + "/" + body.name, body.name);
    frames.addBodyName(body.name);
    for (const XMLElement* f = Xml::child(Xml::child(b, "components"), "PhysicalOffsetFrame"); f;
         f = f->NextSiblingElement("PhysicalOffsetFrame")) {
      components.emplace_back(bodyset + "/" + body.name + "/" + Xml::name(f), f);
      frames.addOffsetFrame(components.back().first, f);
    }
    countWrapObjects(b, wraps);
    readVisuals(xml, b, body.name, {}, doc.visuals);
    doc.bodies.push_back(std::move(body));
  }
  const XMLElement* joint_set = Xml::child(model, "JointSet");
  const std::string jointset = "/" + setName(joint_set, "jointset");
  std::vector<std::pair<const XMLElement*, std::string>> joints;
  for (const XMLElement* j = Xml::child(Xml::child(joint_set, "objects"), nullptr); j; j = j->NextSiblingElement()) {
    const std::string path = jointset + "/" + Xml::name(j);
    if (Xml::name(j).empty()) xml.fail(j, std::string(j->Name()) + " without a name");
    for (const XMLElement* f = Xml::child(Xml::child(j, "frames"), "PhysicalOffsetFrame"); f;
         f = f->NextSiblingElement("PhysicalOffsetFrame"))
      frames.addOffsetFrame(path + "/" + Xml::name(f), f);
    joints.emplace_back(j, path);
  }
  for (const auto& [j, path] : joints) {
    JointDef joint;
    joint.name = Xml::name(j);
    joint.line = j->GetLineNum();
    for (const JointDef& other : doc.joints)
      if (other.name == joint.name) xml.fail(j, std::string(j->Name()) + " '" + joint.name + "' appears twice");
    const std::string owner = std::string(j->Name()) + " '" + joint.name + "'";
    readJointMotion(xml, j, joint, doc);
    for (const char* socket : {"socket_parent_frame", "socket_child_frame"}) {
      const XMLElement* s = Xml::child(j, socket);
      if (!s || Xml::text(s).empty()) xml.fail(s ? s : j, owner + ": no " + socket);
      const ResolvedFrame f = frames.resolve(Xml::text(s), path, s, owner + ": " + socket);
      if (std::strcmp(socket, "socket_parent_frame") == 0) {
        joint.parent_body = f.body;
        joint.X_PF = f.X_BF;
      } else {
        joint.child_body = f.body;
        joint.X_BM = f.X_BF;
      }
    }
    doc.joints.push_back(std::move(joint));
  }
  for (const auto& [path, f] : components) {
    if (Xml::name(f).empty()) xml.fail(f, "a PhysicalOffsetFrame without a name (" + path + ")");
    const ResolvedFrame r = frames.resolve(path, "/", f, "PhysicalOffsetFrame '" + path + "'");
    doc.offset_frames.push_back({Xml::name(f), r.body, r.X_BF, FrameId{}, f->GetLineNum()});
    readVisuals(xml, f, r.body, r.X_BF, doc.visuals);
  }
}

// Bodies and their nested joints in 1.9 / 2.x / 3.0 files.
void parseLegacy(const Xml& xml, const XMLElement* model, Document& doc, Census& wraps) {
  const XMLElement* body_set = Xml::child(model, "BodySet");
  std::vector<std::pair<const XMLElement*, std::string>> nested;  // joint element, child body
  for (const XMLElement* b = Xml::child(Xml::child(body_set, "objects"), "Body"); b;
       b = b->NextSiblingElement("Body")) {
    const std::string name = Xml::name(b);
    if (name.empty()) xml.fail(b, "a Body without a name");
    countWrapObjects(b, wraps);
    readVisuals(xml, b, name, {}, doc.visuals);
    const XMLElement* joint = Xml::child(Xml::child(b, "Joint"), nullptr);
    if (name == "ground") {
      if (joint) xml.fail(joint, "Body 'ground' has a joint");
      continue;
    }
    for (const BodyDef& other : doc.bodies)
      if (other.name == name) xml.fail(b, "Body '" + name + "' appears twice");
    doc.bodies.push_back({name, readInertial(xml, b, "Body '" + name + "'"), b->GetLineNum()});
    if (joint) nested.emplace_back(joint, name);
  }
  for (const auto& [j, child] : nested) {
    JointDef joint;
    joint.name = Xml::name(j);
    joint.line = j->GetLineNum();
    const std::string owner = std::string(j->Name()) + " '" + joint.name + "'";
    if (joint.name.empty()) xml.fail(j, std::string(j->Name()) + " of Body '" + child + "' without a name");
    for (const JointDef& other : doc.joints)
      if (other.name == joint.name) xml.fail(j, owner + " appears twice");
    readJointMotion(xml, j, joint, doc);
    const XMLElement* parent = Xml::child(j, "parent_body");
    if (!parent || Xml::text(parent).empty()) xml.fail(parent ? parent : j, owner + ": no parent_body");
    joint.parent_body = Xml::text(parent);
    joint.child_body = child;
    joint.X_PF = offset(xml.vector3(j, "location_in_parent", owner, Vector3d::Zero()),
                        xml.vector3(j, "orientation_in_parent", owner, Vector3d::Zero()));
    joint.X_BM = offset(xml.vector3(j, "location", owner, Vector3d::Zero()),
                        xml.vector3(j, "orientation", owner, Vector3d::Zero()));
    const bool known =
        joint.parent_body == "ground" || std::any_of(doc.bodies.begin(), doc.bodies.end(),
                                                     [&](const BodyDef& b) { return b.name == joint.parent_body; });
    if (!known) {
      std::string list = "ground";
      for (const BodyDef& b : doc.bodies) list += ", " + b.name;
      xml.fail(parent, owner + ": parent_body '" + joint.parent_body + "' is not a body of the model; known: " + list);
    }
    doc.joints.push_back(std::move(joint));
  }
}

void parseCouplers(const Xml& xml, const XMLElement* model, Document& doc) {
  const XMLElement* objects = Xml::child(Xml::child(model, "ConstraintSet"), "objects");
  Census ignored;
  for (const XMLElement* c = objects ? objects->FirstChildElement() : nullptr; c; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "CoordinateCouplerConstraint") != 0) {
      count(ignored, c->Name());
      continue;
    }
    CouplerDef d;
    d.line = c->GetLineNum();
    OpenSimCoupler& k = d.coupler;
    k.name = Xml::name(c);
    const std::string owner = "CoordinateCouplerConstraint '" + k.name + "'";
    const std::vector<std::string> independent = Xml::words(Xml::child(c, "independent_coordinate_names"));
    if (independent.empty()) xml.fail(c, owner + ": no independent_coordinate_names");
    if (independent.size() > 1)
      xml.fail(Xml::child(c, "independent_coordinate_names"),
               owner + ": " + std::to_string(independent.size()) +
                   " independent coordinates: not supported (one independent coordinate per coupler)");
    k.independent = independent[0];
    k.dependent = Xml::text(Xml::child(c, "dependent_coordinate_name"));
    if (k.dependent.empty()) xml.fail(c, owner + ": no dependent_coordinate_name");
    for (const std::string& name : {k.independent, k.dependent}) {
      const bool known = std::any_of(doc.coordinates.begin(), doc.coordinates.end(),
                                     [&](const CoordinateDef& cd) { return cd.name == name; });
      if (!known) {
        std::string list;
        for (const CoordinateDef& cd : doc.coordinates) list += (list.empty() ? "" : ", ") + cd.name;
        xml.fail(c, owner + ": coordinate '" + name + "' is not a coordinate of the model; known: " + list);
      }
    }
    const XMLElement* f = Xml::child(c, "coupled_coordinates_function");
    if (!f) xml.fail(c, owner + ": no coupled_coordinates_function");
    k.function = xml.function(f, owner).scaled(xml.number(c, "scale_factor", owner, 1.0));
    k.enforced = xml.boolean(c, "isEnforced", owner, true) && !xml.boolean(c, "isDisabled", owner, false);
    doc.couplers.push_back(std::move(d));
  }
  for (const auto& [kind, n] : ignored)
    doc.notices.push_back("ignored: " + std::to_string(n) + " " + kind +
                          " in the ConstraintSet (only CoordinateCouplerConstraint is read)");
}

}  // namespace

std::string bodyOfPath(const std::string& path) {
  const std::string p = normalizePath(path);
  if (path.find('/') == std::string::npos) return path;
  if (p == "/ground") return "ground";
  const std::size_t b = p.find("/bodyset/");
  if (b == std::string::npos) return "";
  const std::string rest = p.substr(b + 9);
  return rest.substr(0, rest.find('/'));
}

std::vector<MarkerDef> readMarkerElements(const Xml& xml, const XMLElement* marker_set) {
  std::vector<MarkerDef> out;
  for (const XMLElement* m = Xml::child(Xml::child(marker_set, "objects"), "Marker"); m;
       m = m->NextSiblingElement("Marker")) {
    MarkerDef d;
    d.element = m;
    d.marker.name = Xml::name(m);
    d.marker.line = m->GetLineNum();
    if (d.marker.name.empty()) xml.fail(m, "a Marker without a name");
    for (const MarkerDef& other : out)
      if (other.marker.name == d.marker.name) xml.fail(m, "Marker '" + d.marker.name + "' appears twice");
    const std::string owner = "Marker '" + d.marker.name + "'";
    const XMLElement* frame = Xml::child(m, "socket_parent_frame");
    if (!frame) frame = Xml::child(m, "body");
    d.frame = Xml::text(frame);
    if (d.frame.empty()) xml.fail(frame ? frame : m, owner + ": no body (<socket_parent_frame> or <body>)");
    d.marker.body = bodyOfPath(d.frame);
    d.marker.location = xml.vector3(m, "location", owner, Vector3d::Zero());
    d.marker.fixed = xml.boolean(m, "fixed", owner, false);
    out.push_back(std::move(d));
  }
  return out;
}

Document parseDocument(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument xdoc;
  if (xdoc.Parse(xml_text.c_str(), xml_text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, xdoc.ErrorLineNum(), std::string("malformed XML: ") + xdoc.ErrorStr());
  const Xml xml(source);
  const XMLElement* root = xdoc.RootElement();
  if (!root || std::strcmp(root->Name(), "OpenSimDocument") != 0)
    xml.fail(root,
             std::string("root element must be <OpenSimDocument>, found <") + (root ? root->Name() : "nothing") + ">");
  Document doc;
  doc.source = source;
  if (root->QueryIntAttribute("Version", &doc.version) != tinyxml2::XML_SUCCESS)
    xml.fail(root, "<OpenSimDocument> has no integer Version attribute");
  if (doc.version < kOldestVersion)
    xml.fail(root, "file format version " + std::to_string(doc.version) + " is not supported (10901 or later)");
  const XMLElement* model = Xml::child(root, "Model");
  if (!model) xml.fail(root, "<OpenSimDocument> holds no <Model>");
  doc.name = Xml::name(model);
  if (doc.name.empty()) doc.name = "opensim_model";
  doc.gravity = xml.vector3(model, "gravity", "Model '" + doc.name + "'", doc.gravity);

  Census wraps;
  Frames frames(xml);
  if (doc.version >= kFirstModernVersion)
    parseModern(xml, model, doc, frames, wraps);
  else
    parseLegacy(xml, model, doc, wraps);

  for (MarkerDef& m : readMarkerElements(xml, Xml::child(model, "MarkerSet"))) {
    const std::string owner = "Marker '" + m.marker.name + "'";
    if (doc.version >= kFirstModernVersion) {
      const ResolvedFrame f =
          frames.resolve(m.frame, "/markerset/" + m.marker.name, Xml::child(m.element, "socket_parent_frame"), owner);
      m.marker.body = f.body;
      m.marker.location = f.X_BF.p + f.X_BF.R * m.marker.location;
    }
    doc.markers.push_back(std::move(m.marker));
  }
  parseCouplers(xml, model, doc);
  noticeIgnoredSets(model, doc.notices);
  if (const int n = total(wraps); n > 0)
    doc.notices.push_back("ignored: " + std::to_string(n) + " wrap object" + (n == 1 ? "" : "s") + " (" +
                          describe(wraps) +
                          "): not part of the rigid-body model; muscle paths wrap over them in `kinetrack muscles` "
                          "(cylinders, ellipsoids and spheres; other types are refused there)");
  return doc;
}

}  // namespace kinetrack::io::detail::osim
