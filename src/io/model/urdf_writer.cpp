// URDF writer: the inverse of the reader, exact to 17 significant digits.
#include <fstream>
#include <limits>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::io {

namespace {

std::string num(double v) {
  if (std::isinf(v)) v = v > 0 ? std::numeric_limits<double>::max() : -std::numeric_limits<double>::max();
  return fmt::format("{:.17g}", v);
}

std::string vec(const Vector3d& v) { return num(v.x()) + " " + num(v.y()) + " " + num(v.z()); }

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

void writeOrigin(std::ostream& out, const Transform& X, const char* indent) {
  out << indent << "<origin xyz=\"" << vec(X.p) << "\" rpy=\"" << vec(so3::toRpy(X.R)) << "\"/>\n";
}

// XML comments may not hold "--".
std::string commentText(std::string s) {
  for (std::size_t i = s.find("--"); i != std::string::npos; i = s.find("--", i)) s.replace(i, 2, "- -");
  return s;
}

// A geom as a <visual> and/or <collision> (URDF has no capsule or ellipsoid: a comment then).
void writeGeom(std::ostream& out, const Geom& g) {
  if (g.shape == GeomShape::Capsule || g.shape == GeomShape::Ellipsoid || (!g.visual && !g.collision)) {
    out << "    <!-- geom '" << commentText(escape(g.name)) << "': " << toString(g.shape) << " size " << vec(g.size)
        << (g.visual || g.collision ? ": URDF has no such shape" : ": neither drawn nor colliding") << " -->\n";
    return;
  }
  for (const char* tag : {"visual", "collision"}) {
    if (!(tag[0] == 'v' ? g.visual : g.collision)) continue;
    out << "    <" << tag << " name=\"" << escape(g.name) << "\">\n";
    writeOrigin(out, g.placement, "      ");
    out << "      <geometry>\n        ";
    switch (g.shape) {
      case GeomShape::Sphere: out << "<sphere radius=\"" << num(g.size.x()) << "\"/>"; break;
      case GeomShape::Cylinder:
        out << "<cylinder radius=\"" << num(g.size.x()) << "\" length=\"" << num(2.0 * g.size.y()) << "\"/>";
        break;
      case GeomShape::Box: out << "<box size=\"" << vec(2.0 * g.size) << "\"/>"; break;
      default: out << "<mesh filename=\"" << escape(g.mesh) << "\" scale=\"" << vec(g.size) << "\"/>"; break;
    }
    out << "\n      </geometry>\n";
    if (tag[0] == 'v') {
      const std::string rgba = num(g.rgba[0]) + " " + num(g.rgba[1]) + " " + num(g.rgba[2]) + " " + num(g.rgba[3]);
      out << "      <material name=\"rgba " << rgba << "\">\n        <color rgba=\"" << rgba
          << "\"/>\n      </material>\n";
    }
    out << "    </" << tag << ">\n";
  }
}

void writeLink(std::ostream& out, const std::string& name, const Inertial* in, const Model* model = nullptr,
               LinkId link = {}) {
  const bool massless = !in || (in->mass == 0.0 && in->com.isZero(0.0) && in->inertia.isZero(0.0));
  bool geoms = false;
  if (model)
    for (const Geom& g : model->geoms()) geoms |= g.link == link;
  if (massless && !geoms) {
    out << "  <link name=\"" << escape(name) << "\"/>\n";
    return;
  }
  out << "  <link name=\"" << escape(name) << "\">\n";
  if (!massless) {
    out << "    <inertial>\n";
    out << "      <origin xyz=\"" << vec(in->com) << "\" rpy=\"0 0 0\"/>\n";
    out << "      <mass value=\"" << num(in->mass) << "\"/>\n";
    const Matrix3d& I = in->inertia;
    out << "      <inertia ixx=\"" << num(I(0, 0)) << "\" ixy=\"" << num(I(0, 1)) << "\" ixz=\"" << num(I(0, 2))
        << "\" iyy=\"" << num(I(1, 1)) << "\" iyz=\"" << num(I(1, 2)) << "\" izz=\"" << num(I(2, 2)) << "\"/>\n";
    out << "    </inertial>\n";
  }
  if (model)
    for (const Geom& g : model->geoms())
      if (g.link == link) writeGeom(out, g);
  out << "  </link>\n";
}

}  // namespace

void writeUrdf(const Model& model, std::ostream& out) {
  for (int j = 0; j < model.numJoints(); ++j)
    if (model.jointType(JointId(j)) == JointType::Custom)
      throw InvalidArgument("URDF export: joint '" + model.jointName(JointId(j)) +
                            "' is function-driven (custom), which URDF cannot describe");
  out << "<?xml version=\"1.0\"?>\n";
  out << "<!-- written by kinetrack; base: " << toString(model.baseType())
      << " (URDF cannot say so; load with the matching option) -->\n";
  out << "<robot name=\"" << escape(model.name()) << "\">\n";
  for (int l = 0; l < model.numLinks(); ++l)
    writeLink(out, model.linkName(LinkId(l)), &model.inertial(LinkId(l)), &model, LinkId(l));
  for (int f = 0; f < model.numFrames(); ++f)
    if (model.frameKind(FrameId(f)) != FrameKind::Link) writeLink(out, model.frameName(FrameId(f)), nullptr);

  // Joints in frame order (the order the model was built in): reloading gives the same ids.
  for (int f = 1; f < model.numFrames(); ++f) {
    const FrameId fid(f);
    if (model.frameKind(fid) == FrameKind::Link) {
      const JointId id = model.jointOfLink(model.frameLink(fid));
      const int j = id.value;
      const JointType type = model.jointType(id);
      out << "  <joint name=\"" << escape(model.jointName(id)) << "\" type=\"" << toString(type) << "\">\n";
      writeOrigin(out, model.jointPlacement(id), "    ");
      out << "    <parent link=\"" << escape(model.linkName(model.parentLink(id))) << "\"/>\n";
      out << "    <child link=\"" << escape(model.linkName(model.childLink(id))) << "\"/>\n";
      out << "    <axis xyz=\"" << vec(model.jointAxis(id)) << "\"/>\n";
      out << "    <limit";
      if (type != JointType::Continuous)
        out << " lower=\"" << num(model.lowerPositionLimits()[j]) << "\" upper=\""
            << num(model.upperPositionLimits()[j]) << "\"";
      out << " velocity=\"" << num(model.upperVelocityLimits()[j]) << "\" effort=\"" << num(model.effortLimits()[j])
          << "\"/>\n";
      for (const Mimic& m : model.mimics())
        if (m.joint == id)
          out << "    <mimic joint=\"" << escape(model.jointName(m.master)) << "\" multiplier=\"" << num(m.multiplier)
              << "\" offset=\"" << num(m.offset) << "\"/>\n";
      out << "  </joint>\n";
      continue;
    }
    // A fixed or user frame: a fixed joint to its original parent frame, placed relative to it.
    const FrameId parent =
        model.frameParent(fid).valid() ? model.frameParent(fid) : model.linkFrame(model.frameLink(fid));
    const Transform X = compose(inverse(model.framePlacement(parent)), model.framePlacement(fid));
    const std::string& jn = model.frameJointName(fid);
    out << "  <joint name=\"" << escape(jn.empty() ? model.frameName(fid) + "_fixed_joint" : jn)
        << "\" type=\"fixed\">\n";
    writeOrigin(out, X, "    ");
    out << "    <parent link=\"" << escape(model.frameName(parent)) << "\"/>\n";
    out << "    <child link=\"" << escape(model.frameName(fid)) << "\"/>\n";
    out << "  </joint>\n";
  }

  for (const LinearConstraint& c : model.linearConstraints()) {
    if (c.name.rfind("mimic:", 0) == 0) continue;
    out << "  <!-- linear constraint '" << escape(c.name) << "': " << num(c.lower) << " <=";
    for (int j = 0; j < model.numJoints(); ++j)
      if (c.coefficients[j] != 0.0)
        out << " + " << num(c.coefficients[j]) << "*" << escape(model.jointName(JointId(j)));
    out << " <= " << num(c.upper) << ", velocity bound " << num(c.velocity_bound) << " -->\n";
  }
  out << "</robot>\n";
}

std::string toUrdf(const Model& model) {
  std::ostringstream out;
  writeUrdf(model, out);
  return out.str();
}

void saveUrdf(const Model& model, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ParseError(path, 0, "cannot open file for writing");
  writeUrdf(model, out);
  out.flush();
  if (!out) throw ParseError(path, 0, "write error");
}

}  // namespace kinetrack::io
