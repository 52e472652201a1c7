// The conformal geometric algebra module: algebra identities, and every FAB §3.4 primitive
// computed with CGA cross-checked against the plain-vector backend on random and degenerate inputs.
#include "kinetrack/cga/cga.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kinetrack/core/random.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::cga {
namespace KINETRACK_UNITY_ID {

constexpr int kSamples = 10000;

struct Rng {
  std::mt19937_64 gen{20261124};
  std::uniform_real_distribution<double> u{-1.0, 1.0};
  double uniform(double lo, double hi) { return lo + 0.5 * (u(gen) + 1.0) * (hi - lo); }
  // Log-uniform scale in [1e-2, 1e1] m (millimetre features to a capture volume).
  double scale() { return std::pow(10.0, uniform(-2.0, 1.0)); }
  Vector3d vec(double s) { return s * randomVector3(u, gen); }
  Vector3d unit() {
    Vector3d v;
    do v = vec(1.0);
    while (v.norm() < 0.1 || v.norm() > 1.0);
    return v.normalized();
  }
  Multivector multivector() {
    Multivector m;
    for (double& c : m.c) c = u(gen);
    return m;
  }
};

double maxAbsDiff(const Multivector& a, const Multivector& b) { return maxAbs(a - b); }

// Conformal coefficients of a point at distance s from the origin are of size 1 + s² (the e0 and
// ½|x|² e∞ terms), so rounding errors scale with it: tolerances are relative to this magnitude.
double mag(double s) { return 1.0 + s * s; }

// ---------------------------------------------------------------- algebra identities

TEST(CgaAlgebra, NullBasisMetric) {
  EXPECT_DOUBLE_EQ(scalarProduct(e0(), einf()), -1.0);
  EXPECT_DOUBLE_EQ(scalarProduct(e0(), e0()), 0.0);
  EXPECT_DOUBLE_EQ(scalarProduct(einf(), einf()), 0.0);
  // The pseudoscalar e0 ∧ e1 ∧ e2 ∧ e3 ∧ e∞ equals e1 e2 e3 e+ e- and squares to -1.
  Multivector e1, e2, e3;
  e1[kE1] = e2[kE2] = e3[kE3] = 1.0;
  const Multivector I = outer(outer(outer(outer(e0(), e1), e2), e3), einf());
  EXPECT_LT(maxAbsDiff(I, pseudoscalar()), 1e-15);
  EXPECT_LT(maxAbsDiff(I * I, Multivector::scalar(-1.0)), 1e-15);
}

TEST(CgaAlgebra, PointsAreNullAndInnerProductIsDistance) {
  Rng rng;
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Vector3d x = rng.vec(s), y = rng.vec(s);
    const Multivector X = point(x), Y = point(y);
    EXPECT_LE(std::abs(scalarProduct(X, X)), 1e-14 * mag(s) * mag(s));  // e± coefficients ~ mag
    EXPECT_NEAR(scalarProduct(X, Y), -0.5 * (x - y).squaredNorm(), 1e-14 * mag(s));
    EXPECT_NEAR(scalarProduct(X, einf()), -1.0, 1e-14 * mag(s));
    EXPECT_LE((toEuclidean(X) - x).norm(), 1e-14 * mag(s));
    EXPECT_LE((toEuclidean(-3.5 * X) - x).norm(), 1e-14 * mag(s));
    // The inner product of vectors is the left contraction and half the symmetric product.
    EXPECT_NEAR(leftContraction(X, Y)[0], scalarProduct(X, Y), 1e-14 * mag(s));
    EXPECT_LT(maxAbsDiff(0.5 * (X * Y + Y * X), Multivector::scalar(scalarProduct(X, Y))), 1e-13 * mag(s));
  }
}

TEST(CgaAlgebra, GeometricProductIsAssociativeAndDistributive) {
  Rng rng;
  for (int i = 0; i < 2000; ++i) {
    const Multivector a = rng.multivector(), b = rng.multivector(), c = rng.multivector();
    EXPECT_LT(maxAbsDiff((a * b) * c, a * (b * c)), 1e-12);
    EXPECT_LT(maxAbsDiff(a * (b + c), a * b + a * c), 1e-13);
    EXPECT_LT(maxAbsDiff(outer(outer(a, b), c), outer(a, outer(b, c))), 1e-12);
    // Reverse is an anti-automorphism.
    EXPECT_LT(maxAbsDiff(reverse(a * b), reverse(b) * reverse(a)), 1e-13);
  }
}

TEST(CgaAlgebra, DualTwiceIsMinusIdentityAndUndualInverts) {
  Rng rng;
  for (int i = 0; i < 1000; ++i) {
    const Multivector a = rng.multivector();
    EXPECT_LT(maxAbsDiff(dual(dual(a)), -a), 1e-15);
    EXPECT_LT(maxAbsDiff(undual(dual(a)), a), 1e-15);
    EXPECT_LT(maxAbsDiff(dual(a), -(a * pseudoscalar())), 1e-15);  // the permutation is a I⁻¹
    // Grades sum to the whole; dual maps grade k to 5 - k.
    Multivector sum;
    for (int k = 0; k <= 5; ++k) {
      sum += grade(a, k);
      EXPECT_LT(maxAbsDiff(grade(dual(grade(a, k)), 5 - k), dual(grade(a, k))), 1e-15);
    }
    EXPECT_LT(maxAbsDiff(sum, a), 1e-15);
  }
}

TEST(CgaAlgebra, WedgeAndContractionOfVectorsAndBlades) {
  Rng rng;
  for (int i = 0; i < 1000; ++i) {
    const Vector3d x = rng.vec(1.0), y = rng.vec(1.0);
    const Multivector X = point(x), Y = point(y);
    // a b = a·b + a ∧ b for vectors.
    EXPECT_LT(maxAbsDiff(X * Y, leftContraction(X, Y) + outer(X, Y)), 1e-14);
    EXPECT_LT(maxAbsDiff(outer(X, X), Multivector{}), 1e-15);
    // A point lies on the line through itself: X ∧ L = 0; the line's norm is |x - y|.
    const Multivector L = lineFromPoints(x, y);
    EXPECT_LT(maxAbs(outer(X, L)), 1e-14);
    EXPECT_NEAR(norm(L), (x - y).norm(), 1e-13);
    // IPNS and OPNS plane agree: the dual of P ∧ Q ∧ R ∧ e∞ is orthogonal to the three points.
    const Vector3d z = rng.vec(1.0);
    const Multivector pi = dual(planeFromPoints(x, y, z));
    EXPECT_LT(std::abs(scalarProduct(pi, X)) + std::abs(scalarProduct(pi, point(z))), 1e-13);
    // OPNS circle: its meet with a plane through two of its points is that point pair.
    const Multivector circle = circleFromPoints(x, y, z);
    EXPECT_LT(maxAbs(outer(point(z), circle)), 1e-13);
  }
}

TEST(CgaAlgebra, PointPairExtractionRoundTripsAndReportsImaginaryPairs) {
  Rng rng;
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Vector3d p = rng.vec(s), q = rng.vec(s);
    const PointPairResult r = extractPointPair(3.0 * pointPair(p, q), s);
    ASSERT_EQ(r.status, Case::Real);
    EXPECT_LE((r.first - p).norm(), 1e-12 * mag(s));
    EXPECT_LE((r.second - q).norm(), 1e-12 * mag(s));
  }
  // A sphere (radius 1 at the origin) and a plane at distance 2 meet in an imaginary pair; the
  // tangent plane z = 1 in one point.
  const Multivector sigma = dualSphere({Vector3d::Zero(), 1.0});
  const Multivector line_z = lineFromPoints(Vector3d(2, 0, 0), Vector3d(2, 0, 1));
  EXPECT_EQ(extractPointPair(leftContraction(sigma, line_z), 1.0).status, Case::None);
  const Multivector tangent = lineFromPoints(Vector3d(1, 0, 0), Vector3d(1, 0, 1));
  const PointPairResult t = extractPointPair(leftContraction(sigma, tangent), 1.0);
  ASSERT_EQ(t.status, Case::Tangent);
  EXPECT_LT((t.first - Vector3d(1, 0, 0)).norm(), 1e-12);
}

TEST(CgaAlgebra, MeetOfTwoPlanesIsTheirLine) {
  // Planes z = 0 and x = 0 meet in the y axis: every point of it lies on the meet.
  const Multivector a = undual(dualPlane({Vector3d::UnitZ(), 0.0}));
  const Multivector b = undual(dualPlane({Vector3d::UnitX(), 0.0}));
  const Multivector line = meet(a, b);
  EXPECT_GT(maxAbs(line), 0.5);
  for (double y : {-2.0, 0.0, 3.0}) EXPECT_LT(maxAbs(outer(point(Vector3d(0, y, 0)), line)), 1e-14);
  EXPECT_GT(maxAbs(outer(point(Vector3d(1, 0, 0)), line)), 0.5);
}

// ---------------------------------------------------------------- CGA vs plain vectors, random

void expectSameCircle(const CircleResult& a, const CircleResult& b, double s) {
  ASSERT_EQ(a.status, b.status);
  if (a.status == Case::None || a.status == Case::Degenerate) return;
  EXPECT_LE((a.circle.centre - b.circle.centre).norm(), 1e-12 * mag(s));
  EXPECT_LE((a.circle.normal - b.circle.normal).norm(), 1e-12 * mag(s));
  EXPECT_LE(std::abs(a.circle.radius - b.circle.radius), 1e-12 * mag(s));
}

TEST(CgaVsEuclid, PlaneThroughThreePoints) {
  Rng rng;
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Vector3d c = rng.vec(s);
    const Vector3d p = c + rng.vec(s), q = c + rng.vec(s), r = c + rng.vec(s);
    const PlaneResult a = planeThroughPoints(p, q, r), b = euclid::planeThroughPoints(p, q, r);
    ASSERT_EQ(a.status, b.status);
    const double sin = (q - p).cross(r - p).norm() / ((q - p).norm() * (r - p).norm());
    if (sin < 1e-3) continue;  // the normal of a nearly collinear triple is ill-conditioned
    EXPECT_LE((a.plane.normal - b.plane.normal).norm(), 1e-12);
    EXPECT_LE(std::abs(a.plane.offset - b.plane.offset), 1e-12 * mag(s));
  }
}

TEST(CgaVsEuclid, CircleThroughThreePoints) {
  Rng rng;
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Vector3d c = rng.vec(s);
    const Vector3d p = c + rng.vec(s), q = c + rng.vec(s), r = c + rng.vec(s);
    const CircleResult a = circleThroughPoints(p, q, r);
    ASSERT_EQ(a.status, euclid::planeThroughPoints(p, q, r).status);
    const Vector3d n = (q - p).cross(r - p);
    if (n.norm() < 1e-3 * (q - p).norm() * (r - p).norm()) continue;
    // Plain-vector circumcentre: p + (|u|² v - |v|² u) × n / (2 |n|²), u = q - p, v = r - p.
    const Vector3d u = q - p, v = r - p;
    const Vector3d centre = p + (u.squaredNorm() * v - v.squaredNorm() * u).cross(n) / (2.0 * n.squaredNorm());
    // The circumcircle is conditioned like 1 / sin² of the angle at p (its radius grows like 1 / sin).
    const double sin = std::min(1.0, n.norm() / (u.norm() * v.norm()));
    const double tol = 1e-12 / (sin * sin);
    EXPECT_LE((a.circle.centre - centre).norm(), tol * mag(s));
    EXPECT_NEAR(a.circle.radius, (centre - p).norm(), tol * mag(s));
    EXPECT_LE((a.circle.normal - n.normalized()).norm(), tol * mag(s));
  }
  const Vector3d p(1, 1, 1), d(0.3, -0.4, 0.5);
  EXPECT_EQ(circleThroughPoints(p, p + d, p - 2.0 * d).status, Case::Degenerate);
}

TEST(CgaVsEuclid, SphereSphereMeet) {
  Rng rng;
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Sphere a{rng.vec(s), rng.uniform(0.1, 1.0) * s}, b{a.centre + rng.vec(s), rng.uniform(0.1, 1.0) * s};
    const CircleResult ca = meetSpheres(a, b), cb = euclid::meetSpheres(a, b);
    ++counts[static_cast<int>(cb.status)];
    // Keep away from the tangent boundary, where both answers are √eps-conditioned.
    if (cb.status == Case::Real && cb.circle.radius < 1e-3 * s) continue;
    expectSameCircle(ca, cb, s);
    if (cb.status == Case::Real) {  // the circle lies on both spheres
      const Vector3d x = cb.circle.centre + cb.circle.radius * anyPerpendicular(cb.circle.normal);
      EXPECT_NEAR((x - a.centre).norm(), a.radius, 1e-12 * mag(s));
      EXPECT_NEAR((x - b.centre).norm(), b.radius, 1e-12 * mag(s));
    }
  }
  EXPECT_GT(counts[static_cast<int>(Case::Real)], 1000);
  EXPECT_GT(counts[static_cast<int>(Case::None)], 1000);
}

TEST(CgaVsEuclid, CirclePlaneMeet) {
  Rng rng;
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Circle c{rng.vec(s), rng.unit(), rng.uniform(0.1, 1.0) * s};
    const Vector3d n = rng.unit();
    const Plane p{n, n.dot(c.centre) + rng.uniform(-1.2, 1.2) * c.radius};
    const PointPairResult a = meetCirclePlane(c, p), b = euclid::meetCirclePlane(c, p);
    ++counts[static_cast<int>(b.status)];
    ASSERT_EQ(a.status, b.status);
    if (b.status != Case::Real) continue;
    if ((b.second - b.first).norm() < 1e-3 * s) continue;  // near-tangent: √eps-conditioned
    if (c.normal.cross(n).norm() < 1e-3) continue;         // near-parallel: ill-conditioned
    EXPECT_LE((a.first - b.first).norm(), 1e-12 * mag(s));
    EXPECT_LE((a.second - b.second).norm(), 1e-12 * mag(s));
    // Both points lie on the plane and on the circle.
    for (const Vector3d& x : {b.first, b.second}) {
      EXPECT_NEAR(p.normal.dot(x), p.offset, 1e-12 * mag(s));
      EXPECT_NEAR((x - c.centre).norm(), c.radius, 1e-12 * mag(s));
    }
  }
  EXPECT_GT(counts[static_cast<int>(Case::Real)], 1000);
  EXPECT_GT(counts[static_cast<int>(Case::None)], 1000);
}

TEST(CgaVsEuclid, NearestPointOnSphere) {
  Rng rng;
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Sphere sp{rng.vec(s), rng.uniform(0.1, 1.0) * s};
    const Vector3d x = sp.centre + rng.vec(2.0 * s);
    const PointResult a = nearestPointOnSphere(sp, x), b = euclid::nearestPointOnSphere(sp, x);
    ASSERT_EQ(a.status, b.status);
    if ((x - sp.centre).norm() < 1e-3 * s) continue;
    EXPECT_LE((a.point - b.point).norm(), 1e-12 * mag(s));
  }
}

TEST(CgaVsEuclid, NearestPointOnCircle) {
  Rng rng;
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Circle c{rng.vec(s), rng.unit(), rng.uniform(0.1, 1.0) * s};
    const Vector3d x = c.centre + rng.vec(2.0 * s);
    const PointResult a = nearestPointOnCircle(c, x), b = euclid::nearestPointOnCircle(c, x);
    ASSERT_EQ(a.status, b.status);
    const Vector3d off = (x - c.centre) - (x - c.centre).dot(c.normal) * c.normal;
    if (off.norm() < 1e-3 * s) continue;
    EXPECT_LE((a.point - b.point).norm(), 1e-12 * mag(s));
  }
}

TEST(CgaVsEuclid, ProjectPointOnPlane) {
  Rng rng;
  for (int i = 0; i < kSamples; ++i) {
    const double s = rng.scale();
    const Plane p{rng.unit(), rng.uniform(-1.0, 1.0) * s};
    const Vector3d x = rng.vec(s);
    const Vector3d a = projectPointOnPlane(p, x), b = euclid::projectPointOnPlane(p, x);
    EXPECT_LE((a - b).norm(), 1e-12 * mag(s));
    EXPECT_NEAR(p.normal.dot(b), p.offset, 1e-13 * mag(s));
  }
}

// ---------------------------------------------------------------- degenerate inputs, both backends

template <class G>
class CgaDegenerate : public ::testing::Test {};
using Backends = ::testing::Types<Cga, Euclid>;
TYPED_TEST_SUITE(CgaDegenerate, Backends);

TYPED_TEST(CgaDegenerate, SpheresConcentricTangentDisjoint) {
  using G = TypeParam;
  const Vector3d o(0.3, -0.2, 1.0);
  EXPECT_EQ(G::meetSpheres({o, 1.0}, {o, 1.0}).status, Case::Degenerate);  // identical
  EXPECT_EQ(G::meetSpheres({o, 1.0}, {o, 0.5}).status, Case::None);        // concentric
  // Externally and internally tangent: one point.
  const CircleResult ext = G::meetSpheres({o, 1.0}, {o + Vector3d(2, 0, 0), 1.0});
  ASSERT_EQ(ext.status, Case::Tangent);
  EXPECT_LT((ext.circle.centre - (o + Vector3d(1, 0, 0))).norm(), 1e-12);
  EXPECT_EQ(ext.circle.radius, 0.0);
  const CircleResult in = G::meetSpheres({o, 1.0}, {o + Vector3d(0, 0.5, 0), 0.5});
  ASSERT_EQ(in.status, Case::Tangent);
  EXPECT_LT((in.circle.centre - (o + Vector3d(0, 1, 0))).norm(), 1e-12);
  // Disjoint (apart) and nested: no circle.
  EXPECT_EQ(G::meetSpheres({o, 1.0}, {o + Vector3d(3, 0, 0), 1.0}).status, Case::None);
  EXPECT_EQ(G::meetSpheres({o, 1.0}, {o + Vector3d(0.1, 0, 0), 0.2}).status, Case::None);
}

TYPED_TEST(CgaDegenerate, CirclePlaneCases) {
  using G = TypeParam;
  const Circle c{Vector3d(1, 2, 3), Vector3d::UnitZ(), 2.0};
  // A plane through the centre: the two ends of a diameter, ordered along n_circle × n_plane.
  const PointPairResult d = G::meetCirclePlane(c, {Vector3d::UnitX(), 1.0});
  ASSERT_EQ(d.status, Case::Real);
  EXPECT_LT((d.first - Vector3d(1, 0, 3)).norm(), 1e-12);
  EXPECT_LT((d.second - Vector3d(1, 4, 3)).norm(), 1e-12);
  // Tangent plane x = 3: one point; a plane beyond it: none.
  const PointPairResult t = G::meetCirclePlane(c, {Vector3d::UnitX(), 3.0});
  ASSERT_EQ(t.status, Case::Tangent);
  EXPECT_LT((t.first - Vector3d(3, 2, 3)).norm(), 1e-12);
  EXPECT_EQ(G::meetCirclePlane(c, {Vector3d::UnitX(), 3.5}).status, Case::None);
  // Parallel to the circle's plane: none; the circle's own plane: degenerate.
  EXPECT_EQ(G::meetCirclePlane(c, {Vector3d::UnitZ(), 4.0}).status, Case::None);
  EXPECT_EQ(G::meetCirclePlane(c, {-Vector3d::UnitZ(), -3.0}).status, Case::Degenerate);
}

TYPED_TEST(CgaDegenerate, NearestPointNotUnique) {
  using G = TypeParam;
  const Sphere s{Vector3d(1, 2, 3), 0.5};
  const PointResult a = G::nearestPointOnSphere(s, s.centre);
  EXPECT_EQ(a.status, Case::Degenerate);
  EXPECT_LT((a.point - Vector3d(1.5, 2, 3)).norm(), 1e-15);  // documented choice: centre + r e_x
  const Circle c{Vector3d(1, 2, 3), Vector3d(0, 0.6, 0.8), 0.5};
  const PointResult b = G::nearestPointOnCircle(c, c.centre + 7.0 * c.normal);  // on the axis
  EXPECT_EQ(b.status, Case::Degenerate);
  EXPECT_LT((b.point - (c.centre + 0.5 * anyPerpendicular(c.normal))).norm(), 1e-15);
  EXPECT_NEAR(anyPerpendicular(c.normal).dot(c.normal), 0.0, 1e-15);
}

TYPED_TEST(CgaDegenerate, CollinearAndCoincidentPointsGiveNoPlane) {
  using G = TypeParam;
  const Vector3d p(1, 1, 1), d(0.3, -0.4, 0.5);
  EXPECT_EQ(G::planeThroughPoints(p, p + d, p + 2.5 * d).status, Case::Degenerate);
  EXPECT_EQ(G::planeThroughPoints(p, p, p + d).status, Case::Degenerate);
  const PlaneResult ok = G::planeThroughPoints(Vector3d(0, 0, 1), Vector3d(1, 0, 1), Vector3d(0, 1, 1));
  ASSERT_EQ(ok.status, Case::Real);
  EXPECT_LT((ok.plane.normal - Vector3d::UnitZ()).norm(), 1e-15);
  EXPECT_NEAR(ok.plane.offset, 1.0, 1e-15);
}

TEST(CgaOperations, DoNotAllocate) {
  const Sphere a{Vector3d(0, 0, 0), 1.0}, b{Vector3d(1, 0.2, 0), 0.8};
  const Circle c{Vector3d(0.1, 0.2, 0.3), Vector3d(0, 0.6, 0.8), 0.5};
  const Plane p{Vector3d::UnitX(), 0.2};
  const Vector3d x(0.4, -0.3, 0.9);
  double sink = 0.0;
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    for (const auto& f : {&planeThroughPoints, &euclid::planeThroughPoints})
      sink += f(a.centre, b.centre, x, {}).plane.offset;
    sink += meetSpheres(a, b).circle.radius + euclid::meetSpheres(a, b).circle.radius;
    sink += meetCirclePlane(c, p).first.x() + euclid::meetCirclePlane(c, p).first.x();
    sink += nearestPointOnSphere(a, x).point.x() + euclid::nearestPointOnSphere(a, x).point.x();
    sink += nearestPointOnCircle(c, x).point.x() + euclid::nearestPointOnCircle(c, x).point.x();
    sink += projectPointOnPlane(p, x).x() + euclid::projectPointOnPlane(p, x).x();
    sink += maxAbs(meet(dual(dualSphere(a)), dual(dualSphere(b))));
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_TRUE(std::isfinite(sink));
}

TEST(CgaDegenerate, CaseNames) {
  EXPECT_STREQ(toString(Case::Real), "real");
  EXPECT_STREQ(toString(Case::Tangent), "tangent");
  EXPECT_STREQ(toString(Case::None), "none");
  EXPECT_STREQ(toString(Case::Degenerate), "degenerate");
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::cga
