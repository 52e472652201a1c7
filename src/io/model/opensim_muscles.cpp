// OpenSim muscles, wrap objects and coordinate actuators (opensim_muscles.hpp), read with the
// XML helpers of the model reader (opensim_model_impl.hpp).
#include "kinetrack/io/model/opensim_muscles.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "opensim_model_impl.hpp"

namespace kinetrack::io {
namespace {

using detail::osim::Xml;
using tinyxml2::XMLElement;

// "/bodyset/tibia_r" → "tibia_r", "/ground" → "ground", "tibia_r" → "tibia_r".
std::string lastPart(const std::string& path) {
  const auto k = path.rfind('/');
  return k == std::string::npos ? path : path.substr(k + 1);
}

// A path point's body: <body> (3.0), <socket_parent_frame> (4.0) or <parent_frame>.
std::string pointBody(const Xml& xml, const XMLElement* e, const std::string& owner) {
  for (const char* tag : {"body", "socket_parent_frame", "parent_frame"})
    if (const XMLElement* b = Xml::child(e, tag)) return lastPart(Xml::text(b));
  xml.fail(e, owner + ": no <body> or <socket_parent_frame>");
}

std::string coordinateOf(const XMLElement* e, const char* tag3, const char* tag4) {
  if (const XMLElement* c = Xml::child(e, tag4)) return lastPart(Xml::text(c));
  if (const XMLElement* c = Xml::child(e, tag3)) return lastPart(Xml::text(c));
  return {};
}

OpenSimPathPoint readPoint(const Xml& xml, const XMLElement* e, const std::string& muscle) {
  OpenSimPathPoint p;
  p.name = Xml::name(e);
  p.line = e->GetLineNum();
  const std::string owner = "Muscle '" + muscle + "': " + e->Name() + " '" + p.name + "'";
  p.body = pointBody(xml, e, owner);
  p.location = xml.vector3(e, "location", owner + ": location", Vector3d::Zero());
  const std::string tag = e->Name();
  if (tag == "ConditionalPathPoint") {
    p.kind = OpenSimPathPoint::Kind::Conditional;
    p.coordinate = coordinateOf(e, "coordinate", "socket_coordinate");
    if (p.coordinate.empty()) xml.fail(e, owner + ": no coordinate");
    const XMLElement* r = Xml::child(e, "range");
    if (!r) xml.fail(e, owner + ": no <range>");
    const std::vector<double> v = xml.numbers(r, owner + ": range", 2);
    p.range_min = v[0];
    p.range_max = v[1];
  } else if (tag == "MovingPathPoint") {
    p.kind = OpenSimPathPoint::Kind::Moving;
    const char* fn[3] = {"x_location", "y_location", "z_location"};
    const char* c4[3] = {"socket_x_coordinate", "socket_y_coordinate", "socket_z_coordinate"};
    const char* c3[3] = {"x_coordinate", "y_coordinate", "z_coordinate"};
    for (int k = 0; k < 3; ++k) {
      const XMLElement* f = Xml::child(e, fn[k]);
      if (!f) continue;
      p.function[k] = xml.function(f, owner + ": " + fn[k]);
      p.coordinates[k] = coordinateOf(e, c3[k], c4[k]);
      if (p.coordinates[k].empty()) xml.fail(f, owner + ": " + fn[k] + " has no coordinate");
    }
  }
  return p;
}

OpenSimWrapObject readWrap(const Xml& xml, const XMLElement* e, const std::string& body) {
  OpenSimWrapObject w;
  w.name = Xml::name(e);
  w.body = body;
  w.line = e->GetLineNum();
  const std::string tag = e->Name();
  const std::string owner = tag + " '" + w.name + "' on body '" + body + "'";
  if (tag == "WrapCylinder")
    w.kind = OpenSimWrapObject::Kind::Cylinder;
  else if (tag == "WrapEllipsoid")
    w.kind = OpenSimWrapObject::Kind::Ellipsoid;
  else if (tag == "WrapSphere")
    w.kind = OpenSimWrapObject::Kind::Sphere;
  else
    xml.fail(e, owner + ": unsupported wrap object type (supported: WrapCylinder, WrapEllipsoid, WrapSphere)");
  w.rotation =
      detail::osim::bodyFixedXyz(xml.vector3(e, "xyz_body_rotation", owner + ": xyz_body_rotation", Vector3d::Zero()));
  w.translation = xml.vector3(e, "translation", owner + ": translation", Vector3d::Zero());
  w.active = xml.boolean(e, "active", owner + ": active", true);
  if (const XMLElement* q = Xml::child(e, "quadrant")) {
    std::string s = Xml::text(q);
    if (s != "all" && !s.empty()) {
      w.quadrant_sign = 1;
      if (s[0] == '-' || s[0] == '+') {
        if (s[0] == '-') w.quadrant_sign = -1;
        s = s.substr(1);
      }
      if (s == "x")
        w.quadrant_axis = 0;
      else if (s == "y")
        w.quadrant_axis = 1;
      else if (s == "z")
        w.quadrant_axis = 2;
      else
        xml.fail(q, owner + ": quadrant '" + Xml::text(q) + "' is not one of all, x, -x, y, -y, z, -z");
    }
  }
  w.radius = xml.number(e, "radius", owner + ": radius", 0.0);
  w.length = xml.number(e, "length", owner + ": length", 0.0);
  w.dimensions = xml.vector3(e, "dimensions", owner + ": dimensions", Vector3d::Zero());
  const bool bad = w.kind == OpenSimWrapObject::Kind::Ellipsoid ? (w.dimensions.array() <= 0.0).any() : w.radius <= 0.0;
  if (bad) xml.fail(e, owner + ": its size must be positive");
  return w;
}

OpenSimCoordinateActuator readActuator(const Xml& xml, const XMLElement* e) {
  OpenSimCoordinateActuator a;
  a.name = Xml::name(e);
  a.line = e->GetLineNum();
  const std::string owner = "CoordinateActuator '" + a.name + "'";
  a.coordinate = lastPart(Xml::text(Xml::child(e, "coordinate")));
  if (a.coordinate.empty()) xml.fail(e, owner + ": no <coordinate>");
  a.optimal_force = xml.number(e, "optimal_force", owner + ": optimal_force", 1.0);
  // Controls may be unbounded: OpenSim writes "-infinity" / "infinity".
  auto control = [&](const char* tag, double fallback) {
    const XMLElement* c = Xml::child(e, tag);
    if (!c) return fallback;
    std::string t = Xml::text(c);
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return std::tolower(ch); });
    // Also "Inf" / "-Inf" (Rajagopal 2016's reserve actuators).
    if (t == "infinity" || t == "inf" || t == "+infinity" || t == "+inf")
      return std::numeric_limits<double>::infinity();
    if (t == "-infinity" || t == "-inf") return -std::numeric_limits<double>::infinity();
    return xml.number(c, owner + ": " + tag);
  };
  a.min_control = control("min_control", a.min_control);
  a.max_control = control("max_control", a.max_control);
  if (a.optimal_force <= 0.0 || a.min_control > a.max_control)
    xml.fail(e, owner + ": optimal_force must be > 0 and min_control ≤ max_control");
  return a;
}

bool isWrapSet(const char* tag) { return std::strcmp(tag, "WrapObjectSet") == 0; }

void forEachChild(const XMLElement* e, const std::function<void(const XMLElement*)>& f) {
  for (const XMLElement* c = e ? e->FirstChildElement() : nullptr; c; c = c->NextSiblingElement()) f(c);
}

struct Reader {
  Xml xml;
  OpenSimMuscleSet out;
  std::vector<std::pair<const XMLElement*, std::string>> muscle_elements;  // deferred: wraps need the set

  void visit(const XMLElement* e, const std::string& body) {
    const std::string tag = e->Name();
    if (tag == "Body") {
      forEachChild(e, [&](const XMLElement* c) { visit(c, Xml::name(e)); });
      return;
    }
    if (tag == "Ground") {
      forEachChild(e, [&](const XMLElement* c) { visit(c, "ground"); });
      return;
    }
    if (isWrapSet(tag.c_str())) {
      forEachChild(Xml::child(e, "objects"),
                   [&](const XMLElement* w) { out.wrap_objects.push_back(readWrap(xml, w, body)); });
      return;
    }
    if (tag == "ForceSet") {
      forEachChild(Xml::child(e, "objects"), [&](const XMLElement* f) {
        if (Xml::child(f, "GeometryPath"))
          muscle_elements.emplace_back(f, f->Name());
        else if (std::strcmp(f->Name(), "CoordinateActuator") == 0)
          out.actuators.push_back(readActuator(xml, f));
        else
          out.notices.push_back(std::string("ignored: ") + f->Name() + " '" + Xml::name(f) + "' (line " +
                                std::to_string(f->GetLineNum()) + ")");
      });
      return;
    }
    forEachChild(e, [&](const XMLElement* c) { visit(c, body); });
  }

  OpenSimMuscle readMuscle(const XMLElement* e) {
    OpenSimMuscle m;
    m.name = Xml::name(e);
    m.type = e->Name();
    m.line = e->GetLineNum();
    const std::string owner = m.type + " '" + m.name + "'";
    auto num = [&](const char* tag, double fallback) { return xml.number(e, tag, owner + ": " + tag, fallback); };
    m.max_isometric_force = num("max_isometric_force", 0.0);
    m.optimal_fiber_length = num("optimal_fiber_length", 0.0);
    m.tendon_slack_length = num("tendon_slack_length", 0.0);
    m.pennation_angle = num("pennation_angle_at_optimal", num("pennation_angle", 0.0));
    m.max_contraction_velocity = num("max_contraction_velocity", m.max_contraction_velocity);
    m.min_control = num("min_control", m.min_control);
    m.max_control = num("max_control", m.max_control);
    m.kshape_active = num("KshapeActive", m.kshape_active);
    m.kshape_passive = num("KshapePassive", m.kshape_passive);
    m.af = num("Af", m.af);
    m.flen = num("Flen", m.flen);
    m.fmax_muscle_strain = num("FmaxMuscleStrain", m.fmax_muscle_strain);
    m.fmax_tendon_strain = num("FmaxTendonStrain", m.fmax_tendon_strain);
    if (m.max_isometric_force <= 0.0 || m.optimal_fiber_length <= 0.0 || m.tendon_slack_length < 0.0 ||
        m.max_contraction_velocity <= 0.0 || m.min_control > m.max_control)
      xml.fail(e, owner +
                      ": max_isometric_force, optimal_fiber_length and max_contraction_velocity must be > 0, "
                      "tendon_slack_length ≥ 0, min_control ≤ max_control");
    const XMLElement* path = Xml::child(e, "GeometryPath");
    forEachChild(Xml::child(Xml::child(path, "PathPointSet"), "objects"),
                 [&](const XMLElement* p) { m.points.push_back(readPoint(xml, p, m.name)); });
    if (m.points.size() < 2) xml.fail(path, owner + ": fewer than 2 path points");
    forEachChild(Xml::child(Xml::child(path, "PathWrapSet"), "objects"), [&](const XMLElement* w) {
      OpenSimPathWrap pw;
      pw.line = w->GetLineNum();
      const std::string object = Xml::text(Xml::child(w, "wrap_object"));
      for (std::size_t k = 0; k < out.wrap_objects.size(); ++k)
        if (out.wrap_objects[k].name == object) pw.wrap_object = static_cast<int>(k);
      if (pw.wrap_object < 0) xml.fail(w, owner + ": PathWrap: unknown wrap object '" + object + "'");
      if (const XMLElement* r = Xml::child(w, "range")) {
        const std::vector<double> v = xml.numbers(r, owner + ": PathWrap range", 2);
        // 1-based path-point indices, -1 for the first/last; anything else (a fraction, a value
        // past the points, one beyond int) is refused here rather than cast (undefined behaviour).
        const double points = static_cast<double>(m.points.size());
        for (const double x : v)
          if (x != std::floor(x) || x < -1.0 || x == 0.0 || x > points)
            xml.fail(r, owner + ": PathWrap range: not two path-point indices (1 to " +
                            std::to_string(m.points.size()) + ", or -1)");
        pw.range_begin = static_cast<int>(v[0]);
        pw.range_end = static_cast<int>(v[1]);
      }
      m.wraps.push_back(pw);
    });
    return m;
  }
};

}  // namespace

OpenSimMuscleSet parseOpenSimMuscles(const std::string& xml_text, const std::string& source) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml_text.c_str(), xml_text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  Reader r{Xml(source), {}, {}};
  r.out.source = source;
  const XMLElement* root = doc.RootElement();
  if (!root || std::strcmp(root->Name(), "OpenSimDocument") != 0)
    r.xml.fail(root, "root element must be <OpenSimDocument>");
  r.visit(root, "ground");
  for (const auto& [e, type] : r.muscle_elements) r.out.muscles.push_back(r.readMuscle(e));
  return r.out;
}

OpenSimMuscleSet readOpenSimMuscles(const std::string& path) {
  return parseOpenSimMuscles(detail::readTextFile(path), path);
}

std::vector<OpenSimCoordinateActuator> readOpenSimActuators(const std::string& path,
                                                            std::vector<std::string>* notices) {
  OpenSimMuscleSet set = readOpenSimMuscles(path);
  if (notices) *notices = set.notices;
  return set.actuators;
}

std::string StaticOptimizationSetup::resolve(const std::string& file) const {
  if (file.empty()) return file;
  const std::filesystem::path p(file);
  if (p.is_absolute() || directory.empty()) return file;
  return (std::filesystem::path(directory) / p).string();
}

StaticOptimizationSetup readStaticOptimizationSetup(const std::string& path) {
  const std::string text = detail::readTextFile(path);
  tinyxml2::XMLDocument doc;
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(path, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  const Xml xml(path);
  const XMLElement* root = doc.RootElement();
  const XMLElement* tool =
      root && std::strcmp(root->Name(), "AnalyzeTool") == 0 ? root : Xml::child(root, "AnalyzeTool");
  if (!tool) xml.fail(root, "no <AnalyzeTool> element (is this an OpenSim static-optimisation setup?)");
  const XMLElement* so = nullptr;
  forEachChild(Xml::child(Xml::child(tool, "AnalysisSet"), "objects"), [&](const XMLElement* a) {
    if (std::strcmp(a->Name(), "StaticOptimization") == 0) so = a;
  });
  if (!so) xml.fail(tool, "AnalyzeTool: no <StaticOptimization> in its <AnalysisSet>");
  StaticOptimizationSetup s;
  s.source = path;
  s.directory = std::filesystem::path(path).parent_path().string();
  auto text_of = [&](const char* tag) {
    std::string v = Xml::text(Xml::child(tool, tag));
    return v == "Unassigned" ? std::string() : v;
  };
  s.model_file = text_of("model_file");
  s.coordinates_file = text_of("coordinates_file");
  s.external_loads_file = text_of("external_loads_file");
  s.force_set_files = Xml::words(Xml::child(tool, "force_set_files"));
  s.replace_force_set = xml.boolean(tool, "replace_force_set", "AnalyzeTool: replace_force_set", false);
  s.time_start = xml.number(tool, "initial_time", "AnalyzeTool: initial_time", s.time_start);
  s.time_end = xml.number(tool, "final_time", "AnalyzeTool: final_time", s.time_end);
  if (s.time_start > s.time_end) xml.fail(Xml::child(tool, "initial_time"), "AnalyzeTool: initial_time > final_time");
  s.lowpass_hz = xml.number(tool, "lowpass_cutoff_frequency_for_coordinates",
                            "AnalyzeTool: lowpass_cutoff_frequency_for_coordinates", -1.0);
  s.activation_exponent = xml.number(so, "activation_exponent", "StaticOptimization: activation_exponent", 2.0);
  if (s.activation_exponent != 2.0)
    xml.fail(Xml::child(so, "activation_exponent"), "StaticOptimization: activation_exponent " +
                                                        std::to_string(s.activation_exponent) +
                                                        " is not supported (only 2: min Σ a²)");
  s.use_muscle_physiology = xml.boolean(so, "use_muscle_physiology", "StaticOptimization: use_muscle_physiology", true);
  s.use_model_force_set = xml.boolean(so, "use_model_force_set", "StaticOptimization: use_model_force_set", true);
  return s;
}

}  // namespace kinetrack::io
