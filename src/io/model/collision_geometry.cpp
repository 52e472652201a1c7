#include "kinetrack/io/model/collision_geometry.hpp"

#include <compare>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <system_error>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/mesh.hpp"

namespace kinetrack::io {

namespace {

// The bounding capsules of the mesh files read in this process, by path, size, modification time
// and scale: a batch retargets every clip onto the same robot, and reading and fitting the G1's
// 19 MB of STL took 34 ms a clip, half of the batch's time. A file rewritten since is read again.
struct MeshKey {
  std::string path;
  std::uintmax_t size = 0;
  std::filesystem::file_time_type modified;
  double sx = 1.0, sy = 1.0, sz = 1.0;
  auto operator<=>(const MeshKey&) const = default;
};

std::mutex cache_mutex;
std::map<MeshKey, Capsule>& meshCapsules() {
  static std::map<MeshKey, Capsule> cache;
  return cache;
}

}  // namespace

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
        std::error_code ec;
        MeshKey key{g.mesh, std::filesystem::file_size(g.mesh, ec), {}, g.size.x(), g.size.y(), g.size.z()};
        if (!ec) key.modified = std::filesystem::last_write_time(g.mesh, ec);
        if (!ec) {
          const std::lock_guard lock(cache_mutex);
          if (const auto cached = meshCapsules().find(key); cached != meshCapsules().end()) {
            c = cached->second;
            break;
          }
        }
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
        if (!ec) {
          const std::lock_guard lock(cache_mutex);
          meshCapsules().emplace(key, c);
        }
        break;
      }
    }
    out.push_back(makeCollisionProxy(g.link, transformed(g.placement, c), g.name));
  }
  return out;
}

}  // namespace kinetrack::io
