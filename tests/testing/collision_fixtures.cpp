#include "testing/collision_fixtures.hpp"

#include <tinyxml2.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/mesh.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::testing {

namespace {

Vector3d vec(const char* text, const Vector3d& fallback) {
  if (text == nullptr) return fallback;
  std::istringstream in(text);
  Vector3d v;
  if (!(in >> v.x() >> v.y() >> v.z())) throw std::runtime_error(std::string("bad vector '") + text + "'");
  return v;
}

Transform origin(const tinyxml2::XMLElement* e) {
  Transform T;
  if (const auto* o = e->FirstChildElement("origin")) {
    T.p = vec(o->Attribute("xyz"), Vector3d::Zero());
    T.R = so3::fromRpy(vec(o->Attribute("rpy"), Vector3d::Zero()));
  }
  return T;
}

}  // namespace

std::vector<CollisionProxy> urdfCollisionProxies(const Model& model, const std::string& urdf_path) {
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(urdf_path.c_str()) != tinyxml2::XML_SUCCESS) throw std::runtime_error("cannot read " + urdf_path);
  const std::filesystem::path folder = std::filesystem::path(urdf_path).parent_path();
  std::vector<CollisionProxy> out;
  std::map<std::string, Capsule> mesh_fits;  // mesh file → its capsule (the same mesh on several links)
  for (const auto* link = doc.RootElement()->FirstChildElement("link"); link != nullptr;
       link = link->NextSiblingElement("link")) {
    const std::string name = link->Attribute("name");
    // The link, or the link a fixed joint merged it into (a Fixed frame) and its placement there.
    LinkId id;
    Transform placement;
    if (auto l = model.findLink(name)) {
      id = *l;
    } else if (auto f = model.findFrame(name)) {
      id = model.frameLink(*f);
      placement = model.framePlacement(*f);
    } else {
      continue;
    }
    int k = 0;
    for (const auto* col = link->FirstChildElement("collision"); col != nullptr;
         col = col->NextSiblingElement("collision"), ++k) {
      const auto* geometry = col->FirstChildElement("geometry");
      if (geometry == nullptr) continue;
      Capsule shape;
      std::string what;
      if (const auto* mesh = geometry->FirstChildElement("mesh")) {
        const std::string file = mesh->Attribute("filename");
        const Vector3d scale = vec(mesh->Attribute("scale"), Vector3d::Ones());
        const std::string key =
            file + "@" + std::to_string(scale.x()) + "," + std::to_string(scale.y()) + "," + std::to_string(scale.z());
        auto it = mesh_fits.find(key);
        if (it == mesh_fits.end()) {
          io::TriangleMesh m = io::loadMesh((folder / file).string());
          for (Vector3d& v : m.vertices) v = v.cwiseProduct(scale);
          it = mesh_fits.emplace(key, boundingCapsule(m.vertices)).first;
        }
        shape = it->second;
        what = std::filesystem::path(file).filename().string();
      } else if (const auto* s = geometry->FirstChildElement("sphere")) {
        shape = sphereCapsule(s->DoubleAttribute("radius"));
        what = "sphere";
      } else if (const auto* c = geometry->FirstChildElement("cylinder")) {
        shape = cylinderCapsule(c->DoubleAttribute("radius"), c->DoubleAttribute("length"));
        what = "cylinder";
      } else if (const auto* b = geometry->FirstChildElement("box")) {
        shape = boxCapsule(0.5 * vec(b->Attribute("size"), Vector3d::Zero()));
        what = "box";
      } else {
        continue;
      }
      const Capsule in_link = transformed(compose(placement, origin(col)), shape);
      out.push_back(makeCollisionProxy(id, in_link, name + ":" + what + (k > 0 ? "#" + std::to_string(k) : "")));
    }
  }
  return out;
}

Model makeMannequin(BaseType base) {
  ModelBuilder b("mannequin", "pelvis", base);
  auto joint = [&](const std::string& name, const std::string& parent, const std::string& child, const Vector3d& at,
                   const Vector3d& axis, double lower, double upper) {
    JointSpec j;
    j.name = name;
    j.parent = parent;
    j.child = child;
    j.placement.p = at;
    j.axis = axis;
    j.lower = lower;
    j.upper = upper;
    b.addJoint(j);
  };
  joint("waist", "pelvis", "torso", Vector3d(0, 0, 0.1), Vector3d::UnitZ(), -1.0, 1.0);
  joint("r_shoulder_pitch", "torso", "r_shoulder", Vector3d(0, -0.2, 0.4), Vector3d::UnitY(), -3.0, 1.5);
  joint("r_shoulder_roll", "r_shoulder", "r_shoulder_2", Vector3d::Zero(), Vector3d::UnitX(), -2.5, 0.5);
  joint("r_shoulder_yaw", "r_shoulder_2", "r_upper_arm", Vector3d::Zero(), Vector3d::UnitZ(), -1.5, 1.5);
  joint("r_elbow", "r_upper_arm", "r_forearm", Vector3d(0, 0, -0.28), Vector3d::UnitY(), -2.6, 0.0);
  joint("l_hip_pitch", "pelvis", "l_hip", Vector3d(0, 0.12, -0.05), Vector3d::UnitY(), -2.0, 1.0);
  joint("l_hip_roll", "l_hip", "l_thigh", Vector3d::Zero(), Vector3d::UnitX(), -0.5, 1.0);
  joint("l_knee", "l_thigh", "l_shin", Vector3d(0, 0, -0.4), Vector3d::UnitY(), 0.0, 2.5);
  b.addFrame("r_hand", "r_forearm", Transform{Matrix3d::Identity(), Vector3d(0, 0, -0.3)});
  b.addFrame("l_foot", "l_shin", Transform{Matrix3d::Identity(), Vector3d(0, 0, -0.42)});
  return b.build();
}

std::vector<CollisionProxy> mannequinProxies(const Model& model) {
  auto capsule = [&](const char* link, const Vector3d& a, const Vector3d& b, double r, const char* name) {
    return CollisionProxy{model.linkId(link), a, b, r, name};
  };
  return {capsule("pelvis", Vector3d(0, -0.05, 0), Vector3d(0, 0.05, 0), 0.07, "pelvis"),
          capsule("torso", Vector3d(0, 0, 0.05), Vector3d(0, 0, 0.45), 0.12, "torso"),
          capsule("r_upper_arm", Vector3d(0, 0, -0.02), Vector3d(0, 0, -0.26), 0.04, "upper_arm"),
          capsule("r_forearm", Vector3d(0, 0, -0.02), Vector3d(0, 0, -0.25), 0.035, "forearm"),
          capsule("r_forearm", Vector3d(0, 0, -0.3), Vector3d(0, 0, -0.3), 0.04, "hand"),
          capsule("l_thigh", Vector3d(0, 0, -0.05), Vector3d(0, 0, -0.38), 0.055, "thigh"),
          capsule("l_shin", Vector3d(0, 0, -0.02), Vector3d(0, 0, -0.38), 0.05, "shin"),
          capsule("l_shin", Vector3d(0.03, 0, -0.42), Vector3d(0.03, 0, -0.42), 0.03, "foot")};
}

bool loadG1(Model& model, std::vector<CollisionProxy>& proxies) {
  const std::string path = sharedFile("models/unitree/g1/g1_29dof.urdf");
  if (path.empty()) return false;
  model = io::loadUrdf(path);
  proxies = urdfCollisionProxies(model, path);
  return true;
}

}  // namespace kinetrack::testing
