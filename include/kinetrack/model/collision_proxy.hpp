#pragma once
// Collision proxies: capsules (a segment and a radius; a sphere when the segment is a point)
// fixed to links, the geometry the collision limits of ik/collision.hpp keep apart and above the
// ground. A proxy is cheap to test (segment–segment distance), bounds the link's shape (every
// point of the mesh it was fitted to is inside) and has a smooth distance.
//
// Fitting (boundingCapsule, boundingSphere): bounding shapes of a vertex set, tight but not
// globally minimal:
//  - sphere: the smallest enclosing ball (Welzl's move-to-front recursion, unrolled into nested
//    loops over a fixed pseudo-random order, expected linear time); exact up to round-off;
//  - capsule: for each of the three principal axes of the vertices' covariance, the capsule
//    along that axis with (1) the smallest radius: the axis line through the centre of the
//    smallest circle enclosing the vertices projected on the plane normal to the axis, radius
//    that circle's; (2) the shortest segment with that radius: with t_i the axial coordinate and
//    ρ_i the distance from the axis of vertex i, the segment [t_a, t_b] with
//    t_b = max_i (t_i − √(r² − ρ_i²)), t_a = min_i (t_i + √(r² − ρ_i²)) (each vertex inside the
//    cylinder or a cap; t_a > t_b means a sphere of radius r holds them all: a = b). The capsule
//    of smallest volume over the three axes and the smallest enclosing ball is returned (so it is
//    never larger than the bounding sphere).
// Both end with a containment pass (the radius grown to the largest vertex distance), so every
// vertex is inside whatever the round-off.
#include <span>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack {

/// A capsule in some frame: the points within `radius` of the segment [a, b] (a sphere when
/// a == b). Metres.
struct Capsule {
  Vector3d a = Vector3d::Zero();
  Vector3d b = Vector3d::Zero();
  double radius = 0.0;
  [[nodiscard]] bool isSphere() const { return a == b; }
  /// Volume (m³): π r² |b − a| + 4/3 π r³.
  [[nodiscard]] double volume() const;
};

/// A capsule fixed to a link, in the link's body frame (the frame of Data::link), with a name for
/// reports (e.g. the mesh or geom it came from).
struct CollisionProxy {
  LinkId link;
  Vector3d a = Vector3d::Zero();  ///< segment end, link frame (m)
  Vector3d b = Vector3d::Zero();  ///< segment end, link frame (m); a == b is a sphere
  double radius = 0.0;            ///< m, ≥ 0
  std::string name;
};

/// The proxy of `link` with the capsule `c` (in the link frame).
CollisionProxy makeCollisionProxy(LinkId link, const Capsule& c, std::string name);

/// `c` moved by the rigid transform T (points x ↦ T.R x + T.p).
Capsule transformed(const Transform& T, const Capsule& c);

/// A bounding capsule of `points` (method above). Throws InvalidArgument for no points, a
/// non-finite one or a coordinate beyond ±1e150 (its squared distances would overflow).
Capsule boundingCapsule(std::span<const Vector3d> points);

/// The smallest ball enclosing `points`, as a capsule with a == b. Throws as boundingCapsule.
Capsule boundingSphere(std::span<const Vector3d> points);

/// The closest points of two segments [a0, a1] and [b0, b1]: p_a = a0 + s (a1 − a0),
/// p_b = b0 + t (b1 − b0), s, t ∈ [0, 1], distance |p_a − p_b|. Robust for degenerate segments
/// (a point: s or t = 0) and parallel ones (within ~1e-6 rad: the pair in the middle of the
/// overlap of their projections, or at the nearer ends when they do not overlap), so that the
/// pair moves smoothly with the segments. No allocation.
struct SegmentClosestPoints {
  Vector3d pa = Vector3d::Zero(), pb = Vector3d::Zero();
  double s = 0.0, t = 0.0;
  double distance = 0.0;
};
SegmentClosestPoints closestPointsOfSegments(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0,
                                             const Vector3d& b1);

/// Capsules bounding the primitive shapes of URDF/MJCF collision geometry, in the shape's own
/// frame (centred at its origin): a sphere; a cylinder of `radius` and `length` along z (the
/// smaller by volume of the capsule with the same radius and the axis from −length/2 to
/// +length/2, and the sphere through the rims: a squat cylinder is better bounded by the
/// sphere); a box of half extents `half` (the bounding capsule of its eight corners). Throw
/// InvalidArgument for a negative or non-finite size.
Capsule sphereCapsule(double radius);
Capsule cylinderCapsule(double radius, double length);
Capsule boxCapsule(const Vector3d& half);

}  // namespace kinetrack
