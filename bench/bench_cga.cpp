// The FABRIK geometry primitives (FAB §3.4) in their two backends, single thread, one call per
// iteration over a ring of 256 random inputs (hand-sized: centres within 0.2 m, radii 2–10 cm):
//   BM_<Op><Cga|Euclid>     planeThroughPoints, meetSpheres, meetCirclePlane, nearestPointOnSphere,
//                           nearestPointOnCircle, projectPointOnPlane
//   BM_GeometricProduct     one full 32 × 32 geometric product of dense multivectors
//   BM_OuterProductPoints   X ∧ Y of two conformal points (sparse)
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "kinetrack/cga/cga.hpp"
#include "kinetrack/core/random.hpp"

namespace kc = kinetrack::cga;
using kinetrack::Vector3d;

namespace {

struct Inputs {
  std::vector<Vector3d> p, q, r, x;
  std::vector<kc::Sphere> a, b;
  std::vector<kc::Circle> c;
  std::vector<kc::Plane> plane;
};

const Inputs& inputs() {
  static const Inputs in = [] {
    Inputs s;
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    auto vec = [&](double k) { return Vector3d(k * kinetrack::randomVector3(u, gen)); };
    for (int i = 0; i < 256; ++i) {
      s.p.push_back(vec(0.2));
      s.q.push_back(vec(0.2));
      s.r.push_back(vec(0.2));
      s.x.push_back(vec(0.2));
      const Vector3d ca = vec(0.2);
      s.a.push_back({ca, 0.06 + 0.04 * u(gen)});
      s.b.push_back({ca + vec(0.06), 0.06 + 0.04 * u(gen)});
      const Vector3d n = (vec(1.0) + Vector3d(0, 0, 2)).normalized();
      s.c.push_back({ca, n, 0.06 + 0.04 * u(gen)});
      const Vector3d m = (vec(1.0) + Vector3d(2, 0, 0)).normalized();
      s.plane.push_back({m, m.dot(ca) + 0.05 * u(gen)});
    }
    return s;
  }();
  return in;
}

template <class G>
void BM_PlaneThroughPoints(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(G::planeThroughPoints(in.p[i], in.q[i], in.r[i]));
    i = (i + 1) & 255;
  }
}
template <class G>
void BM_MeetSpheres(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(G::meetSpheres(in.a[i], in.b[i]));
    i = (i + 1) & 255;
  }
}
template <class G>
void BM_MeetCirclePlane(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(G::meetCirclePlane(in.c[i], in.plane[i]));
    i = (i + 1) & 255;
  }
}
template <class G>
void BM_NearestPointOnSphere(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(G::nearestPointOnSphere(in.a[i], in.x[i]));
    i = (i + 1) & 255;
  }
}
template <class G>
void BM_NearestPointOnCircle(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(G::nearestPointOnCircle(in.c[i], in.x[i]));
    i = (i + 1) & 255;
  }
}
template <class G>
void BM_ProjectPointOnPlane(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(G::projectPointOnPlane(in.plane[i], in.x[i]));
    i = (i + 1) & 255;
  }
}

void BM_GeometricProduct(benchmark::State& state) {
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  kc::Multivector a, b;
  for (double& v : a.c) v = u(gen);
  for (double& v : b.c) v = u(gen);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(a * b);
  }
}

void BM_OuterProductPoints(benchmark::State& state) {
  const Inputs& in = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kc::outer(kc::point(in.p[i]), kc::point(in.q[i])));
    i = (i + 1) & 255;
  }
}

}  // namespace

BENCHMARK(BM_PlaneThroughPoints<kc::Cga>)->Name("BM_PlaneThroughPointsCga");
BENCHMARK(BM_PlaneThroughPoints<kc::Euclid>)->Name("BM_PlaneThroughPointsEuclid");
BENCHMARK(BM_MeetSpheres<kc::Cga>)->Name("BM_MeetSpheresCga");
BENCHMARK(BM_MeetSpheres<kc::Euclid>)->Name("BM_MeetSpheresEuclid");
BENCHMARK(BM_MeetCirclePlane<kc::Cga>)->Name("BM_MeetCirclePlaneCga");
BENCHMARK(BM_MeetCirclePlane<kc::Euclid>)->Name("BM_MeetCirclePlaneEuclid");
BENCHMARK(BM_NearestPointOnSphere<kc::Cga>)->Name("BM_NearestPointOnSphereCga");
BENCHMARK(BM_NearestPointOnSphere<kc::Euclid>)->Name("BM_NearestPointOnSphereEuclid");
BENCHMARK(BM_NearestPointOnCircle<kc::Cga>)->Name("BM_NearestPointOnCircleCga");
BENCHMARK(BM_NearestPointOnCircle<kc::Euclid>)->Name("BM_NearestPointOnCircleEuclid");
BENCHMARK(BM_ProjectPointOnPlane<kc::Cga>)->Name("BM_ProjectPointOnPlaneCga");
BENCHMARK(BM_ProjectPointOnPlane<kc::Euclid>)->Name("BM_ProjectPointOnPlaneEuclid");
BENCHMARK(BM_GeometricProduct);
BENCHMARK(BM_OuterProductPoints);

BENCHMARK_MAIN();
