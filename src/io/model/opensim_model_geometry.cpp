// The display geometry of an OpenSim model's bodies: the bone meshes (.vtp, .stl, .obj) and the
// analytic shapes a viewer draws. Not part of the rigid-body model: kept as visual Geoms
// (collision = false) so that `kinetrack view` shows the bones.
#include <cmath>

#include "opensim_model_impl.hpp"

namespace kinetrack::io::detail::osim {

namespace {

/// OpenSim's analytic shapes have their axis along y (Cylinder); Geom's cylinder axis is z.
const Matrix3d& zToY() {
  static const Matrix3d R = Eigen::AngleAxisd(-M_PI / 2.0, Vector3d::UnitX()).toRotationMatrix();
  return R;
}

Vector4d appearance(const Xml& xml, const XMLElement* geometry, const std::string& owner, bool& visible) {
  const XMLElement* a = Xml::child(geometry, "Appearance");
  Vector4d rgba = Vector4d::Ones();
  visible = true;
  if (a == nullptr) return rgba;
  visible = xml.boolean(a, "visible", owner + ": Appearance", true);
  const Vector3d colour = xml.vector3(a, "color", owner + ": Appearance", Vector3d::Ones());
  rgba.head<3>() = colour.cwiseMax(0.0).cwiseMin(1.0);
  rgba[3] = std::min(std::max(xml.number(a, "opacity", owner + ": Appearance", 1.0), 0.0), 1.0);
  return rgba;
}

// 4.0: <attached_geometry><Mesh>…</Mesh><Sphere>…</Sphere>…</attached_geometry>
void readAttached(const Xml& xml, const XMLElement* frame, const std::string& body, const Transform& X_BF,
                  std::vector<VisualDef>& out) {
  for (const XMLElement* g = Xml::child(Xml::child(frame, "attached_geometry"), nullptr); g != nullptr;
       g = g->NextSiblingElement()) {
    const std::string tag = g->Name();
    const std::string owner = tag + " '" + Xml::name(g) + "' of '" + body + "'";
    VisualDef v;
    v.name = Xml::name(g).empty() ? body + "/geom" + std::to_string(out.size()) : Xml::name(g);
    v.body = body;
    v.X_BG = X_BF;
    v.line = g->GetLineNum();
    bool visible = true;
    v.rgba = appearance(xml, g, owner, visible);
    if (!visible) continue;
    if (tag == "Mesh") {
      v.shape = GeomShape::Mesh;
      v.mesh_file = Xml::text(Xml::child(g, "mesh_file"));
      if (v.mesh_file.empty()) continue;
      v.size = xml.vector3(g, "scale_factors", owner, Vector3d::Ones());
    } else if (tag == "Sphere") {
      v.shape = GeomShape::Sphere;
      v.size = Vector3d(xml.number(g, "radius", owner, 1.0), 0.0, 0.0);
    } else if (tag == "Brick") {
      v.shape = GeomShape::Box;
      v.size = xml.vector3(g, "half_lengths", owner, Vector3d::Constant(0.1));
    } else if (tag == "Ellipsoid") {
      v.shape = GeomShape::Ellipsoid;
      v.size = xml.vector3(g, "radii", owner, Vector3d::Constant(0.5));
    } else if (tag == "Cylinder") {
      v.shape = GeomShape::Cylinder;
      v.size = Vector3d(xml.number(g, "radius", owner, 0.5), xml.number(g, "half_height", owner, 0.5), 0.0);
      v.X_BG.R = X_BF.R * zToY();
    } else {
      continue;  // FrameGeometry (axes), Arrow, Line, Cone, Torus, LineGeometry: not drawn
    }
    out.push_back(std::move(v));
  }
}

// 1.9–3.x: <VisibleObject> with <GeometrySet><objects><DisplayGeometry> (3.x) or
// <geometry_files> (older), each scaled by <scale_factors> and placed by <transform>
// (X-Y-Z body-fixed angles, then the translation).
void readVisibleObject(const Xml& xml, const XMLElement* frame, const std::string& body, const Transform& X_BF,
                       std::vector<VisualDef>& out) {
  const XMLElement* vo = Xml::child(frame, "VisibleObject");
  if (vo == nullptr) return;
  const std::string owner = "VisibleObject of '" + body + "'";
  const auto placement = [&](const XMLElement* e) {
    const std::vector<double> t = xml.numbers(Xml::child(e, "transform"), owner + ": transform", 6);
    return Transform{bodyFixedXyz(Vector3d(t[0], t[1], t[2])), Vector3d(t[3], t[4], t[5])};
  };
  const Transform X_VO = Xml::child(vo, "transform") != nullptr ? placement(vo) : Transform{};
  const Vector3d vo_scale = xml.vector3(vo, "scale_factors", owner, Vector3d::Ones());
  const auto add = [&](const std::string& file, const Transform& X, const Vector3d& scale, const Vector4d& rgba,
                       int line) {
    VisualDef v;
    v.name = body + "/" + file;
    v.body = body;
    v.X_BG = compose(X_BF, X);
    v.mesh_file = file;
    v.size = scale;
    v.rgba = rgba;
    v.line = line;
    out.push_back(std::move(v));
  };
  for (const XMLElement* d = Xml::child(Xml::child(Xml::child(vo, "GeometrySet"), "objects"), "DisplayGeometry");
       d != nullptr; d = d->NextSiblingElement("DisplayGeometry")) {
    const std::string file = Xml::text(Xml::child(d, "geometry_file"));
    if (file.empty()) continue;
    if (const XMLElement* pref = Xml::child(d, "display_preference"); pref != nullptr && Xml::text(pref) == "0")
      continue;  // hidden
    Vector4d rgba = Vector4d::Ones();
    rgba.head<3>() = xml.vector3(d, "color", owner, Vector3d::Ones()).cwiseMax(0.0).cwiseMin(1.0);
    rgba[3] = std::min(std::max(xml.number(d, "opacity", owner, 1.0), 0.0), 1.0);
    const Transform X = Xml::child(d, "transform") != nullptr ? placement(d) : Transform{};
    const Vector3d scale = vo_scale.cwiseProduct(xml.vector3(d, "scale_factors", owner, Vector3d::Ones()));
    add(file, compose(X_VO, X), scale, rgba, d->GetLineNum());
  }
  if (const XMLElement* files = Xml::child(vo, "geometry_files"))
    for (const std::string& file : Xml::words(files)) add(file, X_VO, vo_scale, Vector4d::Ones(), files->GetLineNum());
}

}  // namespace

void readVisuals(const Xml& xml, const XMLElement* frame_element, const std::string& body, const Transform& X_BF,
                 std::vector<VisualDef>& out) {
  if (frame_element == nullptr) return;
  readAttached(xml, frame_element, body, X_BF, out);
  readVisibleObject(xml, frame_element, body, X_BF, out);
}

}  // namespace kinetrack::io::detail::osim
