// Plain-vector (R³) backend of the FAB §3.4 primitives; the reference for the CGA backend.
#include <algorithm>
#include <cmath>

#include "kinetrack/cga/geometry.hpp"

namespace kinetrack::cga {

const char* toString(Case c) {
  switch (c) {
    case Case::Real: return "real";
    case Case::Tangent: return "tangent";
    case Case::None: return "none";
    case Case::Degenerate: return "degenerate";
  }
  return "?";
}

Vector3d anyPerpendicular(const Vector3d& n) {
  int k = 0;
  const Vector3d a = n.cwiseAbs();
  if (a.y() < a[k]) k = 1;
  if (a.z() < a[k]) k = 2;
  return n.cross(Vector3d::Unit(k)).normalized();
}

namespace euclid {

PlaneResult planeThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r, const Tolerance& tol) {
  const Vector3d u = q - p, v = r - p;
  const Vector3d n = u.cross(v);
  const double nn = n.norm();
  PlaneResult out;
  if (nn <= tol.relative * u.norm() * v.norm()) return out;  // Degenerate
  out.status = Case::Real;
  out.plane.normal = n / nn;
  out.plane.offset = out.plane.normal.dot(p);
  return out;
}

CircleResult meetSpheres(const Sphere& a, const Sphere& b, const Tolerance& tol) {
  CircleResult out;
  const Vector3d w = b.centre - a.centre;
  const double d2 = w.squaredNorm();
  const double R = std::max(a.radius, b.radius);
  const double scale2 = R * R;
  if (d2 <= tol.relative * tol.relative * scale2) {
    out.status = std::abs(a.radius - b.radius) <= tol.relative * R ? Case::Degenerate : Case::None;
    return out;
  }
  const double d = std::sqrt(d2);
  // Distance from a's centre to the radical plane, then the circle's squared radius.
  const double t = (d2 + a.radius * a.radius - b.radius * b.radius) / (2.0 * d);
  const double r2 = a.radius * a.radius - t * t;
  out.circle.normal = w / d;
  out.circle.centre = a.centre + t * out.circle.normal;
  if (r2 > tol.relative * scale2) {
    out.status = Case::Real;
    out.circle.radius = std::sqrt(r2);
  } else if (r2 >= -tol.relative * scale2) {
    out.status = Case::Tangent;
    out.circle.radius = 0.0;
  } else {
    out.status = Case::None;
    out.circle = Circle{};
  }
  return out;
}

PointPairResult meetCirclePlane(const Circle& c, const Plane& p, const Tolerance& tol) {
  PointPairResult out;
  const Vector3d axis = c.normal.cross(p.normal);
  const double s2 = axis.squaredNorm();
  const double dist = p.normal.dot(c.centre) - p.offset;
  if (s2 <= tol.relative * tol.relative) {
    out.status = std::abs(dist) <= tol.relative * c.radius ? Case::Degenerate : Case::None;
    return out;
  }
  // In the circle's plane, the plane's trace is a line; its nearest point to the centre is m.
  // Direction from the centre to m: the plane normal's component in the circle's plane.
  const Vector3d in_plane = p.normal - p.normal.dot(c.normal) * c.normal;  // |in_plane|² = s2
  const Vector3d m = c.centre - dist / s2 * in_plane;
  const double h2 = c.radius * c.radius - dist * dist / s2;
  const double scale2 = c.radius * c.radius;
  const Vector3d u = axis / std::sqrt(s2);
  if (h2 > tol.relative * scale2) {
    const double h = std::sqrt(h2);
    out.status = Case::Real;
    out.first = m - h * u;
    out.second = m + h * u;
  } else if (h2 >= -tol.relative * scale2) {
    out.status = Case::Tangent;
    out.first = out.second = m;
  } else {
    out.status = Case::None;
  }
  return out;
}

PointResult nearestPointOnSphere(const Sphere& s, const Vector3d& x, const Tolerance& tol) {
  const Vector3d v = x - s.centre;
  const double n = v.norm();
  if (n <= tol.relative * s.radius) return {Case::Degenerate, s.centre + s.radius * Vector3d::UnitX()};
  return {Case::Real, s.centre + (s.radius / n) * v};
}

PointResult nearestPointOnCircle(const Circle& c, const Vector3d& x, const Tolerance& tol) {
  const Vector3d v0 = x - c.centre;
  const Vector3d v = v0 - v0.dot(c.normal) * c.normal;
  const double n = v.norm();
  if (n <= tol.relative * c.radius) return {Case::Degenerate, c.centre + c.radius * anyPerpendicular(c.normal)};
  return {Case::Real, c.centre + (c.radius / n) * v};
}

Vector3d projectPointOnPlane(const Plane& p, const Vector3d& x) { return x - (p.normal.dot(x) - p.offset) * p.normal; }

}  // namespace euclid
}  // namespace kinetrack::cga
