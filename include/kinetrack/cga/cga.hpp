#pragma once
// Conformal geometric algebra G(4,1): points, spheres, planes, circles, lines and point pairs as
// multivectors, and the FAB §3.4 operations (docs/cga.md). Conventions (multivector.hpp):
// e0·e∞ = -1, point X = x + ½|x|² e∞ + e0, I = e0 ∧ e1 ∧ e2 ∧ e3 ∧ e∞, dual a* = a I⁻¹.
// "IPNS" (dual) forms are the vectors/blades A with X · A = 0 (or X ⌋ A = 0) on the object;
// "OPNS" (direct) forms are the blades with X ∧ A = 0 on it. They are related by the dual.
#include "kinetrack/cga/geometry.hpp"
#include "kinetrack/cga/multivector.hpp"

namespace kinetrack::cga {

/// Null-vector embedding of a Euclidean point (m): X = x + ½|x|² e∞ + e0 (X·X = 0, X·e∞ = -1).
[[nodiscard]] inline Multivector point(const Vector3d& x) { return Multivector::vector(x, 1.0, 0.5 * x.squaredNorm()); }
/// Euclidean point of a (possibly scaled) conformal point: x = euclideanPart(X) / (-X · e∞).
/// Precondition: X · e∞ ≠ 0 (not a flat or free vector).
[[nodiscard]] inline Vector3d toEuclidean(const Multivector& X) { return euclideanPart(X) / e0Coefficient(X); }

/// IPNS sphere σ = C - ½ r² e∞ (C the conformal centre); σ · σ = r².
[[nodiscard]] inline Multivector dualSphere(const Sphere& s) {
  return Multivector::vector(s.centre, 1.0, 0.5 * (s.centre.squaredNorm() - s.radius * s.radius));
}
/// IPNS plane π = n + d e∞ for {x : n·x = d}; X · π = n·x - d (signed distance for unit n).
[[nodiscard]] inline Multivector dualPlane(const Plane& p) { return Multivector::vector(p.normal, 0.0, p.offset); }
/// IPNS circle: the sphere of the circle meeting its plane, σ ∧ π (a 2-blade).
[[nodiscard]] inline Multivector dualCircle(const Circle& c) {
  return outer(dualSphere({c.centre, c.radius}), dualPlane({c.normal, c.normal.dot(c.centre)}));
}
/// OPNS plane through three points, P ∧ Q ∧ R ∧ e∞ (FAB eq. 3.2).
[[nodiscard]] inline Multivector planeFromPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r) {
  return outer(outer(outer(point(p), point(q)), point(r)), einf());
}
/// OPNS circle through three points, P ∧ Q ∧ R.
[[nodiscard]] inline Multivector circleFromPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r) {
  return outer(outer(point(p), point(q)), point(r));
}
/// OPNS line through two points, P ∧ Q ∧ e∞ (FAB eq. 3.11).
[[nodiscard]] inline Multivector lineFromPoints(const Vector3d& p, const Vector3d& q) {
  return outer(outer(point(p), point(q)), einf());
}
/// OPNS point pair P ∧ Q.
[[nodiscard]] inline Multivector pointPair(const Vector3d& p, const Vector3d& q) { return outer(point(p), point(q)); }

/// Plane (unit normal, offset) of an IPNS plane vector n + d e∞ (any weight). Precondition n ≠ 0.
[[nodiscard]] Plane planeFromDual(const Multivector& dual_plane);

/// Points of an OPNS point pair B (a 2-blade). With s² = ⟨B B⟩₀ and the vector e∞ ⌋ B:
///   first ∝ (B - s)(e∞ ⌋ B), second ∝ (B + s)(e∞ ⌋ B)  (grade 1), normalised by -X · e∞,
/// the formula P = (B ∓ √(B·B)) / (-e∞ · B) up to weight; for B = P ∧ Q, first = P, second = Q. Case from the
/// weight-free squared half-separation ρ² = B² / (e∞ ⌋ B)²: ρ² > tol·scale² Real (two points), |ρ²| ≤ tol·scale²
/// Tangent (one point, B e∞ B), else None (imaginary pair). Degenerate when (e∞ ⌋ B)² ≤ 0 (a flat point pair: one point
/// and infinity).
[[nodiscard]] PointPairResult extractPointPair(const Multivector& B, double scale, const Tolerance& tol = {});

/// Circle (centre, normal, radius) of an IPNS round 2-blade γ (e.g. σ1 ∧ σ2): centre ∝ γ e∞ γ,
/// carrier plane e∞ ⌋ γ, squared radius -γ² / (e∞ ⌋ γ)². status Real / Tangent / None by the sign
/// of the squared radius against tol·scale².
[[nodiscard]] CircleResult circleFromDual(const Multivector& dual_circle, double scale, const Tolerance& tol = {});

/// Circle through three points, from the OPNS circle P ∧ Q ∧ R read back with circleFromDual
/// (normal ∝ (q - p) × (r - p)). Degenerate when the points are collinear or coincide, by the
/// test of planeThroughPoints ((e∞ ⌋ (P ∧ Q ∧ R)*)² = |(q - p) × (r - p)|²).
[[nodiscard]] CircleResult circleThroughPoints(const Vector3d& p, const Vector3d& q, const Vector3d& r,
                                               const Tolerance& tol = {});

}  // namespace kinetrack::cga
