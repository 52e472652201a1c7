#pragma once
// A model's collision geometry as capsule proxies (model/collision_proxy.hpp) for the ground and
// self-collision rows: each collision geom (Model::geoms, collision = true) bounded by a capsule
// in its link's frame — spheres and capsules exactly, cylinders and boxes by their bounding
// capsules, meshes by the bounding capsule of their vertices (scaled as the geom says; each file
// read and fitted once per process while its size and modification time stay the same).
#include <string>
#include <vector>

#include "kinetrack/model/collision_proxy.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// The proxies of `model`'s collision geoms, in geom order. A mesh whose file cannot be read is
/// left out with a warning in `warnings` ("collision mesh '<path>' of link '<link>': <reason>;
/// no proxy"); an ellipsoid is bounded by the sphere of its largest semi-axis.
std::vector<CollisionProxy> collisionProxies(const Model& model, std::vector<std::string>* warnings = nullptr);

}  // namespace kinetrack::io
