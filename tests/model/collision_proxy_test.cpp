// Collision proxies (model/collision_proxy.hpp): the segment–segment closest points in every
// configuration (generic against a brute-force search, parallel, crossing, touching, degenerate),
// bounding spheres and capsules that hold every point and are tight, the primitives' capsules,
// and the G1's meshes fitted.
#include "kinetrack/model/collision_proxy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/mesh.hpp"
#include "testing/collision_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

double segmentDistance(const Vector3d& x, const Capsule& c) {
  const Vector3d d = c.b - c.a;
  const double dd = d.squaredNorm();
  const double t = dd > 0 ? std::clamp((x - c.a).dot(d) / dd, 0.0, 1.0) : 0.0;
  return (x - c.a - t * d).norm();
}

// Every point inside (to round-off), and one on the surface (tight).
void expectBounds(const Capsule& c, const std::vector<Vector3d>& points, double tight_tol = 1e-9) {
  double worst = -1.0;
  for (const Vector3d& p : points) {
    const double d = segmentDistance(p, c);
    ASSERT_LE(d, c.radius + 1e-12) << p.transpose();
    worst = std::max(worst, d);
  }
  EXPECT_NEAR(worst, c.radius, tight_tol);
}

// Brute force: the distance from a point sliding along A to segment B is convex in its position
// on A; a ternary search finds the minimum to round-off.
double bruteDistance(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0, const Vector3d& b1) {
  auto at = [&](double s) {
    const Vector3d pa = a0 + (a1 - a0) * s;
    const Vector3d d = b1 - b0;
    const double dd = d.squaredNorm();
    const double t = dd > 0 ? std::clamp((pa - b0).dot(d) / dd, 0.0, 1.0) : 0.0;
    return (pa - b0 - t * d).norm();
  };
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (at(m1) <= at(m2))
      hi = m2;
    else
      lo = m1;
  }
  return std::min({at(0.5 * (lo + hi)), at(0.0), at(1.0)});
}

// ---- segment closest points ---------------------------------------------------------------------

TEST(SegmentClosestPoints, GenericPairsMatchBruteForce) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  auto v = [&] { return Vector3d(g(rng), g(rng), g(rng)); };
  for (int k = 0; k < 500; ++k) {
    const Vector3d a0 = v(), a1 = v(), b0 = v(), b1 = v();
    const SegmentClosestPoints c = closestPointsOfSegments(a0, a1, b0, b1);
    ASSERT_GE(c.s, 0.0);
    ASSERT_LE(c.s, 1.0);
    ASSERT_GE(c.t, 0.0);
    ASSERT_LE(c.t, 1.0);
    EXPECT_NEAR((c.pa - (a0 + c.s * (a1 - a0))).norm(), 0.0, 1e-12);
    EXPECT_NEAR((c.pb - (b0 + c.t * (b1 - b0))).norm(), 0.0, 1e-12);
    EXPECT_NEAR(c.distance, (c.pa - c.pb).norm(), 1e-12);
    const double brute = bruteDistance(a0, a1, b0, b1);
    EXPECT_NEAR(c.distance, brute, 1e-9);
    // Optimality: the pair is locally closest (no better pair nearby on either segment).
    for (double ds : {-1e-4, 1e-4})
      for (double dt : {-1e-4, 0.0, 1e-4}) {
        const double s = std::clamp(c.s + ds, 0.0, 1.0), t = std::clamp(c.t + dt, 0.0, 1.0);
        EXPECT_GE(((a0 + s * (a1 - a0)) - (b0 + t * (b1 - b0))).norm(), c.distance - 1e-12);
      }
  }
}

TEST(SegmentClosestPoints, Crossing) {
  const SegmentClosestPoints c =
      closestPointsOfSegments(Vector3d(-1, 0, 0), Vector3d(1, 0, 0), Vector3d(0, -1, 0), Vector3d(0, 1, 0));
  EXPECT_NEAR(c.distance, 0.0, 1e-15);
  EXPECT_NEAR(c.s, 0.5, 1e-15);
  EXPECT_NEAR(c.t, 0.5, 1e-15);
  const SegmentClosestPoints above =
      closestPointsOfSegments(Vector3d(-1, 0, 0), Vector3d(1, 0, 0), Vector3d(0, -1, 0.3), Vector3d(0, 1, 0.3));
  EXPECT_NEAR(above.distance, 0.3, 1e-15);
  EXPECT_TRUE(above.pa.isApprox(Vector3d(0, 0, 0)));
  EXPECT_TRUE(above.pb.isApprox(Vector3d(0, 0, 0.3)));
}

TEST(SegmentClosestPoints, TouchingAtEnds) {
  // end to end
  SegmentClosestPoints c =
      closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(1, 0, 0), Vector3d(1, 2, 3));
  EXPECT_NEAR(c.distance, 0.0, 1e-15);
  EXPECT_EQ(c.s, 1.0);
  EXPECT_EQ(c.t, 0.0);
  // an end touching the inside of the other
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(2, 0, 0), Vector3d(1, 0, 0), Vector3d(1, 0, 1));
  EXPECT_NEAR(c.distance, 0.0, 1e-15);
  EXPECT_NEAR(c.s, 0.5, 1e-15);
  EXPECT_EQ(c.t, 0.0);
  // beyond the ends: the ends are closest
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(2, 1, 0), Vector3d(3, 5, 0));
  EXPECT_EQ(c.s, 1.0);
  EXPECT_EQ(c.t, 0.0);
  EXPECT_NEAR(c.distance, std::sqrt(2.0), 1e-15);
}

TEST(SegmentClosestPoints, ParallelSegments) {
  // overlapping: the middle of the overlap [0.5, 1] of A
  SegmentClosestPoints c =
      closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(2, 0, 0), Vector3d(1, 1, 0), Vector3d(3, 1, 0));
  EXPECT_NEAR(c.distance, 1.0, 1e-15);
  EXPECT_NEAR(c.pa.x(), 1.5, 1e-15);
  EXPECT_NEAR(c.pb.x(), 1.5, 1e-15);
  // anti-parallel, overlapping
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(2, 0, 0), Vector3d(3, 0, 1), Vector3d(1, 0, 1));
  EXPECT_NEAR(c.distance, 1.0, 1e-15);
  EXPECT_NEAR(c.pa.x(), 1.5, 1e-15);
  // disjoint along the line: the nearer ends
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(3, 1, 0), Vector3d(2, 1, 0));
  EXPECT_NEAR(c.distance, std::sqrt(2.0), 1e-15);
  EXPECT_EQ(c.s, 1.0);
  EXPECT_TRUE(c.pb.isApprox(Vector3d(2, 1, 0)));
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(-3, 1, 0), Vector3d(-2, 1, 0));
  EXPECT_EQ(c.s, 0.0);
  EXPECT_TRUE(c.pb.isApprox(Vector3d(-2, 1, 0)));
  // collinear and overlapping: distance 0
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(2, 0, 0), Vector3d(1, 0, 0), Vector3d(5, 0, 0));
  EXPECT_NEAR(c.distance, 0.0, 1e-15);
  // nearly parallel: continuous with the parallel answer
  const SegmentClosestPoints n =
      closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(2, 0, 0), Vector3d(1, 1, 0), Vector3d(3, 1 + 1e-9, 0));
  EXPECT_NEAR(n.distance, 1.0, 1e-8);
}

TEST(SegmentClosestPoints, DegenerateSegments) {
  // two points
  SegmentClosestPoints c =
      closestPointsOfSegments(Vector3d(1, 2, 3), Vector3d(1, 2, 3), Vector3d(1, 2, 5), Vector3d(1, 2, 5));
  EXPECT_NEAR(c.distance, 2.0, 1e-15);
  // a point and a segment, either way round
  c = closestPointsOfSegments(Vector3d(0.5, 1, 0), Vector3d(0.5, 1, 0), Vector3d(0, 0, 0), Vector3d(1, 0, 0));
  EXPECT_NEAR(c.distance, 1.0, 1e-15);
  EXPECT_NEAR(c.t, 0.5, 1e-15);
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(2, 1, 0), Vector3d(2, 1, 0));
  EXPECT_NEAR(c.distance, std::sqrt(2.0), 1e-15);
  EXPECT_EQ(c.s, 1.0);
  // a point on the segment
  c = closestPointsOfSegments(Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(0.25, 0, 0), Vector3d(0.25, 0, 0));
  EXPECT_NEAR(c.distance, 0.0, 1e-15);
}

// ---- fitting --------------------------------------------------------------------------------------

std::vector<Vector3d> randomPoints(std::uint64_t seed, int n, const Vector3d& scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vector3d> p;
  for (int i = 0; i < n; ++i) p.emplace_back(scale.x() * u(rng), scale.y() * u(rng), scale.z() * u(rng));
  return p;
}

TEST(BoundingShapes, SphereIsTheSmallestBall) {
  // The corners of a box: the ball through all eight, radius the half diagonal.
  std::vector<Vector3d> box;
  for (int i = 0; i < 8; ++i) box.emplace_back(i & 1 ? 0.3 : -0.3, i & 2 ? 0.2 : -0.2, i & 4 ? 0.1 : -0.1);
  const Capsule s = boundingSphere(box);
  EXPECT_TRUE(s.isSphere());
  EXPECT_NEAR(s.radius, Vector3d(0.3, 0.2, 0.1).norm(), 1e-12);
  EXPECT_NEAR(s.a.norm(), 0.0, 1e-12);
  // Random clouds (with coplanar and duplicate points): every point inside, one on the surface,
  // and no ball centred elsewhere is smaller (perturbed centres need a larger radius).
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Vector3d> p = randomPoints(seed, 2000, Vector3d(0.1, 0.05, 0.3));
    for (int i = 0; i < 200; ++i) p.push_back(Vector3d(p[static_cast<std::size_t>(i)].x(), 0.0, 0.0));
    p.insert(p.end(), p.begin(), p.begin() + 100);
    const Capsule b = boundingSphere(p);
    expectBounds(b, p);
    for (int k = 0; k < 6; ++k) {
      const Vector3d c = b.a + 1e-3 * Vector3d::Unit(k % 3) * (k < 3 ? 1 : -1);
      double r = 0;
      for (const Vector3d& x : p) r = std::max(r, (x - c).norm());
      EXPECT_GT(r, b.radius - 1e-12);
    }
  }
}

TEST(BoundingShapes, CapsuleRecoversACapsule) {
  // Points on the surface of a known capsule (axis tilted): the fit is that capsule.
  const Matrix3d R = so3::exp(Vector3d(0.3, -0.5, 0.2));
  const Vector3d c0(0.1, -0.2, 0.05);
  const double r = 0.04, half = 0.12;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(-half, half);
  std::vector<Vector3d> p;
  for (int i = 0; i < 3000; ++i) {
    Vector3d d(g(rng), g(rng), g(rng));
    d.normalize();
    Vector3d x;
    if (i % 3 == 0)
      x = Vector3d(0, 0, d.z() > 0 ? half : -half) + r * d;  // caps
    else
      x = Vector3d(0, 0, u(rng)) + r * Vector3d(d.x(), d.y(), 0).normalized();
    p.push_back(R * x + c0);
  }
  const Capsule c = boundingCapsule(p);
  expectBounds(c, p);
  EXPECT_NEAR(c.radius, r, 2e-3);
  EXPECT_NEAR((c.b - c.a).norm(), 2 * half, 4e-3);
  EXPECT_NEAR(std::abs((c.b - c.a).normalized().dot(R.col(2))), 1.0, 1e-4);
  EXPECT_LT((0.5 * (c.a + c.b) - c0).norm(), 2e-3);
}

TEST(BoundingShapes, RoundCloudGivesASphere) {
  std::vector<Vector3d> p = randomPoints(11, 3000, Vector3d(1, 1, 1));
  for (Vector3d& x : p) x = 0.05 * x.normalized();
  const Capsule c = boundingCapsule(p);
  expectBounds(c, p);
  EXPECT_LT((c.b - c.a).norm(), 0.01);
  EXPECT_NEAR(c.radius, 0.05, 2e-3);
}

TEST(BoundingShapes, PrimitivesAreBounded) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // cylinder: long (capsule) and squat (sphere); sampled on its rims and faces
  for (const auto& [radius, length] : {std::pair{0.03, 0.3}, std::pair{0.03, 0.03}}) {
    const Capsule c = cylinderCapsule(radius, length);
    std::vector<Vector3d> p;
    for (int i = 0; i < 500; ++i) {
      const double a = M_PI * u(rng);
      p.emplace_back(radius * std::cos(a), radius * std::sin(a), 0.5 * length * (i % 2 ? 1 : -1));
      p.emplace_back(radius * std::cos(a), radius * std::sin(a), 0.5 * length * u(rng));
    }
    for (const Vector3d& x : p) ASSERT_LE(segmentDistance(x, c), c.radius + 1e-12);
    EXPECT_EQ(c.isSphere(), length <= radius);
  }
  const Capsule box = boxCapsule(Vector3d(0.1, 0.02, 0.03));
  for (int i = 0; i < 8; ++i)
    EXPECT_LE(segmentDistance(Vector3d(i & 1 ? 0.1 : -0.1, i & 2 ? 0.02 : -0.02, i & 4 ? 0.03 : -0.03), box),
              box.radius + 1e-12);
  EXPECT_NEAR(std::abs((box.b - box.a).normalized().x()), 1.0, 1e-12);  // along the long side
  EXPECT_EQ(sphereCapsule(0.2).radius, 0.2);
  EXPECT_THROW((void)sphereCapsule(-1.0), InvalidArgument);
  EXPECT_THROW((void)cylinderCapsule(0.1, std::nan("")), InvalidArgument);
  EXPECT_THROW((void)boundingCapsule(std::vector<Vector3d>{}), InvalidArgument);
  EXPECT_THROW((void)boundingSphere(std::vector<Vector3d>{Vector3d(0, 0, std::nan(""))}), InvalidArgument);
  // one point, two points
  EXPECT_EQ(boundingCapsule(std::vector<Vector3d>{Vector3d(1, 2, 3)}).radius, 0.0);
  const Capsule two = boundingCapsule(std::vector<Vector3d>{Vector3d(0, 0, 0), Vector3d(1, 0, 0)});
  EXPECT_NEAR(two.radius, 0.0, 1e-12);
  EXPECT_NEAR((two.b - two.a).norm(), 1.0, 1e-12);
}

TEST(BoundingShapes, TransformedMovesBothEnds) {
  const Capsule c{Vector3d(0, 0, 0), Vector3d(0, 0, 1), 0.1};
  const Transform T{so3::exp(Vector3d(M_PI / 2, 0, 0)), Vector3d(1, 2, 3)};
  const Capsule m = transformed(T, c);
  EXPECT_TRUE(m.a.isApprox(Vector3d(1, 2, 3)));
  EXPECT_TRUE(m.b.isApprox(Vector3d(1, 1, 3)));
  EXPECT_EQ(m.radius, 0.1);
}

// The G1's collision meshes: every vertex inside its capsule, the capsule touching one, and no
// larger than the mesh's smallest enclosing ball by volume (often much smaller: limbs are long).
TEST(BoundingShapes, UnitreeG1Meshes) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  const std::filesystem::path dir = std::filesystem::path(urdf).parent_path() / "meshes";
  int files = 0;
  double capsule_volume = 0, sphere_volume = 0;
  for (const char* name : {"left_knee_link.STL", "torso_link.STL", "left_elbow_link.STL", "head_link.STL",
                           "right_wrist_yaw_link.STL", "pelvis_contour_link.STL", "left_hip_roll_link.STL"}) {
    const io::TriangleMesh m = io::loadMesh((dir / name).string());
    const Capsule c = boundingCapsule(m.vertices);
    const Capsule s = boundingSphere(m.vertices);
    expectBounds(c, m.vertices);
    expectBounds(s, m.vertices);
    EXPECT_LE(c.volume(), s.volume() * (1 + 1e-9)) << name;
    capsule_volume += c.volume();
    sphere_volume += s.volume();
    ++files;
  }
  EXPECT_LT(capsule_volume, 0.7 * sphere_volume);
  EXPECT_EQ(files, 7);
}

TEST(BoundingShapes, UnitreeG1UrdfProxies) {
  Model g1;
  std::vector<CollisionProxy> proxies;
  if (!testing::loadG1(g1, proxies)) GTEST_SKIP() << "../shared/models/unitree not found";
  EXPECT_EQ(proxies.size(), 37u);  // every <collision> of the URDF
  int spheres = 0;
  for (const CollisionProxy& p : proxies) {
    EXPECT_TRUE(p.link.valid());
    EXPECT_GE(p.radius, 0.004) << p.name;
    EXPECT_LT(p.radius, 0.3) << p.name;
    spheres += p.a == p.b;
  }
  EXPECT_GE(spheres, 8);  // the soles' corner spheres
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
