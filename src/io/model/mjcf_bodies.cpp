// MJCF reader: bodies (their joints as chains of 1-DoF joints, inertials), geoms and sites.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

#include "mjcf_reader_impl.hpp"

namespace kinetrack::io::mjcf {

// ---- bodies ----------------------------------------------------------------------------------

void Reader::unique(std::set<std::string>& names, const std::string& name, const Element* e, const char* kind) {
  if (!names.insert(name).second) xml_.fail(e, std::string("duplicate ") + kind + " name '" + name + "'");
}

bool Reader::isFreeJoint(const Element* e, int cls) const {
  if (is(e, "freejoint")) return true;
  if (!is(e, "joint")) return false;
  const Attrs a(xml_, e, xml_.classOf(e, "class", cls), "joint", "joint");
  return a.text("type", "hinge") == "free";
}

std::vector<ChainJoint> Reader::chainJoints(const std::vector<const Element*>& joints, const std::string& body_name,
                                            int cls) {
  std::vector<ChainJoint> chain;
  for (std::size_t k = 0; k < joints.size(); ++k) {
    const Element* e = joints[k];
    const std::string name = e->Attribute("name") ? e->Attribute("name") : body_name + "/joint" + std::to_string(k);
    unique(joints_, name, e, "joint");
    const Attrs a(xml_, e, xml_.classOf(e, "class", cls), "joint", "joint '" + name + "'");
    const std::string type = is(e, "freejoint") ? "free" : a.text("type", "hinge");
    if (type == "free")
      xml_.fail(e, "joint '" + name + "': a free joint " +
                       (joints.size() > 1 ? std::string("must be alone in its body")
                                          : "is allowed on a top-level body only (body '" + body_name + "')"));
    if (type != "hinge" && type != "slide" && type != "ball")
      a.fail("type", "unknown joint type '" + type + "' (expected hinge, slide, ball or free)");
    ChainJoint j;
    j.element = e;
    j.anchor = a.vec3("pos", Vector3d::Zero());
    const bool is_limited = limited(a, "limited", "range");
    double lower = -kInf, upper = kInf;
    if (is_limited) {
      const std::vector<double> r = a.numbers("range", 2, 2);
      if (r.empty()) a.fail("limited", "the joint is limited but has no range");
      const bool angular = type != "slide";
      lower = angular ? compiler_.angle(r[0]) : r[0];
      upper = angular ? compiler_.angle(r[1]) : r[1];
      if (type != "ball" && !(lower < upper))
        a.fail("range", "lower " + std::to_string(r[0]) + " is not below upper " + std::to_string(r[1]));
    }
    double effort = kInf;
    if (limited(a, "actuatorfrclimited", "actuatorfrcrange")) {
      const std::vector<double> r = a.numbers("actuatorfrcrange", 2, 2);
      if (r.empty()) a.fail("actuatorfrclimited", "limited but no actuatorfrcrange");
      effort = std::max(std::abs(r[0]), std::abs(r[1]));
    } else if (auto it = actuator_effort_.find(name); it != actuator_effort_.end()) {
      effort = it->second;
    }
    if (type == "ball") {
      // Three hinges about the body's x, y, z through the ball's centre; ± the cone bound each.
      const double bound = is_limited ? upper : kInf;
      if (is_limited && !(bound > 0.0)) a.fail("range", "a ball joint's bound range[1] must be > 0");
      for (int axis = 0; axis < 3; ++axis) {
        ChainJoint b = j;
        b.name = name + "_" + "xyz"[axis];
        b.type = is_limited ? JointType::Revolute : JointType::Continuous;
        b.axis = Vector3d::Unit(axis);
        b.lower = -bound;
        b.upper = bound;
        chain.push_back(b);
      }
      continue;
    }
    j.name = name;
    Vector3d axis = a.vec3("axis", Vector3d::UnitZ());
    const double n = axis.norm();
    if (!(n > 1e-15) || !std::isfinite(n)) a.fail("axis", "the axis has zero (or overflowing) length");
    j.axis = axis / n;
    j.ref = a.number("ref", 0.0);
    if (type == "slide") {
      j.type = JointType::Prismatic;
      j.anchor.setZero();  // a translation has no centre
    } else {
      j.type = is_limited ? JointType::Revolute : JointType::Continuous;
      j.ref = compiler_.angle(j.ref);
      // Any point of the axis is a centre of the rotation: the one closest to the body origin.
      j.anchor -= j.axis * j.axis.dot(j.anchor);
      if (j.anchor.norm() <= 1e-14 * (1.0 + a.vec3("pos", Vector3d::Zero()).norm())) j.anchor.setZero();
    }
    j.lower = lower;
    j.upper = upper;
    j.effort = effort;
    chain.push_back(j);
  }
  return chain;
}

Inertial Reader::readInertial(const Element* e, const std::string& body_name) {
  const Attrs a(xml_, e, mjcf::Xml::mainClass(), "inertial", "body '" + body_name + "' <inertial>");
  Inertial in;
  if (!a.has("mass")) a.fail("mass", "missing (required)");
  in.mass = a.number("mass", 0.0);
  if (in.mass < 0.0) a.fail("mass", "negative");
  in.com = a.vec3("pos", Vector3d::Zero());
  const Matrix3d R = a.orientation(compiler_);
  if (a.has("diaginertia") && a.has("fullinertia")) a.fail("fullinertia", "given with diaginertia: one of the two");
  if (a.has("diaginertia")) {
    const Vector3d d = a.vec3("diaginertia", Vector3d::Zero());
    in.inertia = R * d.asDiagonal() * R.transpose();
  } else if (a.has("fullinertia")) {
    const std::vector<double> f = a.numbers("fullinertia", 6, 6);  // ixx iyy izz ixy ixz iyz
    Matrix3d I;
    I << f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2];
    in.inertia = R * I * R.transpose();
  }
  in.inertia = 0.5 * (in.inertia + in.inertia.transpose()).eval();
  return in;
}

void Reader::readBody(const Element* e, const std::string& parent, const Transform& offset, int inherited, bool root) {
  const int cls = xml_.classOf(e, "childclass", inherited);
  const char* given = e->Attribute("name");
  const std::string name = given ? given : "body" + std::to_string(body_ids_[e]);
  if (name.empty()) xml_.fail(e, "<body> with an empty name");
  unique(bodies_, name, e, "body");
  const Attrs a(xml_, e, cls, "body", "body '" + name + "'");
  const Transform B = compose(offset, {a.orientation(compiler_), a.vec3("pos", Vector3d::Zero())});

  const std::vector<const Element*> kids = xml_.children(e);
  std::vector<const Element*> joints;
  const Element* inertial_element = nullptr;
  bool has_geoms = false;
  for (const Element* c : kids) {
    if (is(c, "joint") || is(c, "freejoint")) joints.push_back(c);
    if (is(c, "inertial")) {
      if (inertial_element) xml_.fail(c, "body '" + name + "': a second <inertial>");
      inertial_element = c;
    }
    has_geoms |= is(c, "geom");
  }
  const Inertial inertial = inertial_element ? readInertial(inertial_element, name) : Inertial{};
  if (has_geoms && ((compiler_.inertiafromgeom == "auto" && !inertial_element) || compiler_.inertiafromgeom == "true"))
    no_inertial_.push_back(name);

  BodyContext body{name, name, 0, 0};
  if (root) {
    for (const Element* j : joints) {
      if (!isFreeJoint(j, cls) || joints.size() > 1)
        xml_.fail(j, "body '" + name + "': a free joint must be alone in its body");
      if (const char* jn = j->Attribute("name")) unique(joints_, jn, j, "joint");
    }
    build(e, [&] {
      builder_ =
          std::make_unique<ModelBuilder>(model_name_, name, options_.base.value_or(BaseType::Floating), inertial);
    });
    readContents(e, body, Transform{}, cls);
    return;
  }

  const std::vector<ChainJoint> chain = chainJoints(joints, name, cls);
  if (chain.empty()) {
    build(e, [&] { builder_->addFixedLink(name, parent, B, inertial); });
  } else {
    std::string previous = parent;
    Vector3d previous_anchor = Vector3d::Zero();
    for (std::size_t k = 0; k < chain.size(); ++k) {
      const ChainJoint& j = chain[k];
      const bool last = k + 1 == chain.size();
      JointSpec s;
      s.name = j.name;
      s.type = j.type;
      s.parent = previous;
      s.child = last && j.anchor.isZero(0.0) ? name : name + "/" + j.name;
      // MuJoCo turns the body about the joint's axis through its anchor after the joints before
      // it: the link frame sits on the anchor, and qpos0 = ref is folded into the placement.
      Transform P = translation(j.anchor - previous_anchor);
      if (j.ref != 0.0) {
        if (j.type == JointType::Prismatic)
          P.p -= j.axis * j.ref;
        else
          P.R = so3::axisAngle(j.axis, -j.ref);
      }
      s.placement = k == 0 ? compose(B, P) : P;
      s.axis = j.axis;
      s.lower = j.lower;
      s.upper = j.upper;
      s.effort = j.effort;
      if (s.child == name) s.child_inertial = inertial;
      build(j.element, [&] { builder_->addJoint(s); });
      previous = s.child;
      previous_anchor = j.anchor;
    }
    if (previous != name)  // the body frame, off the last joint's anchor
      build(e, [&] { builder_->addFixedLink(name, previous, translation(-previous_anchor), inertial); });
  }
  readContents(e, body, Transform{}, cls);
}

void Reader::readContents(const Element* container, BodyContext& body, const Transform& offset, int cls) {
  for (const Element* c : xml_.children(container)) {
    if (is(c, "joint") || is(c, "freejoint") || is(c, "inertial")) continue;
    if (is(c, "geom")) {
      readGeom(c, body, offset, cls);
    } else if (is(c, "site")) {
      readSite(c, body, offset, cls);
    } else if (is(c, "body")) {
      readBody(c, body.frame, offset, cls, false);
    } else if (is(c, "frame")) {
      const int fc = xml_.classOf(c, "childclass", cls);
      const Attrs a(xml_, c, fc, "frame", "<frame> in body '" + body.name + "'");
      readContents(c, body, compose(offset, {a.orientation(compiler_), a.vec3("pos", Vector3d::Zero())}), fc);
    } else {
      ignore(c);
    }
  }
}

// ---- geoms and sites ---------------------------------------------------------------------------

void Reader::readGeom(const Element* e, BodyContext& body, const Transform& offset, int inherited) {
  const int k = body.geoms++;
  const std::string name = e->Attribute("name") ? e->Attribute("name") : body.name + "/geom" + std::to_string(k);
  unique(geoms_, name, e, "geom");
  const Attrs a(xml_, e, xml_.classOf(e, "class", inherited), "geom", "geom '" + name + "'");
  const std::string type = a.text("type", "sphere");
  static const std::map<std::string, GeomShape> shapes = {
      {"sphere", GeomShape::Sphere}, {"capsule", GeomShape::Capsule},     {"cylinder", GeomShape::Cylinder},
      {"box", GeomShape::Box},       {"ellipsoid", GeomShape::Ellipsoid}, {"mesh", GeomShape::Mesh}};
  const auto shape = shapes.find(type);
  if (shape == shapes.end()) {
    if (type == "plane" || type == "hfield" || type == "sdf") {
      skipped_.push_back("geom '" + name + "' (line " + std::to_string(e->GetLineNum()) + ") is a " + type +
                         ": skipped (no link geometry)");
      return;
    }
    a.fail("type", "unknown geom type '" + type + "' (expected sphere, capsule, cylinder, box, ellipsoid, mesh, " +
                       "plane, hfield or sdf)");
  }
  Geom g;
  g.name = name;
  g.shape = shape->second;
  std::vector<double> size = a.numbersOverClass("size", 3);
  size.resize(3, 0.0);
  g.size = Vector3d(size[0], size[1], size[2]);
  Transform local{a.orientation(compiler_), a.vec3("pos", Vector3d::Zero())};
  const std::string mesh = a.text("mesh");
  if (!mesh.empty() && g.shape != GeomShape::Mesh) g.shape = GeomShape::Mesh;  // MuJoCo fits a primitive to it
  if (a.has("fromto") && g.shape != GeomShape::Sphere && g.shape != GeomShape::Mesh) {
    const std::vector<double> f = a.numbers("fromto", 6, 6);
    const Vector3d from(f[0], f[1], f[2]), to(f[3], f[4], f[5]);
    const double length = (to - from).norm();
    if (!(length > 1e-15) || !std::isfinite(length)) a.fail("fromto", "the two points coincide (or overflow)");
    local = {zAxisRotation(from - to), 0.5 * (from + to)};  // MuJoCo's z: from `to` towards `from`
    g.size = g.shape == GeomShape::Capsule || g.shape == GeomShape::Cylinder ? Vector3d(size[0], 0.5 * length, 0.0)
                                                                             : Vector3d(size[0], size[0], 0.5 * length);
  }
  if (g.shape == GeomShape::Mesh) {
    if (mesh.empty()) a.fail("mesh", "a mesh geom names no mesh asset");
    const auto m = meshes_.find(mesh);
    if (m == meshes_.end()) a.fail("mesh", "no mesh asset named '" + mesh + "'");
    if (m->second.path.empty()) {
      skipped_.push_back("geom '" + name + "': mesh '" + mesh + "' has no file (inline vertices): skipped");
      return;
    }
    g.mesh = m->second.path;
    g.size = m->second.scale;
    ++mesh_geoms_;
    if (!m->second.found) missing_meshes_.push_back(m->second.path);
  }
  constexpr long kMaxInt = std::numeric_limits<std::int32_t>::max();
  g.contype = static_cast<std::uint32_t>(a.integer("contype", 1, 0, kMaxInt));
  g.conaffinity = static_cast<std::uint32_t>(a.integer("conaffinity", 1, 0, kMaxInt));
  g.group = static_cast<int>(a.integer("group", 0, std::numeric_limits<std::int32_t>::min(), kMaxInt));
  g.collision = g.contype != 0 || g.conaffinity != 0;
  g.visual = g.group >= 0 && g.group <= 2;  // the groups MuJoCo's viewer draws by default
  if (const std::vector<double> rgba = a.numbers("rgba", 4, 4); !rgba.empty()) {
    g.rgba = Vector4d(rgba.data());
  } else if (const auto mat = materials_.find(a.text("material")); mat != materials_.end()) {
    g.rgba = mat->second;
  }
  g.placement = compose(offset, local);
  build(e, [&] { builder_->addGeom(body.frame, g); });
}

void Reader::readSite(const Element* e, BodyContext& body, const Transform& offset, int inherited) {
  const int k = body.sites++;
  const std::string name = e->Attribute("name") ? e->Attribute("name") : body.name + "/site" + std::to_string(k);
  unique(sites_, name, e, "site");
  const Attrs a(xml_, e, xml_.classOf(e, "class", inherited), "site", "site '" + name + "'");
  Transform local{a.orientation(compiler_), a.vec3("pos", Vector3d::Zero())};
  const std::string type = a.text("type", "sphere");
  if (a.has("fromto") && type != "sphere") {
    const std::vector<double> f = a.numbers("fromto", 6, 6);
    const Vector3d from(f[0], f[1], f[2]), to(f[3], f[4], f[5]);
    if (!((to - from).norm() > 1e-15)) a.fail("fromto", "the two points coincide");
    local = {zAxisRotation(from - to), 0.5 * (from + to)};
  }
  build(e, [&] { builder_->addFrame(name, body.frame, compose(offset, local)); });
}

}  // namespace kinetrack::io::mjcf
