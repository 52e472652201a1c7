// Pin-and-drag IK benchmarks (issue 17), single thread, warm state, human66:
//   BM_PinDragUpdate        one PinDragIk::update: 1 drag (RightHand, position) + 3 pins (both
//                           toes as poses, LeftHand position) = 3 drag rows + 15 aux rows; FK,
//                           Jacobians, Eq. 6–12 with the SR-inverse, limits, integration, errors
//   BM_SvdDlsUpdate         peer: the same 18 rows stacked in one task, solved by an SVD-based
//                           damped pseudo-inverse ν = V diag(σ/(σ² + λ)) Uᵀ ẋ (Eigen BDCSVD), integrate
//   BM_DynStep              peer: DYN's step with the same four targets (position + 2 poses + position)
//   BM_PinDragIcub/rows     the iCub retarget model (14 coupling rows): both soles pinned as poses, the
//                           left hand in position, the right hand swung up to 15 cm the way shoulder
//                           adduction moves it, into coupling row 4 and back (counter: the fraction
//                           of updates with active rows)
//   BM_PinDragIcub/no_rows  peer: the same on the URDF without the rows
// The drag target circles (radius 0.08 m, period 2 s, Δt = 10 ms; PinDragIk with desired joint
// values = the start pose, K_D = 2/s, so the pose does not drift over many circles). Counters p50_us / p99_us are
// per-update percentiles over all timed updates.
#include <benchmark/benchmark.h>

#include <Eigen/SVD>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/ik/pin_drag.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "testing/shared_paths.hpp"

namespace kt = kinetrack;

namespace {

constexpr double kDt = 0.01;

kt::Configuration startPose(const kt::Model& m) {
  kt::Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) q.joints[j] = 0.2 * std::sin(1.7 * j + 0.3);
  q.base_position = kt::Vector3d(0.0, 0.0, 1.0);
  q.joints[m.jointId("jRightElbow_rotz").value] = -1.0;  // elbows bent, as in the tests
  q.joints[m.jointId("jLeftElbow_rotz").value] = 1.0;
  return q;
}

kt::Vector3d placement(const kt::Model& m, const kt::Configuration& q, kt::FrameId f, kt::Matrix3d* R = nullptr) {
  kt::Data d(m);
  kt::forwardKinematics(m, d, q);
  const kt::Transform& X = kt::updateFramePlacement(m, d, f);
  if (R != nullptr) *R = X.R;
  return X.p;
}

kt::Vector3d circle(const kt::Vector3d& start, int k) {
  const double a = 2.0 * M_PI * k * kDt / 2.0;
  return start + 0.08 * kt::Vector3d(0.0, std::cos(a) - 1.0, std::sin(a));
}

void reportPercentiles(benchmark::State& state, std::vector<double>& us) {
  std::sort(us.begin(), us.end());
  if (us.empty()) return;
  state.counters["p50_us"] = us[us.size() / 2];
  state.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
}

template <class F>
void timed(benchmark::State& state, F&& step) {
  std::vector<double> us;
  us.reserve(1 << 20);
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    const auto t1 = std::chrono::steady_clock::now();
    if (us.size() < us.capacity()) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  reportPercentiles(state, us);
}

void BM_PinDragUpdate(benchmark::State& state) {
  const kt::Model m = kt::makeHuman66();
  kt::ik::PinDragOptions options;
  options.posture_gain = 2.0;  // desired joint values (the start pose): no drift over many circles
  kt::ik::PinDragIk ik(m, options);
  ik.setState(startPose(m));
  ik.setDesiredJoints(startPose(m).joints);
  ik.pin("RightToe", kt::TargetType::Pose);
  ik.pin("LeftToe", kt::TargetType::Pose);
  ik.pin("LeftHand");
  const kt::FrameId hand = m.frameId("RightHand");
  ik.drag(hand);
  const kt::Vector3d start = placement(m, ik.state(), hand);
  int k = 0;
  double pin_error = 0.0;
  timed(state, [&] {
    ik.setDragTarget(hand, circle(start, ++k));
    const kt::ik::PinDragResult r = ik.update(kDt);
    pin_error = std::max(pin_error, r.pin_position_error);
    benchmark::DoNotOptimize(r);
  });
  state.counters["max_pin_error_m"] = pin_error;
}

// The peer: one damped least-squares task over the same 18 rows, by SVD.
void BM_SvdDlsUpdate(benchmark::State& state) {
  const kt::Model m = kt::makeHuman66();
  const int nv = m.nv();
  kt::Data d(m);
  kt::Configuration q = startPose(m);
  const kt::FrameId hand = m.frameId("RightHand"), rtoe = m.frameId("RightToe"), ltoe = m.frameId("LeftToe"),
                    lhand = m.frameId("LeftHand");
  const kt::Vector3d start = placement(m, q, hand);
  kt::Matrix3d Rr, Rl;
  const kt::Vector3d pr = placement(m, q, rtoe, &Rr), pl = placement(m, q, ltoe, &Rl), ph = placement(m, q, lhand);
  kt::MatrixXd J(18, nv);
  kt::VectorXd xdot(18), nu(nv), sig(18);
  kt::Matrix6Xd Jf(6, nv);
  Eigen::BDCSVD<kt::MatrixXd> svd(18, nv, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const double gain = 50.0, lambda = 1e-3;
  int k = 0;
  timed(state, [&] {
    kt::forwardKinematics(m, d, q);
    const kt::Vector3d target = circle(start, ++k);
    kt::frameJacobian(m, d, hand, Jf);
    J.topRows(3) = Jf.topRows(3);
    xdot.head(3) = 20.0 * (target - kt::updateFramePlacement(m, d, hand).p);
    int row = 3;
    for (auto [f, p, R] : {std::tuple{rtoe, pr, Rr}, std::tuple{ltoe, pl, Rl}}) {
      kt::frameJacobian(m, d, f, Jf);
      const kt::Transform& X = kt::updateFramePlacement(m, d, f);
      J.middleRows(row, 6) = Jf;
      xdot.segment(row, 3) = gain * (p - X.p);
      xdot.segment(row + 3, 3) = gain * kt::so3::log(R * X.R.transpose());
      row += 6;
    }
    kt::frameJacobian(m, d, lhand, Jf);
    J.bottomRows(3) = Jf.topRows(3);
    xdot.tail(3) = gain * (ph - kt::updateFramePlacement(m, d, lhand).p);
    svd.compute(J);
    sig = svd.singularValues();
    sig = sig.cwiseQuotient((sig.array().square() + lambda).matrix());
    nu.noalias() = svd.matrixV() * (sig.asDiagonal() * (svd.matrixU().transpose() * xdot));
    kt::integrate(m, q, nu, kDt, q);
    benchmark::DoNotOptimize(nu);
  });
}

void BM_DynStep(benchmark::State& state) {
  const kt::Model m = kt::makeHuman66();
  kt::DynamicalIk ik(m);
  ik.setState(startPose(m));
  const kt::FrameId hand = m.frameId("RightHand");
  const kt::Vector3d start = placement(m, ik.state(), hand);
  const kt::TargetId drag = ik.tasks().addPosition("RightHand", {.gain = 20.0});
  for (const char* name : {"RightToe", "LeftToe"}) {
    kt::Matrix3d R;
    const kt::Vector3d p = placement(m, ik.state(), m.frameId(name), &R);
    const kt::TargetId t = ik.tasks().addPose(name, {.gain = 50.0}, {.gain = 50.0});
    ik.tasks().setPosition(t, p);
    ik.tasks().setOrientation(t, R);
  }
  const kt::TargetId lh = ik.tasks().addPosition("LeftHand", {.gain = 50.0});
  ik.tasks().setPosition(lh, placement(m, ik.state(), m.frameId("LeftHand")));
  int k = 0;
  timed(state, [&] {
    ik.tasks().setPosition(drag, circle(start, ++k));
    ik.step(kDt);
    benchmark::DoNotOptimize(ik.state());
  });
}

}  // namespace

void BM_PinDragIcub(benchmark::State& state) {
  const std::string path = kt::testing::sharedFile("models/icub/iCubGazeboV2_5_model.urdf");
  if (path.empty()) return state.SkipWithError("../shared/models/icub not found");
  const kt::Model urdf = kt::io::loadUrdf(path);
  const kt::Model m = state.range(0) != 0 ? kt::icubForRetargeting(urdf) : urdf;
  kt::Configuration q(m);
  q.base_position = kt::Vector3d(0.0, 0.0, 0.6);
  for (const char* side : {"l_", "r_"}) {
    q.joints[m.jointId(std::string(side) + "shoulder_roll").value] = 0.7;
    q.joints[m.jointId(std::string(side) + "shoulder_pitch").value] = -0.4;
    q.joints[m.jointId(std::string(side) + "elbow").value] = 0.9;
  }
  const kt::FrameId hand = m.frameId("r_hand");
  kt::Configuration q2 = q;
  q2.joints[m.jointId("r_shoulder_roll").value] -= 1e-4;
  const kt::Vector3d start = placement(m, q, hand);
  const kt::Vector3d dir = (placement(m, q2, hand) - start).normalized();
  kt::ik::PinDragIk ik(m);
  ik.setState(q);
  ik.pin("l_sole", kt::TargetType::Pose);
  ik.pin("r_sole", kt::TargetType::Pose);
  ik.pin("l_hand");
  ik.drag(hand);
  // The target swings 0 → 15 cm → 0 along that direction (period 2 s): the shoulder runs into
  // row 4 and back out, so part of the updates solve with active rows.
  long k = 0, with_rows = 0, total = 0;
  timed(state, [&] {
    const double a = 0.075 * (1.0 - std::cos(2.0 * M_PI * static_cast<double>(++k) * kDt / 2.0));
    ik.setDragTarget(hand, start + a * dir);
    const kt::ik::PinDragResult r = ik.update(kDt);
    with_rows += r.active_rows > 0 ? 1 : 0;
    ++total;
    benchmark::DoNotOptimize(r);
  });
  state.counters["active_fraction"] = total > 0 ? static_cast<double>(with_rows) / static_cast<double>(total) : 0.0;
}
BENCHMARK(BM_PinDragIcub)->Arg(1)->Arg(0)->ArgName("rows")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PinDragUpdate)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SvdDlsUpdate)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DynStep)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
