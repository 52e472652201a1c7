#include "kinetrack/io/model/collision_geometry.hpp"

#include <map>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/mesh.hpp"

namespace kinetrack::io {

std::vector<CollisionProxy> collisionProxies(const Model& model, std::vector<std::string>* warnings) {
  std::vector<CollisionProxy> out;
  std::map<std::string, TriangleMesh> meshes;
  for (const Geom& g : model.geoms()) {
    if (!g.collision) continue;
    Capsule c;
    switch (g.shape) {
      case GeomShape::Sphere: c = sphereCapsule(g.size.x()); break;
      case GeomShape::Capsule:
        c.a = Vector3d(0, 0, -g.size.y()), c.b = Vector3d(0, 0, g.size.y()), c.radius = g.size.x();
        break;
      case GeomShape::Cylinder: c = cylinderCapsule(g.size.x(), 2.0 * g.size.y()); break;
      case GeomShape::Box: c = boxCapsule(g.size); break;
      case GeomShape::Ellipsoid: c = sphereCapsule(g.size.maxCoeff()); break;
      case GeomShape::Mesh: {
        auto it = meshes.find(g.mesh);
        if (it == meshes.end()) {
          try {
            it = meshes.emplace(g.mesh, loadMesh(g.mesh)).first;
          } catch (const std::exception& e) {
            if (warnings != nullptr)
              warnings->push_back("collision mesh '" + g.mesh + "' of link '" + model.linkName(g.link) +
                                  "': " + e.what() + "; no proxy");
            meshes.emplace(g.mesh, TriangleMesh{});
            continue;
          }
        }
        if (it->second.vertices.empty()) continue;
        std::vector<Vector3d> points;
        points.reserve(it->second.vertices.size());
        for (const Vector3d& v : it->second.vertices) points.push_back(g.size.cwiseProduct(v));
        c = boundingCapsule(points);
        break;
      }
    }
    out.push_back(makeCollisionProxy(g.link, transformed(g.placement, c), g.name));
  }
  return out;
}

}  // namespace kinetrack::io
