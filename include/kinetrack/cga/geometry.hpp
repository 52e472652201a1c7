#pragma once
// The geometric primitives of the FABRIK hand tracker (FAB §3.4.1–3.4.2) with Euclidean inputs and
// outputs, in two interchangeable backends of the same API shape:
//   kinetrack::cga::         computed with conformal geometric algebra (cga.hpp)
//   kinetrack::cga::euclid:: computed with plain R³ vectors (this header)
// The structs `Cga` and `Euclid` bundle each backend's functions for templated callers. Both
// backends decide their cases from the same quantities with the same relative tolerance, so
// they return the same case and the same points (to rounding) on the same input (docs/cga.md).
#include <cstdint>

#include <Eigen/Geometry>

#include "kinetrack/core/types.hpp"

namespace kinetrack::cga {

/// Outcome of an intersection or construction.
enum class Case : std::uint8_t {
  Real,        ///< the generic result: a plane, a circle, two points, a unique nearest point
  Tangent,     ///< the result degenerates to one point (tangent spheres, plane tangent to circle)
  None,        ///< no real result (disjoint spheres, imaginary point pair, parallel circle/plane)
  Degenerate,  ///< ill-posed input: collinear points, identical spheres, coplanar circle and plane,
               ///< nearest point not unique (query at the centre or on the circle's axis)
};
[[nodiscard]] const char* toString(Case c);

/// Relative tolerance of the case decisions; each test is stated in docs/cga.md.
struct Tolerance {
  double relative = 1e-10;  ///< dimensionless; compared with ratios such as r²/scale², sin θ
};

/// Sphere: centre (m) and radius (m, ≥ 0).
struct Sphere {
  Vector3d centre = Vector3d::Zero();
  double radius = 0.0;
};
/// Plane {x : normal · x = offset}; normal has unit length, offset in m.
struct Plane {
  Vector3d normal = Vector3d::UnitZ();
  double offset = 0.0;
};
/// Circle: centre (m), unit normal of its plane, radius (m).
struct Circle {
  Vector3d centre = Vector3d::Zero();
  Vector3d normal = Vector3d::UnitZ();
  double radius = 0.0;
};

struct PlaneResult {
  Case status = Case::Degenerate;  ///< Real, or Degenerate (coincident or collinear points)
  Plane plane;                     ///< normal ∝ (q - p) × (r - p); valid when status == Real
};
struct CircleResult {
  Case status = Case::None;  ///< Real (circle), Tangent (circle.radius = 0, centre = the point),
                             ///< None (disjoint or concentric), Degenerate (identical spheres)
  Circle circle;
};
struct PointPairResult {
  Case status = Case::None;  ///< Real (first, second), Tangent (first == second), None, Degenerate
  Vector3d first = Vector3d::Zero();
  Vector3d second = Vector3d::Zero();
};
struct PointResult {
  Case status = Case::Real;  ///< Real, or Degenerate (not unique: `point` is the documented choice)
  Vector3d point = Vector3d::Zero();
};

/// A unit vector perpendicular to unit n, chosen deterministically (n × the basis axis least
/// aligned with n, normalised): the documented answer of the non-unique nearest-point cases.
[[nodiscard]] Vector3d anyPerpendicular(const Vector3d& n);

namespace euclid {

/// Plane through p, q, r, normal ∝ (q - p) × (r - p). Degenerate when
/// |(q - p) × (r - p)| ≤ tol · |q - p| |r - p| (collinear or coincident points).
[[nodiscard]] PlaneResult planeThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r,
                                             const Tolerance& tol = {});
/// Intersection of two spheres. Concentric (|c1 - c2| ≤ tol · max radius): Degenerate if the radii
/// agree to that tolerance, else None. Otherwise the circle's squared radius r² decides:
/// r² > tol · R² Real, |r²| ≤ tol · R² Tangent, else None (R = max radius). The normal points from
/// the first centre to the second.
[[nodiscard]] CircleResult meetSpheres(const Sphere& a, const Sphere& b, const Tolerance& tol = {});
/// Intersection of a circle and a plane. Parallel planes (sin angle ≤ tol): Degenerate if the circle
/// lies in the plane (distance ≤ tol · radius), else None. Otherwise the squared half-chord h²
/// decides as in meetSpheres (scale = the circle's radius). Order: first = m - h u,
/// second = m + h u, with m the chord's midpoint and u = unit(normal_circle × normal_plane).
[[nodiscard]] PointPairResult meetCirclePlane(const Circle& c, const Plane& p, const Tolerance& tol = {});
/// Nearest point on the sphere to x. Degenerate when |x - centre| ≤ tol · radius: returns
/// centre + radius · e_x.
[[nodiscard]] PointResult nearestPointOnSphere(const Sphere& s, const Vector3d& x, const Tolerance& tol = {});
/// Nearest point on the circle to x. Degenerate when x projects (within tol · radius) onto the
/// centre: returns centre + radius · anyPerpendicular(normal).
[[nodiscard]] PointResult nearestPointOnCircle(const Circle& c, const Vector3d& x, const Tolerance& tol = {});
/// Orthogonal projection of x onto the plane.
[[nodiscard]] Vector3d projectPointOnPlane(const Plane& p, const Vector3d& x);

}  // namespace euclid

// The CGA backend's declarations of the same six functions (implemented in src/cga/cga_geometry.cpp).
[[nodiscard]] PlaneResult planeThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r,
                                             const Tolerance& tol = {});
[[nodiscard]] CircleResult meetSpheres(const Sphere& a, const Sphere& b, const Tolerance& tol = {});
[[nodiscard]] PointPairResult meetCirclePlane(const Circle& c, const Plane& p, const Tolerance& tol = {});
[[nodiscard]] PointResult nearestPointOnSphere(const Sphere& s, const Vector3d& x, const Tolerance& tol = {});
[[nodiscard]] PointResult nearestPointOnCircle(const Circle& c, const Vector3d& x, const Tolerance& tol = {});
[[nodiscard]] Vector3d projectPointOnPlane(const Plane& p, const Vector3d& x);

/// Backend bundles for templated callers: `template <class G> ... G::meetSpheres(a, b)`.
struct Euclid {
  static PlaneResult planeThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r,
                                        const Tolerance& tol = {}) {
    return euclid::planeThroughPoints(p, q, r, tol);
  }
  static CircleResult meetSpheres(const Sphere& a, const Sphere& b, const Tolerance& tol = {}) {
    return euclid::meetSpheres(a, b, tol);
  }
  static PointPairResult meetCirclePlane(const Circle& c, const Plane& p, const Tolerance& tol = {}) {
    return euclid::meetCirclePlane(c, p, tol);
  }
  static PointResult nearestPointOnSphere(const Sphere& s, const Vector3d& x, const Tolerance& tol = {}) {
    return euclid::nearestPointOnSphere(s, x, tol);
  }
  static PointResult nearestPointOnCircle(const Circle& c, const Vector3d& x, const Tolerance& tol = {}) {
    return euclid::nearestPointOnCircle(c, x, tol);
  }
  static Vector3d projectPointOnPlane(const Plane& p, const Vector3d& x) { return euclid::projectPointOnPlane(p, x); }
};
struct Cga {
  static PlaneResult planeThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r,
                                        const Tolerance& tol = {}) {
    return cga::planeThroughPoints(p, q, r, tol);
  }
  static CircleResult meetSpheres(const Sphere& a, const Sphere& b, const Tolerance& tol = {}) {
    return cga::meetSpheres(a, b, tol);
  }
  static PointPairResult meetCirclePlane(const Circle& c, const Plane& p, const Tolerance& tol = {}) {
    return cga::meetCirclePlane(c, p, tol);
  }
  static PointResult nearestPointOnSphere(const Sphere& s, const Vector3d& x, const Tolerance& tol = {}) {
    return cga::nearestPointOnSphere(s, x, tol);
  }
  static PointResult nearestPointOnCircle(const Circle& c, const Vector3d& x, const Tolerance& tol = {}) {
    return cga::nearestPointOnCircle(c, x, tol);
  }
  static Vector3d projectPointOnPlane(const Plane& p, const Vector3d& x) { return cga::projectPointOnPlane(p, x); }
};

}  // namespace kinetrack::cga
