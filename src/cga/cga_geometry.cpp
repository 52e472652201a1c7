// CGA backend of the FAB §3.4 primitives: every result is computed with conformal objects
// (meets of spheres and planes, point-pair extraction, reflections) and only read back to R³ at
// the end. Case decisions use the same weight-free quantities as the plain-vector backend.
#include <algorithm>
#include <cmath>
#include <utility>

#include "kinetrack/cga/cga.hpp"

namespace kinetrack::cga {

namespace {

// Squared weight of a vector's Euclidean direction.
double euclidSquared(const Multivector& v) { return euclideanPart(v).squaredNorm(); }

// Of the two points of a real pair, the one nearer x: the larger X_i · X (FAB eq. 3.13).
Vector3d nearerOf(const PointPairResult& pair, const Multivector& X) {
  return scalarProduct(point(pair.first), X) >= scalarProduct(point(pair.second), X) ? pair.first : pair.second;
}

}  // namespace

Plane planeFromDual(const Multivector& dual_plane) {
  const Vector3d n = euclideanPart(dual_plane);
  const double w = n.norm();
  return {n / w, einfCoefficient(dual_plane) / w};
}

PointPairResult extractPointPair(const Multivector& B, double scale, const Tolerance& tol) {
  PointPairResult out;
  const Multivector v = leftContraction(einf(), B);  // e∞ ⌋ B, a vector ∝ the pair's axis
  const double vv = scalarProduct(v, v);
  if (!(vv > 0.0)) {
    out.status = Case::Degenerate;
    return out;
  }
  const double BB = scalarProduct(B, B);
  const double rho2 = BB / vv;  // squared half-separation (negative: imaginary pair)
  const double scale2 = scale * scale;
  if (rho2 > tol.relative * scale2) {
    const double s = std::sqrt(BB);
    out.status = Case::Real;
    out.first = toEuclidean(grade((B - Multivector::scalar(s)) * v, 1));  // P for B = P ∧ Q
    out.second = toEuclidean(grade((B + Multivector::scalar(s)) * v, 1));
  } else if (rho2 >= -tol.relative * scale2) {
    out.status = Case::Tangent;
    out.first = out.second = toEuclidean(grade(B * einf() * B, 1));
  } else {
    out.status = Case::None;
  }
  return out;
}

CircleResult circleFromDual(const Multivector& dual_circle, double scale, const Tolerance& tol) {
  CircleResult out;
  const Multivector v = leftContraction(einf(), dual_circle);  // IPNS carrier plane
  const double vv = scalarProduct(v, v);
  const double r2 = -scalarProduct(dual_circle, dual_circle) / vv;
  const double scale2 = scale * scale;
  out.circle.normal = -euclideanPart(v).normalized();
  out.circle.centre = toEuclidean(grade(dual_circle * einf() * dual_circle, 1));
  if (r2 > tol.relative * scale2) {
    out.status = Case::Real;
    out.circle.radius = std::sqrt(r2);
  } else if (r2 >= -tol.relative * scale2) {
    out.status = Case::Tangent;
  } else {
    out.status = Case::None;
  }
  return out;
}

PlaneResult planeThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r, const Tolerance& tol) {
  const Multivector P = point(p), Q = point(q), R = point(r);
  const Multivector phi = outer(outer(outer(P, Q), R), einf());  // FAB eq. 3.2
  const Multivector pi = -dual(phi);                             // n + d e∞, n = (q-p)×(r-p)
  // |q - p|² = -2 P·Q: the weight-free collinearity test of the plain-vector backend.
  const double uu = -2.0 * scalarProduct(P, Q), vv = -2.0 * scalarProduct(P, R);
  PlaneResult out;
  if (euclidSquared(pi) <= tol.relative * tol.relative * uu * vv) return out;
  out.status = Case::Real;
  out.plane = planeFromDual(pi);
  return out;
}

CircleResult circleThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r, const Tolerance& tol) {
  const Multivector P = point(p), Q = point(q), R = point(r);
  const Multivector gamma = undual(outer(outer(P, Q), R));  // IPNS circle, oriented like (q-p)×(r-p)
  const Multivector v = leftContraction(einf(), gamma);
  const double uu = -2.0 * scalarProduct(P, Q), ww = -2.0 * scalarProduct(P, R);
  if (scalarProduct(v, v) <= tol.relative * tol.relative * uu * ww) return {Case::Degenerate, Circle{}};
  return circleFromDual(gamma, std::sqrt(std::max(uu, ww)), tol);
}

CircleResult meetSpheres(const Sphere& a, const Sphere& b, const Tolerance& tol) {
  const double R = std::max(a.radius, b.radius);
  const Multivector gamma = outer(dualSphere(a), dualSphere(b));  // IPNS circle (FAB eq. 3.5)
  const Multivector v = leftContraction(einf(), gamma);
  if (scalarProduct(v, v) <= tol.relative * tol.relative * R * R) {  // (e∞⌋γ)² = |c1 - c2|²
    CircleResult out;
    out.status = std::abs(a.radius - b.radius) <= tol.relative * R ? Case::Degenerate : Case::None;
    return out;
  }
  CircleResult out = circleFromDual(gamma, R, tol);
  if (out.status == Case::None) out.circle = Circle{};
  return out;
}

PointPairResult meetCirclePlane(const Circle& c, const Plane& p, const Tolerance& tol) {
  const Multivector pi = dualPlane(p);
  const Multivector B = dual(outer(dualCircle(c), pi));  // OPNS point pair (FAB eq. 3.6)
  const Multivector v = leftContraction(einf(), B);
  // (e∞ ⌋ B)² = sin²θ for the unit-weight σ ∧ π_c ∧ π used here (θ the angle of the normals).
  if (scalarProduct(v, v) <= tol.relative * tol.relative) {
    PointPairResult out;
    const double dist = scalarProduct(point(c.centre), pi);  // signed distance of the centre
    out.status = std::abs(dist) <= tol.relative * c.radius ? Case::Degenerate : Case::None;
    return out;
  }
  PointPairResult out = extractPointPair(B, c.radius, tol);
  // Order as the plain-vector backend: second - first along normal_circle × normal_plane.
  if (out.status == Case::Real && (out.second - out.first).dot(c.normal.cross(p.normal)) < 0.0)
    std::swap(out.first, out.second);
  return out;
}

PointResult nearestPointOnSphere(const Sphere& s, const Vector3d& x, const Tolerance& tol) {
  const Multivector X = point(x);
  const Multivector L = outer(outer(X, point(s.centre)), einf());  // FAB eq. 3.11
  // |L L~| = |x - c|² for this unit-weight line.
  if (std::abs(scalarProduct(L, reverse(L))) <= tol.relative * tol.relative * s.radius * s.radius)
    return {Case::Degenerate, s.centre + s.radius * Vector3d::UnitX()};
  const PointPairResult pair = extractPointPair(leftContraction(dualSphere(s), L), s.radius, tol);  // eq. 3.12
  return {Case::Real, nearerOf(pair, X)};
}

PointResult nearestPointOnCircle(const Circle& c, const Vector3d& x, const Tolerance& tol) {
  const Multivector X = point(x);
  const Multivector pi = dualPlane({c.normal, c.normal.dot(c.centre)});     // carrier plane, eq. 3.15
  const Vector3d reflected = toEuclidean(grade(pi * X * pi, 1));            // eq. 3.16
  const Vector3d mid = 0.5 * (reflected + x);                               // eq. 3.17
  const Multivector L = outer(outer(point(mid), point(c.centre)), einf());  // eq. 3.18
  if (std::abs(scalarProduct(L, reverse(L))) <= tol.relative * tol.relative * c.radius * c.radius)
    return {Case::Degenerate, c.centre + c.radius * anyPerpendicular(c.normal)};
  // L lies in the circle's plane, so L ∩ circle = L ∩ the circle's sphere.
  const PointPairResult pair = extractPointPair(leftContraction(dualSphere({c.centre, c.radius}), L), c.radius, tol);
  return {Case::Real, nearerOf(pair, X)};
}

Vector3d projectPointOnPlane(const Plane& p, const Vector3d& x) {
  const Multivector pi = dualPlane(p);
  const Vector3d reflected = toEuclidean(grade(pi * point(x) * pi, 1));  // eq. 3.16
  return 0.5 * (reflected + x);                                          // eq. 3.17
}

}  // namespace kinetrack::cga
