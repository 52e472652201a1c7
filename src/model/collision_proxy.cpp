#include "kinetrack/model/collision_proxy.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <utility>

#include "kinetrack/core/errors.hpp"

namespace kinetrack {

namespace {

using Vector2d = Eigen::Vector2d;

void checkPoints(std::span<const Vector3d> points, const char* what) {
  if (points.empty()) throw InvalidArgument(std::string(what) + ": no points");
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].allFinite())
      throw InvalidArgument(std::string(what) + ": point " + std::to_string(i) + " is not finite");
    if (points[i].cwiseAbs().maxCoeff() > 1e150)  // squared distances would overflow
      throw InvalidArgument(std::string(what) + ": point " + std::to_string(i) + " is beyond 1e150");
  }
}

// A fixed pseudo-random order (splitmix64 driving Fisher–Yates): Welzl's expected linear time
// needs the points in random order; a fixed seed keeps the fit reproducible.
template <class T>
void shuffle(std::vector<T>& v) {
  std::uint64_t state = 0x853C49E6748FEA9Bull;
  for (std::size_t i = v.size(); i > 1; --i) {
    state += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::swap(v[i - 1], v[static_cast<std::size_t>(z % i)]);
  }
}

// --- smallest enclosing ball (3-D) and circle (2-D), Welzl -----------------------------------------

template <class V>
struct Ball {
  V c;
  double r2 = 0.0;  // squared radius
};

template <class V>
bool inside(const Ball<V>& b, const V& p, double tol2) {
  return (p - b.c).squaredNorm() <= b.r2 + tol2;
}

template <class V>
Ball<V> ball2(const V& a, const V& b) {
  const V c = 0.5 * (a + b);
  return {c, (a - c).squaredNorm()};
}

// The smallest ball with a, b, c on its boundary: centred on their circumcentre (in their plane),
// or, for (nearly) collinear points, the ball of the farthest pair.
template <class V>
Ball<V> ball3(const V& a, const V& b, const V& c) {
  const V u = b - a, v = c - a;
  const double uu = u.squaredNorm(), vv = v.squaredNorm(), uv = u.dot(v);
  const double det = uu * vv - uv * uv;
  if (det > 1e-12 * uu * vv && det > 0.0) {
    const double alpha = 0.5 * vv * (uu - uv) / det, beta = 0.5 * uu * (vv - uv) / det;
    const V x = alpha * u + beta * v;
    return {V(a + x), x.squaredNorm()};
  }
  Ball<V> best = ball2(a, b);
  for (const Ball<V>& o : {ball2(a, c), ball2(b, c)})
    if (o.r2 > best.r2) best = o;
  return best;
}

// The ball with a, b, c, d on its boundary (circumsphere); for (nearly) coplanar points, the
// smallest of the four 3-point balls holding the fourth point (the largest when none does).
Ball<Vector3d> ball4(const Vector3d& a, const Vector3d& b, const Vector3d& c, const Vector3d& d, double tol2) {
  Matrix3d M;
  M.row(0) = (b - a).transpose();
  M.row(1) = (c - a).transpose();
  M.row(2) = (d - a).transpose();
  const double det = M.determinant();
  const double scale = M.row(0).norm() * M.row(1).norm() * M.row(2).norm();
  if (std::abs(det) > 1e-10 * scale) {
    const Vector3d rhs(0.5 * M.row(0).squaredNorm(), 0.5 * M.row(1).squaredNorm(), 0.5 * M.row(2).squaredNorm());
    const Vector3d x = M.partialPivLu().solve(rhs);
    return {Vector3d(a + x), x.squaredNorm()};
  }
  const Ball<Vector3d> cand[4] = {ball3(a, b, c), ball3(a, b, d), ball3(a, c, d), ball3(b, c, d)};
  const Vector3d other[4] = {d, c, b, a};
  int best = -1;
  for (int i = 0; i < 4; ++i)
    if (inside(cand[i], other[i], tol2) && (best < 0 || cand[i].r2 < cand[best].r2)) best = i;
  if (best >= 0) return cand[best];
  best = 0;
  for (int i = 1; i < 4; ++i)
    if (cand[i].r2 > cand[best].r2) best = i;
  return cand[best];
}

// tol2: squared-distance slack of the inside test (round-off of the circumcentres).
double slack(const std::vector<Vector3d>& p) {
  Vector3d lo = p[0], hi = p[0];
  for (const Vector3d& x : p) lo = lo.cwiseMin(x), hi = hi.cwiseMax(x);
  return 1e-20 + 1e-12 * (hi - lo).squaredNorm();  // (1e-6 of the extent)²
}

// Welzl's move-to-front recursion unrolled, in the plane (circles) or in space (balls: one more
// level, the ball through four points).
template <class V>
Ball<V> smallestEnclosing(std::vector<V> p, double tol2) {
  shuffle(p);
  Ball<V> B{p[0], 0.0};
  for (std::size_t i = 1; i < p.size(); ++i) {
    if (inside(B, p[i], tol2)) continue;
    B = {p[i], 0.0};
    for (std::size_t j = 0; j < i; ++j) {
      if (inside(B, p[j], tol2)) continue;
      B = ball2(p[i], p[j]);
      for (std::size_t k = 0; k < j; ++k) {
        if (inside(B, p[k], tol2)) continue;
        B = ball3(p[i], p[j], p[k]);
        if constexpr (V::RowsAtCompileTime == 3)
          for (std::size_t l = 0; l < k; ++l) {
            if (inside(B, p[l], tol2)) continue;
            B = ball4(p[i], p[j], p[k], p[l], tol2);
          }
      }
    }
  }
  return B;
}

Ball<Vector3d> smallestBall(std::vector<Vector3d> p) {
  const double tol2 = slack(p);
  return smallestEnclosing(std::move(p), tol2);
}

// Distance from x to the segment [a, b].
double segmentDistance(const Vector3d& x, const Vector3d& a, const Vector3d& b) {
  const Vector3d d = b - a;
  const double dd = d.squaredNorm();
  const double t = dd > 0.0 ? std::clamp((x - a).dot(d) / dd, 0.0, 1.0) : 0.0;
  return (x - (a + t * d)).norm();
}

// Grows the radius so that every point is inside (round-off of the fit).
void contain(Capsule& c, std::span<const Vector3d> points) {
  double r = c.radius;
  for (const Vector3d& x : points) r = std::max(r, segmentDistance(x, c.a, c.b));
  c.radius = r;
}

// The capsule along the unit axis e (method in the header).
Capsule capsuleAlong(const std::vector<Vector3d>& points, const Vector3d& e, double tol2) {
  Vector3d e1 = e.unitOrthogonal();
  const Vector3d e2 = e.cross(e1);
  std::vector<Vector2d> flat(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) flat[i] = Vector2d(e1.dot(points[i]), e2.dot(points[i]));
  const Ball<Vector2d> circle = smallestEnclosing(flat, tol2);
  double r2 = circle.r2;
  for (const Vector2d& x : flat) r2 = std::max(r2, (x - circle.c).squaredNorm());
  double tb = -std::numeric_limits<double>::infinity(), ta = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double t = e.dot(points[i]);
    const double s = std::sqrt(std::max(r2 - (flat[i] - circle.c).squaredNorm(), 0.0));
    tb = std::max(tb, t - s);
    ta = std::min(ta, t + s);
  }
  if (ta > tb) ta = tb = 0.5 * (ta + tb);  // a sphere of radius r holds every point
  const Vector3d base = circle.c.x() * e1 + circle.c.y() * e2;
  Capsule c{base + ta * e, base + tb * e, std::sqrt(r2)};
  contain(c, points);
  return c;
}

void checkSize(double v, const char* what) {
  if (!std::isfinite(v) || v < 0.0)
    throw InvalidArgument(std::string(what) + ": expected a finite size ≥ 0, got " + std::to_string(v));
}

}  // namespace

SegmentClosestPoints closestPointsOfSegments(const Vector3d& a0, const Vector3d& a1, const Vector3d& b0,
                                             const Vector3d& b1) {
  // Minimise |a0 + s·d1 − b0 − t·d2|² over the unit square: the unconstrained pair clamped to
  // the square edge by edge (the function is convex; each clamp is exact for the edge it lands on).
  constexpr double kPoint = 1e-20;     // squared length (m²) below which a segment is a point
  constexpr double kParallel = 1e-12;  // sin² of the angle below which segments are parallel
  const Vector3d d1 = a1 - a0, d2 = b1 - b0, r = a0 - b0;
  const double A = d1.squaredNorm(), E = d2.squaredNorm(), F = d2.dot(r);
  double s = 0.0, t = 0.0;
  if (A <= kPoint && E <= kPoint) {
    // two points
  } else if (A <= kPoint) {
    t = std::clamp(F / E, 0.0, 1.0);
  } else {
    const double C = d1.dot(r);
    if (E <= kPoint) {
      s = std::clamp(-C / A, 0.0, 1.0);
    } else {
      const double B = d1.dot(d2);
      const double denom = A * E - B * B;  // ≥ 0: |d1 × d2|²
      if (denom > kParallel * A * E) {
        s = std::clamp((B * F - C * E) / denom, 0.0, 1.0);
      } else {
        // Parallel: every s of the overlap of B's projection onto A is as close as any other;
        // take its middle, or the end of A nearer to B when they do not overlap.
        const double s0 = -C / A, s1 = s0 + B / A;
        const double lo = std::max(0.0, std::min(s0, s1)), hi = std::min(1.0, std::max(s0, s1));
        s = lo <= hi ? 0.5 * (lo + hi) : (std::max(s0, s1) < 0.0 ? 0.0 : 1.0);
      }
      t = (B * s + F) / E;
      if (t < 0.0) {
        t = 0.0;
        s = std::clamp(-C / A, 0.0, 1.0);
      } else if (t > 1.0) {
        t = 1.0;
        s = std::clamp((B - C) / A, 0.0, 1.0);
      }
    }
  }
  SegmentClosestPoints out;
  out.s = s;
  out.t = t;
  out.pa = a0 + s * d1;
  out.pb = b0 + t * d2;
  out.distance = (out.pa - out.pb).norm();
  return out;
}

double Capsule::volume() const { return std::numbers::pi * radius * radius * ((b - a).norm() + 4.0 / 3.0 * radius); }

CollisionProxy makeCollisionProxy(LinkId link, const Capsule& c, std::string name) {
  return {link, c.a, c.b, c.radius, std::move(name)};
}

Capsule transformed(const Transform& T, const Capsule& c) { return {T.R * c.a + T.p, T.R * c.b + T.p, c.radius}; }

Capsule boundingSphere(std::span<const Vector3d> points) {
  checkPoints(points, "boundingSphere");
  const Ball<Vector3d> B = smallestBall(std::vector<Vector3d>(points.begin(), points.end()));
  Capsule c{B.c, B.c, std::sqrt(B.r2)};
  contain(c, points);
  return c;
}

Capsule boundingCapsule(std::span<const Vector3d> points) {
  checkPoints(points, "boundingCapsule");
  std::vector<Vector3d> p(points.begin(), points.end());
  Vector3d mean = Vector3d::Zero();
  for (const Vector3d& x : p) mean += x;
  mean /= static_cast<double>(p.size());
  Matrix3d cov = Matrix3d::Zero();
  for (const Vector3d& x : p) cov.noalias() += (x - mean) * (x - mean).transpose();
  const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(cov);
  const double tol2 = slack(p);
  Capsule best;
  double best_volume = std::numeric_limits<double>::infinity();
  for (int k = 2; k >= 0; --k) {  // the principal axis first: it wins ties
    const Capsule c = capsuleAlong(p, eig.eigenvectors().col(k).normalized(), tol2);
    if (c.volume() < best_volume) best = c, best_volume = c.volume();
  }
  const Capsule ball = boundingSphere(points);  // a round shape: the smallest ball may be smaller
  if (ball.volume() < best_volume) best = ball;
  return best;
}

Capsule sphereCapsule(double radius) {
  checkSize(radius, "sphereCapsule: radius");
  return {Vector3d::Zero(), Vector3d::Zero(), radius};
}

Capsule cylinderCapsule(double radius, double length) {
  checkSize(radius, "cylinderCapsule: radius");
  checkSize(length, "cylinderCapsule: length");
  const Capsule capsule{Vector3d(0, 0, -0.5 * length), Vector3d(0, 0, 0.5 * length), radius};
  const Capsule sphere{Vector3d::Zero(), Vector3d::Zero(), std::hypot(radius, 0.5 * length)};
  return sphere.volume() < capsule.volume() ? sphere : capsule;
}

Capsule boxCapsule(const Vector3d& half) {
  for (int i = 0; i < 3; ++i) checkSize(half[i], "boxCapsule: half extent");
  std::vector<Vector3d> corners;
  for (int i = 0; i < 8; ++i)
    corners.emplace_back((i & 1 ? 1 : -1) * half.x(), (i & 2 ? 1 : -1) * half.y(), (i & 4 ? 1 : -1) * half.z());
  return boundingCapsule(corners);
}

}  // namespace kinetrack
