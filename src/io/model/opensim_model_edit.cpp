#include "kinetrack/io/model/opensim_model_edit.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "opensim_model_impl.hpp"

namespace kinetrack::io {

using tinyxml2::XMLElement;

namespace {

std::string nameOf(const XMLElement* e) { return e && e->Attribute("name") ? e->Attribute("name") : ""; }

std::string textOf(const XMLElement* e) {
  return e && e->GetText() ? std::string(detail::trim(e->GetText())) : std::string();
}

std::string numbersText(const double* v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ' ';
    detail::appendNumber(out, v[i]);
  }
  return out;
}

// The document's numbers: a bad one is a ParseError at its line.
class Numbers {
 public:
  explicit Numbers(const std::string& source) : source_(source) {}
  std::vector<double> read(const XMLElement* e, std::size_t count, const std::string& owner) const {
    const std::vector<std::string> w = detail::words(textOf(e));
    std::vector<double> v(w.size());
    bool ok = w.size() == count;
    for (std::size_t i = 0; ok && i < w.size(); ++i) ok = detail::parseNumber(w[i], v[i]) && std::isfinite(v[i]);
    if (!ok)
      throw ParseError(
          source_, e->GetLineNum(),
          owner + ": <" + e->Name() + "> '" + textOf(e) + "' is not " + std::to_string(count) + " numbers");
    return v;
  }
  Vector3d vec3(const XMLElement* e, const std::string& owner) const {
    const std::vector<double> v = read(e, 3, owner);
    return {v[0], v[1], v[2]};
  }
  double number(const XMLElement* e, const std::string& owner) const { return read(e, 1, owner)[0]; }

 private:
  const std::string& source_;
};

void setVec3(XMLElement* e, const Vector3d& v) { e->SetText(numbersText(v.data(), 3).c_str()); }
void setNumber(XMLElement* e, double v) { e->SetText(numbersText(&v, 1).c_str()); }

// Every descendant element of `e` with that tag (depth first, document order).
void collect(XMLElement* e, const char* tag, std::vector<XMLElement*>& out) {
  for (XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::string_view(c->Name()) == tag) out.push_back(c);
    collect(c, tag, out);
  }
}
std::vector<XMLElement*> all(XMLElement* e, const char* tag) {
  std::vector<XMLElement*> out;
  collect(e, tag, out);
  return out;
}

bool numericallyEqual(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max({1.0, std::abs(a), std::abs(b)});
}

// OpenSim's Body::scaleInertialProperties: the inertia about the mass centre after scaling the
// body by s (mass already scaled when scale_mass). Equal factors: × s² (× s_x s_y s_z with the
// mass). Unequal: the body is taken as a cylinder about the axis of its smallest moment, whose
// radius and length are recovered from the moments at the unscaled mass, scaled and put back.
void scaleInertia(double I[6], const Vector3d& s, double mass_before, double mass_after, bool scale_mass) {
  const double volume = std::abs(s.x() * s.y() * s.z());
  if (mass_after <= 1e-16) {
    std::fill(I, I + 6, 0.0);
    return;
  }
  if (numericallyEqual(s.x(), s.y()) && numericallyEqual(s.y(), s.z())) {
    const double f = s.x() * s.x() * (scale_mass ? volume : 1.0);
    for (int k = 0; k < 6; ++k) I[k] *= f;
    return;
  }
  const int axis = I[0] <= I[1] ? (I[0] <= I[2] ? 0 : 2) : (I[1] <= I[2] ? 1 : 2);
  const double r2_term = 2.0 * I[axis] / mass_before;
  const double radius = r2_term < 0.0 ? 0.0 : std::sqrt(r2_term);
  const int other = axis == 0 ? 1 : 0;
  const double l_term = 12.0 * (I[other] - 0.25 * mass_before * radius * radius) / mass_before;
  const double length = (l_term < 0.0 ? 0.0 : std::sqrt(l_term)) * s[axis];
  const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
  const double r2 = radius * s[a1] * radius * s[a2];
  const double transverse = mass_after * (length * length / 12.0 + 0.25 * r2);
  I[axis] = 0.5 * mass_after * r2;
  I[a1] = transverse;
  I[a2] = transverse;
  // Products Ixy, Ixz, Iyz: by the two factors of their axes (and the volume with the mass).
  const double m = scale_mass ? volume : 1.0;
  I[3] *= s.x() * s.y() * m;
  I[4] *= s.x() * s.z() * m;
  I[5] *= s.y() * s.z() * m;
}

// Wraps the function element `f` in <MultiplierFunction> with `scale`, or multiplies the scale
// of the MultiplierFunction it already is.
void multiplyFunction(tinyxml2::XMLDocument& doc, XMLElement* f, double scale, const Numbers& num,
                      const std::string& owner) {
  if (std::string_view(f->Name()) == "MultiplierFunction") {
    XMLElement* se = f->FirstChildElement("scale");
    const double old = se ? num.number(se, owner) : 1.0;
    if (!se) se = f->InsertNewChildElement("scale");
    setNumber(se, old * scale);
    return;
  }
  XMLElement* parent = f->Parent()->ToElement();
  XMLElement* mf = doc.NewElement("MultiplierFunction");
  const std::string name = nameOf(f);
  if (!name.empty()) mf->SetAttribute("name", name.c_str());
  parent->InsertAfterChild(f, mf);
  XMLElement* holder = mf->InsertNewChildElement("function");
  f->DeleteAttribute("name");
  holder->InsertEndChild(f);  // moves f
  setNumber(mf->InsertNewChildElement("scale"), scale);
}

// The function element a property holds (<x_location><SimmSpline/></x_location>), or nullptr.
XMLElement* functionIn(XMLElement* property) {
  if (!property) return nullptr;
  for (XMLElement* c = property->FirstChildElement(); c; c = c->NextSiblingElement())
    if (detail::osim::Xml::isFunctionTag(c->Name())) return c;
  return nullptr;
}

}  // namespace

struct OpenSimModelDocument::Impl {
  tinyxml2::XMLDocument doc;
  XMLElement* model = nullptr;
  std::vector<std::string> bodies;  // file order

  XMLElement* set(const char* tag) const { return model->FirstChildElement(tag); }
  XMLElement* objects(const char* tag) const {
    XMLElement* s = set(tag);
    return s ? s->FirstChildElement("objects") : nullptr;
  }
  bool hasBody(const std::string& b) const { return std::find(bodies.begin(), bodies.end(), b) != bodies.end(); }
};

OpenSimModelDocument::OpenSimModelDocument(const std::string& xml_text, std::string source)
    : impl_(std::make_unique<Impl>()), source_(std::move(source)) {
  tinyxml2::XMLDocument& doc = impl_->doc;
  if (doc.Parse(xml_text.data(), xml_text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source_, doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr());
  XMLElement* root = doc.RootElement();
  impl_->model = root ? root->FirstChildElement("Model") : nullptr;
  if (!impl_->model) throw ParseError(source_, root ? root->GetLineNum() : 0, "no <Model> element");
  const int version = root->IntAttribute("Version", 0);
  if (version < 40000)
    throw InvalidArgument(source_ + ": OpenSim format version " + std::to_string(version) +
                          ": scaling writes 4.0 models only; open and save it in OpenSim 4 first");
  if (XMLElement* objs = impl_->objects("BodySet"))
    for (XMLElement* b = objs->FirstChildElement("Body"); b; b = b->NextSiblingElement("Body"))
      impl_->bodies.push_back(nameOf(b));
}

OpenSimModelDocument OpenSimModelDocument::read(const std::string& path) {
  return OpenSimModelDocument(detail::readTextFile(path), path);
}

OpenSimModelDocument::~OpenSimModelDocument() = default;
OpenSimModelDocument::OpenSimModelDocument(OpenSimModelDocument&&) noexcept = default;
OpenSimModelDocument& OpenSimModelDocument::operator=(OpenSimModelDocument&&) noexcept = default;

OpenSimScaleReport OpenSimModelDocument::scale(const std::vector<std::pair<std::string, Vector3d>>& factors,
                                               double subject_mass, bool preserve_mass_distribution) {
  Impl& m = *impl_;
  const Numbers num(source_);
  OpenSimScaleReport rep;
  std::map<std::string, Vector3d> s;
  for (const auto& [body, f] : factors) {
    if (!m.hasBody(body))
      throw InvalidArgument(source_ + ": scale factors for '" + body + "', not a body of the model");
    if (!f.allFinite() || (f.array() <= 0.0).any())
      throw InvalidArgument(source_ + ": body '" + body + "': scale factors must be positive");
    s[body] = f;
  }
  // Factors of the body a frame path names; nullptr for ground, an unscaled body or a path that
  // names no body (noted).
  auto factorsOf = [&](const std::string& path, const std::string& owner) -> const Vector3d* {
    const std::string body = detail::osim::bodyOfPath(path);
    if (body.empty()) {
      rep.notices.push_back(owner + ": frame '" + path + "' is not a body: not scaled");
      return nullptr;
    }
    const auto it = s.find(body);
    return it == s.end() ? nullptr : &it->second;
  };

  // Bodies: mass centre, geometry, wrap objects, inertia, mass.
  XMLElement* body_objects = m.objects("BodySet");
  std::vector<XMLElement*> body_elements;
  if (body_objects)
    for (XMLElement* b = body_objects->FirstChildElement("Body"); b; b = b->NextSiblingElement("Body"))
      body_elements.push_back(b);
  for (XMLElement* b : body_elements) {
    const std::string name = nameOf(b);
    const std::string owner = "Body '" + name + "'";
    XMLElement* mass_e = b->FirstChildElement("mass");
    const double mass = mass_e ? num.number(mass_e, owner) : 0.0;
    rep.mass_before += mass;
    const auto it = s.find(name);
    if (it == s.end()) {
      rep.mass_after += mass;
      continue;
    }
    const Vector3d& f = it->second;
    ++rep.bodies;
    if (XMLElement* c = b->FirstChildElement("mass_center")) setVec3(c, num.vec3(c, owner).cwiseProduct(f));
    if (XMLElement* g = b->FirstChildElement("attached_geometry"))
      for (XMLElement* geom = g->FirstChildElement(); geom; geom = geom->NextSiblingElement())
        if (XMLElement* sf = geom->FirstChildElement("scale_factors")) {
          setVec3(sf, num.vec3(sf, owner).cwiseProduct(f));
          ++rep.geometry;
        }
    if (XMLElement* wos = b->FirstChildElement("WrapObjectSet"))
      if (XMLElement* objs = wos->FirstChildElement("objects"))
        for (XMLElement* w = objs->FirstChildElement(); w; w = w->NextSiblingElement()) {
          const std::string kind = w->Name(), wowner = kind + " '" + nameOf(w) + "'";
          const XMLElement* rot_e = w->FirstChildElement("xyz_body_rotation");
          const Matrix3d R = detail::osim::bodyFixedXyz(rot_e ? num.vec3(rot_e, wowner) : Vector3d::Zero());
          Vector3d axis_scale;
          for (int k = 0; k < 3; ++k) axis_scale[k] = R.col(k).cwiseProduct(f).norm();
          if (XMLElement* t = w->FirstChildElement("translation")) setVec3(t, num.vec3(t, wowner).cwiseProduct(f));
          if (kind == "WrapCylinder") {
            if (XMLElement* r = w->FirstChildElement("radius"))
              setNumber(r, num.number(r, wowner) * 0.5 * (axis_scale.x() + axis_scale.y()));
            if (XMLElement* l = w->FirstChildElement("length")) setNumber(l, num.number(l, wowner) * axis_scale.z());
          } else if (kind == "WrapSphere") {
            if (XMLElement* r = w->FirstChildElement("radius")) setNumber(r, num.number(r, wowner) * axis_scale.mean());
          } else if (kind == "WrapEllipsoid") {
            if (XMLElement* d = w->FirstChildElement("dimensions"))
              setVec3(d, num.vec3(d, wowner).cwiseProduct(axis_scale));
          } else {
            rep.notices.push_back(wowner + " on body '" + name + "': only its translation is scaled");
          }
          ++rep.wrap_objects;
        }
    double new_mass = mass;
    if (!preserve_mass_distribution) new_mass = mass * std::abs(f.x() * f.y() * f.z());
    if (XMLElement* ie = b->FirstChildElement("inertia")) {
      std::vector<double> I = num.read(ie, 6, owner);
      scaleInertia(I.data(), f, mass, new_mass, !preserve_mass_distribution);
      ie->SetText(numbersText(I.data(), 6).c_str());
    }
    if (mass_e) setNumber(mass_e, new_mass);
    rep.mass_after += new_mass;
  }
  // The subject's mass: every body's mass and inertia by the same factor.
  if (subject_mass > 0.0 && rep.mass_after > 0.0) {
    const double k = subject_mass / rep.mass_after;
    for (XMLElement* b : body_elements) {
      const std::string owner = "Body '" + nameOf(b) + "'";
      if (XMLElement* e = b->FirstChildElement("mass")) setNumber(e, num.number(e, owner) * k);
      if (XMLElement* ie = b->FirstChildElement("inertia")) {
        std::vector<double> I = num.read(ie, 6, owner);
        for (double& v : I) v *= k;
        ie->SetText(numbersText(I.data(), 6).c_str());
      }
    }
    rep.mass_after = subject_mass;
  }

  // Offset frames anywhere (joint frames, body components): translation by their parent body.
  for (XMLElement* pf : all(m.model, "PhysicalOffsetFrame")) {
    const std::string owner = "PhysicalOffsetFrame '" + nameOf(pf) + "'";
    const Vector3d* f = factorsOf(textOf(pf->FirstChildElement("socket_parent")), owner);
    XMLElement* t = pf->FirstChildElement("translation");
    if (!f || !t) continue;
    setVec3(t, num.vec3(t, owner).cwiseProduct(*f));
    ++rep.offset_frames;
  }

  // CustomJoint translations: functions × |axis| · s_parent.
  for (XMLElement* j : all(m.model, "CustomJoint")) {
    const std::string owner = "CustomJoint '" + nameOf(j) + "'";
    // The parent frame: one of the joint's own offset frames (named by the socket) or a body.
    std::string parent_path = textOf(j->FirstChildElement("socket_parent_frame"));
    if (XMLElement* frames = j->FirstChildElement("frames"))
      for (XMLElement* pf = frames->FirstChildElement("PhysicalOffsetFrame"); pf;
           pf = pf->NextSiblingElement("PhysicalOffsetFrame"))
        if (const std::string n = nameOf(pf);
            n == parent_path || parent_path.ends_with("/" + n))  // "pelvis_offset" or "/jointset/hip_r/pelvis_offset"
          parent_path = textOf(pf->FirstChildElement("socket_parent"));
    const Vector3d* f = factorsOf(parent_path, owner);
    XMLElement* st = j->FirstChildElement("SpatialTransform");
    if (!f || !st) continue;
    for (XMLElement* ta = st->FirstChildElement("TransformAxis"); ta; ta = ta->NextSiblingElement("TransformAxis")) {
      const std::string ta_name = nameOf(ta);
      if (ta_name.rfind("translation", 0) != 0) continue;
      XMLElement* fn = functionIn(ta);  // 4.0: <SimmSpline name="function"> in the axis
      if (!fn) continue;                // no function: the identity of its coordinate (or 0)
      if (std::string_view(fn->Name()) == "LinearFunction") {
        const std::vector<double> c = num.read(fn->FirstChildElement("coefficients"), 2, owner);
        if (c[0] == 1.0 && c[1] == 0.0) continue;  // a degree of freedom
      }
      const XMLElement* axis_e = ta->FirstChildElement("axis");
      const Vector3d axis = axis_e ? num.vec3(axis_e, owner) : Vector3d::UnitX();
      const double k = axis.cwiseAbs().dot(*f);
      if (k == 1.0) continue;
      multiplyFunction(m.doc, fn, k, num, owner);
      ++rep.translation_functions;
    }
  }

  // Markers.
  if (XMLElement* objs = m.objects("MarkerSet"))
    for (XMLElement* mk = objs->FirstChildElement("Marker"); mk; mk = mk->NextSiblingElement("Marker")) {
      const std::string owner = "Marker '" + nameOf(mk) + "'";
      XMLElement* frame = mk->FirstChildElement("socket_parent_frame");
      const Vector3d* f = factorsOf(textOf(frame), owner);
      XMLElement* loc = mk->FirstChildElement("location");
      if (!f || !loc) continue;
      setVec3(loc, num.vec3(loc, owner).cwiseProduct(*f));
      ++rep.markers;
    }

  // Path points of every GeometryPath (muscles, ligaments, springs).
  for (const char* tag : {"PathPoint", "ConditionalPathPoint"})
    for (XMLElement* p : all(m.model, tag)) {
      const std::string owner = std::string(tag) + " '" + nameOf(p) + "'";
      const Vector3d* f = factorsOf(textOf(p->FirstChildElement("socket_parent_frame")), owner);
      XMLElement* loc = p->FirstChildElement("location");
      if (!f || !loc) continue;
      setVec3(loc, num.vec3(loc, owner).cwiseProduct(*f));
      ++rep.path_points;
    }
  for (XMLElement* p : all(m.model, "MovingPathPoint")) {
    const std::string owner = "MovingPathPoint '" + nameOf(p) + "'";
    const Vector3d* f = factorsOf(textOf(p->FirstChildElement("socket_parent_frame")), owner);
    if (!f) continue;
    const char* props[3] = {"x_location", "y_location", "z_location"};
    for (int k = 0; k < 3; ++k)
      if (XMLElement* fn = functionIn(p->FirstChildElement(props[k])); fn && (*f)[k] != 1.0)
        multiplyFunction(m.doc, fn, (*f)[k], num, owner);
    ++rep.moving_points;
  }
  return rep;
}

void OpenSimModelDocument::setMarkers(const std::vector<OpenSimMarker>& markers) {
  Impl& m = *impl_;
  XMLElement* set = m.set("MarkerSet");
  if (!set) {
    set = m.model->InsertNewChildElement("MarkerSet");
    set->SetAttribute("name", "markerset");
  }
  XMLElement* objs = set->FirstChildElement("objects");
  if (!objs) objs = set->InsertNewChildElement("objects");
  for (const OpenSimMarker& mk : markers) {
    if (mk.body != "ground" && !m.hasBody(mk.body))
      throw InvalidArgument("marker '" + mk.name + "': body '" + mk.body + "' is not a body of " + source_);
    XMLElement* e = nullptr;
    for (XMLElement* c = objs->FirstChildElement("Marker"); c && !e; c = c->NextSiblingElement("Marker"))
      if (nameOf(c) == mk.name) e = c;
    if (!e) {
      e = objs->InsertNewChildElement("Marker");
      e->SetAttribute("name", mk.name.c_str());
    }
    auto child = [&](const char* tag) {
      XMLElement* c = e->FirstChildElement(tag);
      return c ? c : e->InsertNewChildElement(tag);
    };
    child("socket_parent_frame")
        ->SetText((mk.body == "ground" ? std::string("/ground") : "/bodyset/" + mk.body).c_str());
    setVec3(child("location"), mk.location);
    child("fixed")->SetText(mk.fixed ? "true" : "false");
  }
}

void OpenSimModelDocument::setOffsetFrames(const std::vector<OpenSimOffsetFrame>& frames) {
  Impl& m = *impl_;
  for (const OpenSimOffsetFrame& f : frames) {
    XMLElement* body = nullptr;
    if (f.body == "ground") {
      body = m.model->FirstChildElement("Ground");
      if (!body) {
        body = m.model->InsertNewChildElement("Ground");
        body->SetAttribute("name", "ground");
      }
    } else if (XMLElement* objs = m.objects("BodySet")) {
      for (XMLElement* b = objs->FirstChildElement("Body"); b && !body; b = b->NextSiblingElement("Body"))
        if (nameOf(b) == f.body) body = b;
    }
    if (!body)
      throw InvalidArgument("offset frame '" + f.name + "': body '" + f.body + "' is not a body of " + source_);
    if (!f.X_BF.p.allFinite() || !f.X_BF.R.allFinite())
      throw InvalidArgument("offset frame '" + f.name + "': its placement is not finite");
    XMLElement* components = body->FirstChildElement("components");
    if (!components) components = body->InsertNewChildElement("components");
    if (components != body->FirstChildElement()) body->InsertFirstChild(components);  // OpenSim's property order
    XMLElement* e = nullptr;
    for (XMLElement* c = components->FirstChildElement("PhysicalOffsetFrame"); c && !e;
         c = c->NextSiblingElement("PhysicalOffsetFrame"))
      if (nameOf(c) == f.name) e = c;
    if (!e) {
      e = components->InsertNewChildElement("PhysicalOffsetFrame");
      e->SetAttribute("name", f.name.c_str());
      XMLElement* axes = e->InsertNewChildElement("FrameGeometry");
      axes->SetAttribute("name", "frame_geometry");
      axes->InsertNewChildElement("socket_frame")->SetText("..");
      axes->InsertNewChildElement("scale_factors")->SetText("0.2 0.2 0.2");
      XMLElement* brick = e->InsertNewChildElement("attached_geometry")->InsertNewChildElement("Brick");
      brick->SetAttribute("name", (f.name + "_geom_1").c_str());
      brick->InsertNewChildElement("socket_frame")->SetText("..");
      brick->InsertNewChildElement("appearance")->InsertNewChildElement("color")->SetText("1 0.5 0");
      brick->InsertNewChildElement("half_lengths")->SetText("0.02 0.01 0.005");
      e->InsertNewChildElement("socket_parent")->SetText("..");
      e->InsertNewChildElement("translation");
      e->InsertNewChildElement("orientation");
    }
    auto child = [&](const char* tag) {
      XMLElement* c = e->FirstChildElement(tag);
      return c ? c : e->InsertNewChildElement(tag);
    };
    setVec3(child("translation"), f.X_BF.p);
    setVec3(child("orientation"), so3::toBodyXyz(f.X_BF.R));
  }
}

void OpenSimModelDocument::scaleMuscleLengths(const std::vector<std::pair<std::string, double>>& ratios) {
  const Numbers num(source_);
  XMLElement* objs = impl_->objects("ForceSet");
  for (const auto& [name, ratio] : ratios) {
    XMLElement* e = nullptr;
    for (XMLElement* c = objs ? objs->FirstChildElement() : nullptr; c && !e; c = c->NextSiblingElement())
      if (nameOf(c) == name) e = c;
    XMLElement* fiber = e ? e->FirstChildElement("optimal_fiber_length") : nullptr;
    XMLElement* tendon = e ? e->FirstChildElement("tendon_slack_length") : nullptr;
    if (!fiber || !tendon)
      throw InvalidArgument(source_ + ": '" + name +
                            "' is not a muscle with optimal_fiber_length and tendon_slack_length");
    const std::string owner = std::string(e->Name()) + " '" + name + "'";
    setNumber(fiber, num.number(fiber, owner) * ratio);
    setNumber(tendon, num.number(tendon, owner) * ratio);
  }
}

std::string OpenSimModelDocument::text() const {
  tinyxml2::XMLPrinter printer;
  impl_->doc.Print(&printer);
  return std::string(printer.CStr(), static_cast<std::size_t>(printer.CStrSize() > 0 ? printer.CStrSize() - 1 : 0));
}

void OpenSimModelDocument::write(const std::string& path) const { writeFileAtomically(path, text()); }

}  // namespace kinetrack::io
