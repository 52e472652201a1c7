#pragma once
// Collision proxies of a URDF's <collision> elements, for tests and benchmarks (the library
// builds them from Model::geoms() once that exists): meshes (STL/OBJ, with their scale) fitted
// with a bounding capsule, spheres, cylinders and boxes as their bounding capsules, each moved by
// the element's <origin> and, for a link merged away by a fixed joint, by its placement on the
// link it was merged into.
#include <string>
#include <vector>

#include "kinetrack/model/collision_proxy.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::testing {

/// One proxy per <collision> of `urdf_path` whose link is in `model` (a link, or a Fixed frame of
/// one), named "<link>:<mesh file or shape>[#k]". Mesh paths are relative to the URDF's folder.
std::vector<CollisionProxy> urdfCollisionProxies(const Model& model, const std::string& urdf_path);

/// The Unitree G1 (29 DoF) of ../shared with its collision proxies; false when ../shared is absent.
bool loadG1(Model& model, std::vector<CollisionProxy>& proxies);

/// A small humanoid for collision tests: root "pelvis" (floating or fixed), "torso" on a waist
/// yaw joint, a right arm (shoulder pitch, roll and yaw through two dummy links, elbow; frame
/// "r_hand" at the forearm's end) and a left leg (hip pitch, roll through a dummy link, knee; frame "l_foot"
/// under the shin). Joint limits on every joint. Standing upright at s = 0 with the pelvis at the
/// origin: the torso above it, the arm hanging at y = −0.2, the leg at y = +0.12.
Model makeMannequin(BaseType base);

/// Its proxies: pelvis (capsule across the hips), torso, upper arm, forearm, hand sphere, thigh,
/// shin, foot sphere. The pelvis overlaps the thigh by 3 mm at s = 0 (two joints apart), not
/// with the hip rolled out by 0.5 rad.
std::vector<CollisionProxy> mannequinProxies(const Model& model);

}  // namespace kinetrack::testing
