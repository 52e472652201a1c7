// DYN step benchmarks (issue 3), single thread, warm state, targets streamed from a smooth
// trajectory (precomputed, so the loop times only the solver):
//   BM_DynStep/human66      23 orientation + 1 position target, full step: FK, Jacobians,
//                           residuals, QP, integration
//   BM_DynStep/human48      the same with the clinical joint limits active
//   BM_DynStep/icub         orientation targets on all 33 links + root position, with the
//                           14 coupled shoulder/forearm rows of COUPLING.md
//   BM_KDL_DlsStep/human66  damped least squares on KDL kinematics: KDL FK + Jacobians of the
//                           24 targets, stacked 72 × nv, Eigen LDLT of JᵀJ + λI, integrate
// Counters p50_us / p99_us are per-step percentiles over all timed steps. The stream is exactly
// periodic (10 s), so cycling through it never jumps.
#include <benchmark/benchmark.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <chrono>
#include <random>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "streams.hpp"
#include "testing/kdl_oracle.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

const std::vector<std::string>& kSegments = kt::humanSegmentNames();

struct Frame {
  std::vector<kt::Matrix3d> R;
  std::vector<kt::Vector3d> w;
  kt::Vector3d p, v;
};

// kt::bench::WaveMotion sampled every dt, with the target velocities (J ν).
std::vector<Frame> makeStream(const kt::Model& m, const std::vector<std::string>& frames, const std::string& root,
                              int count, double dt) {
  const kt::bench::WaveMotion wave(m);
  kt::Data d(m);
  kt::Matrix6Xd J(6, m.nv());
  std::vector<Frame> out;
  for (int k = 0; k < count; ++k) {
    kt::Configuration q(m);
    kt::VectorXd nu = kt::VectorXd::Zero(m.nv());
    wave.at(k * dt, q, &nu);
    kt::framesForwardKinematics(m, d, q);
    Frame fr;
    for (const auto& name : frames) {
      const kt::FrameId id = m.frameId(name);
      kt::frameJacobian(m, d, id, J);
      fr.R.push_back(d.frame[static_cast<std::size_t>(id.value)].R);
      fr.w.push_back((J * nu).tail<3>());
    }
    const kt::FrameId rid = m.frameId(root);
    kt::frameJacobian(m, d, rid, J);
    fr.p = d.frame[static_cast<std::size_t>(rid.value)].p;
    fr.v = (J * nu).head<3>();
    out.push_back(std::move(fr));
  }
  return out;
}

using kt::bench::reportPercentiles;

void runDyn(benchmark::State& state, const kt::Model& m, const std::vector<std::string>& frames,
            const std::string& root) {
  const double dt = 0.01;
  const auto stream = makeStream(m, frames, root, 1000, dt);
  kt::DynamicalIk ik(m);
  std::vector<kt::TargetId> ids;
  for (const auto& name : frames) ids.push_back(ik.tasks().addOrientation(name, {.gain = 10.0}));
  const kt::TargetId pos = ik.tasks().addPosition(root, {.gain = 10.0});
  auto feed = [&](std::size_t k) {
    const Frame& fr = stream[k % stream.size()];
    for (std::size_t i = 0; i < ids.size(); ++i) ik.tasks().setOrientation(ids[i], fr.R[i], fr.w[i]);
    ik.tasks().setPosition(pos, fr.p, fr.v);
  };
  for (std::size_t k = 0; k < 200; ++k) {  // converge: warm state
    feed(k);
    ik.step(dt);
  }
  std::vector<double> us;
  us.reserve(1 << 20);
  std::size_t k = 200;
  int non_optimal = 0;
  for (auto _ : state) {
    feed(k++);
    const auto t0 = std::chrono::steady_clock::now();
    const kt::StepResult r = ik.step(dt);
    const auto t1 = std::chrono::steady_clock::now();
    if (r.qp_status != kt::qp::Status::Optimal) ++non_optimal;
    if (us.size() < us.capacity()) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  reportPercentiles(state, us);
  state.counters["non_optimal"] = non_optimal;
  state.counters["mnte"] = ik.mnte();
}

void BM_DynStep_human66(benchmark::State& state) { runDyn(state, kt::makeHuman66(), kSegments, "Pelvis"); }
void BM_DynStep_human48(benchmark::State& state) { runDyn(state, kt::makeHuman48(), kSegments, "Pelvis"); }

void BM_DynStep_icub(benchmark::State& state) {
  const std::string path = kt::testing::sharedFile("models/icub/iCubGazeboV2_5_model.urdf");
  if (path.empty()) {
    state.SkipWithError("../shared/models/icub not found");
    return;
  }
  kt::ModelBuilder b(kt::io::loadUrdf(path));
  kt::addIcubCouplingConstraints(b);
  const kt::Model m = b.build();
  runDyn(state, m, m.linkNames(), "root_link");
}

void BM_KDL_DlsStep_human66(benchmark::State& state) {
  const kt::Model m = kt::makeHuman66();
  const double dt = 0.01, lambda = 1e-6;
  const auto stream = makeStream(m, kSegments, "Pelvis", 1000, dt);
  kt::testing::KdlOracle kdl = kt::testing::KdlOracle::fromUrdfText(kt::io::toUrdf(m));
  kt::Configuration q(m);
  const int nv = m.nv(), n = m.numJoints();
  Eigen::MatrixXd Jall(72, nv), H(nv, nv);
  Eigen::VectorXd rhs(72), nu(nv);
  Eigen::LDLT<Eigen::MatrixXd> ldlt(nv);
  KDL::Jacobian jac(kdl.numJoints());
  std::vector<unsigned> kdl_col(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) kdl_col[static_cast<std::size_t>(j)] = kdl.qIndex(m.jointName(kt::JointId(j)));
  KDL::Frame F;
  std::vector<double> us;
  us.reserve(1 << 20);
  std::size_t k = 0;
  for (auto _ : state) {
    const Frame& fr = stream[k++ % stream.size()];
    const auto t0 = std::chrono::steady_clock::now();
    const KDL::JntArray a = kdl.jointArray(m, q);
    Jall.setZero();
    for (std::size_t i = 0; i <= kSegments.size(); ++i) {
      const bool position = i == kSegments.size();
      const std::string& name = position ? kSegments[0] : kSegments[i];
      kdl.fkSolver().JntToCart(a, F, name);
      kdl.jacSolver().JntToJac(a, jac, name);
      kt::Matrix3d Rk;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) Rk(r, c) = F.M(r, c);
      const kt::Matrix3d R = q.base_rotation * Rk;
      const kt::Vector3d p = q.base_position + q.base_rotation * kt::Vector3d(F.p(0), F.p(1), F.p(2));
      const int row = 3 * static_cast<int>(i);
      // Base columns + KDL joint columns (KDL's root frame rotated to the world).
      if (position) {
        Jall.block<3, 3>(row, 0).setIdentity();
        Jall.block<3, 3>(row, 3) = -kt::so3::skew(p - q.base_position);
        for (int j = 0; j < n; ++j)
          Jall.block<3, 1>(row, 6 + j) = q.base_rotation * jac.data.col(kdl_col[static_cast<std::size_t>(j)]).head<3>();
        rhs.segment<3>(row) = fr.v + 10.0 * (fr.p - p);
      } else {
        Jall.block<3, 3>(row, 3).setIdentity();
        for (int j = 0; j < n; ++j)
          Jall.block<3, 1>(row, 6 + j) = q.base_rotation * jac.data.col(kdl_col[static_cast<std::size_t>(j)]).tail<3>();
        rhs.segment<3>(row) = fr.w[i] + 10.0 * kt::so3::vee(fr.R[i] * R.transpose());
      }
    }
    H.noalias() = Jall.transpose() * Jall;
    H.diagonal().array() += lambda;
    ldlt.compute(H);
    nu = ldlt.solve(Jall.transpose() * rhs);
    kt::integrate(m, q, nu, dt, q);
    const auto t1 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(q.joints.data());
    if (us.size() < us.capacity()) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  reportPercentiles(state, us);
}

}  // namespace

BENCHMARK(BM_DynStep_human66)->Name("BM_DynStep/human66")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DynStep_human48)->Name("BM_DynStep/human48")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DynStep_icub)->Name("BM_DynStep/icub")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_KDL_DlsStep_human66)->Name("BM_KDL_DlsStep/human66")->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
