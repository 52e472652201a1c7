// The dynamics filter (issue 19): one step() on human66 (73 kg, de Leva masses) with both feet
// welded to the ground (8 contact points, 24 force variables, 32 friction rows), the skyhook on
// the head, on a swaying stance at 240 Hz; with and without the residual_before pass (a second
// RNEA and QP at the reference). Peers in the same binary, on the same states: what any
// dynamics-based filter pays at least per frame — CRBA + RNEA (M and h at the state) — and the
// inverse dynamics of the reference alone (RNEA), the per-frame work of `kinetrack dynamics id`.
// And the step with measured loads (the plates applied, no contact QP).
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "kinetrack/dynamics/dynamics_filter.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kt = kinetrack;

namespace {

struct Stream {
  std::shared_ptr<const kt::Model> model;
  std::vector<kt::ContactBody> feet;
  std::vector<kt::Configuration> q;
  std::vector<kt::VectorXd> v, a;
};

// 240 frames (1 s at 240 Hz) of a stance swaying around the zero pose, feet on z = 0.
const Stream& stream() {
  static const Stream s = [] {
    Stream s;
    s.model = std::make_shared<const kt::Model>(kt::makeBuiltinModel("human66"));
    const kt::Model& m = *s.model;
    s.feet = kt::footContacts(m);
    kt::Configuration q0(m);
    kt::Data d(m);
    kt::forwardKinematics(m, d, q0);
    double lowest = 1e9;
    for (const kt::ContactBody& b : s.feet)
      for (const kt::Vector3d& p : b.points) {
        const kt::Transform& X = d.link[static_cast<std::size_t>(b.link.value)];
        lowest = std::min(lowest, (X.p + X.R * p).z());
      }
    q0.base_position.z() = -lowest;
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    kt::VectorXd f(m.nv());
    for (int i = 0; i < m.nv(); ++i) f[i] = u(rng);
    const double dt = 1.0 / 240.0;
    for (int k = 0; k < 240; ++k) {
      kt::VectorXd x(m.nv()), v(m.nv()), a(m.nv());
      for (int i = 0; i < m.nv(); ++i) {
        const double w = 2.0 * M_PI * f[i], amp = i < 3 ? 0.005 : 0.05;
        x[i] = amp * std::sin(w * k * dt);
        v[i] = amp * w * std::cos(w * k * dt);
        a[i] = -amp * w * w * std::sin(w * k * dt);
      }
      kt::Configuration q(m);
      kt::integrate(m, q0, x, 1.0, q);
      s.q.push_back(q);
      s.v.push_back(v);
      s.a.push_back(a);
    }
    return s;
  }();
  return s;
}

void BM_FilterStep(benchmark::State& state) {
  const Stream& s = stream();
  kt::DynamicsFilterOptions o;
  o.head = s.model->linkId("Head");
  o.contact_source = kt::ContactSource::Given;
  o.residual_before = state.range(0) != 0;
  kt::DynamicsFilter filter(s.model, s.feet, o);
  const std::uint8_t both[2] = {1, 1};
  std::size_t k = 0;
  for (auto _ : state) {
    const kt::DynamicsFilterFrame& f = filter.step(s.q[k], s.v[k], s.a[k], 1.0 / 240.0, both);
    benchmark::DoNotOptimize(f.tau.data());
    if (++k == s.q.size()) {
      k = 0;
      filter.reset(s.q[0], s.v[0]);
    }
  }
  state.SetLabel(o.residual_before ? "two contacts, skyhook, residual_before" : "two contacts, skyhook");
}
BENCHMARK(BM_FilterStep)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Measured loads (ContactForces::Measured, the --grf default): the plates' wrenches applied,
// only the accelerations change (no contact rows, no QP): RNEA with the wrenches for h, one
// Cholesky of the unactuated rows; with residual_before, the reference's RNEA with the loads.
void BM_FilterStepMeasured(benchmark::State& state) {
  const Stream& s = stream();
  kt::DynamicsFilterOptions o = kt::DynamicsFilterOptions::measuredLoads();
  o.head = s.model->linkId("Head");
  o.residual_before = state.range(0) != 0;
  kt::DynamicsFilter filter(s.model, s.feet, o);
  const std::uint8_t both[2] = {1, 1};
  std::vector<kt::ExternalWrench> plates(2);
  const double weight = s.model->totalMass() * 9.80665;
  std::size_t k = 0;
  for (auto _ : state) {
    for (int b = 0; b < 2; ++b) {  // half the weight per foot, under the ankle, a small shear
      plates[static_cast<std::size_t>(b)].force = kt::Vector3d(3.0, 0.0, 0.5 * weight + 20.0 * std::sin(0.1 * k));
      plates[static_cast<std::size_t>(b)].point = kt::Vector3d(0.05, b == 0 ? -0.1 : 0.1, 0.0);
    }
    const kt::DynamicsFilterFrame& f = filter.step(s.q[k], s.v[k], s.a[k], 1.0 / 240.0, both, plates);
    benchmark::DoNotOptimize(f.tau.data());
    if (++k == s.q.size()) {
      k = 0;
      filter.reset(s.q[0], s.v[0]);
    }
  }
  state.SetLabel(o.residual_before ? "measured loads, skyhook, residual_before" : "measured loads, skyhook");
}
BENCHMARK(BM_FilterStepMeasured)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_CrbaRnea(benchmark::State& state) {
  const Stream& s = stream();
  kt::DynamicsData d(*s.model);
  std::size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kt::crba(*s.model, d, s.q[k]).data());
    benchmark::DoNotOptimize(kt::nonlinearEffects(*s.model, d, s.q[k], s.v[k]).data());
    if (++k == s.q.size()) k = 0;
  }
  state.SetLabel("peer: M and h at the state");
}
BENCHMARK(BM_CrbaRnea)->Unit(benchmark::kMicrosecond);

void BM_InverseDynamicsStep(benchmark::State& state) {
  const Stream& s = stream();
  kt::DynamicsData d(*s.model);
  std::size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kt::rnea(*s.model, d, s.q[k], s.v[k], s.a[k]).data());
    if (++k == s.q.size()) k = 0;
  }
  state.SetLabel("peer: RNEA of the reference (dynamics id per frame)");
}
BENCHMARK(BM_InverseDynamicsStep)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
